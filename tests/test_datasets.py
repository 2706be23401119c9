"""Tests of krein.datasets: shipped data, preprocessing conventions, synthetic generator."""

from __future__ import annotations

import os
import re
import socket
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose

from krein.datasets import (
    balanced_labels,
    binarize_images,
    list_datasets,
    load_dataset,
    make_krein_regression,
    natural_kernel,
    scale_to_unit_range,
    standardize,
)


def _readme_table():
    text = resources.files("krein.datasets").joinpath("data", "README.md").read_text()
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[1] in ("classification", "regression"):
            name, task, kind, n, d, k, counts = cells
            rows[name] = {
                "task": task,
                "kind": kind,
                "n": int(n),
                "d": d,
                "classes": None if k == "-" else int(k),
                "counts": None if counts == "-" else [int(c) for c in counts.split("/")],
            }
    return rows


README = _readme_table()


@pytest.fixture
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("network access attempted while loading shipped data")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_readme_lists_every_dataset():
    names = [d["name"] for d in list_datasets()]
    assert sorted(README) == sorted(names)
    assert len(names) == 54
    assert {d["name"] for d in list_datasets("regression")} == {
        "wage",
        "yacht",
        "airfoil",
        "pm10",
        "covid3month",
        "cardanosentiment",
    }
    for d in list_datasets():
        row = README[d["name"]]
        assert (d["kind"], d["n"], str(d["d"])) == (row["kind"], row["n"], row["d"])


@pytest.mark.parametrize("name", sorted(README))
def test_dataset_loads_offline_and_matches_readme(name, no_network):
    row = README[name]
    b = load_dataset(name)
    assert b.name == name and b.task == row["task"] and b.kind == row["kind"]
    assert isinstance(b.description, str) and b.description
    assert isinstance(b.source, str) and b.source
    assert len(b.target) == row["n"]
    if row["kind"] == "vector":
        assert b.data.shape == (row["n"], int(row["d"]))
        assert b.data.dtype == np.float64 and np.all(np.isfinite(b.data))
        if "feature_names" in b:
            assert len(b.feature_names) == b.data.shape[1]
    elif row["kind"] == "strings":
        assert len(b.data) == row["n"] and {len(s) for s in b.data} == {60}
    elif row["kind"] == "series":
        assert b.data.shape == (row["n"], int(row["d"]))
    elif row["kind"] == "images":
        h, w = (int(v) for v in row["d"].split("x"))
        assert b.data.shape == (row["n"], h, w) and b.data.dtype == np.float64
    elif row["kind"] in ("dissimilarity", "similarity"):
        assert b.data.shape == (row["n"], row["n"]) and row["d"] == f"{row['n']}x{row['n']}"
        assert b.data.dtype == np.float64 and np.all(np.isfinite(b.data))
    else:  # multiseries
        channels = int(row["d"].split("x")[0])
        assert len(b.data) == row["n"] and {s.shape[0] for s in b.data} == {channels}
    if row["task"] == "classification":
        assert np.bincount(b.target).tolist() == row["counts"]
        assert len(b.target_names) == row["classes"]
    else:
        assert b.target.dtype == np.float64


def test_specific_contents():
    heart = load_dataset("heart")
    # restored decimals: first rows of the UCI Statlog heart file (oldpeak 2.4, 1.6, 0.3)
    assert_allclose(heart.data[:3, 9], [2.4, 1.6, 0.3])
    assert heart.data[:, 9].max() == 6.2
    aus = load_dataset("australian")
    assert_allclose(aus.data[0, [1, 2, 6]], [22.08, 11.46, 1.585])
    assert 13.75 <= aus.data[:, 1].min() and aus.data[:, 1].max() == 80.25
    assert aus.data[:, 2].max() == 28.0 and aus.data[:, 6].max() == 28.5
    wis = load_dataset("wisconsin")
    assert wis.target_names.tolist() == ["2", "4"]
    splice = load_dataset("splice", as_strings=True)
    assert splice.name == "splice-strings" and splice.data[0].startswith("AGACCCGCCGGG")
    onehot = load_dataset("splice").data
    assert_allclose(onehot.reshape(-1, 60, 4).sum(axis=2), 1.0, rtol=1e-6)
    wage = load_dataset("wage")
    assert_allclose(wage.target[:3], [5.10, 4.95, 6.67])
    gp = load_dataset("gunpoint")
    assert (len(gp.train_idx), len(gp.test_idx)) == (50, 150)
    jv = load_dataset("japanesevowels")
    assert min(s.shape[1] for s in jv.data) == 7 and max(s.shape[1] for s in jv.data) == 29
    assert (len(jv.train_idx), len(jv.test_idx)) == (270, 370)
    ring = load_dataset("ring")
    x0 = ring.data[ring.target == 0]
    x1 = ring.data[ring.target == 1]
    assert abs(x0.std() - 2.0) < 0.05 and abs(x1.mean() - 2 / np.sqrt(20)) < 0.05


def test_digits_3v5_and_binarize():
    d = load_dataset("digits-3v5")
    assert d.data.max() == 16.0 and d.target_names.tolist() == ["3", "5"]
    b = load_dataset("digits-3v5", binarize=True)
    assert b.data.dtype == bool
    assert np.array_equal(b.data, d.data > 8)
    assert np.array_equal(binarize_images(d.data, threshold=3.0), d.data > 3)
    with pytest.raises(ValueError, match="binarize=True"):
        load_dataset("pima", binarize=True)


def test_bad_names():
    with pytest.raises(ValueError, match="unknown dataset name='nope'"):
        load_dataset("nope")
    with pytest.raises(TypeError, match="name must be a string"):
        load_dataset(3)
    with pytest.raises(ValueError, match="as_strings"):
        load_dataset("pima", as_strings=True)
    with pytest.raises(ValueError, match="task"):
        list_datasets("clustering")


# ---------------------------------------------------------------- the papers' own data
# Numbers transcribed from the shared data README (../shared/data/README.md), not from the registry:
# name -> (shape of data, original labels -> counts over all rows, (train, test) class counts by
# original label or None).
PAPERS = {
    "yacht": ((308, 6), None, None),
    "airfoil": ((1503, 5), None, None),
    "pm10": ((500, 7), None, None),
    "protein": ((213, 213), {"HA": 72, "HB": 72, "M": 39, "G": 30}, None),
    "coilyork": ((144, 144), {"-1": 72, "1": 72}, None),
    "aural-sonar": ((100, 100), {"1": 50, "2": 50}, None),
    "chen-protein": ((213, 213), {"1": 72, "2": 72, "3": 39, "4": 30}, None),
    "usps": (
        (9298, 16, 16),
        None,
        (
            {
                "0": 1194,
                "1": 1005,
                "2": 731,
                "3": 658,
                "4": 652,
                "5": 556,
                "6": 664,
                "7": 645,
                "8": 542,
                "9": 644,
            },
            {
                "0": 359,
                "1": 264,
                "2": 198,
                "3": 166,
                "4": 200,
                "5": 160,
                "6": 170,
                "7": 147,
                "8": 166,
                "9": 177,
            },
        ),
    ),
    "usps-3v5": ((1540, 16, 16), {"3": 658 + 166, "5": 556 + 160}, ({"3": 658, "5": 556}, None)),
    "usps-4v6": ((1686, 16, 16), {"4": 652 + 200, "6": 664 + 170}, ({"4": 652, "6": 664}, None)),
    "a1a": ((1605, 123), {"-1": 1210, "1": 395}, None),
    "fourclass": ((862, 2), {"-1": 555, "1": 307}, None),
    "monk-1": ((556, 6), None, ({"0": 62, "1": 62}, {"0": 216, "1": 216})),
    "monk-2": ((601, 6), None, ({"0": 105, "1": 64}, {"0": 290, "1": 142})),
    "monk-3": ((554, 6), None, ({"0": 62, "1": 60}, {"0": 204, "1": 228})),
    "breast-cancer": ((286, 16), {"no-recurrence-events": 201, "recurrence-events": 85}, None),
    "spect": ((267, 22), None, ({"0": 40, "1": 40}, {"0": 15, "1": 172})),
    "parkinsons": ((195, 22), {"0": 48, "1": 147}, None),
    "climate": ((540, 18), {"0": 46, "1": 494}, None),
    "diabetic": ((1151, 19), {"0": 540, "1": 611}, None),
    "fertility": ((100, 9), {"N": 88, "O": 12}, None),
    "transfusion": ((748, 4), {"0": 570, "1": 178}, None),
    "eeg": ((14980, 14), {"0": 8257, "1": 6723}, None),
    "guide1": ((3089, 4), {"0": 1089, "1": 2000}, None),
    "guide1-t": ((4000, 4), {"0": 2000, "1": 2000}, None),
    "ijcnn1": ((49990, 22), None, ({"-1": 31585, "1": 3415}, {"-1": 13552, "1": 1438})),
    "madelon": ((2600, 500), None, ({"-1": 1000, "1": 1000}, {"-1": 300, "1": 300})),
    "yaleb": ((2414, 32, 32), None, None),
}


def _label_counts(bunch, rows=None):
    labels = bunch.target_names[bunch.target if rows is None else bunch.target[rows]]
    values, counts = np.unique(labels, return_counts=True)
    return dict(zip(values.tolist(), counts.tolist(), strict=True))


@pytest.mark.parametrize("name", sorted(PAPERS))
def test_papers_data_as_in_the_shared_readme(name, no_network):
    shape, counts, split = PAPERS[name]
    b = load_dataset(name)
    assert b.data.shape == shape and len(b.target) == shape[0]
    if counts is not None:
        assert _label_counts(b) == counts
    if split is not None:
        train, test = split
        assert b.train_idx.dtype == np.int64 and b.test_idx.dtype == np.int64
        assert np.all(np.diff(b.train_idx) > 0) and np.all(np.diff(b.test_idx) > 0)
        assert np.intersect1d(b.train_idx, b.test_idx).size == 0
        assert np.array_equal(np.union1d(b.train_idx, b.test_idx), np.arange(shape[0]))
        got = _label_counts(b, b.train_idx)
        assert {k: got.get(k, 0) for k in train} == train
        if test is not None:
            assert _label_counts(b, b.test_idx) == test
    info = next(d for d in list_datasets() if d["name"] == name)
    if "train_idx" in b:
        assert info["split"] == (len(b.train_idx), len(b.test_idx))
    elif name != "coilyork":
        assert info["split"] is None


def test_usps_split_and_two_digit_views():
    usps = load_dataset("usps")
    assert (len(usps.train_idx), len(usps.test_idx)) == (7291, 2007)
    assert usps.data.min() == 0.0 and usps.data.max() == 1.0
    assert _label_counts(usps, usps.test_idx)["9"] == 177
    for name, (a, b) in (("usps-3v5", ("3", "5")), ("usps-4v6", ("4", "6"))):
        view = load_dataset(name)
        rows = np.flatnonzero(np.isin(usps.target_names[usps.target], [a, b]))
        assert np.array_equal(view.data, usps.data[rows])
        assert np.array_equal(view.target, (usps.target_names[usps.target[rows]] == b).astype(int))
        assert view.target_names.tolist() == [a, b]
        assert np.array_equal(rows[view.train_idx], np.intersect1d(rows, usps.train_idx))
        assert np.array_equal(rows[view.test_idx], np.intersect1d(rows, usps.test_idx))
    binary = load_dataset("usps-3v5", binarize=True)
    assert binary.data.dtype == bool and binary.data.shape == (1540, 16, 16)


def test_guide1_parts():
    train, test = load_dataset("guide1"), load_dataset("guide1-t")
    assert "train_idx" not in train and "test_idx" not in test
    assert train.data.shape == (3089, 4) and test.data.shape == (4000, 4)
    assert train.target_names.tolist() == test.target_names.tolist() == ["0", "1"]


def test_yaleb_images_are_upright():
    """Yale B is stored column-major (MATLAB); the images must come out row-major, face upright.

    An upright face is nearly mirror-symmetric left-right but not top-bottom; a transposed face
    would be the other way round.
    """
    b = load_dataset("yaleb")
    assert b.data.shape == (2414, 32, 32) and b.data.dtype == np.float64
    assert b.data.min() == 0.0 and b.data.max() == 255.0
    assert len(b.target_names) == 38 and np.bincount(b.target).min() == 59
    mean = b.data.mean(axis=0)
    left_right = np.corrcoef(mean.ravel(), mean[:, ::-1].ravel())[0, 1]
    top_bottom = np.corrcoef(mean.ravel(), mean[::-1, :].ravel())[0, 1]
    assert left_right > 0.9 and top_bottom < 0.5


def test_dissimilarity_and_similarity_matrices():
    protein = load_dataset("protein")
    D = protein.data
    assert np.array_equal(D, D.T) and np.all(np.diag(D) == 0) and D.min() == 0.0 and D.max() == 13.64
    assert protein.target_names.tolist() == ["HA", "HB", "M", "G"]
    for name, n_negative in (("aural-sonar", 38), ("chen-protein", 40)):
        S = load_dataset(name).data
        assert np.array_equal(S, S.T) and np.all(np.diag(S) == 1.0)
        assert S.min() >= 0.0 and S.max() <= 1.0
        w = np.linalg.eigvalsh(S)
        assert np.sum(w < -1e-10 * w[-1]) == n_negative
    assert np.linalg.eigvalsh(load_dataset("aural-sonar").data)[0] == pytest.approx(-2.0964188988297203)
    coil = load_dataset("coilyork")
    assert coil.data.shape == coil.data_test.shape == (144, 144)
    assert np.all(np.diag(coil.data) == 0) and coil.data.max() == 478.0
    assert np.abs(coil.data - coil.data.T).max() == 72.0  # graph matching is not symmetric
    assert np.bincount(coil.target_test).tolist() == [72, 72]
    assert coil.target_names.tolist() == ["-1", "1"] and "train_idx" not in coil


def test_side_information():
    park = load_dataset("parkinsons")
    assert len(np.unique(park.subject)) == 32 and park.names[0] == "phon_R01_S01_1"
    climate = load_dataset("climate")
    pairs = {(s, r) for s, r in zip(climate.study, climate.run, strict=True)}
    assert len(pairs) == 540 and climate.study.dtype == np.int64
    monk = load_dataset("monk-1")
    assert monk.ids.shape == (556,) and monk.data.min() == 1.0
    fert = load_dataset("fertility")
    assert fert.target_names.tolist() == ["N", "O"]


SHARED = Path(os.environ.get("KREIN_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


@pytest.mark.skipif(not SHARED.is_dir(), reason="the shared data folder is not beside the repository")
@pytest.mark.parametrize(
    "name, stem",
    [
        ("protein", "protein_globins"),
        ("coilyork", "coilyork_iksvmdc"),
        ("aural-sonar", "aural_sonar"),
        ("chen-protein", "chen_protein"),
        ("usps", "usps"),
        ("yaleb", "yaleb_32x32"),
        ("madelon", "madelon"),
        ("ijcnn1", "ijcnn1"),
        ("monk-2", "monks2"),
        ("monk-3", "monks3"),
        ("pm10", "pm10"),
        ("yacht", "yacht"),
        ("fertility", "fertility"),
        ("covid3month", "covid3month"),
        ("cardanosentiment", "cardanosentiment"),
    ],
)
def test_shipped_values_equal_the_shared_copy(name, stem):
    """The re-packing kept every value: the shipped data equal the shared source files."""
    with np.load(SHARED / f"{stem}.npz") as z:
        src = {k: z[k] for k in z.files}
    b = load_dataset(name)
    if name == "coilyork":
        assert np.array_equal(b.data, src["D_train"]) and np.array_equal(b.data_test, src["D_train_test"].T)
        assert np.array_equal(b.target_names[b.target_test].astype(int), src["y_test"])
        y = src["y_train"]
    else:
        X = src["D"] if "D" in src else src["S"] if "S" in src else src["X"]
        if name == "yaleb":
            X = X.reshape(-1, 32, 32, order="F")
        assert np.array_equal(b.data.reshape(X.shape), X)
        y = src["labels"] if name in ("protein", "fertility") else src["y"]
    if b.task == "regression":
        assert np.array_equal(b.target, y)
    else:
        assert np.array_equal(b.target_names[b.target], y.astype(str))
    if "train_idx" in src:
        assert np.array_equal(b.train_idx, src["train_idx"])
        assert np.array_equal(b.test_idx, src["test_idx"] if "test_idx" in src else src["valid_idx"])


# Numbers read off the aeon 1.6.0 .ts files (Covid3Month, CardanoSentiment; ../shared/data/README.md)
TSER = {
    # name: (shape, (n_train, n_test), target min / max, first values of row 0, first targets)
    "covid3month": ((201, 84), (140, 61), (0.0, 2 / 11), None, [0.0, 0.07758621, 0.0]),
    "cardanosentiment": (
        (107, 2, 24),
        (74, 33),
        (-0.494, 0.984),
        ([0.504, 0.49339, 0.49221], [4339.96019453, 3458.78402329, 1076.28864373]),
        [0.0589, -0.1002, -0.422],
    ),
}


@pytest.mark.parametrize("name", sorted(TSER))
def test_time_series_extrinsic_regression_sets(name, no_network):
    """covid3month and cardanosentiment: raw values, float targets and the archive's TRAIN/TEST split."""
    shape, (n_train, n_test), (lo, hi), row0, first = TSER[name]
    b = load_dataset(name)
    assert (b.task, b.kind) == ("regression", "series" if len(shape) == 2 else "multiseries")
    assert b.data.shape == shape and b.data.dtype == np.float64 and np.all(np.isfinite(b.data))
    assert b.target.dtype == np.float64 and b.target.shape == (shape[0],)
    assert (b.target.min(), b.target.max()) == pytest.approx((lo, hi), abs=1e-12)
    assert_allclose(b.target[:3], first, atol=1e-8)
    assert np.array_equal(b.train_idx, np.arange(n_train))  # TRAIN file first, then TEST
    assert np.array_equal(b.test_idx, np.arange(n_train, n_train + n_test))
    assert b.train_idx.dtype == b.test_idx.dtype == np.int64
    info = next(d for d in list_datasets("regression") if d["name"] == name)
    assert info["split"] == (n_train, n_test) and info["classes"] is None
    assert "Tan, Bergmeir, Petitjean, Webb" in b.source and "aeon 1.6.0" in b.source
    assert "target_names" not in b
    if name == "covid3month":  # raw daily case counts: integers, up to 20341, 754210 in all
        assert np.array_equal(b.data, np.round(b.data)) and b.data.min() == 0.0
        assert b.data.max() == 20341.0 and b.data.sum() == 754210.0
    else:  # price (USD) and volume, not normalized
        assert_allclose(b.data[0, 0, :3], row0[0]) and assert_allclose(b.data[0, 1, :3], row0[1])
        assert (b.data[:, 0].min(), b.data[:, 0].max()) == (0.40056, 1.23089)
        assert b.data[:, 1].max() == pytest.approx(527376.93046093)


def _dtw_reference(a, b):
    """Textbook DTW (not squared; steps (1,0), (0,1), (1,1)) by dynamic programming."""
    cost = np.full((len(a) + 1, len(b) + 1), np.inf)
    cost[0, 0] = 0.0
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            step = min(cost[i - 1, j], cost[i, j - 1], cost[i - 1, j - 1])
            cost[i, j] = (a[i - 1] - b[j - 1]) ** 2 + step
    return np.sqrt(cost[-1, -1])


def test_natural_kernel_of_covid3month_is_double_centred_dtw():
    from krein.dissimilarity import dtw_distances

    b = load_dataset("covid3month")
    K, y, desc = natural_kernel("covid3month", max_samples=None)
    assert np.array_equal(y, b.target) and desc == "covid3month (n=201): -1/2 H (D*D) H of DTW distances"
    D = dtw_distances(b.data)
    for i, j in ((0, 1), (1, 2), (5, 140), (17, 200)):
        assert D[i, j] == pytest.approx(_dtw_reference(b.data[i], b.data[j]), rel=1e-12)
    H = np.eye(201) - 1.0 / 201
    assert_allclose(K, -0.5 * H @ (D * D) @ H, rtol=1e-10, atol=1e-10 * np.abs(K).max())
    w = np.linalg.eigvalsh(K)
    assert np.sum(w < -1e-10 * w[-1]) == 83  # DTW on the raw counts: strongly indefinite
    K60, y60, desc60 = natural_kernel("covid3month", max_samples=60, random_state=0)
    assert K60.shape == (60, 60) and "n=60 of 201" in desc60 and set(y60) <= set(b.target)


def test_natural_kernel_of_cardanosentiment_is_the_channel_covariance_gaussian():
    """The 2 x 2 channel covariances under the affine-invariant geodesic Gaussian, as basicmotions; the
    ridge reg tr(C)/2 of covariance_descriptors exceeds every price variance on the raw values."""
    from scipy.linalg import eigvalsh

    b = load_dataset("cardanosentiment")
    K, y, desc = natural_kernel("cardanosentiment", max_samples=None)
    assert np.array_equal(y, b.target) and "2x2 channel covariances" in desc
    assert K.shape == (107, 107) and np.all(np.diag(K) == 1.0) and np.all((K > 0) & (K <= 1))

    def cov(s):
        C = np.cov(s)
        return C + 1e-6 * np.trace(C) / 2 * np.eye(2)

    C = [cov(s) for s in b.data]
    d2 = np.array([[np.sum(np.log(eigvalsh(A, B)) ** 2) for B in C] for A in C])
    sigma2 = np.median(d2[np.triu_indices(107, k=1)])
    assert_allclose(K, np.exp(-d2 / sigma2), rtol=1e-8, atol=1e-12)
    price_var = b.data[:, 0].var(axis=1, ddof=1)
    assert np.all(1e-6 * np.trace(C, axis1=1, axis2=2) / 2 > price_var)


@pytest.mark.skipif(not SHARED.is_dir(), reason="the shared data folder is not beside the repository")
def test_breast_cancer_encodes_the_raw_categories_without_imputing():
    """Each shipped column is one raw category (ordered ones by rank); a '?' is all zeros, never a guess."""
    with np.load(SHARED / "breast-cancer-ljubljana.npz") as z:
        raw, names, labels = z["X"].astype(str), z["feature_names"].astype(str).tolist(), z["labels"]
    b = load_dataset("breast-cancer")
    assert np.array_equal(b.target_names[b.target], labels.astype(str))
    columns = b.feature_names.tolist()
    age = raw[:, names.index("age")]
    assert_allclose(b.data[:, columns.index("age")], [int(a[0]) - 1 for a in age])  # 10-19 → 0, 20-29 → 1
    assert_allclose(b.data[:, columns.index("deg-malig")], raw[:, names.index("deg-malig")].astype(int) - 1)
    assert_allclose(b.data[:, columns.index("irradiat")], raw[:, names.index("irradiat")] == "yes")
    for feature in ("menopause", "node-caps", "breast-quad"):
        values = raw[:, names.index(feature)]
        block = [j for j, c in enumerate(columns) if c.startswith(feature + "=")]
        for j in block:
            assert_allclose(b.data[:, j], values == columns[j].split("=", 1)[1])
        missing = values == "?"
        assert_allclose(b.data[:, block].sum(axis=1), ~missing)  # one category, or none where missing
    assert (raw == "?").sum() == 9 and b.data[:, [c.startswith("node-caps=") for c in columns]].sum() == 278


# ---------------------------------------------------------------- preprocessing


def test_balanced_labels():
    y = np.array(["a"] * 3 + ["b"] * 7)
    yr, classes = balanced_labels(y)
    assert classes.tolist() == ["a", "b"]
    assert_allclose(yr[y == "b"], np.sqrt(3 / 7))
    assert_allclose(yr[y == "a"], -np.sqrt(7 / 3))
    assert_allclose([yr.mean(), (yr**2).mean()], [0.0, 1.0], atol=1e-15)
    yr2, classes2 = balanced_labels(y, pos_label="a")
    assert classes2.tolist() == ["b", "a"]
    assert_allclose(yr2, -yr)
    with pytest.raises(ValueError, match="exactly two classes"):
        balanced_labels([1, 2, 3])
    with pytest.raises(ValueError, match="pos_label"):
        balanced_labels([1, 2], pos_label=5)


def test_standardize_and_unit_range():
    rng = np.random.default_rng(0)
    X = rng.normal(3.0, 5.0, size=(50, 4))
    X[:, 2] = 7.0
    Z, mean, scale = standardize(X, return_params=True)
    assert_allclose(Z.mean(axis=0), 0.0, atol=1e-14)
    assert_allclose(Z.std(axis=0), [1, 1, 0, 1], atol=1e-14)
    assert_allclose((X - mean) / scale, Z)
    y = np.array([2.0, 4.0, 10.0])
    s = scale_to_unit_range(y)
    assert_allclose(s, (y - 16 / 3) / 8)
    assert s.max() - s.min() == pytest.approx(1.0)
    assert_allclose(scale_to_unit_range(y, center=False), y / 8)
    with pytest.raises(ValueError, match="constant"):
        scale_to_unit_range([1.0, 1.0])
    with pytest.raises(ValueError, match="X must be a 2-d"):
        standardize([1.0, 2.0])


# ---------------------------------------------------------------- synthetic


@pytest.mark.parametrize("kernel", ["gauss", "sigmoid"])
def test_make_krein_regression(kernel):
    X, y, K = make_krein_regression(100, kernel=kernel, return_kernel=True, random_state=0)
    assert X.shape == (100, 20) and y.shape == (100,) and K.shape == (100, 100)
    assert np.array_equal(K, K.T)
    mu = np.linalg.eigvalsh(K)
    assert mu[0] < 0 < mu[-1]  # indefinite
    # K = K0 - inv(K0): eigenvalues mu = lam - 1/lam; invert and check K0 is the sampled kernel
    w, V = np.linalg.eigh(K)
    roots = np.stack([(w + np.sqrt(w**2 + 4)) / 2, (w - np.sqrt(w**2 + 4)) / 2])
    if kernel == "gauss":
        K0 = (V * roots[0]) @ V.T  # a Gaussian kernel matrix is PD: the positive root
        assert_allclose(np.diag(K0), 1.0, atol=1e-6)
        assert np.all(K0 > 0)
    X2, y2 = make_krein_regression(100, kernel=kernel, random_state=0)
    assert_allclose(X2, X)
    assert_allclose(y2, y)
    # noise is 5% of the range of the noiseless target: residual scale check
    X3, y3 = make_krein_regression(100, kernel=kernel, noise=0.0, random_state=0)
    resid = y - y3
    assert 0.01 < resid.std() / (y3.max() - y3.min()) < 0.09


def test_make_krein_regression_bandwidth():
    """A given η replaces the Appendix E.1 draw and leaves the rest of the draw as it was."""
    X, _, K = make_krein_regression(
        60, 8, kernel="sigmoid", bandwidth=3.0, return_kernel=True, random_state=1
    )
    X_drawn, _ = make_krein_regression(60, 8, kernel="sigmoid", random_state=1)
    assert_allclose(X, X_drawn)
    lam, V = np.linalg.eigh(np.tanh((X @ X.T - 0.5) / 9.0))
    assert_allclose(K, (V * (lam - 1.0 / lam)) @ V.T, rtol=1e-8, atol=1e-8 * np.abs(K).max())
    _, _, K = make_krein_regression(60, 8, bandwidth=2.0, return_kernel=True, random_state=1)
    distances = np.sum((X[:, None] - X[None]) ** 2, axis=-1)
    lam, V = np.linalg.eigh(np.exp(-distances / 8.0))
    assert_allclose(K, (V * (lam - 1.0 / lam)) @ V.T, rtol=1e-8, atol=1e-8 * np.abs(K).max())
    for bad in (0.0, -1.0, np.inf, "1"):
        with pytest.raises(ValueError, match="bandwidth"):
            make_krein_regression(bandwidth=bad)


def test_make_krein_regression_errors():
    with pytest.raises(ValueError, match="kernel"):
        make_krein_regression(kernel="laplace")
    with pytest.raises(ValueError, match="n_samples"):
        make_krein_regression(1)


# ---------------------------------------------------------------- natural kernels


@pytest.mark.parametrize(
    "name, method",
    [
        ("heart", None),
        ("splice-strings", None),
        ("gunpoint", None),
        ("basicmotions", None),
        ("digits-3v5", None),
        ("digits-3v5", "tangent"),
        ("japanesevowels", None),
    ],
)
def test_natural_kernel(name, method):
    K, y, desc = natural_kernel(name, method=method, max_samples=60, random_state=0)
    assert K.shape == (60, 60) and y.shape == (60,)
    assert np.array_equal(K, K.T) and np.all(np.isfinite(K))
    assert desc.startswith(name) and "n=60" in desc
    if method == "tangent" or name in ("splice-strings", "gunpoint"):
        assert_allclose(K.sum(axis=0), 0.0, atol=1e-8 * np.abs(K).max())  # double centred
    counts = np.bincount(y)
    full = np.bincount(load_dataset(name).target)
    assert np.all(np.abs(counts - full * 60 / full.sum()) <= 1)  # stratified subsample


def test_natural_kernel_values():
    K, y, _ = natural_kernel("digits-3v5", max_samples=None)
    assert K.shape == (365, 365) and np.all(np.diag(K) == 1.0)
    w = np.linalg.eigvalsh(K)
    assert w[0] < -1.0  # the Simpson kernel is indefinite (Luss & d'Aspremont 2009, Table 1)
    K2, _, desc = natural_kernel("haberman", max_samples=None)
    assert re.search(r"tau = 0.7 d = 2.1", desc)
    assert np.all(np.diag(K2) == pytest.approx(2.1))
    with pytest.raises(ValueError, match="method='dtw' does not apply"):
        natural_kernel("pima", method="dtw")


@pytest.mark.parametrize(
    "name, n_negative, centred",
    [("protein", 4, True), ("coilyork", 52, True), ("aural-sonar", 38, False), ("chen-protein", 40, False)],
)
def test_natural_kernel_of_matrix_datasets(name, n_negative, centred):
    K, y, desc = natural_kernel(name)
    b = load_dataset(name)
    assert K.shape == b.data.shape and np.array_equal(y, b.target)
    assert np.array_equal(K, K.T)
    w = np.linalg.eigvalsh(K)
    assert np.sum(w < -1e-10 * w[-1]) == n_negative
    if centred:  # K = -1/2 H (D∘D) H with D symmetrized for coilyork (Oglic & Gärtner 2018, App. C)
        D = 0.5 * (b.data + b.data.T)
        H = np.eye(len(D)) - 1.0 / len(D)
        assert_allclose(K, -0.5 * H @ (D * D) @ H, atol=1e-9 * np.abs(K).max())
        assert ("symmetrized" in desc) == (name == "coilyork")
    else:
        assert np.array_equal(K, b.data)


def test_natural_kernel_of_yaleb_is_the_geodesic_gaussian():
    K, y, desc = natural_kernel("yaleb", max_samples=40)
    assert K.shape == (40, 40) and np.all(np.diag(K) == 1.0) and np.all((K > 0) & (K <= 1))
    assert "9x9 region covariances" in desc


def test_matrix_datasets_work_with_precomputed_estimators():
    """Similarities go in as kernels, dissimilarities through DoubleCentering; both beat chance."""
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.pipeline import make_pipeline

    from krein.dissimilarity import DoubleCentering
    from krein.least_squares import KreinRidgeClassifier
    from krein.svm import IndefiniteSVC

    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    sonar = load_dataset("aural-sonar")
    for estimator in (KreinRidgeClassifier(kernel="precomputed"), IndefiniteSVC(kernel="precomputed")):
        scores = cross_val_score(estimator, sonar.data, sonar.target, cv=cv)
        assert scores.mean() >= 0.8  # chance: 0.5
    protein = load_dataset("protein")
    model = make_pipeline(DoubleCentering(), KreinRidgeClassifier(kernel="precomputed"))
    assert cross_val_score(model, protein.data, protein.target, cv=cv).mean() >= 0.95  # chance: 0.34
    coil = load_dataset("coilyork")  # the official split: fit on data, score on data_test
    scale = coil.data.max()  # dissimilarities up to 478: scaled so that the default λ± suit them
    model = make_pipeline(DoubleCentering(), KreinRidgeClassifier(kernel="precomputed"))
    model.fit(0.5 * (coil.data + coil.data.T) / scale, coil.target)
    assert model.score(coil.data_test / scale, coil.target_test) >= 0.7  # chance: 0.5

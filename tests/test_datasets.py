"""Tests of krein.datasets: shipped data, preprocessing conventions, synthetic generator."""

from __future__ import annotations

import re
import socket
from importlib import resources

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
    assert len(names) == 25
    assert {d["name"] for d in list_datasets("regression")} == {"wage"}


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
        assert b.data.shape == (row["n"], 8, 8)
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
    assert np.bincount(gp.split).tolist() == [50, 150]
    jv = load_dataset("japanesevowels")
    assert min(s.shape[1] for s in jv.data) == 7 and max(s.shape[1] for s in jv.data) == 29
    assert np.bincount(jv.split).tolist() == [270, 370]
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

"""The elastic distances on aeon (MSM, TWE, ERP, LCSS, EDR, WDTW, DDTW, squared DTW) in pairwise_distances.

Each is checked against aeon's own pairwise function and against a plain double loop of its
definition written here from the papers' recurrences (with aeon's boundary where it departs from the
paper: ERP, EDR).  One set of collections is shared by the tests, so numba compiles each aeon routine
once per session (aeon caches the compiled code on disk).
"""

import inspect
import sys

import numpy as np
import pytest
from numpy.testing import assert_allclose

aeon_distances = pytest.importorskip("aeon.distances")

from krein.dissimilarity import pairwise_distances  # noqa: E402
from krein.kernels import DistanceKernel, pack_objects  # noqa: E402

INF = float("inf")
FULL = None  # no band


def _norm(u):
    return float(np.sqrt(np.sum(u * u)))


def _allowed(band, i, j):
    return band is None or abs(i - j) <= band


# ---- the definitions, one dynamic programme each; a series is (n_channels, length) --------------


def ref_squared_dtw(x, y, band=FULL, weight=None):
    """Σ of (weighted) squared differences on the cheapest warping path (Sakoe & Chiba; aeon: no root)."""
    p, q = x.shape[1], y.shape[1]
    D = np.full((p + 1, q + 1), INF)
    D[0, 0] = 0.0
    for i in range(p):
        for j in range(q):
            if _allowed(band, i, j):
                w = 1.0 if weight is None else weight(abs(i - j))
                D[i + 1, j + 1] = w * np.sum((x[:, i] - y[:, j]) ** 2) + min(
                    D[i, j], D[i, j + 1], D[i + 1, j]
                )
    return D[p, q]


def ref_wdtw(x, y, g=0.05, band=FULL):
    """Jeong et al. (2011): weight 1/(1 + exp(−g(k − m/2))) of the phase difference k, m the longer length."""
    m = max(x.shape[1], y.shape[1])
    return ref_squared_dtw(x, y, band, weight=lambda k: 1.0 / (1.0 + np.exp(-g * (k - m / 2))))


def derivative(x):
    """Keogh & Pazzani (2001): ((aᵢ − aᵢ₋₁) + (aᵢ₊₁ − aᵢ₋₁)/2)/2 for the inner points."""
    return np.array(
        [[((s[i] - s[i - 1]) + (s[i + 1] - s[i - 1]) / 2) / 2 for i in range(1, len(s) - 1)] for s in x]
    )


def ref_ddtw(x, y):
    return ref_squared_dtw(derivative(x), derivative(y))


def _msm_univariate(x, y, c, band):
    p, q = len(x), len(y)

    def split_merge(new, previous, other):  # Stefan et al. (2013), the cost C of a split or merge
        if previous <= new <= other or previous >= new >= other:
            return c
        return c + min(abs(new - previous), abs(new - other))

    D = np.full((p, q), INF)
    D[0, 0] = abs(x[0] - y[0])
    for i in range(1, p):
        if _allowed(band, i, 0):
            D[i, 0] = D[i - 1, 0] + split_merge(x[i], x[i - 1], y[0])
    for j in range(1, q):
        if _allowed(band, 0, j):
            D[0, j] = D[0, j - 1] + split_merge(y[j], y[j - 1], x[0])
    for i in range(1, p):
        for j in range(1, q):
            if _allowed(band, i, j):
                D[i, j] = min(
                    D[i - 1, j - 1] + abs(x[i] - y[j]),
                    D[i - 1, j] + split_merge(x[i], x[i - 1], y[j]),
                    D[i, j - 1] + split_merge(y[j], y[j - 1], x[i]),
                )
    return D[p - 1, q - 1]


def ref_msm(x, y, c=1.0, band=FULL):
    """Independent MSM: the sum over channels."""
    return sum(_msm_univariate(x[k], y[k], c, band) for k in range(x.shape[0]))


def ref_twe(x, y, nu=0.001, lmbda=1.0, band=FULL):
    """Marteau (2009): series padded with 0 at time 0, time stamps = indices, first row and column infinite."""
    p, q = x.shape[1], y.shape[1]
    a = np.concatenate([np.zeros((x.shape[0], 1)), x], axis=1)
    b = np.concatenate([np.zeros((y.shape[0], 1)), y], axis=1)
    D = np.full((p + 1, q + 1), INF)
    D[0, 0] = 0.0
    for i in range(1, p + 1):
        for j in range(1, q + 1):
            if _allowed(band, i - 1, j - 1):
                D[i, j] = min(
                    D[i - 1, j] + _norm(a[:, i] - a[:, i - 1]) + nu + lmbda,  # delete in a
                    D[i, j - 1] + _norm(b[:, j] - b[:, j - 1]) + nu + lmbda,  # delete in b
                    D[i - 1, j - 1]
                    + _norm(a[:, i] - b[:, j])
                    + _norm(a[:, i - 1] - b[:, j - 1])
                    + nu * (abs(i - j) + abs((i - 1) - (j - 1))),  # match
                )
    return D[p, q]


def ref_erp(x, y, g=0.0, band=FULL):
    """Chen & Ng (2004), with aeon's boundary: row 0 and column 0 hold the *total* gap cost (paper: prefix sums)."""
    p, q = x.shape[1], y.shape[1]
    gap_x = [_norm(x[:, i] - g) for i in range(p)]
    gap_y = [_norm(y[:, j] - g) for j in range(q)]
    D = np.full((p + 1, q + 1), INF)
    D[0, 0] = 0.0
    D[1:, 0] = sum(gap_x)
    D[0, 1:] = sum(gap_y)
    for i in range(1, p + 1):
        for j in range(1, q + 1):
            if _allowed(band, i - 1, j - 1):
                D[i, j] = min(
                    D[i - 1, j - 1] + _norm(x[:, i - 1] - y[:, j - 1]),
                    D[i - 1, j] + gap_x[i - 1],
                    D[i, j - 1] + gap_y[j - 1],
                )
    return D[p, q]


def ref_lcss(x, y, epsilon=1.0, band=FULL):
    """Vlachos et al. (2002): 1 − LCSS/min(p, q), points within epsilon match."""
    p, q = x.shape[1], y.shape[1]
    L = np.zeros((p + 1, q + 1))
    for i in range(1, p + 1):
        for j in range(1, q + 1):
            if _allowed(band, i - 1, j - 1):
                if _norm(x[:, i - 1] - y[:, j - 1]) <= epsilon:
                    L[i, j] = L[i - 1, j - 1] + 1
                else:
                    L[i, j] = max(L[i - 1, j], L[i, j - 1])
    return 1.0 - L[p, q] / min(p, q)


def ref_edr(x, y, epsilon=None):
    """Chen et al. (2005), edits / max(p, q), with aeon's boundary: zeros (paper: i and j), except D[0, q]."""
    if epsilon is None:
        epsilon = max(np.std(x), np.std(y)) / 4
    p, q = x.shape[1], y.shape[1]
    D = np.zeros((p + 1, q + 1))
    D[0, q] = INF
    for i in range(1, p + 1):
        for j in range(1, q + 1):
            substitution = 0.0 if _norm(x[:, i - 1] - y[:, j - 1]) < epsilon else 1.0
            D[i, j] = min(D[i - 1, j - 1] + substitution, D[i - 1, j] + 1, D[i, j - 1] + 1)
    return D[p, q] / max(p, q)


REFERENCES = {
    "squared_dtw": ref_squared_dtw,
    "wdtw": ref_wdtw,
    "ddtw": ref_ddtw,
    "msm": ref_msm,
    "twe": ref_twe,
    "erp": ref_erp,
    "lcss": ref_lcss,
    "edr": ref_edr,
}
AEON = {name: f"{'dtw' if name == 'squared_dtw' else name}_pairwise_distance" for name in REFERENCES}
#: parameters other than the defaults, to see that they reach aeon
PARAMS = {
    "squared_dtw": {},
    "wdtw": {"g": 0.2},
    "ddtw": {},
    "msm": {"c": 0.5},
    "twe": {"nu": 0.01, "lmbda": 0.5},
    "erp": {"g": 0.3},
    "lcss": {"epsilon": 0.5},
    "edr": {"epsilon": 0.4},
}


def _aeon(name, X, Y=None, **params):
    return getattr(aeon_distances, AEON[name])(X, Y, **params)


@pytest.fixture(scope="module")
def data():
    """20 univariate and 10 two-channel pairs of lengths 8–15, as lists (unequal lengths)."""
    rng = np.random.default_rng(0)
    uni = [rng.normal(size=(1, n)) for n in rng.integers(8, 16, size=40)]
    multi = [rng.normal(size=(2, n)) for n in rng.integers(8, 16, size=20)]
    return {"A": uni[:20], "B": uni[20:], "MA": multi[:10], "MB": multi[10:]}


@pytest.mark.parametrize("name", list(REFERENCES))
@pytest.mark.parametrize("with_params", [False, True])
def test_equals_aeon_and_the_definition(data, name, with_params):
    params = PARAMS[name] if with_params else {}
    reference = REFERENCES[name]
    for A, B in ((data["A"], data["B"]), (data["MA"], data["MB"])):
        D = pairwise_distances(A, B, metric=name, **params)
        # aeon 1.6 misreads unequal-length X against equal-length y, never the case here (both unequal)
        assert_allclose(D, _aeon(name, A, B, **params), rtol=0, atol=1e-10)
        definition = [reference(a, b, **params) for a, b in zip(A, B, strict=True)]
        assert_allclose(np.diag(D), definition, rtol=0, atol=1e-10)


@pytest.mark.parametrize("name", list(REFERENCES))
def test_symmetric_tiled_and_array_forms(data, name):
    A = data["A"] + data["B"]  # 40 series: 3 × 3 tiles of 16 with the smallest budget
    D = pairwise_distances(A, metric=name)
    assert_allclose(D, _aeon(name, A), rtol=0, atol=1e-10)
    assert_allclose(D, D.T, rtol=0, atol=0)
    assert_allclose(pairwise_distances(A, metric=name, working_memory=1e-6), D, rtol=0, atol=1e-12)
    cross = pairwise_distances(A, A, metric=name, working_memory=1e-6)  # each ordered pair: symmetric metric
    assert_allclose(cross - np.diag(np.diag(cross)), D, rtol=0, atol=1e-10)
    # equal lengths: an (n, T) array, an (n, 1, T) array and a list of 1-d series are one collection
    rng = np.random.default_rng(1)
    X = rng.normal(size=(6, 10))
    D2 = pairwise_distances(X, metric=name)
    assert_allclose(D2, _aeon(name, X), rtol=0, atol=1e-10)
    assert_allclose(pairwise_distances(X[:, None, :], metric=name), D2, rtol=0, atol=0)
    assert_allclose(pairwise_distances(list(X), metric=name), D2, rtol=0, atol=1e-12)
    # multivariate (n, c, T) array against a list of unequal lengths
    M = rng.normal(size=(4, 2, 9))
    assert_allclose(
        pairwise_distances(M, data["MA"], metric=name),
        np.array([[_aeon(name, [m], [b])[0, 0] for b in data["MA"]] for m in M]),
        rtol=0,
        atol=1e-10,
    )


def test_unequal_rows_against_equal_columns(data):
    """aeon 1.6's X-unequal, y-equal case reads the wrong band; krein evaluates such a tile transposed."""
    rows, cols = data["A"][:5], [np.random.default_rng(2).normal(size=(1, 10)) for _ in range(4)]
    D = pairwise_distances(rows, cols, metric="msm")
    assert_allclose(D, [[ref_msm(a, b) for b in cols] for a in rows], rtol=0, atol=1e-10)


@pytest.mark.parametrize("name", ["squared_dtw", "wdtw", "msm", "twe", "erp", "lcss", "ddtw", "edr"])
def test_window(name):
    """aeon's window: a fraction w of the shorter length; equal lengths p allow |i − j| <= int(w·p)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(5, 12))
    D = pairwise_distances(X, metric=name, window=0.1)
    assert_allclose(D, _aeon(name, X, window=0.1), rtol=0, atol=1e-10)
    assert not np.allclose(D, pairwise_distances(X, metric=name))
    if name not in ("ddtw", "edr"):  # their band follows aeon's bookkeeping of derivative / border cells
        series = X[:, None, :]
        band = int(0.1 * 12)
        expected = [[REFERENCES[name](a, b, band=band) for b in series] for a in series]
        assert_allclose(D, expected, rtol=0, atol=1e-10)


def test_squared_dtw_is_the_square_of_dtw(data):
    A = [a[0] for a in data["A"]]
    assert_allclose(
        pairwise_distances(A, metric="squared_dtw"),
        pairwise_distances(A, metric="dtw") ** 2,
        rtol=1e-12,
        atol=0,
    )


def test_defaults_are_aeons():
    from krein.dissimilarity._pairwise import METRICS

    for name in REFERENCES:
        signature = inspect.signature(getattr(aeon_distances, AEON[name])).parameters
        for parameter, default in METRICS[name].parameters.items():
            assert signature[parameter].default == default, (name, parameter)


def test_validation():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(3, 10))
    with pytest.raises(TypeError, match=r"unexpected parameter\(s\) \['nu'\]"):
        pairwise_distances(X, metric="msm", nu=1.0)
    with pytest.raises(ValueError, match=r"A\[1\] has length 2; metric 'ddtw' needs series of length >= 3"):
        pairwise_distances([np.ones(5), np.ones(2)], metric="ddtw")
    with pytest.raises(ValueError, match=r"A\[0\] has length 2; metric 'ddtw'"):
        pairwise_distances(np.ones((3, 2)), metric="ddtw")
    Y = X.copy()
    Y[2, 3] = np.nan
    with pytest.raises(ValueError, match=r"B\[2\] contains NaN or infinite values"):
        pairwise_distances(X, Y, metric="twe")
    with pytest.raises(ValueError, match=r"A\[1\] contains NaN"):
        pairwise_distances([np.ones(4), [1.0, np.inf]], metric="erp")
    with pytest.raises(ValueError, match="A has series of 1 channel.* and B of 2"):
        pairwise_distances(X, rng.normal(size=(2, 2, 10)), metric="lcss")
    with pytest.raises(ValueError, match=r"A\[1\] has 2 channel\(s\) but A\[0\] has 1"):
        pairwise_distances([np.ones(5), np.ones((2, 5))], metric="edr")
    with pytest.raises(ValueError, match="window must be None or a fraction in"):
        pairwise_distances(X, metric="msm", window=5)
    with pytest.raises(ValueError, match="window must be a finite real number"):
        pairwise_distances(X, metric="wdtw", window=True)
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        pairwise_distances(X, metric="edr", epsilon=0.0)
    with pytest.raises(ValueError, match="c must be >= 0"):
        pairwise_distances(X, metric="msm", c=-1)
    with pytest.raises(ValueError, match="independent must be True or False"):
        pairwise_distances(X, metric="msm", independent=1)
    with pytest.raises(ValueError, match=r"A must be an array \(n_series, length\)"):
        pairwise_distances(np.ones((2, 2, 2, 2)), metric="msm")
    with pytest.raises(ValueError, match=r"A\[0\] must have shape"):
        pairwise_distances([np.ones((2, 2, 2))], metric="msm")


def test_missing_aeon_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "aeon.distances", None)  # `import aeon.distances` now fails
    with pytest.raises(ImportError, match=r"^metric 'msm' needs aeon: pip install 'krein\[timeseries\]'$"):
        pairwise_distances(np.ones((3, 5)), metric="msm")


def test_krein_imports_without_aeon():
    import subprocess

    code = "import sys, krein.dissimilarity, krein.kernels; assert 'aeon' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_distance_kernel(data):
    A = data["A"]
    X = pack_objects([a[0] for a in A])
    K = DistanceKernel(metric="msm", metric_params={"c": 0.5}, gamma=1.0, relative=False)(X)
    D = _aeon("msm", A, c=0.5)
    assert_allclose(K, np.exp(-(D**2)), rtol=0, atol=1e-12)

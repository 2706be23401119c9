"""Tests of krein.dissimilarity.pairwise_distances (one registry over every distance) and of the
hostile-input cases of issue #31 for the distances: ill-conditioned SPD matrices, cancellation,
constant series, the DTW window, the memory budget, messages, values at the edges of floating point."""

from __future__ import annotations

import math
import tracemalloc
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy.spatial.distance import cdist
from scipy.stats import ortho_group

from krein.dissimilarity import (
    covariance_descriptors,
    dtw_distances,
    edit_distances,
    hausdorff_distances,
    pairwise_distances,
    simpson_similarity,
    spd_distances,
    tangent_distances,
)


def _objects(rng):
    """One collection (A, B, params) per shipped metric, with the function it names."""
    M = rng.normal(size=(9, 3, 3))
    S = M @ M.transpose(0, 2, 1) + 0.5 * np.eye(3)
    series = [rng.normal(size=k) for k in rng.integers(3, 15, size=9)]
    sets = [rng.normal(size=(k, 2)) for k in rng.integers(1, 6, size=9)]
    strings = ["".join(rng.choice(list("ACGT"), size=k)) for k in rng.integers(0, 9, size=9)]
    images = rng.normal(size=(9, 6, 6))
    return [
        ("dtw", series, {"window": 4}, dtw_distances),
        ("edit", strings, {"normalized": True}, edit_distances),
        ("hausdorff", sets, {"variant": "modified"}, hausdorff_distances),
        ("tangent", images, {"sigma": 0.5}, tangent_distances),
        (
            "affine_invariant",
            S,
            {},
            lambda A, B=None, **kw: spd_distances(A, B, metric="affine_invariant", **kw),
        ),
        ("log_euclidean", S, {}, lambda A, B=None, **kw: spd_distances(A, B, metric="log_euclidean", **kw)),
    ]


@pytest.mark.parametrize("case", range(6))
def test_registry_equals_the_named_functions(case):
    metric, X, params, function = _objects(np.random.default_rng(case))[case]
    A, B = X[:6], X[6:]
    assert np.array_equal(pairwise_distances(A, B, metric=metric, **params), function(A, B, **params))
    D = pairwise_distances(A, metric=metric, **params)
    assert np.array_equal(D, function(A, **params))
    assert np.array_equal(D, D.T) and np.all(np.diag(D) == 0)
    tiled = pairwise_distances(A, metric=metric, n_jobs=2, working_memory=1e-5, **params)
    assert_allclose(tiled, D, rtol=1e-12, atol=1e-14)


def test_euclidean_matches_scipy_and_has_no_cancellation():
    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(30, 7)), rng.normal(size=(11, 7))
    assert_allclose(pairwise_distances(A, B), cdist(A, B), rtol=1e-14)
    assert np.array_equal(pairwise_distances(list(A)), pairwise_distances(A))
    # two points 1e-9 apart at norm 1e8: the expansion ‖a‖² + ‖b‖² − 2a·b returns 0 here
    a = np.full(4, 1e8)
    D = pairwise_distances(np.stack([a, a + np.array([1e-8, 0, 0, 0])]))
    assert D[0, 1] == pytest.approx(np.float64(a[0] + 1e-8) - a[0], rel=1e-12)


def test_callable_metric_each_unordered_pair_once_and_params_passed():
    rng = np.random.default_rng(1)
    X = [rng.normal(size=k) for k in (3, 5, 4, 6)]
    calls = []

    def gap(a, b, power=1.0):
        calls.append((id(a), id(b)))
        return abs(a.mean() - b.mean()) ** power

    D = pairwise_distances(X, metric=gap, power=2.0)
    ref = np.array([[abs(a.mean() - b.mean()) ** 2 for b in X] for a in X])
    assert_allclose(D, ref, rtol=1e-15)
    assert np.array_equal(D, D.T)
    assert len(calls) == 4 * 5 // 2  # i <= j only
    calls.clear()
    assert_allclose(
        pairwise_distances(X, X[:2], metric=gap, power=2.0, n_jobs=2, working_memory=1e-5), ref[:, :2]
    )
    assert len(calls) == 8


def test_registry_errors_name_the_argument():
    X = np.ones((3, 4))
    with pytest.raises(ValueError, match="metric must be one of"):
        pairwise_distances(X, metric="cosine")
    with pytest.raises(
        TypeError, match=r"metric 'dtw' got unexpected parameter\(s\) \['windw'\]; valid: window"
    ):
        pairwise_distances(X, metric="dtw", windw=3)
    with pytest.raises(ValueError, match="working_memory"):
        pairwise_distances(X, working_memory=0)
    with pytest.raises(ValueError, match="n_jobs"):
        pairwise_distances(X, n_jobs=0)
    with pytest.raises(ValueError, match=r"B has 3 features but|A has 4 features but B has 3"):
        pairwise_distances(X, np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"returned nan for A\[0\], B\[1\]"):
        pairwise_distances(X, metric=lambda a, b: float("nan") if b is not a else 0.0)
    with pytest.raises(ValueError, match=r"returned -1.0 for A\[0\], B\[0\]"):
        pairwise_distances(X, metric=lambda a, b: -1.0)
    with pytest.raises(TypeError, match=r"returned str"):
        pairwise_distances(X, metric=lambda a, b: "far")


# ---------------------------------------------------------------- issue #31: SPD distances


def _exact_affine_invariant(S1, S2):
    """(Σ log² λ)^{1/2} over the roots λ of det(S2 − λ S1), found exactly: the cubic's coefficients
    in rationals, each root isolated by exact sign changes on a logarithmic grid and bisected."""
    s1 = [[Fraction(float(x)) for x in row] for row in S1]
    s2 = [[Fraction(float(x)) for x in row] for row in S2]

    def entry(i, j):  # the polynomial s2_ij − λ s1_ij as coefficients [c0, c1]
        return [s2[i][j], -s1[i][j]]

    def mul(p, q):
        out = [Fraction(0)] * (len(p) + len(q) - 1)
        for i, x in enumerate(p):
            for j, y in enumerate(q):
                out[i + j] += x * y
        return out

    coeffs = [Fraction(0)] * 4
    for perm, sign in (
        ((0, 1, 2), 1),
        ((1, 2, 0), 1),
        ((2, 0, 1), 1),
        ((0, 2, 1), -1),
        ((2, 1, 0), -1),
        ((1, 0, 2), -1),
    ):
        term = mul(mul(entry(0, perm[0]), entry(1, perm[1])), entry(2, perm[2]))
        for k, c in enumerate(term):
            coeffs[k] += sign * c

    def sign_at(lam):
        x = Fraction(lam)
        return (((coeffs[3] * x + coeffs[2]) * x + coeffs[1]) * x + coeffs[0]) > 0

    grid = np.logspace(-30, 30, 6001)
    signs = [sign_at(g) for g in grid]
    roots = []
    for k in range(len(grid) - 1):
        if signs[k] != signs[k + 1]:
            lo, hi = grid[k], grid[k + 1]
            for _ in range(80):
                mid = math.sqrt(lo * hi)
                if sign_at(mid) == signs[k]:
                    lo = mid
                else:
                    hi = mid
            roots.append(math.sqrt(lo * hi))
    assert len(roots) == 3
    return math.sqrt(sum(math.log(r) ** 2 for r in roots))


@pytest.mark.parametrize("seed", range(4))
def test_affine_invariant_distance_of_ill_conditioned_matrices(seed):
    """Condition numbers 1e9 and 1e12 (accepted by the SPD check): the eigenvalues of L⁻¹ S₂ L⁻ᵀ came
    out negative and the distance 709 where the exact value is about 33.  A backward-stable method is
    accurate to about ε·κ in the smallest eigenvalue; the singular values of L₁⁻¹L₂ stay within 1e-5."""

    def spd(cond, s):
        Q = ortho_group.rvs(3, random_state=s)
        return (Q * np.logspace(0, -np.log10(cond), 3)) @ Q.T

    S = np.stack([spd(1e9, seed), spd(1e12, seed + 100)])
    S = 0.5 * (S + S.transpose(0, 2, 1))
    exact = _exact_affine_invariant(S[0], S[1])
    D = spd_distances(S)
    assert D[0, 1] == pytest.approx(exact, rel=1e-5)
    assert spd_distances(S[1:], S[:1])[0, 0] == pytest.approx(exact, rel=1e-5)


def test_log_euclidean_distance_without_cancellation():
    """‖log a − log b‖ for 1e8·I and 1e8(1 + 1e-7)·I is √3·log(1 + 1e-7); the expansion
    ‖a‖² + ‖b‖² − 2a·b returned 0."""
    eye = np.eye(3)
    D = spd_distances(np.stack([1e8 * eye, 1e8 * (1 + 1e-7) * eye]), metric="log_euclidean")
    assert D[0, 1] == pytest.approx(math.sqrt(3) * math.log1p(1e-7), rel=1e-6)


def test_constant_series_has_no_covariance_descriptor():
    rng = np.random.default_rng(2)
    with pytest.raises(ValueError, match=r"X\[1\] is constant over time"):
        covariance_descriptors([rng.normal(size=(2, 10)), np.full((2, 10), 3.0)])


def test_covariance_descriptors_of_images_of_different_sizes():
    rng = np.random.default_rng(3)
    images = [rng.uniform(size=(6, 8)), rng.uniform(size=(5, 5))]
    C = covariance_descriptors(images, kind="image")
    assert_allclose(C[1], covariance_descriptors(images[1][None], kind="image")[0])
    with pytest.raises(ValueError, match=r"X\[1\] must be an image of at least 2 x 2 pixels"):
        covariance_descriptors([np.ones((3, 3)), np.ones((1, 4))], kind="image")
    with pytest.raises(ValueError, match=r"X\[0\] is not a numeric array"):
        covariance_descriptors(["ab"])


# ---------------------------------------------------------------- issue #31: parameters and budgets


def test_dtw_window_zero_is_rejected():
    """``window`` allows the cells with |i − j| < window: window=0 allows none; dtaidistance read it as
    'no band' and returned the unconstrained DTW."""
    with pytest.raises(ValueError, match=r"window must be None \(no band\) or a positive integer"):
        dtw_distances(np.array([[0.0, 1.0, 2.0], [1.0, 2.0, 3.0]]), window=0)
    assert_allclose(dtw_distances(np.array([[0.0, 1.0, 2.0], [1.0, 2.0, 3.0]]), window=1)[0, 1], math.sqrt(3))


def _peak_beyond_output(function):
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        D = function()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return (peak - D.nbytes) / 2**20


@pytest.mark.parametrize(
    "metric", ["affine_invariant", "log_euclidean", "hausdorff", "tangent", "euclidean", "dtw"]
)
def test_working_memory_is_kept(metric):
    """The tiles stay within a small multiple of ``working_memory`` (the affine-invariant distance
    batched 8 MiB of pairs whatever the budget: 33× a budget of 0.25 MiB)."""
    rng = np.random.default_rng(4)
    M = rng.normal(size=(400, 3, 3))
    X = {
        "affine_invariant": M @ M.transpose(0, 2, 1) + np.eye(3),
        "log_euclidean": M @ M.transpose(0, 2, 1) + np.eye(3),
        "hausdorff": list(rng.normal(size=(400, 3, 2))),
        "tangent": rng.normal(size=(400, 4, 4)),
        "euclidean": rng.normal(size=(400, 10)),
        "dtw": list(rng.normal(size=(400, 10))),
    }[metric]
    budget = 0.25
    pairwise_distances(X[:2], metric=metric)  # imports and first-call set-up are not tile memory
    used = _peak_beyond_output(lambda: pairwise_distances(X, metric=metric, working_memory=budget))
    assert used <= 3.0 * budget


# ---------------------------------------------------------------- issue #31: messages


@pytest.mark.parametrize(
    "function",
    [
        dtw_distances,
        edit_distances,
        hausdorff_distances,
        spd_distances,
        tangent_distances,
        simpson_similarity,
    ],
)
def test_sparse_input_is_named(function):
    with pytest.raises(TypeError, match=r"A is a scipy sparse csr_matrix.*A.toarray\(\)"):
        function(sp.random(4, 4, density=0.5, format="csr", random_state=0))


def test_tangent_distance_needs_two_by_two_images():
    with pytest.raises(ValueError, match=r"A must have shape \(n, h, w\) with images of at least 2 x 2"):
        tangent_distances(np.ones((3, 1, 1)))
    with pytest.raises(ValueError, match=r"B must hold images of A's size 3 x 3, got 4 x 4"):
        tangent_distances(np.ones((2, 3, 3)), np.ones((2, 4, 4)))


# ---------------------------------------------------------------- issue #31: edges of floating point

_HOMOGENEOUS = {
    "dtw": lambda rng: [rng.normal(size=k) for k in (5, 8, 6, 7)],
    "hausdorff": lambda rng: list(rng.normal(size=(4, 5, 2))),
    "tangent": lambda rng: rng.normal(size=(4, 5, 5)),
    "euclidean": lambda rng: rng.normal(size=(4, 6)),
}


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from(sorted(_HOMOGENEOUS)),
    st.integers(min_value=-295, max_value=295),
    st.integers(min_value=0, max_value=2**31 - 1),
)
def test_homogeneous_distances_scale_at_every_magnitude(metric, exponent, seed):
    """d(s·a, s·b) = s·d(a, b) from s = 1e-295 to 1e295: near 1e155 the squares overflowed (DTW blamed
    the window, Hausdorff returned inf, the tangent SVD failed), near 1e-170 they underflowed to 0."""
    X = _HOMOGENEOUS[metric](np.random.default_rng(seed))
    scale = 10.0**exponent
    scaled = [scale * x for x in X] if isinstance(X, list) else scale * X
    assert_allclose(
        pairwise_distances(scaled, metric=metric) / scale, pairwise_distances(X, metric=metric), rtol=1e-10
    )


def test_tangent_distance_of_near_duplicate_images():
    """Images 1e-6 apart in one pixel, of norm 60: ‖x‖² + ‖y‖² − 2x·y − ‖Qᵀ(x − y)‖² returned 1.6e-6
    (symmetrized) where the distance is 9.9e-7; the difference itself gives every digit."""
    from krein.dissimilarity._images import _tangent_basis

    rng = np.random.default_rng(5)
    x = 10.0 * rng.uniform(size=(8, 8))
    y = x.copy()
    y[3, 4] += 1e-6
    d = (x - y).ravel()
    Qx, Qy = _tangent_basis(np.stack([x, y]), 1.0)
    one_sided = np.linalg.norm(d - Qy @ (Qy.T @ d))
    mean = 0.5 * (one_sided + np.linalg.norm(d - Qx @ (Qx.T @ d)))
    assert tangent_distances(np.stack([x, y]))[0, 1] == pytest.approx(mean, rel=1e-8)
    assert tangent_distances(x[None], y[None], symmetrize=None)[0, 0] == pytest.approx(one_sided, rel=1e-8)


@pytest.mark.parametrize("metric", ["affine_invariant", "log_euclidean"])
def test_numerically_singular_spd_matrix_is_named(metric):
    """Condition number 1e17: the eigenvalue check passed and numpy's Cholesky raised 'Matrix is not
    positive definite' (or the logarithm of a rounding error entered the distance)."""
    Q = ortho_group.rvs(4, random_state=0)
    S = (Q * np.array([1.0, 1e-3, 1e-6, 1e-17])) @ Q.T
    S = 0.5 * (S + S.T)
    with pytest.raises(ValueError, match=r"B\[0\] is numerically singular \(condition number"):
        spd_distances(np.eye(4)[None], S[None], metric=metric)

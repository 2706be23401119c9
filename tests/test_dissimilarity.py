"""Tests of krein.dissimilarity: agreement with naive implementations, identities, errors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy.spatial.distance import cdist
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.svm import SVC

from krein.dissimilarity import (
    DoubleCentering,
    covariance_descriptors,
    dtw_distances,
    edit_distances,
    hausdorff_distances,
    simpson_similarity,
    spd_distances,
    tangent_distances,
)

# ---------------------------------------------------------------- naive references


def naive_levenshtein(s: str, t: str) -> int:
    prev = list(range(len(t) + 1))
    for i, cs in enumerate(s, 1):
        cur = [i]
        for j, ct in enumerate(t, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (cs != ct)))
        prev = cur
    return prev[-1]


def naive_dtw(a, b) -> float:
    inf = float("inf")
    p, q = len(a), len(b)
    C = [[inf] * (q + 1) for _ in range(p + 1)]
    C[0][0] = 0.0
    for i in range(1, p + 1):
        for j in range(1, q + 1):
            cost = (a[i - 1] - b[j - 1]) ** 2
            C[i][j] = cost + min(C[i - 1][j], C[i][j - 1], C[i - 1][j - 1])
    return C[p][q] ** 0.5


def naive_hausdorff(P, Q) -> float:
    def h(X, Y):
        return max(min(sum((x - y) ** 2 for x, y in zip(p, q, strict=True)) ** 0.5 for q in Y) for p in X)

    return max(h(P, Q), h(Q, P))


def random_strings(rng, n, alphabet="ACGT", max_len=12):
    return ["".join(rng.choice(list(alphabet), size=rng.integers(0, max_len + 1))) for _ in range(n)]


def random_spd(rng, n, d):
    M = rng.normal(size=(n, d, d))
    return M @ M.transpose(0, 2, 1) + 0.5 * np.eye(d)


# ---------------------------------------------------------------- edit distance


def test_edit_distances_match_naive():
    rng = np.random.default_rng(0)
    A = random_strings(rng, 15)
    B = random_strings(rng, 9, alphabet="ACGTN")
    D = edit_distances(A, B)
    ref = np.array([[naive_levenshtein(a, b) for b in B] for a in A], dtype=float)
    assert_allclose(D, ref)
    S = edit_distances(A)
    ref_s = np.array([[naive_levenshtein(a, b) for b in A] for a in A], dtype=float)
    assert_allclose(S, ref_s)
    assert np.array_equal(S, S.T) and np.all(np.diag(S) == 0)


def test_edit_distances_tiles_and_threads_agree():
    rng = np.random.default_rng(1)
    A = random_strings(rng, 70, max_len=20)
    full = edit_distances(A)
    tiled = edit_distances(A, working_memory=1e-4, n_jobs=2)
    assert_allclose(tiled, full)
    norm = edit_distances(A[:5], A[5:9], normalized=True)
    ref = np.array([[naive_levenshtein(a, b) / max(len(a), len(b), 1) for b in A[5:9]] for a in A[:5]])
    assert_allclose(norm, ref)


def test_edit_distances_errors():
    with pytest.raises(TypeError, match="A must be a sequence of strings"):
        edit_distances("ACGT")
    with pytest.raises(TypeError, match=r"B\[1\]"):
        edit_distances(["a"], ["b", 3])


# ---------------------------------------------------------------- DTW


def test_dtw_matches_naive_equal_and_ragged():
    rng = np.random.default_rng(2)
    A = rng.normal(size=(7, 12))
    B = [rng.normal(size=k) for k in (5, 9, 14, 12)]
    D = dtw_distances(A, B)
    ref = np.array([[naive_dtw(a, b) for b in B] for a in A])
    assert_allclose(D, ref, rtol=1e-10)
    ragged = [rng.normal(size=k) for k in (3, 8, 11, 6, 10)]
    S = dtw_distances(ragged)
    ref_s = np.array([[naive_dtw(a, b) for b in ragged] for a in ragged])
    assert_allclose(S, ref_s, rtol=1e-10, atol=1e-12)
    assert np.array_equal(S, S.T)


def test_dtw_window_one_is_euclidean_and_tiles_agree():
    rng = np.random.default_rng(3)
    A = rng.normal(size=(40, 16))
    assert_allclose(dtw_distances(A, A[:5], window=1), cdist(A, A[:5]), rtol=1e-12)
    assert_allclose(dtw_distances(A, working_memory=1e-4, n_jobs=2), dtw_distances(A))


def test_dtw_errors():
    with pytest.raises(ValueError, match=r"A\[1\] contains NaN"):
        dtw_distances([np.ones(3), np.array([1.0, np.nan])])
    with pytest.raises(ValueError, match=r"B must be a 2-d array"):
        dtw_distances(np.ones((2, 3)), np.ones((2, 3, 1)))
    with pytest.raises(ValueError, match="window"):
        dtw_distances(np.ones((2, 3)), window=-1)


# ---------------------------------------------------------------- Hausdorff


@pytest.mark.parametrize("variant", ["max", "modified"])
def test_hausdorff_matches_naive(variant):
    rng = np.random.default_rng(4)
    A = [rng.normal(size=(k, 3)) for k in (1, 4, 6, 2, 5)]
    B = [rng.normal(size=(k, 3)) for k in (3, 7, 2)]
    D = hausdorff_distances(A, B, variant=variant)
    if variant == "max":
        ref = np.array([[naive_hausdorff(p.tolist(), q.tolist()) for q in B] for p in A])
    else:

        def hbar(P, Q):
            return cdist(P, Q).min(axis=1).mean()

        ref = np.array([[max(hbar(p, q), hbar(q, p)) for q in B] for p in A])
    assert_allclose(D, ref, rtol=1e-12)
    S = hausdorff_distances(A, variant=variant, working_memory=1e-5)
    assert np.array_equal(S, S.T) and np.all(np.diag(S) == 0)
    assert_allclose(S[:, :3], hausdorff_distances(A, A[:3], variant=variant), rtol=1e-12)


def test_hausdorff_errors():
    with pytest.raises(ValueError, match="different dimensions"):
        hausdorff_distances([np.ones((2, 2)), np.ones((2, 3))])
    with pytest.raises(ValueError, match=r"B\[0\] must have shape"):
        hausdorff_distances([np.ones((2, 2))], [np.ones((0, 2))])


# ---------------------------------------------------------------- SPD


def test_spd_distances_match_definitions():
    from scipy.linalg import eigh, logm

    rng = np.random.default_rng(5)
    A, B = random_spd(rng, 5, 4), random_spd(rng, 3, 4)
    D = spd_distances(A, B)
    ref = np.array([[np.sqrt(np.sum(np.log(eigh(b, a, eigvals_only=True)) ** 2)) for b in B] for a in A])
    assert_allclose(D, ref, rtol=1e-10)
    L = spd_distances(A, B, metric="log_euclidean")
    ref_l = np.array([[np.linalg.norm(logm(a).real - logm(b).real) for b in B] for a in A])
    assert_allclose(L, ref_l, rtol=1e-8)
    S = spd_distances(A, working_memory=1e-5, n_jobs=2)
    assert np.array_equal(S, S.T) and np.all(np.diag(S) == 0)
    assert_allclose(S[:, :2], spd_distances(A, A[:2]), rtol=1e-10, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=0, max_value=2**31 - 1), st.integers(min_value=2, max_value=6))
def test_affine_invariant_distance_is_congruence_invariant(seed, d):
    rng = np.random.default_rng(seed)
    S = random_spd(rng, 4, d)
    G = rng.normal(size=(d, d)) + 2.0 * np.eye(d)  # almost surely invertible, moderately conditioned
    if np.linalg.cond(G) > 1e3:
        G = G + 5.0 * np.eye(d)
    T = G @ S @ G.T
    assert_allclose(spd_distances(T), spd_distances(S), rtol=1e-7, atol=1e-8)
    # the log-Euclidean distance is only invariant under orthogonal congruence
    Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    R = Q @ S @ Q.T
    assert_allclose(
        spd_distances(R, metric="log_euclidean"),
        spd_distances(S, metric="log_euclidean"),
        rtol=1e-7,
        atol=1e-8,
    )


def test_spd_errors():
    with pytest.raises(ValueError, match=r"A\[0\] is not positive definite"):
        spd_distances(np.array([[[1.0, 2.0], [2.0, 1.0]]]))
    with pytest.raises(ValueError, match=r"B\[0\] is not symmetric"):
        spd_distances(np.eye(2)[None], np.array([[[1.0, 0.5], [0.0, 1.0]]]))
    with pytest.raises(ValueError, match="metric"):
        spd_distances(np.eye(2)[None], metric="stein")


def _iota(K):
    w = np.linalg.eigvalsh(K)
    return np.abs(w[w < 0]).sum() / np.abs(w).sum(), w


def test_geodesic_gaussian_kernels_on_japanese_vowels():
    """Log-E Gaussian is PSD; Aff-I Gaussian is indefinite (IKLR, Table I)."""
    from krein.datasets import load_dataset

    data = load_dataset("japanesevowels").data
    C = covariance_descriptors(data, kind="series")
    D_ai = spd_distances(C, metric="affine_invariant", n_jobs=2)
    D_le = spd_distances(C, metric="log_euclidean")
    sigma2 = np.median(D_ai[np.triu_indices_from(D_ai, 1)] ** 2)
    iota_ai, w_ai = _iota(np.exp(-(D_ai**2) / sigma2))
    iota_le, w_le = _iota(np.exp(-(D_le**2) / sigma2))
    print(
        f"JapaneseVowels n=640: iota(Aff-I) = {iota_ai:.4f}, min eig {w_ai[0]:.3f}; "
        f"iota(Log-E) = {iota_le:.2e}, min eig {w_le[0]:.2e}"
    )
    assert w_le[0] > -1e-9 * w_le[-1]
    assert iota_ai > 1e-3 and w_ai[0] < -0.1


def test_covariance_descriptors():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(3, 4, 50))
    C = covariance_descriptors(X, reg=0.0)
    assert_allclose(C[1], np.cov(X[1]))
    ragged = [rng.normal(size=(4, k)) for k in (10, 20)]
    C2 = covariance_descriptors(ragged, reg=1e-3)
    ref = np.cov(ragged[0])
    assert_allclose(C2[0], ref + 1e-3 * np.trace(ref) / 4 * np.eye(4))
    imgs = rng.uniform(size=(2, 8, 8))
    F = covariance_descriptors(imgs, kind="image")
    assert F.shape == (2, 9, 9)
    assert np.linalg.eigvalsh(F).min() > 0
    # the x-coordinate feature of an 8x8 grid: variance of 0..7 repeated over 8 rows
    F0 = covariance_descriptors(imgs, kind="image", reg=0.0)
    assert_allclose(F0[0, 0, 0], np.var(np.tile(np.arange(8.0), 8), ddof=1))
    assert_allclose(F0[0, 2, 2], np.var(imgs[0], ddof=1))
    assert_allclose(F[0] - F0[0], 1e-6 * np.trace(F0[0]) / 9 * np.eye(9), atol=1e-15)
    with pytest.raises(ValueError, match=r"X\[1\] has 3 channels"):
        covariance_descriptors([np.ones((4, 5)), np.ones((3, 5))])
    with pytest.raises(ValueError, match="kind"):
        covariance_descriptors(X, kind="graph")


# ---------------------------------------------------------------- images


def test_simpson_similarity_matches_naive():
    rng = np.random.default_rng(7)
    A = rng.uniform(size=(6, 5, 5)) > 0.6
    B = rng.uniform(size=(4, 5, 5)) > 0.4
    A[:, 0, 0] = True
    S = simpson_similarity(A, B)
    ref = np.array([[np.sum(a & b) / min(a.sum(), b.sum()) for b in B] for a in A])
    assert_allclose(S, ref)
    T = simpson_similarity(A)
    assert np.array_equal(T, T.T) and np.all(np.diag(T) == 1.0)
    with pytest.raises(ValueError, match="binary"):
        simpson_similarity(rng.uniform(size=(2, 3, 3)))
    with pytest.raises(ValueError, match=r"B\[0\] has no foreground"):
        simpson_similarity(A, np.zeros((1, 5, 5), dtype=bool))
    with pytest.raises(ValueError, match="ragged"):
        simpson_similarity([np.ones((2, 2)), np.ones((3, 3))])


def test_tangent_distance_matches_least_squares():
    from krein.dissimilarity._images import _tangent_basis

    rng = np.random.default_rng(8)
    imgs = rng.uniform(size=(5, 8, 8))
    one = tangent_distances(imgs[:3], imgs[3:], symmetrize=None)
    Q = _tangent_basis(imgs[3:], 1.0)
    for i, j in itertools.product(range(3), range(2)):
        T = Q[j]
        r = imgs[i].ravel() - imgs[3 + j].ravel()
        coef, *_ = np.linalg.lstsq(T, r, rcond=None)
        assert_allclose(one[i, j], np.linalg.norm(r - T @ coef), rtol=1e-8)
        assert one[i, j] <= np.linalg.norm(r) + 1e-12
    mean = tangent_distances(imgs)
    rev = tangent_distances(imgs, imgs, symmetrize=None)
    assert_allclose(mean, 0.5 * (rev + rev.T), atol=1e-6)
    assert np.array_equal(mean, mean.T)


def test_tangent_distance_absorbs_small_shift():
    from scipy.ndimage import shift

    yy, xx = np.mgrid[0:16, 0:16]
    blob = np.exp(-((xx - 7.5) ** 2 + (yy - 7.5) ** 2) / 8.0)
    moved = shift(blob, (0.0, 0.4), order=1)
    td = tangent_distances(blob[None], moved[None])[0, 0]
    eu = np.linalg.norm(blob - moved)
    assert td < 0.25 * eu


# ---------------------------------------------------------------- double centering


def test_double_centering_of_euclidean_distances_is_centered_linear_kernel():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(40, 5))
    Xt = rng.normal(size=(7, 5))
    dc = DoubleCentering()
    K = dc.fit_transform(cdist(X, X))
    mu = X.mean(axis=0)
    assert_allclose(K, (X - mu) @ (X - mu).T, atol=1e-10)
    assert_allclose(dc.transform(cdist(X, X)), K, atol=1e-10)
    assert_allclose(dc.transform(cdist(Xt, X)), (Xt - mu) @ (X - mu).T, atol=1e-10)
    H = np.eye(40) - 1.0 / 40
    D = rng.uniform(size=(40, 40))
    D = D + D.T
    np.fill_diagonal(D, 0.0)
    K2 = DoubleCentering().fit(D).transform(D)
    assert_allclose(K2, -0.5 * H @ (D * D) @ H, atol=1e-12)


def test_double_centering_validation():
    dc = DoubleCentering()
    with pytest.raises(ValueError, match="D must be a square"):
        dc.fit(np.ones((3, 4)))
    D = np.array([[0.0, 1.0], [2.0, 0.0]])
    with pytest.raises(ValueError, match="D must be symmetric"):
        dc.fit(D)
    with pytest.raises(ValueError, match="non-negative"):
        dc.fit(np.array([[0.0, -1.0], [-1.0, 0.0]]))
    with pytest.raises(ValueError, match="NaN|infinity"):
        dc.fit(np.array([[0.0, np.nan], [np.nan, 0.0]]))
    dc.fit(np.array([[0.0, 1.0], [1.0, 0.0]]))
    with pytest.raises(ValueError, match="expecting 2 features.*one column per training sample"):
        dc.transform(np.ones((3, 3)))
    assert clone(dc).get_params() == {"scale": "none", "symmetry_tol": 1e-8}
    assert DoubleCentering().__sklearn_tags__().input_tags.pairwise


@pytest.mark.parametrize("factor", [1e150, 1e300])
def test_double_centering_of_huge_dissimilarities(factor):
    """−½H(D∘D)H of dissimilarities near 1e300 is beyond double precision: a clear error naming D and
    scale='median' (it returned NaN and infinity), whose kernel is that of D itself; at 1e150 the
    squares are in range and the kernel is factor² times that of D."""
    X = np.random.default_rng(3).normal(size=(30, 2))
    D = cdist(X, X)
    K = DoubleCentering().fit_transform(D)
    median = DoubleCentering(scale="median").fit_transform(D)
    assert_allclose(DoubleCentering(scale="median").fit_transform(factor * D), median, rtol=1e-12, atol=1e-14)
    if factor == 1e150:
        assert_allclose(DoubleCentering().fit_transform(factor * D) / factor**2, K, rtol=1e-12, atol=1e-14)
        return
    for call in (DoubleCentering().fit, DoubleCentering().fit_transform):
        with pytest.raises(
            ValueError, match="D holds dissimilarities up to .* beyond double precision.*median"
        ):
            call(factor * D)
    with pytest.raises(ValueError, match="D holds dissimilarities up to"):  # test rows too
        DoubleCentering().fit(D).transform(factor * D[:5])


def test_double_centering_in_pipeline_under_cross_val_score():
    rng = np.random.default_rng(10)
    X = np.r_[rng.normal(0, 1, size=(30, 3)), rng.normal(1.5, 1, size=(30, 3))]
    y = np.r_[np.zeros(30), np.ones(30)]
    D = cdist(X, X, metric="cityblock")
    pipe = make_pipeline(DoubleCentering(), SVC(kernel="precomputed", C=1.0))
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    scores = cross_val_score(pipe, D, y, cv=cv)
    manual = []
    for tr, te in cv.split(D, y):
        dc = DoubleCentering().fit(D[np.ix_(tr, tr)])
        svc = SVC(kernel="precomputed", C=1.0).fit(dc.transform(D[np.ix_(tr, tr)]), y[tr])
        manual.append(svc.score(dc.transform(D[np.ix_(te, tr)]), y[te]))
    assert_allclose(scores, manual)
    assert scores.mean() > 0.7


def test_dtw_is_finite_where_pruning_failed():
    """Regression: dtaidistance's pruning returned inf for ItalyPowerDemand rows 14 and 38."""
    from krein.datasets import load_dataset
    from krein.dissimilarity import dtw_distances

    X = np.asarray(load_dataset("italypowerdemand").data, dtype=float)[[14, 38]]
    D = dtw_distances(X)
    assert D[0, 1] == pytest.approx(naive_dtw(X[0], X[1]), rel=1e-12)
    assert D[0, 1] == pytest.approx(0.5457948400121048, rel=1e-12)


def test_dtw_with_pruning_equals_the_exact_recursion_on_a_whole_data_set():
    """dtw_distances prunes with the Euclidean bound and recomputes the pairs that dtaidistance 2.5
    abandons (inf where DTW equals the bound up to rounding: 110 of the pairs below)."""
    from dtaidistance import dtw

    from krein.datasets import load_dataset

    X = np.asarray(load_dataset("italypowerdemand").data, dtype=float)[:600]
    exact = dtw.distance_matrix_fast(list(X), compact=False, parallel=False)
    exact = np.minimum(exact, exact.T)
    np.fill_diagonal(exact, 0.0)
    assert np.array_equal(dtw_distances(X), exact)
    assert np.array_equal(dtw_distances(X, n_jobs=2, working_memory=0.5), exact)
    assert np.array_equal(dtw_distances(X[:250], X[250:], n_jobs=2), exact[:250, 250:])


@pytest.mark.parametrize("variant", ["max", "modified"])
def test_hausdorff_keeps_the_memory_budget(variant):
    """Issue 42: 21 point sets of 300 points with ``working_memory=10`` (MiB) allocated 177 MiB: the tile
    edge never went below 16 sets, and each tile held all its point-to-point distances at once. Now a
    tile is as few as one pair of sets and its distances are computed in row blocks of the budget."""
    import tracemalloc

    from scipy.spatial.distance import cdist

    rng = np.random.default_rng(0)
    sets = [rng.normal(size=(300 if i % 5 else 1200, 2)) for i in range(21)]
    tracemalloc.start()
    try:
        D = hausdorff_distances(sets, variant=variant, working_memory=10)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * 10 * 2**20, f"{peak / 2**20:.0f} MiB for a budget of 10 MiB"
    reduce = np.max if variant == "max" else np.mean
    for i, j in [(0, 1), (0, 5), (3, 20), (7, 12), (5, 10)]:
        pair = cdist(sets[i], sets[j])
        expected = max(reduce(pair.min(axis=1)), reduce(pair.min(axis=0)))
        assert D[i, j] == D[j, i]
        assert_allclose(D[i, j], expected, rtol=0 if variant == "max" else 1e-14)
    assert np.all(np.diag(D) == 0)

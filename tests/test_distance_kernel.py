"""Tests of krein.kernels.DistanceKernel: objects packed into rows, the Gaussian of a structured
distance with its scale fixed by the training block, its double centring through the landmarks
(landmark MDS), low-rank fits that compute only the distances to the landmarks, and agreement with the
precomputed fit."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.exceptions import NotFittedError

import krein.kernels._distance  # where DistanceKernel looks its distances up: counted here
from krein.dissimilarity import DoubleCentering, pairwise_distances
from krein.kernels import DistanceKernel, pack_objects, unpack_objects
from krein.least_squares import KreinRidge, KreinRidgeClassifier
from krein.nystroem import IndefiniteNystroem


def _series(rng, n):
    return [np.cumsum(rng.normal(size=k)) for k in rng.integers(15, 30, size=n)]


def _strings(rng, n):
    return ["".join(rng.choice(list("ACGT"), size=k)) for k in rng.integers(5, 25, size=n)]


def _spd(rng, n, size=3):
    M = rng.normal(size=(n, size, size))
    return M @ M.transpose(0, 2, 1) + 0.1 * np.eye(size)


def _white_noise(rng, n):
    return [rng.normal(size=k) for k in rng.integers(40, 80, size=n)]


def _long_strings(rng, n):
    return ["".join(rng.choice(list("ACGT"), size=k)) for k in rng.integers(30, 40, size=n)]


def _spd8(rng, n):
    return _spd(rng, n, size=8)


def test_pack_and_unpack_are_inverse():
    rng = np.random.default_rng(0)
    for objects in (_series(rng, 5), _strings(rng, 5) + ["", "ü€𝄞"], list(_spd(rng, 4))):
        X = pack_objects(objects, width=200)
        assert X.shape == (len(objects), 200)
        back = unpack_objects(X)
        for a, b in zip(objects, back, strict=True):
            if isinstance(a, str):
                assert a == b
            else:
                assert np.array_equal(a, b)
    with pytest.raises(ValueError, match="width must be an integer of at least"):
        pack_objects(["abcdef"], width=4)
    with pytest.raises(TypeError, match=r"objects\[1\] is a dict"):
        pack_objects(["a", {}])


def _distance_matrix(metric, objects, others=None, **params):
    return pairwise_distances(objects, others, metric=metric, **params)


@pytest.mark.parametrize(
    ("transform", "metric", "make"),
    [
        ("gaussian", "dtw", _series),
        ("gaussian", "edit", _strings),
        ("gaussian", "affine_invariant", _spd),
        ("double_centering", "dtw", _white_noise),
        ("double_centering", "edit", _long_strings),
        ("double_centering", "affine_invariant", _spd8),
    ],
)
def test_low_rank_fit_with_all_landmarks_equals_the_precomputed_fit(transform, metric, make):
    """m = n on 200 objects: the DistanceKernel fit (exact and Nyström with every object a
    landmark) equals KreinRidge on the precomputed kernel to 1e-10: exp(−γ D² / median D²) (γ = 16),
    or ``DoubleCentering(scale="median")`` of D with its test rows by ``transform`` (landmark MDS with
    every object a landmark is classical scaling). The data keep the kernel's condition number (past
    the double centring's null vector) about 1e3 to 1e4: the Nyström solve through K_ZZ loses accuracy
    with it, 6e-9 at condition 1e6; the double centring of the random walks, short strings and 3×3 SPD
    matrices of the Gaussian cases has 3e4 to 4e6, hence white noise, strings of 30–40 letters and
    8×8 matrices there."""
    rng = np.random.default_rng(1)
    objects = list(make(rng, 240))
    train, test = objects[:200], objects[200:]
    y = rng.normal(size=200)
    D = _distance_matrix(metric, train)
    D_test = _distance_matrix(metric, test, train)
    gamma = 16.0 if transform == "gaussian" else 1.0
    median = np.median(D[~np.eye(200, dtype=bool)] ** 2)
    if transform == "gaussian":
        K, K_test = np.exp(-gamma / median * D**2), np.exp(-gamma / median * D_test**2)
    else:
        centering = DoubleCentering(scale="median")
        K, K_test = centering.fit_transform(D), centering.transform(D_test)
    reference = KreinRidge(kernel="precomputed").fit(K, y)
    X = pack_objects(objects)
    kernel = DistanceKernel(metric, transform=transform, gamma=gamma)
    exact = KreinRidge(kernel=kernel).fit(X[:200], y)
    low_rank = KreinRidge(kernel=kernel, n_components=200, random_state=0).fit(X[:200], y)
    assert exact.kernel_.gamma_ == pytest.approx(gamma / median, rel=1e-15)
    assert low_rank.kernel_.gamma_ == pytest.approx(gamma / median, rel=1e-15)
    assert not hasattr(kernel, "gamma_")  # the estimator's copy holds the scale, not the user's kernel
    scale = np.abs(reference.predict(K)).max()
    for model in (exact, low_rank):
        assert_allclose(model.predict(X[:200]), reference.predict(K), atol=1e-10 * scale)
        assert_allclose(model.predict(X[200:]), reference.predict(K_test), atol=1e-10 * scale)


def test_double_centring_of_euclidean_distances_is_the_linear_kernel_centred_at_the_references():
    """With the Euclidean distance, −½ (‖x − y‖² − μ(x) − μ(y) + μ̄) = (x − z̄)ᵀ(y − z̄), z̄ the mean of
    the references (those given to ``fit``): on the references, between them and other points on either
    side, between two other sets, on one other set, and on the diagonal."""
    rng = np.random.default_rng(7)
    points = rng.normal(size=(60, 4)) + 5.0
    X = pack_objects(list(points))
    kernel = DistanceKernel("euclidean", transform="double_centering", gamma=1.0, relative=False)
    for call in (lambda: kernel(X[:5], X[5:10]), lambda: kernel.diag(X[:5])):
        with pytest.raises(ValueError, match=r"centres through reference objects .* call kernel\.fit\(Z\)"):
            call()
    centred = points - points[:15].mean(axis=0)
    linear = centred @ centred.T
    Z, A, B = slice(0, 15), slice(15, 35), slice(35, 60)
    assert kernel.fit(X[Z]) is kernel
    assert_allclose(kernel(X[Z]), linear[Z, Z], atol=1e-12)
    assert kernel.block_null_vector(X[Z]) is not None and kernel.block_null_vector(X[A]) is None
    for rows, columns in ((A, Z), (Z, B), (A, B), (Z, Z)):
        assert_allclose(kernel(X[rows], X[columns]), linear[rows, columns], atol=1e-12)
    assert_allclose(kernel(X[A]), linear[A, A], atol=1e-12)  # a symmetric block of other objects
    assert_allclose(kernel.diag(X[A]), np.diag(linear)[A], atol=1e-12)
    assert DistanceKernel("euclidean").block_null_vector(X[Z]) is None  # the Gaussian has none


def test_double_centred_low_rank_fit_is_landmark_mds(monkeypatch):
    """n = 300, m = 40: the double-centred kernel's fit computes the landmarks' block, then the n × m
    distances to them, nothing else, and warns of no singular block (its constant null vector is
    projected out); the Nyström approximation on new objects is landmark MDS's (de Silva & Tenenbaum
    2004), ``K̃(x, y) = ¼ (δ_x − δ̄)ᵀ K_ZZ⁺ (δ_y − δ̄)`` with ``δ_x`` the squared distances of x to the
    landmarks over their median, ``δ̄`` their column means and ``K_ZZ = −½ J Δ_ZZ J``, computed here from
    the distances alone."""
    rng = np.random.default_rng(8)
    n, m = 300, 40
    series = _white_noise(rng, n + 20)
    y = (np.array([np.max(s) for s in series[:n]]) > 2.5).astype(int)
    X = pack_objects(series)
    kernel = DistanceKernel("dtw", transform="double_centering")
    blocks = []

    def counting(A, B=None, **kwargs):
        blocks.append((len(A), len(A) if B is None else len(B), B is None))
        return pairwise_distances(A, B, **kwargs)

    with monkeypatch.context() as patch, warnings.catch_warnings():
        warnings.simplefilter("error")
        patch.setattr(krein.kernels._distance, "pairwise_distances", counting)
        model = KreinRidgeClassifier(kernel=kernel, n_components=m, random_state=0).fit(X[:n], y)
    assert blocks[0] == (m, m, True)
    assert all(b == m and not sym for _, b, sym in blocks[1:]) and sum(a for a, _, _ in blocks[1:]) == n
    assert model.score(X[:n], y) > 0.7
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the approximation of K may be poor: not the point
        nystroem = IndefiniteNystroem(kernel, n_components=m, landmark_rank="full", random_state=0).fit(X[:n])
    landmarks = [series[i] for i in nystroem.component_indices_]
    D_ZZ = pairwise_distances(landmarks, metric="dtw")
    median = np.median(D_ZZ[~np.eye(m, dtype=bool)] ** 2)
    J = np.eye(m) - 1.0 / m
    K_ZZ = -0.5 * J @ (D_ZZ**2 / median) @ J
    delta = pairwise_distances(series[n:], landmarks, metric="dtw") ** 2 / median - np.mean(
        D_ZZ**2 / median, axis=0
    )
    mds = 0.25 * delta @ np.linalg.pinv(K_ZZ, rcond=1e-10, hermitian=True) @ delta.T
    assert np.linalg.cond(K_ZZ + np.ones((m, m)) / m) < 1e4  # well conditioned past the null vector
    assert_allclose(nystroem.approximate_kernel(X[n:]), mds, atol=1e-9 * np.abs(mds).max())


def test_low_rank_fit_computes_only_the_landmark_distances(monkeypatch):
    """n = 600, m = 30: the fit computes the landmarks' block, then the n × m distances to the
    landmarks and nothing else (no held-out columns: the error estimate waits for its first read,
    which pays for the probe columns); never the n × n matrix (179,700 pairs); the scale is the
    landmarks' median; predicting t objects costs t·m distances."""
    rng = np.random.default_rng(2)
    n, m = 600, 30
    series = _series(rng, n)
    y = (np.array([s[-1] for s in series]) > 0).astype(int)
    X = pack_objects(series)
    blocks = []

    def counting(A, B=None, **kwargs):
        blocks.append((len(A), len(A) if B is None else len(B), B is None))
        return pairwise_distances(A, B, **kwargs)

    monkeypatch.setattr(krein.kernels._distance, "pairwise_distances", counting)
    model = KreinRidgeClassifier(kernel=DistanceKernel("dtw", gamma=2.0), n_components=m, random_state=0)
    model.fit(X, y)
    assert blocks[0] == (m, m, True)  # the landmarks' block comes first and fixes the scale
    assert all(b == m and not sym for _, b, sym in blocks[1:]) and sum(a for a, _, _ in blocks[1:]) == n
    Z = [series[i] for i in model.landmark_indices_]
    DZ = pairwise_distances(Z, metric="dtw")
    assert model.kernel_.gamma_ == pytest.approx(2.0 / np.median(DZ[~np.eye(m, dtype=bool)] ** 2), rel=1e-14)
    blocks.clear()
    representation = model.representation_
    assert np.isfinite(representation.approximation_error)
    probes = representation.n_probes
    assert 0 < probes <= 64
    # the diagonal residual of the n − m others (a pool of all of them), the probes against the
    # landmarks, and one pass over the landmark and probe columns
    assert sum(a * b for a, b, _ in blocks) == (n - m) * m + m * probes + n * (m + probes)
    blocks.clear()
    model.predict(X[:25])
    assert blocks == [(25, m, False)]
    assert model.score(X, y) > 0.8


def test_distance_kernel_direct_calls_and_errors():
    rng = np.random.default_rng(3)
    strings = _strings(rng, 6)
    kernel = DistanceKernel("edit", gamma=0.5, relative=False)
    D = pairwise_distances(strings, metric="edit")
    assert_allclose(kernel(strings), np.exp(-0.5 * D**2), rtol=1e-15)
    assert_allclose(kernel(pack_objects(strings)), kernel(strings), rtol=0)
    assert_allclose(kernel.diag(strings), np.ones(6))
    relative = DistanceKernel("edit")
    for call in (
        lambda: relative(strings[:2], strings),
        lambda: relative(strings),
        lambda: relative.diag(strings),
    ):
        with pytest.raises(NotFittedError, match=r"scale from the distances .* call kernel\.fit\(Z\)"):
            call()
    with pytest.raises(ValueError, match=r"transform must be one of \('gaussian', 'double_centering'\)"):
        DistanceKernel("edit", transform="laplace")(strings)
    with pytest.raises(ValueError, match="gamma must be a finite positive number"):
        DistanceKernel("edit", gamma=-1.0)(strings)
    with pytest.raises(ValueError, match="median squared distance between the reference objects is 0"):
        DistanceKernel("edit").fit(["a", "a", "a", "a", "b"])
    with pytest.raises(ValueError, match="X is empty"):
        KreinRidge(kernel=DistanceKernel("edit")).fit([], [])
    with pytest.raises(TypeError, match=r"X\[1\] is a dict: only strings and numeric arrays"):
        KreinRidge(kernel=DistanceKernel("edit")).fit(["a", {}], [1.0, 2.0])
    with pytest.raises(TypeError, match=r"unexpected parameter\(s\) \['window'\]"):
        DistanceKernel("edit", metric_params={"window": 3}).fit(strings)


@pytest.mark.parametrize("n_components", [None, 30])
def test_estimators_fit_and_predict_raw_objects(n_components):
    """Lists of series of different lengths in, test series longer than every training series
    included: the same model as from packed rows."""
    rng = np.random.default_rng(4)
    train = _series(rng, 80)
    test = [np.cumsum(rng.normal(size=k)) for k in (10, 45, 60)]  # training lengths are 15 to 29
    y = np.array([s[-1] for s in train])
    kernel = DistanceKernel("dtw", gamma=2.0)
    raw = KreinRidge(kernel=kernel, n_components=n_components, random_state=0).fit(train, y)
    packed = KreinRidge(kernel=kernel, n_components=n_components, random_state=0).fit(pack_objects(train), y)
    assert_allclose(raw.predict(train), packed.predict(pack_objects(train)), rtol=1e-14, atol=1e-14)
    D = pairwise_distances(
        test, [train[i] for i in (raw.landmark_indices_ if n_components else range(80))], metric="dtw"
    )
    expected = np.exp(-raw.kernel_.gamma_ * D**2) @ raw.dual_coef_.T + raw.intercept_
    assert_allclose(raw.predict(test), np.ravel(expected), rtol=1e-10, atol=1e-12)


def test_low_rank_fit_on_a_dask_array_of_packed_objects_equals_the_in_memory_fit():
    """Objects packed into rows of a dask array stream through the same fit (each row chunk's
    distances to the landmarks computed by a task)."""
    da = pytest.importorskip("dask.array")
    import dask

    rng = np.random.default_rng(6)
    series = _series(rng, 200)
    y = np.array([s[-1] for s in series])
    X = pack_objects(series)
    kernel = DistanceKernel("dtw", gamma=2.0)
    in_memory = KreinRidge(kernel=kernel, n_components=20, random_state=0).fit(series, y)
    with dask.config.set(scheduler="synchronous"):
        streamed = KreinRidge(kernel=kernel, n_components=20, random_state=0).fit(
            da.from_array(X, chunks=(50, -1)), da.from_array(y, chunks=50)
        )
    assert np.array_equal(streamed.landmark_indices_, in_memory.landmark_indices_)
    assert_allclose(streamed.predict(series[:40]), in_memory.predict(series[:40]), rtol=1e-10, atol=1e-12)

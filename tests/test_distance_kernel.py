"""Tests of krein.kernels.DistanceKernel: objects packed into rows, the Gaussian of a structured
distance with its scale fixed by the training block, low-rank fits that compute only the distances
to the landmarks, and agreement with the precomputed fit."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

import krein.dissimilarity
from krein.dissimilarity import pairwise_distances
from krein.kernels import DistanceKernel, pack_objects, unpack_objects
from krein.least_squares import KreinRidge, KreinRidgeClassifier


def _series(rng, n):
    return [np.cumsum(rng.normal(size=k)) for k in rng.integers(15, 30, size=n)]


def _strings(rng, n):
    return ["".join(rng.choice(list("ACGT"), size=k)) for k in rng.integers(5, 25, size=n)]


def _spd(rng, n):
    M = rng.normal(size=(n, 3, 3))
    return M @ M.transpose(0, 2, 1) + 0.1 * np.eye(3)


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
    ("metric", "make"), [("dtw", _series), ("edit", _strings), ("affine_invariant", _spd)]
)
def test_low_rank_fit_with_all_landmarks_equals_the_precomputed_fit(metric, make):
    """m = n on 200 objects: the DistanceKernel fit (exact and Nyström with every object a
    landmark) equals KreinRidge on the precomputed exp(−γ D² / median D²) to 1e-10 (γ = 16: the
    kernel's condition number is about 1e3 to 1e4; the Nyström solve through K_ZZ loses accuracy
    with it, 6e-9 at condition 1e6)."""
    rng = np.random.default_rng(1)
    objects = list(make(rng, 240))
    train, test = objects[:200], objects[200:]
    y = rng.normal(size=200)
    D = _distance_matrix(metric, train)
    gamma = 16.0 / np.median(D[~np.eye(200, dtype=bool)] ** 2)
    K = np.exp(-gamma * D**2)
    K_test = np.exp(-gamma * _distance_matrix(metric, test, train) ** 2)
    reference = KreinRidge(kernel="precomputed").fit(K, y)
    X = pack_objects(objects)
    kernel = DistanceKernel(metric, gamma=16.0)
    exact = KreinRidge(kernel=kernel).fit(X[:200], y)
    low_rank = KreinRidge(kernel=kernel, n_components=200, random_state=0).fit(X[:200], y)
    assert exact.kernel_.gamma_ == pytest.approx(gamma, rel=1e-15)
    assert low_rank.kernel_.gamma_ == pytest.approx(gamma, rel=1e-15)
    assert not hasattr(kernel, "gamma_")  # the estimator's copy holds the scale, not the user's kernel
    scale = np.abs(reference.predict(K)).max()
    for model in (exact, low_rank):
        assert_allclose(model.predict(X[:200]), reference.predict(K), atol=1e-10 * scale)
        assert_allclose(model.predict(X[200:]), reference.predict(K_test), atol=1e-10 * scale)


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

    monkeypatch.setattr(krein.dissimilarity, "pairwise_distances", counting)
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
    with pytest.raises(ValueError, match=r"takes its scale from the training block K\(X\)"):
        relative(strings[:2], strings)
    with pytest.raises(ValueError, match="transform must be 'gaussian'"):
        DistanceKernel("edit", transform="laplace")(strings)
    with pytest.raises(ValueError, match="gamma must be a finite positive number"):
        DistanceKernel("edit", gamma=-1.0)(strings)
    with pytest.raises(ValueError, match="median squared distance between the training objects is 0"):
        DistanceKernel("edit")(["a", "a", "a", "a", "b"])
    with pytest.raises(ValueError, match="X is empty"):
        KreinRidge(kernel=DistanceKernel("edit")).fit([], [])
    with pytest.raises(TypeError, match=r"X\[1\] is a dict: only strings and numeric arrays"):
        KreinRidge(kernel=DistanceKernel("edit")).fit(["a", {}], [1.0, 2.0])
    with pytest.raises(TypeError, match=r"unexpected parameter\(s\) \['window'\]"):
        DistanceKernel("edit", metric_params={"window": 3})(strings)


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

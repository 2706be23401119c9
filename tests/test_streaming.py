"""Streamed and distributed fits of the low-rank Kreĭn least squares models (Oglic & Gärtner 2019, Sec. 2.4).

With ``working_memory`` (or a dask ``X``) the estimators accumulate ``LᵀL`` and ``Lᵀy`` over row chunks
and never hold an n×m array; the result must equal the in-memory low-rank fit.
"""

import tracemalloc

import numpy as np
import pytest
from sklearn.base import clone

from krein.kernels import DeltaGaussian
from krein.least_squares import (
    KreinRidge,
    KreinRidgeClassifier,
    VarianceConstrainedKrein,
    VarianceConstrainedKreinClassifier,
)
from krein.logistic import IndefiniteLogisticRegression
from krein.nystroem import IndefiniteNystroem
from krein.representation import NystroemRepresentation
from krein.svm import KreinSquaredHingeSVC

KERNEL = DeltaGaussian(eta1=1.0, eta2=2.0)
ESTIMATORS = [
    (KreinRidge, "regression"),
    (KreinRidgeClassifier, "multiclass"),
    (VarianceConstrainedKrein, "regression"),
    (VarianceConstrainedKreinClassifier, "binary"),
]
#: 0.002 MiB holds 4 rows of a 30-column block pair: 100 chunks for n = 400.
TINY_MEMORY = 0.002


def make_data(n, task, seed=0, d=3):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    signal = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2]
    if task == "regression":
        return X, signal + 0.1 * rng.standard_normal(n) + 3.0  # a non-zero mean: centring matters
    if task == "binary":
        return X, np.where(signal > 0.3, "yes", "no")  # unbalanced classes
    return X, np.digitize(signal, [-0.5, 0.5])


def model(cls, **params):
    extra = {"radius": 0.8} if "radius" in cls().get_params() else {}
    return cls(
        KERNEL, lambda_plus=1e-3, lambda_minus=3e-3, n_components=30, random_state=0, **extra, **params
    )


def decision(estimator, X):
    """Real-valued predictions: ``decision_function`` for classifiers, ``predict`` for regressors."""
    return getattr(estimator, "decision_function", estimator.predict)(X)


def assert_same_fit(streamed, in_memory, X_test, rtol=1e-8):
    np.testing.assert_array_equal(streamed.landmark_indices_, in_memory.landmark_indices_)
    scale = np.max(np.abs(in_memory.dual_coef_))
    np.testing.assert_allclose(streamed.dual_coef_, in_memory.dual_coef_, rtol=0, atol=rtol * scale)
    np.testing.assert_allclose(streamed.intercept_, in_memory.intercept_, rtol=rtol, atol=1e-14)
    expected = decision(in_memory, X_test)
    got = np.asarray(decision(streamed, X_test))
    np.testing.assert_allclose(got, expected, rtol=0, atol=rtol * np.max(np.abs(expected)))


@pytest.mark.parametrize("cls, task", ESTIMATORS, ids=[c.__name__ for c, _ in ESTIMATORS])
def test_streamed_fit_equals_in_memory_low_rank_fit(cls, task):
    X, y = make_data(400, task)
    X_test, y_test = make_data(150, task, seed=1)
    in_memory = model(cls).fit(X, y)
    streamed = model(cls, working_memory=TINY_MEMORY).fit(X, y)
    assert isinstance(streamed.representation_, NystroemRepresentation)
    assert streamed.representation_._vectors is None  # no n×r eigenvectors held
    assert in_memory.representation_._vectors is None  # the default streams too
    assert_same_fit(streamed, in_memory, X_test)
    if task != "regression":  # labels agree exactly (decision values agree to 1e-8 above)
        np.testing.assert_array_equal(streamed.predict(X_test), in_memory.predict(X_test))
    if hasattr(in_memory, "multiplier_"):
        np.testing.assert_allclose(streamed.multiplier_, in_memory.multiplier_, rtol=1e-8)
    # the fit is not trivial: R² > 0.3, or accuracy above the majority class share
    baseline = 0.3 if task == "regression" else np.max(np.unique(y_test, return_counts=True)[1]) / y_test.size
    assert streamed.score(X_test, y_test) > baseline


def test_streamed_fit_with_precomputed_kernel_and_fit_path():
    X, y = make_data(300, "regression")
    X_test, _ = make_data(50, "regression", seed=1)
    K, K_test = KERNEL(X), KERNEL(X_test, X)
    base = KreinRidge("precomputed", n_components=25, random_state=0)
    grid = [{"lambda_plus": 1e-3, "lambda_minus": 1e-2}, {"lambda_plus": 1e-1, "lambda_minus": 1e-4}]
    in_memory = base.fit_path(K, y, grid)
    streamed = base.set_params(working_memory=TINY_MEMORY).fit_path(K, y, grid)
    for a, b in zip(streamed, in_memory, strict=True):
        assert_same_fit(a, b, K_test)
    assert not np.allclose(streamed[0].dual_coef_, streamed[1].dual_coef_)


def test_streamed_fit_rejects_bad_working_memory():
    X, y = make_data(50, "regression")
    with pytest.raises(ValueError, match="working_memory"):
        KreinRidge(KERNEL, n_components=10, working_memory=-1.0).fit(X, y)


# --------------------------------------------------------------------------- dask
@pytest.fixture(scope="module")
def dask_client():
    pytest.importorskip("dask.array", reason="dask is an optional extra (pip install krein[dask])")
    distributed = pytest.importorskip("distributed", reason="dask.distributed is an optional extra")
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


@pytest.mark.slow
@pytest.mark.parametrize(
    "cls, task",
    [ESTIMATORS[0], ESTIMATORS[1], ESTIMATORS[3]],
    ids=["KreinRidge", "KreinRidgeClassifier", "VarianceConstrainedKreinClassifier"],
)
def test_dask_fit_on_local_cluster_equals_in_memory_fit(dask_client, cls, task):
    import dask.array as da

    X, y = make_data(400, task)
    X_test, _ = make_data(150, task, seed=1)
    X_dask = da.from_array(X, chunks=(37, 2))  # uneven row chunks, split columns
    y_dask = da.from_array(y, chunks=50)  # chunked differently from X
    in_memory = model(cls).fit(X, y)
    distributed_fit = model(cls).fit(X_dask, y_dask)
    assert isinstance(distributed_fit.representation_, NystroemRepresentation)
    assert distributed_fit.n_features_in_ == 3
    assert_same_fit(distributed_fit, in_memory, X_test)
    # predictions on dask input are lazy, chunk-wise, and equal the in-memory ones
    lazy = distributed_fit.predict(da.from_array(X_test, chunks=40))
    assert isinstance(lazy, da.Array)
    if task == "regression":
        np.testing.assert_allclose(lazy.compute(), in_memory.predict(X_test), rtol=1e-8)
    else:
        np.testing.assert_array_equal(lazy.compute(), in_memory.predict(X_test))


def test_dask_fit_with_in_memory_targets_and_multioutput(dask_client):
    import dask.array as da

    X, y = make_data(300, "regression")
    Y = np.column_stack([y, -2 * y + X[:, 0]])
    in_memory = model(KreinRidge).fit(X, Y)
    distributed_fit = model(KreinRidge).fit(da.from_array(X, chunks=(64, 3)), Y)
    assert_same_fit(distributed_fit, in_memory, X[:40])
    lazy = distributed_fit.predict(da.from_array(X[:40], chunks=15))
    assert lazy.shape == (40, 2)
    np.testing.assert_allclose(lazy.compute(), in_memory.predict(X[:40]), rtol=1e-8)


def test_dask_input_is_validated(dask_client):
    import dask.array as da

    X, y = make_data(200, "regression")
    X_bad = X.copy()
    X_bad[150, 1] = np.nan
    with pytest.raises(ValueError, match="X contains NaN"):
        model(KreinRidge).fit(da.from_array(X_bad, chunks=(50, 3)), y)
    y_bad = y.copy()
    y_bad[3] = np.inf
    with pytest.raises(ValueError, match="y contains NaN"):
        model(KreinRidge).fit(da.from_array(X, chunks=(50, 3)), da.from_array(y_bad, chunks=50))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        model(KreinRidge).fit(da.from_array(X, chunks=(50, 3)), y[:-1])
    with pytest.raises(ValueError, match="set n_components"):
        KreinRidge(KERNEL).fit(da.from_array(X, chunks=(50, 3)), y)
    with pytest.raises(ValueError, match="only one class"):
        model(KreinRidgeClassifier).fit(da.from_array(X, chunks=(50, 3)), da.zeros(200, chunks=50))
    fitted = model(KreinRidge).fit(da.from_array(X, chunks=(50, 3)), y)
    with pytest.raises(ValueError, match="expecting 3 features"):
        fitted.predict(da.from_array(X[:, :2], chunks=(50, 2)))


# --------------------------------------------------------------------------- memory
@pytest.mark.slow
@pytest.mark.parametrize("configured", [False, True], ids=["working_memory=1", "sklearn.config_context"])
def test_streamed_fit_never_allocates_an_n_by_m_array(configured):
    """With ``working_memory=None`` the fit streams within scikit-learn's ``working_memory`` setting."""
    from sklearn import config_context

    n, m = 200_000, 100
    X, y = make_data(n, "regression", d=3)
    estimator = KreinRidge(
        KERNEL,
        lambda_plus=1e-4,
        lambda_minus=1e-4,
        n_components=m,
        random_state=0,
        working_memory=None if configured else 1,
    )
    tracemalloc.start()
    try:
        with config_context(working_memory=1):
            estimator.fit(X, y)
        predictions = estimator.predict(X[:2000]) if configured else estimator.predict(X)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    if configured:
        y = y[:2000]
    n_by_m = n * m * 8  # 160 MB
    assert peak < n_by_m / 10, f"peak traced allocation {peak / 2**20:.1f} MiB"
    assert np.sqrt(np.mean((predictions - y) ** 2)) < 0.7 * np.std(y)


# --------------------------------------------------------------------------- IKLR and the SH-SVM
def classifier(cls, **params):
    """A low-rank IKLR or SH-SVM on the indefinite test kernel."""
    extra = {"max_outer_iter": 8, "alpha": 1e-3} if cls is IndefiniteLogisticRegression else {}
    return cls(KERNEL, n_components=30, random_state=0, **{**extra, **params})


def assert_same_classifier(got, expected, X_test):
    """Same landmarks, coefficients, intercepts and decisions (1e-8 of their scale)."""
    np.testing.assert_array_equal(got.landmark_indices_, expected.landmark_indices_)
    scale = np.max(np.abs(expected.dual_coef_))
    np.testing.assert_allclose(got.dual_coef_, expected.dual_coef_, rtol=0, atol=1e-8 * scale)
    np.testing.assert_allclose(got.intercept_, expected.intercept_, rtol=1e-8, atol=1e-12)
    decision = expected.decision_function(X_test)
    np.testing.assert_allclose(
        np.asarray(got.decision_function(X_test)), decision, rtol=0, atol=1e-8 * np.max(np.abs(decision))
    )


CLASSIFIERS = [IndefiniteLogisticRegression, KreinSquaredHingeSVC]


@pytest.mark.parametrize("center", [False, True], ids=["uncentred", "centred"])
@pytest.mark.parametrize("cls", CLASSIFIERS, ids=[c.__name__ for c in CLASSIFIERS])
def test_streamed_classifier_equals_in_memory_low_rank_fit(cls, center):
    """Every pass over the training data streams in blocks of TINY_MEMORY: no n×r eigenvectors."""
    X, y = make_data(400, "binary")
    X_test, y_test = make_data(150, "binary", seed=1)
    in_memory = classifier(cls, center=center).fit(X, y)
    streamed = classifier(cls, center=center, working_memory=TINY_MEMORY).fit(X, y)
    assert in_memory.representation_._vectors is not None  # the in-memory solver holds Ũ
    assert streamed.representation_._vectors is None  # the streamed one never does
    assert_same_classifier(streamed, in_memory, X_test)
    np.testing.assert_array_equal(streamed.predict(X_test), in_memory.predict(X_test))
    majority = np.max(np.unique(y_test, return_counts=True)[1]) / y_test.size
    assert streamed.score(X_test, y_test) > majority
    if center:  # centring changes the model: the intercept carries −k̄ᵀβ
        uncentred = classifier(cls, center=False, working_memory=TINY_MEMORY).fit(X, y)
        assert not np.allclose(uncentred.decision_function(X_test), streamed.decision_function(X_test))


@pytest.mark.slow
@pytest.mark.parametrize("center", [False, True], ids=["uncentred", "centred"])
@pytest.mark.parametrize("cls", CLASSIFIERS, ids=[c.__name__ for c in CLASSIFIERS])
def test_dask_classifier_on_local_cluster_equals_in_memory_fit(dask_client, cls, center):
    import dask.array as da

    X, y = make_data(400, "multiclass")
    X_test, _ = make_data(150, "multiclass", seed=1)
    in_memory = classifier(cls, center=center).fit(X, y)
    distributed_fit = classifier(cls, center=center).fit(
        da.from_array(X, chunks=(37, 2)), da.from_array(y, chunks=50)
    )
    assert distributed_fit.representation_._vectors is None
    assert_same_classifier(distributed_fit, in_memory, X_test)
    lazy = distributed_fit.decision_function(da.from_array(X_test, chunks=40))
    assert isinstance(lazy, da.Array)
    np.testing.assert_allclose(
        lazy.compute(),
        in_memory.decision_function(X_test),
        rtol=0,
        atol=1e-8 * np.max(np.abs(lazy.compute())),
    )
    np.testing.assert_array_equal(distributed_fit.predict(X_test), in_memory.predict(X_test))


def test_streamed_iklr_projects_a_random_start_like_the_in_memory_fit():
    """``init="random"``: the start ``Vᵀα⁽⁰⁾`` is one more streamed pass, equal to the in-memory one."""
    X, y = make_data(300, "binary")
    params = {"init": "random", "center": True, "max_outer_iter": 4}
    in_memory = classifier(IndefiniteLogisticRegression, **params).fit(X, y)
    streamed = classifier(IndefiniteLogisticRegression, working_memory=TINY_MEMORY, **params).fit(X, y)
    assert_same_classifier(streamed, in_memory, X[:50])
    zero_start = classifier(IndefiniteLogisticRegression, center=True, max_outer_iter=4).fit(X, y)
    assert not np.allclose(zero_start.dual_coef_, in_memory.dual_coef_)


def test_indefinite_nystroem_centres_and_streams_like_the_shared_representation(dask_client):
    """``center=True`` with every point a landmark gives the centred kernel ``HKH`` (test rows
    centred by the same column means); blocks and dask give the in-memory features."""
    import dask.array as da

    X, _ = make_data(120, "regression")
    X_test, _ = make_data(30, "regression", seed=1)
    full = IndefiniteNystroem(KERNEL, n_components=120, landmark_rank="full", center=True).fit(X)
    K, K_test = KERNEL(X), KERNEL(X_test, X)
    H = np.eye(120) - 1.0 / 120
    np.testing.assert_allclose(full.approximate_kernel(X), H @ K @ H, atol=1e-8 * np.abs(K).max())
    centred_test = (K_test - K.mean(axis=0)) @ H  # test rows of HKH: k_x − k̄, then H on the right
    np.testing.assert_allclose(
        full.approximate_kernel(X_test, X), centred_test @ H, atol=1e-8 * np.abs(K).max()
    )
    low_rank = IndefiniteNystroem(KERNEL, n_components=25, random_state=0, center=True).fit(X)
    blocks = clone(low_rank).set_params(working_memory=TINY_MEMORY).fit(X)
    np.testing.assert_allclose(blocks.transform(X_test), low_rank.transform(X_test), rtol=0, atol=1e-10)
    lazy = clone(low_rank).fit(da.from_array(X, chunks=(40, 3))).transform(da.from_array(X_test, chunks=10))
    assert isinstance(lazy, da.Array)
    np.testing.assert_allclose(lazy.compute(), low_rank.transform(X_test), rtol=0, atol=1e-10)

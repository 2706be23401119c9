"""Every Kreĭn estimator and transformer fits one kind of spectral representation, in one order.

The representation (:mod:`krein.representation`) is what the estimators are written against: its
eigenvalues are ascending whichever producer made it (exact, one-shot Nyström, deferred), it
reproduces the kernel it represents, and the estimators evaluate test points through it.
"""

import warnings

import numpy as np
import pytest

from krein.embedding import KreinKMeans, KreinPCA, KreinSpectralClustering
from krein.kernels import Sigmoid, TruncatedL1
from krein.least_squares import (
    KreinRidge,
    KreinRidgeClassifier,
    VarianceConstrainedKrein,
    VarianceConstrainedKreinClassifier,
)
from krein.logistic import IndefiniteLogisticRegression
from krein.nystroem import IndefiniteNystroem
from krein.representation import (
    DeferredRepresentation,
    NystroemRepresentation,
    SpectralRepresentation,
    chunk_moments,
    combine_moments,
    nystroem_representation,
)
from krein.spectral import center_kernel
from krein.svm import (
    IndefiniteOneClassSVM,
    IndefiniteSVC,
    IndefiniteSVR,
    KreinSquaredHingeSVC,
    KreinSVC,
)

KERNEL = Sigmoid(0.3)
RNG = np.random.default_rng(3)
X = RNG.normal(size=(90, 3))
X_TEST = RNG.normal(size=(12, 3))
Y_CLASS = (X[:, 0] + X[:, 1] > 0).astype(int)
Y_REG = X[:, 0] - 0.5 * X[:, 2] ** 2

# (estimator, targets, what the representation represents: "kernel" K, "centred" HKH, or None for a
# Nyström approximation, checked against its own eigen-coordinates)
CASES = [
    (KreinRidge(KERNEL), Y_REG, "centred"),
    (KreinRidge(KERNEL, n_components=40, random_state=0), Y_REG, None),
    (KreinRidge(KERNEL, center=False), Y_REG, "kernel"),
    (KreinRidgeClassifier(KERNEL), Y_CLASS, "centred"),
    (VarianceConstrainedKrein(KERNEL), Y_REG, "centred"),
    (VarianceConstrainedKreinClassifier(KERNEL, n_components=40, random_state=0), Y_CLASS, None),
    (IndefiniteSVC(KERNEL, max_iter=50), Y_CLASS, "kernel"),
    (IndefiniteSVR(KERNEL, max_iter=50), Y_REG, "kernel"),
    (IndefiniteOneClassSVM(KERNEL, max_iter=50), None, "kernel"),
    (KreinSVC(KERNEL), Y_CLASS, "kernel"),
    (KreinSquaredHingeSVC(KERNEL), Y_CLASS, "kernel"),
    (KreinSquaredHingeSVC(KERNEL, n_components=40, random_state=0), Y_CLASS, None),
    (IndefiniteLogisticRegression(KERNEL, max_outer_iter=5), Y_CLASS, "centred"),
    (IndefiniteLogisticRegression(KERNEL, n_components=40, random_state=0, max_outer_iter=5), Y_CLASS, None),
    (KreinPCA(KERNEL, n_components=4), None, "centred"),
    (KreinPCA(KERNEL, n_components=4, n_landmarks=40, random_state=0), None, None),
    (KreinKMeans(3, kernel=KERNEL, random_state=0), None, "kernel"),
    (KreinSpectralClustering(3, kernel=KERNEL, random_state=0), None, "centred"),
    (IndefiniteNystroem(KERNEL, n_components=40, random_state=0), None, None),
]


def _fit(estimator, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence and approximation warnings are not tested here
        return estimator.fit(X) if y is None else estimator.fit(X, y)


@pytest.mark.parametrize(
    ("estimator", "y", "represents"),
    CASES,
    ids=[f"{type(e).__name__}-{'low_rank' if r is None else r}" for e, _, r in CASES],
)
def test_every_estimator_fits_one_representation_with_ascending_eigenvalues(estimator, y, represents):
    representation = _fit(estimator, y).representation_
    assert isinstance(representation, SpectralRepresentation)
    values, U = representation.values, representation.vectors
    assert values.size > 0 and np.all(np.diff(values) >= 0)
    np.testing.assert_allclose(U.T @ U, np.eye(values.size), atol=1e-8)
    if represents is None:  # Nyström: Ũ = (K(X, Z) − k̄) E, the out-of-sample map of the training rows
        assert isinstance(representation, NystroemRepresentation)
        np.testing.assert_allclose(representation.coordinates(X), U, atol=1e-8)
        return
    K = KERNEL(X)
    if represents == "centred":
        K = center_kernel(K)[0]
    np.testing.assert_allclose((U * values) @ U.T, K, atol=1e-9 * np.abs(K).max())


@pytest.mark.parametrize(
    "estimator",
    [
        IndefiniteSVC(KERNEL, max_iter=50),
        KreinSVC(KERNEL),
        KreinSquaredHingeSVC(KERNEL, n_components=40, random_state=0),
        KreinKMeans(3, kernel=KERNEL, random_state=0),
    ],
    ids=lambda e: type(e).__name__,
)
def test_predictions_are_the_representations_out_of_sample_map(estimator):
    """``f(x) = K(x, P) β + b`` with ``P`` the representation's points: computed independently."""
    _fit(estimator, None if isinstance(estimator, KreinKMeans) else Y_CLASS)
    rows = KERNEL(X_TEST, estimator.representation_.points)
    if isinstance(estimator, KreinKMeans):
        assert isinstance(estimator.representation_, DeferredRepresentation)
        expected = np.argmin(estimator._mean_norms - 2.0 * rows @ estimator._weights, axis=1)
        np.testing.assert_array_equal(estimator.predict(X_TEST), expected)
        return
    expected = rows @ estimator.dual_coef_.T + estimator.intercept_
    np.testing.assert_allclose(estimator.decision_function(X_TEST), expected[:, 0], rtol=1e-10, atol=1e-12)


def test_transformers_keep_their_output_order_while_the_representation_is_ascending():
    """``eigenvalues_`` of KreinPCA and IndefiniteNystroem follow their output columns (decreasing
    magnitude, as KernelPCA's); ``representation_.values`` holds the same eigenvalues ascending."""
    pca = _fit(KreinPCA(KERNEL), None)
    nystroem = _fit(IndefiniteNystroem(KERNEL, n_components=40, random_state=0), None)
    for values, representation in [
        (pca.eigenvalues_, pca.representation_.values),
        (nystroem.eigenvalues_, nystroem.representation_.values),
    ]:
        assert np.all(np.diff(np.abs(values)) <= 0)
        np.testing.assert_array_equal(
            np.sort(values), np.sort(representation[np.isin(representation, values)])
        )
    np.testing.assert_array_equal(np.sort(nystroem.eigenvalues_), nystroem.representation_.values)


def test_nystroem_producer_is_ascending_and_keeps_the_largest_magnitudes_at_a_rank():
    full, _ = nystroem_representation(KERNEL, X, n_components=40, random_state=0, warn_poor=False)
    ranked, _ = nystroem_representation(KERNEL, X, n_components=40, rank=5, random_state=0, warn_poor=False)
    assert np.all(np.diff(full.values) >= 0) and np.all(np.diff(ranked.values) >= 0)
    largest = full.values[np.argsort(-np.abs(full.values))[:5]]
    np.testing.assert_allclose(ranked.values, np.sort(largest), rtol=1e-10)


def test_deferred_representation_is_the_exact_one_made_on_first_read():
    K = KERNEL(X)
    deferred = DeferredRepresentation(K, kernel=KERNEL, points=X)
    assert deferred._exact is None  # nothing decomposed at construction
    exact = SpectralRepresentation.exact(K)
    np.testing.assert_array_equal(deferred.values, exact.values)
    np.testing.assert_array_equal(deferred.vectors, exact.vectors)
    precomputed = DeferredRepresentation(K, kernel="precomputed")
    np.testing.assert_array_equal(precomputed.values, exact.values)


def test_one_pass_gram_equals_the_two_pass_one_on_badly_centred_columns():
    """The streamed pass accumulates the Gram matrix of the landmark columns by one symmetric rank-k
    update per block, shifted by a reference row, and centres it afterwards from the column sums: on
    kernel values near 1e6 with variation of order 1 (where ``CᵀC − n k̄k̄ᵀ`` loses every digit but
    four) its scatter equals the two-pass ``Σ (c − k̄)(c − k̄)ᵀ`` to 1e-10, over several blocks and over
    chunks combined as a dask array's are."""
    rng = np.random.default_rng(0)
    n, m = 4000, 30
    K = 1e6 + rng.standard_normal((n, 10)) @ rng.standard_normal((10, 200)) / 3  # rows of a kernel
    K += np.linspace(0.0, 3.0, n)[:, None]  # rows drift: the first block's means are off by ~1
    Z = np.sort(rng.choice(200, m, replace=False))
    y = rng.standard_normal(n)
    C = K[:, Z]
    mean = C.mean(axis=0)
    centred = C - mean
    two_pass = centred.T @ centred
    naive = C.T @ C - n * np.outer(mean, mean)
    relative = lambda A: np.linalg.norm(A - two_pass) / np.linalg.norm(two_pass)  # noqa: E731
    assert relative(naive) > 1e-6  # the badly centred case
    one = chunk_moments("precomputed", K, Z, y, working_memory=0.25)
    parts = [
        chunk_moments("precomputed", K[rows], Z, y[rows], working_memory=0.25)
        for rows in np.split(np.arange(n), [1500])
    ]
    combined = combine_moments(*parts)
    for moments in (one, combined):
        assert moments.count == n
        assert relative(moments.scatter) < 1e-10
        np.testing.assert_allclose(moments.mean, mean, rtol=1e-14)
        np.testing.assert_allclose(moments.gram, C.T @ C, rtol=1e-13)
        np.testing.assert_allclose(moments.moment, C.T @ y, rtol=1e-10)


# --------------------------------------------------------------------------- one path for every estimator
# Every estimator and transformer that learns from a spectrum fits through SpectralEstimatorMixin: exact,
# at low rank with every point a landmark (the Nyström representation is then the exact one), streamed in
# blocks of ``working_memory`` and on dask arrays. A kernel of full numerical rank (TL1 on 48 points in
# 4-d, |λ| ≥ 5e-4·max|λ|) makes m = n the exact model for every estimator.
WALK_X = np.random.default_rng(11).normal(size=(48, 4))
WALK_TEST = 0.5 * np.random.default_rng(12).normal(size=(9, 4))
WALK_CLASS = (WALK_X[:, 0] + WALK_X[:, 1] > 0).astype(int)
WALK_REG = np.sin(WALK_X[:, 0]) + 0.3 * WALK_X[:, 2]
WALK_KERNEL = TruncatedL1()
PROXY = {"tol": 1e-12, "max_iter": 5000}  # solved to the end of double precision's certificate
# (estimator class, its parameters, targets, outputs compared, tolerance exact versus low rank, tolerance
# streamed and dask versus in memory). The proxy-kernel SVMs are iterative on a dual whose optimum is flat:
# two runs that certify the same relative gap (≤ 1e-9 here) agree in objective to that gap and in decision
# values to about its square root, so their outputs are compared at 1e-6 and their objective at 1e-8.
WALK = [
    (KreinRidge, {}, WALK_REG, 1e-8, 1e-10),
    (KreinRidgeClassifier, {}, WALK_CLASS, 1e-8, 1e-10),
    (VarianceConstrainedKrein, {}, WALK_REG, 1e-8, 1e-10),
    (VarianceConstrainedKreinClassifier, {}, WALK_CLASS, 1e-8, 1e-10),
    (IndefiniteLogisticRegression, {"tol": 1e-12, "max_outer_iter": 50}, WALK_CLASS, 1e-8, 1e-10),
    (KreinSquaredHingeSVC, {}, WALK_CLASS, 1e-8, 1e-10),
    (KreinSVC, {"tol": 1e-12}, WALK_CLASS, 1e-8, 1e-10),
    (IndefiniteSVC, PROXY, WALK_CLASS, 1e-6, 1e-6),
    (IndefiniteSVR, PROXY, WALK_REG, 1e-6, 1e-6),
    (IndefiniteOneClassSVM, {"nu": 0.3, **PROXY}, None, 1e-6, 1e-6),
    (KreinPCA, {"n_components": 6}, None, 1e-8, 1e-10),
    (KreinKMeans, {"n_clusters": 3, "random_state": 0}, None, 0, 0),
    (KreinSpectralClustering, {"n_clusters": 3, "random_state": 0}, None, 0, 0),
    (IndefiniteNystroem, {"n_components": 48}, None, None, 1e-10),
]


def _walk_fit(cls, params, y, X=WALK_X, **low_rank):
    estimator = cls(kernel=WALK_KERNEL, **{**params, **low_rank})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence and approximation warnings are not tested here
        return estimator.fit(X) if y is None else estimator.fit(X, y)


def _walk_outputs(estimator, X=WALK_TEST):
    for method in ("decision_function", "transform", "predict"):
        if hasattr(estimator, method):
            return np.asarray(getattr(estimator, method)(X), dtype=float)
    raise AssertionError(f"{type(estimator).__name__} has no output")


def _landmarks_of(cls):
    return "n_landmarks" if cls is KreinPCA else "n_components"


def _close(actual, expected, tolerance):
    if tolerance == 0:  # clusters: the same partition (their numbers follow the draws of the seeds)
        pairs = set(zip(actual.tolist(), expected.tolist(), strict=True))
        assert len(pairs) == len(set(actual.tolist())) == len(set(expected.tolist())), pairs
    else:
        np.testing.assert_allclose(actual, expected, rtol=0, atol=tolerance * np.max(np.abs(expected)))


@pytest.mark.parametrize(
    ("cls", "params", "y", "low_rank_tol", "stream_tol"), WALK, ids=lambda v: getattr(v, "__name__", "")
)
def test_every_spectral_estimator_is_exact_low_rank_streamed_and_distributed(
    cls, params, y, low_rank_tol, stream_tol
):
    n = WALK_X.shape[0]
    every_point = (
        {_landmarks_of(cls): n, "random_state": 0} if cls is not IndefiniteNystroem else {"random_state": 0}
    )
    low_rank = _walk_fit(cls, params, y, **every_point)
    assert low_rank.representation_.rank >= n - 1  # full numerical rank (n − 1 centred): m = n is exact
    expected = _walk_outputs(low_rank)
    if low_rank_tol is not None:
        exact = _walk_fit(cls, params, y)
        assert exact.landmark_indices_ is None and low_rank.landmark_indices_.size == n
        _close(expected, _walk_outputs(exact), low_rank_tol)
        if low_rank_tol == 0:
            _close(low_rank.labels_.astype(float), exact.labels_.astype(float), 0)
        if hasattr(exact, "objective_"):  # the certified optimum of the proxy problem
            np.testing.assert_allclose(low_rank.objective_, exact.objective_, rtol=1e-8)
    streamed = _walk_fit(cls, params, y, working_memory=0.002, **every_point)
    _close(_walk_outputs(streamed), expected, stream_tol)
    da = pytest.importorskip("dask.array", reason="dask is an optional extra (pip install krein[dask])")
    distributed = _walk_fit(cls, params, y, X=da.from_array(WALK_X, chunks=20), **every_point)
    lazy = _walk_outputs(distributed, da.from_array(WALK_TEST, chunks=4))
    _close(np.asarray(lazy), expected, stream_tol)


#: Public estimators that learn from no spectrum of their own, with the reason (every other one must fit
#: through SpectralEstimatorMixin).
NOT_SPECTRAL = {
    "ModifiedSVC": "a linear SVM on the empirical kernel map (the Gram matrix K Kᵀ)",
    "DCASVC": "DC programming on the nonconvex SVM dual of K itself",
    "KernelLearningRidge": "the kernel changes during the fit",
    "KernelLearningSVC": "the kernel changes during the fit",
    "SimilarityFeaturesClassifier": "a linear model on kernel rows (the similarity-features baseline)",
    "SimilarityFeaturesRidge": "a linear model on kernel rows (the similarity-features baseline)",
    "SpectrumTransformer": "the spectrum layer's transform of a kernel matrix (below the representation)",
    "DoubleCentering": "a dissimilarity into a kernel matrix",
    "GaussianOfDistance": "a dissimilarity into a kernel matrix",
    "HypergradientSearchCV": "a meta-estimator (its inner estimator fits through the mixin)",
    "KreinClassifierCV": "a meta-estimator over the family (krein.model_selection's own route)",
    "KreinRegressorCV": "a meta-estimator over the family (krein.model_selection's own route)",
}
#: Code that fits a representation or a kernel matrix outside the mixin.
BYPASSES = (
    "nystroem_representation(",
    "SpectralRepresentation.exact(",
    "._fit_kernel(",
    "self.representation_ =",
)


def _own_sources(cls):
    """The source of every method ``cls`` resolves to that krein defines outside krein.representation."""
    import inspect

    sources = {}
    for name in dir(cls):
        method = inspect.getattr_static(cls, name)
        function = getattr(method, "__func__", method)
        module = getattr(function, "__module__", None) or ""
        if inspect.isfunction(function) and module.startswith("krein.") and ".representation" not in module:
            sources[function.__qualname__] = inspect.getsource(function)
    return sources


def test_no_public_estimator_bypasses_the_mixin():
    """Every public estimator learning from a spectrum inherits SpectralEstimatorMixin, takes its shared
    parameters, and neither fits a representation nor a kernel matrix of its own; the others are
    listed above with their reason."""
    import inspect
    import sys
    from pathlib import Path

    from krein.representation import SPECTRAL_PARAMETERS, SpectralEstimatorMixin

    sys.path.insert(0, str(Path(__file__).parent))
    from _estimators import public_estimators

    estimators = {cls.__name__: cls for cls in public_estimators()}
    assert set(NOT_SPECTRAL) <= set(estimators)
    spectral = [cls for name, cls in estimators.items() if name not in NOT_SPECTRAL]
    assert len(spectral) == 14  # the seven that were on the mixin and the seven moved onto it (issue 40)
    for cls in spectral:
        assert issubclass(cls, SpectralEstimatorMixin), cls.__name__
        parameters = set(inspect.signature(cls).parameters)
        shared = set(SPECTRAL_PARAMETERS) - {"center"}  # center only where the model centres
        if cls is KreinPCA:  # the one exception of the naming table: n_components counts coordinates
            shared = shared - {"n_components"} | {"n_landmarks"}
        assert shared <= parameters, (cls.__name__, shared - parameters)
        for owner, source in _own_sources(cls).items():
            found = [pattern for pattern in BYPASSES if pattern in source]
            assert not found, f"{cls.__name__}: {owner} fits outside the mixin ({found})"
    for name in NOT_SPECTRAL:
        assert not issubclass(estimators[name], SpectralEstimatorMixin), name

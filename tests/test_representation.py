"""Every Kreĭn estimator and transformer fits one kind of spectral representation, in one order.

The representation (:mod:`krein.representation`) is what the estimators are written against: its
eigenvalues are ascending whichever producer made it (exact, one-shot Nyström, deferred), it
reproduces the kernel it represents, and the estimators evaluate test points through it.
"""

import warnings

import numpy as np
import pytest

from krein.embedding import KreinKMeans, KreinPCA, KreinSpectralClustering
from krein.kernels import Sigmoid
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

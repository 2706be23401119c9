"""reuse_eigendecompositions: one eigh per distinct matrix, shared by every estimator inside the block."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from krein.least_squares import KreinRidgeClassifier
from krein.logistic import IndefiniteLogisticRegression
from krein.spectral import SpectrumTransformer, eigendecompose, reuse_eigendecompositions
from krein.svm import IndefiniteSVC, KreinSquaredHingeSVC, KreinSVC


def _kernel(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    K = np.tanh(X @ X.T - 0.5)  # indefinite
    return K, (X[:, 0] > 0).astype(int)


def test_each_distinct_matrix_is_decomposed_once_and_the_arrays_are_read_only():
    K, _ = _kernel()
    plain = eigendecompose(K)
    with reuse_eigendecompositions() as cache:
        first = eigendecompose(K)
        second = eigendecompose(K.copy())
        eigendecompose(2.0 * K)
        with reuse_eigendecompositions() as inner:
            eigendecompose(K)
    assert inner is cache
    assert (cache.n_computed, cache.n_reused) == (2, 2)
    assert first.values is second.values
    assert_array_equal(first.values, plain.values)
    with pytest.raises(ValueError, match="read-only"):
        first.vectors[0, 0] = 1.0
    eigendecompose(K)  # outside the block: nothing is kept
    assert cache.n_computed == 2


def test_estimators_inside_the_block_share_one_eigendecomposition_and_fit_the_same_models():
    K, y = _kernel()
    estimators = [
        KreinRidgeClassifier(kernel="precomputed", center=False),
        KreinSquaredHingeSVC(kernel="precomputed"),
        IndefiniteLogisticRegression(kernel="precomputed", center=False),
        KreinSVC(kernel="precomputed"),
        IndefiniteSVC(kernel="precomputed"),
    ]
    alone = [est.fit(K, y).decision_function(K) for est in estimators]
    with reuse_eigendecompositions() as cache:
        SpectrumTransformer("clip").fit(K)
        shared = [est.fit(K, y).decision_function(K) for est in estimators]
    assert cache.n_computed == 1
    assert cache.n_reused >= len(estimators)
    for a, b in zip(alone, shared, strict=True):
        assert_allclose(b, a, rtol=1e-10, atol=1e-12)

"""Every Kreĭn estimator's default penalty is relative to the kernel's scale (``"auto"``).

A kernel multiplied by 1e3 or 1e-3 gives the same predictions with the defaults (krein._penalties):
the ridge-type penalties scale with s = Σ|σᵢ|/n, an SVM cost against it.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from krein._penalties import kernel_scale, penalty
from krein.least_squares import (
    KreinRidge,
    KreinRidgeClassifier,
    VarianceConstrainedKrein,
    VarianceConstrainedKreinClassifier,
)
from krein.logistic import IndefiniteLogisticRegression
from krein.svm import KreinSquaredHingeSVC, KreinSVC

ESTIMATORS = [
    (KreinRidge, {}),
    (KreinRidgeClassifier, {}),
    (VarianceConstrainedKrein, {}),
    (VarianceConstrainedKreinClassifier, {}),
    (KreinSquaredHingeSVC, {}),
    (IndefiniteLogisticRegression, {}),
    (KreinSVC, {}),
    (KreinRidge, {"n_components": 30, "random_state": 0}),
    (KreinSquaredHingeSVC, {"n_components": 30, "random_state": 0}),
]


def _kernel(n=90, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    K = np.tanh(0.5 * X @ X.T + 0.3)  # a sigmoid kernel: indefinite
    y = (X[:, 0] + 0.5 * X[:, 1] ** 2 > 0.3).astype(int)
    return K, y, X[:, 0] - X[:, 1] ** 2


@pytest.mark.parametrize("factor", [1e3, 1e-3])
@pytest.mark.parametrize(("cls", "params"), ESTIMATORS, ids=lambda v: getattr(v, "__name__", str(v)))
def test_defaults_give_the_same_model_on_a_scaled_kernel(cls, params, factor):
    K, labels, values = _kernel()
    y = (
        labels
        if hasattr(cls, "predict_proba") or "Classifier" in cls.__name__ or "SVC" in cls.__name__
        else values
    )
    train, test = slice(0, 70), slice(70, None)
    model = cls(kernel="precomputed", **params).fit(K[train, train], y[train])
    scaled = cls(kernel="precomputed", **params).fit(factor * K[train, train], y[train])
    # libsvm (KreinSVC) stops at a KKT violation of tol = 1e-3: its models agree to that accuracy
    rtol = 1e-2 if cls is KreinSVC else 1e-6
    if hasattr(model, "decision_function"):
        assert_allclose(
            scaled.decision_function(factor * K[test, train]),
            model.decision_function(K[test, train]),
            rtol=rtol,
            atol=rtol,
        )
    assert_allclose(
        scaled.predict(factor * K[test, train]), model.predict(K[test, train]), rtol=1e-6, atol=1e-9
    )


def test_a_number_keeps_its_absolute_meaning():
    K, _, y = _kernel()
    fixed = KreinRidge(kernel="precomputed", lambda_plus=1e-2, lambda_minus=1e-2)
    prediction = fixed.fit(K, y).predict(K)
    scaled = fixed.fit(1e3 * K, y).predict(1e3 * K)
    assert np.max(np.abs(scaled - prediction)) > 1e-3  # another model: λ is not rescaled
    auto = KreinRidge(kernel="precomputed").fit(K, y)
    s = kernel_scale(auto.eigenvalues_, 90)
    by_hand = KreinRidge(kernel="precomputed", lambda_plus=s / 90, lambda_minus=s / 90).fit(K, y)
    assert_allclose(auto.predict(K), by_hand.predict(K), rtol=1e-12)
    svc = KreinSVC(kernel="precomputed").fit(K, (y > 0).astype(int))
    assert svc.C_ == pytest.approx(1.0 / kernel_scale(np.linalg.eigvalsh(K), 90), rel=1e-6)


def test_the_scale_is_the_mean_absolute_eigenvalue():
    assert kernel_scale(np.array([3.0, -1.0, 0.0, 2.0]), 4) == pytest.approx(1.5)
    assert penalty("auto", 1e-2, 4.0) == pytest.approx(4e-2)
    assert penalty("auto", 1.0, 4.0, inverse=True) == pytest.approx(0.25)
    assert penalty(0.3, 1e-2, 4.0) == 0.3
    with pytest.raises(ValueError, match="needs s > 0"):
        penalty("auto", 1.0, 0.0)

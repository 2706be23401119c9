"""Hypergradients of the low-rank (Nyström) Kreĭn least squares models, both splits of Sec. 2.4."""

import numpy as np
import pytest
from sklearn.base import clone, is_classifier
from sklearn.model_selection import StratifiedKFold

from krein.kernels import Gaussian
from krein.least_squares import (
    KreinRidge,
    KreinRidgeClassifier,
    VarianceConstrainedKrein,
    VarianceConstrainedKreinClassifier,
)
from krein.model_selection import HypergradientSearchCV
from krein.model_selection._hypergradient_search import _cross_validation_objective, _fold_data

KERNEL = Gaussian(1.5) - 0.6 * Gaussian(0.5)  # indefinite


def _data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    y = np.sin(X[:, 0]) + 0.3 * X[:, 1] + 0.1 * rng.standard_normal(n)
    K = KERNEL(X)
    assert np.linalg.eigvalsh(K)[0] < -1e-2 * np.linalg.eigvalsh(K)[-1]
    return K, y


def _finite_differences(model, K, y, step=1e-5):
    train, val = np.arange(40), np.arange(40, len(y))
    fold = K[np.ix_(train, train)], y[train], K[np.ix_(val, train)], y[val]
    theta, _ = model._hyperparameter_vector()
    _, gradient = model._validation_loss_and_gradient(*fold)

    def loss(t):
        return clone(model).set_params(**model._params_from_vector(t))._validation_loss_and_gradient(*fold)[0]

    numeric = [(loss(theta + step * e) - loss(theta - step * e)) / (2 * step) for e in np.eye(theta.size)]
    assert gradient.shape == theta.shape
    assert np.max(np.abs(numeric)) > 1e-4  # the check has something to check
    np.testing.assert_allclose(gradient, numeric, rtol=1e-5, atol=1e-6 * np.max(np.abs(numeric)))


LOW_RANK = dict(n_components=20, random_state=0)


@pytest.mark.parametrize("split", ["approximation", "landmarks"])
@pytest.mark.parametrize("center", [True, False])
@pytest.mark.parametrize(
    "model",
    [
        KreinRidge("precomputed", lambda_plus=0.03, lambda_minus=0.1),
        VarianceConstrainedKrein("precomputed", lambda_plus=0.03, lambda_minus=0.1, radius=0.5),
        VarianceConstrainedKrein(
            "precomputed", lambda_plus=0.03, lambda_minus=0.1, radius=0.5, regularization="krein"
        ),
        KreinRidgeClassifier("precomputed", lambda_plus=0.01, lambda_minus=0.05),
        VarianceConstrainedKreinClassifier("precomputed", lambda_plus=0.01, lambda_minus=0.05, radius=0.8),
    ],
    ids=["ridge", "vc", "omcs-krein", "ridge-classifier", "vc-classifier"],
)
def test_low_rank_hypergradient_matches_finite_differences(model, center, split):
    """∂Ξ/∂(log λ₊, log λ₋[, log r]) through (Q − μI)u = Ũᵀy, Q = Cᵀ diag(nλ±) C (landmarks)."""
    K, y = _data()
    if is_classifier(model):
        y = np.digitize(y, [-0.3, 0.4])  # three classes: one-vs-rest targets
    model = clone(model).set_params(center=center, nystroem_split=split, **LOW_RANK)
    _finite_differences(model, K, y)


def test_low_rank_model_is_the_fit_paths():
    """The loss is that of the fitted low-rank estimator, predicted on the validation rows."""
    K, y = _data(seed=1)
    model = VarianceConstrainedKrein("precomputed", radius=0.4, nystroem_split="landmarks", **LOW_RANK)
    train, val = np.arange(40), np.arange(40, 60)
    loss, _ = clone(model)._validation_loss_and_gradient(
        K[np.ix_(train, train)], y[train], K[val][:, train], y[val]
    )
    fitted = model.fit(K[np.ix_(train, train)], y[train])
    assert loss == pytest.approx(np.mean((fitted.predict(K[val][:, train]) - y[val]) ** 2), rel=1e-12)


def test_search_without_restarts_tunes_a_low_rank_classifier():
    """Oglic & Gärtner (2019), Table 2: low-rank models tuned by hypergradients, no random restart."""
    K, y = _data(80, seed=2)
    labels = (y > 0).astype(int)
    estimator = KreinRidgeClassifier(
        "precomputed", lambda_plus=10.0, lambda_minus=10.0, n_components=20, random_state=0
    )
    cv = StratifiedKFold(3)
    search = HypergradientSearchCV(estimator, cv=cv, n_restarts=0, max_iter=30).fit(K, labels)
    assert search.restarts_ == []
    folds = [_fold_data(K, labels, tr, va, True) for tr, va in cv.split(K, labels)]
    start = _cross_validation_objective(estimator._hyperparameter_vector()[0], estimator, folds)[0]
    assert search.initial_loss_ == pytest.approx(start, rel=1e-12)
    assert search.best_loss_ < 0.9 * start
    assert search.n_iter_ >= 1
    assert search.best_estimator_.n_components == 20
    assert search.score(K, labels) > 0.7


def test_low_rank_kernel_hyperparameters_are_refused_by_name():
    X = np.random.default_rng(0).standard_normal((30, 2))
    with pytest.raises(
        NotImplementedError, match=r"\['k1__eta', 'k2__scale', 'k2__kernel__eta'\].*eta_bounds='fixed'"
    ):
        HypergradientSearchCV(KreinRidge(KERNEL, n_components=10), cv=3, n_restarts=0).fit(X, X[:, 0])
    fixed = Gaussian(1.0, eta_bounds="fixed")
    search = HypergradientSearchCV(
        VarianceConstrainedKrein(fixed, radius=0.5, n_components=10, random_state=0), cv=3, n_restarts=0
    ).fit(X, X[:, 0])
    assert set(search.best_params_) == {"lambda_plus", "lambda_minus", "radius"}
    with pytest.raises(ValueError, match="Set radius"):  # no random restart draws it
        HypergradientSearchCV(VarianceConstrainedKrein(fixed, n_components=10), cv=3, n_restarts=0).fit(
            X, X[:, 0]
        )

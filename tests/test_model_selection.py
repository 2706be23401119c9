"""HypergradientSearchCV: the cross-validated objective, its optimum, determinism, compatibility."""

import numpy as np
import pytest
from joblib import parallel_config
from sklearn.linear_model import Ridge
from sklearn.model_selection import KFold
from sklearn.utils.estimator_checks import parametrize_with_checks

from krein.kernels import Sigmoid
from krein.least_squares import KreinRidge, KreinRidgeClassifier, VarianceConstrainedKrein
from krein.model_selection import HypergradientSearchCV, cross_validation_loss
from krein.model_selection._hypergradient_search import _cross_validation_objective, _fold_data


def _data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    y = np.sin(X[:, 0]) + 0.3 * X[:, 1] + 0.1 * rng.standard_normal(n)
    return X, y


def _folds(X, y, pairwise=False, k=3):
    return [_fold_data(X, y, tr, va, pairwise) for tr, va in KFold(k).split(X)]


def test_objective_is_the_fold_average_and_its_gradient_is_exact():
    X, y = _data()
    template = VarianceConstrainedKrein(Sigmoid(1.4), lambda_plus=0.01, lambda_minus=0.03, radius=0.6)
    theta, _ = template._hyperparameter_vector()
    loss, gradient = cross_validation_loss(template, X, y, KFold(3))
    per_fold = [template._validation_loss_and_gradient(*fold[:4])[0] for fold in _folds(X, y)]
    assert loss == pytest.approx(np.mean(per_fold), rel=1e-12)
    assert loss == pytest.approx(_cross_validation_objective(theta, template, _folds(X, y))[0], rel=1e-12)
    step = 1e-5
    numeric = [
        (
            cross_validation_loss(template, X, y, KFold(3), theta + step * e)[0]
            - cross_validation_loss(template, X, y, KFold(3), theta - step * e)[0]
        )
        / (2 * step)
        for e in np.eye(theta.size)
    ]
    np.testing.assert_allclose(gradient, numeric, rtol=1e-5, atol=1e-7)


def test_search_reaches_the_grid_optimum():
    """With a precomputed kernel only (λ₊, λ₋) are tuned: L-BFGS-B beats a dense log grid."""
    X, y = _data(seed=1)
    K = Sigmoid(1.5)(X)
    search = HypergradientSearchCV(KreinRidge("precomputed"), cv=KFold(3), n_restarts=3, random_state=0)
    search.fit(K, y)
    folds = _folds(K, y, pairwise=True)
    template = KreinRidge("precomputed")
    grid = np.log(np.logspace(-6, 1, 25))
    grid_losses = [
        _cross_validation_objective(np.array([a, b]), template, folds)[0] for a in grid for b in grid
    ]
    assert search.best_loss_ <= min(grid_losses) + 1e-9
    assert search.best_loss_ <= min(r["loss"] for r in search.restarts_)
    assert all(r["loss"] <= r["initial_loss"] for r in search.restarts_)
    refit = KreinRidge("precomputed", **search.best_params_).fit(K, y)
    np.testing.assert_allclose(search.predict(K[:5]), refit.predict(K[:5]))


@pytest.mark.parametrize("factor", [1e-170, 1e-3, -20.0, 1e4, 1e160])
def test_targets_in_other_units_give_the_same_search(factor):
    """A regressor is searched on y/std(y), its radius in the same units: targets s·y give the λ± and
    kernel of y, |s| times its radius, s times its predictions and s² times its losses, from random
    restarts and from the user's radius. (On y itself L-BFGS-B's absolute tolerances stopped the search
    at its start for s = 1e-3, 77 % off in predictions, and the Appendix E.1 radius overflowed to NaN
    for s = 1e160.)"""
    X, y = _data()

    def search(targets, n_restarts, radius):
        estimator = VarianceConstrainedKrein(radius=radius)
        settings = dict(cv=3, restart_iter=5, max_iter=10, random_state=0)
        return HypergradientSearchCV(estimator, n_restarts=n_restarts, **settings).fit(X, targets)

    for n_restarts, radius in ((2, None), (0, 0.5)):
        base = search(y, n_restarts, radius)
        scaled = search(factor * y, n_restarts, None if radius is None else radius * abs(factor))
        for name, value in base.best_params_.items():
            if name == "kernel":
                np.testing.assert_allclose(scaled.best_params_[name].theta, value.theta, rtol=1e-9)
            else:
                expected = value * abs(factor) if name == "radius" else value
                assert scaled.best_params_[name] == pytest.approx(expected, rel=1e-9), name
        np.testing.assert_allclose(scaled.predict(X) / factor, base.predict(X), rtol=1e-8)
        if abs(factor) <= 1e4:
            assert scaled.best_loss_ == pytest.approx(factor**2 * base.best_loss_, rel=1e-8)
            assert scaled.initial_loss_ == pytest.approx(factor**2 * base.initial_loss_, rel=1e-8)


def test_cross_validation_loss_is_in_the_units_of_the_targets():
    """The least squares models solve targets near 1e120 in units of a power of two near each fold's
    largest target; the folds' losses are scaled back before they are averaged (they were averaged in
    the folds' own units, which differ)."""
    X, y = _data()
    loss, gradient = cross_validation_loss(KreinRidge(), X, y, KFold(3))
    scaled_loss, scaled_gradient = cross_validation_loss(KreinRidge(), X, 1e120 * y, KFold(3))
    assert scaled_loss == pytest.approx(1e240 * loss, rel=1e-10)
    np.testing.assert_allclose(scaled_gradient, 1e240 * gradient, rtol=1e-8)


def test_parallel_restarts_are_reproducible():
    X, y = _data(40, seed=2)
    kwargs = dict(cv=3, n_restarts=2, restart_iter=5, max_iter=5, random_state=3)
    serial = HypergradientSearchCV(VarianceConstrainedKrein("gaussian"), **kwargs).fit(X, y)
    with parallel_config(backend="threading"):
        parallel = HypergradientSearchCV(VarianceConstrainedKrein("gaussian"), n_jobs=2, **kwargs).fit(X, y)
    assert serial.best_loss_ == parallel.best_loss_
    assert serial.restarts_ == parallel.restarts_
    assert serial.best_loss_ < min(r["initial_loss"] for r in serial.restarts_)


@pytest.mark.slow
def test_classification_search():
    X, y = _data(50, seed=3)
    labels = np.where(y > 0, "a", "b")
    search = HypergradientSearchCV(
        KreinRidgeClassifier("sigmoid"), cv=3, n_restarts=2, restart_iter=5, max_iter=5, random_state=0
    ).fit(X, labels)
    assert set(search.classes_) == {"a", "b"}
    assert search.decision_function(X).shape == (50,)
    assert search.score(X, labels) > 0.8


def test_estimator_without_the_protocol_is_rejected():
    with pytest.raises(ValueError, match="estimator"):
        HypergradientSearchCV(Ridge()).fit(*_data())


@pytest.mark.slow  # scikit-learn's checks refit the search dozens of times
@parametrize_with_checks(
    [HypergradientSearchCV(KreinRidge(), cv=3, n_restarts=1, restart_iter=2, max_iter=2, random_state=0)]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_fold_cache_reuses_the_eigendecomposition_of_a_fixed_kernel(monkeypatch):
    import krein.representation as estimators_module

    X, y = _data(seed=4)
    K = Sigmoid(1.5)(X)
    fold = _fold_data(K, y, np.arange(40), np.arange(40, 60), pairwise=True)
    calls = []
    exact = estimators_module.SpectralRepresentation.exact
    monkeypatch.setattr(
        estimators_module.SpectralRepresentation,
        "exact",
        classmethod(lambda cls, K, **kw: calls.append(1) or exact(K, **kw)),
    )
    results = [
        VarianceConstrainedKrein("precomputed", lambda_plus=lp, radius=0.5)._validation_loss_and_gradient(
            *fold
        )
        for lp in (0.01, 0.02, 0.01)
    ]
    assert len(calls) == 1
    uncached = VarianceConstrainedKrein(
        "precomputed", lambda_plus=0.01, radius=0.5
    )._validation_loss_and_gradient(*fold[:4])
    assert results[0][0] == results[2][0] == uncached[0]
    np.testing.assert_array_equal(results[2][1], uncached[1])
    assert results[1][0] != results[0][0]


def test_bad_input_is_reported_not_optimized_over():
    X, y = _data()
    with pytest.raises(ValueError, match="symmetric"):
        HypergradientSearchCV(KreinRidge("precomputed"), cv=3, n_restarts=1).fit(
            X @ X.T + np.triu(np.ones((60, 60))), y
        )


@pytest.mark.parametrize("eta_bounds", ["fixed", (0.5, 0.6)])
def test_the_users_kernel_settings_are_honoured(eta_bounds):
    """Issue 19: the Appendix-D kernel was replaced by a fresh initial one, so a fixed η was tuned and
    a bounded one came back 1.49 for bounds (0.5, 0.6)."""
    from krein.kernels import Gaussian

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = X[:, 0] + 0.1 * rng.normal(size=40)
    kernel = Gaussian(0.55, eta_bounds=eta_bounds)
    search = HypergradientSearchCV(
        KreinRidge(kernel=kernel), cv=3, n_restarts=2, restart_iter=5, max_iter=5, random_state=0
    ).fit(X, y)
    eta = search.best_estimator_.kernel.eta
    if eta_bounds == "fixed":
        assert eta == 0.55 and "kernel" not in search.best_params_
    else:
        assert 0.5 <= eta <= 0.6
    assert search.best_estimator_.kernel.eta_bounds == eta_bounds
    assert kernel.eta == 0.55  # the user's kernel object itself is untouched


def test_a_shared_ard_bandwidth_stays_shared():
    from krein.kernels import ARDGaussian

    X = np.random.default_rng(1).normal(size=(30, 3))
    params = KreinRidge(kernel=ARDGaussian(1.0))._initial_params(X, X[:, 0], random_state=0)
    assert np.ndim(params["kernel"].eta) == 0
    per_feature = KreinRidge(kernel=ARDGaussian(np.ones(3)))._initial_params(X, X[:, 0], random_state=0)
    assert np.shape(per_feature["kernel"].eta) == (3,)


def test_tol_reaches_lbfgsb(monkeypatch):
    import krein.model_selection._hypergradient_search as module

    seen = []
    original = module.minimize
    monkeypatch.setattr(module, "minimize", lambda *a, **k: seen.append(k["tol"]) or original(*a, **k))
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    HypergradientSearchCV(KreinRidge(), cv=3, n_restarts=1, restart_iter=2, max_iter=2, tol=1e-3).fit(
        X, X[:, 0]
    )
    assert seen == [1e-3, 1e-3]
    with pytest.raises(ValueError, match="tol"):
        HypergradientSearchCV(KreinRidge(), tol=-1.0).fit(X, X[:, 0])


def test_a_point_evaluated_again_is_not_refitted(monkeypatch):
    """L-BFGS-B evaluates its starting point, where the initial loss was just computed, and the final
    run starts at the best restart's last point: both are remembered (one refit of every fold saved
    per run), and the search is bit for bit the one that refits them."""
    import krein.model_selection._hypergradient_search as module

    X, y = _data(40, seed=5)
    kwargs = dict(cv=3, n_restarts=3, restart_iter=4, max_iter=6, random_state=0)
    calls, original = [], module._cross_validation_objective
    monkeypatch.setattr(module, "_cross_validation_objective", lambda *a: calls.append(1) or original(*a))
    remembering = HypergradientSearchCV(VarianceConstrainedKrein("sigmoid"), **kwargs).fit(X, y)
    n_remembering = len(calls)
    monkeypatch.setattr(
        module._RememberingObjective,
        "__call__",
        lambda self, theta, catch=True: module._cross_validation_objective(
            theta, self.template, self.folds, catch
        ),
    )
    calls.clear()
    refitting = HypergradientSearchCV(VarianceConstrainedKrein("sigmoid"), **kwargs).fit(X, y)
    assert len(calls) == n_remembering + kwargs["n_restarts"] + 1
    assert remembering.restarts_ == refitting.restarts_
    assert (remembering.best_loss_, remembering.n_iter_) == (refitting.best_loss_, refitting.n_iter_)
    assert remembering.best_params_ == refitting.best_params_
    np.testing.assert_array_equal(remembering.predict(X), refitting.predict(X))

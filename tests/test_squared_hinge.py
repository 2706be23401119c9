"""Tests of the Kreĭn squared-hinge SVM (Oglic & Gärtner 2019, Sec. 2.5)."""

import numpy as np
import pytest
from scipy.optimize import minimize, minimize_scalar
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.utils.estimator_checks import parametrize_with_checks

from krein.kernels import DeltaGaussian
from krein.optimize import squared_hinge_newton
from krein.optimize._squared_hinge import _line_search
from krein.spectral import indefiniteness, krein_decomposition
from krein.svm import KreinSquaredHingeSVC

KERNEL = DeltaGaussian(1.5, 3.0)


@pytest.fixture(scope="module")
def binary():
    X, y = make_classification(90, 4, n_informative=3, n_redundant=0, flip_y=0.1, random_state=0)
    return X, y


def test_newton_reaches_the_optimum_of_an_independent_solver():
    rng = np.random.default_rng(0)
    F = rng.normal(size=(120, 7))
    y = np.sign(F[:, 0] - 0.3 * F[:, 1] + 0.7 * rng.normal(size=120))
    rho = rng.uniform(0.01, 0.2, size=7)

    def objective(v):
        return np.sum(np.maximum(0, 1 - y * (F @ v[:-1] + v[-1])) ** 2) + 120 * np.dot(rho * v[:-1], v[:-1])

    result = squared_hinge_newton(F, y, rho)
    w, b, n_iter = result.x, result.intercept, result.n_iter
    reference = minimize(objective, np.zeros(8), method="L-BFGS-B", options={"ftol": 1e-15, "gtol": 1e-12})
    assert n_iter < 20
    assert objective(np.r_[w, b]) <= reference.fun + 1e-10
    np.testing.assert_allclose(np.r_[w, b], reference.x, atol=1e-5)
    # stationarity: the gradient of the piecewise quadratic vanishes at the Newton solution
    residual = np.maximum(0, 1 - y * (F @ w + b))
    gradient = np.r_[-2 * F.T @ (residual * y) + 2 * 120 * rho * w, -2 * np.sum(residual * y)]
    assert np.max(np.abs(gradient)) < 1e-8


def test_exact_line_search_minimizes_along_the_ray():
    rng = np.random.default_rng(1)
    n = 50
    a, c = rng.normal(size=n), rng.normal(size=n)
    wRd, dRd = -0.3, 0.05

    def phi(t):
        return np.sum(np.maximum(0, a - t * c) ** 2) + n * (2 * t * wRd + t**2 * dRd)

    t_star = _line_search(a, c, wRd, dRd, n)
    reference = minimize_scalar(phi, bounds=(0, 50), method="bounded", options={"xatol": 1e-12})
    assert t_star == pytest.approx(reference.x, abs=1e-6)


def test_exact_model_minimizes_the_krein_squared_hinge_risk(binary):
    """Sec. 2.5 in the representer form: Σ max(0, 1 − yᵢ((Kα)ᵢ + b))² + n(λ₊ αᵀK₊α + λ₋ αᵀK₋α)."""
    X, y = binary
    lam_plus, lam_minus = 1e-2, 5e-2
    model = KreinSquaredHingeSVC(KERNEL, lambda_plus=lam_plus, lambda_minus=lam_minus).fit(X, y)
    K = KERNEL(X)
    K_plus, K_minus = krein_decomposition(K)
    labels = np.where(y == model.classes_[1], 1.0, -1.0)
    n = len(y)

    def risk(v):
        alpha, b = v[:-1], v[-1]
        return np.sum(np.maximum(0, 1 - labels * (K @ alpha + b)) ** 2) + n * (
            lam_plus * alpha @ K_plus @ alpha + lam_minus * alpha @ K_minus @ alpha
        )

    ours = risk(np.r_[model.dual_coef_[0], model.intercept_[0]])
    reference = minimize(
        risk, np.zeros(n + 1), method="L-BFGS-B", options={"ftol": 1e-15, "gtol": 1e-10, "maxiter": 20000}
    )
    assert ours <= reference.fun * (1 + 1e-7)
    np.testing.assert_allclose(model.decision_function(X), K @ model.dual_coef_[0] + model.intercept_[0])


def test_every_point_a_landmark_and_precomputed_give_the_exact_model(binary):
    X, y = binary
    exact = KreinSquaredHingeSVC(KERNEL, lambda_plus=1e-2, lambda_minus=5e-2).fit(X, y)
    low_rank = KreinSquaredHingeSVC(
        KERNEL, lambda_plus=1e-2, lambda_minus=5e-2, n_components=len(X), random_state=0
    ).fit(X, y)
    X_test = X[:20] + 0.1
    np.testing.assert_allclose(low_rank.decision_function(X_test), exact.decision_function(X_test), atol=1e-6)
    by_matrix = KreinSquaredHingeSVC("precomputed", lambda_plus=1e-2, lambda_minus=5e-2).fit(KERNEL(X), y)
    np.testing.assert_allclose(
        by_matrix.decision_function(KERNEL(X_test, X)), exact.decision_function(X_test), atol=1e-8
    )
    low_rank_matrix = KreinSquaredHingeSVC("precomputed", n_components=30, random_state=0).fit(KERNEL(X), y)
    low_rank_points = KreinSquaredHingeSVC(KERNEL, n_components=30, random_state=0).fit(X, y)
    np.testing.assert_allclose(
        low_rank_matrix.decision_function(KERNEL(X_test, X)),
        low_rank_points.decision_function(X_test),
        atol=1e-8,
    )


def test_multiclass_one_vs_rest():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    model = KreinSquaredHingeSVC(KERNEL, n_components=40, landmarks="kmeans++", random_state=0).fit(X, y)
    assert model.decision_function(X).shape == (150, 3)
    assert model.score(X, y) > 0.9


@pytest.mark.parametrize(
    "params", [{}, {"n_components": 30, "random_state": 0, "nystroem_split": "landmarks"}]
)
def test_fit_path_equals_separate_fits_and_warm_starts_save_newton_steps(params):
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    grid = [{"lambda_plus": lam, "lambda_minus": lam} for lam in (1e-1, 1e-2, 1e-3, 1e-4)]
    model = KreinSquaredHingeSVC(KERNEL, **params)
    path = model.fit_path(X, y, grid)
    assert not hasattr(model, "coef_")  # the estimator itself is left unfitted
    for fitted, setting in zip(path, grid, strict=True):
        alone = clone(model).set_params(**setting).fit(X, y)
        np.testing.assert_allclose(fitted.decision_function(X), alone.decision_function(X), atol=1e-8)
        if not params and setting is not grid[0]:  # exact features: warm-started from the last setting
            assert fitted.n_iter_.sum() <= alone.n_iter_.sum()
    assert path[-1].lambda_plus == 1e-4 and path[0].representation_ is path[-1].representation_


def test_newton_from_a_warm_start_reaches_the_same_minimum():
    rng = np.random.default_rng(1)
    F = rng.normal(size=(80, 5))
    y = np.sign(F[:, 0] + 0.5 * rng.normal(size=80))
    result = squared_hinge_newton(F, y, np.full(5, 0.05))
    w, b = result.x, result.intercept
    for start in ((w, b), (rng.normal(size=5), 3.0)):
        warm = squared_hinge_newton(F, y, np.full(5, 0.05), start=start)
        w_warm, b_warm = warm.x, warm.intercept
        np.testing.assert_allclose(np.r_[w_warm, b_warm], np.r_[w, b], atol=1e-10)
    assert squared_hinge_newton(F, y, np.full(5, 0.05), start=(w, b)).n_iter == 1


@pytest.fixture(scope="module")
def indefinite_kernel():
    """A precomputed DELTA-GAUSS kernel with ι = 0.5 on 60 points."""
    X, y = make_classification(60, 4, n_informative=3, n_redundant=0, flip_y=0.1, random_state=0)
    K = KERNEL(X)
    assert indefiniteness(K) > 0.3
    return K, y


HYPERGRADIENT_MODELS = [
    {},
    {"n_components": 25, "random_state": 0},
    {"n_components": 25, "random_state": 0, "nystroem_split": "landmarks"},
    {"fit_intercept": False, "n_components": 25, "random_state": 0, "nystroem_split": "landmarks"},
]


@pytest.mark.parametrize("params", HYPERGRADIENT_MODELS)
@pytest.mark.parametrize("multiclass", [False, True])
def test_validation_loss_is_the_fitted_models_and_its_gradient_matches_finite_differences(
    indefinite_kernel, params, multiclass
):
    K, y = indefinite_kernel
    if multiclass:
        y = np.arange(y.size) % 3
    train, val = np.arange(40), np.arange(40, 60)
    fold = (K[np.ix_(train, train)], y[train], K[np.ix_(val, train)], y[val])
    model = KreinSquaredHingeSVC("precomputed", lambda_plus=0.02, lambda_minus=0.07, **params)
    cache = {}
    loss, gradient = model._validation_loss_and_gradient(*fold, cache)
    fitted = clone(model).fit(fold[0], fold[1])
    scores = fitted.decision_function(fold[2]).reshape(val.size, -1)
    positives = fitted.classes_[1:] if fitted.classes_.size == 2 else fitted.classes_
    targets = np.where(fold[3][:, None] == positives[None, :], 1.0, -1.0)
    assert loss == pytest.approx(np.mean((scores - targets) ** 2), rel=1e-10)
    # away from a kink: no training point on the margin, so the active set is locally constant
    margins = np.where(fold[1][:, None] == positives[None, :], 1.0, -1.0) * fitted.decision_function(
        fold[0]
    ).reshape(train.size, -1)
    assert np.min(np.abs(margins - 1)) > 1e-4
    theta, _ = model._hyperparameter_vector()
    h = 1e-6
    for j in range(2):
        step = np.eye(2)[j] * h
        values = [
            clone(model)
            .set_params(**model._params_from_vector(theta + s))
            ._validation_loss_and_gradient(*fold, cache)[0]
            for s in (step, -step)
        ]
        assert gradient[j] == pytest.approx((values[0] - values[1]) / (2 * h), rel=1e-5, abs=1e-9)
    assert np.all(np.abs(gradient) > 1e-4)  # both λ₊ and λ₋ matter on this indefinite kernel


@pytest.mark.parametrize("params", HYPERGRADIENT_MODELS[::2])
def test_hypergradient_search_beats_a_grid_on_its_inner_cv_objective(params):
    from sklearn.model_selection import StratifiedKFold

    from krein.model_selection import HypergradientSearchCV
    from krein.model_selection._hypergradient_search import _cross_validation_objective, _fold_data

    X, y = make_classification(80, 4, n_informative=3, n_redundant=0, flip_y=0.1, random_state=0)
    K = KERNEL(X)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    estimator = KreinSquaredHingeSVC("precomputed", **params)
    search = HypergradientSearchCV(estimator, cv=cv, n_restarts=1, random_state=0).fit(K, y)
    assert search.best_loss_ < search.restarts_[0]["initial_loss"] - 0.1
    folds = [_fold_data(K, y, train, val, True) for train, val in cv.split(K, y)]
    grid = np.log(np.logspace(-4, 3, 8))
    best_on_grid = min(
        _cross_validation_objective(np.array([a, b]), estimator, folds)[0] for a in grid for b in grid
    )
    assert search.best_loss_ <= best_on_grid + 1e-6
    refit = clone(estimator).set_params(**search.best_params_).fit(K, y)
    np.testing.assert_allclose(search.decision_function(K), refit.decision_function(K))


def test_hypergradients_of_a_streamed_model_are_refused(indefinite_kernel):
    K, y = indefinite_kernel
    model = KreinSquaredHingeSVC("precomputed", n_components=10, working_memory=1.0)
    with pytest.raises(NotImplementedError, match="working_memory"):
        model._validation_loss_and_gradient(K[:40, :40], y[:40], K[40:, :40], y[40:], {})


@parametrize_with_checks([KreinSquaredHingeSVC(), KreinSquaredHingeSVC(n_components=10, random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_a_workspace_carried_along_a_penalty_path_gives_the_same_minima():
    from krein.optimize import squared_hinge_newton

    rng = np.random.default_rng(3)
    features = rng.normal(size=(300, 8))
    y = np.sign(features[:, 0] + 0.5 * rng.normal(size=300))
    workspace, start = {}, None
    for rho in (1.0, 1e-1, 1e-2, 1e-3, 1e-4):
        penalties = np.full(8, rho)
        fresh = squared_hinge_newton(features, y, penalties)
        carried = squared_hinge_newton(features, y, penalties, start=start, workspace=workspace)
        start = (carried.x, carried.intercept)
        assert carried.converged and fresh.converged
        np.testing.assert_allclose(carried.x, fresh.x, rtol=1e-9, atol=1e-12)
        assert abs(carried.intercept - fresh.intercept) < 1e-9
        assert carried.fun <= fresh.fun * (1 + 1e-12)
    active = workspace["active"]
    design = np.hstack([features, np.ones((300, 1))])[active]
    np.testing.assert_allclose(workspace["gram"], design.T @ design, rtol=1e-10, atol=1e-10)

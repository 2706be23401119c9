"""Tests of krein.kernel_learning against identities of Li, Venturi & Xu and independent solvers."""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.kernel_ridge import KernelRidge
from sklearn.model_selection import cross_val_score
from sklearn.svm import SVC

from krein.kernel_learning import KernelLearningRidge, KernelLearningSVC
from krein.kernel_learning._combination import KernelCombination
from krein.kernel_learning._objectives import RidgeObjective, SVMObjective
from krein.kernel_learning._solvers import projected_gradient
from krein.kernels import Gaussian, Linear, Polynomial, Sigmoid
from krein.optimize import project_onto_ball_orthant


def _data(n=40, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] ** 2 + 0.1 * rng.standard_normal(n)
    return X, y


def _kernels():
    return [Gaussian(eta=0.5), Gaussian(eta=1.0), Gaussian(eta=3.0), Polynomial(degree=2, gamma=0.1)]


def _stack(X, kernels=None):
    return np.stack([k(X) for k in (kernels or _kernels())])


def _direct_objective(stack, y, lam, mu, degree=1, beta=0.0):
    """F(μ) of Eq. (4)/(7) by a plain dense solve (independent of the library's factorizations)."""
    K = np.tensordot(mu, stack, axes=1) ** degree
    return y @ np.linalg.solve(K + lam * np.eye(len(y)), y) + beta * mu @ mu


def _dual(stack, y, lam, mu, degree=1):
    K = np.tensordot(mu, stack, axes=1) ** degree
    return np.linalg.solve(K + lam * np.eye(len(y)), y)


# --------------------------------------------------------------------------- derivatives


@pytest.mark.parametrize("degree", [1, 2, 3])
@pytest.mark.parametrize("beta", [0.0, 0.7])
def test_gradient_matches_central_differences(degree, beta):
    X, y = _data()
    stack = _stack(X)
    objective = RidgeObjective(KernelCombination(stack, degree), y, lam=0.3, beta=beta)
    mu = np.array([0.6, 1.3, 0.4, 0.9])
    state = objective.evaluate(mu)
    assert state.value == pytest.approx(_direct_objective(stack, y, 0.3, mu, degree, beta), rel=1e-12)
    h = 1e-5
    numeric = np.array(
        [
            (objective.evaluate(mu + h * e).value - objective.evaluate(mu - h * e).value) / (2 * h)
            for e in np.eye(4)
        ]
    )
    assert np.linalg.norm(state.gradient - numeric) <= 1e-6 * np.linalg.norm(numeric)


@pytest.mark.parametrize("degree", [1, 2, 3])
def test_hessian_matches_central_differences(degree):
    X, y = _data(n=30)
    objective = RidgeObjective(KernelCombination(_stack(X), degree), y, lam=0.5, beta=0.2)
    mu = np.array([0.6, 1.3, 0.4, 0.9])
    H = objective.hessian(objective.evaluate(mu))
    h = 1e-5
    numeric = np.column_stack(
        [
            (objective.evaluate(mu + h * e).gradient - objective.evaluate(mu - h * e).gradient) / (2 * h)
            for e in np.eye(4)
        ]
    )
    assert np.linalg.norm(H - numeric) <= 1e-6 * np.linalg.norm(numeric)


def test_objective_is_infinite_where_the_regularized_kernel_is_indefinite():
    """F(μ) = max_α 2αᵀy − αᵀ(K_μ + λI)α (Eq. 3) is +∞ once K_μ + λI has a negative eigenvalue; the
    formula yᵀ(K_μ + λI)⁻¹y there is finite but unbounded below near the singularity."""
    X, y = _data(n=30)
    stack = _stack(X, [Gaussian(eta=1.0), Sigmoid(eta=0.7)])
    objective = RidgeObjective(KernelCombination(stack, 1), y, lam=0.05)
    inside, outside = np.array([0.2, 0.0]), np.array([0.2, 3.0])
    assert np.linalg.eigvalsh(np.tensordot(outside, stack, axes=1))[0] < -0.05
    assert objective.evaluate(outside).value == np.inf
    state = objective.evaluate(inside)
    assert state.value == pytest.approx(_direct_objective(stack, y, 0.05, inside), rel=1e-10)
    with pytest.raises(ValueError, match=r"smallest eigenvalue of K_mu: -\d.*Increase alpha above"):
        raise objective.outside_domain(outside)


def test_sigmoid_kernel_learning_never_returns_the_unbounded_objective_model():
    """Issue 19: KernelLearningRidge(kernels=["sigmoid"]) on 60 points reported convergence with a
    training R² of about −4·10¹⁰ (PGD ran onto the singularity of K_μ + λI). Now F = +∞ outside the
    positive definite region: PGD starts inside it and stays there; the other solvers refuse."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = X[:, 0] + 0.1 * rng.normal(size=60)
    smallest = np.linalg.eigvalsh(Sigmoid()(X))[0]
    assert smallest < -1.0  # at the default μ₀ = 1 and λ = 1, K_μ + λI is indefinite
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the base-kernel warning
        for solver in ("pgd", "rpgd"):
            model = KernelLearningRidge(kernels=["sigmoid"], solver=solver).fit(X, y)
            assert model.score(X, y) > 0.3
            assert model.weights_[0] * smallest + 1.0 > 0  # inside the domain
            history = model.objective_history_
            assert np.all(np.isfinite(history)) and np.all(history > 0) and np.all(np.diff(history) <= 0)
        for solver in ("iia", "riia", "trust_region"):
            with pytest.raises(ValueError, match="not positive definite.*Increase alpha above"):
                KernelLearningRidge(kernels=["sigmoid"], solver=solver).fit(X, y)
        with pytest.raises(ValueError, match="not positive definite.*mu_init"):
            KernelLearningRidge(kernels=["sigmoid"], mu_init=1.0).fit(X, y)  # the user's start: kept
        with pytest.raises(ValueError, match="SVM dual .* unbounded"):
            KernelLearningSVC(kernels=["sigmoid"], mu_init=1.0).fit(X, np.sign(y))
        classifier = KernelLearningSVC(kernels=["sigmoid"]).fit(X, np.sign(y))
        assert classifier.score(X, np.sign(y)) > 0.7
        # With λ above −λ_min(K) the default start is inside already.
        model = KernelLearningRidge(kernels=["sigmoid"], alpha=20.0, max_iter=50).fit(X, y)
        assert model.score(X, y) > 0.3 and model.weights_[0] * smallest + 20.0 > 0


# --------------------------------------------------------------------------- projection


@pytest.mark.parametrize("q", [1.0, 1.5, 2.0, 3.0])
def test_projection_matches_independent_solver(q):
    rng = np.random.default_rng(3)
    for _ in range(10):
        center = rng.uniform(0, 1.5, 4)
        radius = rng.uniform(0.2, 1.5)
        x = center + rng.normal(scale=2.0, size=4)
        z = project_onto_ball_orthant(x, center, radius, q)
        assert np.all(z >= 0) and np.linalg.norm(z - center, ord=q) <= radius * (1 + 1e-12)
        # independent: SLSQP from several starts on the same convex problem (for q = 1 in the smooth
        # split form |v − c| ≤ t, Σt ≤ radius)
        if q == 1:

            def fun(w, x=x):
                return 0.5 * np.sum((w[:4] - x) ** 2)

            constraints = [
                {"type": "ineq", "fun": lambda w, c=center: np.r_[w[4:] - (w[:4] - c), w[4:] + (w[:4] - c)]},
                {"type": "ineq", "fun": lambda w, r=radius: r - np.sum(w[4:])},
            ]
            bounds = [(0, None)] * 8
        else:

            def fun(w, x=x):
                return 0.5 * np.sum((w - x) ** 2)

            constraints = [
                {"type": "ineq", "fun": lambda v, r=radius, c=center: r**q - np.sum(np.abs(v - c) ** q)}
            ]
            bounds = [(0, None)] * 4
        starts = [np.clip(center + rng.normal(scale=0.1, size=4), 0, None) for _ in range(3)]
        if q == 1:
            starts = [np.r_[s, np.zeros(4)] for s in starts]
        best = min(
            (
                minimize(
                    fun,
                    start,
                    method="SLSQP",
                    bounds=bounds,
                    constraints=constraints,
                    options={"ftol": 1e-14, "maxiter": 500},
                )
                for start in starts
            ),
            key=lambda r: r.fun,
        )
        best_x = best.x[:4]
        assert 0.5 * np.sum((z - x) ** 2) <= best.fun + 1e-7 * (1 + best.fun)
        assert np.linalg.norm(z - best_x) <= 1e-3


# --------------------------------------------------------------------------- the algorithms


def test_iia_fixed_point_satisfies_theorem_2_1():
    X, y = _data()
    stack = _stack(X)
    model = KernelLearningRidge(
        kernels=_kernels(), solver="iia", alpha=0.3, radius=0.8, tol=1e-13, max_iter=2000
    )
    model.fit(X, y)
    mu0 = np.ones(4)
    alpha = _dual(stack, y, 0.3, model.weights_)
    v = np.einsum("i,kij,j->k", alpha, stack, alpha)
    np.testing.assert_allclose(model.weights_, mu0 + 0.8 * v / np.linalg.norm(v), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(model.dual_coef_, alpha, rtol=1e-8, atol=1e-10)


def test_riia_fixed_point_satisfies_theorem_2_2_and_minimizes_problem_7():
    X, y = _data()
    stack = _stack(X)
    lam, beta = 0.3, 0.05
    model = KernelLearningRidge(
        kernels=_kernels(), solver="riia", alpha=lam, beta=beta, tol=1e-13, max_iter=5000
    )
    model.fit(X, y)
    alpha = _dual(stack, y, lam, model.weights_)
    v = np.einsum("i,kij,j->k", alpha, stack, alpha)
    np.testing.assert_allclose(model.weights_, v / (2 * beta), rtol=1e-6, atol=1e-9)

    def F(mu):
        a = _dual(stack, y, lam, mu)
        return y @ a + beta * mu @ mu, -np.einsum("i,kij,j->k", a, stack, a) + 2 * beta * mu

    reference = minimize(
        F,
        np.ones(4),
        jac=True,
        method="L-BFGS-B",
        bounds=[(0, None)] * 4,
        options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 10000},
    )
    assert model.objective_history_[-1] <= reference.fun * (1 + 1e-9)
    assert model.objective_history_[-1] == pytest.approx(reference.fun, rel=1e-8)
    np.testing.assert_allclose(model.weights_, reference.x, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("q", [1.0, 2.0, 3.0])
def test_pgd_iterates_are_feasible_and_objective_decreases(q):
    X, y = _data()
    stack = _stack(X)
    objective = RidgeObjective(KernelCombination(stack, 2), y, lam=0.1)
    evaluated = []
    original = objective.evaluate

    def recording(mu):
        evaluated.append(np.array(mu))
        return original(mu)

    objective.evaluate = recording
    mu0, radius = np.ones(4), 0.9

    def project(mu):
        return project_onto_ball_orthant(mu, mu0, radius, q)

    result = projected_gradient(objective, mu0, project, learning_rate=1.0, tol=1e-10, max_iter=60)
    assert len(evaluated) > 5
    for mu in evaluated:
        assert np.all(mu >= 0)
        assert np.linalg.norm(mu - mu0, ord=q) <= radius * (1 + 1e-12)
    history = np.array(result.history)
    assert np.all(np.diff(history) <= 0)
    assert history[-1] < history[0]


@pytest.mark.parametrize("degree", [1, 2])
def test_estimator_objective_history_is_monotone(degree):
    X, y = _data()
    model = KernelLearningRidge(
        kernels=_kernels(), degree=degree, solver="pgd", alpha=0.1, learning_rate=5.0, max_iter=40, tol=1e-9
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    assert np.all(np.diff(model.objective_history_) <= 0)
    assert model.objective_history_[-1] < model.objective_history_[0]
    assert model.objective_history_[-1] == pytest.approx(
        _direct_objective(_stack(X), y, 0.1, model.weights_, degree), rel=1e-10
    )


def test_pgd_iia_and_trust_region_reach_the_minimum_of_problem_6():
    """d = 1, q = 2: F is convex on M, so PGD, IIA, the trust region and SLSQP agree."""
    X, y = _data()
    stack = _stack(X)
    lam, radius = 0.3, 0.8
    common = dict(kernels=_kernels(), alpha=lam, radius=radius, max_iter=3000)
    pgd = KernelLearningRidge(solver="pgd", tol=1e-12, **common).fit(X, y)
    iia = KernelLearningRidge(solver="iia", tol=1e-13, **common).fit(X, y)
    trust = KernelLearningRidge(solver="trust_region", tol=1e-10, **common).fit(X, y)
    mu0 = np.ones(4)
    reference = min(
        (
            minimize(
                lambda mu: _direct_objective(stack, y, lam, mu),
                start,
                method="SLSQP",
                bounds=[(0, None)] * 4,
                constraints=[{"type": "ineq", "fun": lambda mu: radius**2 - np.sum((mu - mu0) ** 2)}],
                options={"ftol": 1e-15, "maxiter": 1000},
            )
            for start in (mu0, mu0 + 0.3)
        ),
        key=lambda r: r.fun,
    )
    for model in (pgd, iia, trust):
        value = _direct_objective(stack, y, lam, model.weights_)
        assert value == pytest.approx(reference.fun, rel=1e-7)
        np.testing.assert_allclose(model.weights_, reference.x, atol=1e-4)
        assert np.linalg.norm(model.weights_ - mu0) == pytest.approx(radius, rel=1e-8)  # on the boundary


def test_trust_region_quadratic_combination_is_a_riemannian_stationary_point():
    X, y = _data()
    stack = _stack(X)
    model = KernelLearningRidge(
        kernels=_kernels(), degree=2, solver="trust_region", alpha=0.5, radius=0.7, tol=1e-11, max_iter=200
    ).fit(X, y)
    objective = RidgeObjective(KernelCombination(stack, 2), y, lam=0.5)
    state = objective.evaluate(model.weights_)
    u = (model.weights_ - 1.0) / 0.7
    assert np.linalg.norm(model.weights_ - 1.0) == pytest.approx(0.7, rel=1e-12)
    riemannian = state.gradient - u * (u @ state.gradient)
    assert np.linalg.norm(riemannian) <= 1e-8 * (1 + abs(state.value))
    assert np.all(np.diff(model.objective_history_) <= 0)
    # and it is at least as good as PGD from the same centre
    pgd = KernelLearningRidge(
        kernels=_kernels(), degree=2, solver="qpgd", alpha=0.5, radius=0.7, tol=1e-10, max_iter=2000
    ).fit(X, y)
    assert model.objective_history_[-1] <= pgd.objective_history_[-1] * (1 + 1e-6)


def test_rpgd_quadratic_descends_and_stays_nonnegative():
    X, y = _data()
    model = KernelLearningRidge(
        kernels=_kernels(), degree=2, solver="rqpgd", alpha=0.2, beta=0.5, tol=1e-10, max_iter=300
    ).fit(X, y)
    assert np.all(model.weights_ >= 0)
    assert np.all(np.diff(model.objective_history_) <= 0)
    # first-order optimality on μ ≥ 0: ∇F_k = 0 where μ_k > 0 and ≥ 0 where μ_k = 0
    objective = RidgeObjective(KernelCombination(_stack(X), 2), y, lam=0.2, beta=0.5)
    g = objective.evaluate(model.weights_).gradient
    active = model.weights_ > 1e-8
    assert np.all(np.abs(g[active]) <= 1e-4 * np.abs(g).max() + 1e-6)
    assert np.all(g[~active] >= -1e-6)


@pytest.mark.parametrize("factor", [1e-170, 1e-3, -7.0, 1e3, 1e160])
@pytest.mark.parametrize("solver", ["pgd", "iia", "trust_region"])
def test_targets_in_other_units_give_the_same_weights(solver, factor):
    """F(μ) for targets s·y is s²F(μ): the same minimizer. The solvers follow F/m², m² = mean(y²), so
    they take the same steps: the weights of y and s times its predictions, to rounding. (On F itself,
    PGD's first step grew as s²: at s = 1e-3 it stopped after one step, its predictions 2 % away, and
    near 1e160 yᵀα overflowed into a false "not positive definite" error.)"""
    X, y = _data()
    common = dict(kernels=_kernels(), solver=solver, alpha=0.3, radius=0.8, tol=1e-8, max_iter=500)
    base = KernelLearningRidge(**common).fit(X, y)
    scaled = KernelLearningRidge(**common).fit(X, factor * y)
    np.testing.assert_allclose(scaled.weights_, base.weights_, rtol=1e-12)
    np.testing.assert_allclose(scaled.predict(X) / factor, base.predict(X), rtol=1e-10)
    np.testing.assert_allclose(scaled.dual_coef_ / factor, base.dual_coef_, rtol=1e-10)
    if abs(factor) <= 1e3:  # F itself, scaled back from F/m²
        np.testing.assert_allclose(scaled.objective_history_, factor**2 * base.objective_history_, rtol=1e-10)


def test_beta_keeps_its_meaning_for_targets_in_other_units():
    """β weighs ‖μ‖² against yᵀ(K_μ + λI)⁻¹y: targets s·y with β are targets y with β/s² (the same F up
    to s²); a β that is beyond double precision against the targets' mean square is an error naming it."""
    X, y = _data()
    common = dict(kernels=_kernels(), solver="rpgd", alpha=0.3, tol=1e-10, max_iter=500)
    base = KernelLearningRidge(beta=0.05 / 1e-6, **common).fit(X, y)
    scaled = KernelLearningRidge(beta=0.05, **common).fit(X, 1e-3 * y)
    # to the solver's tolerance: the two β/m² differ by rounding
    np.testing.assert_allclose(scaled.weights_, base.weights_, rtol=1e-6)
    np.testing.assert_allclose(scaled.predict(X) / 1e-3, base.predict(X), rtol=1e-6)
    with pytest.raises(ValueError, match="beta=0.05 is beyond double precision"):
        KernelLearningRidge(beta=0.05, **common).fit(X, 1e-170 * y)


# --------------------------------------------------------------------------- the estimators


def test_predictions_equal_kernel_ridge_with_the_learned_kernel():
    X, y = _data(n=60)
    Xtr, Xte, ytr = X[:40], X[40:], y[:40]
    model = KernelLearningRidge(kernels=_kernels(), degree=2, alpha=0.4, max_iter=20).fit(Xtr, ytr)
    mu = model.weights_
    K = sum(m * k(Xtr) for m, k in zip(mu, _kernels(), strict=True)) ** 2
    Kt = sum(m * k(Xte, Xtr) for m, k in zip(mu, _kernels(), strict=True)) ** 2
    reference = KernelRidge(kernel="precomputed", alpha=0.4).fit(K, ytr)
    np.testing.assert_allclose(model.predict(Xte), reference.predict(Kt), rtol=1e-9, atol=1e-10)


def test_precomputed_stack_matches_kernel_objects_and_cross_validates():
    X, y = _data(n=60)
    Xtr, Xte, ytr = X[:40], X[40:], y[:40]
    train = np.stack([k(Xtr) for k in _kernels()], axis=2)
    test = np.stack([k(Xte, Xtr) for k in _kernels()], axis=2)
    params = dict(degree=2, alpha=0.4, max_iter=20)
    objects = KernelLearningRidge(kernels=_kernels(), **params).fit(Xtr, ytr)
    stacked = KernelLearningRidge(kernels="precomputed", **params).fit(train, ytr)
    np.testing.assert_allclose(stacked.weights_, objects.weights_, rtol=1e-10)
    np.testing.assert_allclose(stacked.predict(test), objects.predict(Xte), rtol=1e-9)
    full = np.stack([k(X) for k in _kernels()], axis=2)
    scores_stack = cross_val_score(KernelLearningRidge(kernels="precomputed", **params), full, y, cv=3)
    scores_objects = cross_val_score(KernelLearningRidge(kernels=_kernels(), **params), X, y, cv=3)
    np.testing.assert_allclose(scores_stack, scores_objects, rtol=1e-8)


def test_svm_gradient_matches_central_differences_and_value_is_the_dual_optimum():
    X, yc = make_classification(n_samples=50, n_features=4, random_state=0)
    Y = np.where(yc == 1, 1.0, -1.0)[:, None]
    stack = _stack(X, [Gaussian(eta=1.0), Gaussian(eta=3.0), Polynomial(degree=1, gamma=0.2)])
    objective = SVMObjective(KernelCombination(stack, 1), Y, lam=0.5, svm_tol=1e-12)
    mu = np.array([0.7, 1.1, 0.5])
    state = objective.evaluate(mu)
    # value: the maximum of 2αᵀ1 − αᵀ(YKY + λI)α over α ≥ 0, αᵀy = 0 (SLSQP, independent)
    K = np.tensordot(mu, stack, axes=1) + 0.5 * np.eye(50)
    Q = Y * K * Y.T
    y = Y[:, 0]
    reference = minimize(
        lambda a: -(2 * a.sum() - a @ Q @ a),
        np.full(50, 0.1),
        jac=lambda a: -(2 - 2 * Q @ a),
        method="SLSQP",
        bounds=[(0, None)] * 50,
        constraints=[{"type": "eq", "fun": lambda a: a @ y, "jac": lambda a: y}],
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    assert state.value == pytest.approx(-reference.fun, rel=1e-6)
    h = 1e-4
    numeric = np.array(
        [
            (objective.evaluate(mu + h * e).value - objective.evaluate(mu - h * e).value) / (2 * h)
            for e in np.eye(3)
        ]
    )
    assert np.linalg.norm(state.gradient - numeric) <= 1e-5 * np.linalg.norm(numeric)


def test_svc_learns_monotonically_and_predicts_like_libsvm_on_the_learned_kernel():
    X, y = make_classification(n_samples=80, n_features=5, random_state=1)
    Xtr, Xte, ytr = X[:60], X[60:], y[:60]
    kernels = [Gaussian(eta=0.5), Gaussian(eta=2.0), Polynomial(degree=2, gamma=0.1)]
    model = KernelLearningSVC(kernels=kernels, alpha=0.5, max_iter=15).fit(Xtr, ytr)
    assert np.all(np.diff(model.objective_history_) <= 0)
    assert np.all(model.weights_ >= 0) and np.linalg.norm(model.weights_ - 1) <= 1 + 1e-12
    mu = model.weights_
    K = sum(m * k(Xtr) for m, k in zip(mu, kernels, strict=True))
    Kt = sum(m * k(Xte, Xtr) for m, k in zip(mu, kernels, strict=True))
    reference = SVC(kernel="precomputed", C=1e6, tol=1e-8).fit(K + 0.5 * np.eye(60), ytr)
    np.testing.assert_allclose(
        model.decision_function(Xte), reference.decision_function(Kt), rtol=1e-3, atol=1e-3
    )
    np.testing.assert_array_equal(model.predict(Xte), reference.predict(Kt))
    assert model.score(Xtr, ytr) > 0.9


def test_svc_multiclass_one_vs_rest():
    rng = np.random.default_rng(0)
    centers = np.array([[0, 0], [4, 0], [0, 4]])
    X = np.vstack([c + rng.standard_normal((20, 2)) for c in centers])
    y = np.repeat(["a", "b", "c"], 20)
    model = KernelLearningSVC(max_iter=5).fit(X, y)
    assert model.dual_coef_.shape == (3, 60)
    assert model.score(X, y) > 0.9


# --------------------------------------------------------------------------- errors and warnings


def test_indefinite_base_kernel_is_reported():
    X, y = _data(n=30)
    with pytest.warns(UserWarning, match="not positive semidefinite"):
        KernelLearningRidge(kernels=[Gaussian(), Sigmoid(eta=0.7)], alpha=20.0, max_iter=3).fit(X, y)
    stack = np.stack([Gaussian()(X), Sigmoid(eta=0.7)(X)], axis=2)
    with pytest.warns(UserWarning, match=r"X\[:, :, 1\]"):
        KernelLearningRidge(kernels="precomputed", alpha=20.0, max_iter=3).fit(stack, y)


@pytest.mark.parametrize(
    "params, message",
    [
        (dict(solver="iia", degree=2), "linear combinations only"),
        (dict(solver="riia", degree=2), "linear combinations only"),
        (dict(solver="qpgd", degree=1), "degree >= 2"),
        (dict(solver="iia", q=1.5), "q must be 2"),
        (dict(solver="trust_region", radius=2.0), "must not exceed min"),
        (dict(mu0=[1.0, 2.0]), "one entry per base kernel"),
        (dict(mu0=-1.0), "non-negative"),
        (dict(solver="iia", interpolation=1.5), "'interpolation' parameter"),
        (dict(kernels=[]), "at least one base kernel"),
        (dict(kernels=["gaussian", "precomputed"]), "cannot be one entry"),
    ],
)
def test_bad_parameters_are_named(params, message):
    X, y = _data(n=20)
    with pytest.raises(ValueError, match=message):
        KernelLearningRidge(**params).fit(X, y)


def test_base_kernels_that_overflow_are_named():
    """A base kernel that overflows on X (a linear kernel on points near 1e155) is named (PGD looped
    forever on its NaN objective); a combination (Σμ_k K_k)^∘d that overflows at the start is named
    with the degree (the fit "converged" at μ₀ and predicted NaN), and so are test rows whose learned
    kernel overflows; the SVM's combination must stay below libsvm's 1e100."""
    X, y = _data(24)
    with pytest.raises(ValueError, match=r"base kernel kernels\[0\] = Linear\(\) contains NaN or infinity"):
        KernelLearningRidge(kernels=[Linear(), Gaussian()]).fit(1e155 * X, y)
    with pytest.raises(ValueError, match="combined kernel .* beyond double precision .*degree=2"):
        KernelLearningRidge(kernels=[Linear(), Gaussian()], degree=2).fit(1e82 * X, y)
    model = KernelLearningRidge(kernels=[Linear(), Gaussian()], degree=2, max_iter=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
    with pytest.raises(ValueError, match="X: the learned kernel .* beyond double precision"):
        model.predict(1e160 * X)  # K(x, x_i) near 1e160: its square overflows
    with pytest.raises(ValueError, match="combined kernel .* beyond 1e\\+100 .*degree=2"):
        KernelLearningSVC(kernels=[Linear(), Gaussian()], degree=2).fit(1e45 * X, y > 0)


def test_bad_precomputed_stacks_are_named():
    X, y = _data(n=20)
    good = np.stack([k(X) for k in _kernels()], axis=2)
    with pytest.raises(ValueError, match=r"shape \(n_samples, n_samples, n_kernels\)"):
        KernelLearningRidge(kernels="precomputed").fit(good[:, :10, :], y)
    asymmetric = good.copy()
    asymmetric[0, 1, 2] += 1.0
    with pytest.raises(ValueError, match=r"X\[:, :, 2\] must be a symmetric"):
        KernelLearningRidge(kernels="precomputed").fit(asymmetric, y)
    model = KernelLearningRidge(kernels="precomputed", max_iter=3).fit(good, y)
    with pytest.raises(ValueError, match="n_kernels|one column per training sample|features"):
        model.predict(good[:, :15, :])
    with pytest.raises(ValueError, match=r"\(n_test, 20, 4\)"):
        model.predict(good[:, :, :3])


def test_a_start_where_the_regularized_kernel_is_singular_is_an_error():
    n = 6
    K = np.eye(n)
    stack = np.stack([K, -K], axis=2)  # μ = (1, 1) gives K_μ + λI = λI; μ = (1, 1 + λ) gives 0
    y = np.ones(n)
    with pytest.raises(ValueError, match="not positive definite"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        KernelLearningRidge(kernels="precomputed", alpha=0.5, mu_init=[1.0, 1.5], max_iter=1).fit(stack, y)
    for mu0 in ([1.0, 1.0], [1.0, 1.5]):  # the default start (μ₀) moves inside when it is not
        model = KernelLearningRidge(kernels="precomputed", alpha=0.5, mu0=mu0, max_iter=20)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(stack, y)
        assert (model.weights_[0] - model.weights_[1]) + 0.5 > 0

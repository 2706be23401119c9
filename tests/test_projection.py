"""The O(n log n) projection onto {sᵀβ = r, 0 ≤ β ≤ u} against an independent bisection and the KKT conditions."""

import numpy as np
import pytest

from krein.optimize import project_box_hyperplane


def _bisection_projection(x, signs, upper, rhs):
    """Independent solution: bisection on the multiplier μ of the equality constraint."""
    low, high = -1e6, 1e6
    for _ in range(200):
        mu = (low + high) / 2
        if signs @ np.clip(x + mu * signs, 0, upper) < rhs:
            low = mu
        else:
            high = mu
    return np.clip(x + (low + high) / 2 * signs, 0, upper)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("rhs", [0.0, 0.7])
def test_projection_matches_bisection_and_is_feasible(seed, rhs):
    rng = np.random.default_rng(seed)
    n = 30
    x = 3 * rng.standard_normal(n)
    signs = rng.choice([-1.0, 1.0], n)
    upper = rng.uniform(0.5, 2.0, n)  # per-sample bounds (class weights / componentwise penalties)
    beta = project_box_hyperplane(x, signs, upper, rhs)
    np.testing.assert_allclose(beta, _bisection_projection(x, signs, upper, rhs), atol=1e-9)
    assert abs(signs @ beta - rhs) < 1e-10
    assert np.all(beta >= 0) and np.all(beta <= upper)
    # Optimality: no feasible direction decreases ‖β − x‖ (compare with random feasible points).
    for _ in range(20):
        other = project_box_hyperplane(rng.uniform(0, 1, n) * upper, signs, upper, rhs)
        assert np.linalg.norm(beta - x) <= np.linalg.norm(other - x) + 1e-12


def test_projection_of_a_feasible_point_is_itself():
    rng = np.random.default_rng(0)
    signs = np.array([1.0, 1.0, -1.0, -1.0])
    beta = np.array([0.2, 0.5, 0.4, 0.3])
    np.testing.assert_allclose(project_box_hyperplane(beta, signs, 1.0), beta, atol=1e-14)
    del rng


def test_projection_errors():
    with pytest.raises(ValueError, match="empty"):
        project_box_hyperplane(np.zeros(3), np.ones(3), 1.0, rhs=5.0)
    with pytest.raises(ValueError, match="signs"):
        project_box_hyperplane(np.zeros(3), np.array([1.0, 0.0, -1.0]), 1.0)
    with pytest.raises(ValueError, match="upper"):
        project_box_hyperplane(np.zeros(3), np.ones(3), -1.0)


# --------------------------------------------------------------------------- projected gradient


def _svm_dual_problem(seed=0, n=25):
    """``min ½xᵀQx − eᵀx`` on ``{yᵀx = 0, 0 ≤ x ≤ C}`` (an SVM dual) and its KKT residual."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    Q = (X @ X.T + 0.1 * np.eye(n)) * np.outer(y, y)
    upper = np.full(n, 2.0)

    def oracle(x):
        Qx = Q @ x
        return 0.5 * x @ Qx - x.sum(), Qx - 1.0

    def project(x):
        return project_box_hyperplane(x, y, upper)

    def kkt_residual(x):  # ‖P(x − ∇f) − x‖: zero exactly at the minimizer
        return np.linalg.norm(project(x - oracle(x)[1]) - x)

    return Q, y, upper, oracle, project, kkt_residual


@pytest.mark.parametrize("rule", ["backtracking", "spectral", "accelerated"])
def test_projected_gradient_reaches_the_svm_dual_optimum(rule):
    from scipy.optimize import minimize

    from krein.optimize import projected_gradient

    Q, y, upper, oracle, project, kkt_residual = _svm_dual_problem()
    lipschitz = np.linalg.eigvalsh(Q)[-1]
    start = project(np.zeros(y.size))
    values = []

    def stop(iteration, x, state, step):
        if state is not None:
            values.append(state[0])
        return kkt_residual(x) <= 1e-10

    result = projected_gradient(
        oracle, start, project, learning_rate=1.0 / lipschitz, rule=rule, max_iter=20000, tol=1e-14,
        callback=stop, normal=y if rule == "spectral" else None,
    )  # fmt: skip
    assert result.converged
    reference = minimize(
        lambda x: oracle(x)[0], start, jac=lambda x: oracle(x)[1], method="SLSQP",
        bounds=[(0, c) for c in upper], constraints=[{"type": "eq", "fun": lambda x: y @ x, "jac": lambda x: y}],
        options={"ftol": 1e-15, "maxiter": 1000},
    )  # fmt: skip
    assert oracle(result.x)[0] <= reference.fun + 1e-9
    # backtracking stops once rounding in f rejects every step (its small-step test), a little earlier
    assert kkt_residual(result.x) <= (1e-6 if rule == "backtracking" else 1e-8)
    assert abs(y @ result.x) <= 1e-9 and np.all(result.x >= 0) and np.all(result.x <= upper)
    if rule == "backtracking":  # the accepted iterates decrease f monotonically
        assert np.all(np.diff(values) <= 0)


def test_projected_gradient_diminishing_rule_is_the_papers_schedule():
    from krein.optimize import projected_gradient

    _, y, _, oracle, project, _ = _svm_dual_problem(n=10)
    x = project(np.zeros(y.size))
    result = projected_gradient(oracle, x, project, learning_rate=0.5, rule="diminishing", max_iter=3)
    for k in (1, 2, 3):  # x_{k+1} = P(x_k − (t/k)∇f(x_k)), every iterate accepted
        x = project(x - (0.5 / k) * oracle(x)[1])
    np.testing.assert_array_equal(result.x, x)
    assert result.n_iter == 3 and not result.converged


def test_projected_gradient_rejects_bad_arguments():
    from krein.optimize import projected_gradient

    _, y, _, oracle, project, _ = _svm_dual_problem(n=10)
    with pytest.raises(ValueError, match="rule"):
        projected_gradient(oracle, np.zeros(10), project, learning_rate=1.0, rule="newton")
    with pytest.raises(ValueError, match="learning_rate"):
        projected_gradient(oracle, np.zeros(10), project, learning_rate=0.0)

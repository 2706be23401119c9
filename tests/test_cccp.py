"""The CCCP / CCICP driver (Algorithm 1 of Liu et al. 2019) on a d.c. least-squares problem with a known optimum."""

import numpy as np
import pytest

from krein.optimize import DCObjective, concave_convex_procedure


class LeastSquaresDC(DCObjective):
    """F(x) = (1/n) Σ ½(aⱼᵀx − tⱼ)² + ½ρ‖x‖² − ½ xᵀBx with B ⪰ 0 and a unique minimizer."""

    def __init__(self, seed=0, n=60, d=8, metric_scale=1.0):
        rng = np.random.default_rng(seed)
        self.A = rng.normal(size=(n, d))
        self.t = rng.normal(size=n)
        self.rho = 2.0
        W = rng.normal(size=(d, d))
        self.B = 0.5 * W @ W.T / d
        self.n_samples = n
        hessian = self.A.T @ self.A / n + self.rho * np.eye(d)
        self.metric = metric_scale * np.full(d, np.linalg.eigvalsh(hessian)[-1])
        assert np.linalg.eigvalsh(hessian - self.B)[0] > 0.1  # strongly convex overall
        self.minimizer = np.linalg.solve(hessian - self.B, self.A.T @ self.t / n)

    def convex(self, x):
        residual = self.A @ x - self.t
        value = 0.5 * np.mean(residual**2) + 0.5 * self.rho * x @ x
        return value, self.A.T @ residual / self.n_samples + self.rho * x

    def concave(self, x):
        return 0.5 * x @ self.B @ x, self.B @ x

    def convex_batch_gradient(self, x, batch):
        residual = self.A[batch] @ x - self.t[batch]
        return self.A[batch].T @ residual / batch.size + self.rho * x


def test_cccp_reaches_the_known_minimizer_monotonically():
    problem = LeastSquaresDC()
    result = concave_convex_procedure(
        problem, np.zeros(8), inexact_tol=1e-15, max_outer_iter=500, max_inner_iter=10_000, tol=1e-15
    )
    np.testing.assert_allclose(result.x, problem.minimizer, atol=1e-7)
    assert np.all(np.diff(result.history) <= 1e-14)
    assert result.n_iter < 500


def test_inexact_ccicp_one_step_per_subproblem_reaches_the_same_point():
    problem = LeastSquaresDC()
    result = concave_convex_procedure(problem, np.zeros(8), inexact_tol=1e9, max_outer_iter=5000, tol=1e-16)
    assert result.n_inner_iter == result.n_iter  # ε huge: exactly one gradient step per subproblem
    np.testing.assert_allclose(result.x, problem.minimizer, atol=1e-6)
    assert np.all(np.diff(result.history) <= 1e-14)


def test_gradient_step_is_halved_when_the_metric_is_not_a_majorizer():
    problem = LeastSquaresDC(metric_scale=0.05)  # steps 20x too long: plain steps would diverge
    result = concave_convex_procedure(problem, np.zeros(8), inexact_tol=1e-15, max_outer_iter=200, tol=1e-15)
    assert np.all(np.diff(result.history) <= 1e-14)
    np.testing.assert_allclose(result.x, problem.minimizer, atol=1e-6)


def test_stochastic_solver_decreases_the_objective_on_average_over_seeds():
    problem = LeastSquaresDC()
    optimum = problem.objective(problem.minimizer)
    histories = np.array(
        [
            concave_convex_procedure(
                problem, np.zeros(8), inner="sgd", inexact_tol=1e-4, max_outer_iter=15, random_state=seed
            ).history
            for seed in range(10)
        ]
    )
    mean = histories.mean(axis=0)
    gap = mean - optimum
    # Lemma 2: E[F] decreases while the iterates are away from the SGD noise floor (~1 % of the gap).
    far = gap[:-1] > 0.05 * gap[0]
    assert np.all(np.diff(mean)[far] < 0)
    assert np.all(gap[1:] < 0.1 * gap[0]) and gap[-1] < 0.02 * gap[0]


def test_unknown_inner_solver_is_an_error():
    with pytest.raises(ValueError, match="inner"):
        concave_convex_procedure(LeastSquaresDC(), np.zeros(8), inner="newton")


def test_divergence_is_reported():
    class Unbounded(LeastSquaresDC):
        def concave(self, x):  # h grows faster than g: F is unbounded below
            return 5.0 * x @ x, 10.0 * x

    with pytest.raises(FloatingPointError, match="diverged"):
        concave_convex_procedure(Unbounded(), np.ones(8), max_outer_iter=10_000)


def test_plain_gradient_steps_reach_the_known_minimizer_monotonically():
    problem = LeastSquaresDC()
    common = {"inexact_tol": 1e-15, "max_outer_iter": 500, "max_inner_iter": 10_000, "tol": 1e-15}
    preconditioned = concave_convex_procedure(problem, np.zeros(8), **common)
    # the absolute step 1/L is the majorizer's step here (P = L·I); η = 4/L overshoots and is halved
    L = problem.metric[0]
    for learning_rate in (1.0 / L, 0.1 / L, 4.0 / L):
        result = concave_convex_procedure(
            problem, np.zeros(8), step="plain", learning_rate=learning_rate, **common
        )
        np.testing.assert_allclose(result.x, problem.minimizer, atol=1e-7)
        assert np.all(np.diff(result.history) <= 1e-14)
    assert result.n_inner_iter >= preconditioned.n_inner_iter


def test_plain_stochastic_steps_are_eq_12():
    problem = LeastSquaresDC()
    x0 = np.ones(8)
    result = concave_convex_procedure(
        problem, x0, inner="sgd", step="plain", learning_rate=0.01, inexact_tol=1e9, max_outer_iter=1,
        random_state=0,
    )  # fmt: skip
    # one epoch of single-sample steps x ← x − η (ĝ − ∇h(x₀)), replayed with the same permutation
    x, linear = x0.copy(), problem.concave(x0)[1]
    for j in np.random.RandomState(0).permutation(problem.n_samples):
        x = x - 0.01 * (problem.convex_batch_gradient(x, np.array([j])) - linear)
    np.testing.assert_allclose(result.x, x, rtol=1e-12)
    assert result.n_inner_iter == 1


def test_unknown_step_is_an_error():
    with pytest.raises(ValueError, match="step"):
        concave_convex_procedure(LeastSquaresDC(), np.zeros(8), step="newton")


def _algorithm_1_replay(problem, x, *, eta, rho, eps, k_max):
    """Algorithm 1 of Liu et al. (2019) written out line by line (GD branch), for comparison."""
    steps = []
    for _ in range(k_max):
        linear = problem.concave(x)[1]  # line 5: h linearized at α_k

        def subproblem(z, linear=linear):
            value, gradient = problem.convex(z)
            return value - linear @ z, gradient - linear

        t, step, value = 0, eta, subproblem(x)[0]  # line 6 (η restarts with t)
        while True:  # lines 7-13: at least one step, then until |F_k(α⁽ᵗ⁺¹⁾) − F_k(α⁽ᵗ⁾)| ≤ ε
            x = x - step * subproblem(x)[1]  # line 9
            step, t = rho * step, t + 1  # lines 11-12
            new_value = subproblem(x)[0]
            change, value = abs(new_value - value), new_value
            if change <= eps:
                break
        steps.append(t)
    return x, steps


@pytest.mark.parametrize("eps", [1e-4, 1e-2, 1.0])
def test_paper_steps_are_algorithm_1_line_by_line(eps):
    problem = LeastSquaresDC()
    L = problem.metric[0]
    # η = 2.5/L overshoots at first (no safeguard: F_k rises) until ρ brings η_t below 2/L
    for eta in (0.5 / L, 2.5 / L):
        result = concave_convex_procedure(
            problem, np.ones(8), step="paper", learning_rate=eta, decay=0.8, inexact_tol=eps, max_outer_iter=6
        )
        x, steps = _algorithm_1_replay(problem, np.ones(8), eta=eta, rho=0.8, eps=eps, k_max=6)
        np.testing.assert_allclose(result.x, x, rtol=1e-12, atol=1e-15)
        assert result.n_inner_iter == sum(steps) and result.n_iter == 6
        if eps < 1e-2:  # a tight ε takes several decaying steps per subproblem
            assert steps[0] > 1


def test_an_outer_iteration_costs_only_its_inner_evaluations():
    # g is evaluated once at x₀ and once per tried step: what CCICP saves over CCCP is all there is
    class Counting(LeastSquaresDC):
        evaluations = 0

        def convex(self, x):
            self.evaluations += 1
            return super().convex(x)

    for inner, step in (("gd", "paper"), ("gd", "majorizer"), ("sgd", "plain")):
        problem = Counting()
        result = concave_convex_procedure(
            problem, np.ones(8), inner=inner, step=step, learning_rate=0.01 if step != "majorizer" else 1.0,
            inexact_tol=1e9, max_outer_iter=7, random_state=0,
        )  # fmt: skip
        assert result.n_inner_iter == 7
        assert problem.evaluations == 1 + 7  # (the majorizer's steps need no halving here)
        assert result.history[-1] == pytest.approx(problem.objective(result.x), rel=1e-13)

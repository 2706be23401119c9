"""The secular-equation solver: global optimality against many local solves, the hard case, errors."""

import numpy as np
import pytest
from scipy.optimize import minimize

from krein.optimize import solve_sphere_quadratic


def _best_local_minimum(A, c, radius, rng, n_starts=200):
    """Best of ``n_starts`` SLSQP solves of min xᵀAx − 2cᵀx s.t. ‖x‖² = R² from random starts."""
    best = np.inf
    constraint = {"type": "eq", "fun": lambda x: x @ x - radius**2, "jac": lambda x: 2 * x}
    for _ in range(n_starts):
        x0 = rng.standard_normal(c.size)
        x0 *= radius / np.linalg.norm(x0)
        result = minimize(
            lambda x: x @ A @ x - 2 * c @ x,
            x0,
            jac=lambda x: 2 * A @ x - 2 * c,
            method="SLSQP",
            constraints=[constraint],
            options={"ftol": 1e-14, "maxiter": 500},
        )
        if result.success and abs(result.x @ result.x - radius**2) < 1e-8 * radius**2:
            best = min(best, result.fun)
    return best


def _problem(seed, hard):
    """A random symmetric (indefinite) problem; ``hard`` zeroes b on the lowest eigenspace."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 16))
    A = rng.standard_normal((n, n))
    w, V = np.linalg.eigh(A + A.T)
    b = rng.standard_normal(n)
    if hard:
        b[0] = 0.0
        if seed % 2 and n > 2:  # a double smallest eigenvalue
            w[1] = w[0]
            b[1] = 0.0
        gap = w - w[0]
        phi0 = np.sum(np.divide(b, gap, out=np.zeros(n), where=gap > 0) ** 2)
        radius = np.sqrt(phi0) * rng.uniform(1.1, 3.0)
    else:
        radius = rng.uniform(0.1, 3.0)
    return (V * w) @ V.T, V, w, b, radius, rng


@pytest.mark.slow
@pytest.mark.parametrize("hard", [False, True], ids=["generic", "hard-case"])
@pytest.mark.parametrize("seed", [0, 1])
def test_global_optimum_beats_every_local_solve(seed, hard):
    A, V, w, b, radius, rng = _problem(seed, hard)
    solution = solve_sphere_quadratic(w, b, radius)
    assert solution.hard_case == hard
    x = V @ solution.x
    c = V @ b
    objective = x @ A @ x - 2 * c @ x
    best = _best_local_minimum(A, c, radius, rng)
    assert objective <= best + 1e-8 * max(1.0, abs(best))
    assert abs(np.linalg.norm(x) - radius) <= 1e-10 * radius
    # Stationarity (A − μI)x = c with μ ≤ λ_min(A) (Proposition 3 / Sec. 3.1 interval).
    np.testing.assert_allclose(A @ x - solution.multiplier * x, c, atol=1e-9 * (1 + np.abs(c).max()))
    assert solution.multiplier <= w.min() and solution.shift >= 0


def test_monotone_convergence_to_machine_precision():
    """Appendix B: from a start right of the root, the multipliers decrease monotonically."""
    rng = np.random.default_rng(7)
    w = np.sort(rng.standard_normal(30))
    b = rng.standard_normal(30)
    radius = 0.7
    solution = solve_sphere_quadratic(w, b, radius)
    assert solution.n_iter < 30
    assert abs(np.linalg.norm(solution.x) - radius) < 4 * np.finfo(float).eps * radius
    # Re-run the iteration of Appendix B in μ and check the monotone decrease.
    mu = w.min() - max(0.0, np.max(np.abs(b) / radius - (w - w.min())))
    mus = [mu]
    for _ in range(solution.n_iter):
        g = np.sum(b**2 / (w - mu) ** 2) - radius**2
        dg = 2 * np.sum(b**2 / (w - mu) ** 3)
        mu = mu + 2 * (g + radius**2) / dg * (1 - np.sqrt(g + radius**2) / radius)
        mus.append(mu)
    assert np.all(np.diff(mus[:-1]) < 0)
    assert mus[-1] == pytest.approx(solution.multiplier, rel=1e-12)


def test_near_hard_case_is_continuous_with_the_hard_case():
    """b on the bounding eigenvector tiny but non-zero: the solution tends to the hard-case one."""
    w = np.array([-1.0, 0.5, 2.0])
    b = np.array([0.0, 0.3, -0.4])
    hard = solve_sphere_quadratic(w, b, 2.0)
    assert hard.hard_case and hard.multiplier == -1.0
    near = solve_sphere_quadratic(w, b + np.array([1e-14, 0, 0]), 2.0)
    assert not near.hard_case
    np.testing.assert_allclose(near.x, hard.x, atol=1e-10)
    assert abs(np.linalg.norm(near.x) - 2.0) < 1e-13


def test_zero_linear_term_gives_the_lowest_eigenvector():
    solution = solve_sphere_quadratic(np.array([3.0, -2.0, 1.0]), np.zeros(3), 1.5)
    assert solution.hard_case
    np.testing.assert_allclose(solution.x, [0.0, 1.5, 0.0])


@pytest.mark.parametrize(
    "w, b, radius, message",
    [
        (np.ones(3), np.ones(2), 1.0, "equal length"),
        (np.array([1.0, np.nan]), np.ones(2), 1.0, "finite"),
        (np.ones(2), np.ones(2), 0.0, "radius"),
        (np.ones(2), np.ones(2), -1.0, "radius"),
    ],
)
def test_bad_input(w, b, radius, message):
    with pytest.raises(ValueError, match=message):
        solve_sphere_quadratic(w, b, radius)

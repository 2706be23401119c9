"""The O(n log n) projection onto {sᵀβ = r, 0 ≤ β ≤ u} against an independent bisection and the KKT conditions."""

import numpy as np
import pytest

from krein.optimize._projection import project_box_hyperplane


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

"""The O(n²) rank-one eigen-update against scipy.linalg.eigh of diag(d) + ρuuᵀ."""

import numpy as np
import pytest
import scipy.linalg

from krein.optimize import (
    rank_one_eigh,
    rank_one_positive_part,
    rank_one_smoothed_part,
    smoothed_positive_part,
    smoothed_square,
)


def _cases():
    rng = np.random.default_rng(0)
    d = np.sort(rng.standard_normal(60))
    yield "generic", d, rng.standard_normal(60), 0.8
    yield "negative rho", d, rng.standard_normal(60), -0.5
    u = rng.standard_normal(60)
    u[::4] = 0.0  # zero components: deflated eigenpairs (d_j, e_j)
    yield "zero components", d, u, 0.3
    d_close = np.sort(np.repeat(rng.standard_normal(20), 3) + 1e-15 * rng.standard_normal(60))
    yield "near-degenerate", d_close, rng.standard_normal(60), 1.1  # Givens deflation
    yield "tiny update", d, 1e-9 * rng.standard_normal(60), 1.0
    yield "n=1", np.array([2.0]), np.array([0.5]), 1.0
    yield "n=2", np.array([-1.0, 1.0]), np.array([0.3, 0.7]), 2.0
    yield "n=3", np.array([-1.0, 0.0, 1.0]), np.array([0.3, 0.7, -0.2]), 2.0


@pytest.mark.parametrize("name,d,u,rho", list(_cases()), ids=[c[0] for c in _cases()])
def test_rank_one_update_matches_eigh(name, d, u, rho):
    M = np.diag(d) + rho * np.outer(u, u)
    expected_values, expected_vectors = scipy.linalg.eigh(M)
    values, vectors = rank_one_eigh(d, u, rho)
    scale = np.max(np.abs(expected_values))
    np.testing.assert_allclose(values, expected_values, rtol=0, atol=1e-10 * scale)
    # Orthonormal and reconstructing M.
    np.testing.assert_allclose(vectors.T @ vectors, np.eye(d.size), atol=1e-12)
    np.testing.assert_allclose((vectors * values) @ vectors.T, M, atol=1e-12 * scale)
    # Eigenvectors up to sign where the eigenvalue is simple (relative gap well above rounding).
    gaps = np.diff(expected_values)
    simple = np.ones(d.size, bool)
    simple[:-1] &= gaps > 1e-6 * scale
    simple[1:] &= gaps > 1e-6 * scale
    signs = np.sign(np.sum(vectors * expected_vectors, axis=0))
    np.testing.assert_allclose((vectors * signs)[:, simple], expected_vectors[:, simple], atol=1e-8)


def _positive_squares(d):
    return float(np.sum(np.maximum(d, 0) ** 2))


@pytest.mark.parametrize(
    "name,d,u,rho", [c for c in _cases() if c[3] > 0], ids=[c[0] for c in _cases() if c[3] > 0]
)
def test_positive_part_matches_eigh(name, d, u, rho):
    M = np.diag(d) + rho * np.outer(u, u)
    values, vectors = scipy.linalg.eigh(M)
    positive = np.maximum(values, 0)
    change, action = rank_one_positive_part(d, u, rho)
    np.testing.assert_allclose(change + _positive_squares(d), positive @ positive, rtol=1e-10)
    np.testing.assert_allclose(
        action, (vectors * positive) @ (vectors.T @ u), atol=1e-10 * max(1, np.abs(action).max())
    )


@pytest.mark.parametrize("shift", [-2.0, 0.0, 2.0])
def test_positive_part_uses_either_side_of_the_spectrum(shift):
    # Mostly negative, balanced, mostly positive spectra select different sides; all must agree.
    rng = np.random.default_rng(1)
    d = np.sort(rng.standard_normal(80) + shift)
    u = rng.standard_normal(80)
    values, vectors = scipy.linalg.eigh(np.diag(d) + 0.2 * np.outer(u, u))
    positive = np.maximum(values, 0)
    change, action = rank_one_positive_part(d, u, 0.2)
    np.testing.assert_allclose(change + _positive_squares(d), positive @ positive, rtol=1e-10)
    np.testing.assert_allclose(action, (vectors * positive) @ (vectors.T @ u), atol=1e-9)


def test_rank_one_errors():
    with pytest.raises(ValueError, match="ascending"):
        rank_one_eigh(np.array([1.0, 0.0]), np.ones(2), 1.0)
    with pytest.raises(ValueError, match="equal length"):
        rank_one_eigh(np.zeros(2), np.ones(3), 1.0)
    with pytest.raises(ValueError, match="non-negative"):
        rank_one_positive_part(np.zeros(2), np.ones(2), -1.0)
    with pytest.raises(ValueError, match="smoothing"):
        rank_one_smoothed_part(np.zeros(2), np.ones(2), 1.0, -0.1)


@pytest.mark.parametrize("eps", [1e-3, 0.5])
@pytest.mark.parametrize(
    "name,d,u,rho", [c for c in _cases() if c[3] > 0], ids=[c[0] for c in _cases() if c[3] > 0]
)
def test_smoothed_part_matches_eigh(name, d, u, rho, eps):
    """Σλ₊², Σg_ε(λ) and φ_ε(X)u (Sec. 3 smoothing) against an explicit eigendecomposition."""
    values, vectors = scipy.linalg.eigh(np.diag(d) + rho * np.outer(u, u))
    positive = np.maximum(values, 0)
    change, smoothed_change, action = rank_one_smoothed_part(d, u, rho, eps)
    np.testing.assert_allclose(change + _positive_squares(d), positive @ positive, rtol=1e-10)
    np.testing.assert_allclose(
        smoothed_change + np.sum(smoothed_square(d, eps)),
        np.sum(smoothed_square(values, eps)),
        rtol=1e-10,
        atol=1e-12,
    )
    expected = (vectors * smoothed_positive_part(values, eps)) @ (vectors.T @ u)
    np.testing.assert_allclose(action, expected, atol=1e-10 * max(1, np.abs(expected).max()))


@pytest.mark.parametrize("shift", [-2.0, 0.0, 2.0])
@pytest.mark.parametrize("eps", [0.0, 1e-2, 1.0, 5.0])
def test_smoothed_part_on_either_side_and_at_zero_smoothing(shift, eps):
    # Mostly negative / balanced / mostly positive spectra and bands (0, ε) of every width select
    # different sides; ε = 0 gives rank_one_positive_part.
    rng = np.random.default_rng(2)
    d = np.sort(rng.standard_normal(80) + shift)
    u = rng.standard_normal(80)
    values, vectors = scipy.linalg.eigh(np.diag(d) + 0.2 * np.outer(u, u))
    sum_squares, smoothed_sum, action = rank_one_smoothed_part(d, u, 0.2, eps)
    smoothed_sum += np.sum(smoothed_square(d, eps))
    np.testing.assert_allclose(smoothed_sum, np.sum(smoothed_square(values, eps)), rtol=1e-10)
    expected = (vectors * smoothed_positive_part(values, eps)) @ (vectors.T @ u)
    np.testing.assert_allclose(action, expected, atol=1e-9)
    if eps == 0:
        reference_squares, reference_action = rank_one_positive_part(d, u, 0.2)
        assert smoothed_sum == pytest.approx(reference_squares + _positive_squares(d), rel=1e-12)
        np.testing.assert_allclose(action, reference_action, atol=1e-12)
        np.testing.assert_allclose(sum_squares, reference_squares, rtol=1e-12)


def test_smoothing_functions():
    """φ_ε = max_{0≤v≤1}(vt − εv²/2) and g_ε = 2∫₀ᵗφ_ε: closed forms, g_ε' = 2φ_ε, the ε-bounds."""
    eps = 0.3
    t = np.linspace(-1.0, 2.0, 3001)
    v = np.linspace(0.0, 1.0, 20001)
    by_definition = np.max(v[None, :] * t[:, None] - eps * v[None, :] ** 2 / 2, axis=1)
    np.testing.assert_allclose(smoothed_positive_part(t, eps), by_definition, atol=1e-8)
    g = smoothed_square(t, eps)
    h = 1e-6
    derivative = (smoothed_square(t + h, eps) - smoothed_square(t - h, eps)) / (2 * h)
    np.testing.assert_allclose(derivative, 2 * smoothed_positive_part(t, eps), atol=1e-8)
    positive = np.maximum(t, 0)
    assert np.all(positive**2 - g >= -1e-15) and np.all(positive**2 - g <= eps * positive + 1e-15)
    assert np.all(positive - smoothed_positive_part(t, eps) <= eps / 2 + 1e-15)
    np.testing.assert_array_equal(smoothed_positive_part(t, 0.0), positive)
    np.testing.assert_array_equal(smoothed_square(t, 0.0), positive**2)


@pytest.mark.parametrize("shift", [-2.0, 0.0, 2.0])
def test_change_keeps_its_digits_for_tiny_updates(shift):
    """Σλ₊² − Σd₊² for an update of weight 1e-12 is O(1e-12); summed from the accurate root shifts
    λᵢ − dᵢ it matches the first-order value 1e-12·Σ_{dᵢ>0} 2dᵢuᵢ² (plus the crossing roots, none here)
    to many digits, where the difference of the two sums would be rounding noise (~1e-15)."""
    rng = np.random.default_rng(3)
    d = np.sort(rng.standard_normal(60) + shift)
    d = d[np.abs(d) > 1e-2]
    u = rng.standard_normal(d.size)
    weight = 1e-12
    change, action = rank_one_positive_part(d, u, weight)
    first_order = weight * np.sum(2 * np.maximum(d, 0) * u**2)
    assert change == pytest.approx(first_order, rel=1e-6)
    np.testing.assert_allclose(action, np.maximum(d, 0) * u, atol=1e-10)

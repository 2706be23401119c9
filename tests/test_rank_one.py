"""The O(n²) rank-one eigen-update against scipy.linalg.eigh of diag(d) + ρuuᵀ."""

import numpy as np
import pytest
import scipy.linalg

from krein.optimize._rank_one import rank_one_eigh, rank_one_positive_part


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


@pytest.mark.parametrize("name,d,u,rho", [c for c in _cases() if c[3] > 0], ids=[c[0] for c in _cases() if c[3] > 0])
def test_positive_part_matches_eigh(name, d, u, rho):
    M = np.diag(d) + rho * np.outer(u, u)
    values, vectors = scipy.linalg.eigh(M)
    positive = np.maximum(values, 0)
    sum_squares, action = rank_one_positive_part(d, u, rho)
    np.testing.assert_allclose(sum_squares, positive @ positive, rtol=1e-10)
    np.testing.assert_allclose(action, (vectors * positive) @ (vectors.T @ u), atol=1e-10 * max(1, np.abs(action).max()))


@pytest.mark.parametrize("shift", [-2.0, 0.0, 2.0])
def test_positive_part_uses_either_side_of_the_spectrum(shift):
    # Mostly negative, balanced, mostly positive spectra select different sides; all must agree.
    rng = np.random.default_rng(1)
    d = np.sort(rng.standard_normal(80) + shift)
    u = rng.standard_normal(80)
    values, vectors = scipy.linalg.eigh(np.diag(d) + 0.2 * np.outer(u, u))
    positive = np.maximum(values, 0)
    sum_squares, action = rank_one_positive_part(d, u, 0.2)
    np.testing.assert_allclose(sum_squares, positive @ positive, rtol=1e-10)
    np.testing.assert_allclose(action, (vectors * positive) @ (vectors.T @ u), atol=1e-9)


def test_rank_one_errors():
    with pytest.raises(ValueError, match="ascending"):
        rank_one_eigh(np.array([1.0, 0.0]), np.ones(2), 1.0)
    with pytest.raises(ValueError, match="equal length"):
        rank_one_eigh(np.zeros(2), np.ones(3), 1.0)
    with pytest.raises(ValueError, match="non-negative"):
        rank_one_positive_part(np.zeros(2), np.ones(2), -1.0)

"""Euclidean projection onto ``M = {μ ≥ 0 : ‖μ − μ₀‖_q ≤ Λ}`` (Li, Venturi & Xu, Sec. 2.2.1).

The projection of ``x`` minimizes ``½‖z − x‖²`` over ``M``. With a multiplier ``γ ≥ 0`` for the ball
the problem separates: ``z_i(γ) = max(0, argmin_t ½(t − x_i)² + (γ/q)|t − c_i|^q)`` (the constraint
``t ≥ 0`` of a one-dimensional convex problem is a clip), and ``γ`` is the root of
``‖z(γ) − μ₀‖_q = Λ`` — 0 when the orthant projection already lies in the ball. ``‖z(γ) − μ₀‖_q``
decreases in ``γ`` (the inner minimizer moves towards μ₀), so the root is bracketed and found by
bisection. The inner problem is closed-form for q = 1 (soft threshold) and q = 2 (shrinkage) and a
vectorized bisection otherwise.
"""

from __future__ import annotations

import numpy as np

__all__ = ["project_onto_ball_orthant"]

_BISECTION_STEPS = 64


def _inner(x, center, gamma, q):
    """Unclipped ``argmin_t ½(t − x)² + (γ/q)|t − c|^q`` per coordinate."""
    r = x - center
    if q == 1:
        return center + np.sign(r) * np.maximum(np.abs(r) - gamma, 0.0)
    if q == 2:
        return center + r / (1.0 + gamma)
    # t = c + s·u with u ∈ [0, |r|] solving u + γ u^{q−1} = |r| (increasing in u).
    magnitude = np.abs(r)
    low, high = np.zeros_like(magnitude), magnitude.copy()
    for _ in range(_BISECTION_STEPS):
        mid = 0.5 * (low + high)
        too_big = mid + gamma * mid ** (q - 1) > magnitude
        high = np.where(too_big, mid, high)
        low = np.where(too_big, low, mid)
    return center + np.sign(r) * 0.5 * (low + high)


def _distance(z, center, q):
    return np.linalg.norm(z - center, ord=q) if np.isfinite(q) else np.max(np.abs(z - center))


def project_onto_ball_orthant(x, center, radius, q=2.0):
    """Project ``x`` onto ``{z ≥ 0 : ‖z − center‖_q ≤ radius}`` (``center ≥ 0``, ``q ≥ 1``).

    Returns a point that satisfies both constraints exactly (the ball constraint up to a final
    rescaling towards ``center`` that removes bisection round-off).
    """
    x = np.asarray(x, dtype=float)
    orthant = np.maximum(x, 0.0)
    if _distance(orthant, center, q) <= radius:
        return orthant
    low, high = 0.0, 1.0
    while _distance(np.maximum(_inner(x, center, high, q), 0.0), center, q) > radius:
        low, high = high, 2.0 * high
    for _ in range(4 * _BISECTION_STEPS):
        gamma = 0.5 * (low + high)
        if _distance(np.maximum(_inner(x, center, gamma, q), 0.0), center, q) > radius:
            low = gamma
        else:
            high = gamma
        if high - low <= 1e-15 * high:
            break
    z = np.maximum(_inner(x, center, high, q), 0.0)
    distance = _distance(z, center, q)
    if distance > radius:  # a convex combination with center ≥ 0 stays in the orthant
        z = center + (z - center) * (radius / distance)
    return z

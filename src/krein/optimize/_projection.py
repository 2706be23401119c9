"""Euclidean projections onto the feasible sets of the solvers.

**The SVM dual set** ``{β : sᵀβ = r, 0 ≤ β ≤ u}``, ``s ∈ {−1, +1}ⁿ`` (:func:`project_box_hyperplane`).
This is step 2 of the projected gradient method of Luss & d'Aspremont (2009), Sec. 3.2: the
projection of a point ``x`` is ``β(μ) = clip(x + μ s, 0, u)`` for the multiplier ``μ`` of the equality
constraint, and ``g(μ) = sᵀβ(μ)`` is a nondecreasing piecewise-linear function with at most 2n
breakpoints. Sorting the breakpoints and integrating the slope gives ``μ`` in O(n log n).
Per-sample upper bounds ``u`` carry class weights and the componentwise penalties of Sec. 4.4; the
right-hand side ``r`` covers the one-class problem (``eᵀα = 1``, Sec. 4.2).

**The kernel weights** ``M = {μ ≥ 0 : ‖μ − μ₀‖_q ≤ Λ}`` of Li, Venturi & Xu, Sec. 2.2.1
(:func:`project_onto_ball_orthant`). The projection of ``x`` minimizes ``½‖z − x‖²`` over ``M``. With
a multiplier ``γ ≥ 0`` for the ball the problem separates: ``z_i(γ) = max(0, argmin_t ½(t − x_i)² +
(γ/q)|t − c_i|^q)`` (the constraint ``t ≥ 0`` of a one-dimensional convex problem is a clip), and
``γ`` is the root of ``‖z(γ) − μ₀‖_q = Λ`` — 0 when the orthant projection already lies in the ball.
``‖z(γ) − μ₀‖_q`` decreases in ``γ`` (the inner minimizer moves towards μ₀), so the root is bracketed
and found by bisection. The inner problem is closed-form for q = 1 (soft threshold) and q = 2
(shrinkage) and a vectorized bisection otherwise.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["project_box_hyperplane", "project_onto_ball_orthant"]


def project_box_hyperplane(
    x: NDArray[np.float64], signs: NDArray[np.float64], upper: float | NDArray[np.float64], rhs: float = 0.0
) -> NDArray[np.float64]:
    """Project ``x`` onto ``{β : signsᵀβ = rhs, 0 ≤ β ≤ upper}`` in O(n log n).

    Parameters
    ----------
    x : ndarray of shape (n,)
        Point to project.
    signs : ndarray of shape (n,)
        Entries ±1 (the labels ``y`` for the SVM dual).
    upper : float or ndarray of shape (n,)
        Upper bounds (``C`` or per-sample ``C h_i``), non-negative.
    rhs : float, default=0.0
        Right-hand side of the equality constraint.

    Returns
    -------
    ndarray of shape (n,)
        The projection.

    Raises
    ------
    ValueError
        If the set is empty (``rhs`` outside ``[−Σ_{s=−1} u, Σ_{s=+1} u]``) or the inputs are invalid.
    """
    x = np.asarray(x, dtype=float)
    signs = np.asarray(signs, dtype=float)
    upper = np.broadcast_to(np.asarray(upper, dtype=float), x.shape)
    if x.ndim != 1 or signs.shape != x.shape:
        raise ValueError(f"x and signs must be vectors of equal length, got {x.shape} and {signs.shape}.")
    if not np.all(np.abs(signs) == 1):
        raise ValueError("signs must contain only -1 and +1.")
    if np.any(upper < 0) or not np.all(np.isfinite(upper)) or not np.all(np.isfinite(x)):
        raise ValueError("upper must be finite and non-negative and x finite.")
    low_total = -np.sum(upper[signs < 0])
    high_total = np.sum(upper[signs > 0])
    scale = max(1.0, high_total - low_total)
    if not low_total - 1e-12 * scale <= rhs <= high_total + 1e-12 * scale:
        raise ValueError(
            f"The feasible set is empty: rhs={rhs} lies outside [{low_total}, {high_total}] reachable "
            "with the given bounds."
        )
    # β_i is strictly inside (0, u_i) for μ in [start_i, start_i + u_i]; g grows with slope 1 there.
    start = np.where(signs > 0, -x, x - upper)
    events = np.concatenate([start, start + upper])
    slopes = np.concatenate([np.ones_like(start), -np.ones_like(start)])
    order = np.argsort(events, kind="stable")
    events, slopes = events[order], slopes[order]
    slope_after = np.cumsum(slopes)  # slope of g on (events[k], events[k+1])
    values = low_total + np.concatenate([[0.0], np.cumsum(slope_after[:-1] * np.diff(events))])
    k = int(np.searchsorted(values, rhs, side="left"))
    if k == 0:
        mu = events[0]
    elif k >= values.size:
        mu = events[-1]
    else:
        slope = slope_after[k - 1]
        mu = events[k - 1] + (rhs - values[k - 1]) / slope if slope > 0 else events[k]
    return np.clip(x + mu * signs, 0.0, upper)


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


def project_onto_ball_orthant(
    x: ArrayLike, center: NDArray[np.float64], radius: float, q: float = 2.0
) -> NDArray[np.float64]:
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

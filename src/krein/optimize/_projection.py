"""Euclidean projection onto the SVM dual feasible set {β : sᵀβ = r, 0 ≤ β ≤ u} with s ∈ {−1, +1}ⁿ.

This is step 2 of the projected gradient method of Luss & d'Aspremont (2009), Sec. 3.2: the
projection of a point ``x`` is ``β(μ) = clip(x + μ s, 0, u)`` for the multiplier ``μ`` of the equality
constraint, and ``g(μ) = sᵀβ(μ)`` is a nondecreasing piecewise-linear function with at most 2n
breakpoints. Sorting the breakpoints and integrating the slope gives ``μ`` in O(n log n).

Per-sample upper bounds ``u`` carry class weights and the componentwise penalties of Sec. 4.4; the
right-hand side ``r`` covers the one-class problem (``eᵀα = 1``, Sec. 4.2).
"""

from __future__ import annotations

import numpy as np

__all__ = ["project_box_hyperplane"]


def project_box_hyperplane(x, signs, upper, rhs=0.0):
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

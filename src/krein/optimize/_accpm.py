"""Analytic center cutting plane method (ACCPM) for a concave function on {x : sᵀx = r, 0 ≤ x ≤ u}.

Algorithm 2 of Luss & d'Aspremont (2009), Sec. 3.3 (after Goffin & Vial 2002; Boyd & Vandenberghe).
The localization set starts as the feasible polytope; each iteration computes its analytic center
(Newton's method on ``−Σ log(bᵢ − aᵢᵀx)`` restricted to the hyperplane), evaluates a (super)gradient
``g`` of the concave objective there and adds the cut ``gᵀ(x − x_c) ≥ 0``, which keeps every
maximizer (concavity: ``f(x) ≤ f(x_c) + gᵀ(x − x_c)``). When there are more than ``3n`` cuts, the
least relevant ones by measure (12), ``aⱼᵀ∇²φ(x_c)⁻¹aⱼ / (bⱼ − aⱼᵀx_c)²``, are dropped.

Stopping is left to the caller (``callback`` returns ``True`` to stop), because the duality gap of
the proxy-kernel SVM comes from an SVM solve (Sec. 2.4) rather than from the cutting planes.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.linalg
from numpy.typing import NDArray

from ._result import SolverResult

__all__ = ["accpm_maximize"]


def _restricted_inverse_apply(H, signs, vectors):
    """``M v`` for ``M = H⁻¹ − H⁻¹s (sᵀH⁻¹s)⁻¹ sᵀH⁻¹`` (the inverse Hessian on ``{sᵀx = 0}``)."""
    factor = scipy.linalg.cho_factor(H, check_finite=False)
    solved = scipy.linalg.cho_solve(factor, np.column_stack([signs, vectors]), check_finite=False)
    h_s, h_v = solved[:, 0], solved[:, 1:]
    return h_v - np.outer(h_s, signs @ h_v) / (signs @ h_s)


class _Localization:
    """The polytope ``{0 < x < u, sᵀx = r, C x ≥ c}`` and its analytic center."""

    def __init__(self, signs, upper):
        self.signs, self.upper = signs, upper
        self.cuts = np.empty((0, signs.size))
        self.offsets = np.empty(0)

    def add_cut(self, normal, point):
        self.cuts = np.vstack([self.cuts, normal])
        self.offsets = np.append(self.offsets, normal @ point)

    def _slacks(self, x):
        return x, self.upper - x, self.cuts @ x - self.offsets

    def _barrier(self, x):
        slacks = self._slacks(x)
        if any(np.any(s <= 0) for s in slacks):
            return np.inf
        return -sum(np.sum(np.log(s)) for s in slacks)

    def hessian(self, x):
        lower, upper, cut = self._slacks(x)
        H = (self.cuts.T / cut**2) @ self.cuts
        H[np.diag_indices_from(H)] += 1 / lower**2 + 1 / upper**2
        return H

    def center(self, x, max_newton=50, tolerance=1e-10):
        """Analytic center by damped Newton steps from a strictly feasible ``x`` on the hyperplane."""
        value = self._barrier(x)
        for _ in range(max_newton):
            lower, upper, cut = self._slacks(x)
            gradient = -1 / lower + 1 / upper - self.cuts.T @ (1 / cut)
            H = self.hessian(x)
            step = -_restricted_inverse_apply(H, self.signs, gradient[:, None])[:, 0]
            decrement = -gradient @ step
            if decrement / 2 <= tolerance:
                break
            t = 1.0
            while t > 1e-12:
                candidate = x + t * step
                candidate_value = self._barrier(candidate)
                if candidate_value <= value - 0.25 * t * decrement:
                    break
                t *= 0.5
            else:
                break
            x, value = candidate, candidate_value
        return x

    def prune(self, x, max_cuts):
        """Keep the ``max_cuts`` cuts with the largest relevance (12) at the center ``x``."""
        if self.offsets.size <= max_cuts:
            return
        _, _, cut = self._slacks(x)
        inverse_cuts = _restricted_inverse_apply(self.hessian(x), self.signs, self.cuts.T)
        relevance = np.einsum("ij,ji->i", self.cuts, inverse_cuts) / cut**2
        keep = np.sort(np.argsort(relevance)[-max_cuts:])
        self.cuts, self.offsets = self.cuts[keep], self.offsets[keep]


def accpm_maximize(
    oracle: Callable[[NDArray[np.float64]], tuple[float, NDArray[np.float64]]],
    signs: NDArray[np.float64],
    upper: NDArray[np.float64],
    rhs: float,
    *,
    max_iter: int,
    callback: Callable[[int, NDArray[np.float64], float], bool],
    max_cuts: int | None = None,
) -> SolverResult:
    """Maximize a concave function over ``{x : signsᵀx = rhs, 0 ≤ x ≤ upper}`` by ACCPM.

    Parameters
    ----------
    oracle : callable
        ``oracle(x) -> (f(x), ∇f(x))``.
    signs : ndarray of shape (n,)
        ±1 coefficients of the equality constraint.
    upper : ndarray of shape (n,)
        Positive upper bounds.
    rhs : float
        Right-hand side of the equality constraint.
    max_iter : int
        Number of cutting-plane iterations at most.
    callback : callable
        ``callback(iteration, x, f(x)) -> bool``; returning ``True`` stops the method.
    max_cuts : int, optional
        Cuts kept after pruning (default ``3n``, the rule of thumb of Sec. 3.3).

    Returns
    -------
    SolverResult
        ``x`` the best center found (shape (n,)); ``fun`` ``f`` there (maximized; −∞ if
        ``max_iter`` is 0); ``n_iter`` the cutting-plane iterations (oracle calls); ``converged``
        whether the callback stopped the method or the gradient was orthogonal to the feasible set
        (then ``x`` is optimal); ``history`` ``f`` at every center queried.

    Examples
    --------
    Maximize ``−½‖x − a‖²`` on ``{Σx = 1, 0 ≤ x ≤ 1}``, where ``a`` is feasible:

    >>> import numpy as np
    >>> from krein.optimize import accpm_maximize
    >>> a = np.array([0.5, 0.3, 0.2])
    >>> result = accpm_maximize(
    ...     lambda x: (-0.5 * (x - a) @ (x - a), a - x), np.ones(3), np.ones(3), 1.0,
    ...     max_iter=100, callback=lambda iteration, x, value: value > -1e-12,
    ... )
    >>> np.round(result.x, 5), result.converged
    (array([0.5, 0.3, 0.2]), True)
    """
    n = signs.size
    max_cuts = 3 * n if max_cuts is None else max_cuts
    if np.any(upper <= 0):
        raise ValueError("ACCPM needs strictly positive upper bounds.")
    # A strictly feasible start on the hyperplane: the center of the box moved along s.
    x = upper / 2
    x = x + signs * (rhs - signs @ x) / n
    if np.any(x <= 0) or np.any(x >= upper):
        x = np.clip(x, 1e-3 * upper, (1 - 1e-3) * upper)
        x = x + signs * (rhs - signs @ x) / n
    if np.any(x <= 0) or np.any(x >= upper) or abs(signs @ x - rhs) > 1e-9 * max(1, abs(rhs)):
        raise ValueError("ACCPM could not find a strictly feasible starting point (empty interior).")
    region = _Localization(signs, upper)
    x = region.center(x)
    x_best, f_best = x, -np.inf
    history = []
    iteration, converged, message = 0, False, "max_iter reached"
    for iteration in range(1, max_iter + 1):
        value, gradient = oracle(x)
        history.append(value)
        if value > f_best:
            x_best, f_best = x, value
        if callback(iteration, x_best, f_best):
            converged, message = True, "the callback stopped the method"
            break
        direction = gradient - signs * (signs @ gradient) / n
        if not np.any(direction):
            converged, message = True, "the gradient is orthogonal to the feasible set: x is optimal"
            break
        region.add_cut(gradient, x)
        # Step into the new half-space, staying strictly inside every other constraint.
        lower, up, cut = region._slacks(x)
        ratios = [lower / np.maximum(-direction, 1e-300), up / np.maximum(direction, 1e-300)]
        cut_rates = region.cuts[:-1] @ direction
        ratios.append(cut[:-1] / np.maximum(-cut_rates, 1e-300))
        step = 0.5 * min(float(np.min(r)) if r.size else np.inf for r in ratios)
        try:
            x = region.center(x + step * direction)
            region.prune(x, max_cuts)
        except np.linalg.LinAlgError:
            # The localization set has shrunk to rounding level around the maximizer of the function
            # whose gradients make the cuts (e.g. a smoothed objective whose maximizer does not close
            # the caller's gap): the barrier Hessian is numerically singular and no cut can help.
            message = "the localization set shrank to rounding level (singular barrier Hessian)"
            break
    return SolverResult(
        x_best, f_best, n_iter=iteration, converged=converged, message=message, history=history
    )

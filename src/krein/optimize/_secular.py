"""Global minimization of a quadratic form over a sphere through its secular equation.

The problem

    minimize  uᵀ diag(w) u − 2 bᵀ u   subject to  ‖u‖ = R                                    (★)

with arbitrary real ``w`` (the quadratic form may be indefinite) is the eigen-coordinate form of the
variance-constrained Kreĭn least squares problems (4) and (2) of Oglic & Gärtner (2018), Sec. 3.1.
Its stationary points satisfy ``(diag(w) − μ I) u = b`` and ``‖u‖ = R``; by Proposition 3 (Forsythe &
Golub 1965; Gander, Golub & von Matt 1989) the global minimum is the stationary point with the
*smallest* multiplier μ, which lies in ``(−∞, w_min]``. Writing ``μ = w_min − δ`` with ``δ ≥ 0`` and
``gᵢ = wᵢ − w_min`` gives ``uᵢ(δ) = bᵢ / (gᵢ + δ)`` and the secular equation (7)

    φ(δ) = Σᵢ bᵢ² / (gᵢ + δ)² = R²,

whose left-hand side decreases strictly on ``δ > 0``. Parametrizing by δ rather than μ keeps the
distance to the pole exact, which matters when the root is close to it.

Root finder (Appendix B of the 2018 paper): at the current δ the secular function is matched in value
and slope by the surrogate ``p / (q + δ)²``; the root of the surrogate is the next iterate. This is
Newton's method on ``ψ(δ) = 1/√φ(δ) − 1/R``, which is increasing and concave, so from any start with
``φ(δ₀) ≥ R²`` (left of the root) the iterates increase monotonically to the root (Bunch, Nielsen &
Sorensen 1978); we iterate until the increase stops, i.e. to machine precision. The start

    δ₀ = max(0, maxᵢ (|bᵢ| / R − gᵢ))

is a lower bound of the root, because each single term of φ must already be ≤ R² at the root.

Hard case: if ``b`` vanishes on the eigenvectors of ``w_min`` (all ``i`` with ``gᵢ = 0``) then φ stays
finite at δ = 0; when ``φ(0) ≤ R²`` the equation has no root in ``δ > 0``, the multiplier sits at the end
of its interval (μ* = w_min) and the minimizer is ``uᵢ = bᵢ/gᵢ`` (gᵢ > 0) plus a component
``±√(R² − φ(0))`` along an eigenvector of ``w_min`` (Gander et al. 1989, Sec. 4; the sign is arbitrary:
both choices are optimal).
"""

from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import ArrayLike

from ._result import SolverResult

__all__ = ["solve_sphere_quadratic"]

#: Iteration cap of the root finder (the iteration converges quadratically; ~10 steps are typical).
MAX_ITER = 200


def solve_sphere_quadratic(w: ArrayLike, b: ArrayLike, radius: float) -> SolverResult:
    """Globally minimize ``uᵀ diag(w) u − 2 bᵀ u`` subject to ``‖u‖ = radius``.

    Parameters
    ----------
    w : array-like of shape (r,)
        Eigenvalues of the quadratic form (any signs).
    b : array-like of shape (r,)
        Linear term.
    radius : float
        R > 0.

    Returns
    -------
    SolverResult
        ``x`` the minimizer ``u`` (shape (r,), ``‖u‖ = radius``); ``fun`` the minimum
        ``uᵀ diag(w) u − 2 bᵀ u``; ``n_iter`` the root-finder iterations (0 in the hard case);
        ``converged`` False only if the root finder reached its cap of :data:`MAX_ITER` iterations;
        ``history`` None (the root finder keeps none). Its own attributes: ``multiplier``, the optimal
        Lagrange multiplier μ* = w_min − δ*; ``shift``, δ* = w_min − μ* ≥ 0, the distance of μ* to
        the end of its interval, computed without cancellation; ``hard_case``, whether μ* = w_min
        exactly (``b`` orthogonal to the eigenvectors of ``w_min`` and ``φ(0) ≤ R²``).

    Examples
    --------
    >>> from krein.optimize import solve_sphere_quadratic
    >>> # 3u₁² + u₂² − 2u₁ − 2u₂ on the unit circle
    >>> result = solve_sphere_quadratic([3.0, 1.0], [1.0, 1.0], 1.0)
    >>> round(result.fun, 6), round(float(result.x @ result.x), 12), result.hard_case
    (-1.330191, 1.0, False)
    """
    w = np.asarray(w, dtype=float)
    b = np.asarray(b, dtype=float)
    if w.ndim != 1 or w.shape != b.shape or w.size == 0:
        raise ValueError(
            f"w and b must be non-empty 1-D arrays of equal length, got {w.shape} and {b.shape}."
        )
    if not (np.all(np.isfinite(w)) and np.all(np.isfinite(b))):
        raise ValueError("w and b must be finite.")
    radius = float(radius)
    if not (np.isfinite(radius) and radius > 0):
        raise ValueError(f"radius must be finite and strictly positive, got {radius!r}.")

    i_min = int(np.argmin(w))
    w_min = float(w[i_min])
    g = w - w_min  # ≥ 0, exactly 0 at i_min (and at exact ties)
    active = b != 0  # components with b = 0 contribute nothing to φ
    delta = max(0.0, float(np.max(np.abs(b) / radius - g)))

    if delta == 0.0:
        # b = 0 wherever g = 0 (otherwise δ₀ > 0): φ is finite at δ = 0.
        u = np.zeros_like(b)
        u[active] = b[active] / g[active]
        phi0 = float(u @ u)
        if phi0 <= radius**2:
            u[i_min] = np.sqrt(radius**2 - phi0)
            return _result(u, w, b, w_min, 0.0, True, 0, True)

    bb, ga = b[active], g[active]
    n_iter, converged = 0, True
    while n_iter < MAX_ITER:
        n_iter += 1
        q = bb / (ga + delta)
        phi = float(q @ q)
        slope = float(np.sum(q * q / (ga + delta)))  # −φ'(δ)/2
        # Root of the surrogate p/(q + δ)² = R² (Appendix B), written as a Newton step on 1/√φ − 1/R.
        step = phi * (np.sqrt(phi) / radius - 1.0) / slope
        if not step > 0.0 or delta + step == delta:
            break
        delta += step
    else:  # pragma: no cover - the iteration converges quadratically
        converged = False
        warnings.warn(
            f"The secular root finder did not converge in {MAX_ITER} iterations (δ = {delta:.3g}).",
            RuntimeWarning,
            stacklevel=2,
        )
    u = np.zeros_like(b)
    u[active] = bb / (ga + delta)
    return _result(u, w, b, w_min - delta, delta, False, n_iter, converged)


def _result(u, w, b, multiplier, shift, hard_case, n_iter, converged):
    if hard_case:
        message = "hard case: the multiplier is the smallest eigenvalue, no root finding needed"
    elif converged:
        message = "the secular equation is solved to machine precision"
    else:
        message = f"the secular root finder stopped at its cap of {MAX_ITER} iterations"
    return SolverResult(
        u, float(u @ (w * u) - 2.0 * (b @ u)), n_iter=n_iter, converged=converged, message=message,
        multiplier=multiplier, shift=shift, hard_case=hard_case,
    )  # fmt: skip

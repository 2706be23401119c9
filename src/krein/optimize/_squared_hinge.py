"""The modified finite Newton method for the squared-hinge loss (Keerthi & DeCoste, JMLR 2005).

``min_{w, b}  Σᵢ max(0, 1 − yᵢ(Φᵢ w + b))² + n Σⱼ ρⱼ wⱼ²`` is strictly convex in ``w`` and piecewise
quadratic. On the active set ``I = {i : yᵢ f(xᵢ) < 1}`` the method solves the regularized least
squares problem ``(Φ̂_Iᵀ Φ̂_I + n R) w̄ = Φ̂_Iᵀ y_I`` (``Φ̂ = [Φ, 1]``, ``R = diag(ρ, 0)``), then takes the
exact line search along ``w̄ − w`` (the derivative of the objective along the ray is monotone and
piecewise linear, so its root is found by sorting breakpoints). It terminates finitely, at the
global minimum, when the active set no longer changes. The Kreĭn squared-hinge SVM of Oglic & Gärtner
(2019, Sec. 2.5) runs it on the features ``Φ = Ũ |Λ|^{1/2} sign(Λ)`` with ``ρ = λ±``.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

__all__ = ["squared_hinge_newton"]


def _line_search(a, c, wRd, dRd, n):
    """Root in ``t ≥ 0`` of ``g(t) = −Σᵢ max(0, aᵢ − t cᵢ) cᵢ + n (wRd + t dRd)`` (monotone, piecewise
    linear), with ``aᵢ = 1 − yᵢ oᵢ`` and ``cᵢ = yᵢ δᵢ`` along the direction ``d``."""
    active = a > 0
    alpha = -np.sum(a[active] * c[active]) + n * wRd
    beta = np.sum(c[active] ** 2) + n * dRd
    moving = c != 0
    times = a[moving] / c[moving]
    leaving = (c[moving] > 0) & active[moving]
    entering = (c[moving] < 0) & ~active[moving]
    events = np.flatnonzero((leaving | entering) & (times >= 0))
    order = events[np.argsort(times[events], kind="stable")]
    a_m, c_m = a[moving], c[moving]
    for k in order:
        t = times[k]
        if beta > 0 and -alpha / beta <= t:
            break
        sign = -1.0 if leaving[k] else 1.0
        alpha += sign * (-a_m[k] * c_m[k])
        beta += sign * c_m[k] ** 2
    if beta <= 0:
        return 1.0
    return max(0.0, -alpha / beta)


def squared_hinge_newton(features, y, penalties, *, fit_intercept=True, tol=1e-10, max_iter=100):
    """Minimize ``Σ max(0, 1 − yᵢ(Φᵢ w + b))² + n Σⱼ ρⱼ wⱼ²`` by the finite Newton method.

    Parameters
    ----------
    features : ndarray of shape (n, r)
        ``Φ``.
    y : ndarray of shape (n,)
        Labels ±1.
    penalties : ndarray of shape (r,)
        ``ρ`` (strictly positive).
    fit_intercept : bool, default=True
        Add an unregularized bias ``b``.
    tol : float, default=1e-10
        Stop when the relative decrease of the objective is below ``tol`` or the active set repeats.
    max_iter : int, default=100

    Returns
    -------
    w : ndarray of shape (r,)
    b : float
    n_iter : int
    """
    n = features.shape[0]
    design = np.hstack([features, np.ones((n, 1))]) if fit_intercept else features
    R = np.append(penalties, 0.0) if fit_intercept else penalties
    w = np.zeros(design.shape[1])
    outputs = np.zeros(n)

    def objective(out, weights):
        return np.sum(np.maximum(0.0, 1.0 - y * out) ** 2) + n * np.dot(R * weights, weights)

    value = objective(outputs, w)
    n_iter = 0
    while n_iter < max_iter:
        n_iter += 1
        active = y * outputs < 1
        D = design[active]
        system = D.T @ D
        system[np.diag_indices_from(system)] += n * R
        try:
            target = scipy.linalg.solve(system, D.T @ y[active], assume_a="pos", check_finite=False)
        except (np.linalg.LinAlgError, scipy.linalg.LinAlgError):
            target = scipy.linalg.lstsq(system, D.T @ y[active], check_finite=False)[0]
        direction = target - w
        delta = design @ direction
        step = _line_search(
            1.0 - y * outputs, y * delta, np.dot(R * w, direction), np.dot(R * direction, direction), n
        )
        w = w + step * direction
        outputs = outputs + step * delta
        new_value = objective(outputs, w)
        converged = value - new_value <= tol * max(new_value, 1e-300) or np.array_equal(
            active, y * outputs < 1
        )
        value = new_value
        if converged:
            break
    if fit_intercept:
        return w[:-1], float(w[-1]), n_iter
    return w, 0.0, n_iter

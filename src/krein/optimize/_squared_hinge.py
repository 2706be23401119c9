"""The modified finite Newton method for the squared-hinge loss (Keerthi & DeCoste, JMLR 2005).

``min_{w, b}  Σᵢ max(0, 1 − yᵢ(Φᵢ w + b))² + n Σⱼ ρⱼ wⱼ²`` is strictly convex in ``w`` and piecewise
quadratic. On the active set ``I = {i : yᵢ f(xᵢ) < 1}`` the method solves the regularized least
squares problem ``(Φ̂_Iᵀ Φ̂_I + n R) w̄ = Φ̂_Iᵀ y_I`` (``Φ̂ = [Φ, 1]``, ``R = diag(ρ, 0)``), then takes the
exact line search along ``w̄ − w`` (the derivative of the objective along the ray is monotone and
piecewise linear, so its root is found by sorting breakpoints). It terminates finitely, at the
global minimum, when the active set no longer changes. The Kreĭn squared-hinge SVM of Oglic & Gärtner
(2019, Sec. 2.5) runs it on the features ``Φ = Ũ |Λ|^{1/2} sign(Λ)`` with ``ρ = λ±``.

**Streamed** (:func:`streamed_squared_hinge_newton`): the same iterations on the features ``Φ = Ũ T``
of a streamed Nyström representation (``Ũ`` the n×r one-shot eigenvectors, never formed), with
what the method needs from the data reduced in landmark space: ``Φ_Iᵀ Φ_I = Tᵀ Eᵀ (G − G_out) E T``
with ``G = Σᵢ kᵢkᵢᵀ`` over all centred landmark rows ``kᵢ = K(xᵢ, Z) − k̄`` (kept by the representation
from its fitting pass) and ``G_out`` the same sum over the points outside ``I``, updated by the rows
of the points that leave or enter ``I`` (at the start every point is active and ``G_out = 0``);
``Φ_Iᵀ1`` and ``Φ_Iᵀy_I`` likewise; the outputs ``Φ d`` along a direction by one streamed pass per
iteration. Memory beyond the data is O(n + m²).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg
from numpy.typing import NDArray

from ._result import SolverResult

__all__ = ["squared_hinge_newton", "squared_hinge_validation_gradient", "streamed_squared_hinge_newton"]


#: Entries of the active rows copied at a time when forming the normal equations (8 MiB).
ROWS_SYSTEM_ENTRIES = 1 << 20


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


def squared_hinge_newton(
    features: NDArray[np.float64],
    y: NDArray[np.float64],
    penalties: NDArray[np.float64],
    *,
    fit_intercept: bool = True,
    tol: float = 1e-10,
    max_iter: int = 100,
    start: tuple[NDArray[np.float64], float] | None = None,
    workspace: dict | None = None,
) -> SolverResult:
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
    start : tuple (w, b) or None, default=None
        Where the iterations start (a warm start, e.g. the solution for nearby penalties); None: 0.
        The minimum does not depend on it.
    workspace : dict or None, default=None
        A dict (empty at first) that keeps the normal equations ``Φ̂_Iᵀ Φ̂_I``, ``Φ̂_Iᵀ y_I`` of the last
        active set between calls on the same ``features`` and ``y`` (a path of penalties with warm
        starts): each Newton step updates them by the rows of the points that enter or leave the
        active set, ``(changes) r²`` instead of ``|I| r²``; they are recomputed whenever more rows
        change than they hold. None: kept within this call only.

    Returns
    -------
    SolverResult
        ``x`` the weights ``w`` (shape (r,)); ``fun`` the objective at ``(w, b)`` (minimized);
        ``n_iter`` the Newton iterations; ``converged`` False if ``max_iter`` stopped them;
        ``history`` the objective at the start and after every iteration. Its own attribute:
        ``intercept``, the bias ``b`` (0.0 without ``fit_intercept``).

    Examples
    --------
    Two points ``±1`` with labels ``±1`` and ``ρ = 1``: ``2 max(0, 1 − w)² + 2w²`` is least at
    ``w = 1/2``, where it is 1.

    >>> import numpy as np
    >>> from krein.optimize import squared_hinge_newton
    >>> result = squared_hinge_newton(np.array([[1.0], [-1.0]]), np.array([1.0, -1.0]), np.array([1.0]))
    >>> result.x, result.fun, result.intercept
    (array([0.5]), 1.0, 0.0)
    """
    last = {} if workspace is None else workspace  # the previous active set and its normal equations

    def rows_system(index):
        # (Φ̂ᵀΦ̂, Φ̂ᵀy) over the rows ``index`` with Φ̂ = [Φ, 1] (the ones column implicit: no n × r copy),
        # in blocks of rows so that no copy of the active rows exceeds a few MiB
        r = features.shape[1]
        gram, moment = np.zeros((r, r)), np.zeros(r)
        sums, y_sum = np.zeros(r), 0.0
        for block in np.array_split(index, max(1, -(-index.size * r // ROWS_SYSTEM_ENTRIES))):
            F, t = features[block], y[block]
            gram += F.T @ F
            moment += F.T @ t
            sums += F.sum(axis=0)
            y_sum += float(t.sum())
        if not fit_intercept:
            return gram, moment
        full = np.empty((r + 1, r + 1))
        full[:r, :r], full[:r, r], full[r, :r], full[r, r] = gram, sums, sums, index.size
        return full, np.append(moment, y_sum)

    def normal_equations(active):
        # Near the solution few points enter or leave the active set: the previous system updated by
        # their rows costs (changes) r² instead of |I| r² (the Gram matrix is recomputed whenever
        # more rows changed than it holds, which also bounds the rounding the updates accumulate).
        previous = last.get("active")
        if previous is not None:
            entering, leaving = active & ~previous, previous & ~active
            if np.count_nonzero(entering) + np.count_nonzero(leaving) < np.count_nonzero(active):
                added, removed = rows_system(np.flatnonzero(entering)), rows_system(np.flatnonzero(leaving))
                gram = last["gram"] + (added[0] - removed[0])
                moment = last["moment"] + (added[1] - removed[1])
                last.update(active=active, gram=gram, moment=moment)
                return gram.copy(), moment
        gram, moment = rows_system(np.flatnonzero(active))
        last.update(active=active, gram=gram, moment=moment)
        return gram.copy(), moment

    def outputs_along(direction):
        return features @ direction[:-1] + direction[-1] if fit_intercept else features @ direction

    initial = None if start is None else (np.append(start[0], start[1]) if fit_intercept else start[0])
    return _finite_newton(
        normal_equations,
        outputs_along,
        y,
        penalties,
        fit_intercept,
        tol,
        max_iter,
        initial,
    )


def squared_hinge_validation_gradient(
    features: NDArray[np.float64],
    y: NDArray[np.float64],
    w: NDArray[np.float64],
    b: float,
    penalties: NDArray[np.float64],
    derivatives: list[NDArray[np.float64]],
    features_val: NDArray[np.float64],
    y_val: NDArray[np.float64],
    *,
    fit_intercept: bool = True,
) -> tuple[float, NDArray[np.float64]]:
    """Validation mean squared error of a squared-hinge solution and its hypergradient.

    The solution ``ŵ = (w, b)`` of ``min Σ max(0, 1 − yᵢ(Φᵢ w + b))² + n wᵀ P w`` solves the normal
    equations of its active set ``I = {i : yᵢ(Φᵢ w + b) < 1}``, ``A ŵ = Φ̂_Iᵀ y_I`` with
    ``A = Φ̂_Iᵀ Φ̂_I + n diag(P, 0)`` (Keerthi & DeCoste 2005). While ``I`` does not change (no point on
    the margin), implicit differentiation (Chapelle et al. 2002) gives ``∂ŵ/∂θ = −n A⁻¹ (∂P/∂θ) ŵ``,
    so the gradient of ``L = ‖Φ̂_val ŵ − y_val‖² / t`` is ``−n vᵀ (∂P/∂θ) ŵ`` with the adjoint
    ``v = A⁻¹ Φ̂_valᵀ (2/t)(Φ̂_val ŵ − y_val)``: one solve for all hyperparameters.

    Parameters
    ----------
    features : ndarray of shape (n, r)
        ``Φ`` of the training points.
    y : ndarray of shape (n,)
        Training labels ±1.
    w, b : ndarray of shape (r,) and float
        The solution (:func:`squared_hinge_newton`).
    penalties : ndarray of shape (r,)
        ``P = diag(ρ)`` at the solution.
    derivatives : list of ndarray
        ``∂P/∂θ`` for each hyperparameter θ: a vector (a diagonal) or an r×r matrix.
    features_val : ndarray of shape (t, r)
        ``Φ`` of the validation points.
    y_val : ndarray of shape (t,)
        Validation targets.
    fit_intercept : bool, default=True

    Returns
    -------
    loss : float
    gradient : ndarray of shape (len(derivatives),)
    """
    n, r = features.shape

    def augmented(F):
        return np.hstack([F, np.ones((F.shape[0], 1))]) if fit_intercept else F

    design, design_val = augmented(features), augmented(features_val)
    w_hat = np.append(w, b) if fit_intercept else w
    active = y * (design @ w_hat) < 1
    system = design[active].T @ design[active]
    system[np.arange(r), np.arange(r)] += n * penalties
    error = design_val @ w_hat - y_val
    t = error.size
    rhs = design_val.T @ ((2.0 / t) * error)
    adjoint = scipy.linalg.solve(system, rhs, assume_a="pos", check_finite=False)
    gradient = [-n * float(adjoint[:r] @ (dP * w if dP.ndim == 1 else dP @ w)) for dP in derivatives]
    return float(error @ error) / t, np.array(gradient)


def _finite_newton(normal_equations, outputs_along, y, penalties, fit_intercept, tol, max_iter, initial=None):
    """The iterations of :func:`squared_hinge_newton`, given how to reach the data.

    ``normal_equations(active)`` returns ``(Φ̂_Iᵀ Φ̂_I, Φ̂_Iᵀ y_I)`` for the active set ``I`` (a boolean
    mask) and ``outputs_along(d)`` the outputs ``Φ̂ d`` of all points along a direction ``d``;
    ``initial`` is the starting ``ŵ`` (None: 0).
    """
    n = y.size
    R = np.append(penalties, 0.0) if fit_intercept else penalties
    w = np.zeros(R.size) if initial is None else np.array(initial, dtype=float)
    outputs = np.zeros(n) if initial is None else outputs_along(w)

    def objective(out, weights):
        return np.sum(np.maximum(0.0, 1.0 - y * out) ** 2) + n * np.dot(R * weights, weights)

    value = objective(outputs, w)
    history = [value]
    n_iter, converged = 0, False
    while n_iter < max_iter:
        n_iter += 1
        active = y * outputs < 1
        system, rhs = normal_equations(active)
        system[np.diag_indices_from(system)] += n * R
        try:
            target = scipy.linalg.solve(system, rhs, assume_a="pos", check_finite=False)
        except (np.linalg.LinAlgError, scipy.linalg.LinAlgError):
            target = scipy.linalg.lstsq(system, rhs, check_finite=False)[0]
        direction = target - w
        delta = outputs_along(direction)
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
        history.append(value)
        if converged:
            break
    message = "the active set or the objective no longer changes" if converged else "max_iter reached"
    weights, intercept = (w[:-1], float(w[-1])) if fit_intercept else (w, 0.0)
    return SolverResult(
        weights, value, n_iter=n_iter, converged=converged, message=message, history=history,
        intercept=intercept,
    )  # fmt: skip


def streamed_squared_hinge_newton(
    representation: Any,
    T: NDArray[np.float64],
    y: NDArray[np.float64],
    penalties: NDArray[np.float64],
    *,
    fit_intercept: bool = True,
    tol: float = 1e-10,
    max_iter: int = 100,
) -> SolverResult:
    """Minimize ``Σ max(0, 1 − yᵢ(Φᵢ w + b))² + n Σⱼ ρⱼ wⱼ²`` for ``Φ = Ũ T`` without forming ``Φ``.

    Parameters
    ----------
    representation : krein.representation.NystroemRepresentation
        With ``gram``, ``row_sum``, ``landmark_sums``, ``landmark_moment`` and ``training_outputs``.
    T : ndarray of shape (r, r)
    y : ndarray of shape (n,)
        Labels ±1.
    penalties, fit_intercept, tol, max_iter : as :func:`squared_hinge_newton`.

    Returns
    -------
    SolverResult
        As :func:`squared_hinge_newton`.
    """
    E = representation.extension @ T  # landmark space → features: Φᵢ = kᵢ E T
    # over all points: Σ kᵢkᵢᵀ, Σ kᵢ, Σ yᵢ kᵢ (the last by one pass, as Ũᵀy = Eᵀ Σ yᵢ kᵢ); then the
    # same sums over the points outside the active set, updated by the points whose status changes
    totals = (representation.gram, representation.row_sum, representation.landmark_moment(y), y.size, y.sum())
    outside = [np.zeros_like(totals[0]), np.zeros_like(totals[1]), np.zeros_like(totals[1]), 0, 0.0]
    previous = [np.ones(y.size, dtype=bool)]  # at the start every point is active

    def normal_equations(active):
        left, entered = np.flatnonzero(previous[0] & ~active), np.flatnonzero(~previous[0] & active)
        for indices, sign in ((left, 1.0), (entered, -1.0)):
            if indices.size:
                sums = (*representation.landmark_sums(indices, y), indices.size, y[indices].sum())
                for k, change in enumerate(sums):
                    outside[k] = outside[k] + sign * change
        previous[0] = active
        gram, row_sum, moment, count, y_sum = (
            total - out for total, out in zip(totals, outside, strict=True)
        )
        system, rhs = E.T @ gram @ E, E.T @ moment
        if fit_intercept:
            column = E.T @ row_sum
            system = np.block([[system, column[:, None]], [column[None, :], np.array([[count]])]])
            rhs = np.append(rhs, y_sum)
        return system, rhs

    def outputs_along(direction):
        delta = representation.training_outputs(T @ direction[: T.shape[1]])
        return delta + direction[-1] if fit_intercept else delta

    return _finite_newton(normal_equations, outputs_along, y, penalties, fit_intercept, tol, max_iter)

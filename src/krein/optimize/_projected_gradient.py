"""Projected gradient descent ``x' = P(x − t∇f(x))`` on a closed convex set, with four step rules.

One loop serves every projected-gradient method of the library; the rules are those of the papers:

* ``"backtracking"`` — Li, Venturi & Xu, Sec. 2.3.2 (kernel learning, Algorithms 2, 5–7): a step that
  would increase ``f`` (or lead where ``f = +∞``) is rejected and ``t`` multiplied by ``decrease``
  (0.8) until ``f`` does not increase, so the accepted iterates decrease ``f`` monotonically; ``t``
  carries over to the next iteration.
* ``"diminishing"`` — Luss & d'Aspremont (2009), Algorithm 1 as printed: ``x_{k+1} = P(x_k − (t/k)∇f(x_k))``
  (Sec. 3.2 uses ``t = 5``), every iterate accepted, no line search.
* ``"spectral"`` — the spectral projected gradient of Birgin, Martínez & Raydan (2000): the direction
  ``d = P(x − t∇f) − x`` with the Barzilai–Borwein step ``t = sᵀs / sᵀ(∇f_{k+1} − ∇f_k)`` (the inverse
  curvature of ``f`` along the last move, kept in ``[1e-8, 1e8]`` times the first step) and a
  nonmonotone Armijo search on ``x + λd`` against the worst of the last 10 values (safeguarded
  quadratic interpolation, usually ``λ = 1`` at once). Where every feasible move is orthogonal to a
  vector ``normal`` (the projection keeps ``normalᵀx`` fixed, as on the SVM dual set), the slope
  ``∇fᵀd`` is computed as ``(∇f − normal·normalᵀ∇f/‖normal‖²)ᵀd``: near the optimum ``∇f`` is nearly
  parallel to ``normal`` and large, and its tangent part, which alone decides the slope's sign, tiny.
* ``"accelerated"`` — FISTA (Beck & Teboulle 2009) with the fixed step ``t = 1/L``: the gradient is
  taken at the extrapolated point ``x_k + ((θ_{k−1} − 1)/θ_k)(x_k − x_{k−1})``. It does not evaluate
  ``f`` at the iterates (the oracle's value is not used and may be ``None``).

The oracle returns ``(f(x), ∇f(x), *extra)``; ``extra`` is passed through to the ``callback``, so a
caller that follows one function and certifies another (a smoothed objective and its true value) gets
both without a second evaluation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ._result import SolverResult

__all__ = ["STEP_RULES", "projected_gradient"]

STEP_RULES = ("backtracking", "diminishing", "spectral", "accelerated")

#: Nonmonotone window and sufficient-decrease constant of the spectral rule (Birgin et al. 2000).
_MEMORY = 10
_ARMIJO = 1e-4

#: Why :func:`projected_gradient` stopped: the message and whether that counts as converged.
_CALLBACK = ("the callback stopped the method", True)
_SMALL_STEP = ("the step is below tol", True)
_MAX_ITER = ("max_iter reached", False)
_STATIONARY = ("no feasible descent direction is left: x is stationary to rounding", False)


def projected_gradient(
    oracle: Callable[[NDArray[np.float64]], tuple],
    x: NDArray[np.float64],
    project: Callable[[NDArray[np.float64]], NDArray[np.float64]],
    *,
    learning_rate: float,
    rule: str = "backtracking",
    max_iter: int = 1000,
    tol: float = 0.0,
    callback: Callable[[int, NDArray[np.float64], Any, float], bool] | None = None,
    initial: tuple | None = None,
    normal: NDArray[np.float64] | None = None,
    decrease: float = 0.8,
) -> SolverResult:
    """Minimize ``f`` over a closed convex set by projected gradient steps.

    Parameters
    ----------
    oracle : callable
        ``oracle(x) -> (f(x), ∇f(x), *extra)``; ``f`` may be ``+∞`` (outside its domain) for
        ``"backtracking"``, which then rejects the step.
    x : ndarray
        Start, a point of the set (not projected again).
    project : callable
        Euclidean projection ``P`` onto the set.
    learning_rate : float
        ``t``: the first step (``"backtracking"``, ``"spectral"``), the numerator of ``t/k``
        (``"diminishing"``) or the fixed step ``1/L`` (``"accelerated"``).
    rule : {"backtracking", "diminishing", "spectral", "accelerated"}, default="backtracking"
        Step rule (module docstring).
    max_iter : int, default=1000
    tol : float, default=0.0
        ``"backtracking"`` stops once a trial step satisfies ``‖x' − x‖ ≤ tol (1 + ‖x‖)`` (Li et al.,
        Algorithm 2, line 3); the other rules stop by ``callback`` only.
    callback : callable, optional
        ``callback(iteration, x, state, step) -> bool`` after the start (iteration 0, except for
        ``"accelerated"``) and after every iteration, with the oracle's tuple at ``x`` (``None`` for
        ``"accelerated"``) and the current step ``t``; ``True`` stops the method (converged).
    initial : tuple, optional
        ``oracle(x)`` if the caller already has it.
    normal : ndarray, optional
        A vector orthogonal to every feasible move (``"spectral"`` only; module docstring).
    decrease : float, default=0.8
        Factor applied to ``t`` after a rejected ``"backtracking"`` step.

    Returns
    -------
    SolverResult
        ``x`` the last iterate; ``fun`` ``f(x)`` (minimized; None for ``"accelerated"``, which does
        not evaluate ``f`` at its iterates); ``n_iter`` the iterations (gradient steps) taken;
        ``converged`` whether a stopping test held (a small step or the callback); ``history`` ``f``
        at the start and at every accepted iterate (None for ``"accelerated"``). Its own
        attributes: ``state``, the oracle's tuple at ``x`` (None for ``"accelerated"``), and
        ``stationary``, whether the method stopped because no feasible descent direction was left
        (``"spectral"``: ``P(x − t∇f) = x`` to rounding).

    Examples
    --------
    Minimize ``½‖x − a‖²`` over the box ``[0, 1]³``:

    >>> import numpy as np
    >>> from krein.optimize import projected_gradient
    >>> a = np.array([2.0, -1.0, 0.5])
    >>> result = projected_gradient(
    ...     lambda x: (0.5 * (x - a) @ (x - a), x - a), np.zeros(3), lambda x: np.clip(x, 0.0, 1.0),
    ...     learning_rate=1.0, tol=1e-12,
    ... )
    >>> result.x, result.fun, result.converged
    (array([1. , 0. , 0.5]), 1.0, True)
    """
    if rule not in STEP_RULES:
        raise ValueError(f"rule must be one of {STEP_RULES}, got {rule!r}.")
    if not learning_rate > 0:
        raise ValueError(f"learning_rate must be positive, got {learning_rate}.")
    callback = callback if callback is not None else (lambda iteration, x, state, step: False)
    if rule == "accelerated":
        return _accelerated(oracle, x, project, float(learning_rate), max_iter, callback)
    state = oracle(x) if initial is None else initial
    history = [state[0]]
    if callback(0, x, state, learning_rate):
        return _result(x, state, 0, history, _CALLBACK)
    if rule == "spectral":
        return _spectral(oracle, x, state, project, float(learning_rate), max_iter, callback, normal, history)
    step = float(learning_rate)
    for iteration in range(1, max_iter + 1):
        if rule == "diminishing":
            step = learning_rate / iteration
            candidate = project(x - step * state[1])
            trial = oracle(candidate)
        else:
            while True:
                candidate = project(x - step * state[1])
                if np.linalg.norm(candidate - x) <= tol * (1.0 + np.linalg.norm(x)):
                    return _result(x, state, iteration, history, _SMALL_STEP)
                trial = oracle(candidate)
                if trial[0] <= state[0]:
                    break
                step *= decrease
        x, state = candidate, trial
        history.append(state[0])
        if callback(iteration, x, state, step):
            return _result(x, state, iteration, history, _CALLBACK)
    return _result(x, state, max_iter, history, _MAX_ITER)


def _result(x, state, n_iter, history, reason):
    """The :class:`SolverResult` of an iterate ``x`` with the oracle's tuple ``state`` (None: the
    accelerated rule, which keeps neither values nor history)."""
    message, converged = reason
    return SolverResult(
        x, None if state is None else state[0], n_iter=n_iter, converged=converged, message=message,
        history=None if state is None else history, state=state, stationary=reason is _STATIONARY,
    )  # fmt: skip


def _spectral(oracle, x, state, project, step, max_iter, callback, normal, history):
    value, gradient = state[0], state[1]
    step_bounds = (1e-8 * step, 1e8 * step)
    recent = [value]
    for iteration in range(1, max_iter + 1):
        direction = project(x - step * gradient) - x
        tangent = gradient if normal is None else gradient - normal * (gradient @ normal) / (normal @ normal)
        slope = float(tangent @ direction)
        if slope >= 0:  # P(x − t∇f) = x: x is stationary to rounding
            return _result(x, state, iteration, history, _STATIONARY)
        reference = max(recent[-_MEMORY:])
        fraction = 1.0
        while True:
            candidate = x + fraction * direction
            trial = oracle(candidate)
            if trial[0] <= reference + _ARMIJO * fraction * slope or fraction < 1e-12:
                break
            # minimizer of the quadratic through f(x), its slope and the trial, kept in [0.1, 0.5]λ
            curvature = (trial[0] - (value + fraction * slope)) / fraction**2
            guess = -slope / (2 * curvature) if curvature > 0 else 0.5 * fraction
            fraction = min(max(guess, 0.1 * fraction), 0.5 * fraction)
        move = candidate - x
        change = float(move @ (trial[1] - gradient))
        step = (
            step_bounds[1] if change <= 0 else min(max(move @ move / change, step_bounds[0]), step_bounds[1])
        )
        x, state = candidate, trial
        value, gradient = state[0], state[1]
        recent.append(value)
        history.append(value)
        if callback(iteration, x, state, step):
            return _result(x, state, iteration, history, _CALLBACK)
    return _result(x, state, max_iter, history, _MAX_ITER)


def _accelerated(oracle, x, project, step, max_iter, callback):
    momentum, theta = x, 1.0
    for iteration in range(1, max_iter + 1):
        new = project(momentum - step * oracle(momentum)[1])
        theta_new = (1 + np.sqrt(1 + 4 * theta * theta)) / 2
        momentum = new + ((theta - 1) / theta_new) * (new - x)
        x, theta = new, theta_new
        if callback(iteration, x, None, step):
            return _result(x, None, iteration, None, _CALLBACK)
    return _result(x, None, max_iter, None, _MAX_ITER)

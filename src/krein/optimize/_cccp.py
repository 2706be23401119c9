"""The concave-convex procedure (CCCP) and its inexact variant (CCICP), Algorithm 1 of Liu et al. (2019).

A difference-of-convex (d.c.) objective ``F(x) = g(x) − h(x)`` with ``g`` and ``h`` convex is minimized
by linearizing ``h`` at the current outer iterate ``x_k`` and (approximately) minimizing the convex
surrogate (Eq. 8 of Liu, Huang, Gong, Yang & Suykens, *Indefinite kernel logistic regression with
concave-inexact-convex procedure*, IEEE TNNLS 2019)::

    F_k(x) = g(x) − h(x_k) − ∇h(x_k)ᵀ (x − x_k),     F_k ≥ F,   F_k(x_k) = F(x_k).

Because ``F_k`` majorizes ``F`` and touches it at ``x_k``, any inner solver that does not increase
``F_k`` makes the outer sequence monotone: ``F(x_{k+1}) ≤ F_k(x_{k+1}) ≤ F_k(x_k) = F(x_k)``.

The inner solvers:

* ``"gd"`` — gradient descent in the metric of a diagonal majorizer ``P ⪰ ∇²g`` (a preconditioned
  step ``x ← x − η P⁻¹ ∇F_k(x)``; with ``η ≤ 1`` every step decreases ``F_k`` by the descent lemma,
  and a step that does not is halved until it does). The loop stops by the inexact rule of
  Algorithm 1 (lines 7–13): as soon as one step changes ``F_k`` by at most ``ε``. A tiny ``ε`` gives
  CCCP (each subproblem solved to a tight tolerance), ``ε = 1`` the paper's CCICP-GD.
* ``"sgd"`` — stochastic gradient steps on mini-batches (Eq. 12), in epochs over a random
  permutation; the step ``η_e (b/n) P⁻¹ ĝ`` decays geometrically per epoch (``η_e = η ρᵉ``, Algorithm 1
  line 11) and the loop stops when one epoch changes ``F_k`` by at most ``ε`` (CCICP-SGD with a
  small ``ε``; the paper's CCICP-SGD-I with ``ε = 1``). Monotone only in expectation (Lemma 2).
  Single-sample steps on a convex part of linear-model form (:class:`DCObjective`) cost two BLAS-1
  calls and one diagonal scaling each, with no allocation: see :func:`_single_sample_epoch`.

With ``step="plain"`` both solvers drop the preconditioner (``P = I``) and take the paper's own steps:
``x ← x − η ∇F_k(x)`` with an absolute ``η`` (Algorithm 1, line 9; the halving safeguard stays, so
``F_k`` never increases and the outer sequence stays monotone) and, for ``"sgd"``, Eq. (12)
``x ← x − η_e ĝ`` per mini-batch (not scaled by ``b/n``; no safeguard). Such steps are not scale
free: the steepest direction of ``F_k`` bounds the step that decreases ``F_k`` (longer ones are
halved), so the flat directions advance slowly and a subproblem solved to a tight ``ε`` takes many
steps, which is where the paper's CCCP-GD spends its time.

``step="paper"`` is Algorithm 1 as printed, for reproductions: the plain step of ``"gd"`` without the
safeguard, its ``η`` multiplied by ``ρ`` after every step (line 11) and restarted for each subproblem;
the inner loop stops once one step changes ``F_k`` by at most ``ε`` in absolute value (line 7). For
``"sgd"`` it is ``"plain"``.

The default steps are relative to the majorizer ``P``, so they are scale free. With them and with
``"plain"`` the gradient steps do not decay and the learning rate restarts for each subproblem: the
paper's decay ``ρ = 0.8`` *per gradient step* (Algorithm 1, line 11) makes the total step length finite
(``Σ η_t = η / (1 − ρ)``), so that gradient descent cannot reach a stationary point of a subproblem.
The stochastic step decays per epoch instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.linalg.blas import daxpy, ddot
from sklearn.utils import check_random_state

from .._memory import MemoryBudget
from ._result import SolverResult

__all__ = ["DCObjective", "concave_convex_procedure"]

#: How many times a gradient step that increases the subproblem value is halved before giving up.
_MAX_HALVINGS = 30
#: The sample rows that a single-sample epoch gathers at a time: 2 MiB (within the L2/L3 cache).
_ROW_CHUNK_BUDGET = MemoryBudget(2.0)


class DCObjective:
    """Interface of a d.c. objective ``F = g − h`` for :func:`concave_convex_procedure`.

    Subclasses implement :meth:`convex` (value and gradient of ``g``), :meth:`concave` (value and
    gradient of ``h``) and, for the stochastic solver, :meth:`convex_batch_gradient`; they set
    ``metric`` (the diagonal of a matrix ``P`` with ``P ⪰ ∇²g`` everywhere, strictly positive) and
    ``n_samples`` (the number of terms that :meth:`convex_batch_gradient` samples from).

    A convex part of **linear-model form**, ``g(x) = (1/n) Σᵢ φ(aᵢᵀx, yᵢ) + ½ Σⱼ ωⱼ xⱼ²``, may say so
    by setting ``quadratic_weight`` (``ω``) and implementing :meth:`sample_rows` and
    :meth:`negative_slope`; single-sample SGD then steps without allocating (``∇gᵢ(x) = ω ⊙ x −
    s aᵢ``, ``s = −∂φ/∂o`` at ``o = aᵢᵀx``), with the same iterates as :meth:`convex_batch_gradient`.
    """

    metric: NDArray[np.float64]
    n_samples: int
    #: ``ω`` of a convex part of linear-model form; None: only :meth:`convex_batch_gradient` is known.
    quadratic_weight: NDArray[np.float64] | None = None

    def convex(self, x: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        """``(g(x), ∇g(x))``."""
        raise NotImplementedError

    def concave(self, x: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        """``(h(x), ∇h(x))``."""
        raise NotImplementedError

    def convex_batch_gradient(self, x: NDArray[np.float64], batch: NDArray[np.intp]) -> NDArray[np.float64]:
        """Unbiased estimate of ``∇g(x)`` from the sample indices ``batch``."""
        raise NotImplementedError

    def sample_rows(self, indices: NDArray[np.intp]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Linear-model form: the rows ``aᵢ`` (an array of shape (len(indices), dim)) and the labels
        ``yᵢ`` of the samples ``indices``."""
        raise NotImplementedError

    @staticmethod
    def negative_slope(output: float, label: float) -> float:
        """Linear-model form: ``−∂φ(o, y)/∂o`` at the output ``o = aᵢᵀx`` of a sample with label ``y``
        (Python floats in and out: it runs once per stochastic step)."""
        raise NotImplementedError

    def objective(self, x: NDArray[np.float64]) -> float:
        """``F(x) = g(x) − h(x)``."""
        return self.convex(x)[0] - self.concave(x)[0]


def _surrogate(problem, linear):
    """``x ↦ (F_k(x) + const, ∇F_k(x))`` for the linearization ``linear = ∇h(x_k)``."""

    def value_and_gradient(x):
        value, gradient = problem.convex(x)
        return value - linear @ x, gradient - linear

    return value_and_gradient


def _gradient_descent(
    surrogate, preconditioner, x, value, gradient, *, inexact_tol, learning_rate, max_iter, decay=1.0,
    safeguard=True,
):  # fmt: skip
    """Gradient descent in the metric ``preconditioner`` (an array, or ``1.0`` for plain steps) from ``x``
    (where the subproblem has ``value`` and ``gradient``) with the early termination rule of Algorithm 1:
    stop once one step changes the subproblem value by at most ``inexact_tol``. The step is multiplied
    by ``decay`` after each step (Algorithm 1, line 11); with ``safeguard`` a step that would increase
    the value is halved until it does not. Returns the last point, its value and gradient, and the
    number of steps."""
    steps = 0
    rate = learning_rate
    while steps < max_iter:
        direction = gradient / preconditioner
        step = rate
        for _ in range(_MAX_HALVINGS if safeguard else 1):
            candidate = x - step * direction
            candidate_value, candidate_gradient = surrogate(candidate)
            if not safeguard or candidate_value <= value:
                break
            step *= 0.5
        else:  # no decrease along the (descent) direction: x is stationary to rounding
            return x, value, gradient, steps
        steps += 1
        change = abs(value - candidate_value)
        x, value, gradient = candidate, candidate_value, candidate_gradient
        rate *= decay
        if change <= inexact_tol:
            break
    return x, value, gradient, steps


def _stochastic_gradient(
    problem, surrogate, linear, x, value, gradient, *, step, inexact_tol, learning_rate, decay, batch_size,
    max_epochs, rng,
):  # fmt: skip
    """Mini-batch SGD (Eq. 12) in epochs with a per-epoch geometric step decay; returns as
    :func:`_gradient_descent` (epochs for steps)."""
    n = problem.n_samples
    if step == "majorizer":
        scale, preconditioner = learning_rate * min(batch_size, n) / n, problem.metric
    else:  # Eq. (12): the absolute step on each mini-batch gradient
        scale, preconditioner = learning_rate, 1.0
    single = batch_size == 1 and problem.quadratic_weight is not None
    epochs = 0
    while epochs < max_epochs:
        order = rng.permutation(n)
        if single:
            x = _single_sample_epoch(problem, linear, x, order, scale, preconditioner)
        else:
            for start in range(0, n, batch_size):
                batch = order[start : start + batch_size]
                batch_gradient = problem.convex_batch_gradient(x, batch) - linear
                x = x - scale * batch_gradient / preconditioner
        epochs += 1
        scale *= decay
        new_value, gradient = surrogate(x)
        change, value = abs(value - new_value), new_value
        if change <= inexact_tol:
            break
    return x, value, gradient, epochs


def _single_sample_epoch(problem, linear, x, order, scale, preconditioner):
    """One epoch of the steps ``x ← x − scale P⁻¹(∇g_i(x) − ∇h(x_k))`` over the samples ``order``, for a
    convex part of linear-model form (:class:`DCObjective`); returns the new ``x``.

    With ``∇g_i(x) = ω ⊙ x − s_i aᵢ`` the step is ``x ← D ⊙ x + κ + s_i bᵢ`` with the fixed
    ``D = 1 − scale ω/P``, ``κ = scale ∇h(x_k)/P`` and ``bᵢ = scale aᵢ/P``: one dot product for
    ``s_i``, one in-place scaling and one axpy per sample. The rows are gathered (and ``bᵢ`` formed) a
    chunk at a time. The iterates are those of the mini-batch loop with ``batch_size=1`` up to rounding
    (the same operations, grouped differently). Overflow raises ``FloatingPointError`` as there.

    The shrinkage is applied at every step: the rows are dense, so the lazy form ``x_j = Dʲ ⊙ z_j`` of
    sparse-feature SGD would only move the O(r) work into scaling each row by ``Dʲ`` (measured 2x
    slower than the in-place scaling of the cache-resident ``x``).
    """
    shrink = 1.0 - scale * problem.quadratic_weight / preconditioner
    shift = scale * linear / preconditioner
    shifted = bool(np.any(shift))
    x = np.array(x, dtype=np.float64)  # updated in place
    dim, slope, multiply = x.size, problem.negative_slope, np.multiply
    chunk = _ROW_CHUNK_BUDGET.rows(dim)
    for start in range(0, order.size, chunk):
        rows, labels = problem.sample_rows(order[start : start + chunk])
        steps = rows * (scale / preconditioner)
        for row, step, label in zip(rows, steps, labels.tolist(), strict=True):
            output = ddot(row, x)
            if not math.isfinite(output):
                raise FloatingPointError("overflow in a stochastic step")
            multiply(x, shrink, out=x)
            if shifted:
                daxpy(shift, x, dim, 1.0)
            daxpy(step, x, dim, slope(output, label))
        if not np.all(np.isfinite(x)):
            raise FloatingPointError("overflow in a stochastic step")
    return x


def concave_convex_procedure(
    problem: DCObjective,
    x0: ArrayLike,
    *,
    inner: str = "gd",
    step: str = "majorizer",
    inexact_tol: float = 1e-10,
    max_outer_iter: int = 20,
    max_inner_iter: int = 1000,
    tol: float = 0.0,
    learning_rate: float = 1.0,
    decay: float = 0.8,
    batch_size: int = 1,
    random_state: int | np.random.RandomState | None = None,
    callback: Callable[[int, NDArray[np.float64]], object] | None = None,
) -> SolverResult:
    """Minimize a d.c. objective by CCCP / CCICP (Algorithm 1 of Liu et al. 2019).

    Parameters
    ----------
    problem : DCObjective
    x0 : ndarray
        Starting point.
    inner : {"gd", "sgd"}, default="gd"
        Solver of the convex subproblems (module docstring).
    step : {"majorizer", "plain", "paper"}, default="majorizer"
        Steps in the metric of ``problem.metric`` (relative ``learning_rate``), or the paper's plain
        steps ``η ∇F_k`` (``"gd"``) and ``η ĝ`` per mini-batch (``"sgd"``) with an absolute ``η``,
        safeguarded (``"plain"``) or as Algorithm 1 prints them (``"paper"``: ``η`` decays by
        ``decay`` per gradient step, no safeguard).
    inexact_tol : float, default=1e-10
        ``ε`` of the early termination rule: the inner loop stops once one gradient step (one epoch
        for ``"sgd"``) changes the subproblem value by at most ``ε``.
    max_outer_iter : int, default=20
        ``k_max`` of Algorithm 1.
    max_inner_iter : int, default=1000
        Cap on the gradient steps (epochs for ``"sgd"``) per subproblem.
    tol : float, default=0.0
        Stop the outer loop early once an outer iteration changes ``F`` by at most ``tol``
        (``0`` runs all ``max_outer_iter`` iterations, as Algorithm 1 does).
    learning_rate : float, default=1.0
        Step ``η``. With ``step="majorizer"``, relative to the majorizer (``1`` is the
        majorization-minimization step of ``"gd"``; for ``"sgd"``, about ``η`` such steps' worth of
        progress per epoch); with ``step="plain"``, absolute (the paper uses ``0.02``).
    decay : float, default=0.8
        Per-epoch factor ``ρ`` of the stochastic step; per-step factor of ``"gd"`` with ``step="paper"``.
    batch_size : int, default=1
        Mini-batch size of ``"sgd"``.
    random_state : int, RandomState instance or None
        Sampling of the mini-batches.
    callback : callable, optional
        Called as ``callback(k, x)`` after each outer iteration.

    Returns
    -------
    SolverResult
        ``x`` the last outer iterate; ``fun`` ``F(x)`` (minimized); ``n_iter`` the outer iterations
        (subproblems solved); ``converged`` whether the outer loop stopped before ``max_outer_iter``
        (an iteration changed ``F`` by at most ``tol``, or a subproblem took no step); ``history``
        ``F(x_0), F(x_1), …`` (shape (n_iter + 1,)). Its own attribute: ``n_inner_iter``, the
        inner steps in all (gradient steps, or epochs of the stochastic solver).
    """
    with np.errstate(over="raise", invalid="raise"):
        try:
            return _run(
                problem, np.array(x0, dtype=float), inner, step, inexact_tol, max_outer_iter, max_inner_iter,
                tol, learning_rate, decay, batch_size, check_random_state(random_state), callback,
            )  # fmt: skip
        except FloatingPointError as error:
            raise FloatingPointError(
                "The iterates of CCCP overflowed: they diverged (an indefinite objective is unbounded "
                "below along its negative eigendirections; stop earlier, or increase the regularization "
                "or the shift tau)."
            ) from error


def _run(
    problem, x, inner, step, inexact_tol, max_outer_iter, max_inner_iter, tol, learning_rate, decay,
    batch_size, rng, callback,
):  # fmt: skip
    if inner not in ("gd", "sgd"):
        raise ValueError(f"inner must be 'gd' or 'sgd', got {inner!r}.")
    if step not in ("majorizer", "plain", "paper"):
        raise ValueError(f"step must be 'majorizer', 'plain' or 'paper', got {step!r}.")
    # g and ∇g at the current iterate: the last inner evaluation of each subproblem gives them for the
    # next, so an outer iteration costs no evaluation of g beyond those of its inner steps
    convex_value, convex_gradient = problem.convex(x)
    history = [convex_value - problem.concave(x)[0]]
    n_inner = 0
    for k in range(max_outer_iter):
        linear = problem.concave(x)[1]
        surrogate = _surrogate(problem, linear)
        value, gradient = convex_value - linear @ x, convex_gradient - linear
        if inner == "gd":
            x, value, gradient, steps = _gradient_descent(
                surrogate, problem.metric if step == "majorizer" else 1.0, x, value, gradient,
                inexact_tol=inexact_tol, learning_rate=learning_rate, max_iter=max_inner_iter,
                decay=decay if step == "paper" else 1.0, safeguard=step != "paper",
            )  # fmt: skip
        else:
            x, value, gradient, steps = _stochastic_gradient(
                problem, surrogate, linear, x, value, gradient, step=step,
                inexact_tol=inexact_tol, learning_rate=learning_rate, decay=decay,
                batch_size=batch_size, max_epochs=max_inner_iter, rng=rng,
            )  # fmt: skip
        n_inner += steps
        convex_value, convex_gradient = value + linear @ x, gradient + linear
        history.append(convex_value - problem.concave(x)[0])
        if callback is not None:
            callback(k, x)
        if abs(history[-2] - history[-1]) <= tol or steps == 0:
            message = "a subproblem took no step" if steps == 0 else "an iteration changed F by at most tol"
            return _result(x, history, k + 1, n_inner, True, message)
    return _result(x, history, max_outer_iter, n_inner, False, "max_outer_iter reached")


def _result(x, history, n_iter, n_inner, converged, message):
    return SolverResult(
        x, history[-1], n_iter=n_iter, converged=converged, message=message, history=history,
        n_inner_iter=n_inner,
    )  # fmt: skip

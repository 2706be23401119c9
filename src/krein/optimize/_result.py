"""The one result type of the solvers of :mod:`krein.optimize`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["SolverResult"]

#: The fields every solver fills.
FIELDS = ("x", "fun", "n_iter", "converged", "message", "history")


class SolverResult:
    """What a solver of :mod:`krein.optimize` returns.

    The six fields below are set by every solver. A solver may add attributes of its own, passed as
    keyword arguments and documented in its Returns section (the multiplier of
    :func:`solve_sphere_quadratic`, the intercept of :func:`squared_hinge_newton`, …); ``extra``
    lists their names.

    Parameters
    ----------
    x : ndarray or None
        The solution: the last iterate, or the best one for the solvers that keep the best
        (:func:`accpm_maximize`, :func:`exchange_maximize`; None there before a first point).
    fun : float or None
        The objective at ``x``, in the solver's own sign convention (its docstring says whether it
        minimizes or maximizes). None only where the solver never evaluates the objective at its
        iterates (:func:`projected_gradient` with ``rule="accelerated"``).
    n_iter : int
        Iterations taken (the solver's Returns section says which iterations it counts).
    converged : bool
        Whether the solver's stopping test held; False where it stopped at its iteration cap or
        for a reason ``message`` gives.
    message : str
        Why the solver stopped, in words.
    history : array-like or None, default=None
        The objective per iteration (each solver's Returns section says at which points); None where
        the solver keeps no history.
    **extra
        The solver's own attributes.

    Examples
    --------
    >>> from krein.optimize import solve_sphere_quadratic
    >>> result = solve_sphere_quadratic([-1.0, 2.0], [1.0, 0.0], 1.0)
    >>> result.x, result.fun, result.converged
    (array([1., 0.]), -3.0, True)
    >>> result.extra
    ('multiplier', 'shift', 'hard_case')
    """

    def __init__(
        self,
        x: NDArray[np.float64] | None,
        fun: float | None,
        *,
        n_iter: int,
        converged: bool,
        message: str,
        history: ArrayLike | None = None,
        **extra: Any,
    ) -> None:
        self.x = x
        self.fun = None if fun is None else float(fun)
        self.n_iter = int(n_iter)
        self.converged = bool(converged)
        self.message = str(message)
        self.history = None if history is None else np.asarray(history, dtype=float)
        self.extra = tuple(extra)
        for name, value in extra.items():
            setattr(self, name, value)

    if TYPE_CHECKING:

        def __getattr__(self, name: str) -> Any:
            """A solver's own attributes (``**extra``), set on the instance: read as ``Any``."""

    def __repr__(self) -> str:
        fields = [f"{name}={getattr(self, name)!r}" for name in (*FIELDS, *self.extra)]
        return "SolverResult(" + ", ".join(fields) + ")"

"""Exchange method for the semi-infinite QCLP (8) of Chen & Ye (2008).

Algorithm 3 of Luss & d'Aspremont (2009), Sec. 3.4: problem (4) is written as

    maximize t  s.t.  sᵀβ = r, 0 ≤ β ≤ u,  t ≤ pᵀβ − ½‖Lᵀ z(β)‖² + c(K)  for every K ⪰ 0,

with ``K = L Lᵀ``, ``z(β) = Mβ`` and ``c(K) = ρ‖K − K₀‖²``. The exchange method keeps a finite set of
kernels, solves the resulting quadratically constrained linear program (13) with a generic convex
solver (cvxpy, imported lazily: ``pip install cvxpy``), then adds the kernel that is optimal for the
new β (Theorem 1). ``t`` bounds the optimum from above, so ``t − f(β)`` is a duality gap; the
method stops when the new constraint is satisfied to that tolerance. Constraints whose multiplier
vanishes are pruned, as Chen & Ye do.
"""

from __future__ import annotations

import numpy as np

__all__ = ["exchange_maximize"]


def _import_cvxpy():
    try:
        import cvxpy
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError(
            "solver='exchange' solves its QCLP subproblems with cvxpy; install it with "
            "`pip install cvxpy` (or `pip install krein[exchange]`)."
        ) from error
    return cvxpy


def exchange_maximize(linear, z_map, signs, upper, rhs, constraint_at, *, max_iter, tol, callback):
    """Solve the semi-infinite QCLP by the exchange method.

    Parameters
    ----------
    linear : ndarray of shape (n_var,)
        ``p``.
    z_map : ndarray of shape (n_z, n_var)
        ``M`` with ``z = M β``.
    signs, upper, rhs
        The feasible set ``{sᵀβ = rhs, 0 ≤ β ≤ upper}``.
    constraint_at : callable
        ``constraint_at(β) -> (L, c)``: factor ``L`` (n_z×r) of the kernel optimal for β and its
        penalty ``c``; then ``f(β) = pᵀβ − ½‖Lᵀ z(β)‖² + c`` is the objective of (4) at β.
    max_iter : int
    tol : float
        Stop when ``t − f(β) ≤ tol · max(1, |f(β)|)`` (values relative to the constant ``f₀`` of
        :mod:`krein.svm._proxy`, which ``c`` leaves out).
    callback : callable
        ``callback(iteration, β_best, f_best, upper_bound) -> bool``; ``True`` stops.

    Returns
    -------
    beta_best, f_best, n_iter
    """
    cp = _import_cvxpy()
    n_var = linear.size
    beta = cp.Variable(n_var)
    t = cp.Variable()
    base = [signs @ beta == rhs, beta >= 0, beta <= upper]
    z = z_map @ beta
    kernels = [constraint_at(np.zeros(n_var))]  # K₁ = (K₀)₊
    beta_best, f_best = np.zeros(n_var), -np.inf
    iteration = 0
    for iteration in range(1, max_iter + 1):
        cuts = [t <= linear @ beta - 0.5 * cp.sum_squares(L.T @ z) + c for L, c in kernels]
        problem = cp.Problem(cp.Maximize(t), base + cuts)
        try:
            problem.solve()
        except cp.error.SolverError:  # the default (interior-point) solver can fail on tight QCLPs
            problem.solve(solver=cp.SCS, eps=1e-9, max_iters=100_000)
        if problem.status not in ("optimal", "optimal_inaccurate"):
            raise RuntimeError(f"The QCLP subproblem of the exchange method failed: {problem.status}.")
        beta_value = np.clip(np.asarray(beta.value, dtype=float), 0, upper)
        t_value = float(t.value)
        L, c = constraint_at(beta_value)
        z_value = z_map @ beta_value
        value = float(linear @ beta_value - 0.5 * np.sum((L.T @ z_value) ** 2) + c)
        if value > f_best:
            beta_best, f_best = beta_value, value
        if callback(iteration, beta_best, f_best, t_value):
            break
        if t_value - value <= tol * max(1.0, abs(value)):
            break
        duals = [cut.dual_value if cut.dual_value is not None else 0.0 for cut in cuts]
        multipliers = np.array([np.abs(np.asarray(dual)).sum() for dual in duals])
        active = multipliers > 1e-9 * max(1.0, multipliers.max(initial=0.0))
        kernels = [k for k, keep in zip(kernels, active, strict=True) if keep] + [(L, c)]
    return beta_best, f_best, iteration

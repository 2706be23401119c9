"""Exchange method for the semi-infinite QCLP (8) of Chen & Ye (2008), with its own QCLP solver.

Algorithm 3 of Luss & d'Aspremont (2009), Sec. 3.4. Problem (4) is written as the semi-infinite
quadratically constrained linear program (SIQCLP (8))

    maximize t  s.t.  sᵀβ = r, 0 ≤ β ≤ u,   t ≤ φ_K(β) = pᵀβ − ½ z(β)ᵀK z(β) + c(K)   for every K ⪰ 0,

with ``z(β) = Mβ`` and ``c(K) = ρ‖K − K₀‖²_F``. The exchange method keeps a finite set of *cutting
kernels* ``K₁ = (K₀)₊, K₂, …`` and solves the QCLP (13)

    maximize t  s.t.  sᵀβ = r, 0 ≤ β ≤ u,   t ≤ φ_j(β) = pᵀβ − ½βᵀQ_jβ + c_j,   j = 1, …, m,

``Q_j = MᵀK_jM``; at its solution β_k it adds ``K_{k+1} = K*(β_k)``, the kernel of Theorem 1 that
attains ``f(β_k) = min_K φ_K(β_k)``, and drops the cuts whose multiplier vanished (as Chen & Ye do).
Each cut is a *tangent majorant* of the objective ``f`` of (7): ``φ_j ≥ f`` everywhere, with equality
(and equal gradients) at the point it was made from. So the QCLP value bounds ``f*`` from above and
decreases as cuts are added; the method stops when ``f(β_k)`` reaches it (step 2 of Algorithm 3).

**The QCLP solver.** (13) is a regularized multiple-kernel-learning problem (Lanckriet et al.; Chen &
Ye): by the minimax theorem its value is ``min_{θ∈Δ} θᵀc + max_{β∈A} [pᵀβ − ½βᵀ(Σⱼθ_jQ_j)β]``, an SVM
dual with kernel ``Σθ_jK_j`` plus the constants, ``θ`` the multipliers of the quadratic cuts in the
simplex ``Δ``. :func:`solve_qclp` solves primal and dual together by a primal–dual interior-point
method (Mehrotra predictor–corrector) on the KKT system of (13):

    Σθ_j(Q_jβ − p) − μ + ω + νs = 0,  Σθ_j = 1,   θ_j(φ_j(β) − t) = μ_iβ_i = ω_i(u_i − β_i) = σ → 0.

Eliminating the multipliers leaves one symmetric positive-definite system in β per step,

    (Σθ_jQ_j + D + Aᵀ diag(θ_j/w_j) A − ggᵀ/Σ(θ_j/w_j)) Δβ + sΔν = R,     sᵀΔβ = −(sᵀβ − r),

``D = diag(μ/β + ω/(u − β))``, ``A`` the m × n matrix of cut gradients ``∇φ_j = p − Q_jβ``,
``w_j = φ_j − t``, ``g = Aᵀ(θ/w)``: one Cholesky factorization serves predictor and corrector.
An interior-point method takes a number of steps nearly independent of n (about 10 here) and
reaches any accuracy, which a cutting-plane method needs of its subproblems near the end (the
generic conic solver called through cvxpy before did the same with far more overhead).

**Inexact subproblems.** The QCLP at iteration k is solved until its certified gap is at most
``max(tol/10, ½ (U_{k−1} − f_best))`` (relative to ``max(1, |f_best|)``): while the exchange gap is
large the interior-point method stops on the central path, away from the edge of the cut model, and
(as the analytic centres of ACCPM do) this steadies the cutting kernels: on the paper's setting
(Simpson kernel on digits, C = 10) it needs 2–3 times fewer cuts than exact QCLP solves at ρ = 1.
Algorithm 3 is otherwise unchanged, and the accuracy tightens with the gap, so the method still
stops only at ``f(β_k) ≥ U − tol`` (step 2).

**Certificates.** Every QCLP answer is certified without trusting the solver: at the projected
iterate β̂ (exactly feasible) ``min_j φ_j(β̂)`` is a lower bound of (13), and with ``θ`` normalized
to the simplex

    U = θᵀc + pᵀβ̂ − ½β̂ᵀQ(θ)β̂ + max_{β′∈A} ∇(β̂)ᵀ(β′ − β̂) ≥ max_{β∈A} Φ(β, θ) ≥ value of (13) ≥ f*,

(the linearization of the concave SVM objective at β̂, maximized over A by the caller's ``gap``). So
the exchange method reports ``U`` (not the solver's ``t``) as its upper bound on f*, and ``f(β_k)``
as its lower bound: the gap is certified even if a subproblem is solved inexactly.

**Cost per iteration** (n_β variables, m cuts kept after pruning, r the rank of the new
kernel): the new cut is one proxy kernel (the caller's rank-one eigen-update plus one n × n product,
O(n³)) and ``Q = (LᵀM)ᵀ(LᵀM)``, O(r n_β²); the QCLP costs about 10 interior-point steps of
``O(n_β³/3 + m n_β²)`` each (the Cholesky factorization and forming ``Σθ_jQ_j``, ``Q_jβ``). A
projected-gradient iteration costs O(n²), so one exchange iteration is worth some hundreds of them.
How many cuts the method needs depends on ρ: each cut carries the curvature ``Q_j`` of f along
``z_j`` only, while the rank-one term ``zzᵀ/4ρ`` of Theorem 1 curves f in every direction, so the
count falls from hundreds at ρ = 1 to a handful at ρ ≥ 1000 (``benchmarks/bench_svm.py``, part 3).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from ._projection import project_box_hyperplane

__all__ = ["QCLPSolution", "exchange_maximize", "solve_qclp"]

#: Fraction of the way to the boundary an interior-point step may go.
_TO_BOUNDARY = 0.995
#: Each QCLP is solved until its certified gap is below this fraction of the exchange method's gap.
_INEXACT = 0.5


@dataclass
class QCLPSolution:
    """Result of :func:`solve_qclp`: a feasible β, cut weights θ ∈ Δ and certified bounds of (13)."""

    beta: np.ndarray
    weights: np.ndarray
    lower: float
    upper: float
    n_iter: int


def _step_to_boundary(values, steps):
    """Largest α ≤ 1 with ``values + α·steps ≥ (1 − τ)·values`` for every entry (values > 0)."""
    shrinking = steps < 0
    if not np.any(shrinking):
        return 1.0
    return float(min(1.0, _TO_BOUNDARY * np.min(values[shrinking] / -steps[shrinking])))


def solve_qclp(quadratics, constants, linear, signs, upper, rhs, gap, *, tol, max_iter=100):
    """Solve the QCLP (13) by a primal–dual interior-point method (module docstring).

    Parameters
    ----------
    quadratics : ndarray of shape (m, n, n)
        The positive semidefinite ``Q_j``.
    constants : ndarray of shape (m,)
        ``c_j``.
    linear : ndarray of shape (n,)
        ``p``.
    signs, upper, rhs
        The feasible set ``A = {sᵀβ = rhs, 0 ≤ β ≤ upper}`` (s = ±1).
    gap : callable
        ``gap(β, g) = max_{β′∈A} gᵀ(β′ − β)`` for β in A.
    tol : float
        Absolute tolerance on the certified bound gap ``U − min_j φ_j(β̂)``.
    max_iter : int

    Returns
    -------
    QCLPSolution
        ``lower ≤ value of (13) ≤ upper`` hold whatever the number of steps taken.
    """
    m, n = constants.size, linear.size
    active = upper > 0  # variables with u_i = 0 are fixed at 0
    if np.all(active):
        Q, p, s, u = quadratics, linear, signs, upper
    else:
        Q = quadratics[:, active][:, :, active]
        p, s, u = linear[active], signs[active], upper[active]
    k = p.size
    Q = np.ascontiguousarray(Q)
    stacked, flat = Q.reshape(m * k, k), Q.reshape(m, k * k)  # for Q_jβ and Σθ_jQ_j

    def certify(beta_active, lam, iteration):
        beta = np.zeros(n)
        beta[active] = beta_active
        beta = project_box_hyperplane(beta, signs, upper, rhs)
        theta = lam / lam.sum()
        Qb = (stacked @ beta[active]).reshape(m, k)
        cuts = linear @ beta - 0.5 * (Qb @ beta[active]) + constants
        gradient = linear.copy()
        gradient[active] -= theta @ Qb
        bound = float(theta @ cuts + gap(beta, gradient))
        return QCLPSolution(beta, theta, float(cuts.min()), bound, iteration)

    beta, lam = u / 2, np.full(m, 1.0 / m)
    Qb = (stacked @ beta).reshape(m, k)
    phi = p @ beta - 0.5 * (Qb @ beta) + constants
    t = float(phi.min()) - 1.0
    w = phi - t
    scale = max(1.0, float(np.max(np.abs(p - lam @ Qb))))
    mu, omega, nu = np.full(k, scale), np.full(k, scale), 0.0
    best = None
    for iteration in range(1, max_iter + 1):
        Qb = (stacked @ beta).reshape(m, k)
        A = p - Qb  # rows ∇φ_j(β)
        phi = p @ beta - 0.5 * (Qb @ beta) + constants
        slack = u - beta
        r_w = phi - t - w
        r_t = lam.sum() - 1.0
        r_b = -(lam @ A) - mu + omega + nu * s
        r_e = s @ beta - rhs
        complementarity = lam @ w + mu @ beta + omega @ slack
        if complementarity <= tol or iteration == max_iter:
            candidate = certify(beta, lam, iteration - 1)
            if best is None or candidate.upper - candidate.lower < best.upper - best.lower:
                best = candidate
            if best.upper - best.lower <= tol:
                break
        d = lam / w
        d_sum = d.sum()
        g = A.T @ d
        H = (lam @ flat).reshape(k, k) + (A.T * d) @ A - np.outer(g / d_sum, g)
        H[np.diag_indices_from(H)] += mu / beta + omega / slack
        factor = scipy.linalg.cho_factor(H, lower=True, check_finite=False)
        Hs = scipy.linalg.cho_solve(factor, s, check_finite=False)
        sHs = s @ Hs

        def direction(rho_lam, rho_mu, rho_omega):
            e = rho_lam / w - d * r_w  # noqa: B023
            R = -r_b + A.T @ e + rho_mu / beta - rho_omega / slack  # noqa: B023
            R += g * ((-r_t - e.sum()) / d_sum)  # noqa: B023
            HR = scipy.linalg.cho_solve(factor, R, check_finite=False)  # noqa: B023
            d_nu = (s @ HR + r_e) / sHs  # noqa: B023
            d_beta = HR - d_nu * Hs  # noqa: B023
            d_t = (-r_t - e.sum() + g @ d_beta) / d_sum  # noqa: B023
            d_w = r_w + A @ d_beta - d_t  # noqa: B023
            d_lam = (rho_lam - lam * d_w) / w
            d_mu = (rho_mu - mu * d_beta) / beta
            d_omega = (rho_omega + omega * d_beta) / slack  # noqa: B023
            step = _step_to_boundary(
                np.concatenate([beta, slack, w, lam, mu, omega]),  # noqa: B023
                np.concatenate([d_beta, -d_beta, d_w, d_lam, d_mu, d_omega]),
            )
            return step, d_beta, d_t, d_w, d_lam, d_mu, d_omega, d_nu

        a, d_beta, _, d_w, d_lam, d_mu, d_omega, _ = direction(-lam * w, -mu * beta, -omega * slack)
        predicted = (
            (lam + a * d_lam) @ (w + a * d_w)
            + (mu + a * d_mu) @ (beta + a * d_beta)
            + (omega + a * d_omega) @ (slack - a * d_beta)
        )
        target = (predicted / complementarity) ** 3 * complementarity / (m + 2 * k)
        a, d_beta, d_t, d_w, d_lam, d_mu, d_omega, d_nu = direction(
            target - lam * w - d_lam * d_w,
            target - mu * beta - d_mu * d_beta,
            target - omega * slack + d_omega * d_beta,
        )
        beta, t, w, lam = beta + a * d_beta, t + a * d_t, w + a * d_w, lam + a * d_lam
        mu, omega, nu = mu + a * d_mu, omega + a * d_omega, nu + a * d_nu
    return best


def exchange_maximize(linear, z_map, signs, upper, rhs, constraint_at, gap, *, max_iter, tol, callback):
    """Solve the semi-infinite QCLP (8) by the exchange method (Algorithm 3, module docstring).

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
    gap : callable
        ``gap(β, g) = max_{β′ in the feasible set} gᵀ(β′ − β)``.
    max_iter : int
    tol : float
        Stop when ``U − f(β) ≤ tol · max(1, |f(β)|)`` for the certified QCLP bound ``U`` (values
        relative to the constant ``f₀`` of :mod:`krein.svm._proxy`, which ``c`` leaves out).
    callback : callable
        ``callback(iteration, β_best, f_best, upper_bound) -> bool``; ``True`` stops.

    Returns
    -------
    beta_best, f_best, n_iter
    """
    n_var = linear.size
    quadratics, constants = [], []

    def add_cut(beta):
        L, c = constraint_at(beta)
        G = L.T @ z_map
        quadratics.append(G.T @ G)
        constants.append(c)
        z = z_map @ beta
        return float(linear @ beta - 0.5 * np.sum((L.T @ z) ** 2) + c)

    add_cut(np.zeros(n_var))  # K₁ = (K₀)₊, the kernel optimal at z = 0 (β = 0 may be infeasible)
    beta_best, f_best = None, -np.inf
    gap_now = 0.0  # the first QCLP (one cut, the SVM on (K₀)₊) is solved to full accuracy
    iteration = 0
    for iteration in range(1, max_iter + 1):
        scale = max(1.0, abs(f_best)) if np.isfinite(f_best) else 1.0
        accuracy = max(0.1 * tol * scale, _INEXACT * gap_now)
        qclp = solve_qclp(
            np.stack(quadratics), np.array(constants), linear, signs, upper, rhs, gap, tol=accuracy
        )
        gap_now = qclp.upper - f_best
        keep = qclp.weights > 1e-6 * qclp.weights.max()  # prune the cuts inactive at the QCLP solution (Chen & Ye)
        quadratics[:] = [q for q, k in zip(quadratics, keep, strict=True) if k]
        constants[:] = [c for c, k in zip(constants, keep, strict=True) if k]
        value = add_cut(qclp.beta)
        if value > f_best:
            beta_best, f_best = qclp.beta, value
        if callback(iteration, beta_best, f_best, qclp.upper):
            break
        if qclp.upper - f_best <= tol * max(1.0, abs(f_best)):
            break
    return beta_best, f_best, iteration

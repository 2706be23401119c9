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

**Level stabilization (krein's default).** Plain Algorithm 3 is Kelley's cutting-plane method with
quadratic cuts: the next cut is made at the maximizer of the cut model ``min_j φ_j``, which jumps
from one side of the optimum to the other when ``f`` is strongly curved (small ρ: the cuts carry the
curvature of ``f`` along the ``z_j`` only). krein stabilizes it by the level method of Lemaréchal,
Nemirovskii & Nesterov (1995, Math. Program. 69): after the QCLP (13) gives the model's maximum
(its certified lower end ``U_k⁻``) and with ``L_k = max_{i≤k} f(β_i)`` at ``β̂`` the best point, the
next cut is made at the projection of ``β̂`` on the level set

    minimize ½‖β − β̂‖²  s.t.  sᵀβ = r, 0 ≤ β ≤ u,  φ_j(β) ≥ ℓ_k = L_k + λ(U_k⁻ − L_k),  j = 1, …, m,

(λ = 0.8), a QP with quadratic constraints solved by the same interior-point method with ``t = ℓ_k``
fixed (:func:`project_on_level_set`; the QCLP point, where every ``φ_j ≥ U_k⁻ > ℓ_k``, starts it).
The cuts, the QCLPs, the certified bounds and the stopping rule are those of Algorithm 3; only the
point where the next cut is made changes, and with it which cuts are kept. The level method
converges (LNN95) on a model that only grows; with pruning it needs the two properties a
restricted-memory level method keeps: (i) the projection is taken on every cut kept so far, the
newest included, and a cut is dropped only if it is inactive both at the QCLP solution and at the
projection (multiplier below ``_PRUNE`` of the largest and slack ``φ_j − ℓ_k`` above ``_SLACK`` of
``U⁻ − ℓ_k``), so the projection of the reduced model is the one just made and the next cut, which
excludes it, moves the projection away from ``β̂``; (ii) ``U_k⁻`` is the least model maximum so
far, so the level does not rise when pruning raises the model's maximum. Chen & Ye's rule alone
(prune by the QCLP multipliers, then project) drops the newest cut, made at the last projection
and inactive at the model's maximum far from ``β̂``: the projection then returns the same point,
or alternates between two as the level rises and falls with the pruned model, and the method
re-adds and re-prunes the same cuts for ever. On an n = 30 sigmoid-kernel SVC (seeds 0–6, ρ = 0.1,
0.5, 2, 10, tol = 1e-6, 1e-7, 1e-8) 28 of those 84 runs stalled so at 500 cuts (at 1.06e-6 for
ρ = 0.5, seed 6, tol = 1e-6, a two-point cycle from the 41st cut on; 5.1e-3 for seed 2), none
with (i) and (ii), which need 3,303 cuts in all instead of 15,115. The cut made at ``β̂`` is
never pruned either (without it ``β̂`` itself lies in the level set, the projection returns it:
5 of 10 USPS subsets at n = 100, ρ = 0.1 stalled so before this rule). On the
paper's Fig. 2 problem (Simpson kernel on binarized USPS 3 vs 5) at n = 200 (C = 10, tol = 1e-3) it
needs 15, 11, 8 and 5 cuts at ρ = 1, 10, 100, 1000
where plain Algorithm 3 needs 178, 77, 24 and 9 (λ from 0.3 to 0.95 measured there: 0.7–0.9 alike,
0.8 the fewest; 0.3 needs twice as many).
``exchange_maximize(..., stabilization=None)`` is the paper's plain Algorithm 3.

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
An interior-point method takes a number of steps nearly independent of n (10–15 here) and
reaches any accuracy, which a cutting-plane method needs of its subproblems near the end (the
generic conic solver called through cvxpy before did the same with far more overhead).

**Inexact subproblems (plain Algorithm 3).** The QCLP at iteration k is solved until its certified
gap is at most
``max(tol·|U_{k−1}|/10, ¾(U_{k−1} − f_best))``: while the exchange gap is large the
interior-point method stops on the central path, away from the edge of the cut model, and (as the
analytic centres of ACCPM do) this steadies the cutting kernels: on a Simpson kernel of binarized
digits 3 vs 5 (C = 10, n = 50, ρ = 1) it needs 103 cuts where exact QCLP solves need 397 (the
factor ¾ was chosen on that problem and n = 100; factors ≥ 1 can stall). Algorithm 3 is otherwise
unchanged, and the accuracy tightens with the gap, so the method still stops only at
``f(β_k) ≥ U − tol`` (step 2). The level method needs no such steadying and solves every QCLP to
``tol·|U_{k−1}|/10``: its level is then that of the true model maximum (on the USPS problem
above 13, 8, 5 cuts instead of 16, 12, 8 at ρ = 10, 100, 1000 and 17 both at ρ = 1; the time is
shorter at ρ ≥ 10, longer at ρ = 1, about the same in sum).

**Certificates.** Every QCLP answer is certified without trusting the solver: at the projected
iterate β̂ (exactly feasible) ``min_j φ_j(β̂)`` is a lower bound of (13), and with ``θ`` normalized
to the simplex

    U = θᵀc + pᵀβ̂ − ½β̂ᵀQ(θ)β̂ + max_{β′∈A} ∇(β̂)ᵀ(β′ − β̂) ≥ max_{β∈A} Φ(β, θ) ≥ value of (13) ≥ f*,

(the linearization of the concave SVM objective at β̂, maximized over A by the caller's ``gap``). So
the exchange method reports ``U`` (not the solver's ``t``) as its upper bound on f*, and ``f(β_k)``
as its lower bound: the gap is certified even if a subproblem is solved inexactly.

**Cost per iteration** (n_β variables, m cuts kept after pruning, r the rank of the new
kernel): the new cut is one proxy kernel (the caller's rank-one eigen-update plus one n × n product,
O(n³)) and ``Q = (LᵀM)ᵀ(LᵀM)``, O(r n_β²); the QCLP costs 6–8 interior-point steps (warm-started
from the previous (β, θ)) of ``O(n_β³/3 + m n_β²)`` each (the Cholesky factorization and forming
``Σθ_jQ_j``, ``Q_jβ``). A
projected-gradient iteration costs O(n²), so one exchange iteration is worth some hundreds of them.
How many cuts the method needs depends on ρ: each cut carries the curvature ``Q_j`` of f along
``z_j`` only, while the rank-one term ``zzᵀ/4ρ`` of Theorem 1 curves f in every direction, so the
count falls as ρ grows (plain Algorithm 3 above: 178 cuts at ρ = 1, 9 at ρ = 1000) and the level
method takes out most of the difference (17 and 5), against 20–50 projected-gradient iterations:
with it the exchange method takes 1.5–15× the time of projected gradient there, plain Algorithm 3
1.6–370× (``python benchmarks/bench_svm.py --part 3`` prints the times and their ratios).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.linalg
from numpy.typing import NDArray

from ._projection import project_box_hyperplane
from ._result import SolverResult

__all__ = ["QCLPSolution", "exchange_maximize", "solve_qclp"]

#: Fraction of the way to the boundary an interior-point step may go.
_TO_BOUNDARY = 0.995
#: Plain Algorithm 3: each QCLP is solved until its certified gap is below this fraction of the
#: exchange method's gap (the level method solves them to a tenth of the tolerance).
_INEXACT = 0.75
#: A cut is dropped when its weight θ_j falls below this fraction of the largest.
_PRUNE = 1e-4
#: Level method: the next cut is made at the projection of the best point on the level set of the
#: cut model at this fraction of the way from the best value to the model's maximum.
_LEVEL = 0.8
#: Level method: a cut is also kept while its slack ``φ_j − ℓ`` at the projection is at most this
#: fraction of ``U⁻ − ℓ`` (the projection is inexact, and a small multiplier can hold a cut that
#: moves the projection far when dropped: ``_PRUNE`` alone left 2 of 84 test runs cycling at tol 1e-8).
_SLACK = 0.01
#: Warm start of each QCLP: this much of the previous solution (β, θ), the rest of the cold start.
_WARM = 0.95


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


class _InteriorPoint:
    """State ``(β, t, w, θ, μ, ω, ν)`` of the primal–dual method for (13) on the variables with u > 0.

    With ``level`` ℓ and ``center`` β̂ it solves the level projection instead (module docstring):
    ``minimize ½‖β − β̂‖²  s.t.  φ_j(β) ≥ ℓ``, β in the feasible set; ``t = ℓ`` is then fixed.
    """

    def __init__(self, Q, constants, p, s, u, rhs, start=None, level=None, center=None):
        m, k = constants.size, p.size
        self.constants, self.p, self.s, self.u, self.rhs = constants, p, s, u, rhs
        self.level, self.center = level, center
        self.stacked, self.flat = Q.reshape(m * k, k), Q.reshape(m, k * k)  # for Q_jβ and Σθ_jQ_j
        self.beta, self.lam = u / 2, np.full(m, 1.0 / m)
        if start is not None:  # the previous solution, a little towards the centre: strictly interior
            self.beta = _WARM * start[0] + (1 - _WARM) * self.beta
            self.lam = _WARM * start[1] + (1 - _WARM) * self.lam
        A, phi = self.cuts(self.beta)
        if level is None:
            self.t = float(phi.min()) - 1.0
            self.w = phi - self.t
        else:  # an infeasible start where φ_j(β) < ℓ: the residual φ − ℓ − w is driven to 0
            self.t = float(level)
            self.w = np.maximum(phi - self.t, 1.0)
        scale = max(1.0, float(np.max(np.abs(self.lam @ A))))
        self.mu, self.omega, self.nu = np.full(k, scale), np.full(k, scale), 0.0

    def cuts(self, beta):
        """Gradients ``A`` (rows ``p − Q_jβ``) and values ``φ_j(β)`` of the cuts."""
        Qb = (self.stacked @ beta).reshape(self.constants.size, beta.size)
        return self.p - Qb, self.p @ beta - 0.5 * (Qb @ beta) + self.constants

    def complementarity(self):
        return float(self.lam @ self.w + self.mu @ self.beta + self.omega @ (self.u - self.beta))

    def linearize(self):
        """Residuals and the Cholesky factor of the reduced Newton matrix (module docstring)."""
        beta, lam, w = self.beta, self.lam, self.w
        self.A, phi = self.cuts(beta)
        self.slack = self.u - beta
        self.r_w = phi - self.t - w
        self.r_b = -(lam @ self.A) - self.mu + self.omega + self.nu * self.s
        self.r_e = self.s @ beta - self.rhs
        self.d = lam / w
        k = beta.size
        H = (lam @ self.flat).reshape(k, k) + (self.A.T * self.d) @ self.A
        if self.level is None:  # t eliminated: Σθ_j = 1
            self.r_t = lam.sum() - 1.0
            self.d_sum = self.d.sum()
            self.g = self.A.T @ self.d
            H -= np.outer(self.g / self.d_sum, self.g)
            H[np.diag_indices_from(H)] += self.mu / beta + self.omega / self.slack
        else:  # t = ℓ fixed; the objective ½‖β − β̂‖² adds β − β̂ and the identity
            self.r_b += beta - self.center
            H[np.diag_indices_from(H)] += 1.0 + self.mu / beta + self.omega / self.slack
        self.factor = scipy.linalg.cho_factor(H, lower=True, check_finite=False)
        self.Hs = scipy.linalg.cho_solve(self.factor, self.s, check_finite=False)

    def direction(self, rho_lam, rho_mu, rho_omega):
        """Newton direction for the complementarity targets ``θw = ρ_θ, μβ = ρ_μ, ω(u − β) = ρ_ω``
        (linearized), and the step that keeps the iterate ``τ``-interior."""
        beta, slack, w = self.beta, self.slack, self.w
        e = rho_lam / w - self.d * self.r_w
        R = -self.r_b + self.A.T @ e + rho_mu / beta - rho_omega / slack
        if self.level is None:
            R += self.g * ((-self.r_t - e.sum()) / self.d_sum)
        HR = scipy.linalg.cho_solve(self.factor, R, check_finite=False)
        d_nu = (self.s @ HR + self.r_e) / (self.s @ self.Hs)
        d_beta = HR - d_nu * self.Hs
        d_t = 0.0 if self.level is not None else (-self.r_t - e.sum() + self.g @ d_beta) / self.d_sum
        d_w = self.r_w + self.A @ d_beta - d_t
        d_lam = (rho_lam - self.lam * d_w) / w
        d_mu = (rho_mu - self.mu * d_beta) / beta
        d_omega = (rho_omega + self.omega * d_beta) / slack
        step = _step_to_boundary(
            np.concatenate([beta, slack, w, self.lam, self.mu, self.omega]),
            np.concatenate([d_beta, -d_beta, d_w, d_lam, d_mu, d_omega]),
        )
        return step, (d_beta, d_t, d_w, d_lam, d_mu, d_omega, d_nu)

    def step(self):
        """One Mehrotra predictor–corrector step."""
        self.linearize()
        lam, w, mu, omega, beta, slack = self.lam, self.w, self.mu, self.omega, self.beta, self.slack
        a, (d_beta, _, d_w, d_lam, d_mu, d_omega, _) = self.direction(-lam * w, -mu * beta, -omega * slack)
        current = self.complementarity()
        predicted = (
            (lam + a * d_lam) @ (w + a * d_w)
            + (mu + a * d_mu) @ (beta + a * d_beta)
            + (omega + a * d_omega) @ (slack - a * d_beta)
        )
        target = (predicted / current) ** 3 * current / (lam.size + 2 * beta.size)
        a, (d_beta, d_t, d_w, d_lam, d_mu, d_omega, d_nu) = self.direction(
            target - lam * w - d_lam * d_w,
            target - mu * beta - d_mu * d_beta,
            target - omega * slack + d_omega * d_beta,
        )
        self.beta, self.t, self.w = beta + a * d_beta, self.t + a * d_t, w + a * d_w
        self.lam, self.mu, self.omega = lam + a * d_lam, mu + a * d_mu, omega + a * d_omega
        self.nu += a * d_nu


def _on_free_variables(quadratics, constants, linear, signs, upper, rhs, start, level=None, center=None):
    """``(active, method)``: the interior-point method on the variables with ``u_i > 0`` (the others
    are fixed at 0)."""
    active = upper > 0
    Q = quadratics if np.all(active) else quadratics[:, active][:, :, active]
    method = _InteriorPoint(
        np.ascontiguousarray(Q),
        constants,
        linear[active],
        signs[active],
        upper[active],
        rhs,
        None if start is None else (start[0][active], start[1]),
        level=level,
        center=None if center is None else center[active],
    )
    return active, method


def solve_qclp(quadratics, constants, linear, signs, upper, rhs, gap, *, tol, max_iter=100, start=None):
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
    start : (ndarray of shape (n,), ndarray of shape (m,)), optional
        A previous solution ``(β, θ)`` (a new cut with weight 0): the method starts from
        ``0.95·start + 0.05·(u/2, 1/m)``, which saves about a third of the steps in the exchange method.

    Returns
    -------
    QCLPSolution
        ``lower ≤ value of (13) ≤ upper`` hold whatever the number of steps taken.
    """
    active, method = _on_free_variables(quadratics, constants, linear, signs, upper, rhs, start)

    def certify(iteration):
        beta = np.zeros(linear.size)
        beta[active] = method.beta
        beta = project_box_hyperplane(beta, signs, upper, rhs)
        theta = method.lam / method.lam.sum()
        A, phi = method.cuts(beta[active])
        gradient = np.zeros(linear.size)
        gradient[active] = theta @ A
        bound = float(theta @ phi + gap(beta, gradient))
        return QCLPSolution(beta, theta, float(phi.min()), bound, iteration)

    best = None
    for iteration in range(max_iter + 1):
        if method.complementarity() <= tol or iteration == max_iter:
            candidate = certify(iteration)
            if best is None or candidate.upper - candidate.lower < best.upper - best.lower:
                best = candidate
            if best.upper - best.lower <= tol or iteration == max_iter:
                break
        try:
            method.step()
        except np.linalg.LinAlgError:  # the Newton matrix lost definiteness to rounding: stop here
            candidate = certify(iteration)
            return (
                candidate
                if best is None or candidate.upper - candidate.lower < best.upper - best.lower
                else best
            )
    return best


def project_on_level_set(
    quadratics, constants, linear, signs, upper, rhs, level, center, *, start, tol, max_iter=30
):
    """Project ``center`` on the level set ``{β ∈ A : φ_j(β) ≥ ℓ for every cut j}`` (level method).

    The same interior-point method as :func:`solve_qclp` on ``minimize ½‖β − β̂‖²  s.t.  φ_j(β) ≥ ℓ``
    (``t = ℓ`` fixed, no Σθ = 1), from ``start = (β, θ)``, the QCLP solution (where ``min_j φ_j > ℓ``).
    Any point of A makes a valid cut, so the projection need not be exact: it stops once the
    complementarity is 1 % of ``½‖β − β̂‖²`` and the level residual ``max_j |φ_j(β) − ℓ − w_j|`` is
    at most ``tol``, or after ``max_iter`` steps, and returns the nearest point of A to its iterate.
    """
    point, _, _ = _level_projection(
        quadratics, constants, linear, signs, upper, rhs, level, center,
        start=start, tol=tol, max_iter=max_iter,
    )  # fmt: skip
    return point


def _level_projection(
    quadratics, constants, linear, signs, upper, rhs, level, center, *, start, tol, max_iter
):
    """:func:`project_on_level_set` with the multipliers ``θ_j ≥ 0`` of its cuts ``φ_j(β) ≥ ℓ`` and
    their slacks ``φ_j(β) − ℓ`` at the point returned (which cuts shape the level set there)."""
    active, method = _on_free_variables(
        quadratics, constants, linear, signs, upper, rhs, start, level=level, center=center
    )
    for _ in range(max_iter):
        try:
            method.step()
        except np.linalg.LinAlgError:
            break
        distance = 0.5 * float(np.sum((method.beta - method.center) ** 2))
        if method.complementarity() <= 0.01 * distance and np.max(np.abs(method.r_w)) <= tol:
            break
    beta = np.zeros(upper.size)
    beta[active] = method.beta
    beta = project_box_hyperplane(beta, signs, upper, rhs)
    return beta, method.lam, method.cuts(beta[active])[1] - level


class _CutBank:
    """The cuts ``(Q_j, c_j)`` in one preallocated array (no copy of all of them per iteration)."""

    def __init__(self, n_var):
        self.quadratics, self.constants, self.count = np.empty((8, n_var, n_var)), np.empty(8), 0

    def add(self, quadratic, constant):
        if self.count == self.constants.size:
            self.quadratics = np.concatenate([self.quadratics, np.empty_like(self.quadratics)])
            self.constants = np.concatenate([self.constants, np.empty_like(self.constants)])
        self.quadratics[self.count], self.constants[self.count] = quadratic, constant
        self.count += 1

    def keep(self, mask):
        if not np.all(mask):
            kept = np.flatnonzero(mask)
            self.quadratics[: kept.size] = self.quadratics[kept]
            self.constants[: kept.size] = self.constants[kept]
            self.count = kept.size

    def arrays(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        return self.quadratics[: self.count], self.constants[: self.count]


def exchange_maximize(
    linear: NDArray[np.float64],
    z_map: NDArray[np.float64],
    signs: NDArray[np.float64],
    upper: NDArray[np.float64],
    rhs: float,
    constraint_at: Callable[[NDArray[np.float64]], tuple[NDArray[np.float64], float]],
    gap: Callable[[NDArray[np.float64], NDArray[np.float64]], float],
    *,
    max_iter: int,
    tol: float,
    callback: Callable[[int, NDArray[np.float64] | None, float, float], bool],
    stabilization: str | None = "level",
) -> SolverResult:
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
        Stop when ``U − f(β) ≤ tol · max(|U|, |f(β)|)`` for the certified QCLP bound ``U`` (values
        relative to the constant ``f₀`` of :mod:`krein.svm._proxy`, which ``c`` leaves out): a
        relative gap, the same on an objective of any size. Each QCLP after the first is solved to
        ``tol·|U|/10`` of the previous bound ``U``.
    callback : callable
        ``callback(iteration, β_best, f_best, upper_bound) -> bool``; ``True`` stops. ``β_best`` is None
        while no cut has had a value above −∞.
    stabilization : {"level", None}, default="level"
        ``"level"``: each cut is made at the projection of the best point on the level set of the
        cut model (level method, module docstring); ``None``: at the QCLP solution, the paper's
        plain Algorithm 3 (many more cuts at small ρ).

    Returns
    -------
    SolverResult
        ``x`` the best β found (None and ``fun`` −∞ if ``max_iter`` is 0); ``fun`` ``f`` there
        (maximized, relative to ``f₀`` as ``tol``); ``n_iter`` the exchange iterations (QCLPs
        solved); ``converged`` whether the callback stopped the method or the certified relative
        gap reached ``tol``; ``history`` ``f`` at the point of every new cut. Its own attribute:
        ``upper_bound``, the certified bound ``U ≥ f*`` of the last QCLP (+∞ before the first).
    """
    if stabilization not in ("level", None):
        raise ValueError(f"stabilization must be 'level' or None, got {stabilization!r}.")
    n_var = linear.size
    cuts = _CutBank(n_var)

    def add_cut(beta):
        L, c = constraint_at(beta)
        G = L.T @ z_map
        cuts.add(G.T @ G, c)
        z = z_map @ beta
        return float(linear @ beta - 0.5 * np.sum((L.T @ z) ** 2) + c)

    add_cut(np.zeros(n_var))  # K₁ = (K₀)₊, the kernel optimal at z = 0 (β = 0 may be infeasible)
    beta_best: NDArray[np.float64] | None = None
    f_best = -np.inf
    best_cut = None  # index of the cut made at β̂ (level method)
    # level method: the least model maximum so far (its certified lower end), not the last one:
    # pruning can raise the model's maximum, and a level that rises and falls with it can cycle
    top = np.inf
    gap_now = 0.0  # the first QCLP (one cut, the SVM on (K₀)₊) is solved to full accuracy
    scale = 1.0  # of the accuracies: |U| of the last QCLP, not |f_best|, which a bad first cut can make huge
    iteration = 0
    warm = None
    history, bound = [], np.inf
    converged, message = False, "max_iter reached"
    for iteration in range(1, max_iter + 1):
        accuracy = (
            0.1 * tol * scale if stabilization == "level" else max(0.1 * tol * scale, _INEXACT * gap_now)
        )
        qclp = solve_qclp(*cuts.arrays(), linear, signs, upper, rhs, gap, tol=accuracy, start=warm)
        gap_now = qclp.upper - f_best
        scale = max(abs(qclp.upper), np.finfo(float).tiny)
        keep = qclp.weights > _PRUNE * qclp.weights.max()
        point = qclp.beta
        top = min(top, qclp.lower)
        if stabilization == "level" and top > f_best > -np.inf:
            # projected on the level set of every cut kept so far, the newest included: that cut
            # was made to cut off the last projection, and it is often inactive at the model's
            # maximum, far from β̂, so pruning it first (as Algorithm 3 does) would return the same
            # projection again and the method would re-add and re-prune it for ever
            level = f_best + _LEVEL * (top - f_best)
            point, multipliers, slacks = _level_projection(
                *cuts.arrays(), linear, signs, upper, rhs, level, beta_best,
                start=(qclp.beta, qclp.weights), tol=0.01 * (top - f_best), max_iter=30,
            )  # fmt: skip
            keep |= multipliers > _PRUNE * multipliers.max()  # the cuts that shape the level set
            keep |= slacks <= _SLACK * (top - level)
        if best_cut is not None:
            # the level set must keep the cut through β̂: without it β̂ lies in the level set, the
            # projection returns β̂, and the method re-adds and re-prunes that cut for ever
            keep[best_cut] = True
            best_cut = int(np.count_nonzero(keep[:best_cut]))
        cuts.keep(keep)  # drop the cuts inactive at β_k (Chen & Ye) and (level method) at the projection
        weights = qclp.weights[keep] / qclp.weights[keep].sum()
        value = add_cut(point)
        history.append(value)
        bound = qclp.upper
        warm = (qclp.beta, np.append(weights, 0.0))  # new cut: θ = 0
        if value > f_best:
            beta_best, f_best = point, value
            best_cut = cuts.count - 1 if stabilization == "level" else None
        if callback(iteration, beta_best, f_best, qclp.upper):
            converged, message = True, "the callback stopped the method"
            break
        if qclp.upper - f_best <= tol * max(abs(qclp.upper), abs(f_best)):
            converged, message = True, "the certified relative gap is at most tol"
            break
    return SolverResult(
        beta_best, f_best, n_iter=iteration, converged=converged, message=message, history=history,
        upper_bound=bound,
    )  # fmt: skip

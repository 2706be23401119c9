"""The proxy-kernel problem of Luss & d'Aspremont (2009) and its three solvers.

All three estimators of the paper (SVC, Sec. 2; SVR, Sec. 4.1; one-class SVM, Sec. 4.2) solve

    max_β  pᵀβ + min_{K ⪰ 0} [ −½ zᵀKz + ρ Σᵢⱼ hᵢhⱼ (Kᵢⱼ − K₀ᵢⱼ)² ]   s.t. sᵀβ = r, 0 ≤ β ≤ u,

with ``z = Mβ`` (``Yα`` for SVC, ``a − b`` for SVR, ``α`` for the one-class SVM) and per-sample
penalty weights ``h`` (Theorem 3; ``h = 1`` gives problem (4)). With ``Ω = diag(√h)``,
``K̃₀ = ΩK₀Ω`` and ``z̃ = Ω⁻¹z`` the inner problem is the unweighted one, whose solution is the proxy
kernel ``K̃* = (K̃₀ + z̃z̃ᵀ/4ρ)₊`` (Theorem 1; (24) after scaling back). Writing the inner value as
``ρ‖K̃₀‖² − ρ‖(K̃₀ + z̃z̃ᵀ/4ρ)₊‖²`` (complete the square in the proof of Theorem 1) gives the
objective of (7) as

    f(β) = pᵀβ + ρ (‖K̃₀‖²_F − Σᵢ max(λᵢ(X), 0)²),   X = K̃₀ + z̃z̃ᵀ/4ρ,

a concave function with gradient ``∇f = p − Mᵀ(K* z)`` (Danskin; ``∂λᵢ/∂z̃ = vᵢvᵢᵀz̃/2ρ`` by (11)). In
the eigenbasis of ``K̃₀`` each evaluation is a rank-one eigen-update (Sec. 3.1,
:mod:`krein.optimize._rank_one`), O(n²). For a positive semidefinite ``K₀`` the projection is the
identity and ``f`` is the fourth-order penalized SVM (22) of Sec. 4.3 (PerturbSVM), with no
eigendecomposition at all.

Smoothing (Sec. 3). ``λ ↦ max(λ, 0)²`` is C¹, so ``f`` is differentiable, but its gradient involves
``max(0, λ)``, which is not: ``∇f`` is not differentiable wherever an eigenvalue of ``X`` crosses
zero. The paper replaces ``max(0, t)`` by its Moreau–Yosida smoothing
``φ_ε(t) = max_{0≤v≤1}(vt − εv²/2)`` (0 for t ≤ 0, t²/2ε on [0, ε], t − ε/2 for t ≥ ε) "in both
algorithms". Here it is applied to the eigenvalue clipping: ``max(λ, 0)²`` becomes
``g_ε(λ) = 2∫₀^λ φ_ε`` (0, λ³/3ε, λ² − ελ + ε²/3 on the same pieces), and

    f_ε(β) = pᵀβ + ρ (‖K̃₀‖²_F − Σᵢ g_ε(λᵢ(X))),   ∇f_ε = p − Mᵀ(K*_ε z),   K*_ε = Σᵢ φ_ε(λᵢ) vᵢvᵢᵀ,

since ``∂/∂z̃ Σ g_ε(λᵢ(X)) = Σ g_ε'(λᵢ) vᵢvᵢᵀz̃/2ρ`` and ``g_ε' = 2φ_ε``. ``f_ε`` is concave (``g_ε``
convex and nondecreasing makes ``Σ g_ε(λ(·))`` a convex, Loewner-monotone spectral function, and
``z̃ ↦ z̃z̃ᵀ`` is matrix-convex), its gradient is Lipschitz with the constant of ``∇f`` (``φ_ε`` is
1-Lipschitz, as ``max(0, ·)`` is) and now also C¹ (``φ_ε`` is C¹). Since
``0 ≤ max(λ, 0)² − g_ε(λ) ≤ ε max(λ, 0)`` (exactly ``λ² − λ³/3ε`` on [0, ε] and ``ελ − ε²/3`` above),

    f(β) ≤ f_ε(β) ≤ f(β) + ρε Σᵢ max(λᵢ(X), 0) = f(β) + ρε tr(X₊),

so a maximizer of ``f_ε`` is within ``ρε tr(X₊)`` (at that point) of the optimum of (7). Each
evaluation stays O(n²) (:func:`~krein.optimize._rank_one.rank_one_smoothed_part`) and returns ``f``
from the same eigenvalues. Smoothing changes the function the projected-gradient and ACCPM iterations
follow, not the problem: the iterate kept, ``objective_`` and the duality gap are those of ``f``.
For a positive semidefinite ``K₀`` (PerturbSVM) ``X ⪰ 0`` for every β, (22) has no ``max{0, ·}``
term and is a polynomial, so ``smoothing`` is not applied there. The exchange method (Sec. 3.4)
solves (8) by a QCLP on cutting kernels, without gradients of ``f``: smoothing has no meaning for it
and :func:`solve_proxy_problem` rejects ``smoothing > 0`` with it.

The stopping rule is the duality gap of Sec. 2.4/3.2: for any PSD ``K``,
``ω(K) + ρ‖K̃ − K̃₀‖²`` bounds the optimum from above, where ``ω(K)`` is an SVM solved by libsvm on
the proxy kernel of the current iterate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from ..optimize._accpm import accpm_maximize
from ..optimize._exchange import exchange_maximize
from ..optimize._projection import project_box_hyperplane
from ..optimize._rank_one import rank_one_eigh, rank_one_positive_part, rank_one_smoothed_part
from ..spectral import eigendecompose

__all__ = [
    "KernelSpectrum",
    "ProxyKernelProblem",
    "ProxySolution",
    "kkt_intercept",
    "solve_proxy_problem",
]


def _is_positive_semidefinite(K):
    """Cholesky test of ``K + δI`` with δ at rounding level (n·eps·max diagonal)."""
    jitter = K.shape[0] * np.finfo(float).eps * max(float(np.max(np.abs(np.diag(K)))), 1e-300)
    try:
        scipy.linalg.cholesky(K + jitter * np.eye(K.shape[0]), lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        return False
    return True


class KernelSpectrum:
    """The scaled training kernel ``K̃₀ = ΩK₀Ω``, its eigendecomposition (if indefinite) and ``‖K̃₀‖²``.

    Built once and shared by every one-vs-rest task and every iteration.
    """

    def __init__(self, K, penalty_weights=None):
        n = K.shape[0]
        if penalty_weights is None:
            self.omega = np.ones(n)
        else:
            h = np.asarray(penalty_weights, dtype=float)
            if h.shape != (n,) or not np.all(np.isfinite(h)) or np.any(h <= 0):
                raise ValueError(
                    f"penalty_weights must be a vector of {n} finite, strictly positive numbers."
                )
            self.omega = np.sqrt(h)
        self.K = K * self.omega[:, None] * self.omega[None, :]
        self.norm_squared = float(np.sum(self.K**2))
        self.psd = _is_positive_semidefinite(self.K)
        if self.psd:
            self.values = self.vectors = None
        else:
            self.values, self.vectors = eigendecompose(self.K)


class ProxyKernelProblem:
    """Problem (7) (or (17), (20)) over β for one task.

    Parameters
    ----------
    spectrum : KernelSpectrum
    rho : float
        Penalty ρ > 0.
    linear : ndarray of shape (n_var,)
        ``p``.
    z_index, z_coef : ndarray of shape (n_var,)
        ``z[z_index[j]] += z_coef[j] β[j]`` defines ``z = Mβ``.
    signs, upper, rhs
        Feasible set ``{signsᵀβ = rhs, 0 ≤ β ≤ upper}``.
    svm_value : callable
        ``svm_value(K) -> (ω(K), β_svm)``: the optimal value (and solution) of the plain SVM problem
        with the PSD kernel ``K`` on the same feasible set (libsvm).
    """

    def __init__(self, spectrum, rho, linear, z_index, z_coef, signs, upper, rhs, svm_value):
        self.spectrum, self.rho = spectrum, float(rho)
        self.linear, self.z_index = linear, z_index
        self.z_coef = z_coef / spectrum.omega[z_index]  # maps β to z̃ = Ω⁻¹z
        self.signs, self.upper, self.rhs = signs, upper, rhs
        self.svm_value = svm_value
        self.n = spectrum.K.shape[0]

    def scaled_z(self, beta):
        return np.bincount(self.z_index, weights=self.z_coef * beta, minlength=self.n)

    def _proxy_action(self, z):
        """``(‖(K̃₀ + zzᵀ/4ρ)₊‖²_F, (K̃₀ + zzᵀ/4ρ)₊ z)`` for a scaled ``z``."""
        spectrum, weight = self.spectrum, 1 / (4 * self.rho)
        if spectrum.psd:
            Kz = spectrum.K @ z
            zz = z @ z
            norm_squared = spectrum.norm_squared + 2 * weight * (z @ Kz) + weight**2 * zz**2
            return norm_squared, Kz + weight * zz * z
        V = spectrum.vectors
        norm_squared, action = rank_one_positive_part(spectrum.values, V.T @ z, weight)
        return norm_squared, V @ action

    def constant(self):
        """The constant part ``ρ(‖K̃₀‖² − ‖(K̃₀)₊‖²) = ρ‖(K̃₀)₋‖²`` of ``f`` (its value at z = 0)."""
        norm_squared, _ = self._proxy_action(np.zeros(self.n))
        return self.rho * (self.spectrum.norm_squared - norm_squared)

    def value_and_gradient(self, beta):
        """``f(β)`` and ``∇f(β)``: one rank-one eigen-update (O(n²)) for an indefinite ``K₀``."""
        z = self.scaled_z(beta)
        norm_squared, action = self._proxy_action(z)
        value = self.linear @ beta + self.rho * (self.spectrum.norm_squared - norm_squared)
        gradient = self.linear - self.z_coef * action[self.z_index]
        return float(value), gradient

    def smoothed_value_and_gradient(self, beta, smoothing):
        """``(f(β), f_ε(β), ∇f_ε(β))`` with ε = ``smoothing`` (module docstring), in O(n²).

        ``f`` and ``f_ε`` come from the same eigenvalues of ``K̃₀ + z̃z̃ᵀ/4ρ``. With ``smoothing = 0``
        or a positive semidefinite ``K₀`` (nothing to smooth) this is ``(f, f, ∇f)`` from
        :meth:`value_and_gradient`.
        """
        if smoothing == 0 or self.spectrum.psd:
            value, gradient = self.value_and_gradient(beta)
            return value, value, gradient
        spectrum = self.spectrum
        z = self.scaled_z(beta)
        V = spectrum.vectors
        sum_squares, smoothed_sum, action = rank_one_smoothed_part(
            spectrum.values, V.T @ z, 1 / (4 * self.rho), smoothing
        )
        base = self.linear @ beta + self.rho * spectrum.norm_squared
        gradient = self.linear - self.z_coef * (V @ action)[self.z_index]
        return float(base - self.rho * sum_squares), float(base - self.rho * smoothed_sum), gradient

    def proxy(self, beta):
        """The scaled proxy kernel ``K̃*`` at β and an orthonormal basis of its range (or None if PSD).

        For an indefinite ``K₀`` this is one full rank-one eigen-update plus the n×n products that
        form ``K̃*``: O(n³), done only for duality-gap checks and once after fitting.
        """
        spectrum, weight = self.spectrum, 1 / (4 * self.rho)
        z = self.scaled_z(beta)
        if spectrum.psd:
            return spectrum.K + weight * np.outer(z, z), None
        values, W = rank_one_eigh(spectrum.values, spectrum.vectors.T @ z, weight)
        positive = values > 0
        basis = spectrum.vectors @ W[:, positive]
        return (basis * values[positive]) @ basis.T, basis

    def penalty(self, K_scaled):
        return self.rho * float(np.sum((K_scaled - self.spectrum.K) ** 2))

    def upper_bound(self, beta):
        """``ω(K*) + ρ‖K̃* − K̃₀‖²`` with ``K*`` the proxy kernel at β, and the SVM solution on it."""
        K_scaled, _ = self.proxy(beta)
        omega = self.spectrum.omega
        svm_value, svm_beta = self.svm_value(K_scaled / omega[:, None] / omega[None, :])
        return svm_value + self.penalty(K_scaled), svm_beta

    def exchange_constraint(self, beta):
        """``(L, c)`` with ``K̃* = LLᵀ`` the optimal kernel at β and ``c = ρ‖K̃* − K̃₀‖²``."""
        K_scaled, basis = self.proxy(beta)
        if basis is None:
            values, vectors = scipy.linalg.eigh(K_scaled)
            basis, keep = vectors, values > 0
            L = basis[:, keep] * np.sqrt(values[keep])
        else:
            L = basis * np.sqrt(np.maximum(np.sum(basis * (K_scaled @ basis), axis=0), 0.0))
        return L, self.penalty(K_scaled)

    def z_matrix(self):
        M = np.zeros((self.n, self.linear.size))
        M[self.z_index, np.arange(self.linear.size)] = self.z_coef
        return M

    def intercept(self, beta):
        """The intercept of the model: the multiplier of ``sᵀβ = r`` (see :func:`kkt_intercept`)."""
        _, gradient = self.value_and_gradient(beta)
        return kkt_intercept(gradient, beta, self.signs, self.upper)

    def dual_coef(self, beta):
        """Coefficients ``c`` of the decision function ``f(x) = k(x, X) c + b``.

        For an indefinite ``K₀`` the test rows go through the linear form of the heuristic of
        Sec. 2.3: the positive-part projector ``P̃₊`` of ``K̃₀ + z̃z̃ᵀ/4ρ`` (Chen et al. 2009), so
        ``c = Ω P̃₊ z̃``; for a PSD ``K₀`` only the support vectors are perturbed and ``c = z``.
        """
        z = self.scaled_z(beta)
        omega = self.spectrum.omega
        if self.spectrum.psd:
            return omega * z
        _, basis = self.proxy(beta)
        return omega * (basis @ (basis.T @ z))


def kkt_intercept(gradient, beta, signs, upper):
    """Multiplier ν of ``sᵀβ = r`` at a solution of ``max f(β)`` on ``{sᵀβ = r, 0 ≤ β ≤ u}``.

    Stationarity on the free variables gives ``ν = ∇f_j / s_j`` (averaged); with none free, the
    variables at 0 (``∇f_j − ν s_j ≤ 0``) and at ``u`` (``≥ 0``) bracket ν and the midpoint is taken, as
    libsvm does. For the SVM dual this is the intercept ``b``.
    """
    ratio = gradient / signs
    scale = np.maximum(upper, 1e-300)
    free = (beta > 1e-8 * scale) & (beta < (1 - 1e-8) * upper)
    if np.any(free):
        return float(np.mean(ratio[free]))
    at_lower = beta <= 1e-8 * scale
    lower_bounds = np.concatenate([ratio[at_lower & (signs > 0)], ratio[~at_lower & (signs < 0)]])
    upper_bounds = np.concatenate([ratio[at_lower & (signs < 0)], ratio[~at_lower & (signs > 0)]])
    low = lower_bounds.max() if lower_bounds.size else None
    high = upper_bounds.min() if upper_bounds.size else None
    if low is None or high is None:
        return 0.0 if low is None and high is None else float(high if low is None else low)
    return float((low + high) / 2)


@dataclass
class ProxySolution:
    """Result of :func:`solve_proxy_problem`."""

    beta: np.ndarray
    value: float
    upper_bound: float
    gap_history: np.ndarray
    n_iter: int
    converged: bool
    smoothing_excess: float = 0.0  # f_ε(β) − f(β) at the returned β: the price of smoothing there


def _relative_gap(upper, lower, offset):
    """Gap relative to the varying part of ``f``: ``f`` carries the constant ``ρ‖(K̃₀)₋‖²``
    (its value at z = 0), which can dwarf the SVM terms and make any gap look small."""
    return (upper - lower) / max(1.0, abs(lower - offset))


def solve_proxy_problem(
    problem, *, solver, max_iter, tol, step_size="auto", gap_interval=10, smoothing=0.0, verbose=0
):
    """Maximize ``f`` by projected gradient, ACCPM or the exchange method.

    The duality gap ``min(upper bounds) − max f`` (relative to ``max(1, |f − f₀|)``, where
    ``f₀ = ρ‖(K̃₀)₋‖²`` is the constant part of ``f``, its value at z = 0) is checked every
    ``gap_interval`` iterations (every iteration for ACCPM and the exchange method) and recorded;
    the method stops once it is ≤ ``tol``.

    Parameters
    ----------
    problem : ProxyKernelProblem
    solver : {"projected_gradient", "accpm", "exchange"}
    max_iter : int
    tol : float
        Relative duality-gap tolerance.
    step_size : "auto" or float
        ``"auto"``: backtracking on the quadratic upper model (each trial is one O(n²) eigen-update);
        a float ``t`` gives the paper's schedule ``t/k`` (Sec. 3.2 uses 5/k).
    gap_interval : int
        Projected-gradient iterations between two duality-gap checks.
    smoothing : float
        ε ≥ 0 of the Moreau–Yosida smoothing of Sec. 3 (module docstring): projected gradient and
        ACCPM follow ``f_ε`` and ``∇f_ε``, while the iterate kept, its value and the duality gap are
        those of ``f``. ``0`` is the unsmoothed method; ``> 0`` with ``solver="exchange"`` raises.
    verbose : int

    Returns
    -------
    ProxySolution
    """
    if smoothing < 0:
        raise ValueError(f"smoothing must be non-negative, got {smoothing}.")
    if smoothing > 0 and solver == "exchange":  # the estimators explain this to users
        raise ValueError("smoothing > 0 does not apply to solver='exchange'.")

    def oracle(beta):  # (f, f_ε, ∇f_ε)
        return problem.smoothed_value_and_gradient(beta, smoothing)

    state = {"best_upper": np.inf, "history": [], "beta": None, "value": -np.inf}
    offset = problem.constant()

    def check_gap(beta, value, extra_upper=np.inf):
        if value > state["value"]:
            state["beta"], state["value"] = beta, value
        upper, svm_beta = problem.upper_bound(state["beta"])
        state["best_upper"] = min(state["best_upper"], upper, extra_upper)
        gap = _relative_gap(state["best_upper"], state["value"], offset)
        state["history"].append(gap)
        if verbose:
            print(f"[{solver}] f = {state['value']:.8g}, upper = {state['best_upper']:.8g}, gap = {gap:.3g}")
        return gap <= tol, svm_beta

    # Start from the SVM solution on the proxy kernel at β = 0, i.e. on (K̃₀)₊ (the ρ → ∞ limit).
    start = np.zeros(problem.linear.size)
    if problem.rhs != 0:
        start = project_box_hyperplane(start, problem.signs, problem.upper, problem.rhs)
    start_value, _ = problem.value_and_gradient(start)
    converged, svm_beta = check_gap(start, start_value)
    svm_beta = project_box_hyperplane(svm_beta, problem.signs, problem.upper, problem.rhs)
    if problem.value_and_gradient(svm_beta)[0] < start_value:
        svm_beta = start
    n_iter = 0
    if not converged:
        if solver == "projected_gradient":
            converged, n_iter = _projected_gradient(
                problem, oracle, svm_beta, max_iter, step_size, gap_interval, check_gap
            )
        elif solver == "accpm":

            def accpm_callback(iteration, beta, value):
                return check_gap(beta, value)[0]

            def accpm_oracle(beta):
                # Cuts from ∇f_ε; ACCPM uses the value only to keep its best center, which must be
                # the best for the true objective f.
                value, _, gradient = oracle(beta)
                return value, gradient

            beta, value, n_iter = accpm_maximize(
                accpm_oracle, problem.signs, problem.upper, problem.rhs,
                max_iter=max_iter, callback=accpm_callback,
            )  # fmt: skip
            converged = state["history"][-1] <= tol
        elif solver == "exchange":

            def exchange_callback(iteration, beta, value, t_upper):
                return check_gap(beta, value, extra_upper=t_upper)[0]

            _, _, n_iter = exchange_maximize(
                problem.linear, problem.z_matrix(), problem.signs, problem.upper, problem.rhs,
                problem.exchange_constraint, max_iter=max_iter, tol=tol, callback=exchange_callback,
                offset=offset,
            )  # fmt: skip
            converged = state["history"][-1] <= tol
        else:  # pragma: no cover - validated by the estimators
            raise ValueError(f"Unknown solver {solver!r}.")
    excess = 0.0
    if smoothing > 0:
        true_value, smoothed_value, _ = oracle(state["beta"])
        excess = smoothed_value - true_value
    return ProxySolution(
        beta=state["beta"],
        value=state["value"],
        upper_bound=state["best_upper"],
        gap_history=np.asarray(state["history"]),
        n_iter=max(n_iter, 1),  # the SVM solve at the start counts as the first iteration
        converged=bool(converged),
        smoothing_excess=float(excess),
    )


def _projected_gradient(problem, oracle, beta, max_iter, step_size, gap_interval, check_gap):
    """Algorithm 1 (projected gradient ascent); returns ``(converged, n_iter)``.

    ``oracle(β) -> (f, f_ε, ∇f_ε)``: the steps and the backtracking follow ``f_ε`` (``= f`` unless
    smoothing), the duality-gap checks get the true value ``f``.
    """
    project = lambda x: project_box_hyperplane(x, problem.signs, problem.upper, problem.rhs)  # noqa: E731
    _, value, gradient = oracle(beta)
    # Initial step 1/L with L ≥ curvature of the SVM part: max |λ(K̃₀)| times the largest |coef|².
    spectrum = problem.spectrum
    scale = (np.max(np.abs(spectrum.values)) if not spectrum.psd else np.linalg.norm(spectrum.K, 2)) * np.max(
        problem.z_coef**2
    )
    step = 1.0 / max(scale, 1e-12)
    for iteration in range(1, max_iter + 1):
        if step_size == "auto":
            while True:
                candidate = project(beta + step * gradient)
                move = candidate - beta
                candidate_true, candidate_value, candidate_gradient = oracle(candidate)
                model = value + gradient @ move - (move @ move) / (2 * step)
                if candidate_value >= model - 1e-12 * max(1.0, abs(value)) or step < 1e-20:
                    break
                step /= 2
            step *= 1.5
        else:
            candidate = project(beta + (step_size / iteration) * gradient)
            candidate_true, candidate_value, candidate_gradient = oracle(candidate)
        beta, value, gradient = candidate, candidate_value, candidate_gradient
        if iteration % gap_interval == 0 or iteration == max_iter:
            if check_gap(beta, candidate_true)[0]:
                return True, iteration
    return False, max_iter

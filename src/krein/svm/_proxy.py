"""The proxy-kernel problem of Luss & d'Aspremont (2009) and its three solvers.

All three estimators of the paper (SVC, Sec. 2; SVR, Sec. 4.1; one-class SVM, Sec. 4.2) solve

    max_β  pᵀβ + min_{K ⪰ 0} [ −½ zᵀKz + ρ Σᵢⱼ hᵢhⱼ (Kᵢⱼ − K₀ᵢⱼ)² ]   s.t. sᵀβ = r, 0 ≤ β ≤ u,

with ``z = Mβ`` (``Yα`` for SVC, ``a − b`` for SVR, ``α`` for the one-class SVM) and per-sample
penalty weights ``h`` (Theorem 3; ``h = 1`` gives problem (4)). With ``Ω = diag(√h)``,
``K̃₀ = ΩK₀Ω`` and ``z̃ = Ω⁻¹z`` the inner problem is the unweighted one, whose solution is the proxy
kernel ``K̃* = X₊``, ``X = K̃₀ + z̃z̃ᵀ/4ρ`` (Theorem 1; (24) after scaling back).

**The objective without cancellation.** Theorem 1's value ``pᵀβ − ½z̃ᵀK̃*z̃ + ρ‖K̃* − K̃₀‖²`` equals
(complete the square in its proof) ``pᵀβ + ρ(‖K̃₀‖² − ‖X₊‖²)``, but that difference of two O(ρn²)
numbers loses every digit of the O(1) part as ρ grows (at ρ = 1e12 it reports values above the SVM
optimum). Writing ``λᵢ`` for the eigenvalues of ``X`` and ``dᵢ`` for those of ``K̃₀``,

    f(β) = f₀ + pᵀβ − ρ Σᵢ (max(λᵢ, 0)² − max(dᵢ, 0)²),     f₀ = ρ‖(K̃₀)₋‖²_F = f(0),

where every term of the sum is ≥ 0 (``λᵢ ≥ dᵢ``: a positive rank-one update) and is formed from the
root shift ``λᵢ − dᵢ = O(‖z̃‖²/ρ)`` that the secular solver returns to full relative accuracy
(:func:`~krein.optimize.rank_one_positive_part`), so ``f − f₀`` keeps its digits for every
ρ. The solvers work with ``f − f₀``; ``objective_`` is ``f₀ + (f − f₀)``. The gradient is
``∇f = p − Mᵀ(K* z)`` (Danskin; ``∂λᵢ/∂z̃ = vᵢvᵢᵀz̃/2ρ`` by (11)). In the eigenbasis of ``K̃₀`` each
evaluation is a rank-one eigen-update (Sec. 3.1), O(n·min(n₊, n₋)) plus two n×n matrix–vector
products. For a positive semidefinite ``K₀`` the projection is the identity and
``f = pᵀβ − ½z̃ᵀK̃₀z̃ − ‖z̃‖⁴/16ρ``, the fourth-order penalized SVM (22) of Sec. 4.3 (PerturbSVM), with
no eigendecomposition at all.

**The duality gap, certified and free.** ``f`` is concave and differentiable, so for every feasible β

    f* ≤ f(β) + max_{β′ ∈ A} ∇f(β)ᵀ(β′ − β),      A = {sᵀβ′ = r, 0 ≤ β′ ≤ u}.

This is the bound of Sec. 2.4 with one particular dual point: the inner problem of (3) at the proxy
kernel ``K*(β)`` is an SVM whose primal point ``w = Lᵀz`` (``K* = LLᵀ``) with the best intercept has
value ``½zᵀK*z + max_{β′∈A} (p − MᵀK*z)ᵀβ′``, and adding ``ρ‖K* − K₀‖²`` gives exactly the bound
above, ``ρ‖K* − K₀‖²`` cancelling analytically against the same term of ``f(β)``. The linear program
over ``A`` is solved through its one-dimensional dual ``min_ν νr + Σᵢ uᵢ(gᵢ − νsᵢ)₊`` (the optimal
intercept), and the gap is summed as ``Σᵢ [(uᵢ − βᵢ)(tᵢ)₊ + βᵢ(tᵢ)₋]``, ``tᵢ = gᵢ − νsᵢ``: a sum of
non-negative terms (the SVM's KKT violations), O(n log n) from the gradient the iteration already
has, so the gap is checked at every iteration instead of by a libsvm solve every few. It is never
negative, and it is zero exactly at a maximizer.

**The low-rank problem.** With ``n_components`` the kernel is the Nyström one-shot eigendecomposition
``K̃₀ = Ũ Λ Ũᵀ`` (Ũ n×r orthonormal, r ≤ m; Oglic & Gärtner 2019, Sec. 2.2), and the proxy kernel is
sought in the span of the Nyström features: ``K = Ũ M Ũᵀ`` with ``M ⪰ 0`` (r×r). As ``Ũ`` is
orthonormal, ``zᵀKz = wᵀMw`` with ``w = Ũᵀz`` and ``‖K − K̃₀‖_F = ‖M − Λ‖_F``, so the inner problem is
Theorem 1's on the r×r diagonal kernel Λ with ``w`` for ``z``: ``M* = (Λ + wwᵀ/4ρ)₊``. Problem (7) over β
is that of the r-dimensional kernel Λ with the linear map ``β ↦ w = ŨᵀMβ``, and every formula above holds
with the eigenvectors ``V = Ũ`` (n×r) of :meth:`KernelSpectrum.low_rank`: an evaluation is a rank-one
eigen-update of an r×r diagonal, O(r²), plus the products ``Ũᵀz`` and ``Ũa`` (O(nr)); ``f`` is concave
and the certified gap above is the duality gap of this low-rank problem. No n×n matrix is formed
(memory O(nr)), nor the proxy kernel ``ŨM*Ũᵀ``. The decision function is the exact one's, ``K̃₀ P₊z`` on
the training points (``P₊`` the projector on the range of ``M*`` in the span of ``Ũ``): eigen-coordinates
``Ũᵀ P₊ z``, evaluated out of sample through the Nyström map. With every point a landmark and a kernel
of full numerical rank, ``Ũ`` spans ℝⁿ and this is problem (7) itself.

**Smoothing** (Sec. 3). ``λ ↦ max(λ, 0)²`` is C¹, so ``f`` is differentiable, but its gradient
involves ``max(0, λ)``, which is not: ``∇f`` is not differentiable wherever an eigenvalue of ``X``
crosses zero. The paper replaces ``max(0, t)`` by its Moreau–Yosida smoothing
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

so a maximizer of ``f_ε`` is within ``ρε tr(X₊)`` (at that point) of the optimum of (7). Smoothing
changes the function the projected-gradient and ACCPM iterations follow, not the problem: the iterate
kept, ``objective_`` and the duality gap are those of ``f`` (the gap then needs ``∇f`` as well, one
more eigen-update per iteration). For a positive semidefinite ``K₀`` (PerturbSVM) ``X ⪰ 0`` for
every β and (22) is a polynomial, so ``smoothing`` is not applied there. The exchange method
(Sec. 3.4) solves (8) through QCLPs on cutting kernels, without gradients of ``f``: smoothing has no
meaning for it and :func:`solve_proxy_problem` rejects ``smoothing > 0`` with it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from .._penalties import kernel_scale
from .._scaling import SAFE_RANGE, power_of_two_unit
from ..optimize import (
    accpm_maximize,
    exchange_maximize,
    project_box_hyperplane,
    projected_gradient,
    rank_one_eigh,
    rank_one_smoothed_part,
)
from ..representation import DeferredRepresentation, SpectralRepresentation
from ..spectral import eigendecompose

__all__ = [
    "AUTO_PERTURBATION",
    "KernelSpectrum",
    "ProxyKernelProblem",
    "ProxySolution",
    "default_cost",
    "default_rho",
    "kkt_intercept",
    "linear_maximum_gap",
    "relative_gap",
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
    """The scaled training kernel ``K̃₀ = ΩK₀Ω``, its eigendecomposition (if indefinite) and ``‖(K̃₀)₋‖²``.

    Built once and shared by every one-vs-rest task, every iteration and every (C, ρ) of a path.
    ``scale`` is the kernel scale ``κ = mean |λᵢ(K̃₀)|`` (``tr K̃₀ / n`` when PSD: 1 for a Gaussian
    kernel), the unit of the default ``C`` and ``ρ`` (:func:`default_cost`, :func:`default_rho`).

    ``normalize=True`` holds ``K̃₀/κ`` instead (then ``scale`` is 1 and ``unit`` is κ; otherwise
    ``unit`` is 1): the estimators solve (7) in units of κ (:meth:`_ProxyKernelEstimator._units
    <krein.svm._indefinite._ProxyKernelEstimator._units>`), so a kernel of any scale in double precision
    (1e-300 to 1e300) gives the problem of a kernel of unit scale, whose dual variables, ρ and objective
    are of order 1 rather than over- or underflowing with a power of κ. A kernel whose largest entry is
    outside [2⁻¹⁰⁰, 2¹⁰⁰] is first divided by a power of two near it (exact), so the eigendecomposition
    and κ are formed in range.

    ``representation`` is the exact :class:`~krein.representation.SpectralRepresentation` of ``K₀``
    over the points ``points`` of ``kernel`` (through which the estimators evaluate test points): from
    the eigendecomposition above when there is one of ``K₀`` itself, otherwise deferred to its first
    read (:class:`~krein.representation.DeferredRepresentation`).
    """

    def __init__(self, K, penalty_weights=None, normalize=False, *, kernel="precomputed", points=None):
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
        magnitude = power_of_two_unit(np.max(np.abs(K)), *SAFE_RANGE) if normalize and K.size else 1.0
        # a kernel in the safe range is decomposed as it is (bitwise), so that the eigendecomposition
        # is shared with the other estimators fitted on it (krein.spectral.reuse_eigendecompositions)
        self.K = (K / magnitude) * self.omega[:, None] * self.omega[None, :]
        self.psd = _is_positive_semidefinite(self.K)
        if self.psd:
            self.values = self.vectors = None
            scale = float(np.trace(self.K)) / n
        else:
            self.values, self.vectors = eigendecompose(self.K)
            scale = kernel_scale(self.values, n)
        if self.psd or penalty_weights is not None:  # no eigendecomposition of K₀ itself
            self.representation = DeferredRepresentation(
                K, name="the training kernel", kernel=kernel, points=points
            )
        else:  # K₀ = magnitude · self.K, magnitude a power of two
            self.representation = SpectralRepresentation.from_eigendecomposition(
                self.values * magnitude,
                self.vectors,
                name="the training kernel",
                kernel=kernel,
                points=points,
            )
        self._set_scale(scale, magnitude, normalize)

    @classmethod
    def low_rank(cls, representation):
        """The spectrum of the low-rank problem on a Nyström representation ``K̃₀ = Ũ Λ Ũᵀ`` (normalized).

        The proxy kernel is sought among the positive semidefinite matrices ``Ũ M Ũᵀ`` on the span of
        ``Ũ`` (module docstring, "The low-rank problem"): ``vectors`` is ``Ũ`` (n×r, held), ``values``
        Λ, ``K`` None (no n×n matrix), no penalty weights, and ``representation`` the given one.
        """
        spectrum = cls.__new__(cls)
        vectors = representation.training_vectors()
        n = vectors.shape[0]
        spectrum.omega, spectrum.K, spectrum.psd = np.ones(n), None, False
        spectrum.values, spectrum.vectors = representation.values, vectors
        spectrum.representation = representation
        spectrum._set_scale(kernel_scale(spectrum.values, n), 1.0, True)
        return spectrum

    @property
    def n(self):
        """The number of training points."""
        return self.omega.size

    def dual_coef(self, coef):
        """Coefficients on the representation's points of the model ``K₀ c`` (``c`` = ``coef`` on the
        training points): ``c`` itself for the exact kernel, ``E Λ Ũᵀ c`` through the Nyström map of
        the low-rank one (``K̃₀ c = Ũ Λ Ũᵀ c``)."""
        if self.K is not None:
            return coef
        return self.representation.dual_coef(self.vectors.T @ coef)

    def _set_scale(self, scale, magnitude, normalize):
        """``scale``, ``unit``, ``negative_norm_squared`` and ``curvature`` from the kernel scale κ of the
        kernel divided by ``magnitude`` (the class docstring)."""
        if not scale > 0:
            raise ValueError("The training kernel is zero: the proxy-kernel SVM has nothing to learn from.")
        self.unit = 1.0
        if normalize:
            with np.errstate(over="ignore", under="ignore"):
                self.unit = scale * magnitude
            if not (np.isfinite(self.unit) and self.unit > 0):
                raise ValueError(
                    f"X: the kernel scale mean|λ(K)| = {scale:.3g}·{magnitude:g} is beyond double precision; "
                    "rescale the kernel (e.g. divide it by its largest entry)."
                )
            if self.K is not None:
                self.K = self.K / scale
            if self.values is not None:
                self.values = self.values / scale
            scale = 1.0
        if self.psd:
            self.negative_norm_squared = 0.0
            self.curvature = float(np.trace(self.K))  # ≥ λ_max(K̃₀)
        else:
            negative = np.minimum(self.values, 0.0)
            self.negative_norm_squared = float(negative @ negative)
            self.curvature = float(np.max(np.abs(self.values)))
        self.scale = scale


def linear_maximum_gap(gradient, beta, signs, upper, rhs):
    """``max_{β′∈A} gᵀβ′ − gᵀβ`` over ``A = {sᵀβ′ = r, 0 ≤ β′ ≤ u}`` (s = ±1), and the minimizing ν.

    The LP's dual is ``min_ν h(ν) = νr + Σᵢ uᵢ(gᵢ − νsᵢ)₊``, convex and piecewise linear with
    breakpoints ``gᵢsᵢ``: all are evaluated at once from sorted prefix sums (O(n log n)). The gap
    ``h(ν) − gᵀβ`` is summed as ``Σᵢ[(uᵢ − βᵢ)(tᵢ)₊ + βᵢ(tᵢ)₋] + ν(r − sᵀβ)`` with ``tᵢ = gᵢ − νsᵢ``:
    non-negative terms for β in the box, and a residual of the equality at rounding level.

    ``ν`` is the model's intercept: with ``g = ∇f(β)`` the LP dual is the SVM primal (hinge,
    ε-insensitive or one-class loss) of the primal point ``w(β)`` as a function of its intercept, so the
    minimizing ν is the best intercept for ``w(β)``, the one whose primal value the gap certifies.
    Where ``h`` is flat on an interval of minimizers (no free variable), its midpoint is returned, as
    libsvm does.
    """
    breaks = gradient * signs
    order = np.argsort(breaks, kind="stable")
    a, weights, positive = breaks[order], upper[order], signs[order] > 0
    # h(a_k) = a_k r + Σ_{s=+, i>k} u_i (a_i − a_k) + Σ_{s=−, i<k} u_i (a_k − a_i)
    plus_u = np.where(positive, weights, 0.0)
    minus_u = np.where(positive, 0.0, weights)
    suffix_u = np.cumsum(plus_u[::-1])[::-1]
    suffix_ua = np.cumsum((plus_u * a)[::-1])[::-1]
    prefix_u = np.cumsum(minus_u)
    prefix_ua = np.cumsum(minus_u * a)
    values = a * rhs + (suffix_ua - a * suffix_u) + (a * prefix_u - prefix_ua)
    best = int(np.argmin(values))
    t = gradient - a[best] * signs
    gap = np.sum((upper - beta) * np.maximum(t, 0.0) - beta * np.minimum(t, 0.0))
    gap += a[best] * (rhs - signs @ beta)
    # h is minimal on an interval [a_lo, a_hi] of breakpoints; ν is its midpoint (flat to rounding)
    scale = float(weights @ np.abs(a)) + abs(rhs) * float(np.abs(a).max())
    flat = a[values <= values[best] + 16 * np.finfo(float).eps * scale]
    nu = 0.5 * float(flat.min() + flat.max())
    return max(float(gap), 0.0), nu


#: Largest spectral norm of the rank-one term ``z̃z̃ᵀ/4ρ`` of the proxy kernel that ``rho="auto"``
#: allows, as a fraction of the kernel scale κ (:func:`default_rho`).
AUTO_PERTURBATION = 1e-3


def default_cost(spectrum):
    """``C = 1/κ`` (``C="auto"``): scikit-learn's ``C = 1`` on a kernel with unit diagonal.

    Scaling the kernel by ``s`` and ``C`` by ``1/s`` scales the SVM dual solution by ``1/s`` and leaves
    its predictions unchanged; ``1/κ`` does exactly that.
    """
    return 1.0 / spectrum.scale


def default_rho(spectrum, z_coef, upper):
    """``ρ = max‖z̃‖²/(4·AUTO_PERTURBATION·κ)`` (``rho="auto"``), ``max‖z̃‖² ≤ Σⱼ (z̃-coefficientⱼ uⱼ)²``.

    The proxy kernel differs from ``(K̃₀)₊`` by at most ``‖z̃‖²/4ρ`` in spectral norm (Theorem 1), so
    this ρ keeps it within 0.1 % of κ for every feasible β: the regime of large ρ where the test rows,
    which lack the rank-one label term, see the model that was trained (Sec. 2.3). It scales as
    ``1/s³`` with the kernel when ``C`` scales as ``1/s`` (and as ``1/s`` for the one-class SVM), which is
    how (4) keeps its solution up to the factor of the dual variables.
    """
    return float(np.sum((z_coef * upper) ** 2)) / (4 * AUTO_PERTURBATION * spectrum.scale)


class ProxyKernelProblem:
    """Problem (7) (or (17), (20)) over β for one task.

    Parameters
    ----------
    spectrum : KernelSpectrum
    rho : float or "auto"
        Penalty ρ > 0; ``"auto"``: :func:`default_rho`.
    linear : ndarray of shape (n_var,)
        ``p``.
    z_index, z_coef : ndarray of shape (n_var,)
        ``z[z_index[j]] += z_coef[j] β[j]`` defines ``z = Mβ``.
    signs, upper, rhs
        Feasible set ``{signsᵀβ = rhs, 0 ≤ β ≤ upper}``.
    """

    def __init__(self, spectrum, rho, linear, z_index, z_coef, signs, upper, rhs):
        self.spectrum, self.linear, self.z_index = spectrum, linear, z_index
        self.z_coef = z_coef / spectrum.omega[z_index]  # maps β to z̃ = Ω⁻¹z
        self.rho = default_rho(spectrum, self.z_coef, upper) if rho == "auto" else float(rho)
        if not (np.isfinite(self.rho) and self.rho > 0):
            raise ValueError(
                f"rho={rho!r} gives ρ = {self.rho:.3g} in units of the kernel scale, beyond double precision "
                f"(rho='auto' grows as the square of C, here up to {float(np.max(upper)):.3g} in units of "
                "1/κ); choose a C nearer 1/κ (C='auto') or an explicit rho."
            )
        self.signs, self.upper, self.rhs = signs, upper, rhs
        self.n = spectrum.n

    def relative_perturbation(self):
        """Bound on ``‖z̃z̃ᵀ/4ρ‖/κ`` over the feasible set, ``Σⱼ(z̃-coefficientⱼ uⱼ)²/(4ρκ)``: how far
        the proxy kernel can move from ``(K̃₀)₊`` in units of the kernel scale (``rho="auto"``:
        ``AUTO_PERTURBATION``)."""
        bound = float(np.sum((self.z_coef * self.upper) ** 2))
        return bound / (4 * self.rho * self.spectrum.scale)

    def magnitude(self, beta):
        """The size of ``f − f₀`` at β, positive for β ≠ 0 even where ``f − f₀`` vanishes
        (:func:`relative_gap`): ``|pᵀβ|`` (SVC, SVR: at a maximizer ``½pᵀβ ≤ f − f₀ ≤ pᵀβ``, the SVM
        dual's KKT conditions), or ``½z̃ᵀ|K̃₀|z̃`` (``|K̃₀|`` the flipped kernel, one n×n product) where
        ``p = 0`` (one-class SVM)."""
        if np.any(self.linear):
            return abs(float(self.linear @ beta))
        z = self.scaled_z(beta)
        if self.spectrum.psd:
            return 0.5 * float(z @ (self.spectrum.K @ z))
        coordinates = self.spectrum.vectors.T @ z
        return 0.5 * float(np.abs(self.spectrum.values) @ coordinates**2)

    def scaled_z(self, beta):
        return np.bincount(self.z_index, weights=self.z_coef * beta, minlength=self.n)

    def project(self, beta):
        """Euclidean projection on the feasible set (step 2 of Algorithm 1, O(n log n))."""
        return project_box_hyperplane(beta, self.signs, self.upper, self.rhs)

    def constant(self):
        """``f₀ = ρ‖(K̃₀)₋‖²_F``, the value of ``f`` at z = 0 (module docstring)."""
        return self.rho * self.spectrum.negative_norm_squared

    def evaluate(self, beta, smoothing=0.0):
        """``(f − f₀, f_ε − f₀, ∇f_ε)`` at β in the cancellation-free form of the module docstring.

        One rank-one eigen-update (O(n·min(n₊, n₋)) plus two n×n products) for an indefinite ``K₀``;
        ``smoothing = 0`` or a positive semidefinite ``K₀`` gives ``(f − f₀, f − f₀, ∇f)``.
        """
        spectrum, weight = self.spectrum, 1 / (4 * self.rho)
        z = self.scaled_z(beta)
        linear = float(self.linear @ beta)
        if spectrum.psd:
            Kz = spectrum.K @ z
            zz = float(z @ z)
            value = linear - 0.5 * float(z @ Kz) - zz**2 / (16 * self.rho)
            action = Kz + weight * zz * z
            return value, value, self.linear - self.z_coef * action[self.z_index]
        V = spectrum.vectors
        square_change, smoothed_change, action = rank_one_smoothed_part(
            spectrum.values, V.T @ z, weight, smoothing
        )
        gradient = self.linear - self.z_coef * (V @ action)[self.z_index]
        smoothed = linear - self.rho * smoothed_change
        if smoothing > 0:  # f_ε(0) − f₀ = ρΣ(max(d, 0)² − g_ε(d)), in closed form
            d = np.maximum(spectrum.values, 0.0)
            smoothed += self.rho * float(
                np.sum(
                    np.where(d >= smoothing, smoothing * d - smoothing**2 / 3, d**2 - d**3 / (3 * smoothing))
                )
            )
        return linear - self.rho * square_change, smoothed, gradient

    def value_and_gradient(self, beta):
        """``f(β)`` and ``∇f(β)``."""
        value, _, gradient = self.evaluate(beta)
        return self.constant() + value, gradient

    def smoothed_value_and_gradient(self, beta, smoothing):
        """``(f(β), f_ε(β), ∇f_ε(β))`` with ε = ``smoothing`` (module docstring), in O(n²)."""
        value, smoothed, gradient = self.evaluate(beta, smoothing)
        return self.constant() + value, self.constant() + smoothed, gradient

    def gap(self, beta, gradient):
        """The certified duality gap ``max_{β′∈A} ∇f(β)ᵀ(β′ − β) ≥ f* − f(β)`` (module docstring)."""
        return linear_maximum_gap(gradient, beta, self.signs, self.upper, self.rhs)[0]

    def proxy(self, beta):
        """The scaled proxy kernel ``K̃*`` at β and an orthonormal basis of its range (or None if PSD).

        For an indefinite ``K₀`` this is one full rank-one eigen-update plus the n×n products that
        form ``K̃*``: O(n³), done once after fitting (and once per cut of the exchange method). On the
        low-rank problem the kernel ``K̃* = B Λ₊ Bᵀ`` is not formed (None) and the basis ``B`` is n×r.
        """
        spectrum, weight = self.spectrum, 1 / (4 * self.rho)
        z = self.scaled_z(beta)
        if spectrum.psd:
            return spectrum.K + weight * np.outer(z, z), None
        values, W = rank_one_eigh(spectrum.values, spectrum.vectors.T @ z, weight)
        positive = values > 0
        basis = spectrum.vectors @ W[:, positive]
        if spectrum.K is None:
            return None, basis
        return (basis * values[positive]) @ basis.T, basis

    def exchange_constraint(self, beta):
        """``(L, c)``: ``K̃* = LLᵀ`` the optimal kernel at β and ``c = ρ‖K̃* − K̃₀‖² − f₀``.

        ``c`` is taken as ``(f(β) − f₀) − pᵀβ + ½‖Lᵀz̃‖²`` (Theorem 1's value at β solved for the penalty
        term), so no O(ρ) number is subtracted.
        """
        K_scaled, basis = self.proxy(beta)
        if basis is None:
            values, vectors = scipy.linalg.eigh(K_scaled)
            basis, keep = vectors, values > 0
            L = basis[:, keep] * np.sqrt(values[keep])
        else:
            L = basis * np.sqrt(np.maximum(np.sum(basis * (K_scaled @ basis), axis=0), 0.0))
        value, _, _ = self.evaluate(beta)
        return L, value - float(self.linear @ beta) + 0.5 * float(np.sum((L.T @ self.scaled_z(beta)) ** 2))

    def z_matrix(self):
        M = np.zeros((self.n, self.linear.size))
        M[self.z_index, np.arange(self.linear.size)] = self.z_coef
        return M

    def intercept(self, beta):
        """The intercept of the model: the minimizing ν of :func:`linear_maximum_gap` at ``∇f(β)``.

        It is the multiplier of ``sᵀβ = r`` at a maximizer, and at any other β the best intercept for
        the primal point ``w(β)``, the one the certified gap speaks for. (The average of ``∇fⱼ/sⱼ``
        over the variables strictly inside the box, :func:`kkt_intercept`, needs an exact solution:
        at ACCPM's analytic centers and the exchange method's interior-point solutions every
        variable is inside the box.)
        """
        _, _, gradient = self.evaluate(beta)
        return linear_maximum_gap(gradient, beta, self.signs, self.upper, self.rhs)[1]

    def dual_coef(self, beta, basis=None):
        """Coefficients ``c`` of the decision function ``f(x) = k(x, X) c + b``.

        For an indefinite ``K₀`` the test rows go through the linear form of the heuristic of
        Sec. 2.3: the positive-part projector ``P̃₊`` of ``K̃₀ + z̃z̃ᵀ/4ρ`` (Chen et al. 2009), so
        ``c = Ω P̃₊ z̃``; for a PSD ``K₀`` only the support vectors are perturbed and ``c = z``.
        ``basis``: the range basis :meth:`proxy` returned at β, if the caller has it.
        """
        z = self.scaled_z(beta)
        omega = self.spectrum.omega
        if self.spectrum.psd:
            return omega * z
        if basis is None:
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


def relative_gap(lower, upper, scale=0.0):
    """``(upper − lower)/max(|lower|, |upper|, scale)`` (0 when all three are 0): the proxy SVMs'
    stopping measure.

    Invariant under scaling the objective (a kernel and ``C`` scaled together, or ``C`` alone in the
    limit of a large ρ), so one ``tol`` means the same on an objective of size 1e-3 or 1e3.
    ``scale`` (:meth:`ProxyKernelProblem.magnitude` at the iterate, which scales as the objective
    does and is of its size) keeps the measure finite where the optimum is ``f₀`` itself
    (``f − f₀ = 0``), as for a one-class SVM whose α can lie where ``(K̃₀)₊α = 0``.
    """
    denominator = max(abs(lower), abs(upper), scale)
    return 0.0 if denominator == 0 else (upper - lower) / denominator


@dataclass
class ProxySolution:
    """Result of :func:`solve_proxy_problem` (values of ``f``, not ``f − f₀``)."""

    beta: np.ndarray
    value: float
    upper_bound: float
    gap_history: np.ndarray
    n_iter: int
    converged: bool
    smoothing_excess: float = 0.0  # f_ε(β) − f(β) at the returned β: the price of smoothing there


class _Certificate:
    """Best point and best upper bound ``min f(β) + gap(β)`` over the points seen (values ``f − f₀``).

    The relative gap ``(upper − f)/max(|f − f₀|, |upper − f₀|, m(β))`` (:func:`relative_gap`; ``m``
    :meth:`ProxyKernelProblem.magnitude`) is
    recorded at every check: ``f`` carries the constant ``f₀ = ρ‖(K̃₀)₋‖²``, which can dwarf the SVM terms and
    make any gap look small, and the SVM terms have the scale of the kernel times ``C``, so no
    absolute floor (such as 1) is scale-free: with ``max(1, ·)`` a one-class SVM whose objective is
    0.06 stopped at 43 % training outliers for ν = 0.05.
    """

    def __init__(self, problem, tol, smoothing, verbose, label):
        self.problem, self.tol, self.smoothing = problem, tol, smoothing
        self.verbose, self.label = verbose, label
        self.beta, self.value, self.upper = None, -np.inf, np.inf
        self.history = []

    def check(self, beta, value, gradient, extra_upper=np.inf):
        """Record β with its true value ``f − f₀`` and the gradient of the function followed."""
        if self.smoothing > 0 and not self.problem.spectrum.psd:
            _, _, gradient = self.problem.evaluate(beta)  # the certificate needs ∇f, not ∇f_ε
        if value > self.value:
            self.beta, self.value = beta, value
        self.upper = min(self.upper, value + self.problem.gap(beta, gradient), extra_upper)
        gap = relative_gap(self.value, self.upper, self.problem.magnitude(beta))
        self.history.append(gap)
        if self.verbose:
            print(f"[{self.label}] f - f0 = {self.value:.8g}, upper = {self.upper:.8g}, gap = {gap:.3g}")
        return gap <= self.tol


def solve_proxy_problem(
    problem, *, solver, max_iter, tol, learning_rate="auto", smoothing=0.0, start=None, verbose=0
):
    """Maximize ``f`` by projected gradient, ACCPM or the exchange method.

    The duality gap ``min(upper bounds) − max f``, relative to ``max(|f − f₀|, |upper − f₀|, m(β))``
    (:func:`relative_gap`; ``f₀ = ρ‖(K̃₀)₋‖²`` is the constant part of ``f``, its value at z = 0), is
    certified at every iterate (module docstring) and recorded; the method stops once it is ≤ ``tol``.

    Parameters
    ----------
    problem : ProxyKernelProblem
    solver : {"projected_gradient", "accpm", "exchange"}
    max_iter : int
    tol : float
        Relative duality-gap tolerance.
    learning_rate : "auto" or float
        ``"auto"``: spectral projected gradient (Barzilai–Borwein steps with a nonmonotone line
        search, see :func:`_projected_gradient`); a float ``t`` gives the paper's schedule
        ``β_{k+1} = P_A(β_k + (t/k)∇f(β_k))`` (Sec. 3.2 uses 5/k), no line search.
    smoothing : float
        ε ≥ 0 of the Moreau–Yosida smoothing of Sec. 3 (module docstring): projected gradient and
        ACCPM follow ``f_ε`` and ``∇f_ε``, while the iterate kept, its value and the duality gap are
        those of ``f``. ``0`` is the unsmoothed method; ``> 0`` with ``solver="exchange"`` raises.
    start : ndarray, optional
        Warm start for projected gradient (projected on the feasible set); default: β = 0 projected
        (α = 0 for SVC and SVR, the paper's start).
    verbose : int

    Returns
    -------
    ProxySolution
    """
    if smoothing < 0:
        raise ValueError(f"smoothing must be non-negative, got {smoothing}.")
    if smoothing > 0 and solver == "exchange":  # the estimators explain this to users
        raise ValueError("smoothing > 0 does not apply to solver='exchange'.")
    certificate = _Certificate(problem, tol, smoothing, verbose, solver)

    def oracle(beta):  # (f − f₀, f_ε − f₀, ∇f_ε)
        return problem.evaluate(beta, smoothing)

    beta = problem.project(np.zeros(problem.linear.size) if start is None else start)
    if solver == "projected_gradient":
        converged, n_iter = _projected_gradient(problem, oracle, certificate, beta, max_iter, learning_rate)
    elif solver == "accpm":

        def accpm_oracle(beta):
            # Cuts from ∇f_ε; ACCPM uses the value only to keep its best center, which must be
            # the best for the true objective f. Every center is certified.
            value, _, gradient = oracle(beta)
            certificate.check(beta, value, gradient)
            return value, gradient

        n_iter = accpm_maximize(
            accpm_oracle, problem.signs, problem.upper, problem.rhs, max_iter=max_iter,
            callback=lambda iteration, beta, value: certificate.history[-1] <= tol,
        ).n_iter  # fmt: skip
        converged = certificate.history[-1] <= tol
    elif solver == "exchange":

        def exchange_callback(iteration, beta, value, t_upper):
            _, _, gradient = problem.evaluate(beta)
            return certificate.check(beta, value, gradient, extra_upper=t_upper)

        n_iter = exchange_maximize(
            problem.linear, problem.z_matrix(), problem.signs, problem.upper, problem.rhs,
            problem.exchange_constraint, problem.gap, max_iter=max_iter, tol=tol, callback=exchange_callback,
        ).n_iter  # fmt: skip
        converged = certificate.history[-1] <= tol
    else:  # pragma: no cover - validated by the estimators
        raise ValueError(f"Unknown solver {solver!r}.")
    excess = 0.0
    if smoothing > 0:
        true_value, smoothed_value, _ = oracle(certificate.beta)
        excess = smoothed_value - true_value
    offset = problem.constant()
    return ProxySolution(
        beta=certificate.beta,
        value=offset + certificate.value,
        upper_bound=offset + certificate.upper,
        gap_history=np.asarray(certificate.history),
        n_iter=max(n_iter, 1),
        converged=bool(converged),
        smoothing_excess=float(excess),
    )


def _projected_gradient(problem, oracle, certificate, beta, max_iter, learning_rate):
    """Algorithm 1 (projected gradient ascent) by :func:`krein.optimize.projected_gradient` on ``−f_ε``;
    returns ``(converged, n_iter)``.

    ``learning_rate`` float ``t``: the paper's ``β_{k+1} = P_A(β_k + (t/k)∇f(β_k))`` (rule
    ``"diminishing"``). ``"auto"``: the spectral projected gradient (rule ``"spectral"``, Barzilai–Borwein
    steps from ``1/L`` for the SVM part of ``f``, nonmonotone line search; ``normal = s``, since every
    feasible move keeps ``sᵀβ``). Each trial is one rank-one eigen-update, O(n²); the certified gap
    costs O(n log n) per iteration. ``oracle(β) -> (f, f_ε, ∇f_ε)`` (values relative to ``f₀``): the
    steps and the search follow ``f_ε`` (``= f`` unless smoothing); the certificate gets the true
    value ``f``.
    """

    def descent_oracle(beta):
        value, smoothed, gradient = oracle(beta)
        return -smoothed, -gradient, value, gradient

    def check(iteration, beta, state, step):
        return certificate.check(beta, state[2], state[3])

    if learning_rate == "auto":
        scale = problem.spectrum.curvature * np.max(problem.z_coef**2)
        rule, learning_rate = "spectral", 1.0 / max(scale, 1e-12)
    else:
        rule = "diminishing"
    result = projected_gradient(
        descent_oracle, beta, problem.project, learning_rate=learning_rate, rule=rule, max_iter=max_iter,
        callback=check, normal=problem.signs,
    )  # fmt: skip
    return result.converged, result.n_iter

"""Kreĭn least squares in eigen-coordinates: one solution for every model and representation.

Every model of :mod:`krein.least_squares` works on a spectral representation ``K ≈ Ũ diag(σ) Ũᵀ``
of the (centred) training kernel (exact, or the Nyström one-shot eigendecomposition). In the
coordinates ``u`` of the training predictions ``f = Ũu`` the risk ``(1/n) ‖f − y‖² + λ₊‖f₊‖² + λ₋‖f₋‖²``
is, up to a constant, ``(1/n) (‖u‖² − 2bᵀu + uᵀQu)`` with ``b = Ũᵀy`` and a penalty ``Q``, and every
model solves

    (Q − μI) u = b,      α̂ = u / σ  (the eigen-coordinates of the dual coefficients),        (†)

with μ = −1 for Kreĭn ridge regression (``α = (H + nΛ±)⁻¹ P y`` of the 2019 paper, Sec. 2.4), and for
the variance constraint ``‖u‖² = n r²`` (problem (3)/(4) of Oglic & Gärtner 2018) the smallest root μ*
of the secular equation (7), by :func:`krein.optimize.solve_sphere_quadratic` (Sec. 3.1, Eq. (6)).

**Penalty** (:meth:`SpectralProblem.penalty`). Split by the eigenvectors of the (approximate) kernel
(``split="approximation"``, and the exact model) it is diagonal, ``Q = diag(c/σ)`` with ``cᵢ = nλ_±
sign σᵢ`` for ``λ₊‖f₊‖² + λ₋‖f₋‖²`` (regularization ``"decomposition"``) and ``cᵢ = nλ_±`` for
``λ₊‖f₊‖² − λ₋‖f₋‖²`` (``"krein"``, λ⟨f, f⟩_K for λ₊ = λ₋: OMCS-KREĬN, problem (1)). The paper's own
low-rank model (``split="landmarks"``, Oglic & Gärtner 2019, Sec. 2.4) has features ``Φ = K_XZ U_Z
|D|^{-1/2} S`` split by the signs ``S`` of the eigenvalues of ``K_ZZ``,

    z* = argmin ‖Φz − y‖² + n λ₊ ‖z₊‖² + n λ₋ ‖z₋‖²  =  (ΦᵀΦ + nΛ±)⁻¹ Φᵀ y,

(and ``‖Φz‖² = n r²`` for the constrained model). Centred, it is the split of the centred kernel's
landmark functions, by the eigenvectors of ``K̃_ZZ = Ũ_Z diag(σ) Ũ_Zᵀ`` (the centred approximation on
the landmarks; :func:`krein.representation._nystroem.centred_landmark_split`): the kernel ``H K̃ H`` is
the same, and with every point a landmark it is the exact centred model (split by the uncentred
``K_ZZ`` it was 5e-3 away, issue 42). With ``z = C u`` (:attr:`landmark_coordinates`)
``Q = Cᵀ diag(n λ_{Sⱼ}) C``, diagonalized once per (λ₊, λ₋), ``Q = V diag(ω) Vᵀ`` (O(m³)). On an
indefinite kernel with m ≪ n the two splits are different models (``nystroem_split`` of
:class:`~krein.least_squares.KreinRidge`; for ``DeltaGaussian(1, 2)``, n = 120, m = 30 their predictions
differ by 45 % in relative norm, ``tests/test_low_rank.py``). Their gradients: :mod:`._hypergradient`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from .._scaling import SAFE_RANGE, power_of_two_unit
from ..optimize import solve_sphere_quadratic

__all__ = ["AUTO_LAMBDA_TIMES_N", "SEARCH_START_LAMBDA", "SpectralProblem", "SpectralSolution", "target_unit"]

#: The estimators' ``"auto"`` default is λ₊ = λ₋ = AUTO_LAMBDA_TIMES_N · s / n (s = Σ|σᵢ|/n, the
#: kernel's scale; :mod:`krein._penalties`). In the risk ``(1/n)‖y − f‖² + λ‖f‖²`` the penalty nλ = s
#: is scikit-learn's ``KernelRidge(alpha=1)`` on a kernel of unit scale (a Gaussian's, s ≈ 1): the
#: plain estimator's default, kept on a kernel of any scale.
AUTO_LAMBDA_TIMES_N = 1.0

#: Where a hyperparameter search started from ``"auto"`` starts λ±, before any kernel is seen.
SEARCH_START_LAMBDA = 1e-2


def target_unit(Y):
    """The power of two the (centred) targets are divided by: 1 within ``krein._scaling.SAFE_RANGE``, else
    ``2^e`` near their largest magnitude, so that ``‖y‖²`` and the secular equation stay in range for
    targets near 1e160 or 1e-170 (exact: a power of two changes no digit). 1 for dask targets."""
    if not isinstance(Y, np.ndarray) or not Y.size:
        return 1.0
    return power_of_two_unit(np.max(np.abs(Y)), *SAFE_RANGE)


#: μ* closer than this to the end of its interval (relative to |ω_min|) counts as the hard case: the
#: solution along the bounding eigenvector is then determined by rounding, not by the data.
BOUNDARY_RTOL = 1e-10


@dataclass
class SpectralSolution:
    """A model (†) solved in the eigenbasis ``V`` (``basis``; None: the identity) of its penalty ``Q =
    Cᵀ diag(p) C = V diag(ω) Vᵀ`` (``penalty`` is ``(p, s, C)`` of :meth:`SpectralProblem.penalty`),
    one column per target: ``alpha_hat = u / σ``, ``gap = ω − μ`` (without cancellation), ``multiplier``
    μ (−1 for ridge); for the variance constraint the ``radius``, the distance ``shift`` of μ to the
    end of its interval and ``hard_case``, whether μ sits there (up to ``BOUNDARY_RTOL``)."""

    penalty: tuple
    basis: np.ndarray | None
    gap: np.ndarray
    alpha_hat: np.ndarray
    multiplier: np.ndarray
    shift: np.ndarray
    hard_case: np.ndarray
    radius: np.ndarray | None

    def resolve(self, x):
        """``(Q − μI)⁻¹ x`` in the coordinates ``u``, one column (and μ) per target."""
        return x / self.gap if self.basis is None else self.basis @ ((self.basis.T @ x) / self.gap)


@dataclass
class SpectralProblem:
    """What a least squares fit needs that does not depend on λ₊, λ₋ or r: the ``representation``
    (a :class:`krein.representation.SpectralRepresentation`), the training ``targets`` (n, t) less their
    ``target_means`` (zeros when not centred) and the ``split`` of a Nyström model (module docstring;
    ``"landmarks"`` needs a representation with :attr:`landmark_coordinates`). Targets and their means
    are in units of ``target_unit`` (:func:`target_unit`; so are :meth:`dual_coef`'s coefficients and
    intercepts, and a radius)."""

    representation: object
    targets: np.ndarray
    target_means: np.ndarray
    split: str = "approximation"
    target_unit: float = 1.0

    def __post_init__(self):
        self.projections = self.representation.project(self.targets)

    @property
    def n_samples(self):
        return self.targets.shape[0]

    def penalty(self, lambda_plus, lambda_minus, regularization="decomposition"):
        """``(p, s, C)``: the penalty ``Q = Cᵀ diag(p) C`` of the module docstring and the sign ``s`` of
        each entry of ``p`` (``∂p/∂log λ± = p`` on ``s = ±1``). ``C`` None (the identity), ``p = c/σ``,
        ``s = sign σ``; or, split ``"landmarks"``, ``p = n λ_{Sⱼ}`` (``n λ_{Sⱼ} Sⱼ`` for ``"krein"``),
        ``s = S``."""
        rep, landmarks = self.representation, self.split == "landmarks"
        signs = rep.landmark_signature if landmarks else np.sign(rep.values)
        p = self.n_samples * np.where(signs > 0, lambda_plus, lambda_minus)
        if regularization == "krein":
            p = p * signs
        return (p, signs, rep.landmark_coordinates) if landmarks else (p / np.abs(rep.values), signs, None)

    def solve(self, lambda_plus, lambda_minus, regularization="decomposition", radius=None):
        """Coefficients (†) for ridge (``radius`` None) or the variance constraint ``r = radius``.

        ``radius`` is a scalar or one value per target: the standard deviation of the training
        predictions, ``(1/n) ‖K α‖² = r²``. The landmark split diagonalizes ``Q`` first (O(m³)).
        """
        penalty = p, _, C = self.penalty(lambda_plus, lambda_minus, regularization)
        if C is None:
            omega, basis, b = p, None, self.projections
        else:
            Q = C.T @ (p[:, None] * C)
            omega, basis = scipy.linalg.eigh(0.5 * (Q + Q.T), driver="evd", check_finite=False)
            b = basis.T @ self.projections
        n_targets = b.shape[1]
        shift, hard_case = np.full(n_targets, np.nan), np.zeros(n_targets, bool)
        if radius is None:
            multiplier, gap = -np.ones(n_targets), np.repeat((1.0 + omega)[:, None], n_targets, axis=1)
            u = b / gap
        else:
            radius = np.broadcast_to(np.asarray(radius, dtype=float), (n_targets,)).copy()
            multiplier, u, gap = np.full(n_targets, np.nan), np.zeros_like(b), np.full_like(b, np.inf)
            for j in np.flatnonzero(radius > 0):  # radius 0: only u = 0 is feasible
                solution = solve_sphere_quadratic(omega, b[:, j], np.sqrt(self.n_samples) * radius[j])
                u[:, j], multiplier[j], shift[j] = solution.x, solution.multiplier, solution.shift
                gap[:, j] = (omega - omega.min()) + solution.shift
                hard_case[j] = solution.hard_case or solution.shift <= BOUNDARY_RTOL * abs(omega.min())
        alpha_hat = (u if basis is None else basis @ u) / self.representation.values[:, None]
        return SpectralSolution(penalty, basis, gap, alpha_hat, multiplier, shift, hard_case, radius)

    def dual_coef(self, solution):
        """Dual coefficients α on the representation's points and intercepts ``ȳ − k̄ᵀα`` (the centring
        folded in: :meth:`~krein.representation.SpectralRepresentation.offset`), one column per target."""
        alpha = self.representation.dual_coef(solution.alpha_hat)
        return alpha, self.target_means + self.representation.offset(alpha)

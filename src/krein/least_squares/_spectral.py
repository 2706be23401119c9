"""Kreĭn least squares in eigen-coordinates: solutions and exact hyperparameter gradients.

Every model of :mod:`krein.least_squares` works on a spectral representation ``K ≈ U diag(σ) Uᵀ`` of
the (centred) training kernel and has dual coefficients ``α = U α̂`` with

    α̂ᵢ = ŷᵢ / (cᵢ − μ σᵢ),      ŷ = Uᵀ y,                                                 (†)

where ``c`` encodes the regularization and μ the variance constraint:

* the regularizer ``λ₊‖f₊‖² + λ₋‖f₋‖²`` of the risk ``(1/n) Σ (f(xᵢ) − yᵢ)² + …`` (problem (3) of Oglic &
  Gärtner 2018; Kreĭn LSM of Oglic & Gärtner 2019, Sec. 2.4) gives ``cᵢ = n λ_{sign σᵢ} sign(σᵢ)``;
  the regularizer ``λ₊‖f₊‖² − λ₋‖f₋‖²`` (= λ⟨f, f⟩_K for λ₊ = λ₋, the OMCS-KREĬN problem (1)) gives
  ``cᵢ = n λ_{sign σᵢ}``;
* Kreĭn ridge regression (no constraint) has μ = −1: ``α = (H + nΛ±)⁻¹ P y`` of the 2019 paper;
* the variance constraint ``(1/n) Σ f(xᵢ)² = r²`` (centred data) makes μ the smallest root of the
  secular equation (7), found by :func:`krein.optimize.solve_sphere_quadratic` on the
  quadratic ``uᵀ diag(c/σ) u − 2 ŷᵀu`` over the sphere ``‖u‖² = n r²`` in the coordinates ``û = σ α̂``
  of the training predictions (Sec. 3.1 and Eq. (6) of the 2018 paper).

**Split of a low-rank model** (``split``). On a Nyström representation (Oglic & Gärtner 2019, Sec. 2.4)
the model space is the span of the landmark functionals, and its Kreĭn decomposition ``H₊ ⊕ H₋`` is
not unique. ``"approximation"`` splits it by the eigenvectors of ``K̃`` over the training points, which
makes the penalty diagonal in (†). ``"landmarks"`` is the paper's own formula: features
``Φ = K_XZ U_Z |D|^{-1/2} S`` split by the signs ``S`` of the eigenvalues of ``K_ZZ``,

    z* = argmin ‖Φz − y‖² + n λ₊ ‖z₊‖² + n λ₋ ‖z₋‖²  =  (ΦᵀΦ + nΛ±)⁻¹ Φᵀ y,

and the variance-constrained form ``min nλ₊‖z₊‖² + nλ₋‖z₋‖² − 2zᵀΦᵀy`` s.t. ``‖Φz‖² = n r²``. With
``z = C u`` (:attr:`landmark_coordinates`, ``u`` the coordinates of the training predictions ``Ũ u``)
the penalty is the full matrix ``Q = Cᵀ diag(n λ_{Sⱼ}) C``; one eigendecomposition ``Q = V diag(ω) Vᵀ``
(O(m³) per (λ₊, λ₋)) brings both problems to the diagonal form above with ``w = ω`` in the basis
``V``. The two splits agree for a positive definite kernel and when every point is a landmark (both
are then the eigenvectors of ``K``); on an indefinite kernel with m ≪ n they are different models
(for ``DeltaGaussian(1, 2)``, n = 120, m = 30 their predictions differ by 45 % in relative norm,
``tests/test_low_rank.py``), because ``H₊`` of ``K_ZZ`` is not orthogonal to ``H₋`` in the empirical
inner product ``ΦᵀΦ``.

The hyperparameter gradient of a validation loss is in :mod:`krein.least_squares._hypergradient`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from ..optimize import solve_sphere_quadratic

__all__ = ["SpectralProblem", "SpectralSolution", "regularization_weights"]

#: μ* closer than this to the end of its interval (relative to |w_min|, w = c/σ) counts as the hard
#: case: the solution along the bounding eigenvector is then determined by rounding, not by the data.
BOUNDARY_RTOL = 1e-10


def regularization_weights(values, n_samples, lambda_plus, lambda_minus, regularization):
    """The weights ``c`` of (†) for eigenvalues ``values``.

    ``"decomposition"``: ``cᵢ = n λ_± sign(σᵢ)`` (penalty λ₊‖f₊‖² + λ₋‖f₋‖²); ``"krein"``:
    ``cᵢ = n λ_±`` (penalty λ₊‖f₊‖² − λ₋‖f₋‖²).
    """
    positive = values > 0
    weights = n_samples * np.where(positive, lambda_plus, lambda_minus)
    if regularization == "decomposition":
        weights = np.where(positive, weights, -weights)
    return weights


@dataclass
class SpectralSolution:
    """A fitted model in eigen-coordinates, one column per target.

    The penalty in the coordinates ``u`` of the training predictions ``Ũu`` is ``uᵀQu``, ``Q = Cᵀ
    diag(p) C`` (``penalty`` is ``(p, s, C)`` of :meth:`SpectralProblem.penalty`) ``= V diag(ω) Vᵀ``
    (``basis`` V; None: the identity, ``Q = diag(c/σ)``), and the model solves ``(Q − μI) u = Ũᵀy``
    (†) in the basis V: ``alpha_hat = u / σ``. ``gap`` is ``ω − μ`` per target, computed without
    cancellation; ``multiplier`` is μ (−1 for ridge), ``shift`` the distance δ of μ to the end of its
    interval and ``hard_case`` whether μ sits there, up to ``BOUNDARY_RTOL`` (variance-constrained
    models only).
    """

    penalty: tuple
    basis: np.ndarray | None
    gap: np.ndarray
    alpha_hat: np.ndarray
    multiplier: np.ndarray
    shift: np.ndarray
    hard_case: np.ndarray
    radius: np.ndarray | None


@dataclass
class SpectralProblem:
    """What a least squares fit needs that does not depend on λ₊, λ₋ or r.

    Parameters
    ----------
    representation : krein.spectral.SpectralRepresentation
    targets : ndarray of shape (n, t)
        Training targets after centring (if ``centered``).
    target_means : ndarray of shape (t,)
        Means removed from the targets (zeros when not centred).
    split : {"approximation", "landmarks"}, default="approximation"
        Kreĭn decomposition of a Nyström model (see the module docstring); ``"landmarks"`` needs a
        representation with :attr:`landmark_coordinates`.
    """

    representation: object
    targets: np.ndarray
    target_means: np.ndarray
    split: str = "approximation"

    def __post_init__(self):
        self.projections = self.representation.project(self.targets)

    @property
    def n_samples(self):
        return self.targets.shape[0]

    def penalty(self, lambda_plus, lambda_minus, regularization="decomposition"):
        """The penalty ``Q = Cᵀ diag(p) C`` of the coordinates ``u`` (``C`` None: the identity).

        Returns ``p``, the sign ``s`` of each entry (``∂p/∂log λ± = p`` where ``s = ±1``) and ``C``:
        ``p = c/σ``, ``s = sign σ`` on the eigenvalues (split ``"approximation"``), or ``p = n λ_{Sⱼ}``
        (``n λ_{Sⱼ} Sⱼ`` for ``"krein"``), ``s = S`` on the landmark coordinates ``z = Cu``
        (:attr:`landmark_coordinates`, split ``"landmarks"``).
        """
        rep = self.representation
        if self.split == "landmarks":
            signs = rep.landmark_signature
            weights = regularization_weights(signs, self.n_samples, lambda_plus, lambda_minus, regularization)
            return signs * weights, signs, rep.landmark_coordinates
        sigma = rep.values
        weights = regularization_weights(sigma, self.n_samples, lambda_plus, lambda_minus, regularization)
        return weights / sigma, np.sign(sigma), None

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
        multiplier, shift = -np.ones(n_targets), np.full(n_targets, np.nan)
        hard_case = np.zeros(n_targets, bool)
        if radius is None:
            gap = np.repeat((1.0 + omega)[:, None], n_targets, axis=1)
            u = b / gap
        else:
            radius = np.broadcast_to(np.asarray(radius, dtype=float), (n_targets,)).copy()
            u, gap = np.zeros_like(b), np.full_like(b, np.inf)
            multiplier[:] = np.nan
            for j in np.flatnonzero(radius > 0):  # radius 0: only u = 0 is feasible
                solution = solve_sphere_quadratic(omega, b[:, j], np.sqrt(self.n_samples) * radius[j])
                u[:, j], multiplier[j], shift[j] = solution.u, solution.mu, solution.shift
                gap[:, j] = (omega - omega.min()) + solution.shift
                hard_case[j] = solution.hard_case or solution.shift <= BOUNDARY_RTOL * abs(omega.min())
        alpha_hat = (u if basis is None else basis @ u) / self.representation.values[:, None]
        return SpectralSolution(penalty, basis, gap, alpha_hat, multiplier, shift, hard_case, radius)

    def dual_coef(self, solution):
        """Dual coefficients on the representation's points and intercepts, one column per target.

        With a centred kernel the centring is folded in: ``f(x) = k(x, P)ᵀ α + b`` with
        ``b = ȳ − k̄ᵀ α`` (``k̄`` the column means of the training kernel, or of ``K_XZ``; see
        :meth:`~krein.spectral.SpectralRepresentation.offset`).
        """
        alpha = self.representation.dual_coef(solution.alpha_hat)
        return alpha, self.target_means + self.representation.offset(alpha)

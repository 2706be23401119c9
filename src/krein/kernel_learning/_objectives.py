"""The kernel-learning objectives of Li, Venturi & Xu: KRR (Eq. 4) and SVM (Eq. 8, Algorithm 7).

Both objectives are functions of the combination weights μ whose value and gradient come from one
dual solve with the combined kernel ``K_μ``:

- ridge, Eq. (4) and (7): ``F(μ) = yᵀ(K_μ + λI)⁻¹y + β‖μ‖²`` with ``∂F/∂μ_k = −αᵀG_kα + 2βμ_k``,
  ``α = (K_μ + λI)⁻¹y`` and ``G_k = ∂K_μ/∂μ_k`` (Sec. 2.2; β = 0 for the constrained problems).
  ``yᵀ(K_μ + λI)⁻¹y = max_α 2αᵀy − αᵀ(K_μ + λI)α`` (Eq. 3) is +∞ where ``K_μ + λI`` is not positive
  definite (indefinite base kernels): there the formula ``yᵀA⁻¹y`` is finite but meaningless (it
  is unbounded below as ``A`` nears singularity, and minimizing it returns garbage), so ``F = +∞``
  there and the solvers stay where ``K_μ + λI`` is positive definite;
- SVM, Eq. (8): ``J(μ) = max_{α ≥ 0, αᵀy = 0} 2αᵀ1 − αᵀ(Y K_μ Y + λI)α + β‖μ‖²`` (the 2-norm soft
  margin SVM with λ = 1/C) whose gradient, by Danskin's theorem, is ``−(Yα)ᵀG_k(Yα) + 2βμ_k`` at the
  maximizer α (Algorithm 7, line 7).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.linalg import LinAlgError, cho_factor, cho_solve, eigvalsh
from sklearn.svm import SVC

from .._validation import LIBSVM_MAX_KERNEL
from ._combination import KernelCombination

__all__ = ["RidgeObjective", "SVMObjective"]


def outside_domain_error(combination, mu, lam, what):
    """The ``ValueError`` for weights ``mu`` where ``K_μ + λI`` is not positive definite."""
    _, A = _regularized_kernel(combination, np.asarray(mu, dtype=float), lam)
    smallest = float(eigvalsh(A, subset_by_index=[0, 0], check_finite=False)[0]) - lam
    return ValueError(
        f"K_mu + alpha * I is not positive definite at mu = {np.round(mu, 6)} (smallest eigenvalue of "
        f"K_mu: {smallest:.4g}, alpha = {lam:g}): {what}, because a base kernel is indefinite. Increase "
        f"alpha above {-smallest:.4g}, start from smaller weights (mu0, mu_init), or use positive "
        "semidefinite base kernels."
    )


def _regularized_kernel(combination, mu, lam, limit=np.inf):
    """``(S, K_μ + λI)``; for d = 1 the second is built in place of S (S is then not kept).

    A combination with entries beyond ``limit`` or beyond double precision is an error: the objective
    is then not computable, and restricting μ to where it is would silently change the model.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        S = combination.linear(mu)
        A = combination.power(S, overwrite=True)
    largest = float(np.max(np.abs(A), initial=0.0))
    if not (np.isfinite(largest) and largest <= limit):
        beyond = "double precision" if limit == np.inf else f"{limit:.0e}"
        raise ValueError(
            f"The combined kernel K_mu = (sum_k mu_k K_k)^{combination.degree} at mu = {np.round(mu, 6)} "
            f"has entries up to {largest:.3g}, beyond {beyond} (base kernel values on X up to "
            f"{float(np.max(np.abs(combination.stack))):.3g}, degree={combination.degree}): rescale the "
            "base kernels (e.g. to a unit diagonal), lower the degree, or start from smaller weights "
            "(mu0, mu_init)."
        )
    A.flat[:: A.shape[0] + 1] += lam
    return (None if A is S else S), A


@dataclass
class RidgeState:
    """Everything known at one μ: ``S = Σμ_kK_k`` (None for d = 1), the dual ``α``, the Cholesky
    factor of ``K_μ + λI``, F and ∇F (F = +∞, and no dual, where ``K_μ + λI`` is not positive definite)."""

    mu: np.ndarray
    S: np.ndarray | None
    alpha: np.ndarray | None
    factor: tuple | None
    value: float
    gradient: np.ndarray


class RidgeObjective:
    """``F(μ) = yᵀ(K_μ + λI)⁻¹y + β‖μ‖²`` (Li, Venturi & Xu, Eq. 4 and 7) with gradient and Hessian.

    Parameters
    ----------
    combination : KernelCombination
    y : ndarray of shape (n,)
    lam : float
        The ridge λ > 0 (``alpha`` of the estimators).
    beta : float, default=0
        Weight of the regularizer ``r(μ) = β‖μ‖²`` (0 for the constrained problem (6)).
    """

    def __init__(
        self, combination: KernelCombination, y: NDArray[np.float64], lam: float, beta: float = 0.0
    ) -> None:
        self.combination = combination
        self.y = y
        self.lam = float(lam)
        self.beta = float(beta)
        self.n_evaluations = 0

    def evaluate(self, mu: ArrayLike) -> RidgeState:
        """Value, gradient and dual at ``mu`` (one Cholesky factorization of K_μ + λI).

        Where ``K_μ + λI`` is not positive definite, F = +∞ (see the module notes) and the state has
        no dual and a NaN gradient.
        """
        mu = np.asarray(mu, dtype=float)
        S, A = _regularized_kernel(self.combination, mu, self.lam)
        self.n_evaluations += 1
        try:
            factor = cho_factor(A, lower=True, overwrite_a=True, check_finite=False)
        except LinAlgError:
            return RidgeState(mu, S, None, None, np.inf, np.full(mu.shape, np.nan))
        alpha = cho_solve(factor, self.y, check_finite=False)
        value = float(self.y @ alpha + self.beta * (mu @ mu))
        gradient = -self.combination.derivative_forms(S, alpha) + 2.0 * self.beta * mu
        return RidgeState(mu, S, alpha, factor, value, gradient)

    def outside_domain(
        self, mu: ArrayLike, what: str = "the objective y'(K_mu + lam I)^-1 y is +inf there (Eq. 3)"
    ) -> ValueError:
        """The ``ValueError`` for weights where F = +∞ (solvers raise it for a start point there)."""
        return outside_domain_error(self.combination, mu, self.lam, what)

    def forms(self, state: RidgeState, alpha: NDArray[np.float64]) -> NDArray[np.float64]:
        """``v_k = αᵀG_kα`` at the weights of ``state`` for any ``alpha`` (Theorems 2.1 and 2.2)."""
        return self.combination.derivative_forms(state.S, alpha)

    def hessian(self, state: RidgeState) -> NDArray[np.float64]:
        """``∇²F = 2 (G_jα)ᵀ(K_μ + λI)⁻¹(G_kα) − αᵀ(∂²K_μ/∂μ_j∂μ_k)α + 2βI``.

        For d = 1 this is the Hessian of Sec. 2.2.1 (rIIA), for d = 2 the one of Sec. 2.2.2 (PGD2):
        ``8αᵀU_k(K_μ + λI)⁻¹U_jα − 2αᵀ(K_j∘K_k)α``.
        """
        if state.alpha is None:
            raise ValueError("The Hessian needs the dual: K_μ + λI is not positive definite at this μ.")
        B = self.combination.derivative_products(state.S, state.alpha)
        H = 2.0 * B.T @ cho_solve(
            state.factor, B, check_finite=False
        ) - self.combination.second_derivative_forms(state.S, state.alpha)
        H = 0.5 * (H + H.T)
        H[np.diag_indices_from(H)] += 2.0 * self.beta
        return H


@dataclass
class SVMState:
    """The SVM duals at one μ: signed coefficients ``Yα`` (n, tasks), intercepts, J and ∇J."""

    mu: np.ndarray
    dual_coef: np.ndarray
    intercept: np.ndarray
    value: float
    gradient: np.ndarray


class SVMObjective:
    """``J(μ)``: the 2-norm soft-margin SVM dual optimum (Eq. 8) summed over one-vs-rest tasks.

    The SVM with kernel ``K_μ`` and ``λ = 1/C`` in the 2-norm soft margin is the hard-margin SVM with
    kernel ``K_μ + λI``; it is solved by LIBSVM (``sklearn.svm.SVC``) with a box ``C_box`` large enough
    never to be active: at the optimum ``λ‖α‖² ≤ αᵀ(YK_μY + λI)α ≤ 2·1ᵀα ≤ 2√n‖α‖``, so
    ``α_i ≤ 2√n/λ`` whenever K_μ is positive semidefinite. A coefficient at the box therefore means
    that ``K_μ + λI`` is indefinite and the dual maximum is unbounded: J = +∞ there (and the solvers
    stay away). LIBSVM has no warm start, so each evaluation is a fresh solve.

    Parameters
    ----------
    combination : KernelCombination
    Y : ndarray of shape (n, n_tasks)
        ±1 targets, one column per one-vs-rest task.
    lam : float
        λ = 1/C of the 2-norm soft margin (``alpha`` of the estimators).
    beta : float, default=0
    svm_tol : float, default=1e-5
        Stopping tolerance of LIBSVM.
    """

    def __init__(
        self,
        combination: KernelCombination,
        Y: NDArray[np.float64],
        lam: float,
        beta: float = 0.0,
        svm_tol: float = 1e-5,
    ) -> None:
        self.combination = combination
        self.Y = Y
        self.lam = float(lam)
        self.beta = float(beta)
        self.svm_tol = svm_tol
        n = Y.shape[0]
        self.box = 4.0 * np.sqrt(n) / self.lam
        self.n_evaluations = 0

    def evaluate(self, mu: ArrayLike) -> SVMState:
        mu = np.asarray(mu, dtype=float)
        S, A = _regularized_kernel(self.combination, mu, self.lam, LIBSVM_MAX_KERNEL)
        n, n_tasks = self.Y.shape
        coef = np.zeros((n, n_tasks))
        intercept = np.zeros(n_tasks)
        value = self.beta * float(mu @ mu)
        gradient = 2.0 * self.beta * mu
        for t in range(n_tasks):
            svc = SVC(kernel="precomputed", C=self.box, tol=self.svm_tol).fit(A, self.Y[:, t])
            if np.max(np.abs(svc.dual_coef_)) >= (1.0 - 1e-6) * self.box:
                self.n_evaluations += 1
                return SVMState(mu, coef, intercept, np.inf, np.full(mu.shape, np.nan))
            coef[svc.support_, t] = svc.dual_coef_[0]
            intercept[t] = svc.intercept_[0]
            c = coef[:, t]
            value += 2.0 * np.abs(c).sum() - c @ (A[:, svc.support_] @ svc.dual_coef_[0])
            gradient = gradient - self.combination.derivative_forms(S, c)
        self.n_evaluations += 1
        return SVMState(mu, coef, intercept, float(value), gradient)

    def outside_domain(self, mu: ArrayLike) -> ValueError:
        """The ``ValueError`` for weights where J = +∞ (solvers raise it for a start point there)."""
        return outside_domain_error(
            self.combination,
            mu,
            self.lam,
            "the SVM dual (Eq. 8) is unbounded there (its coefficients reach 4·sqrt(n)/lam)",
        )

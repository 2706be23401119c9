"""scikit-learn estimators that learn a combination of base kernels (Li, Venturi & Xu).

Base kernels
------------
``kernels`` is a list of :class:`~krein.kernels.Kernel` objects or kernel names, ``None`` (four
Gaussians whose bandwidths are ½, 1, 2 and 4 times ``√(d · mean feature variance)``, the scale of the
distances between points, in the spirit of scikit-learn's ``gamma="scale"``), or ``"precomputed"``.

A precomputed stack of ``p`` base kernels is passed as a 3-D array: ``X[i, j, k] = K_k(x_i, x_j)``,
shape ``(n, n, p)`` at fit time and ``(t, n, p)`` (test versus training samples) at predict time.
The first two axes are the sample axes of an ordinary precomputed kernel, so scikit-learn's
cross-validation (which slices ``X[np.ix_(rows, columns)]`` for estimators with the ``pairwise``
tag) splits the stack correctly, and the last axis indexes the base kernels.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence
from typing import Literal, Self

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.linalg import LinAlgError, cho_factor
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .._base import check_kernel_memory, decision_to_labels, is_precomputed, one_vs_rest_targets
from .._parameters import store_parameters
from .._scaling import target_statistics
from .._threads import blas_for_data, blas_for_rows
from .._validation import LIBSVM_MAX_KERNEL, check_kernel_magnitude, check_square_kernel, check_test_kernel
from ..kernels import Gaussian, Kernel, make_kernel
from ..optimize import project_onto_ball_orthant
from ._combination import KernelCombination
from ._objectives import RidgeObjective, SVMObjective
from ._solvers import interpolated_iteration, projected_gradient, riemannian_trust_region

__all__ = ["KernelLearningRidge", "KernelLearningSVC"]

#: Multiples of the data's distance scale used as bandwidths of the default base kernels.
DEFAULT_BANDWIDTH_FACTORS = (0.5, 1.0, 2.0, 4.0)


def default_kernels(X):
    """Gaussian base kernels with bandwidths ``DEFAULT_BANDWIDTH_FACTORS × √(d · mean variance)``."""
    scale = np.sqrt(X.shape[1] * float(np.mean(np.var(X, axis=0))))
    scale = scale if np.isfinite(scale) and scale > 0 else 1.0
    return [Gaussian(eta=factor * scale) for factor in DEFAULT_BANDWIDTH_FACTORS]


def _probably_indefinite(K):
    """Whether a base kernel matrix fails a Cholesky test with a tiny relative jitter."""
    jitter = 1e-10 * max(float(np.mean(np.abs(np.diag(K)))), np.finfo(float).tiny)
    try:
        cho_factor(K + jitter * np.eye(K.shape[0]), lower=True, check_finite=False)
    except LinAlgError:
        return True
    return False


class _KernelCombinationMixin:
    """Base-kernel handling shared by the kernel-learning estimators (put it first in the bases)."""

    _common_constraints = {
        "kernels": [None, list, tuple, StrOptions({"precomputed"})],
        "degree": [Interval(numbers.Integral, 1, None, closed="left")],
        "alpha": [Interval(numbers.Real, 0, None, closed="neither")],
        "radius": [Interval(numbers.Real, 0, None, closed="neither")],
        "mu0": [None, numbers.Real, "array-like"],
        "mu_init": [None, numbers.Real, "array-like"],
        "q": [Interval(numbers.Real, 1, None, closed="left")],
        "beta": [Interval(numbers.Real, 0, None, closed="neither")],
        "learning_rate": [None, Interval(numbers.Real, 0, None, closed="neither")],
        "tol": [Interval(numbers.Real, 0, None, closed="neither")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "verbose": ["verbose"],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = is_precomputed(self.kernels)
        return tags

    # ------------------------------------------------------------------ fit-time kernels
    def _fit_stack(self, X, y, **validate_kwargs):
        """Validate ``X, y`` and return the (p, n, n) stack of training base kernels and ``y``."""
        if is_precomputed(self.kernels):
            X, y = validate_data(self, X, y, reset=True, dtype=np.float64, allow_nd=True, **validate_kwargs)
            if X.ndim != 3 or X.shape[0] != X.shape[1]:
                raise ValueError(
                    "With kernels='precomputed', X must be a stack of base kernel matrices of shape "
                    f"(n_samples, n_samples, n_kernels), got shape {X.shape}."
                )
            stack = np.ascontiguousarray(np.moveaxis(X, 2, 0))
            for k in range(stack.shape[0]):
                stack[k] = check_square_kernel(stack[k], f"X[:, :, {k}]")
            self.kernels_ = "precomputed"
            with blas_for_rows(stack.shape[1]):
                mask = [_probably_indefinite(K) for K in stack]
            indefinite = [f"X[:, :, {k}]" for k in range(stack.shape[0]) if mask[k]]
        else:
            X, y = validate_data(self, X, y, reset=True, dtype=np.float64, **validate_kwargs)
            if self.kernels is None:
                kernels = default_kernels(X)
            else:
                if len(self.kernels) == 0:
                    raise ValueError("kernels must list at least one base kernel, got an empty list.")
                kernels = [make_kernel(k, name=f"kernels[{i}]") for i, k in enumerate(self.kernels)]
                if any(k == "precomputed" for k in kernels):
                    raise ValueError(
                        "'precomputed' cannot be one entry of kernels; pass kernels='precomputed'."
                    )
            self.kernels_ = kernels
            self.X_fit_ = X
            check_kernel_memory(X.shape[0], self, copies=len(kernels) + 2)  # the stack and a combination
            stack = np.empty((len(kernels), X.shape[0], X.shape[0]))
            for k, kernel in enumerate(kernels):
                stack[k] = check_square_kernel(  # each base kernel (a copy) fitted to the training points
                    kernel.fit_gram(X), f"the base kernel kernels[{k}] = {kernel!r}", symmetrize=False
                )
            mask = [not k.is_positive_definite for k in kernels]
            indefinite = [repr(k) for k in kernels if not k.is_positive_definite]
        for k in range(stack.shape[0]):
            if not np.any(stack[k]):
                raise ValueError(
                    f"Base kernel {k} is all zero on the training data: there is nothing to learn."
                )
        if indefinite:
            warnings.warn(
                f"Base kernel(s) {', '.join(indefinite)} are not positive semidefinite: the weights are "
                "restricted to where K_mu + alpha * I stays positive definite (the objective is +inf "
                "elsewhere; the default start moves into that region, towards smaller weights).",
                UserWarning,
                stacklevel=3,
            )
        self.n_kernels_ = stack.shape[0]
        self._indefinite_mask = np.array(mask, dtype=bool)
        return stack, y

    def _test_kernel(self, X):
        """``K_μ(X, X_fit) = (Σ_k μ_k K_k(X, X_fit))^∘d`` (t, n) for validated test data; a clear error
        where it leaves double precision (it gave NaN predictions)."""
        with np.errstate(over="ignore", invalid="ignore"):
            S = self._test_combination(X)
            K = S if self.degree == 1 else S**self.degree
        if not np.all(np.isfinite(K)):
            raise ValueError(
                f"X: the learned kernel K_mu = (sum_k mu_k K_k)^{self.degree} between these test points and "
                "the training points is beyond double precision (a base kernel overflows on them); scale X "
                "like the training data, or rescale the base kernels."
            )
        return K

    def _test_combination(self, X):
        """``S = Σ_k μ_k K_k(X, X_fit)`` (t, n) for validated test data."""
        check_is_fitted(self)
        n_train = self.dual_coef_.shape[-1]
        if self.kernels_ == "precomputed":
            X = validate_data(self, X, reset=False, dtype=np.float64, allow_nd=True)
            if X.ndim != 3 or X.shape[2] != self.n_kernels_:
                raise ValueError(
                    "With kernels='precomputed', X must be a stack of test-versus-training base kernels "
                    f"of shape (n_test, {n_train}, {self.n_kernels_}), got shape {X.shape}."
                )
            check_test_kernel(X[:, :, 0], n_train, "X")
            return np.tensordot(X, self.weights_, axes=(2, 0))
        X = validate_data(self, X, reset=False, dtype=np.float64)
        S = np.zeros((X.shape[0], n_train))
        for weight, kernel in zip(self.weights_, self.kernels_, strict=True):
            if weight != 0:
                S += weight * kernel(X, self.X_fit_)
        return S

    # ------------------------------------------------------------------ weights
    def _weight_vectors(self, p):
        """Validated ``μ₀`` (default 1) and ``μ_init`` (default None) of length ``p``."""
        mu0 = np.ones(p) if self.mu0 is None else self._weight_vector(self.mu0, "mu0", p)
        mu_init = None if self.mu_init is None else self._weight_vector(self.mu_init, "mu_init", p)
        return mu0, mu_init

    @staticmethod
    def _weight_vector(value, name, p):
        value = np.asarray(value, dtype=float)
        if value.ndim == 0:
            value = np.full(p, float(value))
        if value.shape != (p,):
            raise ValueError(f"{name} must have one entry per base kernel ({p}), got shape {value.shape}.")
        if not np.all(np.isfinite(value)) or np.any(value < 0):
            raise ValueError(f"{name} must be finite and non-negative, got {value}.")
        return value

    def _pgd(self, objective, mu0, mu_init, regularized, learning_rate):
        """Algorithms 2/5 (projection onto M) or 6 (regularized, projection onto μ ≥ 0)."""
        if regularized:

            def project(mu):
                return np.maximum(mu, 0.0)
        else:

            def project(mu):
                return project_onto_ball_orthant(mu, mu0, self.radius, self.q)

        start = mu0 if mu_init is None else mu_init
        # The default start may lie where K_mu + alpha*I is indefinite (F = +inf): it then moves towards
        # a point of M without the indefinite base kernels, or the smallest weights of M, P(0). A start
        # the user gave is kept (or refused).
        fallbacks = ()
        if mu_init is None:
            fallbacks = (project(np.where(self._indefinite_mask, 0.0, mu0)), project(np.zeros_like(mu0)))
        return projected_gradient(
            objective,
            start,
            project,
            fallbacks=fallbacks,
            learning_rate=learning_rate,
            tol=self.tol,
            max_iter=self.max_iter,
            verbose=self.verbose,
            name=type(self).__name__,
        )

    def _store_result(self, result, unit=1.0):
        """Weights, iterations and the objective's history (of ``F/unit²``: scaled back, ``inf`` or 0
        where ``F`` itself is beyond double precision)."""
        self.weights_ = result.state.mu
        with np.errstate(over="ignore", under="ignore"):
            self.objective_history_ = np.asarray(result.history) * unit * unit
        self.n_iter_ = result.n_iter
        if not result.converged:
            warnings.warn(
                f"{type(self).__name__} did not converge in max_iter={self.max_iter} iterations "
                f"(tol={self.tol}); increase max_iter.",
                ConvergenceWarning,
                stacklevel=3,
            )


_RIDGE_SOLVERS = {"pgd", "rpgd", "qpgd", "rqpgd", "iia", "riia", "trust_region"}


class KernelLearningRidge(_KernelCombinationMixin, RegressorMixin, BaseEstimator):
    """Kernel ridge regression with a learned linear or polynomial combination of base kernels.

    Li, Venturi & Xu, *Learning the Kernel for Classification and Regression* (after Cortes, Mohri &
    Rostamizadeh 2009): minimizes ``F(μ) = yᵀ(K_μ + λI)⁻¹y + r(μ)`` (Eq. 4) over the combination
    weights, with ``K_μ = (Σ_k μ_k K_k)^∘d`` (linear combinations for d = 1, Eq. 5; Hadamard powers,
    Sec. 2.2.2, for d ≥ 2), then predicts with kernel ridge regression on the learned kernel:
    ``f(x) = Σ_i α_i K_μ(x, x_i)``, ``α = (K_μ + λI)⁻¹y`` (Eq. 3). Labels ±1 turn it into a
    classifier through the sign of ``f`` (Sec. 3).

    Parameters
    ----------
    kernels : list of Kernel or str, None or "precomputed", default=None
        The base kernels (see the module docstring; a precomputed stack has shape (n, n, p)).
    degree : int, default=1
        ``d``: 1 for linear combinations, 2 for the quadratic combinations of Sec. 2.2.2, any d ≥ 1.
    solver : {"pgd", "rpgd", "iia", "riia", "trust_region"} or "qpgd", "rqpgd", default="pgd"
        - ``"pgd"``: projected gradient descent on ``M = {μ ≥ 0 : ‖μ − μ₀‖_q ≤ Λ}`` (Algorithm 2 for
          d = 1, Algorithm 5 for d = 2; ``"qpgd"`` is an alias that requires d ≥ 2).
        - ``"rpgd"``: projected gradient on ``μ ≥ 0`` with ``r(μ) = β‖μ‖²`` (Eq. 7; Algorithm 6 for
          d = 2, alias ``"rqpgd"``).
        - ``"iia"``: interpolated iterative algorithm, fixed point ``μ = μ₀ + Λv/‖v‖`` of Theorem 2.1
          (Algorithm 3; d = 1, q = 2).
        - ``"riia"``: regularized IIA, fixed point ``μ_k = v_k/2β`` of Theorem 2.2 (Algorithm 4; d = 1).
        - ``"trust_region"``: Riemannian trust region on the sphere ``‖μ − μ₀‖₂ = Λ`` (Appendix A.3,
          Algorithm 8; requires q = 2 and Λ ≤ min μ₀ so that the sphere stays in μ ≥ 0).
    alpha : float, default=1.0
        The ridge λ > 0 of Eq. (2)–(4), shared by the kernel-learning problem and the final KRR.
    radius : float, default=1.0
        Radius Λ of the feasible set M (solvers "pgd", "iia", "trust_region").
    mu0 : array-like of shape (p,) or float, default=None
        Centre μ₀ ≥ 0 of M; ``None`` means 𝟏 (the paper's choice).
    mu_init : array-like of shape (p,) or float, default=None
        Starting weights; ``None`` means μ₀ (for "trust_region": μ₀ + Λ𝟏/√p).
    q : float, default=2.0
        The norm of M, q ≥ 1 (q = 2 for "iia" and "trust_region").
    beta : float, default=1.0
        Weight β of ``r(μ) = β‖μ‖²`` (solvers "rpgd" and "riia").
    learning_rate : float, default=None
        PGD/rPGD: the first step η (default 1; multiplied by 0.8 whenever the objective would
        increase, Sec. 2.3.2), on the objective in units of the targets' mean square (see Notes).
    interpolation : float, default=None
        IIA/rIIA: the interpolation η ∈ (0, 1) of ``α' = ηα + (1 − η)(K_μ + λI)⁻¹y`` (default ½).
    initial_radius : float, default=None
        Trust region: the first radius Δ₀ (default Λ/4).
    tol : float, default=1e-6
        Relative stopping tolerance on the change of μ (PGD), of α (IIA) or on the Riemannian
        gradient norm (trust region).
    max_iter : int, default=100
    verbose : int, default=0
        Print the objective at every iteration.

    Attributes
    ----------
    weights_ : ndarray of shape (p,)
        The learned μ.
    dual_coef_ : ndarray of shape (n_samples,)
        α = (K_μ + λI)⁻¹y at the learned μ.
    objective_history_ : ndarray
        F at the initial and at every accepted iterate (``inf`` or 0 where F is beyond double
        precision: targets near 1e±160, see Notes).
    n_iter_ : int
    kernels_ : list of Kernel or "precomputed"
        The resolved base kernels.
    n_kernels_ : int
    X_fit_ : ndarray of shape (n_samples, n_features)
        Training inputs (not for precomputed kernels).
    n_features_in_ : int

    See Also
    --------
    KernelLearningSVC : The same kernel learning with the 2-norm soft-margin SVM.
    krein.least_squares.KreinRidge : Kreĭn least squares with one fixed kernel.
    sklearn.kernel_ridge.KernelRidge : Kernel ridge regression with one kernel.

    Notes
    -----
    Every objective evaluation is one Cholesky factorization of ``K_μ + λI`` plus ``O(p n²)`` for
    the gradient
    ``∂F/∂μ_k = −αᵀG_kα + 2βμ_k``, ``G_k = d (Σ_j μ_j K_j)^∘(d−1) ∘ K_k``. Algorithm 6 of the paper
    prints ``μ_k + 2η(βμ_k − αᵀU_kα)``, an ascent step on the regularizer; the descent step on Eq. (7),
    ``μ_k − 2η(βμ_k − αᵀU_kα)``, is used here.

    The solvers minimize ``F/m² = (y/m)ᵀ(K_μ + λI)⁻¹(y/m) + (β/m²)‖μ‖²``, ``m² = mean(y²)`` (1 for
    ±1 labels), which has the minimizer of F: its steps and tolerances then mean the same for targets
    in any unit, so targets ``s·y`` give the weights of ``y`` and ``s`` times its predictions (with F
    itself, PGD's first step η∇F grew as s², and targets of size 1e-3 stopped after one step 2 %
    away from the optimum, while ``yᵀα`` overflowed for targets near 1e160).

    With indefinite base kernels ``K_μ + λI`` can be indefinite; there ``F = +∞`` (Eq. 3 is then an
    unbounded maximization: the formula yᵀ(K_μ + λI)⁻¹y is unbounded below near the singularities,
    and minimizing it returned models with a training R² of −10¹⁰). The solvers keep μ where
    ``K_μ + λI`` is positive definite. PGD moves a default start that lies outside towards a point
    of its feasible set M without the indefinite base kernels (or the point of M nearest 0); a
    ``mu_init`` outside, a trust-region start outside or an IIA fixed point outside is a
    ``ValueError`` saying how large λ must be.

    Examples
    --------
    >>> from krein.kernel_learning import KernelLearningRidge
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 3))
    >>> y = np.sin(X[:, 0]) + 0.5 * X[:, 1]
    >>> model = KernelLearningRidge().fit(X[:60], y[:60])
    >>> print(round(model.score(X[60:], y[60:]), 2))  # R² on the held-out points
    0.69
    >>> print(np.round(model.weights_, 2))  # the learned weights of the four default base kernels
    [1.57 1.72 1.37 1.12]
    """

    _parameter_constraints = {
        **_KernelCombinationMixin._common_constraints,
        "solver": [StrOptions(_RIDGE_SOLVERS)],
        "interpolation": [None, Interval(numbers.Real, 0, 1, closed="neither")],
        "initial_radius": [None, Interval(numbers.Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        kernels: Sequence[Kernel | str] | Literal["precomputed"] | None = None,
        *,
        degree: int = 1,
        solver: Literal["pgd", "rpgd", "qpgd", "rqpgd", "iia", "riia", "trust_region"] = "pgd",
        alpha: float = 1.0,
        radius: float = 1.0,
        mu0: ArrayLike | None = None,
        mu_init: ArrayLike | None = None,
        q: float = 2.0,
        beta: float = 1.0,
        learning_rate: float | None = None,
        interpolation: float | None = None,
        initial_radius: float | None = None,
        tol: float = 1e-6,
        max_iter: int = 100,
        verbose: int = 0,
    ) -> None:
        store_parameters(self, locals())

    def _canonical_solver(self):
        solver = self.solver
        if solver in ("qpgd", "rqpgd"):
            if self.degree < 2:
                raise ValueError(
                    f"solver={solver!r} is PGD on a polynomial combination; it needs degree >= 2."
                )
            solver = {"qpgd": "pgd", "rqpgd": "rpgd"}[solver]
        if solver in ("iia", "riia") and self.degree != 1:
            raise ValueError(
                f"solver={solver!r} iterates the fixed point of Theorem "
                f"{'2.1' if solver == 'iia' else '2.2'}, "
                f"which holds for linear combinations only (degree=1), got degree={self.degree}."
            )
        if solver in ("iia", "trust_region") and self.q != 2:
            raise ValueError(
                f"solver={solver!r} works on the Euclidean ball/sphere: q must be 2, got q={self.q}."
            )
        return solver

    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Learn the weights μ and the dual coefficients α on training data (X, y)."""
        with blas_for_data(X):  # one BLAS thread for a small problem (krein._threads)
            self._validate_params()
            solver = self._canonical_solver()
            stack, y = self._fit_stack(X, y, y_numeric=True)
            y = np.asarray(y, dtype=np.float64)
            combination = KernelCombination(stack, self.degree)
            mu0, mu_init = self._weight_vectors(combination.n_kernels)
            regularized = solver in ("rpgd", "riia")
            unit, beta = self._target_unit(y, self.beta if regularized else 0.0)
            objective = RidgeObjective(combination, y / unit, self.alpha, beta)
            with blas_for_rows(len(y)):
                if solver in ("pgd", "rpgd"):
                    step = 1.0 if self.learning_rate is None else self.learning_rate
                    result = self._pgd(objective, mu0, mu_init, regularized, step)
                elif solver in ("iia", "riia"):
                    result = self._interpolated(objective, solver, mu0, mu_init)
                else:
                    result = self._trust_region(objective, mu0, mu_init)
            self.dual_coef_ = result.state.alpha * unit
            self._store_result(result, unit)
            return self

    @staticmethod
    def _target_unit(y, beta):
        """``(m, β/m²)``: the objective is ``F/m² = (y/m)ᵀ(K_μ + λI)⁻¹(y/m) + (β/m²)‖μ‖²``, ``m`` the root
        mean square of the targets (:func:`krein._scaling.target_statistics`; 1 for ±1 labels), whose
        minimizer is that of F, and whose iterations are the same for targets in any unit (the steps
        of PGD, the trust region's tolerance, see the class notes)."""
        _, unit = target_statistics(y, center=False)
        with np.errstate(over="ignore"):
            scaled = beta / unit / unit
        if not np.isfinite(scaled):
            raise ValueError(
                f"beta={beta:g} is beyond double precision in units of the targets' mean square m² "
                f"(m = {unit:.3g}): the regularizer would hold every weight at 0. Rescale y or lower beta."
            )
        return unit, scaled

    def _interpolated(self, objective, solver, mu0, mu_init):
        interpolation = 0.5 if self.interpolation is None else self.interpolation
        if solver == "iia":

            def weights(v):  # Theorem 2.1, projected onto M (a no-op when every v_k ≥ 0)
                norm = np.linalg.norm(v)
                return (
                    mu0
                    if norm == 0
                    else project_onto_ball_orthant(mu0 + self.radius * v / norm, mu0, self.radius, 2.0)
                )
        else:

            def weights(v):  # Theorem 2.2 (v_k < 0 only with indefinite base kernels: μ_k = 0), β/m²
                return np.maximum(v, 0.0) / (2.0 * objective.beta)

        start = mu0 if mu_init is None else mu_init
        return interpolated_iteration(
            objective,
            start,
            weights,
            interpolation=interpolation,
            tol=self.tol,
            max_iter=self.max_iter,
            verbose=self.verbose,
            name=solver,
        )

    def _trust_region(self, objective, mu0, mu_init):
        p = objective.combination.n_kernels
        if self.radius > np.min(mu0):
            raise ValueError(
                "solver='trust_region' optimizes on the sphere ||mu - mu0|| = radius, which must stay in "
                f"mu >= 0: radius={self.radius} must not exceed min(mu0)={np.min(mu0)}."
            )
        start = mu0 + self.radius / np.sqrt(p) if mu_init is None else mu_init
        if np.linalg.norm(start - mu0) == 0:
            raise ValueError(
                "mu_init must differ from mu0 for solver='trust_region' (it is retracted onto the sphere)."
            )
        initial_radius = self.radius / 4 if self.initial_radius is None else self.initial_radius
        return riemannian_trust_region(
            objective,
            start,
            mu0,
            float(self.radius),
            initial_radius=initial_radius,
            tol=self.tol,
            max_iter=self.max_iter,
            verbose=self.verbose,
        )

    def predict(self, X: ArrayLike) -> NDArray[np.float64]:
        """``f(x) = Σ_i α_i K_μ(x, x_i)`` for inputs X (or a (t, n, p) precomputed stack)."""
        return self._test_kernel(X) @ self.dual_coef_


class KernelLearningSVC(_KernelCombinationMixin, ClassifierMixin, BaseEstimator):
    """2-norm soft-margin SVM with a learned combination of base kernels (generalized MKL).

    Li, Venturi & Xu, Sec. 3, Algorithm 7 (after Varma & Babu 2009): projected gradient descent on
    ``J(μ) + r(μ)``, where ``J(μ) = max_{α ≥ 0, αᵀy = 0} 2αᵀ1 − αᵀ(Y K_μ Y + λI)α`` is the dual
    optimum of the SVM of Eq. (8) with ``λ = 1/C``, and ``∂J/∂μ_k = −(Yα)ᵀG_k(Yα)`` at the SVM
    solution (Danskin). The SVM is re-solved (LIBSVM) at every step; the step rule is that of
    Sec. 2.3.2 (η × 0.8 while the objective would increase). Multiclass problems learn one μ shared by
    the one-vs-rest SVMs (J summed over the tasks).

    Parameters
    ----------
    kernels : list of Kernel or str, None or "precomputed", default=None
        The base kernels (see :class:`KernelLearningRidge`).
    degree : int, default=1
        Degree d of ``K_μ = (Σ_k μ_k K_k)^∘d``.
    solver : {"pgd", "rpgd"}, default="pgd"
        ``"pgd"``: projection onto ``M = {μ ≥ 0 : ‖μ − μ₀‖_q ≤ Λ}``; ``"rpgd"``: ``r(μ) = β‖μ‖²`` and
        projection onto μ ≥ 0.
    alpha : float, default=1.0
        λ = 1/C of the 2-norm soft margin.
    radius, mu0, mu_init, q, beta : see :class:`KernelLearningRidge`.
    learning_rate : float, default=None
        The first step η of PGD (default 1; multiplied by 0.8 whenever the objective would increase).
    tol : float, default=1e-4
        Relative tolerance on the change of μ.
    max_iter : int, default=50
    verbose : int, default=0

    Attributes
    ----------
    classes_ : ndarray
    weights_ : ndarray of shape (p,)
    dual_coef_ : ndarray of shape (n_tasks, n_samples)
        Signed SVM coefficients ``y_i α_i`` (one column per one-vs-rest task; one for binary).
    intercept_ : ndarray of shape (n_tasks,)
    objective_history_ : ndarray
    n_iter_, kernels_, n_kernels_, X_fit_, n_features_in_

    See Also
    --------
    KernelLearningRidge : The same kernel learning with kernel ridge regression.
    krein.svm.IndefiniteSVC : An SVM with one indefinite kernel.

    Examples
    --------
    >>> from krein.kernel_learning import KernelLearningSVC
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 3))
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> model = KernelLearningSVC().fit(X[:60], y[:60])
    >>> print(round(model.score(X[60:], y[60:]), 2))  # accuracy on the held-out points
    0.85
    >>> model.weights_.shape  # one weight per base kernel
    (4,)
    """

    _parameter_constraints = {
        **_KernelCombinationMixin._common_constraints,
        "solver": [StrOptions({"pgd", "rpgd"})],
    }

    def __init__(
        self,
        kernels: Sequence[Kernel | str] | Literal["precomputed"] | None = None,
        *,
        degree: int = 1,
        solver: Literal["pgd", "rpgd"] = "pgd",
        alpha: float = 1.0,
        radius: float = 1.0,
        mu0: ArrayLike | None = None,
        mu_init: ArrayLike | None = None,
        q: float = 2.0,
        beta: float = 1.0,
        learning_rate: float | None = None,
        tol: float = 1e-4,
        max_iter: int = 50,
        verbose: int = 0,
    ) -> None:
        store_parameters(self, locals())

    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Learn μ and the SVM duals on training data (X, y)."""
        with blas_for_data(X):  # one BLAS thread for a small problem (krein._threads)
            self._validate_params()
            stack, y = self._fit_stack(X, y)
            check_kernel_magnitude(stack, LIBSVM_MAX_KERNEL, "X")
            self.classes_, Y = one_vs_rest_targets(y)
            combination = KernelCombination(stack, self.degree)
            mu0, mu_init = self._weight_vectors(combination.n_kernels)
            regularized = self.solver == "rpgd"
            objective = SVMObjective(combination, Y, self.alpha, self.beta if regularized else 0.0)
            step = 1.0 if self.learning_rate is None else self.learning_rate
            with blas_for_rows(len(Y)):
                result = self._pgd(objective, mu0, mu_init, regularized, step)
            self.dual_coef_ = result.state.dual_coef.T
            self.intercept_ = result.state.intercept
            self._store_result(result)
            return self

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """``Σ_i y_iα_i K_μ(x, x_i) + b`` per one-vs-rest task (a vector for binary problems)."""
        scores = self._test_kernel(X) @ self.dual_coef_.T + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X: ArrayLike) -> NDArray:
        """Class labels from the one-vs-rest decision values."""
        return decision_to_labels(self.decision_function(X), self.classes_)

"""Support vector machines with indefinite kernels through a learned proxy kernel.

Luss & d'Aspremont (2009): :class:`IndefiniteSVC` (problem (4)/(7); PerturbSVM (22) when the kernel is
positive semidefinite; componentwise penalties of Theorem 3 through ``penalty_weights``),
:class:`IndefiniteSVR` (Sec. 4.1, problem (15)/(17)) and :class:`IndefiniteOneClassSVM` (Sec. 4.2,
problem (19)/(20)). The mathematics and the solvers live in :mod:`krein.svm._proxy`.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, OutlierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC, SVR, OneClassSVM
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import check_is_fitted

from .._base import KernelEstimatorMixin, decision_to_labels, one_vs_rest_targets
from .._validation import LIBSVM_MAX_KERNEL
from ._proxy import KernelSpectrum, ProxyKernelProblem, solve_proxy_problem

__all__ = ["IndefiniteOneClassSVM", "IndefiniteSVC", "IndefiniteSVR"]

_COMMON_CONSTRAINTS = {
    "kernel": [str, object],
    "rho": [Interval(Real, 0, None, closed="neither")],
    "solver": [StrOptions({"projected_gradient", "accpm", "exchange"})],
    "max_iter": [Interval(Integral, 1, None, closed="left")],
    "tol": [Interval(Real, 0, None, closed="neither")],
    "step_size": [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither")],
    "smoothing": [Interval(Real, 0, None, closed="left")],
    "gap_interval": [Interval(Integral, 1, None, closed="left")],
    "verbose": ["verbose"],
}


class _ProxyKernelEstimator(KernelEstimatorMixin, BaseEstimator):
    """Shared fitting loop: one proxy-kernel problem per task, one eigendecomposition for all."""

    _max_kernel_magnitude = LIBSVM_MAX_KERNEL

    def _validate_params(self):
        super()._validate_params()
        if self.smoothing > 0 and self.solver == "exchange":
            raise ValueError(
                f"smoothing={self.smoothing} does not apply to solver='exchange': the exchange method "
                "(Sec. 3.4) solves (8) by quadratically constrained LPs on cutting kernels and uses no "
                "gradient of (7) to smooth. Use smoothing=0, or solver='projected_gradient' or 'accpm'."
            )

    def _svm_tol(self):
        # libsvm stalls on the rank-deficient proxy kernels with KKT tolerances far below 1e-6
        return max(1e-6, min(1e-3, 0.01 * self.tol))

    def _solve(self, problem):
        solution = solve_proxy_problem(
            problem,
            solver=self.solver,
            max_iter=self.max_iter,
            tol=self.tol,
            step_size=self.step_size,
            gap_interval=self.gap_interval,
            smoothing=self.smoothing,
            verbose=self.verbose,
        )
        if not solution.converged:
            note = ""
            if solution.smoothing_excess > 0:
                note = (
                    f" With smoothing={self.smoothing} the smoothed objective exceeds (7) by "
                    f"{solution.smoothing_excess:.3g} at the returned point, which bounds how close the "
                    "smoothed maximizer gets to the optimum of (7); a smaller smoothing may be needed."
                )
            warnings.warn(
                f"{type(self).__name__} ({self.solver}) stopped after {solution.n_iter} iterations "
                f"(max_iter={self.max_iter}) "
                f"with relative duality gap {solution.gap_history[-1]:.3g} > tol={self.tol}.{note}",
                ConvergenceWarning,
                stacklevel=3,
            )
        K_scaled, _ = problem.proxy(solution.beta)
        omega = problem.spectrum.omega
        return {
            "solution": solution,
            "dual_coef": problem.dual_coef(solution.beta),
            "intercept": problem.intercept(solution.beta),
            "proxy_kernel": K_scaled / omega[:, None] / omega[None, :],
        }

    def _store(self, results, single):
        pick = (lambda values: values[0]) if single else np.asarray
        self.dual_coef_ = np.array([r["dual_coef"] for r in results])
        self.intercept_ = np.array([r["intercept"] for r in results])
        self.proxy_kernel_ = pick([r["proxy_kernel"] for r in results])
        histories = [r["solution"].gap_history for r in results]
        self.gap_history_ = histories[0] if single else histories
        self.objective_ = pick([r["solution"].value for r in results])
        self.n_iter_ = pick([r["solution"].n_iter for r in results])

    def _raw_decision(self, X):
        check_is_fitted(self)
        return self._test_kernel(X) @ self.dual_coef_.T + self.intercept_


_ATTRIBUTES_DOC = """
    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_tasks, n_train)
        Coefficients ``c`` of the decision function ``f(x) = k(x, X_train) c + b`` (test rows mapped
        by the heuristic of Sec. 2.3; see :meth:`ProxyKernelProblem.dual_coef`).
    intercept_ : ndarray of shape (n_tasks,)
    proxy_kernel_ : ndarray of shape (n_train, n_train) or (n_tasks, n_train, n_train)
        The learned proxy kernel ``K*`` of Theorem 1 (Theorem 3 with penalty weights).
    gap_history_ : ndarray (or list of ndarrays, one per task)
        Relative duality gaps ``(upper − f)/max(1, |f − f₀|)`` of the unsmoothed problem (7) at each
        check (``f₀ = ρ‖(K₀)₋‖²_F``, the value of ``f`` at α = 0; see :func:`solve_proxy_problem`).
    objective_ : float or ndarray
        Objective value of (7) at the solution (the unsmoothed one, also with ``smoothing > 0``).
    n_iter_ : int or ndarray
        Iterations of the solver.
    kernel_ : Kernel or "precomputed"
    n_features_in_ : int
"""


class IndefiniteSVC(ClassifierMixin, _ProxyKernelEstimator):
    """SVM classification with an indefinite kernel via a learned proxy kernel (Luss & d'Aspremont 2009).

    Solves problem (4): the SVM dual jointly with a PSD proxy kernel penalized by ``ρ‖K − K₀‖²_F``; the
    optimal proxy is ``K* = (K₀ + (Yα)(Yα)ᵀ/4ρ)₊`` (Theorem 1). As ρ → ∞ this is the SVM on the
    clipped ("denoised") kernel (Sec. 2.3). With a positive semidefinite kernel it is PerturbSVM
    (problem (22), Sec. 4.3). Multiclass problems are solved one-vs-rest, sharing one
    eigendecomposition of the kernel.

    Parameters
    ----------
    kernel : Kernel, str or "precomputed", default="gaussian"
    C : float, default=1.0
        Misclassification penalty.
    rho : float, default=10.0
        Penalty on ``‖K − K₀‖²_F``.
    solver : {"projected_gradient", "accpm", "exchange"}, default="projected_gradient"
        Algorithm 1 (O(n²) per iteration by rank-one eigen-updates), Algorithm 2 (ACCPM) or
        Algorithm 3 (exchange method of Chen & Ye; needs cvxpy).
    max_iter : int, default=1000
    tol : float, default=1e-3
        Relative duality-gap tolerance (Sec. 2.4).
    step_size : "auto" or float, default="auto"
        Projected-gradient steps: backtracking, or the schedule ``step_size / k`` of Sec. 3.2.
    smoothing : float, default=0.0
        ε ≥ 0 of the Moreau–Yosida smoothing of Sec. 3 ("Smoothing"), applied to the eigenvalue
        clipping: ``max(0, t)`` becomes ``φ_ε(t) = max_{0≤v≤1}(vt − εv²/2)`` (0, t²/2ε, t − ε/2 for
        t ≤ 0, 0 ≤ t ≤ ε, t ≥ ε), so projected gradient and ACCPM follow
        ``f_ε(α) = eᵀα + ρ(‖K₀‖²_F − Σ g_ε(λᵢ))``, ``g_ε(λ) = 2∫₀^λ φ_ε``, with gradient
        ``e − Y(Σ φ_ε(λᵢ)vᵢvᵢᵀ)Yα``, where λᵢ, vᵢ are the eigenpairs of ``K₀ + (Yα)(Yα)ᵀ/4ρ`` (ε = 0:
        problem (7) and ``K*``). Then ``f ≤ f_ε ≤ f + ρε Σ max(λᵢ, 0)``. The stopping rule,
        ``gap_history_`` and ``objective_`` stay those of the unsmoothed problem (7), so ε must be
        small enough for the smoothed maximizer to be within ``tol`` of the optimum. ``0`` (default)
        is the unsmoothed method. Not applied to a positive semidefinite kernel (PerturbSVM (22) has
        no ``max{0, ·}`` term); with ``solver="exchange"`` (which uses no gradient) any ε > 0 raises a
        ``ValueError``. Each iteration stays O(n²).
    gap_interval : int, default=10
        Projected-gradient iterations between duality-gap checks (each is an SVM solve).
    class_weight : dict, "balanced" or None, default=None
        Per-class multipliers of ``C`` (per-sample upper bounds of α).
    verbose : int, default=0
    """

    _parameter_constraints = {
        **_COMMON_CONSTRAINTS,
        "C": [Interval(Real, 0, None, closed="neither")],
        "class_weight": [dict, StrOptions({"balanced"}), None],
    }

    def __init__(
        self,
        kernel="gaussian",
        C=1.0,
        rho=10.0,
        solver="projected_gradient",
        max_iter=1000,
        tol=1e-3,
        step_size="auto",
        smoothing=0.0,
        gap_interval=10,
        class_weight=None,
        verbose=0,
    ):
        self.kernel = kernel
        self.C = C
        self.rho = rho
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol
        self.step_size = step_size
        self.smoothing = smoothing
        self.gap_interval = gap_interval
        self.class_weight = class_weight
        self.verbose = verbose

    def fit(self, X, y, penalty_weights=None):
        """Fit on ``X`` (samples, or the n×n kernel if precomputed) and labels ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
        y : array-like of shape (n_samples,)
        penalty_weights : array-like of shape (n_samples,), optional
            Per-sample weights ``h`` of the componentwise penalty ``Σ hᵢhⱼ(Kᵢⱼ − K₀ᵢⱼ)²``
            (Theorem 3).
        """
        self._validate_params()
        K, y = self._fit_kernel(X, y)
        self.classes_, Y = one_vs_rest_targets(y)
        upper = self.C * compute_sample_weight(self.class_weight, y)
        spectrum = KernelSpectrum(K, penalty_weights)
        n = K.shape[0]
        results = []
        for labels in Y.T:
            problem = ProxyKernelProblem(
                spectrum, self.rho, np.ones(n), np.arange(n), labels, labels, upper, 0.0,
                _svc_value(labels, upper, self._svm_tol()),
            )  # fmt: skip
            results.append(self._solve(problem))
        self._store(results, single=Y.shape[1] == 1)
        return self

    def decision_function(self, X):
        """Signed distances ``k(x, X) c + b`` (one column per class for multiclass)."""
        scores = self._raw_decision(X)
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict(self, X):
        return decision_to_labels(self.decision_function(X), self.classes_)


_LIBSVM_MAX_ITER = 10**6


def _fit_libsvm(model, K, *args, **kwargs):
    """Fit a libsvm model for a duality-gap bound; ``None`` if it did not converge.

    An unconverged SVM value is not a valid upper bound, so the caller skips that gap check.
    """
    model.set_params(max_iter=_LIBSVM_MAX_ITER)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(K, *args, **kwargs)
    return None if np.max(model.n_iter_) >= _LIBSVM_MAX_ITER else model


def _svc_value(labels, upper, tol):
    def value(K):
        svc = _fit_libsvm(SVC(kernel="precomputed", C=1.0, tol=tol), K, labels, sample_weight=upper)
        if svc is None:
            return np.inf, np.zeros(labels.size)
        alpha = np.zeros(labels.size)
        alpha[svc.support_] = np.abs(svc.dual_coef_[0])
        z = labels * alpha
        return float(alpha.sum() - 0.5 * z @ K @ z), alpha

    return value


class IndefiniteSVR(RegressorMixin, _ProxyKernelEstimator):
    """ε-insensitive support vector regression with an indefinite kernel (Luss & d'Aspremont, Sec. 4.1).

    Problem (15): the SVR dual (14) jointly with a PSD proxy kernel ``K* = (K₀ + ααᵀ/4ρ)₊``
    (Corollary 2), solved over ``β = (a, b)`` with ``α = a − b`` (libsvm's form of the dual).

    Parameters
    ----------
    kernel : Kernel, str or "precomputed", default="gaussian"
    C : float, default=1.0
    epsilon : float, default=0.1
        Width of the insensitive tube.
    rho, solver, max_iter, tol, step_size, smoothing, gap_interval, verbose
        As in :class:`IndefiniteSVC`.
    """

    _parameter_constraints = {
        **_COMMON_CONSTRAINTS,
        "C": [Interval(Real, 0, None, closed="neither")],
        "epsilon": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(
        self,
        kernel="gaussian",
        C=1.0,
        epsilon=0.1,
        rho=10.0,
        solver="projected_gradient",
        max_iter=1000,
        tol=1e-3,
        step_size="auto",
        smoothing=0.0,
        gap_interval=10,
        verbose=0,
    ):
        self.kernel = kernel
        self.C = C
        self.epsilon = epsilon
        self.rho = rho
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol
        self.step_size = step_size
        self.smoothing = smoothing
        self.gap_interval = gap_interval
        self.verbose = verbose

    def fit(self, X, y):
        self._validate_params()
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None.")
        K, y = self._fit_kernel(X, y, y_numeric=True)
        n = K.shape[0]
        index = np.concatenate([np.arange(n), np.arange(n)])
        coef = np.concatenate([np.ones(n), -np.ones(n)])
        linear = np.concatenate([y - self.epsilon, -y - self.epsilon])
        problem = ProxyKernelProblem(
            KernelSpectrum(K), self.rho, linear, index, coef, coef, np.full(2 * n, float(self.C)), 0.0,
            _svr_value(y, self.C, self.epsilon, self._svm_tol()),
        )  # fmt: skip
        self._store([self._solve(problem)], single=True)
        return self

    def predict(self, X):
        return self._raw_decision(X)[:, 0]


def _svr_value(y, C, epsilon, tol):
    def value(K):
        svr = _fit_libsvm(SVR(kernel="precomputed", C=C, epsilon=epsilon, tol=tol), K, y)
        if svr is None:
            return np.inf, np.zeros(2 * y.size)
        coef = np.zeros(y.size)
        coef[svr.support_] = svr.dual_coef_[0]
        beta = np.concatenate([np.maximum(coef, 0), np.maximum(-coef, 0)])
        return float(y @ coef - epsilon * np.abs(coef).sum() - 0.5 * coef @ K @ coef), beta

    return value


class IndefiniteOneClassSVM(OutlierMixin, _ProxyKernelEstimator):
    """One-class SVM with an indefinite kernel (Luss & d'Aspremont, Sec. 4.2, problem (19)/(20)).

    ``α`` satisfies ``eᵀα = 1, 0 ≤ α ≤ 1/(νn)``; the decision function is ``k(x, X)c − offset``,
    positive for inliers.

    Parameters
    ----------
    kernel : Kernel, str or "precomputed", default="gaussian"
    nu : float in (0, 1], default=0.5
        Upper bound on the fraction of training errors.
    rho, solver, max_iter, tol, step_size, smoothing, gap_interval, verbose
        As in :class:`IndefiniteSVC`.
    """

    _parameter_constraints = {
        **_COMMON_CONSTRAINTS,
        "nu": [Interval(Real, 0, 1, closed="right")],
    }

    def __init__(
        self,
        kernel="gaussian",
        nu=0.5,
        rho=10.0,
        solver="projected_gradient",
        max_iter=1000,
        tol=1e-3,
        step_size="auto",
        smoothing=0.0,
        gap_interval=10,
        verbose=0,
    ):
        self.kernel = kernel
        self.nu = nu
        self.rho = rho
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol
        self.step_size = step_size
        self.smoothing = smoothing
        self.gap_interval = gap_interval
        self.verbose = verbose

    def fit(self, X, y=None):
        self._validate_params()
        K, _ = self._fit_kernel(X)
        n = K.shape[0]
        ones = np.ones(n)
        problem = ProxyKernelProblem(
            KernelSpectrum(K), self.rho, np.zeros(n), np.arange(n), ones, ones,
            np.full(n, 1.0 / (self.nu * n)), 1.0, _one_class_value(self.nu, self._svm_tol()),
        )  # fmt: skip
        self._store([self._solve(problem)], single=True)
        self.offset_ = -float(self.intercept_[0])
        return self

    def decision_function(self, X):
        """Positive for inliers, negative for outliers."""
        return self._raw_decision(X)[:, 0]

    def score_samples(self, X):
        """``k(x, X) c``: the decision function without the offset."""
        return self.decision_function(X) + self.offset_

    def predict(self, X):
        return np.where(self.decision_function(X) >= 0, 1, -1)


def _one_class_value(nu, tol):
    def value(K):
        n = K.shape[0]
        model = _fit_libsvm(OneClassSVM(kernel="precomputed", nu=nu, tol=tol), K)
        if model is None:
            return np.inf, np.full(n, 1.0 / n)
        alpha = np.zeros(n)
        alpha[model.support_] = model.dual_coef_[0] / (nu * n)
        return float(-0.5 * alpha @ K @ alpha), alpha

    return value


for _estimator in (IndefiniteSVC, IndefiniteSVR, IndefiniteOneClassSVM):
    _estimator.__doc__ += _ATTRIBUTES_DOC

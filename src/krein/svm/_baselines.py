"""Baseline SVMs for indefinite kernels: Kreĭn SVM, the modified SVM of Lin & Lin, and DC programming.

- :class:`KreinSVC` (Loosli et al. 2016): by Proposition 3 of Oglic & Gärtner (2019) it is the SVM on
  the flip-spectrum matrix ``H = U|Λ|Uᵀ`` whose dual coefficients are mapped back by
  ``P = U sign(Λ) Uᵀ`` (so that ``K P a = H a`` on the training points and ``f(x) = k(x, X) P a + b``).
  With ``n_components`` the spectrum is the Nyström one, ``K̃ = ŨΛŨᵀ``, and ``H = ΦΦᵀ`` with the
  features ``Φ = Ũ|Λ|^{1/2}`` (n×r): libsvm's linear kernel on Φ, no n×n matrix.
- :class:`ModifiedSVC` (Lin & Lin 2003, the "Mod SVM" of Luss & d'Aspremont 2009, Sec. 5.1): the
  kernel appears only in the separating constraints ``yᵢ(Σⱼ cⱼ K(xᵢ, xⱼ) + b) ≥ 1 − ξᵢ`` and the
  regularizer is ``½‖c‖²`` (the identity replaces the kernel); this is a linear SVM on the empirical
  kernel map, solved as an SVM with the PSD Gram matrix ``K Kᵀ``.
- :class:`DCASVC` (Akoa 2008; the TDCASVM baseline of Liu et al. 2019): DC programming on the
  nonconvex SVM dual ``max eᵀα − ½αᵀYKYα``, with the decomposition ``YKY = (YKY + τI) − τI``,
  ``τ = max(0, −λ_min(K))``; each iteration maximizes the concave model obtained by linearizing
  ``½τ‖α‖²`` (a convex QP) and the dual objective increases monotonically.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import Literal, Self

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC
from sklearn.utils._param_validation import Interval, Options, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._base import KernelEstimatorMixin, decision_to_labels, one_vs_rest_targets
from .._parameters import store_parameters
from .._penalties import PENALTY_CONSTRAINT, kernel_scale, penalty
from .._threads import blas_for_data
from .._typing import FloatOrAuto, LandmarkMethod, LandmarkRank, RandomStateLike
from .._validation import LIBSVM_MAX_KERNEL, class_sample_weight
from ..kernels import Kernel
from ..optimize import project_box_hyperplane, projected_gradient
from ..representation import (
    LOW_RANK_PARAMETERS_DOC,
    UNCENTRED_SPECTRAL_PARAMETERS,
    SpectralEstimatorMixin,
    is_dask_array,
)
from ._proxy import kkt_intercept

__all__ = ["DCASVC", "KreinSVC", "ModifiedSVC"]

#: Default bound on libsvm's iterations (:class:`KreinSVC`, :class:`ModifiedSVC`): seconds of work on a
#: few thousand samples, where an unbounded solve at large C ran for minutes.
LIBSVM_MAX_ITER = 1_000_000


class _OneVsRestKernelSVC(KernelEstimatorMixin, ClassifierMixin, BaseEstimator):
    """One-vs-rest classification with ``f(x) = k(x, X) c + b`` per task."""

    _max_kernel_magnitude = LIBSVM_MAX_KERNEL

    _parameter_constraints = {
        "kernel": [str, object],
        "C": [Interval(Real, 0, None, closed="neither")],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "tol": [Interval(Real, 0, None, closed="neither")],
    }

    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        with blas_for_data(X):  # one BLAS thread for a small problem (krein._threads)
            self._validate_params()
            K, y = self._fit_kernel(X, y)
            self._fit_tasks(K, y)
            return self

    def _fit_tasks(self, prepared, y):
        """One SVM per one-vs-rest task of the labels ``y`` on what :meth:`_prepare` makes of
        ``prepared`` (the training kernel, or a spectral representation)."""
        self.classes_, Y = one_vs_rest_targets(y)
        self.n_iter_ = 0
        self._prepare(prepared)
        upper = self._cost() * class_sample_weight(self.class_weight, y)
        results = [self._fit_task(prepared, labels, upper) for labels in Y.T]
        self.dual_coef_ = np.array([c for c, _ in results])
        self.intercept_ = np.array([b for _, b in results])

    def _cost(self):
        """The SVM cost C of the fit."""
        return float(self.C)

    def _libsvm_task(self, gram, labels, upper, kernel="precomputed"):
        """``(y ∘ α, b)`` of the SVM with the PSD ``gram`` (libsvm, at most ``max_iter`` iterations); with
        ``kernel="linear"``, ``gram`` holds features whose inner products are the Gram matrix.

        Stopping at ``max_iter`` before ``tol`` is met gives a ``ConvergenceWarning`` that says what to
        change (libsvm's own warning is replaced).
        """
        svc = SVC(kernel=kernel, C=1.0, tol=self.tol, max_iter=self.max_iter, verbose=bool(self.verbose))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            svc.fit(gram, labels, sample_weight=upper)
        for item in caught:
            if not issubclass(item.category, ConvergenceWarning):
                warnings.warn_explicit(item.message, item.category, item.filename, item.lineno)
        self.n_iter_ = max(getattr(self, "n_iter_", 0), int(np.max(svc.n_iter_)))
        if any(issubclass(item.category, ConvergenceWarning) for item in caught):
            warnings.warn(
                f"{type(self).__name__}: libsvm stopped at max_iter={self.max_iter} iterations before "
                f"reaching tol={self.tol}; increase max_iter, or decrease C (C={self._cost():g}: a large C "
                "makes the dual slow to solve).",
                ConvergenceWarning,
                stacklevel=4,
            )
        coef = np.zeros(labels.size)
        coef[svc.support_] = svc.dual_coef_[0]
        return coef, float(svc.intercept_[0])

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        check_is_fitted(self)
        scores = self._scores(X)
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def _scores(self, X):
        return self._test_kernel(X) @ self.dual_coef_.T + self.intercept_

    def predict(self, X: ArrayLike) -> NDArray:
        return decision_to_labels(self.decision_function(X), self.classes_)


_LIBSVM_PARAMETERS_DOC = """Parameters
    ----------
    kernel : Kernel, str or "precomputed", default="gaussian"
    C : float, default=1.0
    class_weight : dict, "balanced" or None, default=None
    tol : float, default=1e-3
        libsvm stopping tolerance.
    max_iter : int, default=1_000_000
        Bound on libsvm's iterations per one-vs-rest task (-1: none); reaching it gives a
        ``ConvergenceWarning``.
    verbose : int, default=0
        Print libsvm's progress."""


_AUTO_C_DOC = """C : float or "auto", default="auto"
        SVM cost. ``"auto"``: 1 / s (to 6 significant digits) with the kernel's scale ``s = Σ|σᵢ|/n``
        (the mean absolute eigenvalue of the training kernel; 1 for a Gaussian kernel), so that the
        model does not change when the kernel is multiplied by a constant; a number is used as it is."""


class _LibsvmBaseline(_OneVsRestKernelSVC):
    """The parameters of the baselines solved by libsvm on a positive semidefinite matrix."""

    _parameter_constraints = {
        **_OneVsRestKernelSVC._parameter_constraints,
        "max_iter": [Interval(Integral, 1, None, closed="left"), Options(Integral, {-1})],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        kernel: Kernel | str = "gaussian",
        *,
        C: float = 1.0,
        class_weight: dict | Literal["balanced"] | None = None,
        tol: float = 1e-3,
        max_iter: int = LIBSVM_MAX_ITER,
        verbose: int = 0,
    ) -> None:
        store_parameters(self, locals())


class KreinSVC(SpectralEstimatorMixin, _LibsvmBaseline):
    __doc__ = f"""Kreĭn SVM (Loosli et al. 2016) = SVM on the flip-spectrum kernel + out-of-sample map.

    {_LIBSVM_PARAMETERS_DOC.replace("C : float, default=1.0", _AUTO_C_DOC)}
    {LOW_RANK_PARAMETERS_DOC}

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_tasks, n_points)
        ``P (y ∘ α_H)`` with ``α_H`` the SVM solution on the flip matrix, on the points of
        ``representation_`` (the training points, or the landmarks with ``n_components``).
    intercept_ : ndarray of shape (n_tasks,)
    representation_ : krein.representation.SpectralRepresentation
        The training kernel's exact eigendecomposition (eigenvalues ascending, exact zeros dropped), or
        its Nyström one with ``n_components``, through which test points are evaluated.
    landmark_indices_ : ndarray of shape (m,) or None
        Landmarks of the low-rank model (None when exact).
    flip_kernel_ : ndarray of shape (n_train, n_train) or None
        ``U|Λ|Uᵀ``; None with ``n_components`` (libsvm then takes the features ``Ũ|Λ|^{{1/2}}``).
    C_ : float
        The cost used (``C``, or its ``"auto"`` value).
    n_iter_ : int
        Largest number of libsvm iterations over the tasks.

    See Also
    --------
    ModifiedSVC : The modified SVM of Lin & Lin.
    IndefiniteSVC : The proxy-kernel SVM.
    krein.spectral.SpectrumTransformer : The flip (and clip, shift, square) transformation alone.

    Examples
    --------
    >>> from krein.svm import KreinSVC
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 3))
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> model = KreinSVC(kernel="sigmoid").fit(X[:60], y[:60])
    >>> print(round(model.score(X[60:], y[60:]), 2))  # accuracy on the held-out points
    0.9
    """

    _parameter_constraints = {
        **_LibsvmBaseline._parameter_constraints,
        **UNCENTRED_SPECTRAL_PARAMETERS,
        "C": PENALTY_CONSTRAINT,
    }

    def __init__(
        self,
        kernel: Kernel | str = "gaussian",
        *,
        C: FloatOrAuto = "auto",
        class_weight: dict | Literal["balanced"] | None = None,
        tol: float = 1e-3,
        max_iter: int = LIBSVM_MAX_ITER,
        verbose: int = 0,
        n_components: int | None = None,
        landmarks: LandmarkMethod = "uniform",
        landmark_rank: LandmarkRank = "full",
        random_state: RandomStateLike = None,
        working_memory: float | None = None,
    ) -> None:
        store_parameters(self, locals())

    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        with blas_for_data(X):  # one BLAS thread for a small problem (krein._threads)
            self._validate_params()
            data, y = self._training_data(X, y)
            representation = self._fit_representation(data)
            self._fit_tasks(representation, y.compute() if is_dask_array(y) else y)
            return self

    def _exact_rtol(self):
        """Every eigenpair but exact zeros, which neither the flip nor the map P = U sign(Λ) Uᵀ sees."""
        return 0.0

    def _prepare(self, representation):
        values, U = representation.values, representation.training_vectors()
        if self.n_components is None:
            self.flip_kernel_ = (U * np.abs(values)) @ U.T
            self._gram = (self.flip_kernel_, "precomputed")
        else:  # H = ΦΦᵀ, Φ = Ũ|Λ|^{1/2}: libsvm's linear kernel on the n×r features
            self.flip_kernel_ = None
            self._gram = (U * np.sqrt(np.abs(values)), "linear")
        self._signed_basis = (U, np.sign(values))
        # rounded to 6 significant digits: rounding-level changes of the kernel (a strided copy, points
        # far from the origin) must not move libsvm's path, whose result is only accurate to ``tol``
        scale = kernel_scale(values, U.shape[0])
        self.C_ = float(f"{penalty(self.C, 1.0, scale, inverse=True):.6g}")

    def _cost(self):
        return self.C_

    def _scores(self, X):
        """``k(x, P) β + b`` through the representation's out-of-sample map."""
        return self._evaluate(X)

    def predict(self, X: ArrayLike) -> NDArray:
        return self._labels(self.decision_function(X))

    def _fit_task(self, representation, labels, upper):
        gram, kernel = self._gram
        coef, intercept = self._libsvm_task(gram, labels, upper, kernel=kernel)
        U, signs = self._signed_basis
        return representation.dual_coef(signs * (U.T @ coef)), intercept


class ModifiedSVC(_LibsvmBaseline):
    __doc__ = f"""Modified SVM of Lin & Lin (2003): ``min ½‖c‖² + C Σ ξᵢ`` s.t. ``yᵢ(K c + b)ᵢ ≥ 1 − ξᵢ``.

    {_LIBSVM_PARAMETERS_DOC}

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_tasks, n_train)
        ``c = K (y ∘ α)``.
    intercept_ : ndarray of shape (n_tasks,)
    n_iter_ : int
        Largest number of libsvm iterations over the tasks.

    See Also
    --------
    KreinSVC : The SVM on the flip-spectrum kernel.
    DCASVC : The SVM on the nonconvex dual by DC programming.

    Examples
    --------
    >>> from krein.svm import ModifiedSVC
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 3))
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> model = ModifiedSVC(kernel="sigmoid").fit(X[:60], y[:60])
    >>> print(round(model.score(X[60:], y[60:]), 2))  # accuracy on the held-out points
    0.9
    """

    def _prepare(self, K):
        self._gram = K @ K.T

    def _fit_task(self, K, labels, upper):
        coef, intercept = self._libsvm_task(self._gram, labels, upper)
        return K.T @ coef, intercept


class DCASVC(_OneVsRestKernelSVC):
    """SVM on an indefinite kernel by DC programming on the nonconvex dual (Akoa 2008, TDCASVM).

    Parameters
    ----------
    kernel : Kernel, str or "precomputed", default="gaussian"
    C : float, default=1.0
    class_weight : dict, "balanced" or None, default=None
    max_iter : int, default=100
        DCA (outer) iterations.
    tol : float, default=1e-6
        Stop when the dual objective increases by less than ``tol · max(1, |objective|)``.
    verbose : int, default=0
        Print the dual objective after every DCA iteration.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_tasks, n_train)
        ``y ∘ α``.
    intercept_ : ndarray of shape (n_tasks,)
    objective_history_ : list of ndarray
        Dual objective ``eᵀα − ½αᵀYKYα`` after each DCA iteration, per task (non-decreasing).
    shift_ : float
        τ.
    n_iter_ : int
        Largest number of DCA iterations over the tasks.

    See Also
    --------
    ModifiedSVC : The modified SVM of Lin & Lin.
    IndefiniteSVC : The proxy-kernel SVM (a convex problem).

    Examples
    --------
    >>> from krein.svm import DCASVC
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 3))
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> model = DCASVC(kernel="sigmoid").fit(X[:60], y[:60])
    >>> print(round(model.score(X[60:], y[60:]), 2))  # accuracy on the held-out points
    0.95
    """

    _parameter_constraints = {
        **_OneVsRestKernelSVC._parameter_constraints,
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        kernel: Kernel | str = "gaussian",
        *,
        C: float = 1.0,
        class_weight: dict | Literal["balanced"] | None = None,
        max_iter: int = 100,
        tol: float = 1e-6,
        verbose: int = 0,
    ) -> None:
        store_parameters(self, locals())

    def _prepare(self, K):
        values = scipy.linalg.eigvalsh(K, check_finite=False)
        scale = max(np.max(np.abs(values)), 1e-300)
        self.shift_ = float(max(0.0, -values[0]))
        self._lipschitz = values[-1] + self.shift_ + 1e-12 * scale
        self.objective_history_ = []

    def _fit_task(self, K, labels, upper):
        Q = K * np.outer(labels, labels)
        tau = self.shift_

        def objective(alpha):
            return float(alpha.sum() - 0.5 * alpha @ Q @ alpha)

        alpha = np.zeros(labels.size)
        history = [objective(alpha)]
        for _ in range(self.max_iter):
            alpha = self._convex_step(Q, labels, upper, linear=1.0 + tau * alpha, start=alpha)
            history.append(objective(alpha))
            if self.verbose:
                print(f"[DCASVC] iteration {len(history) - 1:4d}  dual objective {history[-1]:.10g}")
            if history[-1] - history[-2] <= self.tol * max(1.0, abs(history[-1])):
                break
        self.objective_history_.append(np.array(history))
        self.n_iter_ = max(getattr(self, "n_iter_", 0), len(history) - 1)
        gradient = 1.0 - Q @ alpha
        return labels * alpha, kkt_intercept(gradient, alpha, labels, upper)

    def _convex_step(self, Q, labels, upper, linear, start, max_inner=2000):
        """``argmax linearᵀα − ½αᵀ(Q + τI)α`` on the SVM feasible set, by accelerated projection
        (rule ``"accelerated"`` of :func:`krein.optimize.projected_gradient`, step ``1/L``), until no
        coordinate moves by more than ``1e-10 · max(1, max C)``."""
        tau, threshold = self.shift_, 1e-10 * max(1.0, np.max(upper))
        previous = [start]

        def descent_oracle(alpha):  # the value is not used by the accelerated rule
            return None, tau * alpha - (linear - Q @ alpha)

        def small_move(iteration, alpha, state, step):
            moved = np.max(np.abs(alpha - previous[0]))
            previous[0] = alpha
            return moved <= threshold

        return projected_gradient(
            descent_oracle, start, lambda alpha: project_box_hyperplane(alpha, labels, upper),
            learning_rate=1.0 / self._lipschitz, rule="accelerated", max_iter=max_inner, callback=small_move,
        ).x  # fmt: skip

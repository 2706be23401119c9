"""SF-LSM: similarities as features with a linear ridge model (Oglic & Gärtner 2019, Sec. 3 baseline)."""

from __future__ import annotations

from numbers import Real
from typing import Any, Self

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted, validate_data

from .._base import KernelEstimatorMixin, check_kernel_memory, decision_to_labels, one_vs_rest_targets
from .._parameters import store_parameters
from .._threads import blas_for_data
from .._typing import RandomStateLike
from .._validation import check_precomputed_test_kernel, check_square_kernel
from ..kernels import Kernel, make_kernel
from ..representation import SPECTRAL_PARAMETERS, clamp_n_components, uniform_landmarks
from ._model import _Regressor

__all__ = ["SimilarityFeaturesClassifier", "SimilarityFeaturesRidge"]


class _SimilarityFeaturesModel(KernelEstimatorMixin, BaseEstimator):
    _parameter_constraints = {
        **{name: SPECTRAL_PARAMETERS[name] for name in ("kernel", "n_components", "random_state")},
        "alpha": [Interval(Real, 0, None, closed="neither")],
    }
    #: ``validate_data`` arguments for ``y``.
    _validate_y: dict[str, Any] = {}

    def __init__(
        self,
        kernel: Kernel | str = "gaussian",
        *,
        alpha: float = 1e-3,
        n_components: int | None = None,
        random_state: RandomStateLike = None,
    ) -> None:
        store_parameters(self, locals())

    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Fit ``w`` (one ridge problem per target or one-vs-rest task) on the similarity features of ``X``
        (or the n×n kernel)."""
        with blas_for_data(X):  # one BLAS thread for a small problem (krein._threads)
            self._validate_params()
            data, y = validate_data(self, X, y, reset=True, dtype=np.float64, **self._validate_y)
            Y = self._targets(y)
            self.kernel_ = make_kernel(self.kernel)
            n = data.shape[0]
            m = n if self.n_components is None else clamp_n_components(self.n_components, n, stacklevel=3)
            self.prototype_indices_ = np.arange(n) if m == n else uniform_landmarks(n, m, self.random_state)
            if self.kernel_ == "precomputed":
                F = check_square_kernel(data, "X")[:, self.prototype_indices_]
            else:
                check_kernel_memory(n, self, copies=2, n_columns=self.prototype_indices_.size)
                self.X_fit_ = data[self.prototype_indices_]
                F = self.kernel_.fit(self.X_fit_)(data, self.X_fit_)  # fitted to the prototypes
            feature_means, target_means = F.mean(axis=0), Y.mean(axis=0)
            F = F - feature_means
            system = F.T @ F
            if not np.all(np.isfinite(system)):
                raise ValueError(
                    f"X gives kernel values too large for the normal equations (max |K| = "
                    f"{np.max(np.abs(F)):.3g}): FᵀF overflows. Rescale the kernel."
                )
            system[np.diag_indices_from(system)] += n * self.alpha
            try:
                self.coef_ = scipy.linalg.solve(
                    system, F.T @ (Y - target_means), assume_a="pos", check_finite=False
                )
            except np.linalg.LinAlgError as error:
                raise ValueError(
                    f"The normal equations of the similarity features are numerically singular ({error}): "
                    f"alpha={self.alpha!r} is negligible against the kernel values of X (max |K| = "
                    f"{np.max(np.abs(F)):.3g}). Rescale the kernel or increase alpha."
                ) from error
            self.intercept_ = target_means - feature_means @ self.coef_
            return self

    def _evaluate(self, X):
        """``K(X, P) w + b``."""
        check_is_fitted(self)
        if self.kernel_ == "precomputed":
            rows = check_precomputed_test_kernel(X, self)[:, self.prototype_indices_]
        else:
            rows = self._test_kernel(X)
        return rows @ self.coef_ + self.intercept_


class SimilarityFeaturesRidge(_Regressor, _SimilarityFeaturesModel):
    """Ridge regression on similarity features (SF-LSM; Graepel et al. 1998, Chen et al. 2009).

    A point is represented by its similarities ``K(x, P)`` to a set of prototypes ``P`` (all training
    points, or ``n_components`` uniformly drawn landmarks for the low-rank variant) and a linear ridge
    model is fitted in that space (also Alabdulmohsin et al. 2015),

        min_{w, b} (1/n) Σᵢ (K(xᵢ, P) w + b − yᵢ)² + α ‖w‖²,

    from the normal equations ``(Fᵀ F + n α I) w = Fᵀ y`` on centred features ``F`` and targets. The
    kernel may be indefinite: it is used only as a feature map.

    Parameters
    ----------
    kernel : Kernel, str or "precomputed", default="gaussian"
        With "precomputed", ``fit`` takes the n×n training kernel and ``predict`` the t×n
        test-versus-train kernel.
    alpha : float, default=1e-3
        Ridge penalty α of the risk above.
    n_components : int, default=None
        Number of uniformly drawn prototypes (all training points when None; more than the training
        points warns and uses them all).
    random_state : int, RandomState or None, default=None

    Attributes
    ----------
    prototype_indices_ : ndarray of shape (m,)
    coef_ : ndarray of shape (m,) or (m, n_targets)
    intercept_ : float or ndarray of shape (n_targets,)

    See Also
    --------
    SimilarityFeaturesClassifier : The same model for classification.
    KreinRidge : Learning in the Kreĭn space of the kernel instead of on its rows.

    Examples
    --------
    >>> from krein.least_squares import SimilarityFeaturesRidge
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 3))
    >>> y = np.sin(X[:, 0]) + 0.5 * X[:, 1]
    >>> model = SimilarityFeaturesRidge(kernel="sigmoid").fit(X[:60], y[:60])
    >>> print(round(model.score(X[60:], y[60:]), 2))  # R² on the held-out points
    0.88
    """

    def _targets(self, y):
        return y


class SimilarityFeaturesClassifier(ClassifierMixin, _SimilarityFeaturesModel):
    """One-vs-rest ±1 least-squares classifier on similarity features (SF-LSM).

    The "similarities as features" baseline of Oglic & Gärtner (2019, Sec. 3): each one-vs-rest task
    regresses ±1 targets on the rows ``K(x, P)`` as :class:`SimilarityFeaturesRidge` (with its
    parameters and attributes, plus ``classes_``), and the class with the largest score wins (the sign
    for two classes).

    See Also
    --------
    SimilarityFeaturesRidge : The same model for regression.
    KreinRidgeClassifier : Kreĭn least squares classification.

    Examples
    --------
    >>> from krein.least_squares import SimilarityFeaturesClassifier
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 3))
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> model = SimilarityFeaturesClassifier(kernel="sigmoid").fit(X[:60], y[:60])
    >>> print(round(model.score(X[60:], y[60:]), 2))  # accuracy on the held-out points
    0.75
    """

    def _targets(self, y):
        self.classes_, Y = one_vs_rest_targets(y)
        return Y

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """Scores, one column per task (a vector for binary problems)."""
        scores = self._evaluate(X)
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X: ArrayLike) -> NDArray:
        """Class labels."""
        return decision_to_labels(self.decision_function(X), self.classes_)

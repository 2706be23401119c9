"""The Kreĭn least squares model: representation → :class:`SpectralProblem` → coefficients → predictions.

One fit path (:meth:`_KreinLeastSquares._fit_problem`) serves ``fit``, ``fit_path`` and the
hypergradient protocol (:mod:`krein.least_squares._hypergradient`) of the four public estimators; the
solver of the estimator (ridge, or the variance constraint) gives the eigen-coordinates (†) of
:mod:`krein.least_squares._spectral`.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from numbers import Real
from typing import Any, Literal, Self

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils._param_validation import Interval, StrOptions

from .._base import fit_path_clones
from .._parameters import store_parameters
from .._penalties import PENALTY_CONSTRAINT, kernel_scale, penalty
from .._threads import blas_for_data
from .._typing import FloatOrAuto, LandmarkMethod, LandmarkRank, RandomStateLike
from ..kernels import Kernel
from ..representation import SPECTRAL_PARAMETERS, SpectralEstimatorMixin
from ..spectral import indefiniteness
from ._hypergradient import HypergradientMixin
from ._spectral import AUTO_LAMBDA_TIMES_N, SpectralProblem, target_unit
from ._targets import LABEL_ENCODINGS, encode_labels, encode_values

__all__ = []


class _KreinLeastSquares(HypergradientMixin, SpectralEstimatorMixin, BaseEstimator):
    """Kreĭn ridge regression, the unconstrained solution (μ = −1) of (†), and the shared fit path."""

    _parameter_constraints = {
        **SPECTRAL_PARAMETERS,
        "lambda_plus": PENALTY_CONSTRAINT,
        "lambda_minus": PENALTY_CONSTRAINT,
        "nystroem_split": [StrOptions({"approximation", "landmarks"})],
    }

    #: Whether the model carries the variance constraint (a radius r).
    _constrained = False
    #: ``encode(y) -> (Y, TargetEncoding)``: :func:`encode_values`, or the classifiers' :func:`encode_labels`.
    _encode = staticmethod(encode_values)
    #: ``validate_data`` arguments for ``y``.
    _validate_y: dict[str, Any] = {}

    def __init__(
        self,
        kernel: Kernel | str = "gaussian",
        *,
        lambda_plus: FloatOrAuto = "auto",
        lambda_minus: FloatOrAuto = "auto",
        center: bool = True,
        n_components: int | None = None,
        landmarks: LandmarkMethod = "uniform",
        landmark_rank: LandmarkRank = "full",
        nystroem_split: Literal["approximation", "landmarks"] = "approximation",
        random_state: RandomStateLike = None,
        working_memory: float | None = None,
    ) -> None:
        store_parameters(self, locals())

    def _fit_problem(self, X, y):
        """Validate, encode and centre the targets, fit the representation; a :class:`SpectralProblem`.

        Sets ``_encoding`` (and ``classes_`` for classifiers); one lazy pass over dask targets.
        """
        self._validate_params()
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None.")
        data, y = self._training_data(X, y, **self._validate_y)
        Y, self._encoding = self._encode(y)  # lazy for dask labels: one pass computes the means
        mean = np.asarray(Y.mean(axis=0)) if self.center else np.zeros(Y.shape[1])
        unit = target_unit(Y - mean)
        Y = (Y - mean) / unit  # centred and scaled in the streamed pass of the Nyström producer
        representation = self._fit_representation(data, targets=Y)
        if self._encoding.classes is not None:
            self.classes_ = self._encoding.classes
        self.eigenvalues_ = np.sort(representation.values)  # ascending (a Nyström fit's come by magnitude)
        self.indefiniteness_ = indefiniteness(representation.values)
        split = "approximation" if self.n_components is None else self.nystroem_split
        return SpectralProblem(representation, Y, mean / unit, split, unit)

    def _penalties(self, problem):
        """λ₊, λ₋ of the fit: the numbers given, or ``"auto"``: :data:`AUTO_LAMBDA_TIMES_N` · s / n."""
        n = problem.n_samples
        scale = kernel_scale(problem.representation.values, n)
        default = AUTO_LAMBDA_TIMES_N / n
        return tuple(penalty(value, default, scale) for value in (self.lambda_plus, self.lambda_minus))

    def _solve(self, problem, warn=True):
        return problem.solve(*self._penalties(problem))

    def _set_solution(self, problem):
        alpha, intercept = problem.dual_coef(self._solve(problem))
        alpha, intercept = alpha * problem.target_unit, intercept * problem.target_unit
        single = self._encoding.single_output
        self.dual_coef_ = alpha[:, 0] if single else alpha.T
        self.intercept_ = float(intercept[0]) if single else intercept

    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Fit the model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
            Training inputs, or the training kernel matrix if ``kernel="precomputed"``; a dask array
            with ``n_components`` (streamed fit).
        y : array-like of shape (n_samples,) (or (n_samples, n_targets) for regressors)

        Returns
        -------
        self
        """
        with blas_for_data(X):  # one BLAS thread for a small problem (krein._threads)
            self._set_solution(self._fit_problem(X, y))
            return self

    def fit_path(self, X: ArrayLike, y: ArrayLike, params: Iterable[Mapping[str, Any]]) -> list[Self]:
        """Fit one model per parameter setting, sharing one eigendecomposition of the kernel.

        Parameters
        ----------
        X, y : as in :meth:`fit`
        params : iterable of dict
            Settings of ``lambda_plus``, ``lambda_minus``, ``radius`` and/or ``regularization``
            (parameters that leave the kernel matrix unchanged), e.g. a
            :class:`sklearn.model_selection.ParameterGrid`.

        Returns
        -------
        list of fitted estimators
            Clones of this estimator with the settings applied, in the order of ``params``; they
            share ``representation_`` (read-only). This estimator itself is left as it was (fitted
            or not).
        """
        with blas_for_data(X):  # one BLAS thread for a small problem (krein._threads)
            return fit_path_clones(
                self,
                params,
                {"lambda_plus", "lambda_minus", "radius", "regularization"},
                lambda base: base._fit_problem(X, y),
                lambda model, problem, _: model._set_solution(problem),
            )


class _VarianceConstrained(_KreinLeastSquares):
    """The variance-constrained problem (3)/(4) of Oglic & Gärtner (2018), μ* by the secular equation."""

    _constrained = True
    _parameter_constraints = {
        **_KreinLeastSquares._parameter_constraints,
        "radius": [Interval(Real, 0, None, closed="neither"), None],
        "regularization": [StrOptions({"decomposition", "krein"})],
    }

    def __init__(
        self,
        kernel: Kernel | str = "gaussian",
        *,
        lambda_plus: FloatOrAuto = "auto",
        lambda_minus: FloatOrAuto = "auto",
        radius: float | None = None,
        regularization: Literal["decomposition", "krein"] = "decomposition",
        center: bool = True,
        n_components: int | None = None,
        landmarks: LandmarkMethod = "uniform",
        landmark_rank: LandmarkRank = "full",
        nystroem_split: Literal["approximation", "landmarks"] = "approximation",
        random_state: RandomStateLike = None,
        working_memory: float | None = None,
    ) -> None:
        store_parameters(self, locals())

    def _solve(self, problem, warn=True):
        """Sets ``multiplier_``, ``hard_case_``, ``radius_``; warns in the hard case (Sec. 3.1)."""
        Y = problem.targets  # radius None: match the spread of the (centred) targets
        radius = (
            np.asarray(np.sqrt((Y**2).mean(axis=0)))
            if self.radius is None
            else self.radius / problem.target_unit
        )
        solution = problem.solve(*self._penalties(problem), self.regularization, radius)
        hard = solution.hard_case
        if warn and np.any(hard):
            warnings.warn(
                f"{type(self).__name__}: the Lagrange multiplier μ* = {solution.multiplier[hard]} reached "
                f"the end of its interval (distance {solution.shift[hard]}); the problem is ill-posed there "
                "(hard case: the targets are orthogonal to the eigenvector bounding the interval) and the "
                "solution is not unique. Consider another radius or regularization.",
                UserWarning,
                stacklevel=4,
            )
        single = self._encoding.single_output
        self.multiplier_ = float(solution.multiplier[0]) if single else solution.multiplier
        self.hard_case_ = bool(hard[0]) if single else hard
        radius = solution.radius * problem.target_unit
        self.radius_ = float(radius[0]) if single else radius
        return solution


class _Regressor(RegressorMixin):
    """Real targets (one column per output); ``predict`` is the model's value."""

    _validate_y = {"y_numeric": True, "multi_output": True}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    def predict(self, X: ArrayLike) -> NDArray[np.float64]:
        """Predicted values ``f(x) = K(x, P) α + b`` (``P`` the training points, landmarks or prototypes):
        shape (n_test,) or (n_test, n_targets); lazy for a dask ``X`` (Kreĭn models)."""
        return self._evaluate(X)


class _Classifier(ClassifierMixin):
    """Real labels (``label_encoding``: ±1, or the class-balanced ones of Appendix C of Oglic & Gärtner
    2018), sign of the prediction."""

    #: The parameter constraint of ``label_encoding``.
    _label_encoding_constraint = {"label_encoding": [StrOptions(set(LABEL_ENCODINGS))]}

    def _encode(self, y):
        return encode_labels(y, self.label_encoding)

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """Real-valued predictions ``f(x) = K(x, P) α + b`` on the labels' scale: shape (n_test,),
        or (n_test, n_classes) one-vs-rest; lazy for a dask ``X``."""
        return self._evaluate(X)

    def predict(self, X: ArrayLike) -> NDArray:
        """Class labels: the sign of the decision (binary), the largest decision (one-vs-rest); lazy for
        a dask ``X``."""
        return self._labels(self.decision_function(X))

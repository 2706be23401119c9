"""Kreĭn least squares estimators: Kreĭn ridge regression and variance-constrained least squares."""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .._base import KernelEstimatorMixin, decision_to_labels, is_precomputed, one_vs_rest_targets
from .._validation import check_precomputed_test_kernel, check_square_kernel
from ..kernels import (
    ARDGaussian,
    ARDSigmoid,
    DeltaGaussian,
    Epanechnikov,
    Gaussian,
    Kernel,
    Sigmoid,
    block_rows,
    initial_kernel,
    make_kernel,
)
from ..nystroem import check_finite_chunk, clamp_n_components, nystroem_representation
from ..nystroem import is_dask_array as _is_dask
from ..spectral import SpectralRepresentation, indefiniteness
from ._spectral import SpectralProblem, center_kernel

__all__ = [
    "KreinRidge",
    "KreinRidgeClassifier",
    "VarianceConstrainedKrein",
    "VarianceConstrainedKreinClassifier",
]

#: Box constraints (natural scale) of λ± and r in hyperparameter search.
LAMBDA_BOUNDS = (1e-10, 1e4)
RADIUS_BOUNDS = (1e-6, 1e4)

#: Appendix D kernel classes and their Appendix E.1 initialisation names.
_APPENDIX_D_NAMES = {
    Gaussian: "GAUSS",
    ARDGaussian: "RL-GAUSS",
    Sigmoid: "SIGMOID",
    ARDSigmoid: "RL-SIGMOID",
    DeltaGaussian: "DELTA-GAUSS",
    Epanechnikov: "EPANECHNIKOV",
}


def _initial_kernel_like(kernel, X, rng):
    """``kernel`` with its tunable hyperparameters drawn by Appendix E.1 (:func:`initial_kernel`).

    Only the draw replaces the user's kernel: hyperparameters with ``*_bounds="fixed"`` keep their
    value, the others keep their bounds and start clipped into them, and a scalar bandwidth of an
    "RL" kernel (one shared η) stays a scalar (the geometric mean of the per-feature draw).
    """
    drawn = initial_kernel(_APPENDIX_D_NAMES[type(kernel)], X, rng)
    params = {}
    for h in kernel.hyperparameters:
        if h.fixed:
            continue
        value = np.asarray(getattr(drawn, h.name), dtype=float)
        if np.ndim(getattr(kernel, h.name)) == 0:
            value = np.exp(np.mean(np.log(value)))
        value = np.clip(value, h.bounds[:, 0], h.bounds[:, 1])
        params[h.name] = float(value[0]) if np.ndim(getattr(kernel, h.name)) == 0 else value
    return kernel.clone_with_theta(kernel.theta).set_params(**params)


#: Parameters that :meth:`fit_path` may vary (they do not change the kernel matrix).
_PATH_PARAMETERS = {"lambda_plus", "lambda_minus", "radius", "regularization"}


def _decision_in_blocks(X, kernel, points, dual_coef, intercept, working_memory, check_finite=False):
    """``K(X, points) @ dual_coef + intercept`` in row blocks of ``working_memory`` MiB (Sec. 2.4).

    With ``kernel="precomputed"``, ``X`` holds test-versus-train kernel rows and ``points`` the landmark
    column indices. Only a block of kernel rows is held at a time, never the t×m matrix.
    """
    X = np.asarray(X, dtype=np.float64)
    if check_finite:
        check_finite_chunk(X, "X")
    decision = np.empty((X.shape[0],) + dual_coef.shape[1:])
    step = block_rows(len(points), working_memory, copies=2)
    for start in range(0, X.shape[0], step):
        rows = slice(start, start + step)
        block = X[rows][:, points] if isinstance(kernel, str) else kernel(X[rows], points)
        decision[rows] = block @ dual_coef + intercept
    return decision


def _check_dask_data(X, n_columns, what):
    """Lazy validation of a dask array: 2-D, numeric, known row chunks (values are checked per chunk)."""
    if X.ndim != 2:
        raise ValueError(f"Expected a 2D dask array for X, got {X.ndim} dimensions.")
    if X.dtype.kind not in "biuf":
        raise ValueError(f"X must be a numeric dask array, got dtype {X.dtype}.")
    if np.isnan(X.shape[0]):
        raise ValueError("X has unknown row chunk sizes; call X.compute_chunk_sizes() first.")
    if X.shape[0] < 1:
        raise ValueError(f"Found array with 0 sample(s) (shape={X.shape}) while a minimum of 1 is required.")
    if n_columns is not None and X.shape[1] != n_columns:
        raise ValueError(
            f"X has {X.shape[1]} features, but {what} is expecting {n_columns} features as input."
        )
    return X.astype(np.float64).rechunk({1: -1})


def _root_mean_square(Y):
    """Column-wise ``sqrt(mean(Y²))`` of an in-memory or dask target matrix."""
    rms = np.sqrt((Y**2).mean(axis=0))
    return rms.compute() if _is_dask(rms) else rms


class _KreinLeastSquares(KernelEstimatorMixin):
    """Shared machinery: kernel → spectral representation → coefficients → predictions."""

    _parameter_constraints = {
        "kernel": [Kernel, str],
        "lambda_plus": [Interval(Real, 0, None, closed="neither")],
        "lambda_minus": [Interval(Real, 0, None, closed="neither")],
        "center": ["boolean"],
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "landmarks": [str],
        "nystroem_split": [StrOptions({"approximation", "landmarks"})],
        "landmark_rank": [StrOptions({"validated", "full"})],
        "random_state": ["random_state"],
        "working_memory": [Interval(Real, 0, None, closed="neither"), None],
    }

    #: Whether the model carries the variance constraint (a radius r).
    _constrained = False

    # ------------------------------------------------------------------ targets
    def _encode_targets(self, y):
        """Real targets of shape (n, t) for the training labels/values ``y``; sets target attributes."""
        raise NotImplementedError

    def _encode_validation_targets(self, y):
        """Targets for validation data, encoded as the last :meth:`_encode_targets` call did."""
        raise NotImplementedError

    # ------------------------------------------------------------------ fitting
    def _validate_kwargs(self):
        return {}

    def _fit_problem(self, X, y):
        """Validate, build the spectral representation and return a :class:`SpectralProblem`."""
        self._validate_params()
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None.")
        if self.n_components is None:
            if _is_dask(X) or _is_dask(y):
                raise ValueError(
                    "Dask arrays are fitted by the streamed low-rank model only: set n_components."
                )
            K, y = self._fit_kernel(X, y, **self._validate_kwargs())
            Y = self._encode_targets(y)
            column_means = None
            if self.center:
                K, column_means = center_kernel(K)
            target_means = self._target_means(Y)
            representation = SpectralRepresentation.exact(K, name="the training kernel")
            self.landmark_indices_ = None
            Y = Y - target_means
        else:
            representation, Y, target_means = self._nystroem_representation(X, y)
            column_means = representation.column_means
        self.representation_ = representation
        self.eigenvalues_ = representation.values
        self.indefiniteness_ = indefiniteness(representation.values)
        split = "approximation" if self.n_components is None else self.nystroem_split
        return SpectralProblem(representation, Y, target_means, column_means, split)

    def _target_means(self, Y):
        """Means removed from the targets (zeros without centring); one lazy pass over dask targets."""
        if not self.center:
            return np.zeros(Y.shape[1])
        means = Y.mean(axis=0)
        return means.compute() if _is_dask(means) else means

    def _nystroem_representation(self, X, y):
        """Low-rank path (Oglic & Gärtner 2019, Sec. 2.2 and 2.4), streamed.

        The centred targets go to the Nyström producer, which accumulates their projections ``Ũᵀ y``
        and (``center=True``) the column means of the landmark columns in the same pass as the Gram
        matrix: the centred approximation ``H K̃ H`` is to the exact path's ``H K H`` what ``K̃`` is to
        ``K`` (with every point a landmark, the two fits are the same model).
        Returns the representation, the centred targets and their means.
        """
        self.kernel_ = make_kernel(self.kernel)
        if _is_dask(X):
            X, Y = self._validate_dask_fit(X, y)
        else:
            X, y = validate_data(self, X, y, reset=True, dtype=np.float64, **self._validate_kwargs())
            if is_precomputed(self.kernel):
                X = check_square_kernel(X, "X")
            Y = self._encode_targets(y)
        target_means = self._target_means(Y)
        Y = Y - target_means
        representation, self.landmark_indices_ = nystroem_representation(
            self.kernel_,
            X,
            n_components=clamp_n_components(self.n_components, X.shape[0], stacklevel=3),
            landmarks=self.landmarks,
            landmark_rank=self.landmark_rank,
            warn_poor=False,
            center=self.center,
            random_state=self.random_state,
            working_memory=self.working_memory,
            y=Y,
        )
        if not is_precomputed(self.kernel):
            self.X_fit_ = X
            points = X[self.landmark_indices_]
            self._landmark_points = points.compute() if _is_dask(points) else points
        return representation, Y, target_means

    def _validate_dask_fit(self, X, y):
        """Validate dask training data lazily (shapes and dtypes; values per chunk in the streamed pass)."""
        X = _check_dask_data(X, None, type(self).__name__)
        n = X.shape[0]
        if is_precomputed(self.kernel) and X.shape[1] != n:
            raise ValueError(f"X should be a square kernel matrix, got shape {X.shape}.")
        if not _is_dask(y):
            y = np.asarray(y)
        if y.shape[0] != n:
            raise ValueError(
                f"Found input variables with inconsistent numbers of samples: [{n}, {y.shape[0]}]."
            )
        if hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self.n_features_in_ = X.shape[1]
        return X, self._encode_targets(y)

    def _solve(self, problem):
        raise NotImplementedError

    def _set_solution(self, problem):
        solution = self._solve(problem)
        alpha, intercept = problem.dual_coef(solution)
        self.dual_coef_ = alpha[:, 0] if self._single_output else alpha.T
        self.intercept_ = float(intercept[0]) if self._single_output else intercept
        return solution

    def fit(self, X, y):
        """Fit the model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
            Training inputs, or the training kernel matrix if ``kernel="precomputed"``.
        y : array-like of shape (n_samples,) (or (n_samples, n_targets) for regressors)

        Returns
        -------
        self
        """
        self._set_solution(self._fit_problem(X, y))
        return self

    def fit_path(self, X, y, params):
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
        params = [dict(p) for p in params]
        for setting in params:
            unknown = set(setting) - _PATH_PARAMETERS
            if unknown:
                raise ValueError(
                    f"fit_path can only vary {sorted(_PATH_PARAMETERS)} (the kernel matrix must stay the "
                    f"same); got {sorted(unknown)}."
                )
        base = clone(self)  # fitted on a clone: a side call never changes a fitted estimator
        problem = base._fit_problem(X, y)
        parameters = base.get_params(deep=False)
        fitted_state = {k: v for k, v in vars(base).items() if k not in parameters}
        models = []
        for setting in params:
            model = clone(self).set_params(**setting)
            model._validate_params()
            model.__dict__.update(fitted_state)
            model._set_solution(problem)
            models.append(model)
        return models

    # ------------------------------------------------------------------ prediction
    def _decision_rows(self, X):
        """Kernel rows of test points against the points carrying the dual coefficients."""
        check_is_fitted(self, "dual_coef_")
        indices = self.landmark_indices_
        if indices is None:
            return self._test_kernel(X)
        if self.kernel_ == "precomputed":
            return self._test_kernel(X)[:, indices]
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return self.kernel_(X, self.X_fit_[indices])

    def _raw_decision(self, X):
        check_is_fitted(self, "dual_coef_")
        if self.landmark_indices_ is not None and (_is_dask(X) or self.working_memory is not None):
            return self._streamed_decision(X)
        return self._decision_rows(X) @ self.dual_coef_.T + self.intercept_

    def _streamed_decision(self, X):
        """Low-rank predictions in row blocks of ``working_memory`` MiB; lazy for dask ``X``.

        A dask ``X`` gives a dask array of decisions (one task per row chunk, values checked there).
        """
        precomputed = self.kernel_ == "precomputed"
        points = self.landmark_indices_ if precomputed else self._landmark_points
        args = (self.kernel_, points, self.dual_coef_.T, self.intercept_, self.working_memory)
        if not _is_dask(X):
            X = (
                check_precomputed_test_kernel(X, self)
                if precomputed
                else validate_data(self, X, reset=False, dtype=np.float64)
            )
            return _decision_in_blocks(X, *args)
        X = _check_dask_data(X, self.n_features_in_, type(self).__name__)
        if self.dual_coef_.ndim == 1:
            return X.map_blocks(_decision_in_blocks, *args, check_finite=True, drop_axis=1, dtype=np.float64)
        chunks = (X.chunks[0], (self.dual_coef_.shape[0],))
        return X.map_blocks(_decision_in_blocks, *args, check_finite=True, chunks=chunks, dtype=np.float64)

    # ------------------------------------------------------------------ hyperparameter search
    def _hyperparameter_vector(self):
        """Log-space vector ``(log λ₊, log λ₋, [log r], kernel θ)`` and its bounds.

        Part of the protocol of :class:`krein.model_selection.HypergradientSearchCV`.
        """
        theta = [np.log(self.lambda_plus), np.log(self.lambda_minus)]
        bounds = [np.log(LAMBDA_BOUNDS)] * 2
        if self._constrained:
            if self.radius is None:
                raise ValueError("Set radius before searching hyperparameters (see _initial_params).")
            theta.append(np.log(self.radius))
            bounds.append(np.log(RADIUS_BOUNDS))
        kernel = make_kernel(self.kernel)
        if kernel != "precomputed" and kernel.n_dims:
            theta = np.concatenate([theta, kernel.theta])
            bounds = np.vstack([bounds, kernel.bounds])
        return np.asarray(theta, dtype=float), np.asarray(bounds, dtype=float)

    def _params_from_vector(self, theta):
        """``set_params`` arguments for a vector laid out as :meth:`_hyperparameter_vector`."""
        theta = np.asarray(theta, dtype=float)
        params = {"lambda_plus": float(np.exp(theta[0])), "lambda_minus": float(np.exp(theta[1]))}
        start = 2
        if self._constrained:
            params["radius"] = float(np.exp(theta[2]))
            start = 3
        kernel = make_kernel(self.kernel)
        if kernel != "precomputed" and kernel.n_dims:
            params["kernel"] = kernel.clone_with_theta(theta[start:])
        return params

    def _initial_params(self, X, y, random_state=None):
        """Random initial hyperparameters of Appendix E.1 (Oglic & Gärtner 2018).

        λ± = S[u]/n with S = logspace(−1, 2, 5) (the paper's λ±² = S[u]/n in its parametrization of
        problem (4)); r from the spread of the squared targets; the Appendix D kernels through
        :func:`krein.kernels.initial_kernel`, other kernels keep their hyperparameters. The user's
        kernel settings are honoured (see :func:`_initial_kernel_like`): a fixed hyperparameter keeps
        its value, a bounded one starts inside its bounds (and the search keeps it there).
        """
        rng = check_random_state(random_state)
        Y = self._encode_targets(np.asarray(y))
        n = Y.shape[0]
        grid = np.logspace(-1, 2, 5)
        params = {
            "lambda_plus": float(grid[rng.randint(5)] / n),
            "lambda_minus": float(grid[rng.randint(5)] / n),
        }
        if self._constrained:
            centered = Y - Y.mean(axis=0) if self.center else Y
            squares = np.mean(centered**2, axis=1)
            variance = float(np.mean(squares))
            spread = float(np.sqrt(np.mean((squares - variance) ** 2)))
            low, high = max(1e-4, variance - 2.5 * spread), variance + 2.5 * spread
            params["radius"] = float(np.sqrt((high - low) * rng.uniform() + low))
        kernel = make_kernel(self.kernel)
        if kernel != "precomputed" and type(kernel) in _APPENDIX_D_NAMES:
            params["kernel"] = _initial_kernel_like(kernel, X, rng)
        return params

    def _validation_loss_and_gradient(self, X_train, y_train, X_val, y_val, cache=None):
        """Validation MSE of the model fitted on the training part and its gradient.

        The gradient is with respect to :meth:`_hyperparameter_vector` (Sec. 3.3 and Appendix E.2
        of Oglic & Gärtner 2018). For ``kernel="precomputed"``, ``X_train`` is the training block and
        ``X_val`` the validation-versus-training block of the kernel matrix. ``cache`` (a dict kept
        by the caller for this fold) holds the eigendecomposition when the kernel matrix does not
        depend on the tuned hyperparameters (precomputed kernels, kernels without hyperparameters),
        so that only the O(n²) solution and gradient are recomputed.
        """
        self._validate_params()
        if self.n_components is not None:
            raise NotImplementedError(
                "Hypergradients are implemented for the exact model (n_components=None)."
            )
        Y = self._encode_targets(np.asarray(y_train))
        Y_val = self._encode_validation_targets(np.asarray(y_val))
        kernel = make_kernel(self.kernel)
        fixed_kernel = kernel == "precomputed" or not kernel.n_dims
        if fixed_kernel and cache is not None and "problem" in cache:
            problem, K_val = cache["problem"], cache["K_val"]
        else:
            if kernel == "precomputed":
                K, K_val = check_square_kernel(X_train, "X_train"), np.asarray(X_val, dtype=float)
            elif fixed_kernel:
                K, K_val = kernel(X_train), kernel(X_val, X_train)
            else:
                K, contract = kernel.value_and_contraction(X_train)
                K_val, contract_val = kernel.value_and_contraction(X_val, X_train)
            column_means = None
            if self.center:
                K, column_means = center_kernel(K)
            representation = SpectralRepresentation.exact(K, name="the training kernel")
            means = Y.mean(axis=0) if self.center else np.zeros(Y.shape[1])
            problem = SpectralProblem(representation, Y - means, means, column_means)
            if fixed_kernel and cache is not None:
                cache.update(problem=problem, K_val=K_val)
        solution = self._solve(problem, warn=False)
        if fixed_kernel:
            return problem.validation_loss_and_gradient(solution, K_val, Y_val)

        def kernel_gradient(G, G_val):  # ∂K and ∂K_val enter only through inner products
            return contract(G) + contract_val(G_val)

        return problem.validation_loss_and_gradient(solution, K_val, Y_val, kernel_gradient)


class _RegressorTargets:
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    def _validate_kwargs(self):
        return {"y_numeric": True, "multi_output": True}

    def _encode_targets(self, y):
        y = y.astype(np.float64) if _is_dask(y) else np.asarray(y, dtype=float)
        if y.ndim not in (1, 2):
            raise ValueError(f"y must be 1-D or 2-D, got {y.ndim} dimensions.")
        self._single_output = y.ndim == 1
        return y[:, None] if y.ndim == 1 else y

    def _encode_validation_targets(self, y):
        y = np.asarray(y, dtype=float)
        return y.reshape(y.shape[0], -1)

    def predict(self, X):
        """Predicted values ``f(x) = Σᵢ αᵢ k(x, xᵢ) + b``.

        Parameters
        ----------
        X : array-like of shape (n_test, n_features) or (n_test, n_train) if precomputed

        Returns
        -------
        ndarray of shape (n_test,) or (n_test, n_targets)
        """
        return self._raw_decision(X)


class _ClassifierTargets:
    """Appendix C of Oglic & Gärtner (2018): class-balanced real labels, sign of the prediction."""

    def _encode_targets(self, y):
        if _is_dask(y):  # lazily: the classes and their counts in one pass over y
            import dask
            import dask.array as da

            if y.ndim != 1:
                raise ValueError(f"y should be a 1d array, got a dask array of shape {y.shape} instead.")
            classes, counts = dask.compute(*da.unique(y, return_counts=True))
            self.classes_, _ = one_vs_rest_targets(classes)
            tasks = slice(1, None) if classes.size == 2 else slice(None)
            positive = y[:, None] == classes[tasks][None, :]
            n_positive, where = counts[tasks], da.where
        else:
            self.classes_, Y = one_vs_rest_targets(y)
            positive = Y > 0
            n_positive, where = np.sum(positive, axis=0), np.where
        self._single_output = positive.shape[1] == 1
        n_negative = positive.shape[0] - n_positive
        self._label_values = (np.sqrt(n_negative / n_positive), -np.sqrt(n_positive / n_negative))
        return where(positive, *self._label_values)

    def _encode_validation_targets(self, y):
        positive = y[:, None] == (self.classes_[1:] if self._single_output else self.classes_)[None, :]
        return np.where(positive, *self._label_values)

    def decision_function(self, X):
        """Real-valued predictions on the balanced-label scale (one column per class if multiclass).

        Parameters
        ----------
        X : array-like of shape (n_test, n_features) or (n_test, n_train) if precomputed

        Returns
        -------
        ndarray of shape (n_test,) or (n_test, n_classes)
        """
        return self._raw_decision(X)

    def predict(self, X):
        """Class labels: the sign of the decision (binary), the largest decision (one-vs-rest).

        Lazy (a dask array) for dask ``X`` on the low-rank path, as :meth:`decision_function`.
        """
        scores = self.decision_function(X)
        if _is_dask(scores):
            return scores.map_blocks(
                decision_to_labels,
                self.classes_,
                dtype=self.classes_.dtype,
                **({} if scores.ndim == 1 else {"drop_axis": 1}),
            )
        return decision_to_labels(scores, self.classes_)


def _check_solution_boundary(estimator, solution):
    """Warn when μ* ends (numerically) at the end of its interval (Sec. 3.1: ill-posed problem)."""
    at_boundary = solution.hard_case
    if np.any(at_boundary):
        warnings.warn(
            f"{type(estimator).__name__}: the Lagrange multiplier μ* = {solution.multiplier[at_boundary]} "
            f"reached the end of its interval (distance {solution.shift[at_boundary]}); the problem is "
            "ill-posed there (hard case: the targets are orthogonal to the eigenvector bounding the "
            "interval) and the solution is not unique. Consider another radius or regularization.",
            UserWarning,
            stacklevel=3,
        )


class _RidgeMixin:
    def _solve(self, problem, warn=True):
        return problem.solve(self.lambda_plus, self.lambda_minus)


class _VarianceConstrainedMixin:
    _constrained = True

    def _solve(self, problem, warn=True):
        radius = self.radius
        if radius is None:  # match the spread of the (centred) targets
            radius = _root_mean_square(problem.targets)
        solution = problem.solve(self.lambda_plus, self.lambda_minus, self.regularization, radius)
        if warn:
            _check_solution_boundary(self, solution)
        single = self._single_output
        self.multiplier_ = float(solution.multiplier[0]) if single else solution.multiplier
        self.hard_case_ = bool(solution.hard_case[0]) if single else solution.hard_case
        self.radius_ = float(solution.radius[0]) if single else solution.radius
        return solution


_COMMON_PARAMETERS_DOC = """kernel : Kernel, str or "precomputed", default="gaussian"
        A :class:`krein.kernels.Kernel`, a kernel name (e.g. ``"gaussian"``, ``"sigmoid"``,
        ``"delta_gaussian"``) or ``"precomputed"`` (then ``X`` is the n×n training kernel at fit and the
        t×n test-versus-train kernel at predict time).
    lambda_plus, lambda_minus : float, default=1e-2
        λ₊, λ₋ > 0: weights of ‖f₊‖² and ‖f₋‖² in the risk ``(1/n) Σ (f(xᵢ) − yᵢ)² + λ₊‖f₊‖² + …``.
    center : bool, default=True
        Centre the kernel (``HKH``; test rows consistently, folded into ``dual_coef_`` and
        ``intercept_``) and the targets, as the paper assumes. With ``n_components`` the Nyström
        approximation is centred (``H K̃ H``, column means of ``K_XZ`` from the same streamed pass).
    n_components : int or None, default=None
        None: exact eigendecomposition. Otherwise the rank of a Nyström one-shot eigendecomposition
        (Oglic & Gärtner 2019, Sec. 2.2) computed by :mod:`krein.nystroem`; more than the training
        points warns and uses every point as a landmark.
    landmarks : str, default="uniform"
        Landmark sampler of the Nyström model (see :mod:`krein.nystroem`).
    landmark_rank : {"full", "validated"}, default="full"
        Only with ``n_components``: eigenpairs of the landmark block ``K_ZZ`` kept in the Nyström
        model — all (the paper's plain Eq. (3)), or the number of leading ones that minimizes the
        kernel approximation error estimated on held-out columns (the default of
        :class:`krein.nystroem.IndefiniteNystroem`). The model lives in the span of the m landmark
        functions and λ± control its small directions, so dropping eigenpairs of ``K_ZZ`` shrinks the
        hypothesis space: on ``examples/million_points_low_rank.py`` (n = 10⁵, m = 100) "full" has
        test RMSE 0.61 and "validated" 0.94 although K̃'s error is 1.8 against 0.11. The estimated
        relative error of K̃ is kept in ``representation_.approximation_error`` (no warning).
    nystroem_split : {"approximation", "landmarks"}, default="approximation"
        Only with ``n_components``: the Kreĭn decomposition ``H₊ ⊕ H₋`` of the low-rank model.
        ``"approximation"``: H± spanned by the eigenvectors of ``K̃`` with positive/negative eigenvalues
        (a diagonal penalty in the one-shot eigenbasis). ``"landmarks"``: the paper's Sec. 2.4, features
        ``Φ = K_XZ U_Z |D|^{-1/2} S`` split by the signs ``S`` of the eigenvalues of ``K_ZZ``, i.e.
        ``z* = (ΦᵀΦ + nΛ±)⁻¹ Φᵀy`` and ``f(x) = k_x U_Z |D|^{-1/2} S z*`` (O(m³) more per fit). The two
        agree for a positive definite kernel and for m = n, and differ on an indefinite kernel with
        m < n (see :mod:`krein.least_squares._spectral`): the decomposition of a Kreĭn space is not
        unique, and ``H₊`` of ``K_ZZ`` is not orthogonal to ``H₋`` over the training points.
    random_state : int, RandomState or None, default=None
        Seed of the landmark sampler.
    working_memory : float or None, default=None
        Only with ``n_components`` (Oglic & Gärtner 2019, Sec. 2.4). Fit always streams: it reduces the
        landmark kernel columns in row blocks of at most this many MiB (None: scikit-learn's
        ``working_memory`` setting, ``sklearn.set_config``), accumulating the Gram matrix, the column
        means and the projections of the centred targets in one pass, and never holds an n×m array
        (fit memory ``O(m²)`` beyond the data); with a value, predictions are computed in blocks of the
        same size. A dask array ``X`` (and ``y``)
        always streams: each row chunk is reduced by a task, on a ``dask.distributed`` cluster when a
        client is active; shapes and dtypes are checked lazily, NaN and infinity per chunk in the pass,
        and ``predict``/``decision_function`` return lazy dask arrays (call ``.compute()``). Ignored
        when ``n_components`` is None."""

_COMMON_ATTRIBUTES_DOC = """dual_coef_ : ndarray of shape (n_points,) or (n_tasks, n_points)
        α with ``f(x) = Σᵢ αᵢ k(x, pᵢ) + intercept_``; the points are the training points (exact) or
        the landmarks ``landmark_indices_`` (Nyström).
    intercept_ : float or ndarray of shape (n_targets,)
    representation_ : krein.spectral.SpectralRepresentation
        Spectral representation of the (centred) training kernel; reused by :meth:`fit_path`.
    eigenvalues_ : ndarray of shape (r,)
        Its retained signed eigenvalues.
    indefiniteness_ : float
        ι of the training kernel (Sec. 5 of the 2018 paper).
    landmark_indices_ : ndarray or None
    kernel_ : Kernel or "precomputed"
    X_fit_ : ndarray or dask array of shape (n_samples, n_features)
        Training inputs (kernel objects only; a reference, not a copy, to a dask ``X``).
    n_features_in_ : int"""


class KreinRidge(_RidgeMixin, _RegressorTargets, _KreinLeastSquares, RegressorMixin, BaseEstimator):
    __doc__ = f"""Kreĭn kernel ridge regression (Kreĭn LSM; Oglic & Gärtner 2019, Sec. 2.4).

    Minimizes ``(1/n) Σ (f(xᵢ) − yᵢ)² + λ₊‖f₊‖² + λ₋‖f₋‖²`` over a reproducing kernel Kreĭn space
    ``K = H₊ ⊕ H₋`` (``f = f₊ + f₋``). With ``K = U D Uᵀ``, ``S = sign(D)`` the solution is
    ``α = (H + nΛ±)⁻¹ P y`` with ``H = U|D|Uᵀ`` (the flip-spectrum matrix), ``P = U S Uᵀ`` and
    ``Λ± = λ₊S₊ + λ₋|S₋|``. For ``λ₊ = λ₋`` it equals kernel ridge regression on the flip-spectrum
    matrix with the out-of-sample map ``k_xᵀ P`` (Proposition 2 of that paper). One eigendecomposition
    serves every (λ₊, λ₋) (:meth:`fit_path`).

    Parameters
    ----------
    {_COMMON_PARAMETERS_DOC}

    Attributes
    ----------
    {_COMMON_ATTRIBUTES_DOC}
    """

    def __init__(
        self,
        kernel="gaussian",
        *,
        lambda_plus=1e-2,
        lambda_minus=1e-2,
        center=True,
        n_components=None,
        landmarks="uniform",
        landmark_rank="full",
        nystroem_split="approximation",
        random_state=None,
        working_memory=None,
    ):
        self.kernel = kernel
        self.lambda_plus = lambda_plus
        self.lambda_minus = lambda_minus
        self.center = center
        self.n_components = n_components
        self.landmarks = landmarks
        self.landmark_rank = landmark_rank
        self.nystroem_split = nystroem_split
        self.random_state = random_state
        self.working_memory = working_memory


class KreinRidgeClassifier(
    _RidgeMixin, _ClassifierTargets, _KreinLeastSquares, ClassifierMixin, BaseEstimator
):
    __doc__ = f"""Kreĭn kernel ridge classifier (Kreĭn LSM of Oglic & Gärtner 2019 on balanced labels).

    :class:`KreinRidge` fitted on the class-balanced labels ``y₊ = √(n₋/n₊)``, ``y₋ = −√(n₊/n₋)`` of
    Appendix C of Oglic & Gärtner (2018); the predicted class is the sign of the prediction. Multiclass
    problems are solved one-vs-rest (one balanced target per class, sharing the eigendecomposition)
    and predict the class of the largest decision value.

    Parameters
    ----------
    {_COMMON_PARAMETERS_DOC}

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    {_COMMON_ATTRIBUTES_DOC}
    """

    def __init__(
        self,
        kernel="gaussian",
        *,
        lambda_plus=1e-2,
        lambda_minus=1e-2,
        center=True,
        n_components=None,
        landmarks="uniform",
        landmark_rank="full",
        nystroem_split="approximation",
        random_state=None,
        working_memory=None,
    ):
        self.kernel = kernel
        self.lambda_plus = lambda_plus
        self.lambda_minus = lambda_minus
        self.center = center
        self.n_components = n_components
        self.landmarks = landmarks
        self.landmark_rank = landmark_rank
        self.nystroem_split = nystroem_split
        self.random_state = random_state
        self.working_memory = working_memory


_VC_PARAMETERS_DOC = """radius : float or None, default=None
        r > 0: the standard deviation of the training predictions, ``(1/n) Σ f(xᵢ)² = r²`` (centred).
        None: the standard deviation of the training targets.
    regularization : {"decomposition", "krein"}, default="decomposition"
        ``"decomposition"``: λ₊‖f₊‖² + λ₋‖f₋‖² (the KREĬN problem (3); λ₊ = λ₋ is FLIP, the strong
        topology). ``"krein"``: λ₊‖f₊‖² − λ₋‖f₋‖², i.e. λ⟨f, f⟩_K for λ₊ = λ₋ (OMCS-KREĬN, problem (1))."""

_VC_ATTRIBUTES_DOC = """multiplier_ : float or ndarray of shape (n_targets,)
        The optimal Lagrange multiplier μ* of the variance constraint (Proposition 3: the smallest).
    hard_case_ : bool or ndarray of shape (n_targets,)
        Whether μ* sits at the end of its interval (the targets are orthogonal to the eigenvector
        bounding it); a warning is issued then.
    radius_ : float or ndarray of shape (n_targets,)
        The radius r used."""


class VarianceConstrainedKrein(
    _VarianceConstrainedMixin, _RegressorTargets, _KreinLeastSquares, RegressorMixin, BaseEstimator
):
    __doc__ = f"""Variance-constrained Kreĭn least squares, globally optimal (Oglic & Gärtner 2018).

    The KREĬN problem (3): minimize ``(1/n) Σ (f(xᵢ) − yᵢ)² + λ₊‖f₊‖² + λ₋‖f₋‖²`` subject to
    ``(1/n) Σ (f(xᵢ) − f̄)² = r²``. By the representer theorem (Theorem 2) it becomes problem (4), a
    quadratic over a hyperellipsoid; its global minimum is the stationary point with the smallest
    multiplier μ* (Proposition 3), the smallest root of the secular equation (7) in the interval of
    Sec. 3.1, found to machine precision by the monotone root finder of Appendix B; the hard case
    (targets orthogonal to the eigenvector bounding the interval) is solved explicitly. Then
    ``α = (λ₊P₊ − λ₋P₋ − μ*K/n)⁻¹ y / n`` (Eq. (6) in this parametrization). With
    ``regularization="krein"`` it solves OMCS-KREĬN (problem (1)/(2)). Cost: one eigendecomposition;
    :meth:`fit_path` reuses it across (λ₊, λ₋, r).

    Parameters
    ----------
    {_COMMON_PARAMETERS_DOC}
    {_VC_PARAMETERS_DOC}

    Attributes
    ----------
    {_VC_ATTRIBUTES_DOC}
    {_COMMON_ATTRIBUTES_DOC}
    """

    _parameter_constraints = {
        **_KreinLeastSquares._parameter_constraints,
        "radius": [Interval(Real, 0, None, closed="neither"), None],
        "regularization": [StrOptions({"decomposition", "krein"})],
    }

    def __init__(
        self,
        kernel="gaussian",
        *,
        lambda_plus=1e-2,
        lambda_minus=1e-2,
        radius=None,
        regularization="decomposition",
        center=True,
        n_components=None,
        landmarks="uniform",
        landmark_rank="full",
        nystroem_split="approximation",
        random_state=None,
        working_memory=None,
    ):
        self.kernel = kernel
        self.lambda_plus = lambda_plus
        self.lambda_minus = lambda_minus
        self.radius = radius
        self.regularization = regularization
        self.center = center
        self.n_components = n_components
        self.landmarks = landmarks
        self.landmark_rank = landmark_rank
        self.nystroem_split = nystroem_split
        self.random_state = random_state
        self.working_memory = working_memory


class VarianceConstrainedKreinClassifier(
    _VarianceConstrainedMixin, _ClassifierTargets, _KreinLeastSquares, ClassifierMixin, BaseEstimator
):
    __doc__ = f"""Variance-constrained Kreĭn least squares classifier (Oglic & Gärtner 2018, Appendix C).

    :class:`VarianceConstrainedKrein` (problem (3)/(4), global optimum through the secular equation)
    fitted on the class-balanced labels ``y₊ = √(n₋/n₊)``, ``y₋ = −√(n₊/n₋)`` of Appendix C; the
    predicted class is the sign of the prediction, multiclass problems are solved one-vs-rest (each
    class its own multiplier μ*, one shared eigendecomposition).

    Parameters
    ----------
    {_COMMON_PARAMETERS_DOC}
    {_VC_PARAMETERS_DOC}

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    {_VC_ATTRIBUTES_DOC}
    {_COMMON_ATTRIBUTES_DOC}
    """

    _parameter_constraints = VarianceConstrainedKrein._parameter_constraints

    def __init__(
        self,
        kernel="gaussian",
        *,
        lambda_plus=1e-2,
        lambda_minus=1e-2,
        radius=None,
        regularization="decomposition",
        center=True,
        n_components=None,
        landmarks="uniform",
        landmark_rank="full",
        nystroem_split="approximation",
        random_state=None,
        working_memory=None,
    ):
        self.kernel = kernel
        self.lambda_plus = lambda_plus
        self.lambda_minus = lambda_minus
        self.radius = radius
        self.regularization = regularization
        self.center = center
        self.n_components = n_components
        self.landmarks = landmarks
        self.landmark_rank = landmark_rank
        self.nystroem_split = nystroem_split
        self.random_state = random_state
        self.working_memory = working_memory

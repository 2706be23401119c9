"""Gradient-based hyperparameter search over inner cross-validation folds.

:class:`HypergradientSearchCV` implements the tuning procedure of Oglic & Gärtner (2018), Sec. 3.3 and
Appendices C and E: the validation function is the mean squared error on each inner validation fold,
its gradient with respect to the hyperparameters (regularization λ₊, λ₋, radius r and the kernel
hyperparameters, all in log space) is computed analytically on every fold ("fold gradients") and
averaged, and the average is minimized with SciPy's L-BFGS-B: 10 random restarts (initialised by the
schemes of Appendix E.1) of at most 20 iterations each, then at most 200 more iterations from the
best one. ``n_restarts=0`` runs L-BFGS-B once from the estimator's own hyperparameters, as the
low-rank models of Oglic & Gärtner (2019) were tuned ("without random restarts", Table 2).

It works with any estimator that implements the small protocol below (the Kreĭn estimators of
:mod:`krein.least_squares` and :class:`~krein.svm.KreinSquaredHingeSVC` do):

``_hyperparameter_vector() -> (theta, bounds)``
    The tunable hyperparameters in log space and their (log) box constraints.
``_params_from_vector(theta) -> dict``
    ``set_params`` arguments that realise ``theta``.
``_initial_params(X, y, random_state) -> dict``
    A random initial setting (Appendix E.1).
``_validation_loss_and_gradient(X_train, y_train, X_val, y_val, cache) -> (loss, gradient)``
    Validation loss of the model trained on the training part, and its gradient with respect to
    ``theta``. For precomputed kernels ``X_train`` is the training block and ``X_val`` the
    validation-versus-training block of the kernel matrix. ``cache`` is a dict owned by the caller,
    one per fold, where the estimator may keep what does not depend on ``theta`` (e.g. the
    eigendecomposition of a fixed kernel matrix).
``_target_unit_hyperparameters() -> tuple of str``
    The hyperparameters measured in the units of the targets (e.g. the radius of the variance
    constraint, the spread of the training predictions; none for a classifier's).

**In units of the targets.** A regressor is searched on ``y/s``, ``s`` the standard deviation of the
training targets (:func:`krein._scaling.target_statistics`), with its target-unit hyperparameters
divided by ``s`` (their bounds, e.g. ``RADIUS_BOUNDS``, are then relative to ``s``) and multiplied
back in ``best_params_``. The least squares models on ``y/s`` are those on ``y`` divided by ``s``, so
the search is the same problem; but L-BFGS-B's tolerances are absolute, and on the mean squared error
of ``y`` itself it stopped at its start for targets of size 1e-3 (gradients below its ``pgtol``),
compared the failed-fit loss :data:`FAILED_LOSS` with squared errors of size 1e12 for targets of size
1e6, and overflowed near 1e160. On ``y/s`` targets ``c·y`` give the hyperparameters of ``y`` and
``c`` times its predictions.
"""

from __future__ import annotations

from collections.abc import Iterable
from numbers import Integral, Real
from typing import Self

import numpy as np
from joblib import Parallel, delayed
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import minimize
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone, is_classifier
from sklearn.model_selection import BaseCrossValidator, check_cv
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, Interval
from sklearn.utils._tags import get_tags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, validate_data

from .._base import check_kernel_memory
from .._parameters import store_parameters
from .._scaling import target_statistics
from .._threads import parallel_loop
from .._typing import RandomStateLike
from .._validation import check_square_kernel

__all__ = ["HypergradientSearchCV", "cross_validation_loss"]

#: Loss reported to L-BFGS-B where the model cannot be fitted (e.g. a degenerate kernel); the line
#: search then backs off. The search's losses are in units of the targets' variance (module notes).
FAILED_LOSS = 1e10

_PROTOCOL = (
    "_hyperparameter_vector",
    "_params_from_vector",
    "_initial_params",
    "_validation_loss_and_gradient",
    "_target_unit_hyperparameters",
)


def _fold_data(X, y, train, val, pairwise):
    """Training and validation parts of one fold, and an empty cache for the estimator."""
    if pairwise:
        return X[np.ix_(train, train)], y[train], X[np.ix_(val, train)], y[val], {}
    return X[train], y[train], X[val], y[val], {}


def _cross_validation_objective(theta, template, folds, catch=True):
    """Mean over folds of the validation loss, and the mean of the fold gradients (Appendix C).

    With ``catch``, a model that cannot be fitted at ``theta`` (degenerate kernel, hard case) gives
    :data:`FAILED_LOSS` instead of an error, so that the line search backs off.
    """
    model = clone(template).set_params(**template._params_from_vector(theta))
    loss, gradient = 0.0, np.zeros_like(theta)
    try:
        for X_train, y_train, X_val, y_val, cache in folds:
            fold_loss, fold_gradient = model._validation_loss_and_gradient(
                X_train, y_train, X_val, y_val, cache
            )
            loss += fold_loss
            gradient += fold_gradient
    except (ValueError, np.linalg.LinAlgError):
        if not catch:
            raise
        return FAILED_LOSS, np.zeros_like(theta)
    if not (np.isfinite(loss) and np.all(np.isfinite(gradient))):
        return FAILED_LOSS, np.zeros_like(theta)
    return loss / len(folds), gradient / len(folds)


def cross_validation_loss(
    estimator: BaseEstimator,
    X: ArrayLike,
    y: ArrayLike,
    cv: BaseCrossValidator,
    theta: ArrayLike | None = None,
) -> tuple[float, NDArray[np.float64]]:
    """The objective :class:`HypergradientSearchCV` minimizes, and its gradient, at one point.

    The mean over the folds of ``cv`` of the validation loss of ``estimator`` (Oglic & Gärtner
    2018, Appendix C), and the mean of the fold gradients with respect to the log-hyperparameter
    vector ``theta`` (in the order of ``estimator._hyperparameter_vector()``; None: the
    estimator's own hyperparameters). Errors are raised, not replaced by a failed-loss value.

    Parameters
    ----------
    estimator : estimator implementing the hypergradient protocol (e.g. ``KreinRidge``)
    X : array-like of shape (n_samples, n_features) or (n_samples, n_samples) if precomputed
    y : array-like of shape (n_samples,)
    cv : splitter with a ``split(X, y)`` method
    theta : array-like of shape (n_hyperparameters,) or None

    Returns
    -------
    loss : float
    gradient : ndarray of shape (n_hyperparameters,)
    """
    pairwise = get_tags(estimator).input_tags.pairwise
    folds = [_fold_data(X, y, train, val, pairwise) for train, val in cv.split(X, y)]
    if theta is None:
        theta = estimator._hyperparameter_vector()[0]
    theta = np.asarray(theta, dtype=float)
    loss, gradient = _cross_validation_objective(theta, estimator, folds, catch=False)
    return float(loss), gradient


class _RememberingObjective:
    """:func:`_cross_validation_objective` of one template on its folds, remembering its last point.

    L-BFGS-B first evaluates its starting point, where :func:`_run` has just computed the initial
    loss, and the final run starts where the best restart stopped, its last evaluation. Refitting
    every fold there (one eigendecomposition per fold) would only repeat a known result: the last
    ``(θ, loss, gradient)`` is kept (``last``, passed on to the final run) and returned for the same
    θ, bit for bit.
    """

    def __init__(self, template, folds, last=None):
        self.template, self.folds, self.last = template, folds, last

    def __call__(self, theta, catch=True):
        key = np.asarray(theta, dtype=float).tobytes()
        if self.last is None or self.last[0] != key:
            # an error (catch=False) leaves nothing behind
            self.last = (key, *_cross_validation_objective(theta, self.template, self.folds, catch))
        _, loss, gradient = self.last
        return loss, gradient.copy()


def _minimize(objective, theta, bounds, max_iter, tol=None):
    return minimize(
        objective,
        theta,
        jac=True,
        method="L-BFGS-B",
        bounds=bounds,
        tol=tol,
        options={"maxiter": max_iter},
    )


def _run(template, folds, max_iter, tol=None):
    """L-BFGS-B from ``template``'s hyperparameters: ``(template, loss there, result, last)``, with
    ``last`` the objective's last evaluation (:class:`_RememberingObjective`)."""
    theta, bounds = template._hyperparameter_vector()
    theta = np.clip(theta, bounds[:, 0], bounds[:, 1])
    objective = _RememberingObjective(template, folds)
    # Errors at the initial point are not caught: they are almost always bad input.
    initial_loss = objective(theta, catch=False)[0]
    return template, initial_loss, _minimize(objective, theta, bounds, max_iter, tol), objective.last


def _restart(estimator, X, y, folds, seed, max_iter, tol=None):
    template = clone(estimator).set_params(**estimator._initial_params(X, y, random_state=seed))
    return _run(template, folds, max_iter, tol)


def _in_units(estimator, params, factor):
    """The estimator's target-unit hyperparameters among ``params`` (those set), times ``factor``."""
    return {
        name: params[name] * factor
        for name in estimator._target_unit_hyperparameters()
        if params.get(name) is not None
    }


class HypergradientSearchCV(MetaEstimatorMixin, BaseEstimator):
    """Hyperparameter optimization with analytic gradients of the cross-validated loss.

    The procedure of Oglic & Gärtner (2018), Sec. 3.3 and Appendices C and E: inner k-fold
    cross-validation (stratified for classifiers), fold gradients of the validation mean squared error
    (Eq. (8) and Appendix E.2) averaged over the folds, L-BFGS-B over (λ₊, λ₋, r, kernel
    hyperparameters) in log space with ``n_restarts`` random restarts of at most ``restart_iter``
    iterations (initialised by Appendix E.1), then at most ``max_iter`` iterations from the best
    restart; finally the estimator is refitted on all data with the best hyperparameters.

    Parameters
    ----------
    estimator : estimator, default=None
        An estimator implementing the protocol of :mod:`krein.model_selection` (e.g. the Kreĭn
        estimators of :mod:`krein.least_squares`, or :class:`~krein.svm.KreinSquaredHingeSVC`);
        None means ``VarianceConstrainedKrein()``.
    cv : int or cross-validation splitter, default=5
        Inner folds; an int gives (stratified for classifiers) k-fold splits.
    n_restarts : int, default=10
        Random restarts (Appendix E.1). 0: no random restart, at most ``max_iter`` iterations from the
        estimator's own hyperparameters (set ``radius`` of a variance-constrained estimator), as
        Oglic & Gärtner (2019) tuned their low-rank models (Table 2).
    restart_iter : int, default=20
        L-BFGS-B iterations per restart.
    max_iter : int, default=200
        L-BFGS-B iterations continued from the best restart.
    tol : float or None, default=None
        Tolerance of L-BFGS-B (``scipy.optimize.minimize(tol=...)``; None: SciPy's defaults).
    n_jobs : int or None, default=None
        Restarts run in parallel with joblib.
    random_state : int, RandomState or None, default=None
        Seed of the random initialisations.
    verbose : int, default=0
        Print one line per restart and the final result.

    Attributes
    ----------
    n_features_in_ : int
    best_estimator_ : estimator
        Refitted on the whole training data with ``best_params_``.
    best_params_ : dict
    best_loss_ : float
        Cross-validated validation mean squared error at ``best_params_`` (for a regressor in the
        units of ``y²``: ``inf`` where that is beyond double precision, for targets near 1e160).
    restarts_ : list of dict
        ``initial_loss``, ``loss`` and ``n_iter`` of every restart (empty for ``n_restarts=0``).
    initial_loss_ : float
        Cross-validated loss where the final run starts (the best restart, or the estimator's own
        hyperparameters).
    n_iter_ : int
        L-BFGS-B iterations of the final run.

    See Also
    --------
    krein.least_squares.KreinRidge : An estimator it tunes.
    sklearn.model_selection.GridSearchCV : Exhaustive search over a grid.

    Examples
    --------
    >>> from krein.model_selection import HypergradientSearchCV
    >>> from krein.least_squares import KreinRidge
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 3))
    >>> y = np.sin(X[:, 0]) + 0.5 * X[:, 1]
    >>> search = HypergradientSearchCV(KreinRidge(), cv=3, n_restarts=1, random_state=0)
    >>> search = search.fit(X[:60], y[:60])
    >>> sorted(search.best_params_)  # the penalties and the tuned kernel
    ['kernel', 'lambda_minus', 'lambda_plus']
    >>> print(round(search.score(X[60:], y[60:]), 2))  # R² on the held-out points
    1.0
    """

    _parameter_constraints = {
        "estimator": [HasMethods(list(_PROTOCOL)), None],
        "cv": ["cv_object"],
        "n_restarts": [Interval(Integral, 0, None, closed="left")],
        "restart_iter": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="neither"), None],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        estimator: BaseEstimator | None = None,
        *,
        cv: int | BaseCrossValidator | Iterable = 5,
        n_restarts: int = 10,
        restart_iter: int = 20,
        max_iter: int = 200,
        tol: float | None = None,
        n_jobs: int | None = None,
        random_state: RandomStateLike = None,
        verbose: int = 0,
    ) -> None:
        store_parameters(self, locals())

    def _base_estimator(self):
        if self.estimator is None:
            from ..least_squares import VarianceConstrainedKrein

            return VarianceConstrainedKrein()
        return self.estimator

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = get_tags(self._base_estimator())
        tags.estimator_type = inner.estimator_type
        tags.input_tags.pairwise = inner.input_tags.pairwise
        tags.target_tags.multi_output = inner.target_tags.multi_output
        tags.classifier_tags = inner.classifier_tags
        tags.regressor_tags = inner.regressor_tags
        return tags

    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Search the hyperparameters on inner folds of ``(X, y)``, then refit on all of it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples) if precomputed
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        self._validate_params()
        estimator = clone(self._base_estimator())
        pairwise = get_tags(estimator).input_tags.pairwise
        X, y = validate_data(
            self,
            X,
            y,
            reset=True,
            dtype=np.float64,
            y_numeric=not is_classifier(estimator),
            multi_output=get_tags(estimator).target_tags.multi_output,
        )
        if pairwise:
            X = check_square_kernel(X, "X")  # before the folds slice it as a square matrix
        elif getattr(estimator, "n_components", None) is None:
            check_kernel_memory(np.shape(X)[0], estimator)  # the refit's n×n kernel, before any fold
        cv = check_cv(self.cv, y, classifier=is_classifier(estimator))
        scale, y_search = 1.0, y  # a regressor is searched on y/scale (module notes)
        if not is_classifier(estimator):
            scale = target_statistics(y)[1]
            y_search = y / scale
        estimator.set_params(**_in_units(estimator, estimator.get_params(), 1.0 / scale))
        folds = [_fold_data(X, y_search, train, val, pairwise) for train, val in cv.split(X, y)]
        seeds = check_random_state(self.random_state).randint(np.iinfo(np.int32).max, size=self.n_restarts)
        with parallel_loop(self.n_jobs):
            restarts = Parallel(n_jobs=self.n_jobs)(
                delayed(_restart)(estimator, X, y_search, folds, seed, self.restart_iter, self.tol)
                for seed in seeds
            )

        def in_units_of_y(loss):
            with np.errstate(over="ignore"):
                return float(loss) * scale * scale

        self.restarts_ = [
            {
                "initial_loss": in_units_of_y(initial),
                "loss": in_units_of_y(result.fun),
                "n_iter": int(result.nit),
            }
            for _, initial, result, _ in restarts
        ]
        if self.verbose:
            for i, record in enumerate(self.restarts_):
                print(
                    f"[HypergradientSearchCV] restart {i}: {record['initial_loss']:.6g} -> "
                    f"{record['loss']:.6g} in {record['n_iter']} iterations"
                )
        if restarts:
            template, _, best, last = min(restarts, key=lambda restart: restart[2].fun)
            theta, loss, self.n_iter_ = best.x, float(best.fun), 0
            if self.max_iter:
                _, bounds = template._hyperparameter_vector()
                objective = _RememberingObjective(template, folds, last)  # L-BFGS-B starts at its last θ
                final = _minimize(objective, best.x, bounds, self.max_iter, self.tol)
                if final.fun <= loss:
                    theta, loss, self.n_iter_ = final.x, float(final.fun), int(final.nit)
            initial_loss = best.fun
        else:
            template, initial_loss, final, _ = _run(estimator, folds, self.max_iter, self.tol)
            theta, loss, self.n_iter_ = final.x, float(final.fun), int(final.nit)
        self.initial_loss_ = in_units_of_y(initial_loss)
        params = template._params_from_vector(theta)
        self.best_params_ = {**params, **_in_units(template, params, scale)}
        self.best_loss_ = in_units_of_y(loss)
        if self.verbose:
            loss = self.best_loss_
            print(f"[HypergradientSearchCV] best cross-validated loss {loss:.6g} with {self.best_params_}")
        self.best_estimator_ = clone(template).set_params(**self.best_params_).fit(X, y)
        return self

    @staticmethod
    def _delegate(name):  # a helper called in the class body
        def check(self):
            return hasattr(self._base_estimator(), name)

        return check

    def _validated(self, X):
        """Test input checked against the training input (feature names included), as an array."""
        check_is_fitted(self)
        return validate_data(self, X, reset=False, dtype=np.float64)

    @property
    def classes_(self) -> NDArray:
        check_is_fitted(self)
        return self.best_estimator_.classes_

    @available_if(_delegate("predict"))
    def predict(self, X: ArrayLike) -> NDArray:
        """Predictions of ``best_estimator_``."""
        X = self._validated(X)
        return self.best_estimator_.predict(X)

    @available_if(_delegate("decision_function"))
    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """Decision values of ``best_estimator_``."""
        X = self._validated(X)
        return self.best_estimator_.decision_function(X)

    def score(self, X: ArrayLike, y: ArrayLike) -> float:
        """Score of ``best_estimator_`` (accuracy or R²)."""
        X = self._validated(X)
        return self.best_estimator_.score(X, y)

    del _delegate

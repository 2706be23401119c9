"""One cross-validated choice across the Kreĭn family: :class:`KreinClassifierCV`, :class:`KreinRegressorCV`.

A practitioner with a similarity or a distance does not know in advance whether clipping the spectrum,
flipping it, learning in the Kreĭn space, or plain nearest neighbours will work best on their data, nor
at what scale the kernel should see the distances. These meta-estimators answer by inner
cross-validation over the whole family and refit the winner on all the training data:

* the kernel: a precomputed similarity, a kernel object (with its hyperparameters scaled by
  ``scales``), or, for a precomputed distance, :class:`~krein.dissimilarity.GaussianOfDistance` at each
  relative ``γ`` of ``scales`` and :class:`~krein.dissimilarity.DoubleCentering` (``scale="median"``);
  every kernel is then centred and divided by its scale (the mean absolute diagonal of the centred
  training kernel, :class:`KernelNormalizer`), so that one grid of penalties serves every data set and
  the choice does not change when the kernel or the distance is multiplied by a constant;
* the methods (``methods``): spectrum treatments with an SVM (clip, flip, shift, square + ``SVC`` or
  ``SVR``; the same treatments with a ridge are the Kreĭn least squares at ``λ₋ → ∞`` and ``λ₋ = λ₊``),
  the Kreĭn least squares on a (λ₊, λ₋) grid (Oglic & Gärtner 2018, Eq. (2)), the variance-constrained
  model (ibid., problem (4)), the squared-hinge SVM (Oglic & Gärtner 2019, Sec. 2.5), IKLR (Liu et al.
  2019), the proxy-kernel SVM (Luss & d'Aspremont 2009), and, for a distance, k nearest neighbours on it.

The choice (:meth:`_KreinFamilyCV._select`): the best mean inner score, except that on a distance the
practitioners' k-NN is kept unless the winner's paired per-fold gain over it exceeds ``baseline_margin``
standard errors corrected for the overlap of the training folds (Nadeau & Bengio 2003); the default
inner folds (:func:`auto_cv`) repeat 5-fold cross-validation on small sets.

Every candidate that depends on the spectrum of a training fold's kernel gets that fold's one
eigendecomposition (:func:`krein.spectral.reuse_eigendecompositions`): a search over one kernel costs
``n_folds + 1`` eigendecompositions however many methods and penalties it compares
(``n_eigendecompositions_``).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Literal, Self

import numpy as np
from joblib import Parallel, delayed
from numpy.typing import ArrayLike, NDArray
from sklearn import config_context
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MetaEstimatorMixin,
    RegressorMixin,
    TransformerMixin,
    clone,
    is_classifier,
)
from sklearn.compose import TransformedTargetRegressor
from sklearn.exceptions import ConvergenceWarning, FitFailedWarning
from sklearn.metrics import get_scorer
from sklearn.model_selection import (
    BaseCrossValidator,
    ParameterGrid,
    RepeatedKFold,
    RepeatedStratifiedKFold,
    check_cv,
)
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor
from sklearn.pipeline import Pipeline
from sklearn.svm import SVC, SVR
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._base import check_kernel_memory
from .._parameters import store_parameters
from .._scaling import target_statistics
from .._typing import RandomStateLike
from .._validation import check_precomputed_test_kernel, check_square_kernel
from ..dissimilarity import DoubleCentering, GaussianOfDistance
from ..kernels import Kernel, make_kernel
from ..least_squares import (
    KreinRidge,
    KreinRidgeClassifier,
    VarianceConstrainedKrein,
    VarianceConstrainedKreinClassifier,
)
from ..logistic import IndefiniteLogisticRegression
from ..spectral import SpectrumTransformer, center_kernel, reuse_eigendecompositions
from ..svm import IndefiniteSVC, IndefiniteSVR, KreinSquaredHingeSVC

__all__ = [
    "KernelNormalizer",
    "KreinClassifierCV",
    "KreinRegressorCV",
    "SearchResults",
    "TargetScaler",
    "auto_cv",
]


class KernelNormalizer(TransformerMixin, BaseEstimator):
    """Centre a precomputed kernel and divide it by its scale, with consistent test rows.

    ``fit(K)`` on the n × n training kernel stores its column means ``k̄`` and grand mean ``k̿`` and the
    scale ``s`` = mean |diagonal| of the centred kernel ``HKH`` (its root mean square entry if the
    diagonal vanishes); ``transform(K_test)`` maps t × n test-versus-train rows to
    ``(k(x, xⱼ) − mean_l k(x, x_l) − k̄ⱼ + k̿) / s``, the rows of the centred, scaled joint kernel.
    The result does not change when ``K`` is multiplied by a constant, so penalties chosen on it are
    relative to the kernel's scale. With ``center=False`` it only divides by the scale (of ``K``).
    """

    def __init__(self, center=True):
        self.center = center

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = True
        return tags

    def fit(self, K, y=None):
        self.fit_transform(K)
        return self

    def fit_transform(self, K, y=None):
        K = check_square_kernel(K, "K")
        self.n_features_in_ = K.shape[0]
        if self.center:
            centred, self.column_means_ = center_kernel(K)
            centred = 0.5 * (centred + centred.T)
        else:
            centred, self.column_means_ = K, np.zeros(K.shape[0])
        self.grand_mean_ = float(self.column_means_.mean())
        scale = float(np.abs(np.diag(centred)).mean())
        if not scale > 0:
            scale = float(np.sqrt(np.mean(np.square(centred))))
        if not (scale > 0 and np.isfinite(scale)):
            raise ValueError("The training kernel is constant: after centring it is zero, nothing to learn.")
        self.scale_ = scale
        return centred / scale

    def transform(self, K):
        check_is_fitted(self, "scale_")
        K = check_precomputed_test_kernel(K, self)
        if self.center:
            K = K - K.mean(axis=1, keepdims=True) - self.column_means_[None, :] + self.grand_mean_
        return K / self.scale_


class TargetScaler(TransformerMixin, BaseEstimator):
    """Standardize real targets, ``(y − ȳ) / s``, without overflow for targets near the float limits.

    ``ȳ`` and ``s`` are the mean and standard deviation of the training targets
    (:func:`krein._scaling.target_statistics`: formed in units of a power of two, since targets of
    size 1e160 have squares beyond the float range; for constant targets ``s`` is their magnitude,
    and 1 for zeros). 1-D or (n, 1) arrays.
    """

    def fit(self, y, X=None):
        mean, scale = target_statistics(np.asarray(y, dtype=np.float64).ravel())
        self.mean_, self.scale_ = float(mean), float(scale)
        return self

    def transform(self, y):
        return (np.asarray(y, dtype=np.float64) - self.mean_) / self.scale_

    def inverse_transform(self, y):
        return np.asarray(y, dtype=np.float64) * self.scale_ + self.mean_


class _KernelRows(TransformerMixin, BaseEstimator):
    """Points to kernel rows against the training points: ``K(X, X_fit)`` (``K(X)`` at fit)."""

    def __init__(self, kernel=None):
        self.kernel = kernel

    def fit(self, X, y=None):
        self.fit_transform(X)
        return self

    def fit_transform(self, X, y=None):
        self.X_fit_ = np.asarray(X, dtype=np.float64)
        return self.kernel(self.X_fit_)

    def transform(self, X):
        check_is_fitted(self, "X_fit_")
        return self.kernel(np.asarray(X, dtype=np.float64), self.X_fit_)


@dataclass(frozen=True)
class _KernelChoice:
    """One candidate kernel: a label, and the transformer from the input to kernel rows."""

    label: str
    make: object  # () -> transformer or None (the input is the kernel)


@dataclass(frozen=True)
class _Family:
    """Candidates of one method: an estimator on a normalized precomputed kernel and its grid.

    ``path``: the estimator's ``fit_path`` fits the whole grid on one preparation. ``spectrum``: the
    estimator is an SVM on the spectrum treatment ``spectrum`` (transformed once per fold).
    ``on_distance``: the estimator learns from the distances themselves (nearest neighbours).
    """

    name: str
    make: object  # () -> estimator
    grid: dict | list  # a ParameterGrid
    path: bool = False
    spectrum: str | None = None
    on_distance: bool = False

    def settings(self):
        return list(ParameterGrid(self.grid)) if self.grid else [{}]


_C = [0.1, 1.0, 10.0, 100.0]
#: Grids run from the most to the least regularized setting: ties go to the earlier one.
_LAMBDAS = [1.0, 1e-1, 1e-2, 1e-3]
#: λ₋ so large that the negative part is switched off: the clip treatment's ridge.
_CLIP = 1e4
_NEIGHBORS = [15, 9, 7, 5, 3, 1]


def _families_of(classifier):
    """The candidate methods of :class:`KreinClassifierCV` (``classifier``) or :class:`KreinRegressorCV`,
    in the order of the tie-break: the Kreĭn-space methods, the spectrum treatments, k-NN."""
    least_squares, variance, proxy, svm, neighbors = (
        (KreinRidgeClassifier, VarianceConstrainedKreinClassifier, IndefiniteSVC, SVC, KNeighborsClassifier)
        if classifier
        else (KreinRidge, VarianceConstrainedKrein, IndefiniteSVR, SVR, KNeighborsRegressor)
    )
    families = [
        _Family(
            "Kreĭn LS",
            lambda: least_squares(kernel="precomputed", center=False),
            {"lambda_plus": _LAMBDAS, "lambda_minus": [_CLIP] + _LAMBDAS},
            path=True,
        ),
        _Family(
            "KREĬN (VC)",
            lambda: variance(kernel="precomputed", center=False),
            {"lambda_plus": [1e-1, 1e-3], "lambda_minus": [1e-1, 1e-3]},
            path=True,
        ),
    ]
    if classifier:
        families += [
            _Family(
                "SH-SVM",  # a Newton solve per task and setting (O(r³) a step): two settings, λ₊ = λ₋
                lambda: KreinSquaredHingeSVC(kernel="precomputed"),
                [{"lambda_plus": [lam], "lambda_minus": [lam]} for lam in (1e-2, 1e-4)],
                path=True,  # one representation, the second setting warm-started from the first
            ),
            _Family(
                "IKLR",  # the kernel is centred already: an intercept on it, not a second centring
                lambda: IndefiniteLogisticRegression(kernel="precomputed", center=False),
                {"alpha": [1e-2, 1e-4]},
            ),
        ]
    families.append(
        _Family(
            proxy.__name__,
            lambda: proxy(kernel="precomputed"),
            {"C": [1.0, 10.0, 100.0], "rho": ["auto"]},
            path=True,
        )
    )
    for method in ("clip", "flip", "shift", "square"):
        families.append(
            _Family(
                f"{method}+{svm.__name__}",
                lambda: svm(kernel="precomputed"),
                {"C": _C},
                spectrum=method,
            )
        )
    families.append(
        _Family(
            "k-NN",
            lambda: neighbors(metric="precomputed"),
            {"n_neighbors": _NEIGHBORS},
            on_distance=True,
        )
    )
    return families


#: Method names of each meta-estimator, in the order of the tie-break (earlier wins a tie).
CLASSIFIER_METHODS = tuple(f.name for f in _families_of(classifier=True))
REGRESSOR_METHODS = tuple(f.name for f in _families_of(classifier=False))
#: ``methods="auto"`` leaves out the proxy-kernel SVMs above this many training samples and, for
#: classification, above two classes (one proxy problem per one-vs-rest task: on japanesevowels, 9
#: classes, they took more than every other candidate together); ``methods="all"`` includes them.
PROXY_SVM_AUTO_MAX_SAMPLES = 2000


class SearchResults(dict):
    """``cv_results_``: a dict of columns (``pandas.DataFrame(cv_results_)`` reads it) that prints as a
    table of the best setting of each kernel × method, best first."""

    def best_per_method(self):
        rows = {}
        for i in np.argsort(self["rank_test_score"], kind="stable"):
            key = (self["kernel"][i], self["method"][i])
            rows.setdefault(key, i)
        return list(rows.values())

    def __str__(self):
        lines = [f"{'rank':>4}  {'score':>13}  {'kernel':<22} {'method':<14} params"]
        for i in self.best_per_method():
            score = f"{self['mean_test_score'][i]:.4f} ± {self['std_test_score'][i]:.3f}"
            params = ", ".join(
                f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in self["params"][i].items()
            )
            lines.append(
                f"{self['rank_test_score'][i]:>4}  {score:>13}  {self['kernel'][i]:<22.22} "
                f"{self['method'][i]:<14.14} {params}"
            )
        return "\n".join(lines)


def _fold_blocks(X, train, test, pairwise):
    if pairwise:
        return X[np.ix_(train, train)], X[np.ix_(test, train)]
    return X[train], X[test]


def _kernel_pipeline(choice):
    """The steps from the input to the normalized kernel rows of one kernel choice."""
    steps = [] if choice.make is None else [("kernel", choice.make())]
    return steps + [("normalize", KernelNormalizer())]


def _spectrum_steps(family):
    """A spectrum treatment and the rescaling of its result (square changes the scale to λ²)."""
    if family.spectrum is None:
        return []
    return [("spectrum", SpectrumTransformer(family.spectrum)), ("rescale", KernelNormalizer(center=False))]


def _fit_kernel(choice, X_train, X_test):
    steps = _kernel_pipeline(choice)
    K_train, K_test = X_train, X_test
    for _, step in steps:
        K_train, K_test = step.fit_transform(K_train), step.transform(K_test)
    return K_train, K_test


def _candidate_scores(family, K_train, y_train, K_test, y_test, scorer, regression, failures):
    """Scores of every setting of ``family`` trained on one fold (a list, grid order); NaN for every
    setting when the method cannot be fitted on the fold (the error goes to ``failures``)."""
    settings = family.settings()
    try:
        return _fit_and_score(family, settings, K_train, y_train, K_test, y_test, scorer, regression)
    except (ValueError, ArithmeticError, np.linalg.LinAlgError) as error:
        failures.append(f"{family.name}: {type(error).__name__}: {error}")
        return [np.nan] * len(settings)


def _fit_and_score(family, settings, K_train, y_train, K_test, y_test, scorer, regression):
    if regression:  # the models have no intercept on a centred kernel: standardize the targets
        scaler = TargetScaler().fit(y_train)
        y_train, y_test = scaler.transform(y_train), scaler.transform(y_test)
    for _, step in _spectrum_steps(family):
        K_train, K_test = step.fit_transform(K_train), step.transform(K_test)
    if family.path:
        models = family.make().fit_path(K_train, y_train, settings)
    else:
        models = [clone(family.make()).set_params(**s).fit(K_train, y_train) for s in settings]
    return [scorer(model, K_test, y_test) for model in models]


def _evaluate_fold(kernels, families, X, D, y, train, test, pairwise, scorer, regression):
    """``(scores, n_eigendecompositions, failures)``: ``scores[(kernel, method)]`` one per setting, on
    one fold, and the errors of the methods that could not be fitted there."""
    scores, failures = {}, []
    # The candidates' inputs are kernels this search computed from the validated X, and their
    # parameters this module's grids: scikit-learn's per-fit checks of both (a large share of a fit on
    # a small fold) are skipped.
    with (
        warnings.catch_warnings(),
        config_context(assume_finite=True, skip_parameter_validation=True),
        reuse_eigendecompositions() as cache,
    ):
        warnings.simplefilter("ignore", ConvergenceWarning)
        for choice in kernels:
            K_train, K_test = _fit_kernel(choice, *_fold_blocks(X, train, test, pairwise))
            for family in families:
                if family.on_distance:
                    continue
                scores[(choice.label, family.name)] = _candidate_scores(
                    family, K_train, y[train], K_test, y[test], scorer, regression, failures
                )
        for family in families:
            if family.on_distance:
                D_train, D_test = _fold_blocks(D, train, test, True)
                scores[("distance", family.name)] = _candidate_scores(
                    family, D_train, y[train], D_test, y[test], scorer, False, failures
                )
    return scores, cache.n_computed, failures


def _accuracy(model, X, y):
    return float(np.mean(model.predict(X) == y))


def _r2(model, X, y):
    residual = float(np.sum(np.square(y - model.predict(X))))
    total = float(np.sum(np.square(y - y.mean())))
    return 1.0 - residual / total if total > 0 else (1.0 if residual == 0 else 0.0)


def _rank(means):
    """Ranks 1, 2, ... of the mean scores (higher is better; ties get the same rank)."""
    order = np.argsort(-means, kind="stable")
    ranks = np.empty(means.size, dtype=int)
    rank = 0
    for position, i in enumerate(order):
        if position == 0 or means[i] < means[order[position - 1]]:
            rank = position + 1
        ranks[i] = rank
    return ranks


#: ``cv="auto"`` repeats 5-fold cross-validation until about this many held-out predictions are made
#: (at most :data:`AUTO_CV_MAX_REPEATS` times): on small sets one partition's score differences between
#: candidates are mostly the partition's noise.
AUTO_CV_PREDICTIONS = 2000
AUTO_CV_MAX_REPEATS = 5


def auto_cv(
    y: ArrayLike, *, classifier: bool = True, random_state: RandomStateLike = None
) -> RepeatedKFold | RepeatedStratifiedKFold:
    """The inner folds of ``cv="auto"`` for the targets ``y``: 5-fold cross-validation (fewer folds
    when the smallest class has fewer than 5 members), stratified for a classifier, repeated
    ``min(5, ⌈2000 / n_samples⌉)`` times with fresh shuffles.

    A scikit-learn splitter; pass it to ``GridSearchCV(cv=...)`` to tune another estimator on the same
    folds as :class:`KreinClassifierCV` with the same ``random_state``.

    Examples
    --------
    >>> import numpy as np
    >>> from krein.model_selection import auto_cv
    >>> auto_cv(np.repeat([0, 1], 50), random_state=0).get_n_splits()
    25
    >>> auto_cv(np.repeat([0, 1], 5000)).get_n_splits()
    5
    """
    y = np.asarray(y)
    if y.ndim != 1 or y.size < 2:
        raise ValueError(f"y must be a 1-D array of at least 2 targets, got shape {y.shape}.")
    folds = min(5, y.size)
    if classifier:
        smallest = int(np.unique(y, return_counts=True)[1].min())
        if smallest < 2:
            raise ValueError(
                f"y: a class has {smallest} sample; inner cross-validation needs at least 2 samples of "
                "every class (drop the class, or pass cv= an explicit splitter)."
            )
        folds = min(folds, smallest)
    repeats = int(min(AUTO_CV_MAX_REPEATS, -(-AUTO_CV_PREDICTIONS // y.size)))
    splitter = RepeatedStratifiedKFold if classifier else RepeatedKFold
    return splitter(n_splits=folds, n_repeats=repeats, random_state=random_state)


def _corrected_standard_error(differences, test_to_train):
    """Standard error of the mean of paired per-fold score differences, corrected for the overlap of
    the training folds (Nadeau & Bengio 2003, Machine Learning 52, the corrected resampled t-test):
    ``sqrt((1/J + n_test/n_train) · s²)`` over ``J`` folds, ``s²`` their sample variance."""
    if differences.size < 2:
        return 0.0
    return float(np.sqrt((1.0 / differences.size + test_to_train) * np.var(differences, ddof=1)))


class _KreinFamilyCV(MetaEstimatorMixin, BaseEstimator):
    """The search shared by :class:`KreinClassifierCV` and :class:`KreinRegressorCV`."""

    _parameter_constraints = {
        "kernel": [Kernel, str, None],
        "metric": [StrOptions({"precomputed"}), None],
        "methods": [StrOptions({"auto", "all"}), list, tuple],
        "scales": [StrOptions({"auto"}), list, tuple],
        "cv": [StrOptions({"auto"}), "cv_object"],
        "baseline_margin": [Interval(Real, 0, None, closed="left")],
        "scoring": [str, callable, None],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        kernel: Kernel | str | None = None,
        *,
        metric: Literal["precomputed"] | None = None,
        methods: Literal["auto", "all"] | Sequence[str] = "auto",
        scales: Literal["auto"] | Sequence[float] = "auto",
        cv: Literal["auto"] | int | BaseCrossValidator | Iterable = "auto",
        baseline_margin: float = 1.0,
        scoring: str | Callable | None = None,
        random_state: RandomStateLike = None,
        n_jobs: int | None = None,
        verbose: int = 0,
    ) -> None:
        store_parameters(self, locals())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.metric == "precomputed" or (
            isinstance(self.kernel, str) and self.kernel == "precomputed"
        )
        return tags

    # -- the candidates -------------------------------------------------------------------------

    def _is_distance(self):
        if self.kernel is not None and self.metric is not None:
            raise ValueError(
                "Give one of kernel= (X is data or a precomputed similarity) and metric='precomputed' "
                f"(X is a precomputed distance matrix), not both; got kernel={self.kernel!r}, "
                f"metric={self.metric!r}."
            )
        return self.metric is not None

    def _scales(self, default):
        if isinstance(self.scales, str):
            return default
        scales = [float(s) for s in self.scales]
        if not scales or not all(np.isfinite(s) and s > 0 for s in scales):
            raise ValueError(f"scales must be a non-empty list of positive numbers, got {self.scales!r}.")
        return scales

    def _kernel_choices(self):
        if self._is_distance():
            choices = [
                _KernelChoice(f"Gaussian(γ={g:g}·γ₀)", lambda g=g: GaussianOfDistance(gamma=g))
                for g in self._scales([0.3, 1.0, 3.0, 10.0])
            ]
            if isinstance(self.scales, str):
                choices.append(_KernelChoice("double-centred", lambda: DoubleCentering(scale="median")))
            return choices
        if isinstance(self.kernel, str) and self.kernel == "precomputed":
            if not isinstance(self.scales, str):
                raise ValueError(
                    "scales applies to a distance (metric='precomputed') or a kernel object; a precomputed "
                    "similarity has no scale to search."
                )
            return [_KernelChoice("precomputed", None)]
        kernel = make_kernel("gaussian" if self.kernel is None else self.kernel)
        factors = self._scales([0.5, 1.0, 2.0] if kernel.n_dims else [1.0])
        if factors != [1.0] and not kernel.n_dims:
            raise ValueError(f"scales: the kernel {kernel!r} has no tunable hyperparameter to scale.")
        return [
            _KernelChoice(
                repr(kernel) if f == 1.0 else f"{kernel!r}×{f:g}",
                lambda f=f: _KernelRows(kernel.clone_with_theta(kernel.theta + np.log(f))),
            )
            for f in factors
        ]

    def _families(self, n_samples, n_train_min, n_classes):
        families = [
            f
            if not f.on_distance
            else _Family(
                f.name, f.make, {"n_neighbors": [k for k in _NEIGHBORS if k <= n_train_min]}, on_distance=True
            )
            for f in self._all_families()
        ]
        names = [f.name for f in families]
        if isinstance(self.methods, str):
            costly = n_samples > PROXY_SVM_AUTO_MAX_SAMPLES or n_classes > 2
            chosen = [
                f
                for f in families
                if self.methods == "all" or not (f.name.startswith("Indefinite") and costly)
            ]
        else:
            unknown = sorted(set(self.methods) - set(names))
            if unknown or not self.methods:
                raise ValueError(
                    f"methods must be 'auto', 'all' or a list from {names}; got {self.methods!r}."
                )
            chosen = [f for f in families if f.name in self.methods]
        if not self._is_distance():
            distance_only = [f.name for f in chosen if f.on_distance]
            if distance_only and not isinstance(self.methods, str):
                raise ValueError(f"methods {distance_only} need a distance: pass metric='precomputed'.")
            chosen = [f for f in chosen if not f.on_distance]
        return chosen

    # -- fit ------------------------------------------------------------------------------------

    def _validate_input(self, X, y):
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None.")
        distance = self._is_distance()
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=not is_classifier(self))
        pairwise = self.__sklearn_tags__().input_tags.pairwise
        if pairwise:
            name = "X (the precomputed distance matrix)" if distance else "X (the precomputed kernel)"
            X = check_square_kernel(X, name)
            if distance and (X < 0).any():
                raise ValueError(
                    "X holds negative values: a precomputed distance matrix must be non-negative."
                )
        return X, y, pairwise

    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Choose the kernel, method and penalty by inner cross-validation, then refit on (X, y).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
            Data for a kernel object; the training similarity matrix with ``kernel="precomputed"``;
            the training distance matrix with ``metric="precomputed"``.
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        self._validate_params()
        X, y, pairwise = self._validate_input(X, y)
        check_kernel_memory(X.shape[0], self)
        regression = not is_classifier(self)
        if not regression:
            check_classification_targets(y)
            self.classes_ = np.unique(y)
            if self.classes_.size < 2:
                raise ValueError(f"y has one class only ({self.classes_[0]!r}); a classifier needs two.")
        kernels = self._kernel_choices()
        if isinstance(self.cv, str):
            cv = auto_cv(y, classifier=not regression, random_state=self.random_state)
        else:
            cv = check_cv(self.cv, y, classifier=not regression)
        folds = list(cv.split(X, y))
        n_classes = 0 if regression else self.classes_.size
        families = self._families(X.shape[0], min(train.size for train, _ in folds), n_classes)
        scorer = self._scorer()
        distance = X if self._is_distance() else None
        started = time.perf_counter()
        if self.verbose:
            print(
                f"{type(self).__name__}: {len(kernels)} kernel(s) × {len(families)} method(s) "
                f"on {len(folds)} folds of {X.shape[0]} samples"
            )
        jobs = Parallel(n_jobs=self.n_jobs, verbose=10 * (self.verbose > 1))(
            delayed(_evaluate_fold)(
                kernels, families, X, distance, y, train, test, pairwise, scorer, regression
            )
            for train, test in folds
        )
        self._collect(jobs, families, folds)
        if self.verbose:
            print(
                f"{type(self).__name__}: inner CV done in {time.perf_counter() - started:.1f} s\n"
                f"{self.cv_results_}"
            )
        self._refit(X, y, kernels, families)
        return self

    def _collect(self, jobs, families, folds):
        kernels_seen, columns = [], {"kernel": [], "method": [], "params": []}
        per_fold = [scores for scores, _, _ in jobs]
        split_scores = []
        order = {f.name: i for i, f in enumerate(families)}
        for key in per_fold[0]:
            kernels_seen.append(key)
        for kernel, method in sorted(kernels_seen, key=lambda k: order[k[1]]):
            family = next(f for f in families if f.name == method)
            for j, setting in enumerate(family.settings()):
                columns["kernel"].append(kernel)
                columns["method"].append(method)
                columns["params"].append(setting)
                split_scores.append([fold[(kernel, method)][j] for fold in per_fold])
        split_scores = np.asarray(split_scores, dtype=float)
        failed = ~np.isfinite(split_scores).all(axis=1)  # ranked last: -inf, their std NaN
        if failed.all():
            raise ValueError(
                f"{type(self).__name__}: no candidate could be fitted on the inner folds: "
                + "; ".join(sorted({f for _, _, fold in jobs for f in fold})[:3])
            )
        means = np.where(failed, -np.inf, split_scores.mean(axis=1))
        stds = np.where(failed, np.nan, split_scores.std(axis=1))
        failures = sorted({failure for _, _, fold in jobs for failure in fold})
        if failures:
            warnings.warn(
                f"{type(self).__name__}: {len(failures)} method(s) could not be fitted on some inner "
                f"fold and rank last: {'; '.join(failures[:3])}",
                FitFailedWarning,
                stacklevel=3,
            )
        results = SearchResults(columns)
        for k in range(split_scores.shape[1]):
            results[f"split{k}_test_score"] = split_scores[:, k]
        results["mean_test_score"], results["std_test_score"] = means, stds
        results["rank_test_score"] = _rank(means)
        self.cv_results_ = results
        self.best_index_ = self._select(results, split_scores, means, folds)
        self.best_score_ = float(means[self.best_index_])
        self.n_eigendecompositions_ = int(sum(n for _, n, _ in jobs))

    def _select(self, results, split_scores, means, folds):
        """The row refitted: the best mean score (ties: the earlier row), unless nearest neighbours on
        the distance are among the candidates and the best's paired gain over the best k-NN, fold by
        fold, is at most ``baseline_margin`` corrected standard errors: then that k-NN, the
        practitioners' baseline, is kept (the gain is noise of the folds, not evidence)."""
        best = int(np.argmax(means))
        neighbors = np.flatnonzero(np.asarray(results["method"]) == "k-NN")
        if (
            self.baseline_margin == 0
            or neighbors.size == 0
            or results["method"][best] == "k-NN"
            or not np.isfinite(means[neighbors]).any()
        ):
            return best
        baseline = int(neighbors[np.argmax(means[neighbors])])
        gain = split_scores[best] - split_scores[baseline]
        test_to_train = np.mean([test.size / train.size for train, test in folds])
        error = _corrected_standard_error(gain, test_to_train)
        kept = gain.mean() <= self.baseline_margin * error
        if self.verbose:
            print(
                f"{type(self).__name__}: {results['method'][best]} gains {gain.mean():.4f} ± {error:.4f} "
                f"(corrected s.e.) over {results['method'][baseline]}: "
                + ("k-NN kept" if kept else f"{results['method'][best]} chosen")
            )
        return baseline if kept else best

    def _refit(self, X, y, kernels, families):
        i = self.best_index_
        kernel_label, method = self.cv_results_["kernel"][i], self.cv_results_["method"][i]
        params = dict(self.cv_results_["params"][i])
        family = next(f for f in families if f.name == method)
        model = clone(family.make()).set_params(**params)
        if family.on_distance:
            estimator = model
        else:
            choice = next(c for c in kernels if c.label == kernel_label)
            steps = _kernel_pipeline(choice)
            estimator = Pipeline(steps + _spectrum_steps(family) + [("model", model)])
            if not is_classifier(self):
                estimator = TransformedTargetRegressor(
                    estimator, transformer=TargetScaler(), check_inverse=False
                )
        with warnings.catch_warnings(), reuse_eigendecompositions() as cache:
            warnings.simplefilter("ignore", ConvergenceWarning)
            estimator.fit(X, y)
        self.n_eigendecompositions_ += cache.n_computed
        self.best_estimator_ = estimator
        self.best_params_ = {"kernel": kernel_label, "method": method, **params}

    def _scorer(self):
        """The selection score ``scorer(model, X, y)``: the user's, or accuracy / R² computed directly
        (scikit-learn's scorers validate their input on every call, which costs more than the fit of
        a model on a precomputed eigendecomposition)."""
        if self.scoring is None:
            return _accuracy if is_classifier(self) else _r2
        return self.scoring if callable(self.scoring) else get_scorer(self.scoring)

    # -- predict --------------------------------------------------------------------------------

    def _test_input(self, X):
        check_is_fitted(self, "best_estimator_")
        if self.__sklearn_tags__().input_tags.pairwise:
            return X  # test-versus-train rows: the best estimator checks their width
        return validate_data(self, X, reset=False, dtype=np.float64)

    def predict(self, X: ArrayLike) -> NDArray:
        """Predictions of the refitted best model (X as at fit: data, or test-versus-train rows)."""
        X = self._test_input(X)
        return self.best_estimator_.predict(X)


class KreinClassifierCV(ClassifierMixin, _KreinFamilyCV):
    """The best classifier of the Kreĭn family for a similarity or a distance, by inner cross-validation.

    Give the data one way: ``kernel=`` a :class:`~krein.kernels.Kernel` (or a kernel name) and ``X``
    the data; ``kernel="precomputed"`` and ``X`` the n × n similarity matrix (at predict: the t × n
    test-versus-train similarities); or ``metric="precomputed"`` and ``X`` the n × n **distance**
    matrix (at predict: the t × n test-versus-train distances), as in scikit-learn's
    ``KNeighborsClassifier(metric="precomputed")``.

    The search (module :mod:`krein.model_selection`, see the guide's "Which method?"): for each kernel
    (a distance gives the Gaussians ``exp(−γ D²)`` at ``γ = s/median(D²)`` for ``s`` in ``scales``, and
    the double-centred kernel; a kernel object gives its hyperparameters multiplied by each of
    ``scales``), centred and divided by its scale (:class:`KernelNormalizer`), every method of
    ``methods`` on its grid is trained on each inner training fold and scored on the held-out fold;
    the best mean score wins (ties: the earlier method in :data:`CLASSIFIER_METHODS`) and is refitted
    on all of ``(X, y)``. Each fold's kernel is eigendecomposed once for every method and penalty.

    On a distance, nearest neighbours (the practitioners' baseline) are kept unless the winner beats
    the best k-NN by more than ``baseline_margin`` standard errors of their paired per-fold score
    difference, corrected for the overlap of the training folds (Nadeau & Bengio 2003, the corrected
    resampled t-test): a gain within the noise of the folds does not replace the simpler model.
    ``cv="auto"`` repeats 5-fold cross-validation on small sets (:func:`auto_cv`), so that the
    selection does not follow one partition's noise.

    Parameters
    ----------
    kernel : Kernel, str or None, default=None
        A kernel object or name (``X`` is data), or ``"precomputed"`` (``X`` is a similarity matrix);
        None: the Gaussian kernel on the data, unless ``metric`` is given.
    metric : {"precomputed"} or None, default=None
        ``"precomputed"``: ``X`` is a distance matrix (then ``kernel`` must be None).
    methods : "auto", "all" or list of str, default="auto"
        Methods compared, from ``CLASSIFIER_METHODS``: ``"Kreĭn LS"``, ``"KREĬN (VC)"``, ``"SH-SVM"``,
        ``"IKLR"``, ``"IndefiniteSVC"``, ``"clip+SVC"``, ``"flip+SVC"``, ``"shift+SVC"``,
        ``"square+SVC"``, ``"k-NN"`` (distance input only). ``"auto"``: all of them, without the
        proxy-kernel SVM above 2000 training samples or two classes (one proxy problem per
        one-vs-rest task); ``"all"``: all of them.
    scales : "auto" or list of float, default="auto"
        Relative kernel scales: ``γ`` multipliers of :class:`~krein.dissimilarity.GaussianOfDistance`
        (auto: 0.3, 1, 3, 10, plus the double-centred kernel), or factors of a kernel object's
        hyperparameters (auto: 0.5, 1, 2).
    cv : "auto", int, cross-validation generator or iterable, default="auto"
        Inner folds. ``"auto"``: stratified 5-fold (fewer if a class has fewer than 5 members),
        repeated ``min(5, ⌈2000/n⌉)`` times (:func:`auto_cv`); an integer: stratified k-fold, not
        repeated.
    baseline_margin : float, default=1.0
        Corrected standard errors by which a candidate's mean paired gain over the best k-NN must
        exceed zero for it to replace k-NN (distance input only); 0: the best mean score wins.
    scoring : str, callable or None, default=None
        Selection score (None: accuracy).
    random_state : int, RandomState instance or None, default=None
        Shuffles of ``cv="auto"``'s folds.
    n_jobs : int or None, default=None
        Folds evaluated in parallel (joblib).
    verbose : int, default=0
        1: print the plan and, at the end of the search, the table of the best setting of each method;
        2 or more: also a line per finished inner fold (joblib's progress).

    Attributes
    ----------
    best_estimator_ : estimator
        The winner refitted on all the training data: a pipeline (kernel transform, normalizer,
        spectrum treatment if any, model), or a nearest-neighbour classifier on the distance.
    best_params_ : dict
        ``kernel``, ``method`` and the method's parameters of the winner.
    best_score_ : float
        Its mean inner cross-validated score.
    best_index_ : int
        Its row in ``cv_results_``.
    cv_results_ : SearchResults
        One row per candidate (kernel, method, params, per-fold and mean scores, rank); a dict
        ``pandas.DataFrame`` reads, printing as the table of each method's best setting.
    n_eigendecompositions_ : int
        Eigendecompositions of kernel matrices computed by the search and the refit.
    classes_ : ndarray
    n_features_in_ : int

    See Also
    --------
    KreinRegressorCV : The same search for real targets.
    HypergradientSearchCV : Gradient-based tuning of one estimator's penalties and kernel.
    sklearn.model_selection.GridSearchCV : Exhaustive search over one estimator's grid.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.spatial.distance import cdist
    >>> from krein.model_selection import KreinClassifierCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2)); y = (X[:, 0] * X[:, 1] > 0).astype(int)
    >>> D = cdist(X, X, "cityblock")  # any distance
    >>> model = KreinClassifierCV(metric="precomputed", cv=3).fit(D, y)
    >>> model.n_eigendecompositions_ <= 5 * 3 + 1  # one per inner fold and kernel, one for the refit
    True
    >>> model.predict(cdist(X[:3], X, "cityblock")).shape
    (3,)
    """

    def _all_families(self):
        return _families_of(classifier=True)

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """Decision values of the refitted best model, where it has them."""
        X = self._test_input(X)
        return self.best_estimator_.decision_function(X)


class KreinRegressorCV(RegressorMixin, _KreinFamilyCV):
    """The best regressor of the Kreĭn family for a similarity or a distance, by inner cross-validation.

    As :class:`KreinClassifierCV`, for real targets: the methods are ``"Kreĭn LS"``, ``"KREĬN (VC)"``,
    ``"IndefiniteSVR"``, ``"clip+SVR"``, ``"flip+SVR"``, ``"shift+SVR"``, ``"square+SVR"`` and
    ``"k-NN"`` (distance input only), scored by R² (``scoring=None``). The targets are standardized
    by their training mean and standard deviation (:class:`TargetScaler`; the kernel is centred, so
    the models have no other intercept).

    Parameters
    ----------
    kernel, metric, methods, scales, cv, baseline_margin, scoring, random_state, n_jobs, verbose
        As in :class:`KreinClassifierCV` (folds not stratified: ``cv="auto"`` repeats plain 5-fold,
        an integer is plain k-fold; the paired gain over k-NN is in R²).

    Attributes
    ----------
    best_estimator_, best_params_, best_score_, best_index_, cv_results_, n_eigendecompositions_,
    n_features_in_
        As in :class:`KreinClassifierCV`.

    See Also
    --------
    KreinClassifierCV : The same search for class labels.
    HypergradientSearchCV : Gradient-based tuning of one estimator's penalties and kernel.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.spatial.distance import cdist
    >>> from krein.model_selection import KreinRegressorCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-2, 2, size=(60, 1)); y = np.sin(2 * X[:, 0])
    >>> model = KreinRegressorCV(metric="precomputed", cv=3).fit(cdist(X, X), y)
    >>> bool(model.score(cdist(X, X), y) > 0.9)
    True
    """

    def _all_families(self):
        return _families_of(classifier=False)

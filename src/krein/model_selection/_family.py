"""One cross-validated choice across the Kreĭn family: :class:`KreinClassifierCV`, :class:`KreinRegressorCV`.

A practitioner with a similarity or a distance does not know in advance whether clipping the spectrum,
flipping it, learning in the Kreĭn space, or plain nearest neighbours will work best on their data, nor
at what scale the kernel should see the distances. These meta-estimators answer by inner
cross-validation over the whole family and refit the winner on all the training data:

* the input: data with a kernel object, a precomputed similarity, a precomputed distance, or the
  objects themselves (series, strings, SPD matrices) with a distance of
  :func:`krein.dissimilarity.pairwise_distances` or a user's function (:mod:`._objects`);
* the kernel (:mod:`._candidates`): a precomputed similarity, a kernel object (with its
  hyperparameters scaled by ``scales``), or, for a distance,
  :class:`~krein.dissimilarity.GaussianOfDistance` at each relative ``γ`` of ``scales`` and
  :class:`~krein.dissimilarity.DoubleCentering` (``scale="median"``); every kernel is centred and
  divided by its scale (:class:`KernelNormalizer`), so that one grid of penalties serves every data set;
* the methods (``methods``): spectrum treatments with an SVM, the Kreĭn least squares on a (λ₊, λ₋)
  grid (Oglic & Gärtner 2018, Eq. (2)), the variance-constrained model (ibid., problem (4)), the
  squared-hinge SVM (Oglic & Gärtner 2019, Sec. 2.5), IKLR (Liu et al. 2019), the proxy-kernel SVM
  (Luss & d'Aspremont 2009), and, for a distance, k nearest neighbours on it;
* the representation: exact (each inner fold's kernel eigendecomposed once for every method, module
  :mod:`._folds`), or, for a distance with ``n_components``, the landmarks: one n × m block of
  distances serves every fold and candidate (:mod:`._low_rank`).

The choice (:func:`._selection.select_with_baseline`): the best mean inner score, except that the
practitioners' baseline (k-NN on a distance, clip or flip + SVM on a precomputed similarity) is kept
unless the winner's paired per-fold gain over it exceeds ``baseline_margin`` standard errors corrected
for the overlap of the training folds (Nadeau & Bengio 2003): 1 for the classifier, 0 (the best mean
R² wins) for the regressor; the default inner folds (:func:`auto_cv`) repeat 5-fold cross-validation
on small sets.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from numbers import Integral, Real
from typing import Any, Literal, Self

import numpy as np
from joblib import delayed
from numpy.typing import ArrayLike, NDArray
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MetaEstimatorMixin,
    RegressorMixin,
    is_classifier,
)
from sklearn.compose import TransformedTargetRegressor
from sklearn.exceptions import ConvergenceWarning, FitFailedWarning
from sklearn.metrics import get_scorer
from sklearn.model_selection import BaseCrossValidator, check_cv
from sklearn.pipeline import Pipeline
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, column_or_1d, validate_data

from .._base import check_kernel_memory
from .._cluster import cluster_parallel
from .._parameters import store_parameters
from .._threads import blas_for_rows, parallel_loop
from .._typing import RandomStateLike
from .._validation import check_precomputed_test_kernel, check_square_kernel
from ..dissimilarity import DoubleCentering, GaussianOfDistance
from ..kernels import Kernel, make_kernel
from ..representation import clamp_n_components
from ..spectral import reuse_eigendecompositions
from ._candidates import (
    _NEIGHBORS,
    PROXY_SVM_AUTO_MAX_SAMPLES,
    Family,
    KernelChoice,
    KernelRows,
    KernelSum,
    SelectDistance,
    TargetScaler,
    families_of,
    kernel_pipeline,
    spectrum_steps,
)
from ._ensemble import ENSEMBLE, VoteEnsemble, distance_winners, weighted_vote
from ._folds import accuracy, evaluate_fold, evaluate_low_rank_fold, evaluate_neighbors_fold, r2
from ._low_rank import AUTO_EXACT_MAX_SAMPLES, AUTO_LANDMARKS, LowRankModel, NeighborModel, landmark_kernel
from ._objects import ObjectDistances, metric_label, take
from ._selection import SearchResults, auto_cv, rank_scores, select_with_baseline

__all__ = ["KreinClassifierCV", "KreinRegressorCV"]


class _KreinFamilyCV(MetaEstimatorMixin, BaseEstimator):
    """The search shared by :class:`KreinClassifierCV` and :class:`KreinRegressorCV`."""

    _parameter_constraints = {
        "kernel": [Kernel, str, None],
        "metric": [str, callable, list, tuple, None],
        "metric_params": [dict, None],
        "n_components": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left"), None],
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
        metric: str | Callable[..., float] | None = None,
        metric_params: dict[str, Any] | None = None,
        n_components: Literal["auto"] | int | None = "auto",
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

    # -- the input ------------------------------------------------------------------------------

    def _is_distance(self):
        if self.kernel is not None and self.metric is not None:
            raise ValueError(
                "Give one of kernel= (X is data or a precomputed similarity) and metric= (X is a distance "
                f"matrix, or objects), not both; got kernel={self.kernel!r}, metric={self.metric!r}."
            )
        return self.metric is not None

    def _takes_objects(self):
        return self._is_distance() and not (isinstance(self.metric, str) and self.metric == "precomputed")

    def _object_distances(self):
        """The metrics on objects, ``[(label, ObjectDistances)]`` (validated before any distance is
        computed; the label ``"distance"`` for one metric), or None for a precomputed matrix or data."""
        if not self._takes_objects():
            if self.metric_params is not None:
                raise ValueError(
                    "metric_params applies to a metric on objects (metric=a name or a callable)."
                )
            return None
        owner = dict(n_jobs=self.n_jobs, verbose=self.verbose, owner=type(self).__name__)
        if not isinstance(self.metric, list | tuple):
            return [("distance", ObjectDistances(self.metric, self.metric_params, **owner))]
        if self.metric_params is not None:
            raise ValueError(
                "metric_params applies to one metric; with a list give each metric's parameters in it: "
                "metric=[('dtw', {'window': 5}), 'msm', ...]."
            )
        if len(self.metric) < 2:
            raise ValueError(f"metric: a list needs at least two metrics, got {self.metric!r}.")
        sources = []
        for entry in self.metric:
            metric, params = entry if isinstance(entry, tuple) and len(entry) == 2 else (entry, None)
            if isinstance(metric, str) and metric == "precomputed":
                raise ValueError(
                    "metric: a list takes metrics on objects (names or callables), not 'precomputed'."
                )
            sources.append((metric_label(metric, params), ObjectDistances(metric, params, **owner)))
        labels = [label for label, _ in sources]
        duplicates = sorted({label for label in labels if labels.count(label) > 1})
        if duplicates:
            raise ValueError(f"metric: the list names {duplicates} more than once.")
        return sources

    def _validate_targets(self, y, n_samples):
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None.")
        y = column_or_1d(check_array(y, ensure_2d=False, dtype=None if is_classifier(self) else np.float64))
        if y.shape[0] != n_samples:
            raise ValueError(f"X holds {n_samples} objects but y has {y.shape[0]} targets.")
        return y

    def _validate_input(self, X, y):
        """``(X, y)``: objects (validated by the metric), or a validated array (square when pairwise)."""
        if self._takes_objects():
            if len(self._sources) == 1:
                X = self._sources[0][1].check(X, "X")
            else:  # every metric reads the objects as given (each validates them first)
                for _, source in self._sources:
                    source.check(X, "X")
                X = X if isinstance(X, np.ndarray) else list(X)
            return X, self._validate_targets(y, len(X))
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None.")
        distance = self._is_distance()
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=not is_classifier(self))
        if self.__sklearn_tags__().input_tags.pairwise:
            name = "X (the precomputed distance matrix)" if distance else "X (the precomputed kernel)"
            X = check_square_kernel(X, name)
            if distance and (X < 0).any():
                raise ValueError(
                    "X holds negative values: a precomputed distance matrix must be non-negative."
                )
        return X, y

    def _landmark_count(self, n_samples):
        """m, or None for the exact route (``n_components="auto"``: exact up to
        :data:`~._low_rank.AUTO_EXACT_MAX_SAMPLES` training objects, then
        :data:`~._low_rank.AUTO_LANDMARKS` landmarks)."""
        if self.n_components is None:
            return None
        if self._sources is not None and len(self._sources) > 1:
            if self.n_components == "auto" and n_samples <= AUTO_EXACT_MAX_SAMPLES:
                return None
            raise ValueError(
                f"n_components={self.n_components!r}: several metrics are searched by the exact route only, "
                f"up to {AUTO_EXACT_MAX_SAMPLES} training objects (n_components=None or 'auto'); got "
                f"{n_samples} objects."
            )
        if self.n_components == "auto":
            return None if n_samples <= AUTO_EXACT_MAX_SAMPLES else min(AUTO_LANDMARKS, n_samples)
        return clamp_n_components(self.n_components, n_samples, stacklevel=4)

    # -- the candidates -------------------------------------------------------------------------

    def _scales(self, default):
        if isinstance(self.scales, str):
            return default
        scales = [float(s) for s in self.scales]
        if not scales or not all(np.isfinite(s) and s > 0 for s in scales):
            raise ValueError(f"scales must be a non-empty list of positive numbers, got {self.scales!r}.")
        return scales

    def _kernel_choices(self):
        if self._is_distance():
            transforms = [
                (f"Gaussian(γ={g:g}·γ₀)", lambda g=g: GaussianOfDistance(gamma=g))
                for g in self._scales([0.3, 1.0, 3.0, 10.0])
            ]
            if isinstance(self.scales, str):
                transforms.append(("double-centred", lambda: DoubleCentering(scale="median")))
            if self._sources is None or len(self._sources) == 1:
                return [KernelChoice(label, make) for label, make in transforms]
            # several metrics: each metric's kernels, and their uniform combination (KernelSum)
            k = len(self._sources)
            choices = [
                KernelChoice(f"{source}: {label}", lambda i=i, make=make: SelectDistance(i, make()))
                for i, (source, _) in enumerate(self._sources)
                for label, make in transforms
            ]
            choices += [
                KernelChoice(f"sum: {label}", lambda make=make: KernelSum([make() for _ in range(k)]))
                for label, make in transforms
            ]
            return choices
        if isinstance(self.kernel, str) and self.kernel == "precomputed":
            if not isinstance(self.scales, str):
                raise ValueError(
                    "scales applies to a distance (metric=) or a kernel object; a precomputed similarity "
                    "has no scale to search."
                )
            return [KernelChoice("precomputed", None)]
        kernel = make_kernel("gaussian" if self.kernel is None else self.kernel)
        factors = self._scales([0.5, 1.0, 2.0] if kernel.n_dims else [1.0])
        if factors != [1.0] and not kernel.n_dims:
            raise ValueError(f"scales: the kernel {kernel!r} has no tunable hyperparameter to scale.")
        return [
            KernelChoice(
                repr(kernel) if f == 1.0 else f"{kernel!r}×{f:g}",
                lambda f=f: KernelRows(kernel.clone_with_theta(kernel.theta + np.log(f))),
            )
            for f in factors
        ]

    def _families(self, n_samples, n_train_min, n_classes, low_rank):
        families = [
            f
            if not f.on_distance
            else Family(
                f.name, f.make, {"n_neighbors": [k for k in _NEIGHBORS if k <= n_train_min]}, on_distance=True
            )
            for f in families_of(is_classifier(self))
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
                raise ValueError(f"methods {distance_only} need a distance: pass metric=.")
            chosen = [f for f in chosen if not f.on_distance]
        if low_rank:
            exact_only = [f.name for f in chosen if f.low_rank is None and not f.on_distance]
            if exact_only and not isinstance(self.methods, str):
                raise ValueError(
                    f"methods {exact_only} have no low-rank form (see krein.model_selection._low_rank): "
                    "pass n_components=None for the exact route, or leave them out."
                )
            chosen = [f for f in chosen if f.low_rank is not None or f.on_distance]
        return chosen

    def _baselines(self, families):
        """The practitioners' baseline methods of this input (:func:`select_with_baseline`)."""
        if self._is_distance():
            return {f.name for f in families if f.on_distance}
        if isinstance(self.kernel, str) and self.kernel == "precomputed":
            return {f.name for f in families if f.spectrum in ("clip", "flip")}
        return set()

    # -- fit ------------------------------------------------------------------------------------

    def fit(self, X: Any, y: ArrayLike) -> Self:
        """Choose the kernel, method and penalty by inner cross-validation, then refit on (X, y).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples), or a collection of objects
            Data for a kernel object; the training similarity matrix with ``kernel="precomputed"``;
            the training distance matrix with ``metric="precomputed"``; the training objects (a list
            of series of any lengths, of strings, an array of SPD matrices, ...) with a metric name
            or function.
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        self._validate_params()
        self._sources = self._object_distances()
        X, y = self._validate_input(X, y)
        n_samples = len(X)
        m = self._landmark_count(n_samples)
        if m is None:
            check_kernel_memory(n_samples, self)
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
        folds = list(cv.split(np.zeros((n_samples, 1)), y))
        n_classes = 0 if regression else self.classes_.size
        families = self._families(n_samples, min(train.size for train, _ in folds), n_classes, m is not None)
        started = time.perf_counter()
        if self.verbose:
            route = "exact" if m is None else f"low rank, m = {m} landmarks"
            print(
                f"{type(self).__name__}: {len(kernels)} kernel(s) × {len(families)} method(s) on "
                f"{len(folds)} folds of {n_samples} samples ({route})"
            )
        self.n_components_ = m
        if m is None:
            self.landmark_indices_ = None
            with blas_for_rows(n_samples):  # the exact route: at most a few thousand rows
                results = self._search_exact(X, y, kernels, families, folds)
        else:
            results, inputs = self._search_low_rank(X, y, kernels, families, folds, m)
        self._collect(results, families, folds, y)
        if self.verbose:
            print(
                f"{type(self).__name__}: inner CV done in {time.perf_counter() - started:.1f} s\n"
                f"{self.cv_results_}"
            )
        if m is None:
            with blas_for_rows(n_samples):
                self._refit(X, y, kernels, families)
        else:
            self._refit_low_rank(X, y, kernels, families, inputs)
        self.n_distance_evaluations_ = sum(source.n_evaluations for _, source in self._sources or [])
        self.distance_seconds_ = sum(source.seconds for _, source in self._sources or [])
        return self

    def _parallel(self, tasks):
        """Run the fold tasks on ``n_jobs`` (threads: the folds share the data), reporting each fold."""
        results = []
        what = f"{type(self).__name__}'s inner folds"
        runner = cluster_parallel(what, n_jobs=self.n_jobs, prefer="threads", return_as="generator")
        started = time.perf_counter()
        with parallel_loop(self.n_jobs):  # one BLAS thread while the folds run on several
            for k, result in enumerate(runner(tasks), start=1):
                results.append(result)
                if self.verbose:
                    elapsed = time.perf_counter() - started
                    print(f"{type(self).__name__}: inner task {k} done ({elapsed:.1f} s)")
        return results

    def _search_exact(self, X, y, kernels, families, folds):
        """One :class:`~._folds.FoldResult` per fold of the exact route (the n × n distances computed
        first when the input is objects)."""
        if self._sources is not None:
            self._reference_ = X
            matrices = [
                source.square(X, what=f"the training objects ({label})") for label, source in self._sources
            ]
            X = matrices[0] if len(matrices) == 1 else np.stack(matrices)
        pairwise = self._is_distance() or self.__sklearn_tags__().input_tags.pairwise
        self._fit_input_ = X
        distances = self._distance_matrices(X)
        regression = not is_classifier(self)
        record = len(distances) > 1 and not regression  # several distances: their winners' vote
        return self._parallel(
            delayed(evaluate_fold)(
                kernels, families, X, distances, y, train, test, pairwise, self._scorer(), regression, record
            )
            for train, test in folds
        )

    def _distance_matrices(self, X):
        """``[(label, D)]``: the distances the methods on a distance (k-NN) learn from (none for a kernel)."""
        if not self._is_distance():
            return []
        if X.ndim == 3:  # several metrics on the same objects
            return [(label, D) for (label, _), D in zip(self._sources, X, strict=True)]
        return [("distance", X)]

    def _search_low_rank(self, X, y, kernels, families, folds, m):
        """The fold results of the low-rank route and its inputs: the n × m distances (or similarities)
        to the landmarks, or the data points of a kernel object."""
        n = len(X)
        landmarks = np.sort(check_random_state(self.random_state).choice(n, size=m, replace=False))
        self.landmark_indices_ = landmarks
        if self._sources is not None:  # objects: their distances to the landmarks, computed once
            source = self._sources[0][1]
            others = np.setdiff1d(np.arange(n), landmarks)
            inputs = np.empty((n, m))
            inputs[landmarks] = source.square(take(X, landmarks), what="the landmarks")
            source.block(take(X, others), take(X, landmarks), what="the objects", out=inputs, rows=others)
        elif self.__sklearn_tags__().input_tags.pairwise:  # a precomputed matrix: its landmark columns
            inputs = X[:, landmarks]
        else:  # data points: the kernel objects evaluate K(X, Z)
            inputs = X
        classes = getattr(self, "classes_", None)
        scorer = self._scorer()
        results = self._parallel(
            delayed(evaluate_neighbors_fold)(family, inputs, landmarks, y, train, test, scorer, classes)
            for train, test in folds
            for family in families
            if family.on_distance
        ) or [None] * len(folds)
        for choice in kernels:  # one kernel's n × m columns in memory at a time
            kernel = landmark_kernel(choice, inputs, landmarks)
            parts = self._parallel(
                delayed(evaluate_low_rank_fold)(kernel, families, landmarks, y, train, test, scorer, classes)
                for train, test in folds
            )
            results = [
                part if result is None else result.merge(part)
                for result, part in zip(results, parts, strict=True)
            ]
        self._n_landmark_eigendecompositions = len(kernels)
        return results, inputs

    def _collect(self, results, families, folds, y):
        columns = {"kernel": [], "method": [], "params": []}
        split_scores, paired_scores, predictions = [], [], []
        order = {f.name: i for i, f in enumerate(families)}
        keys = list(results[0].scores)
        for kernel, method in sorted(keys, key=lambda k: order[k[1]]):
            family = next(f for f in families if f.name == method)
            for j, setting in enumerate(family.settings()):
                columns["kernel"].append(kernel)
                columns["method"].append(method)
                columns["params"].append(setting)
                split_scores.append([fold.scores[(kernel, method)][j] for fold in results])
                if results[0].baseline_scores is not None:
                    paired_scores.append([fold.baseline_scores[(kernel, method)][j] for fold in results])
                if results[0].predictions is not None:
                    predictions.append([fold.predictions[(kernel, method)][j] for fold in results])
        if predictions:  # several distances: the vote of their winners, scored on the same folds
            self._add_ensemble(columns, split_scores, predictions, folds, y)
        split_scores = np.asarray(split_scores, dtype=float)
        failures = sorted({failure for fold in results for failure in fold.failures})
        failed = ~np.isfinite(split_scores).all(axis=1)  # ranked last: -inf, their std NaN
        if failed.all():
            raise ValueError(
                f"{type(self).__name__}: no candidate could be fitted on the inner folds: "
                + "; ".join(failures[:3])
            )
        means = np.where(failed, -np.inf, split_scores.mean(axis=1))
        stds = np.where(failed, np.nan, split_scores.std(axis=1))
        if failures:
            warnings.warn(
                f"{type(self).__name__}: {len(failures)} method(s) could not be fitted on some inner "
                f"fold and rank last: {'; '.join(failures[:3])}",
                FitFailedWarning,
                stacklevel=3,
            )
        results_table = SearchResults(columns)
        for k in range(split_scores.shape[1]):
            results_table[f"split{k}_test_score"] = split_scores[:, k]
        results_table["mean_test_score"], results_table["std_test_score"] = means, stds
        results_table["rank_test_score"] = rank_scores(means)
        paired = None
        if paired_scores:
            paired = np.asarray(paired_scores, dtype=float)
            results_table["mean_landmark_score"] = np.nanmean(paired, axis=1)
        self.cv_results_ = results_table
        self.best_index_, report = select_with_baseline(
            results_table,
            split_scores,
            means,
            folds,
            baselines=self._baselines(families),
            margin=self.baseline_margin,
            paired_scores=paired,
        )
        if self.verbose and report:
            print(f"{type(self).__name__}: {report}")
        self.best_score_ = float(means[self.best_index_])
        self.n_eigendecompositions_ = int(sum(fold.n_eigendecompositions for fold in results))
        self.n_eigendecompositions_ += getattr(self, "_n_landmark_eigendecompositions", 0)

    def _add_ensemble(self, columns, split_scores, predictions, folds, y):
        """Append the row of the per-distance winners' vote (:mod:`._ensemble`) to the results."""
        scores = np.asarray(split_scores, dtype=float)
        means = np.where(np.isfinite(scores).all(axis=1), scores.mean(axis=1), -np.inf)
        winners = distance_winners(columns["kernel"], means, [label for label, _ in self._sources])
        if len(winners) < 2:
            return
        weights = means[winners]
        scorer = self._scorer()
        fold_scores = []
        for k, (_, test) in enumerate(folds):
            votes = weighted_vote([predictions[i][k] for i in winners], weights, self.classes_)
            fold_scores.append(scorer(_Predictions(votes), None, y[test]))
        columns["kernel"].append(ENSEMBLE[0])
        columns["method"].append(ENSEMBLE[1])
        columns["params"].append(
            {"of": ", ".join(f"{columns['kernel'][i]} {columns['method'][i]}" for i in winners)}
        )
        split_scores.append(fold_scores)
        self._ensemble_rows = [
            (columns["kernel"][i], columns["method"][i], dict(columns["params"][i]), float(means[i]))
            for i in winners
        ]

    def _best(self, families):
        i = self.best_index_
        kernel_label, method = self.cv_results_["kernel"][i], self.cv_results_["method"][i]
        params = dict(self.cv_results_["params"][i])
        self.best_params_ = {"kernel": kernel_label, "method": method, **params}
        return kernel_label, next(f for f in families if f.name == method), params

    def _refit(self, X, y, kernels, families):
        X = self._fit_input_
        del self._fit_input_
        i = self.best_index_
        if (self.cv_results_["kernel"][i], self.cv_results_["method"][i]) == ENSEMBLE:
            self.best_params_ = {
                "kernel": ENSEMBLE[0],
                "method": ENSEMBLE[1],
                **self.cv_results_["params"][i],
            }
            members = [
                self._refit_row(X, y, kernels, kernel, next(f for f in families if f.name == method), params)
                for kernel, method, params, _ in self._ensemble_rows
            ]
            weights = [mean for *_, mean in self._ensemble_rows]
            self.best_estimator_ = VoteEnsemble(members, weights, self.classes_)
            return
        kernel_label, family, params = self._best(families)
        self.best_estimator_ = self._refit_row(X, y, kernels, kernel_label, family, params)

    def _refit_row(self, X, y, kernels, kernel_label, family, params):
        """One candidate of the results table fitted on all of ``(X, y)``."""
        model = family.make(**params)
        if family.on_distance and X.ndim == 3:  # k-NN on one of several distances
            labels = [label for label, _ in self._sources]
            estimator = Pipeline([("distance", SelectDistance(labels.index(kernel_label))), ("model", model)])
        elif family.on_distance:
            estimator = model
        else:
            choice = next(c for c in kernels if c.label == kernel_label)
            estimator = Pipeline(kernel_pipeline(choice) + spectrum_steps(family) + [("model", model)])
            if not is_classifier(self):
                estimator = TransformedTargetRegressor(
                    estimator, transformer=TargetScaler(), check_inverse=False
                )
        with warnings.catch_warnings(), reuse_eigendecompositions() as cache:
            warnings.simplefilter("ignore", ConvergenceWarning)
            estimator.fit(X, y)
        self.n_eigendecompositions_ += cache.n_computed
        return estimator

    def _refit_low_rank(self, X, y, kernels, families, inputs):
        """The winner on every training row of the block (k-NN: on every training object)."""
        kernel_label, family, params = self._best(families)
        classes = getattr(self, "classes_", None)
        landmarks = self.landmark_indices_
        if family.on_distance:
            self.best_estimator_ = NeighborModel(y, params["n_neighbors"], classes)
            reference = np.arange(len(X))
        else:
            choice = next(c for c in kernels if c.label == kernel_label)
            kernel = landmark_kernel(choice, inputs, landmarks)
            scaler = None if classes is not None else TargetScaler().fit(y)
            self.best_estimator_ = LowRankModel.fit(kernel, family, params, y, classes, scaler)
            self.n_eigendecompositions_ += 1
            reference = landmarks
        self._reference_ = reference if self._sources is None else take(X, reference)

    def _scorer(self):
        """The selection score ``scorer(model, X, y)``: the user's, or accuracy / R² computed directly
        (scikit-learn's scorers validate their input on every call, which costs more than the fit of
        a model on a precomputed eigendecomposition)."""
        if self.scoring is None:
            return accuracy if is_classifier(self) else r2
        return self.scoring if callable(self.scoring) else get_scorer(self.scoring)

    # -- predict --------------------------------------------------------------------------------

    def _test_input(self, X):
        """What the refitted model reads: the test objects' distances to the training objects it needs
        (all of them, or the landmarks at low rank), test-versus-train rows, or validated data."""
        check_is_fitted(self, "best_estimator_")
        if self._sources is not None:
            blocks = []
            for label, source in self._sources:
                objects = source.check(X, "X") if len(self._sources) == 1 else X
                blocks.append(source.block(objects, self._reference_, what=f"the test objects ({label})"))
            return blocks[0] if len(blocks) == 1 else np.stack(blocks)
        if self.__sklearn_tags__().input_tags.pairwise:
            if self.n_components_ is None:
                return X  # test-versus-train rows: the best estimator checks their width
            return check_precomputed_test_kernel(X, self)[:, self._reference_]
        return validate_data(self, X, reset=False, dtype=np.float64)

    def predict(self, X: Any) -> NDArray:
        """Predictions of the refitted best model (X as at fit: data, test-versus-train rows, or objects)."""
        X = self._test_input(X)
        return self.best_estimator_.predict(X)


class _Predictions:
    """Stored predictions in the place of a model, for a scorer ``scorer(model, X, y)``."""

    def __init__(self, predictions):
        self.predictions = predictions

    def predict(self, X):
        return self.predictions


class KreinClassifierCV(ClassifierMixin, _KreinFamilyCV):
    """The best classifier of the Kreĭn family for a similarity or a distance, by inner cross-validation.

    Give the data one way: ``kernel=`` a :class:`~krein.kernels.Kernel` (or a kernel name) and ``X``
    the data; ``kernel="precomputed"`` and ``X`` the n × n similarity matrix (at predict: the t × n
    test-versus-train similarities); or ``metric="precomputed"`` and ``X`` the n × n **distance**
    matrix (at predict: the t × n test-versus-train distances), as in scikit-learn's
    ``KNeighborsClassifier(metric="precomputed")``; or ``metric=`` a distance of
    :func:`krein.dissimilarity.pairwise_distances` (``"dtw"``, ``"edit"``, ``"affine_invariant"``, ...)
    or a function ``d(a, b)``, and ``X`` the objects themselves (a list of series of any lengths, of
    strings, an array of SPD matrices; at predict: new objects of the same kind). Only the distances
    the representation needs are computed (``n_distance_evaluations_``).

    **At any size** (``n_components``): up to 2000 training objects the route is exact; above, it draws
    m = 500 landmarks once and computes the n × m distances to them: each inner fold's kernel is the
    one-shot Nyström eigendecomposition of its own rows of that block (Oglic & Gärtner 2019, Sec. 2.2),
    shared by every candidate of the fold; the SVMs run as linear (squared-hinge) models on the fold's
    Nyström features, and k-NN is scored on the held-out landmarks, whose distances to every training
    object are in the block (:mod:`krein.model_selection._low_rank`). No n × n matrix is formed.

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
    resampled t-test): a gain within the noise of the folds does not replace the simpler model. On a
    precomputed similarity the baseline is the better of clip + SVC and flip + SVC, by the same rule.
    ``cv="auto"`` repeats 5-fold cross-validation on small sets (:func:`auto_cv`), so that the
    selection does not follow one partition's noise.

    Parameters
    ----------
    kernel : Kernel, str or None, default=None
        A kernel object or name (``X`` is data), or ``"precomputed"`` (``X`` is a similarity matrix);
        None: the Gaussian kernel on the data, unless ``metric`` is given.
    metric : str, callable or None, default=None
        ``"precomputed"``: ``X`` is a distance matrix; a name of
        :data:`krein.dissimilarity.METRICS` or a function ``d(a, b) -> float`` (symmetric, finite,
        non-negative): ``X`` holds the objects. Then ``kernel`` must be None.
    metric_params : dict or None, default=None
        Keywords of the metric (``{"window": 10}`` for DTW, ...).
    n_components : "auto", int or None, default="auto"
        Landmarks of the low-rank route (distance input or a kernel object); None: always exact;
        ``"auto"``: exact up to 2000 training samples, 500 landmarks above (an integer larger than the
        training set is clamped to it, with a warning). At low rank the methods without a low-rank
        form (shift + SVC, SH-SVM, IKLR, the proxy SVM) are left out.
    methods : "auto", "all" or list of str, default="auto"
        Methods compared, from ``CLASSIFIER_METHODS``: ``"Kreĭn LS"``, ``"KREĬN (VC)"``, ``"SH-SVM"``,
        ``"IKLR"``, ``"IndefiniteSVC"``, ``"clip+SVC"``, ``"flip+SVC"``, ``"shift+SVC"``,
        ``"square+SVC"``, ``"k-NN"`` (distance input only). ``"auto"``: all of them, without the
        proxy-kernel SVM above 1000 training samples or two classes (one proxy problem per
        one-vs-rest task; at n = 2000 it took a third of the route's time); ``"all"``: all of them.
    scales : "auto" or list of float, default="auto"
        Relative kernel scales: ``γ`` multipliers of :class:`~krein.dissimilarity.GaussianOfDistance`
        (auto: 0.3, 1, 3, 10, plus the double-centred kernel), or factors of a kernel object's
        hyperparameters (auto: 0.5, 1, 2).
    cv : "auto", int, cross-validation generator or iterable, default="auto"
        Inner folds. ``"auto"``: stratified 5-fold (3-fold above 1000 samples, fewer if a class has
        fewer members), repeated ``min(5, ⌈2000/n⌉)`` times (:func:`auto_cv`); an integer: stratified
        k-fold, not repeated.
    baseline_margin : float, default=1.0
        Corrected standard errors by which a candidate's mean paired gain over the best k-NN must
        exceed zero for it to replace k-NN (distance input only); 0: the best mean score wins.
    scoring : str, callable or None, default=None
        Selection score (None: accuracy).
    random_state : int, RandomState instance or None, default=None
        Shuffles of ``cv="auto"``'s folds.
    n_jobs : int or None, default=None
        Folds evaluated in parallel (joblib threads), and threads of the distance evaluation.
    verbose : int, default=0
        1: print the plan, the progress of the distances (objects per second, time left), a line per
        finished inner task, the baseline comparison and, at the end of the search, the table of the
        best setting of each method.

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
        Eigendecompositions of kernel matrices computed by the search and the refit (at low rank:
        one of each kernel's m × m landmark block, and one one-shot eigendecomposition per fold and
        kernel and for the refit).
    n_distance_evaluations_ : int
        Distances computed from objects by the fit (0 for a precomputed matrix): n(n − 1)/2 exact,
        (n − m)·m + m(m − 1)/2 at low rank.
    distance_seconds_ : float
        Wall time the fit spent computing those distances.
    n_components_ : int or None
        Landmarks used (None: exact).
    landmark_indices_ : ndarray of shape (m,) or None
        Their rows in the training data.
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

    On a distance, k-NN is one candidate among the others: the best mean inner R² wins
    (``baseline_margin=0``), so a neighbour regressor that the inner folds show to be worse is not
    kept. The classifier's rule, which keeps k-NN unless the winner's paired gain exceeds a corrected
    standard error, does not carry over to real targets: a fold's R² is divided by that fold's target
    variance, so a few folds with a small spread of targets swing the paired differences by more than
    the whole gap between the candidates, and the corrected standard error (which multiplies the
    spread by about ``sqrt(1/J + 1/4)`` however many folds ``J`` are repeated) then protects a k-NN that
    is worse on average; on the shipped regression series sets it kept 9- and 15-NN whose inner R²
    were below the Kreĭn least squares' and the shifted SVR's (``benchmarks/bench_practice.py
    --regression``). ``baseline_margin=1`` restores the rule.

    Parameters
    ----------
    kernel, metric, metric_params, n_components, methods, scales, cv, scoring, random_state, n_jobs, \
    verbose
        As in :class:`KreinClassifierCV` (folds not stratified: ``cv="auto"`` repeats plain 5-fold,
        3-fold above 1000 samples; an integer is plain k-fold).
    baseline_margin : float, default=0.0
        Corrected standard errors by which a candidate's mean paired gain in R² over the best k-NN
        must exceed zero for it to replace k-NN (distance input only); 0: the best mean R² wins.

    Attributes
    ----------
    best_estimator_, best_params_, best_score_, best_index_, cv_results_, n_eigendecompositions_, \
    n_distance_evaluations_, distance_seconds_, n_components_, landmark_indices_, n_features_in_
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

    def __init__(
        self,
        kernel: Kernel | str | None = None,
        *,
        metric: str | Callable[..., float] | None = None,
        metric_params: dict[str, Any] | None = None,
        n_components: Literal["auto"] | int | None = "auto",
        methods: Literal["auto", "all"] | Sequence[str] = "auto",
        scales: Literal["auto"] | Sequence[float] = "auto",
        cv: Literal["auto"] | int | BaseCrossValidator | Iterable = "auto",
        baseline_margin: float = 0.0,
        scoring: str | Callable | None = None,
        random_state: RandomStateLike = None,
        n_jobs: int | None = None,
        verbose: int = 0,
    ) -> None:
        store_parameters(self, locals())

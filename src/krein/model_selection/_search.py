"""The route's search: the inner folds, exact (:mod:`._folds`) or at low rank (:mod:`._low_rank`), the
results table and the choice (:mod:`._selection`), the refit of the winner, and prediction."""

from __future__ import annotations

import time
import warnings
from typing import Any, Self

import numpy as np
from joblib import delayed
from numpy.typing import ArrayLike, NDArray
from sklearn.base import (
    is_classifier,
)
from sklearn.compose import TransformedTargetRegressor
from sklearn.exceptions import ConvergenceWarning, FitFailedWarning
from sklearn.metrics import get_scorer
from sklearn.model_selection import check_cv
from sklearn.pipeline import Pipeline
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._base import check_kernel_memory
from .._cluster import cluster_parallel
from .._threads import blas_for_rows, parallel_loop
from .._validation import check_precomputed_test_kernel
from ..spectral import reuse_eigendecompositions
from ._candidates import (
    SelectDistance,
    TargetScaler,
    kernel_pipeline,
    spectrum_steps,
)
from ._ensemble import ENSEMBLE, VoteEnsemble, distance_winners, weighted_vote
from ._folds import accuracy, evaluate_fold, evaluate_low_rank_fold, evaluate_neighbors_fold, r2
from ._inputs import RouteInputs
from ._low_rank import LowRankModel, NeighborModel, landmark_kernel
from ._objects import take
from ._selection import SearchResults, auto_cv, rank_scores, select_with_baseline

__all__ = ["RouteSearch"]


class RouteSearch(RouteInputs):
    """The search side of :class:`~._family._KreinFamilyCV`: fit, the folds, the choice, predict."""

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

"""One inner fold of the exact route: each kernel of the fold computed once, every method scored on it."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn import config_context
from sklearn.exceptions import ConvergenceWarning

from ..spectral import reuse_eigendecompositions
from ._candidates import TargetScaler, kernel_pipeline, spectrum_steps
from ._low_rank import NeighborModel, nystroem_fold


@dataclass
class FoldResult:
    """What one inner fold gives: ``scores[(kernel, method)]`` (one per setting, NaN where the method
    could not be fitted), the eigendecompositions computed, the errors of the methods that failed and,
    at low rank, ``baseline_scores[(kernel, method)]``: the same scores on the fold's held-out
    landmarks, where k-NN is scored (:mod:`krein.model_selection._low_rank`)."""

    scores: dict
    n_eigendecompositions: int
    failures: list
    baseline_scores: dict | None = None
    predictions: dict | None = None  # the test predictions of every setting, when recorded

    def merge(self, other: FoldResult) -> FoldResult:
        """The results of two parts of one fold (two kernels, or a kernel and the neighbours)."""
        baseline = None
        if self.baseline_scores is not None or other.baseline_scores is not None:
            baseline = {**(self.baseline_scores or {}), **(other.baseline_scores or {})}
        return FoldResult(
            {**self.scores, **other.scores},
            self.n_eigendecompositions + other.n_eigendecompositions,
            self.failures + other.failures,
            baseline,
        )


def fold_blocks(X, train, test, pairwise):
    """The training block and the test-versus-train rows of one fold (of each matrix of a stack
    ``(k, n, n)`` of several distances), or the fold's rows of data."""
    if pairwise and X.ndim == 3:
        return X[:, train][:, :, train], X[:, test][:, :, train]
    if pairwise:
        return X[np.ix_(train, train)], X[np.ix_(test, train)]
    return X[train], X[test]


def _fit_kernel(choice, X_train, X_test):
    steps = kernel_pipeline(choice)
    K_train, K_test = X_train, X_test
    for _, step in steps:
        K_train, K_test = step.fit_transform(K_train), step.transform(K_test)
    return K_train, K_test


def candidate_scores(family, K_train, y_train, K_test, y_test, scorer, regression, failures, record=False):
    """Scores of every setting of ``family`` trained on one fold (a list, grid order); NaN for every
    setting when the method cannot be fitted on the fold (the error goes to ``failures``). With
    ``record`` (a classifier's), ``(score, test predictions)`` pairs (``(NaN, None)`` on failure)."""
    if regression:  # the models have no intercept on a centred kernel: standardize the targets
        scaler = TargetScaler().fit(y_train)
        y_train, y_test = scaler.transform(y_train), scaler.transform(y_test)
    treated = {"train": K_train, "test": K_test}  # after the family's spectrum treatment, if any

    def fit(settings):
        for _, step in spectrum_steps(family):
            treated["train"], treated["test"] = (
                step.fit_transform(treated["train"]),
                step.transform(treated["test"]),
            )
        if family.path:
            return family.make().fit_path(treated["train"], y_train, settings)
        return [family.make(**s).fit(treated["train"], y_train) for s in settings]

    if not record:
        return _scores_or_failure(family, fit, lambda model: scorer(model, treated["test"], y_test), failures)
    return _scores_or_failure(
        family,
        fit,
        lambda model: (scorer(model, treated["test"], y_test), model.predict(treated["test"])),
        failures,
        failed=(np.nan, None),
    )


def evaluate_fold(
    kernels, families, X, distances, y, train, test, pairwise, scorer, regression, record=False
):
    """The :class:`FoldResult` of one fold: ``scores[(kernel, method)]`` one per setting, the
    eigendecompositions computed and the errors of the methods that could not be fitted there;
    ``distances`` are the ``(label, matrix)`` the methods on a distance (k-NN) learn from. With
    ``record`` the candidates' test predictions too (:attr:`FoldResult.predictions`)."""
    outcomes, failures = {}, []
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
            K_train, K_test = _fit_kernel(choice, *fold_blocks(X, train, test, pairwise))
            for family in families:
                if family.on_distance:
                    continue
                outcomes[(choice.label, family.name)] = candidate_scores(
                    family, K_train, y[train], K_test, y[test], scorer, regression, failures, record
                )
        for label, D in distances:
            D_train, D_test = fold_blocks(D, train, test, True)
            for family in families:
                if family.on_distance:
                    outcomes[(label, family.name)] = candidate_scores(
                        family, D_train, y[train], D_test, y[test], scorer, False, failures, record
                    )
    if not record:
        return FoldResult(outcomes, cache.n_computed, failures)
    scores = {key: [score for score, _ in pairs] for key, pairs in outcomes.items()}
    predictions = {key: [p for _, p in pairs] for key, pairs in outcomes.items()}
    return FoldResult(scores, cache.n_computed, failures, predictions=predictions)


def accuracy(model, X, y):
    return float(np.mean(model.predict(X) == y))


def r2(model, X, y):
    residual = float(np.sum(np.square(y - model.predict(X))))
    total = float(np.sum(np.square(y - y.mean())))
    return 1.0 - residual / total if total > 0 else (1.0 if residual == 0 else 0.0)


def _scores_or_failure(family, fit, score, failures, failed=np.nan):
    """``score(model)`` of every model ``fit(settings)`` returns for the settings of ``family``; ``failed``
    for each setting when the method cannot be fitted on the fold (the error goes to ``failures``)."""
    settings = family.settings()
    try:
        return [score(model) for model in fit(settings)]
    except (ValueError, ArithmeticError, np.linalg.LinAlgError) as error:
        failures.append(f"{family.name}: {type(error).__name__}: {error}")
        return [failed] * len(settings)


def evaluate_low_rank_fold(kernel, families, landmarks, y, train, test, scorer, classes):
    """The :class:`FoldResult` of one kernel on one fold at low rank: the fold's one-shot
    eigendecomposition (:func:`~krein.model_selection._low_rank.nystroem_fold`) and every method with a
    low-rank form scored on the fold's test rows and on its held-out landmarks (targets standardized
    for a regressor, ``classes`` None)."""
    y_train, y_test = y[train], y[test]
    if classes is None:
        scaler = TargetScaler().fit(y_train)
        y_train, y_test = scaler.transform(y_train), scaler.transform(y_test)
    queries = np.flatnonzero(np.isin(test, landmarks))  # positions in test of the held-out landmarks
    scores, baseline_scores, failures = {}, {}, []
    with warnings.catch_warnings(), config_context(assume_finite=True, skip_parameter_validation=True):
        warnings.simplefilter("ignore", ConvergenceWarning)
        representation = nystroem_fold(kernel, train)
        U = representation.coordinates(kernel.rows(test))
        for family in families:
            if family.low_rank is None:
                continue
            pairs = _scores_or_failure(
                family,
                lambda settings, family=family: family.low_rank(representation, y_train, settings, classes),
                lambda model: (
                    scorer(model, U, y_test),
                    scorer(model, U[queries], y_test[queries]) if queries.size else np.nan,
                ),
                failures,
                failed=(np.nan, np.nan),
            )
            key = (kernel.label, family.name)
            scores[key] = [on_test for on_test, _ in pairs]
            baseline_scores[key] = [on_landmarks for _, on_landmarks in pairs]
    return FoldResult(scores, 1, failures, baseline_scores)


def evaluate_neighbors_fold(family, distances, landmarks, y, train, test, scorer, classes):
    """The :class:`FoldResult` of k-NN on one fold at low rank, scored on the fold's held-out landmarks:
    their distances to every training object of the fold are columns of the n × m block."""
    held_out = np.flatnonzero(np.isin(landmarks, test))
    D = distances[np.ix_(train, held_out)].T
    truth = y[landmarks[held_out]]
    key = ("distance", family.name)
    failures = []
    if held_out.size == 0:
        failures.append(f"{family.name}: no landmark is held out in a fold: too few landmarks")
        values = [np.nan] * len(family.settings())
    else:
        values = _scores_or_failure(
            family,
            lambda settings: [NeighborModel(y[train], s["n_neighbors"], classes) for s in settings],
            lambda model: scorer(model, D, truth),
            failures,
        )
    return FoldResult({key: values}, 0, failures, {key: values})

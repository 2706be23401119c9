"""The choice of the route: inner folds, ranks, the results table and the rule that keeps a baseline."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold

from .._typing import RandomStateLike


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


def rank_scores(means):
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
#: ``cv="auto"`` uses 3 folds instead of 5 above this many samples. Each candidate kernel costs one
#: O(n_train³) eigendecomposition (and the SVMs on an n_train × n_train matrix) per fold, so k folds cost
#: about k((k−1)/k)³ n³: 3 folds 0.89 n³ against 2.56 n³ for 5 (at n = 2000, with the proxy SVMs left
#: out above 1000 samples too, the exact route went from 74 to 23 times one eigendecomposition of the
#: whole matrix, with the same choice: ``docs/results/route-scale/exact-cost.json``), while each
#: held-out third still holds over 333 objects, a binomial standard error of at most 2.7 points on
#: its accuracy.
AUTO_CV_FEWER_FOLDS_ABOVE = 1000


def auto_cv(
    y: ArrayLike, *, classifier: bool = True, random_state: RandomStateLike = None
) -> RepeatedKFold | RepeatedStratifiedKFold:
    """The inner folds of ``cv="auto"`` for the targets ``y``: 5-fold cross-validation (3-fold above
    :data:`AUTO_CV_FEWER_FOLDS_ABOVE` samples; fewer folds when the smallest class has fewer members),
    stratified for a classifier, repeated ``min(5, ⌈2000 / n_samples⌉)`` times with fresh shuffles.

    A scikit-learn splitter; pass it to ``GridSearchCV(cv=...)`` to tune another estimator on the same
    folds as :class:`KreinClassifierCV` with the same ``random_state``.

    Examples
    --------
    >>> import numpy as np
    >>> from krein.model_selection import auto_cv
    >>> auto_cv(np.repeat([0, 1], 50), random_state=0).get_n_splits()
    25
    >>> auto_cv(np.repeat([0, 1], 5000)).get_n_splits()
    3
    """
    y = np.asarray(y)
    if y.ndim != 1 or y.size < 2:
        raise ValueError(f"y must be a 1-D array of at least 2 targets, got shape {y.shape}.")
    folds = min(5 if y.size <= AUTO_CV_FEWER_FOLDS_ABOVE else 3, y.size)
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


def corrected_standard_error(differences, test_to_train):
    """Standard error of the mean of paired per-fold score differences, corrected for the overlap of
    the training folds (Nadeau & Bengio 2003, Machine Learning 52, the corrected resampled t-test):
    ``sqrt((1/J + n_test/n_train) · s²)`` over ``J`` folds, ``s²`` their sample variance."""
    if differences.size < 2:
        return 0.0
    return float(np.sqrt((1.0 / differences.size + test_to_train) * np.var(differences, ddof=1)))


def select_with_baseline(results, split_scores, means, folds, *, baselines, margin, paired_scores=None):
    """``(row, report)``: the row refitted and, when a baseline was compared, a line saying why.

    The best mean score wins (ties: the earlier row), unless a practitioners' baseline (a method of
    ``baselines``: k-NN on a distance, clip or flip + SVM on a similarity) is among the candidates and
    the best's paired gain over the best baseline row, fold by fold, is at most ``margin`` standard
    errors corrected for the overlap of the training folds (:func:`corrected_standard_error`): then
    that baseline is kept, the gain being noise of the folds, not evidence. ``paired_scores`` (rows ×
    folds) are the scores the pairs are compared on where they differ from ``split_scores`` (at low
    rank: on each fold's held-out landmarks, where k-NN is scored).
    """
    best = int(np.argmax(means))
    methods = np.asarray(results["method"])
    candidates = np.flatnonzero(np.isin(methods, list(baselines)))
    if (
        margin == 0
        or candidates.size == 0
        or methods[best] in baselines
        or not np.isfinite(means[candidates]).any()
    ):
        return best, None
    baseline = int(candidates[np.argmax(means[candidates])])
    paired = split_scores if paired_scores is None else paired_scores
    gain = paired[best] - paired[baseline]
    gain = gain[np.isfinite(gain)]
    test_to_train = np.mean([test.size / train.size for train, test in folds])
    error = corrected_standard_error(gain, test_to_train)
    kept = not gain.size or gain.mean() <= margin * error
    mean_gain = gain.mean() if gain.size else np.nan
    report = (
        f"{methods[best]} gains {mean_gain:.4f} ± {error:.4f} (corrected s.e.) over "
        f"{methods[baseline]}: " + (f"{methods[baseline]} kept" if kept else f"{methods[best]} chosen")
    )
    return (baseline if kept else best), report

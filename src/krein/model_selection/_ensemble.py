"""Several distances in one route: the vote of the per-distance winners.

With ``metric=[...]`` (several distances on the same objects) the route compares, by the same inner
folds, every distance's candidates, their kernels' uniform combination
(:class:`~krein.model_selection._candidates.KernelSum`) and a simple ensemble: the best candidate of
each distance (by mean inner score), voting with weights equal to those mean scores, as the Elastic
Ensemble of Lines & Bagnall (2015) weights its 1-NN classifiers by their cross-validated accuracy. The
ensemble's inner score is that of the vote of the winners' own held-out predictions in each fold, so it
costs no fit beyond the candidates'; its members are chosen on the same folds, which favours it
slightly (as choosing among any candidates does).
"""

from __future__ import annotations

import numpy as np

__all__ = ["ENSEMBLE", "VoteEnsemble", "distance_winners", "weighted_vote"]

#: The kernel and method labels of the ensemble's row in ``cv_results_``.
ENSEMBLE = ("ensemble", "vote")


def distance_winners(kernels, means, sources):
    """The row of each distance's best candidate: the highest mean among the rows whose kernel is the
    distance itself (its k-NN) or one of its kernels (``"<label>: ..."``); the earlier row on a tie."""
    winners = []
    for label in sources:
        rows = [i for i, kernel in enumerate(kernels) if kernel == label or kernel.startswith(f"{label}: ")]
        finite = [i for i in rows if np.isfinite(means[i])]
        if finite:
            winners.append(max(finite, key=lambda i: (means[i], -i)))
    return winners


def weighted_vote(predictions, weights, classes):
    """The label with the largest sum of the weights of the members predicting it (ties: the earlier
    class), for each object; ``predictions`` one array per member."""
    totals = np.zeros((len(predictions[0]), classes.size))
    for labels, weight in zip(predictions, weights, strict=True):
        totals[np.arange(labels.size), np.searchsorted(classes, labels)] += weight
    return classes[np.argmax(totals, axis=1)]


class VoteEnsemble:
    """The refitted winners of the distances, voting with their mean inner scores as weights; every
    member reads the same input (the stack of the test objects' distances to the training objects)."""

    def __init__(self, members, weights, classes):
        self.members, self.weights, self.classes = members, np.asarray(weights, dtype=float), classes

    def predict(self, S):
        return weighted_vote([member.predict(S) for member in self.members], self.weights, self.classes)

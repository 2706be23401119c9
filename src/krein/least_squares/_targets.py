"""Target encodings of the least squares models, as pure functions of the labels or values.

Regression fits the values as they are (one column per output). Classification fits, per one-vs-rest
task (one task for two classes), either the labels ``+1`` / ``−1`` (``"plain"``, those of scikit-learn's
``RidgeClassifier``: the intercept carries the class ratio, and the sign of the prediction minimizes the
misclassification rate) or the class-balanced real labels of Oglic & Gärtner (2018), Appendix C:
``y₊ = √(n₋/n₊)``, ``y₋ = −√(n₊/n₋)`` (``"balanced"``: mean zero, so the model weighs both classes
equally, as for the balanced error rate). An encoding returns the matrix to fit and a
:class:`TargetEncoding` that encodes validation labels the same way and carries what the estimator
keeps (the classes).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from sklearn.utils.multiclass import check_classification_targets

from .._base import one_vs_rest_targets
from .._cluster import cluster_errors
from ..representation import is_dask_array

__all__ = ["LABEL_ENCODINGS", "TargetEncoding", "encode_labels", "encode_values"]

#: The label encodings of the classifiers: the parameter ``label_encoding``.
LABEL_ENCODINGS = ("plain", "balanced")


class TargetEncoding(NamedTuple):
    """How targets were encoded: ``single_output`` (one column from a 1-D ``y`` or two classes),
    the ``classes`` and the ``(positive, negative)`` label values (None for regression)."""

    single_output: bool
    classes: np.ndarray | None = None
    label_values: tuple | None = None

    def encode(self, y):
        """Targets of shape (n, t) encoded as the training targets were (lazily for dask labels)."""
        if self.classes is None:
            y = y.astype(np.float64) if is_dask_array(y) else np.asarray(y, dtype=float)
            if y.ndim not in (1, 2):
                raise ValueError(f"y must be 1-D or 2-D, got {y.ndim} dimensions.")
            return y[:, None] if y.ndim == 1 else y
        tasks = self.classes[1:] if self.single_output else self.classes
        y = y if is_dask_array(y) else np.asarray(y)
        return np.where(y[:, None] == tasks[None, :], *self.label_values)  # dask dispatches np.where


def encode_values(y):
    """Real targets of shape (n, t) for regression values ``y`` (NumPy or dask) and their encoding."""
    encoding = TargetEncoding(np.ndim(y) == 1)
    return encoding.encode(y), encoding


def encode_labels(y, label_encoding):
    """Real labels of shape (n, t) for class labels ``y`` (NumPy or dask) and their encoding:
    ``+1`` / ``−1`` (``label_encoding="plain"``) or the class-balanced values of Appendix C
    (``"balanced"``).

    A dask ``y`` is encoded lazily: the classes and their counts come from one pass over it.
    """
    if is_dask_array(y):
        import dask
        import dask.array as da

        if y.ndim != 1:
            raise ValueError(f"y should be a 1d array, got a dask array of shape {y.shape} instead.")
        with cluster_errors("the classes of y"):
            classes, counts = dask.compute(*da.unique(y, return_counts=True))
    else:
        check_classification_targets(y)
        classes, counts = np.unique(y, return_counts=True)
    classes, _ = one_vs_rest_targets(classes)  # two classes or more
    if label_encoding == "plain":
        values = (1.0, -1.0)
    else:
        n_positive = counts[1:] if classes.size == 2 else counts
        n_negative = counts.sum() - n_positive
        values = (np.sqrt(n_negative / n_positive), -np.sqrt(n_positive / n_negative))
    encoding = TargetEncoding(classes.size == 2, classes, values)
    return encoding.encode(y), encoding

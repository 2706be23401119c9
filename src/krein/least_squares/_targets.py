"""Target encodings of the least squares models, as pure functions of the labels or values.

Regression fits the values as they are (one column per output). Classification fits the
class-balanced real labels of Oglic & Gärtner (2018), Appendix C: ``y₊ = √(n₋/n₊)``, ``y₋ = −√(n₊/n₋)``
per one-vs-rest task (one task for two classes). An encoding returns the matrix to fit and a
:class:`TargetEncoding` that encodes validation labels the same way and carries what the estimator
keeps (the classes).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._base import one_vs_rest_targets
from ..spectral import is_dask_array

__all__ = ["TargetEncoding", "encode_balanced", "encode_values"]


class TargetEncoding(NamedTuple):
    """How targets were encoded: ``single_output`` (one column from a 1-D ``y`` or two classes),
    the ``classes`` and the ``(positive, negative)`` label values (None for regression)."""

    single_output: bool
    classes: np.ndarray | None = None
    label_values: tuple | None = None

    def encode(self, y):
        """Validation targets of shape (n, t), encoded as the training targets were."""
        if self.classes is None:
            y = np.asarray(y, dtype=float)
            return y.reshape(y.shape[0], -1)
        tasks = self.classes[1:] if self.single_output else self.classes
        return np.where(np.asarray(y)[:, None] == tasks[None, :], *self.label_values)


def encode_values(y):
    """Real targets of shape (n, t) for regression values ``y`` (NumPy or dask) and their encoding."""
    y = y.astype(np.float64) if is_dask_array(y) else np.asarray(y, dtype=float)
    if y.ndim not in (1, 2):
        raise ValueError(f"y must be 1-D or 2-D, got {y.ndim} dimensions.")
    return (y[:, None] if y.ndim == 1 else y), TargetEncoding(y.ndim == 1)


def encode_balanced(y):
    """Class-balanced labels of shape (n, t) for class labels ``y`` (NumPy or dask) and their encoding.

    A dask ``y`` is encoded lazily: the classes and their counts come from one pass over it.
    """
    if is_dask_array(y):
        import dask
        import dask.array as da

        if y.ndim != 1:
            raise ValueError(f"y should be a 1d array, got a dask array of shape {y.shape} instead.")
        classes, counts = dask.compute(*da.unique(y, return_counts=True))
        classes, _ = one_vs_rest_targets(classes)
        tasks = slice(1, None) if classes.size == 2 else slice(None)
        positive = y[:, None] == classes[tasks][None, :]
        n_positive, where = counts[tasks], da.where
    else:
        classes, Y = one_vs_rest_targets(y)
        positive = Y > 0
        n_positive, where = np.sum(positive, axis=0), np.where
    n_negative = positive.shape[0] - n_positive
    values = (np.sqrt(n_negative / n_positive), -np.sqrt(n_positive / n_negative))
    return where(positive, *values), TargetEncoding(positive.shape[1] == 1, classes, values)

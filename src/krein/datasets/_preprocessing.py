"""Preprocessing conventions of Oglic & Gärtner (ICML 2018), Appendix C.

* vectorial instances are standardized (zero mean, unit variance per feature);
* regression targets are scaled so that their range is one (and centred, Appendix E.1);
* binary class labels {-1, 1} are replaced by y₊ = √(n₋/n₊) and y₋ = −√(n₊/n₋), so that the
  labels have zero mean and unit mean square.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["standardize", "scale_to_unit_range", "balanced_labels"]


def _as_float_2d(X, name: str) -> np.ndarray:
    arr = np.asarray(X, dtype=np.float64)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-d array, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def standardize(
    X: ArrayLike, *, return_params: bool = False
) -> NDArray[np.float64] | tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Standardize the columns of ``X`` to zero mean and unit variance (Appendix C).

    Constant columns are centred and left with scale one (they become all zero).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    return_params : bool, default=False
        Also return ``(mean, scale)`` so that test data can be transformed consistently as
        ``(X_test - mean) / scale``.

    Returns
    -------
    Z : ndarray of shape (n_samples, n_features)
    mean, scale : ndarrays of shape (n_features,), only if ``return_params``
    """
    arr = _as_float_2d(X, "X")
    mean = arr.mean(axis=0)
    scale = arr.std(axis=0)
    scale[scale <= np.finfo(np.float64).eps * np.maximum(1.0, np.abs(mean))] = 1.0
    Z = (arr - mean) / scale
    if return_params:
        return Z, mean, scale
    return Z


def scale_to_unit_range(y: ArrayLike, *, center: bool = True) -> np.ndarray:
    """Scale regression targets so that max(y) − min(y) = 1 (Appendix C and E.1).

    Parameters
    ----------
    y : array-like of shape (n_samples,)
    center : bool, default=True
        Subtract the mean first (Appendix E.1: "mean equal to zero and range equal to one").

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    arr = np.asarray(y, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"y must be a 1-d array, got shape {arr.shape}")
    if arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ValueError("y must be non-empty and finite")
    span = float(arr.max() - arr.min())
    if span == 0.0:
        raise ValueError("y is constant: its range is zero and cannot be scaled to one")
    out = arr - arr.mean() if center else arr.copy()
    return out / span


def balanced_labels(y: ArrayLike, *, pos_label: Any = None) -> tuple[NDArray[np.float64], np.ndarray]:
    """Class-balanced real-valued labels y₊ = √(n₋/n₊), y₋ = −√(n₊/n₋) (Appendix C).

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Exactly two distinct labels.
    pos_label : label or None
        The positive class; default: the larger of the two sorted labels.

    Returns
    -------
    y_real : ndarray of shape (n_samples,)
        Real-valued targets; they have mean 0 and mean square 1.
    classes : ndarray of shape (2,)
        ``[negative_label, positive_label]``; ``sign(y_real)`` maps back to them.
    """
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"y must be a 1-d array, got shape {arr.shape}")
    classes = np.unique(arr)
    if classes.size != 2:
        raise ValueError(f"y must contain exactly two classes, found {classes.size}")
    if pos_label is None:
        pos_label = classes[1]
    elif pos_label not in classes:
        raise ValueError(f"pos_label={pos_label!r} is not one of the classes {classes.tolist()}")
    neg_label = classes[0] if classes[1] == pos_label else classes[1]
    pos = arr == pos_label
    n_pos = int(pos.sum())
    n_neg = arr.size - n_pos
    y_real = np.where(pos, np.sqrt(n_neg / n_pos), -np.sqrt(n_pos / n_neg))
    return y_real, np.array([neg_label, pos_label])

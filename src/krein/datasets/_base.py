"""Loaders for the datasets shipped inside the package (no network access, ever)."""

from __future__ import annotations

from importlib import resources

import numpy as np
from sklearn.utils import Bunch

from ._registry import DatasetInfo, get_info, names

__all__ = ["list_datasets", "load_dataset", "binarize_images"]


def list_datasets(task: str | None = None) -> list[dict]:
    """List the shipped datasets.

    Parameters
    ----------
    task : {"classification", "regression"} or None
        Keep only datasets of this task.

    Returns
    -------
    list of dict
        One dict per dataset with keys ``name``, ``task``, ``kind``, ``n``, ``d``, ``classes``
        (number of classes, ``None`` for regression), ``class_counts``, ``natural`` (the
        natural dissimilarity used by :func:`krein.datasets.natural_kernel`) and
        ``description``.
    """
    if task not in (None, "classification", "regression"):
        raise ValueError(f"task must be None, 'classification' or 'regression', got {task!r}")
    out = []
    for name in names():
        info = get_info(name)
        if task is not None and info.task != task:
            continue
        out.append(
            {
                "name": info.name,
                "task": info.task,
                "kind": info.kind,
                "n": info.n,
                "d": info.d,
                "classes": info.n_classes,
                "class_counts": info.class_counts,
                "natural": info.natural,
                "description": info.description,
            }
        )
    return out


def _read_npz(stem: str) -> dict:
    ref = resources.files("krein.datasets").joinpath("data", f"{stem}.npz")
    with resources.as_file(ref) as path, np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def _from_sklearn_digits(info: DatasetInfo) -> tuple:
    from sklearn.datasets import load_digits

    digits = load_digits()
    images = digits.images.astype(np.float64)
    target = digits.target.astype(np.int64)
    if info.name == "digits-3v5":
        mask = (target == 3) | (target == 5)
        return images[mask], (target[mask] == 5).astype(np.int64), np.array(["3", "5"])
    return images, target, np.array([str(i) for i in range(10)])


def load_dataset(name: str, *, as_strings: bool = False, binarize: bool = False) -> Bunch:
    """Load a dataset shipped with :mod:`krein`.

    Parameters
    ----------
    name : str
        A name from :func:`list_datasets` (case-insensitive).
    as_strings : bool, default=False
        For ``"splice"``: return the DNA sequences as strings (same as ``"splice-strings"``).
    binarize : bool, default=False
        For ``"digits"`` / ``"digits-3v5"``: return binary images (see :func:`binarize_images`),
        as used by the Simpson score of Luss & d'Aspremont (2009, Sec. 5.1).

    Returns
    -------
    sklearn.utils.Bunch
        ``data`` (float64 array; a string array for string data; for variable-length
        multichannel series a list of ``(channels, length)`` arrays), ``target`` (int class codes
        ``0..k-1`` for classification, float for regression), ``target_names`` (original labels,
        classification only), ``description``, ``source``, ``name``, ``task``, ``kind`` and
        ``feature_names`` where known.  Time series also carry ``split`` (0 = archive train
        part, 1 = archive test part).
    """
    info = get_info(name)
    if as_strings:
        if info.name not in ("splice", "splice-strings"):
            raise ValueError(f"as_strings=True is only available for splice, not name={name!r}")
        info = get_info("splice-strings")
    if binarize and info.kind != "images":
        raise ValueError(f"binarize=True is only available for image datasets, not name={name!r}")
    bunch = Bunch(
        name=info.name,
        task=info.task,
        kind=info.kind,
        description=info.description,
        source=info.source,
    )
    if info.file == "sklearn":
        data, target, target_names = _from_sklearn_digits(info)
        if binarize:
            data = binarize_images(data)
        bunch.update(data=data, target=target, target_names=target_names)
        return bunch
    z = _read_npz(info.file)
    if info.kind == "strings":
        data = z["strings"].astype(str)
    elif "data_flat" in z:
        offsets = np.r_[0, np.cumsum(z["lengths"])]
        flat = z["data_flat"].astype(np.float64)
        data = [flat[:, a:b].copy() for a, b in zip(offsets[:-1], offsets[1:], strict=True)]
    else:
        data = z["data"].astype(np.float64)
    bunch.data = data
    if info.task == "regression":
        bunch.target = z["target"].astype(np.float64)
    else:
        bunch.target = z["target"].astype(np.int64)
        bunch.target_names = z["target_names"].astype(str)
    if "feature_names" in z and info.kind == "vector":
        bunch.feature_names = z["feature_names"].astype(str)
    if "split" in z:
        bunch.split = z["split"].astype(np.int64)
    return bunch


def binarize_images(images, threshold: float | None = None) -> np.ndarray:
    """Binarize grey-level images: pixel > threshold.

    Parameters
    ----------
    images : array-like of shape (n, h, w) or (n, p)
    threshold : float or None
        Default: half of the largest grey level in ``images`` (8 for the 0..16 digits).

    Returns
    -------
    ndarray of bool, same shape as ``images``
    """
    arr = np.asarray(images, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError("images contains NaN or infinite values")
    if threshold is None:
        threshold = 0.5 * float(arr.max()) if arr.size else 0.0
    return arr > threshold

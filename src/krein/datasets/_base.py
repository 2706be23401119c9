"""Loaders for the datasets shipped inside the package (no network access, ever)."""

from __future__ import annotations

from importlib import resources

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils import Bunch

from ._registry import DatasetInfo, get_info, names

__all__ = ["list_datasets", "load_dataset", "binarize_images"]

#: Per-object side information a file may hold beside ``data`` (grouping variables, original ids).
_SIDE_FIELDS = ("subject", "names", "study", "run", "ids")


def list_datasets(task: str | None = None) -> list[dict]:
    """List the shipped datasets.

    Parameters
    ----------
    task : {"classification", "regression"} or None
        Keep only datasets of this task.

    Returns
    -------
    list of dict
        One dict per dataset with keys ``name``, ``task``, ``kind`` (``"vector"``,
        ``"images"``, ``"strings"``, ``"series"``, ``"multiseries"``, ``"dissimilarity"`` or
        ``"similarity"``), ``n``, ``d`` (features, or the shape of one object: ``"16x16"``,
        ``"213x213"`` for an n × n matrix), ``classes`` (number of classes, ``None`` for
        regression), ``class_counts``, ``split`` (``(n_train, n_test)`` of the official split, or
        ``None``), ``natural`` (the natural kernel of :func:`krein.datasets.natural_kernel`) and
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
                "split": info.split,
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
        For image datasets: return binary images (see :func:`binarize_images`), as used by the
        Simpson score of Luss & d'Aspremont (2009, Sec. 5.1).

    Returns
    -------
    sklearn.utils.Bunch
        ``data``, ``target`` (int class codes ``0..k-1`` for classification, float for
        regression), ``target_names`` (original labels as strings, in code order;
        classification only), ``description``, ``source``, ``name``, ``task``, ``kind`` and
        ``feature_names`` where known.  What ``data`` holds depends on ``kind``:

        * ``"vector"``: float64 array (n, d), the source's values unchanged;
        * ``"images"``: float64 array (n, h, w), row 0 at the top of the image (the MATLAB
          column-major Yale B files are transposed to this orientation);
        * ``"dissimilarity"`` / ``"similarity"``: the float64 n × n matrix D or S between the
          objects (use it through :class:`krein.dissimilarity.DoubleCentering` or directly with
          ``kernel="precomputed"``; see :func:`krein.datasets.natural_kernel`);
        * ``"strings"``: a string array; ``"series"``: (n, T); ``"multiseries"``: (n, c, T) or
          a list of ``(c, T_i)`` arrays when lengths differ.

        **Official splits.**  Where the original has a train/test split (``list_datasets()``
        gives its sizes as ``split``), the Bunch holds *all* rows and ``train_idx``,
        ``test_idx``: disjoint sorted int64 row indices into ``data`` and ``target``.  (For
        madelon and ijcnn1 the held-out part is the original's validation file.)  The one
        exception is ``coilyork``, whose source has no test × test block: ``data`` is the
        144 × 144 training matrix and the test part comes separately as ``data_test`` (test ×
        train, the orientation ``predict`` takes with ``kernel="precomputed"``) and
        ``target_test``.

        Per-object side information is kept where the source has it: ``subject``
        (parkinsons), ``names`` (parkinsons recording names), ``study`` and ``run``
        (climate), ``ids`` (monk-1, monk-2, monk-3).
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
    for key in _SIDE_FIELDS:
        if key in z:
            bunch[key] = z[key].astype(str) if z[key].dtype.kind == "U" else z[key].astype(np.int64)
    if "data_test" in z:
        bunch.data_test = z["data_test"].astype(np.float64)
        bunch.target_test = z["target_test"].astype(np.int64)
    if "train_idx" in z:
        bunch.train_idx, bunch.test_idx = z["train_idx"].astype(np.int64), z["test_idx"].astype(np.int64)
    elif "split" in z:  # UCR/UEA files: 0 = archive train part, 1 = archive test part
        bunch.train_idx, bunch.test_idx = np.flatnonzero(z["split"] == 0), np.flatnonzero(z["split"] == 1)
    _select_view(bunch, info.extra)
    if binarize:
        bunch.data = binarize_images(bunch.data)
    return bunch


def _select_view(bunch: Bunch, extra: dict) -> None:
    """Restrict a Bunch in place to one part of its split (``rows``) or to two classes."""
    if "rows" in extra:
        rows = bunch.train_idx if extra["rows"] == "train" else bunch.test_idx
        del bunch["train_idx"], bunch["test_idx"]
        target = bunch.target[rows]
    elif "classes" in extra:
        codes = [bunch.target_names.tolist().index(c) for c in extra["classes"]]
        rows = np.flatnonzero(np.isin(bunch.target, codes))
        target = (bunch.target[rows] == codes[1]).astype(np.int64)
        bunch.target_names = np.array(extra["classes"])
        if "train_idx" in bunch:  # the split restricted to the kept rows, renumbered
            bunch.train_idx = np.searchsorted(rows, np.intersect1d(bunch.train_idx, rows))
            bunch.test_idx = np.searchsorted(rows, np.intersect1d(bunch.test_idx, rows))
    else:
        return
    bunch.data, bunch.target = bunch.data[rows], target
    for key in _SIDE_FIELDS:
        if key in bunch:
            bunch[key] = bunch[key][rows]


def binarize_images(images: ArrayLike, threshold: float | None = None) -> np.ndarray:
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

"""Memory-bounded tiling of pairwise computations, shared by every pairwise function.

A pairwise matrix between ``n_a`` and ``n_b`` objects is computed in square tiles whose size is
chosen from a memory budget (scikit-learn's ``working_memory``, in MiB, unless given).  When the
second set is omitted (``B is None``) only tiles on or above the diagonal are computed and mirrored,
so that every unordered pair is evaluated once (back-ends that can, also compute only the upper
triangle inside diagonal tiles).  Tiles are distributed over ``n_jobs`` threads with joblib; the
back-ends used here (rapidfuzz, dtaidistance, NumPy/LAPACK) release the GIL.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn import get_config

TileFunc = Callable[[int, int, int, int, bool], np.ndarray]


#: The ``n_jobs`` and ``working_memory`` entries of every pairwise function's docstring.
TILING_PARAMETERS_DOC = """n_jobs : int or None
        Number of threads (``None`` means 1, ``-1`` all cores).
    working_memory : float or None
        Memory budget of one tile in MiB (default: scikit-learn's ``working_memory``)."""


def tiling_doc(function):
    """Decorator: write :data:`TILING_PARAMETERS_DOC` at ``{tiling_parameters}`` in the docstring."""
    if function.__doc__ is not None:  # None under ``python -OO``
        function.__doc__ = function.__doc__.replace("{tiling_parameters}", TILING_PARAMETERS_DOC)
    return function


def tile_size(bytes_per_pair: float, working_memory: float | None, *, max_tile: int = 4096) -> int:
    """Largest tile edge ``t`` such that ``t * t * bytes_per_pair`` fits the memory budget."""
    if working_memory is None:
        working_memory = get_config()["working_memory"]
    if not (isinstance(working_memory, int | float) and working_memory > 0):
        raise ValueError(f"working_memory must be a positive number of MiB, got {working_memory!r}")
    budget = float(working_memory) * 2**20
    t = int(math.sqrt(budget / max(float(bytes_per_pair), 1.0)))
    return max(16, min(max_tile, t))


def check_collection(A, name: str, *, item_ndim: int, collection: str, item_shape: str) -> list[np.ndarray]:
    """The objects in ``A`` as C-contiguous float64 arrays of ``item_ndim`` dimensions, non-empty, finite.

    ``A`` is a numeric array of ``item_ndim + 1`` dimensions (one object per row) or an iterable of
    objects (whose shapes may differ). ``collection`` (the accepted forms of ``A``) and ``item_shape``
    (the shape of one object) word the errors.
    """
    if isinstance(A, np.ndarray) and A.dtype != object:
        if A.ndim != item_ndim + 1:
            raise ValueError(f"{name} must be {collection}, got shape {A.shape}")
        items = list(A)
    else:
        try:
            items = list(A)
        except TypeError:
            raise TypeError(f"{name} must be {collection}, got {type(A).__name__}") from None
    out = []
    for i, s in enumerate(items):
        try:
            arr = np.ascontiguousarray(s, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name}[{i}] is not a numeric array of shape {item_shape}") from None
        if arr.ndim != item_ndim or arr.shape[0] == 0:
            raise ValueError(f"{name}[{i}] must have shape {item_shape}, got {arr.shape}")
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name}[{i}] contains NaN or infinite values")
        out.append(arr)
    return out


def check_operands(A, B, check: Callable):
    """``(a, b, symmetric)``: ``A`` and ``B`` passed through ``check(X, name)``, with ``b is a`` and
    ``symmetric`` true when ``B`` is None (``A`` against itself, each unordered pair once)."""
    a = check(A, "A")
    symmetric = B is None
    return a, (a if symmetric else check(B, "B")), symmetric


def check_n_jobs(n_jobs) -> int:
    if n_jobs is not None and (not isinstance(n_jobs, int | np.integer) or n_jobs == 0):
        raise ValueError(f"n_jobs must be None or a non-zero integer, got {n_jobs!r}")
    return effective_n_jobs(n_jobs)


def pairwise_tiles(
    func: TileFunc,
    n_a: int,
    n_b: int,
    *,
    symmetric: bool,
    tile: int,
    n_jobs=None,
    dtype=np.float64,
) -> np.ndarray:
    """Assemble the ``n_a × n_b`` matrix from tiles computed by ``func``.

    ``func(r0, r1, c0, c1, diagonal)`` returns the ``(r1 - r0, c1 - c0)`` block; ``diagonal`` is
    True for a tile on the diagonal of a symmetric problem (then ``r0 == c0`` and ``r1 == c1``,
    and the returned block must be symmetric).
    """
    out = np.empty((n_a, n_b), dtype=dtype)
    if n_a == 0 or n_b == 0:
        return out
    tasks = []
    for r0 in range(0, n_a, tile):
        r1 = min(n_a, r0 + tile)
        start = r0 if symmetric else 0
        for c0 in range(start, n_b, tile):
            c1 = min(n_b, c0 + tile)
            tasks.append((r0, r1, c0, c1, symmetric and r0 == c0))
    n_workers = min(check_n_jobs(n_jobs), len(tasks))
    if n_workers <= 1:
        blocks = (func(*t) for t in tasks)
    else:
        blocks = Parallel(n_jobs=n_workers, prefer="threads", return_as="generator")(
            delayed(func)(*t) for t in tasks
        )
    for (r0, r1, c0, c1, _diag), block in zip(tasks, blocks, strict=True):
        out[r0:r1, c0:c1] = block
        if symmetric and c0 != r0:
            out[c0:c1, r0:r1] = block.T
    return out

"""Memory-bounded tiling of pairwise computations and the one evaluation behind every distance.

Each distance is a :class:`Metric` (its parameters, the validation of one collection of objects, and
the tiles it computes); :func:`evaluate` runs the checks shared by all of them (parameters,
``n_jobs``, the collections, the rescaling of homogeneous distances at the edges of floating point,
a finite result) and the blocked, parallel evaluation.

A pairwise matrix between ``n_a`` and ``n_b`` objects is computed in square tiles whose size is
chosen from a memory budget (scikit-learn's ``working_memory``, in MiB, unless given).  When the
second set is omitted (``B is None``) only tiles on or above the diagonal are computed and mirrored,
so that every unordered pair is evaluated once (back-ends that can, also compute only the upper
triangle inside diagonal tiles).  Tiles are distributed over ``n_jobs`` threads with joblib where
the back-end releases the GIL (NumPy/LAPACK, SciPy); rapidfuzz and dtaidistance (whose C routine holds
the GIL) run their tiles one after the other, each on ``n_jobs`` threads of their own.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from joblib import Parallel, delayed
from scipy.sparse import issparse

from .._memory import MemoryBudget
from .._scaling import power_of_two_unit
from .._threads import n_threads, parallel_loop

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


def reject_sparse(X, name: str) -> None:
    """TypeError for a scipy sparse matrix or array: a collection of objects must be dense."""
    if issparse(X):
        raise TypeError(
            f"{name} is a scipy sparse {type(X).__name__}; pairwise distances take a dense array or a "
            f"list of objects (pass {name}.toarray())"
        )


def check_operands(A, B, check: Callable):
    """``(a, b, symmetric)``: ``A`` and ``B`` passed through ``check(X, name)``, with ``b is a`` and
    ``symmetric`` true when ``B`` is None (``A`` against itself, each unordered pair once)."""
    reject_sparse(A, "A")
    a = check(A, "A")
    symmetric = B is None
    if not symmetric:
        reject_sparse(B, "B")
    return a, (a if symmetric else check(B, "B")), symmetric


def check_n_jobs(n_jobs) -> int:
    """The number of threads: 1 for None, ``n_jobs`` if positive, else the CPUs + 1 + ``n_jobs`` (−1: all).

    Threads only (tiles on joblib threads, OpenMP inside dtaidistance), so also inside a daemonic
    process such as a dask worker, where joblib's ``effective_n_jobs`` would warn and return 1.
    """
    if n_jobs is not None and (
        isinstance(n_jobs, bool) or not isinstance(n_jobs, int | np.integer) or n_jobs == 0
    ):
        raise ValueError(f"n_jobs must be None or a non-zero integer, got {n_jobs!r}")
    if n_jobs is None:
        return 1
    return int(n_jobs) if n_jobs > 0 else max(1, n_threads() + 1 + int(n_jobs))


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
    with parallel_loop(n_workers):  # one BLAS thread while the tiles run on several threads
        for (r0, r1, c0, c1, _diag), block in zip(tasks, blocks, strict=True):
            out[r0:r1, c0:c1] = block
            if symmetric and c0 != r0:
                out[c0:c1, r0:r1] = block.T
    return out


class Metric:
    """A distance between objects, evaluated by :func:`evaluate`.

    Subclasses set ``name``, ``parameters`` (each accepted keyword and its default) and implement
    ``check`` (one collection of objects, validated, in the form ``tiles`` needs) and ``tiles`` (the
    tile function and the tile edge); ``check_params`` validates the keywords, ``check_pair`` that
    the two collections are comparable.  ``homogeneous`` marks distances with d(s·a, s·b) = s·d(a, b)
    for s > 0: they are evaluated on objects rescaled by a power of two when the largest absolute value
    lies outside [2⁻²⁵⁵, 2²⁵⁵], where squared differences would overflow or underflow.
    """

    name: str = ""
    parameters: dict = {}
    homogeneous: bool = False

    def check(self, X, name: str):
        raise NotImplementedError

    def check_params(self, params: dict) -> dict:
        return params

    def check_pair(self, a, b) -> None:
        """Raise a ValueError naming ``A`` and ``B`` when their objects cannot be compared."""

    def is_symmetric(self, params: dict) -> bool:
        """Whether d(a, b) = d(b, a), so that ``A`` against itself evaluates each unordered pair once."""
        return True

    def tiles(self, a, b, symmetric: bool, params: dict, n_jobs: int, working_memory) -> tuple:
        """``(tile_function, tile_edge, n_jobs_for_the_tiles)``; see :func:`pairwise_tiles`."""
        raise NotImplementedError

    def infinite_message(self, params: dict) -> str:
        return f"{self.name} distances overflow float64 for some pairs (a distance above 1.8e308)"


#: Objects whose largest absolute value lies outside [2**-255, 2**255] are rescaled (homogeneous metrics).
_SAFE_RANGE = (2.0**-256, 2.0**255)


def _magnitude(objects) -> float:
    if isinstance(objects, np.ndarray):
        return float(np.max(np.abs(objects), initial=0.0))
    return max((float(np.max(np.abs(x), initial=0.0)) for x in objects), default=0.0)


def _power_of_two_scale(a, b) -> float:
    """2**k bringing the largest absolute value of ``a`` and ``b`` near 1, or 1.0 when it is in range."""
    return power_of_two_unit(max(_magnitude(a), _magnitude(b)), *_SAFE_RANGE)


def _divide(objects, scale: float):
    if isinstance(objects, np.ndarray):
        return objects / scale
    return [x / scale for x in objects]


def evaluate(metric: Metric, A, B=None, *, n_jobs=None, working_memory=None, **params) -> np.ndarray:
    """The ``n_a × n_b`` matrix of ``metric`` between the objects of ``A`` and ``B`` (``A`` when None).

    One path for every distance: the keywords are checked against ``metric.parameters``, ``n_jobs``
    and ``working_memory`` validated, ``A`` and ``B`` validated by ``metric.check``; homogeneous
    distances of objects with very large or very small values are computed on the objects divided
    by a power of two 2ᵏ and multiplied back (exact in binary floating point); the matrix is assembled
    from memory-bounded tiles by :func:`pairwise_tiles` and must be finite.
    """
    unknown = sorted(set(params) - set(metric.parameters))
    if unknown:
        valid = ", ".join(metric.parameters) or "none"
        raise TypeError(f"metric {metric.name!r} got unexpected parameter(s) {unknown}; valid: {valid}")
    params = metric.check_params({**metric.parameters, **params})
    workers = check_n_jobs(n_jobs)
    MemoryBudget(working_memory)  # validated before any work
    a, b, same = check_operands(A, B, metric.check)
    metric.check_pair(a, b)
    symmetric = same and metric.is_symmetric(params)
    scale = _power_of_two_scale(a, b) if metric.homogeneous else 1.0
    if scale != 1.0:
        a = _divide(a, scale)
        b = a if same else _divide(b, scale)
    func, tile, tile_jobs = metric.tiles(a, b, symmetric, params, workers, working_memory)
    distances = pairwise_tiles(func, len(a), len(b), symmetric=symmetric, tile=tile, n_jobs=tile_jobs)
    if scale != 1.0:
        with np.errstate(over="ignore"):  # an overflow becomes inf, reported below
            distances *= scale
    if not np.all(np.isfinite(distances)):
        raise ValueError(metric.infinite_message(params))
    return distances

"""Access to the columns ``K(X, Z)`` of a kernel matrix, in memory, by row chunks, or on a Dask cluster.

The low-rank methods of Oglic & Gärtner (2019) touch the n×n kernel only through the landmark columns
``K_XZ``, and the fit only through reductions of them: the Gram matrix ``(K_XZ R)ᵀ (K_XZ R)`` and the
moment ``(K_XZ R)ᵀ y`` (Sec. 2.2 and 2.4). :class:`KernelColumns` hides where ``X`` lives: a NumPy array
with a :class:`~krein.kernels.Kernel`, a precomputed n×n kernel matrix (columns are then selected by
index), or a ``dask.array`` whose row chunks are reduced where they live — on the workers of a
``dask.distributed`` cluster when a client is active — and summed. The same per-chunk reduction
(:func:`chunk_moments`) serves every case.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import reduce
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import clone

from .._cluster import cluster_errors
from .._memory import MemoryBudget
from .._validation import check_square_kernel
from ..kernels import Kernel, kernel_blocks
from ._base import is_dask_array

__all__ = [
    "ChunkMoments",
    "KernelColumns",
    "check_finite_chunk",
    "chunk_moments",
    "combine_moments",
    "landmark_blocks",
]


def check_finite_chunk(values: ArrayLike, name: str) -> None:
    """Raise a ``ValueError`` naming ``name`` when a chunk of it holds NaN or infinity."""
    if not np.isfinite(values).all():
        raise ValueError(f"Input {name} contains NaN or infinity (found in a row chunk of the dask array).")


class ChunkMoments(NamedTuple):
    """Reductions of the landmark columns ``K = K(X, Z)`` (n×m) over a set of rows, summable by
    :func:`combine_moments`.

    ``mean`` and the centred ``scatter = (K − 1 meanᵀ)ᵀ (K − 1 meanᵀ)`` give both the raw Gram matrix
    ``KᵀK = scatter + count · mean meanᵀ`` and, without cancellation, that of the column-centred
    ``H K`` (the centred kernel of Oglic & Gärtner 2018, Sec. 5). ``moment = Kᵀ y`` (raw). With probe
    columns ``V`` (held-out columns for the error estimate), ``probe_cross = K_XVᵀ K`` and
    ``probe_square`` the squared norms of the columns of ``K_XV`` (m',), ``probe_sum`` their sums and, when
    asked for (the error estimate of a centred approximation), ``probe_gram = K_XVᵀ K_XV`` (m'×m').
    Entries not requested are ``None``.
    """

    count: int  # type: ignore[assignment]  # the field's name shadows tuple.count, which no one calls here
    mean: np.ndarray
    scatter: np.ndarray | None
    moment: np.ndarray | None
    probe_cross: np.ndarray | None
    probe_square: np.ndarray | None
    probe_sum: np.ndarray | None = None
    probe_gram: np.ndarray | None = None

    @property
    def gram(self) -> NDArray[np.float64]:
        """The raw Gram matrix ``KᵀK``."""
        return self.scatter + self.count * np.outer(self.mean, self.mean)


def _add(a, b):
    return None if a is None else a + b


def combine_moments(first: ChunkMoments | None, second: ChunkMoments | None) -> ChunkMoments | None:
    """The moments of the union of two disjoint row sets (Chan, Golub & LeVeque's pairwise update);
    None stands for a set without rows."""
    if first is None or second is None:
        return second if first is None else first
    count = first.count + second.count
    delta = second.mean - first.mean
    mean = first.mean + delta * (second.count / count)
    scatter = None
    if first.scatter is not None:
        weight = first.count * second.count / count
        scatter = first.scatter + second.scatter + np.outer(delta, delta) * weight
    return ChunkMoments(
        count,
        mean,
        scatter,
        _add(first.moment, second.moment),
        _add(first.probe_cross, second.probe_cross),
        _add(first.probe_square, second.probe_square),
        _add(first.probe_sum, second.probe_sum),
        _add(first.probe_gram, second.probe_gram),
    )


def landmark_blocks(kernel, X_chunk, Z, step):
    """Yield ``(rows, K(X_chunk[rows], Z))`` for consecutive blocks of at most ``step`` rows.

    Columns are selected by index when ``kernel="precomputed"``; otherwise every block is written
    into one reused buffer (:func:`~krein.kernels.kernel_blocks` with ``reuse=True``), so a block is
    valid until the next one is drawn.
    """
    if isinstance(kernel, str):
        for start in range(0, X_chunk.shape[0], step):
            rows = slice(start, start + step)
            yield rows, X_chunk[rows][:, Z]
        return
    yield from kernel_blocks(kernel, X_chunk, Z, rows_per_block=step, reuse=True)


def chunk_moments(
    kernel: Kernel | str,
    X_chunk: ArrayLike,
    Z: NDArray,
    y_chunk: ArrayLike | None = None,
    probes: NDArray | None = None,
    *,
    gram: bool = True,
    probe_gram: bool = False,
    working_memory: float | None = None,
    check_finite: bool = False,
) -> ChunkMoments | None:
    """:class:`ChunkMoments` of one row chunk, ``K = K(X_chunk, Z)``, reduced in row blocks (None for a
    chunk without rows).

    With ``kernel="precomputed"``, ``X_chunk`` holds rows of the kernel matrix and ``Z`` (and
    ``probes``) column indices. A pass that needs only the moment (``gram=False``) costs one kernel
    evaluation and a matrix-vector product per block. ``check_finite`` rejects NaN or infinity in the
    chunk (dask inputs are validated here, chunk by chunk, instead of up front). ``probe_gram`` adds
    ``K_XVᵀ K_XV`` of the probe columns (``n m'²`` flops).

    **One product per block.** The scatter is the one ``n m²`` product of the pass: each block,
    shifted in place by a fixed reference row ``r`` (the first block's column means), enters one
    symmetric rank-k update (``SYRK``) ``G += (K_b − 1rᵀ)ᵀ (K_b − 1rᵀ)``, beside the column sums
    ``s = Σ (kᵢ − r)``; afterwards ``scatter = G − s sᵀ / n``. Since ``k̄ − r = s / n`` is of the
    order of the spread of the columns, not of their offset, the subtraction loses no more digits
    than a centred pass does (kernel values near 1e6 varying by 1: 1e-16 relative, where
    ``KᵀK − n k̄k̄ᵀ`` keeps four digits), and the pass costs what the raw ``KᵀK`` costs: no centred copy
    of a block and no second pass for the means. The moments ``Kᵀy`` and the probe products are
    taken on the raw block before the shift.
    """
    X_chunk = np.asarray(X_chunk, dtype=np.float64)
    y_chunk = None if y_chunk is None else np.asarray(y_chunk, dtype=np.float64)
    if check_finite:
        check_finite_chunk(X_chunk, "X")
        if y_chunk is not None:
            check_finite_chunk(y_chunk, "y")
    width = len(Z) + (0 if probes is None else len(probes))
    step = MemoryBudget(working_memory).rows(width, copies=2)
    count, reference, shifted_gram, shifted_sum = 0, None, None, 0.0
    moment = cross = square = sums = probe_products = None
    for rows, block in landmark_blocks(kernel, X_chunk, Z, step):
        count += block.shape[0]
        if y_chunk is not None:
            moment = _add_to(moment, block.T @ y_chunk[rows])
        if probes is not None:
            if isinstance(kernel, str):
                probe_block = X_chunk[rows][:, probes]
            else:
                probe_block = kernel(X_chunk[rows], probes)
            cross = _add_to(cross, probe_block.T @ block)
            square = _add_to(square, np.einsum("ij,ij->j", probe_block, probe_block))
            sums = _add_to(sums, probe_block.sum(axis=0))
            if probe_gram:
                probe_products = _add_to(probe_products, probe_block.T @ probe_block)
        if reference is None:
            reference = block.mean(axis=0)
        # the block is the chunk's own buffer (a reused kernel buffer, or a copy of precomputed columns):
        # shifted in place by the reference row, it gives the Gram matrix by one symmetric rank-k update
        block -= reference
        shifted_sum = shifted_sum + block.sum(axis=0)
        if gram:
            shifted_gram = _add_to(shifted_gram, block.T @ block)  # SYRK on a C-contiguous block
    if reference is None:  # no rows (as before: an empty chunk has no moments)
        return None
    mean = reference + shifted_sum / count
    scatter = None
    if gram:  # Σ (k − k̄)(k − k̄)ᵀ = Σ (k − r)(k − r)ᵀ − n (k̄ − r)(k̄ − r)ᵀ, with k̄ − r small
        assert shifted_gram is not None  # every block added to it, and there was one
        scatter = shifted_gram - np.outer(shifted_sum, shifted_sum / count)
    return ChunkMoments(count, mean, scatter, moment, cross, square, sums, probe_products)


def _add_to(total: NDArray[np.float64] | None, part: NDArray[np.float64]) -> NDArray[np.float64]:
    """``total + part`` in place (``part`` when there is no total yet)."""
    if total is None:
        return part
    total += part
    return total


def _combine_all(parts):
    return reduce(combine_moments, parts)


class KernelColumns:
    """Landmark columns of the kernel matrix of ``X``.

    A kernel with parameters fitted to data (:meth:`~krein.kernels.Kernel.fit`: a ``DistanceKernel``'s
    scale and references) is fitted by ``landmark_block(indices, fit=True)``, on a copy: ``kernel``
    is then that fitted copy, and the kernel given is left as it was.

    Parameters
    ----------
    kernel : Kernel or "precomputed"
    X : ndarray or dask array of shape (n, d), or (n, n) when precomputed
        Validated by the caller (finite, 2-D, float64); a precomputed matrix must be symmetric.
    """

    def __init__(self, kernel: Kernel | str, X: ArrayLike) -> None:
        self.kernel = kernel
        self.precomputed = isinstance(kernel, str)
        self.distributed = is_dask_array(X)
        self.X: Any = X  # a NumPy or a dask array
        if self.precomputed and not self.distributed:
            self.X = check_square_kernel(X, "X")
        self.n = self.X.shape[0]

    def _rows(self, indices):
        indices = np.asarray(indices)
        if self.distributed:
            order = np.argsort(indices)
            with cluster_errors("the landmark rows"):
                rows = np.asarray(self.X[indices[order]].compute(), dtype=np.float64)
            check_finite_chunk(rows, "X")
            return rows[np.argsort(order)]
        return self.X[indices]

    def points(self, indices: ArrayLike) -> NDArray:
        """What test points are compared with: the landmark rows of ``X``, or indices if precomputed."""
        return np.asarray(indices) if self.precomputed else self._rows(indices)

    def landmark_block(
        self, indices: ArrayLike, *, fit: bool = False
    ) -> tuple[NDArray[np.float64], NDArray[np.float64] | None]:
        """``K_ZZ`` (m×m, symmetrized) and the vector it annihilates by construction
        (:meth:`~krein.kernels.Kernel.block_null_vector`; None when none is known or precomputed).

        With ``fit``, ``kernel`` becomes a copy fitted to these points (their block from the same
        evaluation, :meth:`~krein.kernels.Kernel.fit_gram`): the kernel's reference points."""
        if isinstance(self.kernel, str):
            block, null_vector = self._rows(indices)[:, np.asarray(indices)], None
        else:
            Z, kernel = self.points(indices), self.kernel
            if fit:
                kernel = self.kernel = clone(kernel)
                block = kernel.fit_gram(Z)
            else:
                block = kernel(Z)
            null_vector = kernel.block_null_vector(Z)
        return 0.5 * (block + block.T), null_vector

    def block(self, rows: ArrayLike, indices: ArrayLike) -> NDArray[np.float64]:
        """``K(X[rows], X[indices])`` (small blocks: landmarks against probe columns)."""
        if isinstance(self.kernel, str):
            return np.asarray(self._rows(rows), dtype=np.float64)[:, np.asarray(indices, dtype=int)]
        return self.kernel(self.points(rows), self.points(indices))

    def diagonal(self, indices: ArrayLike) -> NDArray[np.float64]:
        """The diagonal entries ``k(x_j, x_j)`` of the points ``indices``."""
        if isinstance(self.kernel, str):
            indices = np.asarray(indices, dtype=int)
            return np.asarray(self._rows(indices), dtype=np.float64)[np.arange(indices.size), indices]
        return self.kernel.diag(self.points(indices))

    def columns(self, indices: ArrayLike, rows: ArrayLike | slice = slice(None)) -> NDArray[np.float64]:
        """``K(X[rows], Z)`` as an in-memory array (only for in-memory ``X``)."""
        if self.distributed:
            raise ValueError("X is a dask array: its kernel columns are only reduced, never materialized.")
        Z = self.points(indices)
        if isinstance(self.kernel, str):
            return self.X[rows][:, Z]
        return self.kernel(self.X[rows], Z)

    def column_blocks(
        self, indices: ArrayLike, right: NDArray[np.float64], *, working_memory: float | None = None
    ) -> Iterator[tuple[slice, NDArray[np.float64]]]:
        """Yield ``K(X[rows], Z) @ right`` for consecutive row blocks within ``working_memory`` MiB."""
        if self.distributed:
            raise ValueError("X is a dask array: its kernel columns are only reduced, never materialized.")
        step = MemoryBudget(working_memory).rows(np.size(indices), copies=2)
        for start in range(0, self.n, step):
            rows = slice(start, min(start + step, self.n))
            yield rows, self.columns(indices, rows) @ right

    def moments(
        self,
        indices: ArrayLike,
        y: ArrayLike | None = None,
        *,
        probes: ArrayLike | None = None,
        gram: bool = True,
        probe_gram: bool = False,
        working_memory: float | None = None,
    ) -> ChunkMoments:
        """:class:`ChunkMoments` of the landmark columns ``K_XZ``, accumulated over row chunks.

        ``probes`` are indices of held-out columns (see :class:`ChunkMoments`). For a dask ``X``
        each chunk is reduced by a task (on the cluster when a ``distributed`` client is active) and
        the partial results are combined; otherwise chunks of ``working_memory`` MiB (default:
        scikit-learn's ``working_memory``) are reduced in turn. ``y`` may be a NumPy or a dask array.
        ``probe_gram`` as for :func:`chunk_moments`.
        """
        Z = self.points(indices)
        P = None if probes is None else self.points(probes)
        if not self.distributed:
            y = None if y is None else np.asarray(y, dtype=np.float64)
            if y is not None and y.shape[0] != self.n:
                raise ValueError(f"y has {y.shape[0]} rows but X has {self.n}.")
            moments = chunk_moments(
                self.kernel, self.X, Z, y, P, gram=gram, probe_gram=probe_gram, working_memory=working_memory
            )
            if moments is None:
                raise ValueError("X has no rows: its kernel columns have no moments.")
            return moments
        import dask

        X = self.X.rechunk({1: -1})
        row_chunks = X.chunks[0]
        x_blocks = X.to_delayed().ravel()
        y_blocks: list[Any]
        if y is None:
            y_blocks = [None] * len(x_blocks)
        elif is_dask_array(y):
            if y.shape[0] != self.n:
                raise ValueError(f"y has {y.shape[0]} rows but X has {self.n}.")
            y_blocks = y.rechunk((row_chunks,) + tuple((s,) for s in y.shape[1:])).to_delayed().ravel()
        else:
            y = np.asarray(y, dtype=np.float64)
            if y.shape[0] != self.n:
                raise ValueError(f"y has {y.shape[0]} rows but X has {self.n}.")
            bounds = np.cumsum((0,) + row_chunks)
            y_blocks = [y[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        task = dask.delayed(chunk_moments, pure=True)
        parts = [
            task(
                self.kernel,
                xb,
                Z,
                yb,
                P,
                gram=gram,
                probe_gram=probe_gram,
                working_memory=working_memory,
                check_finite=True,
            )
            for xb, yb in zip(x_blocks, y_blocks, strict=True)
        ]
        with cluster_errors("a streamed pass over the kernel columns"):
            (result,) = dask.compute(dask.delayed(_combine_all)(parts))
        return result

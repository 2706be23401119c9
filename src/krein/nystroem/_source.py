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

import numpy as np

from .._validation import check_square_kernel
from ..kernels import block_rows

__all__ = ["KernelColumns", "check_finite_chunk", "chunk_moments", "is_dask_array"]


def is_dask_array(X):
    """Whether ``X`` is a ``dask.array.Array`` (without importing dask when it is not)."""
    module = type(X).__module__
    return module.startswith("dask.") and hasattr(X, "to_delayed")


def check_finite_chunk(values, name):
    """Raise a ``ValueError`` naming ``name`` when a chunk of it holds NaN or infinity."""
    if not np.isfinite(values).all():
        raise ValueError(f"Input {name} contains NaN or infinity (found in a row chunk of the dask array).")


def chunk_moments(
    kernel, X_chunk, Z, right, y_chunk=None, *, gram=True, working_memory=None, check_finite=False
):
    """``(Bᵀ B, Bᵀ y)`` of one row chunk, ``B = K(X_chunk, Z) @ right``, in row blocks.

    With ``kernel="precomputed"``, ``X_chunk`` holds rows of the kernel matrix and ``Z`` the landmark
    column indices. ``Bᵀ y`` is computed as ``rightᵀ (K(X_chunk, Z)ᵀ y)``, so a pass that needs only
    the moment (``gram=False``) costs one kernel evaluation and a matrix-vector product per block.
    Either result is ``None`` when not requested. ``check_finite`` rejects NaN or infinity in the chunk
    (dask inputs are validated here, chunk by chunk, instead of up front).
    """
    X_chunk = np.asarray(X_chunk, dtype=np.float64)
    y_chunk = None if y_chunk is None else np.asarray(y_chunk, dtype=np.float64)
    if check_finite:
        check_finite_chunk(X_chunk, "X")
        if y_chunk is not None:
            check_finite_chunk(y_chunk, "y")
    precomputed = isinstance(kernel, str)
    width = right.shape[1]
    G = np.zeros((width, width)) if gram else None
    raw = None if y_chunk is None else np.zeros((len(Z),) + y_chunk.shape[1:])
    step = block_rows(len(Z), working_memory, copies=2)
    for start in range(0, X_chunk.shape[0], step):
        rows = slice(start, start + step)
        block = X_chunk[rows][:, Z] if precomputed else kernel(X_chunk[rows], Z)
        if raw is not None:
            raw += block.T @ y_chunk[rows]
        if gram:
            features = block @ right
            G += features.T @ features
    return G, (None if raw is None else right.T @ raw)


def _sum_moments(parts):
    grams = [part[0] for part in parts]
    moments = [part[1] for part in parts]
    return (None if grams[0] is None else sum(grams)), (None if moments[0] is None else sum(moments))


class KernelColumns:
    """Landmark columns of the kernel matrix of ``X``.

    Parameters
    ----------
    kernel : Kernel or "precomputed"
    X : ndarray or dask array of shape (n, d), or (n, n) when precomputed
        Validated by the caller (finite, 2-D, float64); a precomputed matrix must be symmetric.
    """

    def __init__(self, kernel, X):
        self.kernel = kernel
        self.precomputed = isinstance(kernel, str)
        self.distributed = is_dask_array(X)
        self.X = X
        if self.precomputed and not self.distributed:
            self.X = check_square_kernel(X, "X")
        self.n = X.shape[0]

    def _rows(self, indices):
        indices = np.asarray(indices)
        if self.distributed:
            order = np.argsort(indices)
            rows = np.asarray(self.X[indices[order]].compute(), dtype=np.float64)
            check_finite_chunk(rows, "X")
            return rows[np.argsort(order)]
        return self.X[indices]

    def points(self, indices):
        """What test points are compared with: the landmark rows of ``X``, or indices if precomputed."""
        return np.asarray(indices) if self.precomputed else self._rows(indices)

    def landmark_block(self, indices):
        """``K_ZZ`` (m×m, symmetrized)."""
        if self.precomputed:
            block = self._rows(indices)[:, np.asarray(indices)]
        else:
            block = self.kernel(self.points(indices))
        return 0.5 * (block + block.T)

    def columns(self, indices, rows=slice(None)):
        """``K(X[rows], Z)`` as an in-memory array (only for in-memory ``X``)."""
        if self.distributed:
            raise ValueError("X is a dask array: its kernel columns are only reduced, never materialized.")
        Z = self.points(indices)
        if self.precomputed:
            return self.X[rows][:, Z]
        return self.kernel(self.X[rows], Z)

    def column_blocks(self, indices, right, *, working_memory=None):
        """Yield ``K(X[rows], Z) @ right`` for consecutive row blocks within ``working_memory`` MiB."""
        if self.distributed:
            raise ValueError("X is a dask array: its kernel columns are only reduced, never materialized.")
        step = block_rows(len(indices), working_memory, copies=2)
        for start in range(0, self.n, step):
            rows = slice(start, min(start + step, self.n))
            yield rows, self.columns(indices, rows) @ right

    def moments(self, indices, right, y=None, *, gram=True, working_memory=None):
        """``(Bᵀ B, Bᵀ y)`` with ``B = K_XZ @ right``, accumulated over row chunks.

        For a dask ``X`` each chunk is reduced by a task (on the cluster when a ``distributed``
        client is active) and the partial sums are added; otherwise chunks of ``working_memory`` MiB
        are reduced in turn. ``y`` may be a NumPy or a dask array.
        """
        Z = self.points(indices)
        if not self.distributed:
            y = None if y is None else np.asarray(y, dtype=np.float64)
            if y is not None and y.shape[0] != self.n:
                raise ValueError(f"y has {y.shape[0]} rows but X has {self.n}.")
            return chunk_moments(self.kernel, self.X, Z, right, y, gram=gram, working_memory=working_memory)
        import dask

        X = self.X.rechunk({1: -1})
        row_chunks = X.chunks[0]
        x_blocks = X.to_delayed().ravel()
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
            task(self.kernel, xb, Z, right, yb, gram=gram, working_memory=working_memory, check_finite=True)
            for xb, yb in zip(x_blocks, y_blocks, strict=True)
        ]
        (result,) = dask.compute(dask.delayed(_sum_moments)(parts))
        return result

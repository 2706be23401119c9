"""Memory-bounded evaluation of large kernel matrices.

An n×m kernel block with n = 10⁶ and m = 10³ takes 8 GB; the low-rank methods of this library only
ever need reductions of it, such as the m×m Gram matrix ``K_XZᵀ K_XZ`` and the vector
``K_XZᵀ y`` (Oglic & Gärtner 2019, Sec. 2.4). :func:`kernel_blocks` yields row blocks sized to a
working-memory budget and :func:`streamed_gram` accumulates those reductions block by block, so that
the peak memory is the budget plus the m×m result, whatever n is.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._memory import MemoryBudget
from ._base import Kernel, float_array

__all__ = ["block_rows", "kernel_blocks", "streamed_gram"]


def block_rows(n_columns: int, working_memory: float | None = None, *, copies: int = 1) -> int:
    """Number of rows of an ``n_columns``-wide float64 block that fit in ``working_memory`` MiB.

    ``copies`` counts how many arrays of that shape a block computation holds at once. The default
    budget is scikit-learn's ``working_memory`` setting (``sklearn.set_config``); the rule is
    :meth:`krein._memory.MemoryBudget.rows`.
    """
    return MemoryBudget(working_memory).rows(n_columns, copies=copies)


def kernel_blocks(
    kernel: Kernel,
    X: ArrayLike,
    Y: ArrayLike | None = None,
    *,
    working_memory: float | None = None,
    rows_per_block: int | None = None,
    reuse: bool = False,
) -> Iterator[tuple[slice, NDArray[np.float64]]]:
    """Yield ``(rows, K[rows])`` for consecutive row slices of ``K(X, Y)`` within a memory budget.

    Parameters
    ----------
    kernel : Kernel
    X : array-like of shape (n_samples_X, n_features)
    Y : array-like of shape (n_samples_Y, n_features), default=None (``Y = X``)
    working_memory : float, default=None
        Budget in MiB for one block (scikit-learn's ``working_memory`` when None).
    rows_per_block : int, default=None
        Rows per block, instead of as many as ``working_memory`` holds.
    reuse : bool, default=False
        Write every block into one buffer: each yielded block is then a view that the next one
        overwrites. A streamed reduction that consumes each block before drawing the next saves the
        allocation and page faults of a fresh block per step (about 30 % of a pass over Gaussian
        blocks of 512×1000 in ``benchmarks/bench_logistic.py --streaming``).

    Yields
    ------
    rows : slice
    block : ndarray of shape (rows.stop - rows.start, n_samples_Y)
    """
    X = float_array(X, "X")
    Y = X if Y is None else float_array(Y, "Y")
    if rows_per_block is None:
        step = block_rows(Y.shape[0], working_memory)
    elif isinstance(rows_per_block, numbers.Integral) and rows_per_block >= 1:
        step = int(rows_per_block)
    else:
        raise ValueError(f"rows_per_block must be a positive integer, got {rows_per_block!r}.")
    if not reuse:
        for start in range(0, X.shape[0], step):
            rows = slice(start, min(start + step, X.shape[0]))
            yield rows, kernel(X[rows], Y)
        return
    X, Y = kernel._validate(X, Y)
    buffer = np.empty((min(step, X.shape[0]), Y.shape[0]))
    for start in range(0, X.shape[0], step):
        rows = slice(start, min(start + step, X.shape[0]))
        block = buffer[: rows.stop - start]
        kernel._fill_parallel(block, X[rows], Y)
        yield rows, block


def streamed_gram(
    kernel: Kernel,
    X: ArrayLike,
    Z: ArrayLike,
    y: ArrayLike | None = None,
    *,
    right: NDArray[np.float64] | None = None,
    working_memory: float | None = None,
) -> NDArray[np.float64] | tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Accumulate ``Bᵀ B`` (and ``Bᵀ y``) over row blocks of ``B = K(X, Z) @ right``.

    Never holds more than one row block of ``K(X, Z)``: with ``n = len(X)`` and ``m = len(Z)`` the
    peak memory is ``working_memory`` plus the ``m×m`` (or ``r×r``) result.

    Parameters
    ----------
    kernel : Kernel
    X : array-like of shape (n_samples, n_features)
        Rows of the block (the large dimension).
    Z : array-like of shape (n_landmarks, n_features)
        Columns of the block (landmarks).
    y : array-like of shape (n_samples,) or (n_samples, n_targets), default=None
        If given, ``Bᵀ y`` is accumulated too.
    right : ndarray of shape (n_landmarks, r), default=None
        Optional linear map applied to each block before the reduction (e.g. ``U |Λ|^{-1/2}`` for
        Nyström features).
    working_memory : float, default=None
        Budget in MiB for one block.

    Returns
    -------
    gram : ndarray of shape (r, r)
    moment : ndarray of shape (r,) or (r, n_targets), only if ``y`` is given
    """
    X = float_array(X, "X")
    Z = float_array(Z, "Z")
    if y is not None:
        y = np.asarray(y, dtype=np.float64)
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"y has {y.shape[0]} rows but X has {X.shape[0]}.")
    width = Z.shape[0] if right is None else right.shape[1]
    copies = 1 if right is None else 2
    step = block_rows(Z.shape[0], working_memory, copies=copies)
    gram = np.zeros((width, width))
    moment = np.zeros((width,) + (() if y is None else y.shape[1:]))
    for start in range(0, X.shape[0], step):
        rows = slice(start, min(start + step, X.shape[0]))
        block = kernel(X[rows], Z)
        if right is not None:
            block = block @ right
        gram += block.T @ block
        if y is not None:
            moment += block.T @ y[rows]
        del block  # release before the next block is allocated: one block alive at a time
    return gram if y is None else (gram, moment)

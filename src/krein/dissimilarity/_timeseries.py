"""Dynamic time warping distances between univariate time series, on top of dtaidistance."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from .._memory import MemoryBudget
from ._blocks import Metric, check_collection, evaluate, tiling_doc

__all__ = ["dtw_distances"]


class DTW(Metric):
    """DTW (not squared) between univariate series, by dtaidistance's C routine; see :func:`dtw_distances`."""

    name = "dtw"
    parameters = {"window": None}
    homogeneous = True

    def check(self, X, name: str) -> list[np.ndarray]:
        return check_collection(
            X,
            name,
            item_ndim=1,
            collection="a 2-d array (n_series, length) or a list of 1-d series",
            item_shape="(length >= 1,)",
        )

    def check_params(self, params: dict) -> dict:
        window = params["window"]
        if window is not None and (
            isinstance(window, bool) or not isinstance(window, int | np.integer) or window < 1
        ):
            raise ValueError(
                f"window must be None (no band) or a positive integer (1: the diagonal only), got {window!r}"
            )
        return params

    def infinite_message(self, params: dict) -> str:
        return (
            f"DTW is infinite for some pairs: with window={params['window']}, series whose lengths differ "
            "by more than the window cannot be aligned; increase window."
        )

    def tiles(self, a, b, symmetric, params, n_jobs, working_memory):
        from dtaidistance import dtw
        from threadpoolctl import threadpool_limits

        kwargs = {} if params["window"] is None else {"window": int(params["window"])}

        def matrix(series, **block):
            # dtaidistance's C matrix routine holds the GIL: the threads are its own OpenMP ones.
            # Pruning (cells above the Euclidean bound ub are skipped, Silva & Batista's PrunedDTW)
            # never changes a finite result: the optimal path's partial sums are at most DTW <= ub.
            with threadpool_limits(limits=n_jobs, user_api="openmp"):
                values = dtw.distance_matrix_fast(
                    series, compact=True, parallel=n_jobs > 1, use_pruning=True, **block, **kwargs
                )
            return np.asarray(values, dtype=np.float64)

        def exact_where_abandoned(values, rows, cols):
            # dtaidistance 2.5 abandons (inf) the pairs whose DTW equals the bound up to rounding
            # (an optimal diagonal path, e.g. ItalyPowerDemand rows 14 and 38): those are recomputed
            # without pruning (inf remains where the window makes the pair unalignable)
            for k in np.flatnonzero(~np.isfinite(values)):
                values[k] = dtw.distance_fast(a[rows[k]], b[cols[k]], use_pruning=False, **kwargs)
            return values

        def tile(r0, r1, c0, c1, diagonal):
            if diagonal:  # the strict upper triangle, each unordered pair once
                rows, cols = np.triu_indices(r1 - r0, k=1)
                values = exact_where_abandoned(matrix(a[r0:r1]), r0 + rows, r0 + cols)
                D = np.zeros((r1 - r0, r1 - r0))
                D[rows, cols] = values
                D[cols, rows] = values
                return D
            nr = r1 - r0
            values = matrix(a[r0:r1] + b[c0:c1], block=((0, nr), (nr, nr + c1 - c0)))
            bad = np.flatnonzero(~np.isfinite(values))
            rows, cols = np.divmod(bad, c1 - c0)
            values[bad] = exact_where_abandoned(values[bad], r0 + rows, c0 + cols)
            return values.reshape(nr, c1 - c0)

        # dtaidistance's result and its copy, the tile, the pair indices of a diagonal tile and the
        # temporaries of its mirroring: about 128 bytes a pair (measured); the tiles run one after
        # the other, each on n_jobs OpenMP threads
        return tile, MemoryBudget(working_memory).tile(128.0, max_tile=1024), 1


@tiling_doc
def dtw_distances(
    A: Sequence[ArrayLike],
    B: Sequence[ArrayLike] | None = None,
    *,
    window: int | None = None,
    n_jobs: int | None = None,
    working_memory: float | None = None,
) -> np.ndarray:
    """Pairwise dynamic time warping distances between univariate series.

    For series a (length p) and b (length q) the distance is **not squared**:

    .. math::

        \\mathrm{DTW}(a, b) = \\Big(\\min_{\\pi} \\sum_{(i, j) \\in \\pi} (a_i - b_j)^2\\Big)^{1/2},

    the minimum running over warping paths π from (1, 1) to (p, q) with steps (1, 0), (0, 1),
    (1, 1).  This is dtaidistance's definition (its C implementation does the work); for
    equal-length series with the path forced onto the diagonal (``window=1``) it is the
    Euclidean distance.  DTW is not a metric, and the kernel obtained from it by double
    centering is in general indefinite.  The same as ``pairwise_distances(A, B, metric="dtw")``.

    Parameters
    ----------
    A : array of shape (n_a, length) or list of 1-d arrays (lengths may differ)
    B : same, or None
        ``None`` computes ``A`` against itself (symmetric, each pair evaluated once).
    window : positive int or None
        Sakoe–Chiba band, dtaidistance's ``window``: only cells with ``|i - j| < window`` are
        allowed (so ``window=1`` is the diagonal; for series of different lengths the band is
        widened by the length difference).  ``None``: no constraint.  ``window=0`` would allow no
        cell at all and is rejected.
    {tiling_parameters}

    Returns
    -------
    D : ndarray of shape (n_a, n_b), float64
    """
    return evaluate(DTW(), A, B, window=window, n_jobs=n_jobs, working_memory=working_memory)

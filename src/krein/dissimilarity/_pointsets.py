"""Hausdorff distances between finite point sets."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike
from scipy.spatial.distance import cdist

from .._memory import CACHE_BUDGET, MemoryBudget
from ._blocks import Metric, check_collection, evaluate, tiling_doc

__all__ = ["hausdorff_distances"]


class Hausdorff(Metric):
    """(Modified) Hausdorff distance between point sets; see :func:`hausdorff_distances`."""

    name = "hausdorff"
    parameters = {"variant": "max"}
    homogeneous = True

    def check(self, X, name: str) -> list[np.ndarray]:
        out = check_collection(
            X,
            name,
            item_ndim=2,
            collection="a 3-d array (n_sets, n_points, dim) or a list of (n_points, dim) arrays",
            item_shape="(n_points >= 1, dim)",
        )
        dims = {s.shape[1] for s in out}
        if len(dims) > 1:
            raise ValueError(f"the point sets of {name} have different dimensions {sorted(dims)}")
        return out

    def check_params(self, params: dict) -> dict:
        if params["variant"] not in ("max", "modified"):
            raise ValueError(f"variant must be 'max' or 'modified', got {params['variant']!r}")
        return params

    def check_pair(self, a, b) -> None:
        if a and b and a[0].shape[1] != b[0].shape[1]:
            raise ValueError(f"A holds {a[0].shape[1]}-d points but B {b[0].shape[1]}-d points")

    def tiles(self, a, b, symmetric, params, n_jobs, working_memory):
        variant = params["variant"]
        budget = MemoryBudget(working_memory)
        len_a = np.array([len(s) for s in a])
        len_b = np.array([len(s) for s in b])

        def reduce_sets(values, lens, axis):
            # max (or mean) over the points of each set along ``axis``
            starts = np.r_[0, np.cumsum(lens)[:-1]]
            if variant == "max":
                return np.maximum.reduceat(values, starts, axis=axis)
            total = np.add.reduceat(values, starts, axis=axis)
            return total / (lens[:, None] if axis == 0 else lens[None, :])

        def tile(r0, r1, c0, c1, diagonal):
            # The point-to-point distances of the tile, in blocks of rows of points within the budget
            # (never the whole |P| × |Q| matrix: a few sets of many points would exceed it), reduced to
            # min_{q ∈ Qⱼ} ‖p − q‖ for every point p and set Qⱼ, and min_{p ∈ Pᵢ} ‖p − q‖ for every q, Pᵢ.
            P, Q = np.concatenate(a[r0:r1]), np.concatenate(b[c0:c1])
            rows_lens, cols_lens = len_a[r0:r1], len_b[c0:c1]
            set_of_row = np.repeat(np.arange(r1 - r0), rows_lens)
            seg_b = np.r_[0, np.cumsum(cols_lens)[:-1]]
            to_q = np.empty((len(P), c1 - c0))  # min over each column set, per point of P
            to_p = np.full((r1 - r0, len(Q)), np.inf)  # min over each row set, per point of Q
            step = budget.rows(len(Q), copies=2, high=CACHE_BUDGET.rows(len(Q), copies=2))
            for start in range(0, len(P), step):
                stop = min(len(P), start + step)
                D = cdist(P[start:stop], Q)
                to_q[start:stop] = np.minimum.reduceat(D, seg_b, axis=1)
                sets = set_of_row[start:stop]
                local = np.flatnonzero(np.r_[True, sets[1:] != sets[:-1]])
                touched = sets[local]
                to_p[touched] = np.minimum(to_p[touched], np.minimum.reduceat(D, local, axis=0))
                del D
            h_ab = reduce_sets(to_q, rows_lens, axis=0)
            h_ba = reduce_sets(to_p, cols_lens, axis=1)
            H = np.maximum(h_ab, h_ba)
            if diagonal:
                H = np.maximum(H, H.T)
                np.fill_diagonal(H, 0.0)
            return H

        # a tile holds the per-point minima (|P| × tile and tile × |Q|) besides its block of distances
        mean_points = max(1.0, 0.5 * (float(np.mean(len_a)) + float(np.mean(len_b)))) if a and b else 1.0
        return tile, budget.tile(8.0 * 2 * mean_points, low=1), n_jobs


@tiling_doc
def hausdorff_distances(
    A: Sequence[ArrayLike],
    B: Sequence[ArrayLike] | None = None,
    *,
    variant: str = "max",
    n_jobs: int | None = None,
    working_memory: float | None = None,
) -> np.ndarray:
    """Pairwise Hausdorff distances between point sets (Euclidean ground distance).

    With h(P, Q) = max_{p∈P} min_{q∈Q} ‖p − q‖ the directed distance,

    * ``variant="max"``: H(P, Q) = max(h(P, Q), h(Q, P)) (the Hausdorff metric);
    * ``variant="modified"``: Dubuisson & Jain's modified Hausdorff distance
      max(h̄(P, Q), h̄(Q, P)) with h̄(P, Q) = mean_{p∈P} min_{q∈Q} ‖p − q‖ (not a metric).

    Oglic & Gärtner (2018), Table 2, use Hausdorff distances on the pdish57/pdism57 data.  All
    point-to-point distances of a tile are computed at once and reduced per set.  The same as
    ``pairwise_distances(A, B, metric="hausdorff")``.

    Parameters
    ----------
    A : list of arrays of shape (n_points_i, dim), or an array (n_sets, n_points, dim)
    B : same, or None
        ``None`` computes ``A`` against itself (symmetric, each pair once).
    variant : {"max", "modified"}
    {tiling_parameters}

    Returns
    -------
    D : ndarray of shape (n_a, n_b), float64
    """
    return evaluate(Hausdorff(), A, B, variant=variant, n_jobs=n_jobs, working_memory=working_memory)

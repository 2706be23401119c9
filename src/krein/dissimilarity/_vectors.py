"""Euclidean distances between vectors, computed from the differences (no cancellation)."""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist

from .._memory import MemoryBudget
from ._blocks import Metric, check_collection

__all__ = ["Euclidean"]


class Euclidean(Metric):
    """d(a, b) = ‖a − b‖₂ = (Σᵢ (aᵢ − bᵢ)²)^{1/2}, summed over the differences themselves.

    The expansion ‖a‖² + ‖b‖² − 2 a·b (scikit-learn's ``euclidean_distances``) loses every digit
    when ‖a − b‖ ≪ ‖a‖; the differences do not.
    """

    name = "euclidean"
    homogeneous = True

    def check(self, X, name: str) -> np.ndarray:
        items = check_collection(
            X,
            name,
            item_ndim=1,
            collection="a 2-d array (n_samples, n_features) or a list of 1-d vectors",
            item_shape="(n_features >= 1,)",
        )
        for i, x in enumerate(items):
            if x.shape != items[0].shape:
                raise ValueError(f"{name}[{i}] has {x.shape[0]} features, {name}[0] has {items[0].shape[0]}")
        return np.array(items).reshape(len(items), -1)

    def check_pair(self, a, b) -> None:
        if len(a) and len(b) and a.shape[1] != b.shape[1]:
            raise ValueError(f"A has {a.shape[1]} features but B has {b.shape[1]}")

    def tiles(self, a, b, symmetric, params, n_jobs, working_memory):
        def tile(r0, r1, c0, c1, diagonal):
            return cdist(a[r0:r1], b[c0:c1])  # exactly symmetric with a zero diagonal when r = c

        return tile, MemoryBudget(working_memory).tile(8.0), n_jobs

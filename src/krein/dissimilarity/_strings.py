"""Edit (Levenshtein) distances between strings, on top of rapidfuzz."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._memory import MemoryBudget
from ._blocks import Metric, evaluate, tiling_doc

__all__ = ["edit_distances"]


class Edit(Metric):
    """Levenshtein distance between strings, by rapidfuzz; see :func:`edit_distances`."""

    name = "edit"
    parameters = {"normalized": False}

    def check(self, X, name: str) -> list[str]:
        if isinstance(X, str | bytes):
            raise TypeError(f"{name} must be a sequence of strings, not a single string")
        if isinstance(X, np.ndarray):
            if X.ndim != 1:
                raise ValueError(f"{name} must be a 1-d sequence of strings, got shape {X.shape}")
            X = X.tolist()
        try:
            items = list(X)
        except TypeError:
            raise TypeError(f"{name} must be a sequence of strings, got {type(X).__name__}") from None
        for i, s in enumerate(items):
            if not isinstance(s, str):
                raise TypeError(f"{name}[{i}] is a {type(s).__name__}, expected str")
        return items

    def check_params(self, params: dict) -> dict:
        if not isinstance(params["normalized"], bool | np.bool_):
            raise TypeError(f"normalized must be True or False, got {params['normalized']!r}")
        return params

    def tiles(self, a, b, symmetric, params, n_jobs, working_memory):
        from rapidfuzz.distance import Levenshtein
        from rapidfuzz.process import cdist

        scorer = Levenshtein.normalized_distance if params["normalized"] else Levenshtein.distance

        def tile(r0, r1, c0, c1, diagonal):
            if diagonal:
                block = a[r0:r1]
                # same object for queries and choices: rapidfuzz evaluates each pair once
                return cdist(block, block, scorer=scorer, dtype=np.float64, workers=n_jobs)
            return cdist(a[r0:r1], b[c0:c1], scorer=scorer, dtype=np.float64, workers=n_jobs)

        # rapidfuzz parallelises inside a tile; the tiles themselves run one after the other
        return tile, MemoryBudget(working_memory).tile(8.0), 1


@tiling_doc
def edit_distances(
    A: Sequence[str],
    B: Sequence[str] | None = None,
    *,
    normalized: bool = False,
    n_jobs: int | None = None,
    working_memory: float | None = None,
) -> np.ndarray:
    """Pairwise Levenshtein (edit) distances between strings.

    The edit distance is the least number of single-character insertions, deletions and
    substitutions (each of cost one) that turn one string into the other; it is a metric, but
    −½ H (D∘D) H is in general indefinite (Oglic & Gärtner 2018, Table 2 uses it on
    chicken-piece contours; here it serves the splice DNA strings).  Computed by rapidfuzz's
    bit-parallel C++ implementation (``rapidfuzz.distance.Levenshtein``).  The same as
    ``pairwise_distances(A, B, metric="edit")``.

    Parameters
    ----------
    A : sequence of str, length n_a
    B : sequence of str, length n_b, or None
        ``None`` computes ``A`` against itself: the result is symmetric with a zero diagonal, and
        every unordered pair is evaluated once.
    normalized : bool, default=False
        Divide each distance by ``max(len(a), len(b))`` (0 for two empty strings).
    {tiling_parameters}

    Returns
    -------
    D : ndarray of shape (n_a, n_b), float64
    """
    return evaluate(Edit(), A, B, normalized=normalized, n_jobs=n_jobs, working_memory=working_memory)

"""One memory budget behind every blocked loop of :mod:`krein`.

A blocked loop (kernel rows against landmarks, tiles of pairwise distances, batches of small
factorizations, the row chunk a thread evaluates) holds a few arrays whose size grows with the block.
:class:`MemoryBudget` sizes every such block by one rule, :meth:`MemoryBudget.count`: as many items
as fit in the budget, within bounds. The budget is ``working_memory`` MiB, by default scikit-learn's
``working_memory`` setting (``sklearn.set_config``), the peak a user controls; :data:`CACHE_BUDGET`
is the budget of blocks that are meant to stay in the processor's cache (a thread's chunk of a
kernel matrix, the blocks of a streamed gradient pass), which are also bounded by the user's budget
where it is smaller.

Whether an n×n method fits in memory at all is checked once, by
:func:`krein._base.check_kernel_memory` against the memory the process can really get (the machine's,
its cgroup's and its ``RLIMIT_AS`` limit).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

from sklearn import get_config

__all__ = ["CACHE_BUDGET", "MemoryBudget"]


@dataclass(frozen=True)
class MemoryBudget:
    """A budget of ``working_memory`` MiB for one block of a blocked loop.

    Parameters
    ----------
    working_memory : float or None, default=None
        MiB; None: scikit-learn's ``working_memory`` setting, read when a block is sized.
    """

    working_memory: float | None = None

    def __post_init__(self):
        if self.working_memory is not None:
            _check_mib(self.working_memory)

    @property
    def nbytes(self) -> float:
        """The budget in bytes (scikit-learn's ``working_memory`` read now when None)."""
        if self.working_memory is None:
            return _check_mib(get_config()["working_memory"]) * 2**20
        return float(self.working_memory) * 2**20

    def count(self, item_bytes: float, *, low: int = 1, high: int | None = None) -> int:
        """The block-size rule: how many items of ``item_bytes`` bytes fit in the budget, at least
        ``low`` and at most ``high``."""
        fitting = int(self.nbytes // max(float(item_bytes), 1.0))
        return max(low, fitting if high is None else min(fitting, high))

    def rows(self, n_columns: int, *, copies: int = 1, high: int | None = None) -> int:
        """Rows of an ``n_columns``-wide float64 block, ``copies`` arrays of that shape held at once."""
        return self.count(8 * max(1, n_columns) * max(1, copies), high=high)

    def tile(self, bytes_per_pair: float, *, max_tile: int = 4096, low: int = 16) -> int:
        """Edge ``t`` of a square tile of pairs: ``t² · bytes_per_pair`` within the budget, in
        [low, max_tile] (``low=1`` where one pair may already cost much: point sets)."""
        return max(low, min(max_tile, math.isqrt(self.count(bytes_per_pair, low=0))))

    def within(self, other: MemoryBudget) -> MemoryBudget:
        """The smaller of the two budgets."""
        return self if self.nbytes <= other.nbytes else other


def _check_mib(working_memory):
    """``working_memory`` as a float, or a clear error for anything but a positive, finite number."""
    if isinstance(working_memory, bool) or not (
        isinstance(working_memory, numbers.Real) and math.isfinite(working_memory) and working_memory > 0
    ):
        raise ValueError(f"working_memory must be a positive number of MiB, got {working_memory!r}.")
    return float(working_memory)


#: Blocks meant to stay in cache: 4 MiB (a thread's chunk of a kernel matrix, 2¹⁹ doubles; the row
#: blocks of a streamed gradient pass, which were 1.2× slower when larger at m = 1000).
CACHE_BUDGET = MemoryBudget(4.0)

"""The one memory budget: every block size of the library follows ``MemoryBudget.count``."""

import itertools
import math

import pytest
from sklearn import config_context

from krein._memory import CACHE_BUDGET, MemoryBudget


@pytest.mark.parametrize(
    ("n_columns", "working_memory", "copies"),
    itertools.product([1, 7, 1000, 12345, 10**9], [0.01, 1, 3.7, 1024], [1, 2, 3]),
)
def test_rows_are_the_rows_of_that_width_within_the_budget(n_columns, working_memory, copies):
    expected = max(1, int(working_memory * 2**20 // (8 * n_columns * copies)))
    assert MemoryBudget(working_memory).rows(n_columns, copies=copies) == expected


@pytest.mark.parametrize(
    ("bytes_per_pair", "working_memory", "max_tile"),
    itertools.product([1, 8, 160, 216.0, 1e9], [0.01, 1, 3.7, 1024], [512, 4096]),
)
def test_a_tile_of_pairs_fits_the_budget(bytes_per_pair, working_memory, max_tile):
    tile = MemoryBudget(working_memory).tile(bytes_per_pair, max_tile=max_tile)
    assert tile == max(16, min(max_tile, int(math.sqrt(working_memory * 2**20 / bytes_per_pair))))
    assert tile == 16 or tile == max_tile or tile**2 * bytes_per_pair <= working_memory * 2**20


def test_bounds_cache_budget_and_the_default_budget():
    assert MemoryBudget(1).count(8, high=100) == 100
    assert MemoryBudget(1).count(2**30) == 1 and MemoryBudget(1).count(2**30, low=0) == 0
    assert CACHE_BUDGET.rows(1000) == 524  # 4 MiB of 1000-wide float64 rows
    assert MemoryBudget(1024).within(CACHE_BUDGET) is CACHE_BUDGET
    with config_context(working_memory=2):
        assert MemoryBudget().rows(1) == 2 * 2**20 // 8


@pytest.mark.parametrize("bad", [0, -1.0, float("inf"), float("nan"), True, "1"])
def test_a_bad_budget_is_named(bad):
    with pytest.raises(ValueError, match="working_memory must be a positive number of MiB"):
        MemoryBudget(bad)

"""Memory-bounded block evaluation and streamed Gram reductions."""

import tracemalloc

import numpy as np
import pytest

from krein.kernels import DeltaGaussian, Gaussian, block_rows, kernel_blocks, streamed_gram

RNG = np.random.default_rng(0)


def test_kernel_blocks_cover_all_rows():
    X, Y = RNG.normal(size=(103, 4)), RNG.normal(size=(17, 4))
    kernel = DeltaGaussian()
    blocks = list(kernel_blocks(kernel, X, Y, working_memory=17 * 8 * 10 / 2**20))
    assert [b.shape[0] for _, b in blocks] == [10] * 10 + [3]
    np.testing.assert_allclose(np.vstack([b for _, b in blocks]), kernel(X, Y))


@pytest.mark.parametrize("kernel", [Gaussian(1.5), DeltaGaussian()])
def test_reused_kernel_blocks_are_views_of_one_buffer_with_the_same_entries(kernel):
    X, Y = RNG.normal(size=(103, 4)), RNG.normal(size=(17, 4))
    fresh = [(rows, block.copy()) for rows, block in kernel_blocks(kernel, X, Y, rows_per_block=10)]
    assert [rows.stop - rows.start for rows, _ in fresh] == [10] * 10 + [3]
    first = None
    for (rows, block), (fresh_rows, fresh_block) in zip(
        kernel_blocks(kernel, X, Y, rows_per_block=10, reuse=True), fresh, strict=True
    ):
        first = block if first is None else first
        assert rows == fresh_rows and np.shares_memory(block, first)
        np.testing.assert_array_equal(block, fresh_block)


@pytest.mark.parametrize("rows_per_block", [0, 2.5, "10"])
def test_kernel_blocks_reject_a_bad_rows_per_block(rows_per_block):
    with pytest.raises(ValueError, match="rows_per_block must be a positive integer"):
        next(kernel_blocks(Gaussian(), RNG.normal(size=(5, 2)), rows_per_block=rows_per_block))


def test_streamed_gram_equals_dense():
    X, Z, y = RNG.normal(size=(500, 5)), RNG.normal(size=(40, 5)), RNG.normal(size=500)
    right = RNG.normal(size=(40, 7))
    kernel = Gaussian(1.5)
    B = kernel(X, Z)
    gram, moment = streamed_gram(kernel, X, Z, y, working_memory=0.01)
    np.testing.assert_allclose(gram, B.T @ B, rtol=1e-12)
    np.testing.assert_allclose(moment, B.T @ y, rtol=1e-12)
    mapped = streamed_gram(kernel, X, Z, right=right, working_memory=0.01)
    np.testing.assert_allclose(mapped, (B @ right).T @ (B @ right), rtol=1e-12)


def test_streamed_gram_never_holds_the_full_block():
    n, m = 40_000, 250  # the full block is 80 MB
    X, Z = RNG.normal(size=(n, 3)), RNG.normal(size=(m, 3))
    tracemalloc.start()
    streamed_gram(Gaussian(), X, Z, working_memory=4)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 20 * 2**20, peak / 2**20


def test_block_rows_budget():
    assert block_rows(1000, working_memory=1) == 2**20 // 8000
    assert block_rows(10**9, working_memory=1) == 1
    with pytest.raises(ValueError, match="working_memory"):
        block_rows(10, working_memory=0)

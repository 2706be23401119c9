"""``single_threaded_blas``: one process-wide, re-entrant BLAS limit, restored under nesting and threads."""

import threading
from contextlib import ExitStack

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from threadpoolctl import threadpool_info, threadpool_limits

from krein._threads import single_threaded_blas


def _blas_threads():
    counts = {pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"}
    if not counts:
        pytest.skip("no BLAS library reports its thread count")
    return counts


@pytest.fixture
def two_blas_threads():
    """BLAS at two threads (OpenBLAS caps the count at the number of cores; CI has two)."""
    with threadpool_limits(2, user_api="blas"):
        if _blas_threads() != {2}:
            pytest.skip("the BLAS library cannot be set to 2 threads")
        yield


def test_nested_sections_restore_the_outer_count(two_blas_threads):
    with single_threaded_blas():
        assert _blas_threads() == {1}
        with single_threaded_blas():
            assert _blas_threads() == {1}
        assert _blas_threads() == {1}  # the inner exit must not restore the outer section's count
    assert _blas_threads() == {2}


class _FakeBlas:
    """A stand-in for threadpoolctl's controller with one process-wide thread count.

    (OpenBLAS 0.3.31 ignores ``openblas_set_num_threads`` from threads other than the main one, so
    the interleaving of two threads is checked on this model of a process-wide BLAS setting.)
    """

    def __init__(self, count):
        self.count = count

    def limit(self, limits, user_api):
        blas, saved = self, self.count
        self.count = limits

        class Limiter:
            def restore_original_limits(self):
                blas.count = saved

        return Limiter()


@pytest.mark.parametrize("last_out", ["first", "second"])
def test_overlapping_sections_of_two_threads_restore_the_count(monkeypatch, last_out):
    """Thread A opens, B opens, then one closes and the other: a section that restored on its own
    exit let B restore the single-threaded count that A had set, so BLAS stayed single-threaded for
    the rest of the process."""
    from krein import _threads

    blas = _FakeBlas(3)
    monkeypatch.setattr(_threads, "_controller", lambda: blas)
    a_in, b_in, one_out = threading.Event(), threading.Event(), threading.Event()
    seen = []

    def section(opened, wait_for, leaves_first):
        with single_threaded_blas():
            opened.set()
            wait_for.wait(5)
            if not leaves_first:
                one_out.wait(5)
                seen.append(blas.count)  # the other section has closed, this one is still open
        if leaves_first:
            one_out.set()

    a = threading.Thread(target=section, args=(a_in, b_in, last_out == "second"))
    b = threading.Thread(target=section, args=(b_in, a_in, last_out == "first"))
    a.start()
    a_in.wait(5)
    b.start()
    for thread in (a, b):
        thread.join(10)
    assert seen == [1]
    assert blas.count == 3


def test_an_exception_inside_a_section_still_restores(two_blas_threads):
    with pytest.raises(RuntimeError), single_threaded_blas():
        raise RuntimeError("boom")
    assert _blas_threads() == {2}


@settings(max_examples=25, deadline=None, derandomize=True)
@given(order=st.permutations(range(6)))
def test_single_threaded_sections_restore_under_any_order(monkeypatch_module, order):
    """Open six sections, close them in any order (as threads would): one thread while any is open,
    the original count once all are closed."""
    from krein import _threads

    blas = _FakeBlas(4)
    monkeypatch_module.setattr(_threads, "_controller", lambda: blas)
    sections = [ExitStack() for _ in range(6)]
    for stack in sections:
        stack.enter_context(_threads.single_threaded_blas())
    for closed, index in enumerate(order, start=1):
        sections[index].close()
        assert blas.count == (4 if closed == 6 else 1)


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch

"""``single_threaded_blas``: one process-wide, re-entrant BLAS limit, restored under nesting and threads."""

import threading
from contextlib import ExitStack

import numpy as np
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
        self.lib_controllers = [self]

    @property
    def num_threads(self):
        return self.count

    def select(self, user_api):
        return self

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
def test_single_threaded_sections_restore_under_any_order(order):
    """Open six sections, close them in any order (as threads would): one thread while any is open,
    the original count once all are closed."""
    from krein import _threads

    blas = _FakeBlas(4)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_threads, "_controller", lambda: blas)
        sections = [ExitStack() for _ in range(6)]
        for stack in sections:
            stack.enter_context(_threads.single_threaded_blas())
        for closed, index in enumerate(order, start=1):
            sections[index].close()
            assert blas.count == (4 if closed == 6 else 1)


# -- the policy: one BLAS thread for small problems and inside krein's parallel loops ------------------


def _recording_eigh(monkeypatch):
    """Record the BLAS thread counts in force when ``krein.spectral`` calls ``scipy.linalg.eigh``."""
    import scipy.linalg

    from krein import spectral

    seen, eigh = [], scipy.linalg.eigh

    class Linalg:
        def __getattr__(self, name):
            return getattr(scipy.linalg, name)

        @staticmethod
        def eigh(*args, **kwargs):
            seen.append(_blas_threads())
            return eigh(*args, **kwargs)

    monkeypatch.setattr(spectral.scipy, "linalg", Linalg())
    return seen


def _symmetric(n, seed=0):
    A = np.random.default_rng(seed).standard_normal((n, n))
    return A + A.T


def test_a_small_eigendecomposition_runs_on_one_blas_thread(two_blas_threads, monkeypatch):
    from krein.spectral import eigendecompose

    seen = _recording_eigh(monkeypatch)
    eigendecompose(_symmetric(50))
    assert seen == [{1}]
    assert _blas_threads() == {2}  # restored


def test_a_large_eigendecomposition_keeps_the_limit_in_force(two_blas_threads, monkeypatch):
    from krein import _threads
    from krein.spectral import eigendecompose

    monkeypatch.setattr(_threads, "SMALL_PROBLEM_ROWS", 40)  # 50 rows count as large
    seen = _recording_eigh(monkeypatch)
    eigendecompose(_symmetric(50))
    assert seen == [{2}]
    with threadpool_limits(1, user_api="blas"):  # the user's limit of one is kept, never raised
        eigendecompose(_symmetric(50, seed=1))
    assert seen == [{2}, {1}]


def test_an_enclosing_user_limit_is_never_raised(two_blas_threads):
    from krein._threads import blas_for_rows, blas_threads, parallel_loop

    with threadpool_limits(1, user_api="blas"):
        for section in (blas_for_rows(10), blas_for_rows(10**6), parallel_loop(2), parallel_loop(1)):
            with section:
                assert _blas_threads() == {1}
            assert _blas_threads() == {1}
    assert blas_threads() == 2


def test_an_estimator_fit_on_few_rows_runs_on_one_blas_thread(two_blas_threads):
    from krein import _threads
    from krein.least_squares import KreinRidgeClassifier

    seen = []

    class Recording(KreinRidgeClassifier):
        def _fit_representation(self, *args, **kwargs):
            seen.append(_blas_threads())
            return super()._fit_representation(*args, **kwargs)

    X = np.random.default_rng(0).standard_normal((60, 3))
    y = (X[:, 0] > 0).astype(int)
    Recording(kernel="rbf").fit(X, y)
    assert seen == [{1}]
    assert _blas_threads() == {2}
    assert 60 < _threads.SMALL_PROBLEM_ROWS


def _recording_scorer(seen):
    def scorer(model, X, y):
        seen.append(_threads_now())
        return float(np.mean(model.predict(X) == y))

    return scorer


def _threads_now():
    from krein._threads import blas_threads

    return blas_threads()


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_the_inner_folds_of_the_family_search_run_on_one_blas_thread(two_blas_threads, monkeypatch, n_jobs):
    """KreinClassifierCV on a small problem: every fold fit sees one BLAS thread, whether the folds
    run in sequence (the size rule) or on two threads (the loop rule); the limit is restored."""
    from krein import _threads
    from krein.model_selection import KreinClassifierCV

    X = np.random.default_rng(0).standard_normal((60, 3))
    y = (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)
    seen = []
    search = KreinClassifierCV(kernel="rbf", methods=["Kreĭn LS"], cv=3, n_jobs=n_jobs)
    search.set_params(scoring=_recording_scorer(seen)).fit(X, y)
    assert seen and set(seen) == {1}
    assert _blas_threads() == {2}
    # Loop rule alone: with the size rule off, the folds on two threads still see one BLAS thread,
    # the folds in sequence the user's two.
    monkeypatch.setattr(_threads, "SMALL_PROBLEM_ROWS", 0)
    seen.clear()
    search.fit(X, y)
    assert set(seen) == ({2} if n_jobs is None else {1})


def test_a_joblib_context_makes_the_loop_rule_count_its_workers():
    import joblib

    from krein import _threads
    from krein._threads import _open_sections, parallel_loop

    with joblib.parallel_config(backend="threading", n_jobs=2), parallel_loop(None):
        assert _threads._open_sections == _open_sections + 1
    with parallel_loop(None), parallel_loop(1):
        assert _threads._open_sections == _open_sections


def test_distance_tiles_on_several_threads_run_on_one_blas_thread(two_blas_threads):
    from krein.dissimilarity._blocks import pairwise_tiles

    seen = []

    def tile(r0, r1, c0, c1, diagonal):
        seen.append(_threads_now())
        return np.zeros((r1 - r0, c1 - c0))

    pairwise_tiles(tile, 8, 8, symmetric=False, tile=2, n_jobs=2)
    assert set(seen) == {1}
    assert _blas_threads() == {2}


def test_a_section_under_a_limit_of_one_sets_nothing(monkeypatch):
    """The first section reads the limit in force: at one already (the user's), it neither sets nor
    restores anything."""
    from krein import _threads

    blas = _FakeBlas(1)
    monkeypatch.setattr(blas, "limit", lambda limits, user_api: pytest.fail("set a limit of one again"))
    monkeypatch.setattr(_threads, "_controller", lambda: blas)
    with _threads.single_threaded_blas(), _threads.blas_for_rows(10):
        assert blas.count == 1
    assert blas.count == 1 and _threads._limiter is None


def test_a_fit_under_the_policy_still_warns_at_the_users_line():
    """The policy is a ``with`` block inside ``fit``, not a decorator: no frame between the user's call
    and the fit, so the ``stacklevel`` of its warnings still names the user's line."""
    from krein.least_squares import KreinRidgeClassifier

    X = np.random.default_rng(0).standard_normal((30, 3))
    y = (X[:, 0] > 0).astype(int)
    with pytest.warns(UserWarning) as record:
        KreinRidgeClassifier(kernel="rbf", n_components=50).fit(X, y)
    assert {warning.filename for warning in record} == {__file__}

"""krein's thread policy, in one place.

krein owns its threads: a user who sets no environment variable gets the same speed as one who runs
with ``OPENBLAS_NUM_THREADS=1``. Two rules decide how many threads BLAS (OpenBLAS, MKL, ...) runs on:

1. **Size.** Linear algebra on fewer than :data:`SMALL_PROBLEM_ROWS` rows (a kernel block, a fold's
   fit, an eigendecomposition of up to a couple of thousand rows) runs BLAS on one thread
   (:func:`blas_for_rows`); a larger one keeps the limit in force (all the cores, or the user's
   limit). Measured on this project's machine, 2 shared cores (``benchmarks/bench_threads.py
   --part sizes``, the constant's comment): two BLAS threads never made ``scipy.linalg.eigh`` faster
   up to n = 4000 and a GEMM only above n = 2000, and a threaded BLAS on matrices of a few hundred rows
   spins its idle thread, which takes a core from whatever else runs (``krein reproduce --quick``
   before this policy: 316 CPU-seconds for 170 s of wall time, 97 s with ``OPENBLAS_NUM_THREADS=1``).
2. **krein's own parallel loops** (inner folds, candidates, distance tiles, kernel row chunks) run
   BLAS on one thread while they run on several workers (:func:`parallel_loop`): the workers use
   the cores, a threaded BLAS inside each would only oversubscribe them.

Neither rule ever raises a limit: both only lower BLAS to one thread for the time of a section, and
restore what was in force when the outermost section opened, so an enclosing
``threadpoolctl.threadpool_limits(k)`` of the user is kept (and a section under a limit of one
changes nothing). A user's explicit ``n_jobs`` sets the workers of krein's loops;
:func:`n_threads` (the CPUs of the process, at most ``OMP_NUM_THREADS``) is what ``n_jobs=-1`` and
krein's kernel evaluation use.
"""

import os
import threading
from contextlib import contextmanager, nullcontext
from functools import cache

from threadpoolctl import ThreadpoolController

__all__ = [
    "SMALL_PROBLEM_ROWS",
    "blas_for_data",
    "blas_for_rows",
    "blas_threads",
    "n_threads",
    "parallel_loop",
    "single_threaded_blas",
]

#: Linear algebra on fewer rows than this runs BLAS on one thread (rule 1 of the module docstring).
#: Best time (s) with one / two BLAS threads on 2 shared cores (``bench_threads.py --part sizes``, load
#: 3–11): ``eigh`` n = 500: 0.081 / 0.23, 1000: 0.26 / 1.5, 2000: 1.7 / 5.1, 4000: 12.7 / 29.3; GEMM
#: ``A @ A`` n = 1000: 0.12 / 0.13, 2000: 0.36 / 0.40, 4000: 3.2 / 2.6. Below 2000 rows two threads
#: gain nothing; from there on a GEMM gains, so a large problem gets the cores.
SMALL_PROBLEM_ROWS = 2000


def n_threads():
    """Threads for krein's parallel loops: the CPUs of this process, at most ``OMP_NUM_THREADS``.

    A user who limits OpenMP (and with it BLAS) to k threads, for example to run several processes
    side by side, gets at most k threads from krein too.
    """
    count = os.process_cpu_count() if hasattr(os, "process_cpu_count") else os.cpu_count()
    count = max(1, count or 1)
    limit = os.environ.get("OMP_NUM_THREADS", "").strip()
    if limit.isdigit() and int(limit) > 0:
        count = min(count, int(limit))
    return count


@cache
def _controller():
    """The BLAS libraries of the process, inspected once: NumPy's and SciPy's (each wheel ships its
    own), loaded first so that a controller made before the first ``import scipy.linalg`` has both."""
    import numpy  # noqa: F401
    import scipy.linalg  # noqa: F401

    return ThreadpoolController()


def blas_threads():
    """The BLAS thread limit in force now: the least ``num_threads`` of the loaded BLAS libraries
    (what ``threadpoolctl.threadpool_info()`` reports, read live), None when none reports one."""
    counts = [lib.num_threads for lib in _controller().select(user_api="blas").lib_controllers]
    counts = [count for count in counts if count is not None]
    return min(counts) if counts else None


#: Process-wide state of :func:`single_threaded_blas`: how many sections are open (in any thread)
#: and the limiter of the outermost one, which alone restores the thread counts.
_lock = threading.Lock()
_open_sections = 0
_limiter = None


@contextmanager
def single_threaded_blas():
    """A context manager that limits BLAS to one thread, re-entrant and safe across threads.

    BLAS thread counts are process-wide, so the sections are counted process-wide: the first section
    to open saves the counts and sets them to one, the last to close restores the saved counts.
    Nested sections, and sections of several threads that overlap in any order, therefore leave BLAS
    exactly as the first found it (a section that restored on its own exit could hand another
    thread's single-threaded setting back as the "original" one). The first section reads the limit in
    force (:func:`blas_threads`) and sets nothing when it is one already (a user's
    ``threadpool_limits(1)``).
    """
    global _open_sections, _limiter
    with _lock:
        if _open_sections == 0 and blas_threads() != 1:
            _limiter = _controller().limit(limits=1, user_api="blas")
        _open_sections += 1
    try:
        yield
    finally:
        with _lock:
            _open_sections -= 1
            if _open_sections == 0 and _limiter is not None:
                _limiter.restore_original_limits()
                _limiter = None


def blas_for_rows(n_rows):
    """Rule 1: a context with one BLAS thread for a problem of fewer than :data:`SMALL_PROBLEM_ROWS`
    rows; for a larger one (or an unknown size, None or NaN) the limit in force, untouched."""
    try:
        small = n_rows is not None and int(n_rows) < SMALL_PROBLEM_ROWS
    except (TypeError, ValueError):  # a lazy size (NaN): a large problem
        small = False
    return single_threaded_blas() if small else nullcontext()


def parallel_loop(n_jobs):
    """Rule 2: a context with one BLAS thread while a loop of krein runs on more than one worker.

    ``n_jobs`` as joblib reads it: None is the ``n_jobs`` of an enclosing ``joblib.parallel_config``
    (one worker without one), a negative value counts from the CPUs (−1: all of them).
    """
    if n_jobs is None:
        from joblib.parallel import get_active_backend

        n_jobs = get_active_backend()[1]
    workers = 1 if n_jobs is None else int(n_jobs)
    if workers < 0:
        workers = max(1, n_threads() + 1 + workers)
    return single_threaded_blas() if workers > 1 else nullcontext()


def _rows(X):
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) > 0:
        return shape[0]
    try:
        return len(X)
    except TypeError:
        return None


def blas_for_data(X):
    """:func:`blas_for_rows` sized by the rows of the data ``X`` (an array, a kernel matrix, a list of
    objects; a lazy dask array of unknown size counts as large). Every public ``fit`` and ``fit_path``
    opens it around its body, a ``with`` block rather than a decorator, which would add a frame between
    the user's call and the ``stacklevel`` of the fit's warnings."""
    return blas_for_rows(_rows(X))

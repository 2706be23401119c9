"""Thread counts and BLAS thread limits shared by krein's own parallel loops."""

import os
import threading
from contextlib import contextmanager
from functools import cache

from threadpoolctl import ThreadpoolController

__all__ = ["n_threads", "single_threaded_blas"]


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
    return ThreadpoolController()  # inspects the loaded BLAS libraries once per process


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
    thread's single-threaded setting back as the "original" one).
    """
    global _open_sections, _limiter
    with _lock:
        if _open_sections == 0:
            _limiter = _controller().limit(limits=1, user_api="blas")
        _open_sections += 1
    try:
        yield
    finally:
        with _lock:
            _open_sections -= 1
            if _open_sections == 0:
                _limiter.restore_original_limits()
                _limiter = None

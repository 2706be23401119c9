"""Thread counts and BLAS thread limits shared by krein's own parallel loops."""

import os
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


def single_threaded_blas():
    """A context manager that limits BLAS to one thread (inside krein's own threads)."""
    return _controller().limit(limits=1, user_api="blas")

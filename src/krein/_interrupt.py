"""Stopping a long run cleanly: SIGINT and SIGTERM as exceptions, and sections they never cut.

The ``krein`` command installs :func:`install_stop_handlers`: SIGINT raises :class:`KeyboardInterrupt`
and SIGTERM raises :class:`Terminated` (a ``KeyboardInterrupt``, so that every ``except
KeyboardInterrupt`` and ``finally`` of the run sees it) in the main thread. Inside
:func:`uninterrupted` (the write and rename of a results file) a signal is held and raised when the
section ends, so that a stopped run never leaves a half-written or temporary file behind.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager

__all__ = ["Terminated", "install_stop_handlers", "restore_handlers", "stop_exit_status", "uninterrupted"]


class Terminated(KeyboardInterrupt):
    """Raised in the main thread by SIGTERM once :func:`install_stop_handlers` has run."""


_held = {"depth": 0, "pending": None}


def _stop(signum):
    return Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


def _handler(signum, frame):
    if _held["depth"]:
        _held["pending"] = _held["pending"] or signum
        return
    raise _stop(signum)


def install_stop_handlers():
    """SIGINT → ``KeyboardInterrupt``, SIGTERM → :class:`Terminated`, both held inside
    :func:`uninterrupted` (main thread only; elsewhere nothing is installed). Returns the handlers
    replaced, for :func:`restore_handlers`."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    return {signum: signal.signal(signum, _handler) for signum in (signal.SIGINT, signal.SIGTERM)}


def restore_handlers(previous):
    """Put back the handlers :func:`install_stop_handlers` replaced (its return value)."""
    for signum, handler in previous.items():
        signal.signal(signum, handler if handler is not None else signal.SIG_DFL)


@contextmanager
def uninterrupted():
    """A section that a stop signal does not cut: the signal is raised when the section ends."""
    _held["depth"] += 1
    try:
        yield
    finally:
        _held["depth"] -= 1
        pending = _held["pending"]
        if not _held["depth"] and pending is not None:
            _held["pending"] = None
            raise _stop(pending)


def stop_exit_status(error):
    """The exit status of a run stopped by ``error``: 143 for SIGTERM, 130 for SIGINT (128 + signal)."""
    return 128 + (signal.SIGTERM if isinstance(error, Terminated) else signal.SIGINT)

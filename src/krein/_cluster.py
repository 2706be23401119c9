"""Work on a ``dask.distributed`` cluster that ends: a lost worker is an error naming the cluster.

Dask recomputes the tasks of a worker that dies where it can, and the fit then ends with the
result it would have had. Where it cannot (a task whose workers died more often than the
scheduler's ``allowed-failures``), the failure must reach the fit: joblib's dask backend sets it on
its future but never calls joblib's callback, so ``Parallel`` waited for the lost batch for ever.
:func:`cluster_parallel` runs such loops on a backend that reports the failure, and
:func:`cluster_errors` turns a failure of the cluster into one :class:`ClusterError` naming it.
"""

from __future__ import annotations

import asyncio
import sys
from contextlib import contextmanager

from joblib import Parallel
from joblib.parallel import get_active_backend

__all__ = ["ClusterError", "cluster_errors", "cluster_parallel"]


class ClusterError(RuntimeError):
    """The cluster lost the work of a fit (a worker died, its connection closed)."""


def _cluster_name(client=None):
    """``the dask cluster LocalCluster at tcp://...`` for the active client (or ``client``)."""
    try:
        if client is None:
            from distributed import get_client

            client = get_client()
        cluster = getattr(client, "cluster", None)
        kind = type(cluster).__name__ if cluster is not None else "cluster"
        return f"the dask {kind} at {client.scheduler.address}"
    except Exception:  # no client: name what we know
        return "the dask cluster"


def _is_cluster_failure(error):
    if "distributed" not in sys.modules:
        return False
    import distributed
    from distributed.comm import CommClosedError

    failures = (distributed.KilledWorker, CommClosedError, asyncio.CancelledError)
    return isinstance(error, failures) or type(error).__module__.startswith("distributed")


def _cluster_error(error, what, client=None):
    return ClusterError(
        f"{_cluster_name(client)} lost the work of {what} ({type(error).__name__}: {error}); nothing of the "
        "lost work was used. Check the cluster's workers (their logs, their memory) and fit again."
    )


@contextmanager
def cluster_errors(what):
    """Turn a failure of the ``dask.distributed`` cluster inside the block into a :class:`ClusterError`
    naming the cluster and ``what`` was computed; other errors pass unchanged."""
    try:
        yield
    except ClusterError:
        raise
    except BaseException as error:
        if not _is_cluster_failure(error):
            raise
        raise _cluster_error(error, what) from error


def _reporting_backend(active, what):
    """A joblib dask backend like ``active`` whose lost batches raise :class:`ClusterError`."""
    from joblib._dask import DaskDistributedBackend

    class _Failed:
        def __init__(self, error):
            self.error = error

    class ReportingDaskBackend(DaskDistributedBackend):
        async def _collect(self):
            while self._continue:
                async for future, result in self.waiting_futures:
                    cf_future = self._results.pop(future)
                    callback = self._callbacks.pop(future)
                    if future.status == "error":
                        error = _cluster_error(result[1], what, self.client)
                        cf_future.set_exception(error)
                        callback(_Failed(error))  # joblib's own backend never called it: a hang
                    else:
                        cf_future.set_result(result)
                        callback(result)
                await asyncio.sleep(0.01)

        def retrieve_result_callback(self, out):
            if isinstance(out, _Failed):
                raise out.error
            return super().retrieve_result_callback(out)

    return ReportingDaskBackend(
        client=active.client,
        wait_for_workers_timeout=active.wait_for_workers_timeout,
        **(active.submit_kwargs or {}),
    )


def on_a_cluster() -> bool:
    """Whether joblib's active backend is dask's (``joblib.parallel_config(backend="dask")`` with a
    ``dask.distributed`` client): then krein's parallel tasks run on the cluster's workers."""
    active, _ = get_active_backend()
    return type(active).__name__ == "DaskDistributedBackend"


def cluster_parallel(what, **parallel_kwargs):
    """``joblib.Parallel(**parallel_kwargs)``; under joblib's dask backend one whose batches lost with a
    worker raise :class:`ClusterError` (naming the cluster and ``what``) instead of waiting for ever."""
    if not on_a_cluster():
        return Parallel(**parallel_kwargs)
    active, _ = get_active_backend()
    parallel_kwargs.pop("prefer", None)
    return Parallel(backend=_reporting_backend(active, what), **parallel_kwargs)

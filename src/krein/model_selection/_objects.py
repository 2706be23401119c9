"""Objects in: the distances the route needs, computed from the objects themselves.

``KreinClassifierCV(metric="dtw")`` takes a list of series (strings, SPD matrices, ...) and computes
only the distances its representation needs: all pairs for the exact route, the n × m block to the
landmarks at low rank. :class:`ObjectDistances` validates the metric, its parameters and the objects
before any distance is computed, evaluates them through :func:`krein.dissimilarity.pairwise_distances`
(blocked, threaded), counts the evaluations and, with ``verbose``, reports the progress of a long block.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from joblib import delayed

from .._cluster import cluster_parallel, on_a_cluster
from ..dissimilarity import METRICS, Metric, UserMetric, pairwise_distances

__all__ = ["ObjectDistances", "take"]

#: A block of distances is computed in row chunks of about this many pairs, so that its progress shows.
CHUNK_PAIRS = 200_000
#: Pairs of a user's function evaluated in both orders before any long work (its symmetry is assumed).
SYMMETRY_PROBES = 5


def metric_label(metric: str | Callable, params: dict | None = None) -> str:
    """A metric's name in the route's results: ``"dtw"``, ``"dtw(window=5)"``, a function's name."""
    name = metric if isinstance(metric, str) else getattr(metric, "__name__", repr(metric))
    if not params:
        return name
    return f"{name}({', '.join(f'{key}={value!r}' for key, value in sorted(params.items()))})"


def take(objects: Any, indices: Any) -> Any:
    """The objects at ``indices`` (rows of an array, items of a list)."""
    if isinstance(objects, np.ndarray):
        return objects[np.asarray(indices)]
    return [objects[i] for i in indices]


class ObjectDistances:
    """A metric on objects: a name of :data:`krein.dissimilarity.METRICS` or a function ``d(a, b)``.

    Parameters
    ----------
    metric : str or callable
    metric_params : dict or None
        The metric's keywords (``{"window": 10}`` for DTW, ...), checked against the metric's own.
    n_jobs : int or None
        Threads of the distance evaluation.
    verbose : int
        1 or more: a line per block of distances (and its progress every few seconds).
    owner : str
        The estimator's name, in messages.

    Attributes
    ----------
    n_evaluations : int
        Distances computed so far (each unordered pair of a symmetric block once).
    seconds : float
        Wall time spent computing them.
    """

    def __init__(
        self,
        metric: str | Callable,
        metric_params: dict | None,
        *,
        n_jobs: int | None = None,
        verbose: int = 0,
        owner: str = "KreinClassifierCV",
    ) -> None:
        if metric_params is not None and not isinstance(metric_params, dict):
            raise TypeError(f"metric_params must be a dict or None, got {type(metric_params).__name__}.")
        params = dict(metric_params or {})
        self.spec: Metric
        if callable(metric):
            self.spec = UserMetric(metric, params)
        elif isinstance(metric, str) and metric in METRICS:
            self.spec = METRICS[metric]
            unknown = sorted(set(params) - set(self.spec.parameters))
            if unknown:
                valid = ", ".join(self.spec.parameters) or "none"
                raise ValueError(
                    f"metric_params: metric {metric!r} takes no parameter(s) {unknown}; "
                    f"its parameters: {valid}."
                )
            self.spec.check_params({**self.spec.parameters, **params})
        else:
            raise ValueError(
                f"metric must be 'precomputed', a name of {sorted(METRICS)} or a callable, got {metric!r}."
            )
        self.metric, self.params = metric, params
        self.n_jobs, self.verbose, self.owner = n_jobs, verbose, owner
        self.n_evaluations, self.seconds = 0, 0.0

    def check(self, X: Any, name: str = "X") -> Any:
        """The objects of ``X`` validated by the metric (a list, or an array with one object per row);
        for a user's function, its value on a few pairs in both orders must agree (it is taken to be
        symmetric: a square block evaluates each unordered pair once)."""
        try:
            objects = self.spec.check(X, name)
        except (TypeError, ValueError) as error:
            raise type(error)(f"{name} cannot be read by metric {self.spec.name!r}: {error}") from None
        if len(objects) == 0:
            raise ValueError(f"{name} holds no objects.")
        if isinstance(self.spec, UserMetric) and len(objects) > 1:
            self._check_symmetric(objects, name)
        return objects

    def _check_symmetric(self, objects, name):
        rng = np.random.default_rng(0)
        n = len(objects)
        for _ in range(SYMMETRY_PROBES):
            i, j = rng.choice(n, size=2, replace=False)
            pair = [objects[i], objects[j]]
            forth = self._evaluate(pair[:1], pair[1:])[0, 0]
            back = self._evaluate(pair[1:], pair[:1])[0, 0]
            if not math.isclose(forth, back, rel_tol=1e-9, abs_tol=1e-12):
                raise ValueError(
                    f"metric {self.spec.name!r} is not symmetric: d({name}[{i}], {name}[{j}]) = "
                    f"{float(forth)!r} but d({name}[{j}], {name}[{i}]) = {float(back)!r}; the route needs a "
                    "symmetric distance."
                )

    def _evaluate(self, A, B=None, n_jobs=None):
        try:
            return pairwise_distances(A, B, self.metric, n_jobs=n_jobs or self.n_jobs, **self.params)
        except ValueError as error:  # a non-finite or negative value of the metric, named
            message = str(error)
            named = message.startswith(f"metric {self.spec.name!r}")  # said once, not twice
            raise ValueError(message if named else f"metric {self.spec.name!r}: {message}") from None
        except Exception as error:  # a user's function that raises: its error, named
            if not isinstance(self.spec, UserMetric):
                raise
            raise ValueError(f"metric {self.spec.name!r} raised {type(error).__name__}: {error}") from error

    def square(self, objects: Any, *, what: str = "the training objects") -> np.ndarray:
        """The n × n distances between ``objects`` (each unordered pair once)."""
        n = len(objects)
        started = time.perf_counter()
        if self.verbose:
            print(f"{self.owner}: distances between {what}: {n * (n - 1) // 2} pairs")
        D = self._evaluate(objects)
        self.n_evaluations += n * (n - 1) // 2
        self.seconds += time.perf_counter() - started
        if self.verbose:
            print(f"{self.owner}: {n * (n - 1) // 2} distances in {time.perf_counter() - started:.1f} s")
        return D

    def block(
        self, A: Any, B: Any, *, what: str = "objects", out: np.ndarray | None = None, rows: Any = None
    ) -> np.ndarray:
        """The ``len(A) × len(B)`` distances, in row chunks; with ``verbose`` the progress (objects per
        second, time left) is printed every few seconds. With ``out`` (and ``rows``, one per object of
        ``A``; default ``0, 1, …``) the distances of ``A[i]`` are written to ``out[rows[i]]`` and ``out``
        is returned: a block of a larger array, with no second copy of it.

        Under joblib's dask backend (``joblib.parallel_config(backend="dask")`` with a
        ``dask.distributed`` client) the chunks are tasks on the cluster's workers (each on one
        thread); otherwise they run here one after the other, each on ``n_jobs`` threads. The values are
        the same either way: every chunk is the same call of the metric.
        """
        n_a, n_b = len(A), len(B)
        if out is None:
            out = np.empty((n_a, n_b))
        rows = np.arange(n_a) if rows is None else np.asarray(rows)
        chunk = max(1, CHUNK_PAIRS // max(n_b, 1))
        starts = range(0, n_a, chunk)
        distributed = on_a_cluster()
        threads = None if distributed else self.n_jobs
        tasks = (delayed(self._evaluate)(take(A, range(s, min(n_a, s + chunk))), B, threads) for s in starts)
        runner = cluster_parallel(
            f"the distances of {what}", n_jobs=None if distributed else 1, return_as="generator"
        )
        started = last = last_chunk = time.perf_counter()
        for start, values in zip(starts, runner(tasks), strict=True):
            stop = min(n_a, start + chunk)
            out[rows[start:stop]] = values
            self.n_evaluations += (stop - start) * n_b
            now = time.perf_counter()
            self.seconds += now - last_chunk
            last_chunk = now
            if self.verbose and (now - last > 5.0 or stop == n_a):
                rate = stop / (now - started)
                print(
                    f"{self.owner}: distances of {what}: {stop}/{n_a} objects, {rate:.0f} objects/s, "
                    f"{(n_a - stop) / rate:.0f} s left"
                )
                last = now
        return out

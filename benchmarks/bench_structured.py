"""Structured data at scale (issue 30): a low-rank Kreĭn classifier on raw series through DistanceKernel.

``KreinRidgeClassifier(kernel=DistanceKernel("dtw"), n_components=m)`` (``--transform
double_centering``: the double centring through the landmarks, landmark MDS) on n synthetic random-walk
series of lengths around ``--length`` (two classes: with and without a bump), fitted from the series
packed into rows (:func:`krein.kernels.pack_objects`).  Printed:

* the distance evaluations of the fit, counted block by block, against n·m + m(m − 1)/2 (the
  distances to the landmarks and between them; target: equal — the fit draws no held-out columns,
  since with ``landmark_rank="full"`` no rank validation needs them);
* with ``--error``: the approximation error estimate ``representation_.approximation_error``, made on
  its first read (after the fit) from 64 held-out columns, with the distance evaluations and the time
  of that read (for the Gaussian about n·(m + 64) + 1024·m, which the fit paid itself before the
  estimate was deferred; with the double centring about n·m more, the means of the rows of the probe
  block against the landmarks);
* the fit's time over the floor, the time of the n × m DTW distances to the same landmarks computed
  alone (``pairwise_distances(series, landmarks, metric="dtw")``); target: at most 1.5;
* the fit's peak resident memory beyond the resident memory before it (the data); target ≤ 1 GB;
* with ``--dask``: the same fit from a dask array of the packed rows on a ``LocalCluster`` of 2
  workers, and the largest difference of its decision values from the in-memory fit (target 1e-10).

The issue's size is n = 10⁵, length 100, m = 500 (5·10⁷ DTW pairs, 5·10¹¹ cells: about an hour on
two cores); the defaults are smaller.  Run:
    python benchmarks/bench_structured.py [--n 100000 --m 500] [--n-jobs 2] [--dask] [--error]
        [--transform double_centering]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np

import krein.dissimilarity
from krein.dissimilarity import pairwise_distances
from krein.kernels import DistanceKernel, pack_objects
from krein.least_squares import KreinRidgeClassifier


def make_series(n, length, seed):
    """Random walks of lengths in [0.8, 1.2] × length; class 1 carries a bump of height 3."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(int(0.8 * length), int(1.2 * length) + 1, size=n)
    y = rng.integers(0, 2, size=n)
    series = []
    for k, label in zip(lengths, y, strict=True):
        s = np.cumsum(rng.normal(scale=0.3, size=k))
        if label:
            centre = rng.integers(k // 4, 3 * k // 4)
            s = s + 3.0 * np.exp(-0.5 * ((np.arange(k) - centre) / (k / 20)) ** 2)
        series.append(s)
    return series, y


def _status_mib(field):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field)) / 1024


def _reset_peak():
    """Reset the process's peak resident size (VmHWM) to the current one (Linux 4.0+)."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def counted(function):
    """Call ``function()`` counting the pairs of every distance block: (its value, (wall, CPU seconds),
    blocks, MiB), the last the peak resident memory of the process beyond its resident memory before the
    call (Linux)."""
    blocks = Counter()

    def counting(A, B=None, **kwargs):
        key = (len(A), None if B is None else len(B))
        blocks[key] += 1
        return pairwise_distances(A, B, **kwargs)

    original = krein.dissimilarity.pairwise_distances
    krein.dissimilarity.pairwise_distances = counting
    before = _status_mib("VmRSS:")
    _reset_peak()
    try:
        t0, c0 = time.perf_counter(), time.process_time()
        value = function()
        seconds = (time.perf_counter() - t0, time.process_time() - c0)
    finally:
        krein.dissimilarity.pairwise_distances = original
    peak = _status_mib("VmHWM:") - before
    return value, seconds, blocks, peak


def evaluations(blocks):
    """Distance pairs of counted blocks (a symmetric block: its upper triangle)."""
    return sum(count * (a * (a - 1) // 2 if b is None else a * b) for (a, b), count in blocks.items())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5000)
    parser.add_argument("--m", type=int, default=100)
    parser.add_argument("--length", type=int, default=100)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dask", action="store_true")
    parser.add_argument("--error", action="store_true", help="read the deferred error estimate")
    parser.add_argument(
        "--transform", default="gaussian", help="DistanceKernel's: gaussian or double_centering"
    )
    args = parser.parse_args()
    n, m = args.n, args.m

    series, y = make_series(n, args.length, args.seed)
    X = pack_objects(series)
    print(
        f"{n} series of lengths {min(map(len, series))}-{max(map(len, series))}, m = {m} landmarks, "
        f"transform {args.transform!r}, n_jobs = {args.n_jobs}; packed data {X.nbytes / 2**20:.0f} MiB"
    )

    kernel = DistanceKernel("dtw", transform=args.transform, gamma=1.0, n_jobs=args.n_jobs)
    model = KreinRidgeClassifier(kernel=kernel, n_components=m, random_state=args.seed)
    _, seconds, blocks, peak = counted(lambda: model.fit(series, y))

    pairs = evaluations(blocks)
    target = n * m + m * (m - 1) // 2
    print("\ndistance blocks of the fit (rows x columns: calls):")
    for (a, b), count in sorted(blocks.items(), key=lambda kv: -kv[0][0] * (kv[0][1] or kv[0][0])):
        print(f"  {a} x {'(same, upper triangle)' if b is None else b}: {count}")
    print(
        f"distance evaluations: {pairs:,}; n*m + m(m-1)/2 = {target:,}; ratio {pairs / target:.2f}  "
        "(target 1.00: no held-out columns in the fit)"
    )

    landmarks = [series[i] for i in model.landmark_indices_]
    t0, c0 = time.perf_counter(), time.process_time()
    pairwise_distances(series, landmarks, metric="dtw", n_jobs=args.n_jobs)
    floor = (time.perf_counter() - t0, time.process_time() - c0)
    print(
        f"\nfit time / time of the n x m DTW block alone: wall {seconds[0] / floor[0]:.2f}, "
        f"CPU {seconds[1] / floor[1]:.2f}  (target <= 1.5; CPU seconds of all threads are robust to "
        "other jobs on the machine)",
        flush=True,
    )
    print(f"fit peak resident memory beyond the data: {peak:.0f} MiB  (target <= 1024)")
    if args.error:
        representation = model.representation_
        error, error_seconds, error_blocks, _ = counted(lambda: representation.approximation_error)
        print(
            f"approximation_error (estimated on its first read, after the fit): {error:.3f} from "
            f"{representation.n_probes} held-out columns; that read: {evaluations(error_blocks):,} "
            f"distance evaluations, {error_seconds[0]:.1f} s"
        )
    shown = min(n, 2000)  # predictions cost t x m distances: a subset keeps this line cheap at 10^5
    print(
        f"training accuracy on the first {shown} series {model.score(series[:shown], y[:shown]):.3f}",
        flush=True,
    )

    if args.dask:
        import dask.array as da
        from dask.distributed import Client, LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True) as cluster, Client(cluster):
            Xd = da.from_array(X, chunks=(max(1, n // 8), -1))
            distributed = KreinRidgeClassifier(kernel=kernel, n_components=m, random_state=args.seed)
            t0 = time.perf_counter()
            distributed.fit(Xd, y)
            t_dask = time.perf_counter() - t0
            rows = slice(0, min(n, 2000))
            diff = np.abs(
                np.asarray(distributed.decision_function(X[rows])) - model.decision_function(X[rows])
            ).max()
        print(
            f"\nLocalCluster (2 workers): fit time / in-memory fit {t_dask / seconds[0]:.2f}; "
            f"largest difference of decision values {diff:.2e}  (target <= 1e-10)"
        )


if __name__ == "__main__":
    main()

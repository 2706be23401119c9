"""The elastic distances on aeon through ``pairwise_distances`` against aeon's own pairwise functions.

For each metric (MSM, TWE, ERP, LCSS, EDR, WDTW, DDTW, squared DTW) on the same ``--n`` random-walk
series of length ``--length``: the time of ``krein.dissimilarity.pairwise_distances(X, metric=name)``
(validation, tiles, one aeon call per tile) and of ``aeon.distances.<name>_pairwise_distance(X)``, both
on ``--n-jobs`` threads, the best of ``--repeats`` runs after a warm-up call (numba compiles on the
first one), the pairs per second of each and the ratio krein / aeon (target: at most 1.2).  With
``--cross`` the n/2 × n/2 matrix between two halves is timed instead of the symmetric one.

Run:
    python benchmarks/bench_elastic_distances.py [--n 300] [--length 150] [--n-jobs 1] [--cross]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from krein.dissimilarity import pairwise_distances

METRICS = {
    "msm": "msm_pairwise_distance",
    "twe": "twe_pairwise_distance",
    "erp": "erp_pairwise_distance",
    "lcss": "lcss_pairwise_distance",
    "edr": "edr_pairwise_distance",
    "wdtw": "wdtw_pairwise_distance",
    "ddtw": "ddtw_pairwise_distance",
    "squared_dtw": "dtw_pairwise_distance",
}


def best_time(function, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--length", type=int, default=150)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cross", action="store_true")
    parser.add_argument("--metrics", nargs="*", default=list(METRICS))
    args = parser.parse_args()

    import aeon
    import aeon.distances

    rng = np.random.default_rng(0)
    X = np.cumsum(rng.normal(size=(args.n, args.length)), axis=1)
    X3 = X[:, None, :].copy()  # aeon's collection layout (n_cases, n_channels, n_timepoints)
    if args.cross:
        half = args.n // 2
        operands, pairs = ((X[:half], X[half:]), (X3[:half], X3[half:])), half * (args.n - half)
    else:
        operands, pairs = ((X, None), (X3, None)), args.n * (args.n - 1) // 2
    (ka, kb), (aa, ab) = operands
    print(
        f"aeon {aeon.__version__}; {args.n} series of length {args.length}, "
        f"{'cross' if args.cross else 'symmetric'} ({pairs} pairs), n_jobs={args.n_jobs}"
    )
    print(f"{'metric':<12} {'krein pairs/s':>14} {'aeon pairs/s':>14} {'krein / aeon':>13}")
    for name in args.metrics:
        function = getattr(aeon.distances, METRICS[name])

        def ours(name=name):
            return pairwise_distances(ka, kb, metric=name, n_jobs=args.n_jobs)

        def theirs(function=function):
            return function(aa, ab, n_jobs=args.n_jobs)

        difference = np.max(np.abs(ours() - theirs()))  # warm-up: numba compiles on the first calls
        t_ours, t_theirs = best_time(ours, args.repeats), best_time(theirs, args.repeats)
        print(
            f"{name:<12} {pairs / t_ours:>14.0f} {pairs / t_theirs:>14.0f} {t_ours / t_theirs:>12.2f}x"
            f"   (max |difference| {difference:.1e})"
        )


if __name__ == "__main__":
    main()

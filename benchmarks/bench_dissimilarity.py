"""Benchmark of krein.dissimilarity against the back-ends and naive loops, on shipped data.

* all pairwise edit distances of the 3190 splice strings (60 nt): ``krein.dissimilarity.
  edit_distances`` vs ``rapidfuzz.process.cdist`` called directly vs a Python loop over pairs
  calling ``rapidfuzz.distance.Levenshtein.distance`` vs a pure-Python dynamic programme;
* all pairwise DTW distances of a UCR set (GunPoint, 200 series of length 150, by default):
  ``krein.dissimilarity.dtw_distances`` vs ``dtaidistance.dtw.distance_matrix_fast`` vs a Python
  loop over pairs calling ``dtaidistance.dtw.distance_fast`` vs a pure-Python dynamic programme.

* DTW throughput (cells per second) on random walks: krein against dtaidistance's OpenMP matrix
  routine (with and without its pruning) and aeon's numba DTW if installed; prints the ratio.

Pure-Python timings are measured on a random sample of pairs and extrapolated to all pairs (they
would take hours otherwise); every other timing covers all pairs.  Results are checked to agree.
Run:  python benchmarks/bench_dissimilarity.py [--series gunpoint] [--n-jobs 2] [--only-throughput]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from krein.datasets import load_dataset
from krein.dissimilarity import dtw_distances, edit_distances


def timed(fn, repeat=1):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def py_levenshtein(s, t):
    prev = list(range(len(t) + 1))
    for i, cs in enumerate(s, 1):
        cur = [i]
        for j, ct in enumerate(t, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (cs != ct)))
        prev = cur
    return prev[-1]


def py_dtw(a, b):
    inf = float("inf")
    q = len(b)
    prev = [0.0] + [inf] * q
    for x in a:
        cur = [inf] * (q + 1)
        for j in range(1, q + 1):
            d = x - b[j - 1]
            cur[j] = d * d + min(prev[j], cur[j - 1], prev[j - 1])
        prev = cur
    return prev[q] ** 0.5


def report(title, rows, n_pairs):
    base = rows[0][1]
    print(f"\n{title}  ({n_pairs:,} unordered pairs)")
    print(f"  {'method':<58} {'time [s]':>10} {'ratio vs krein':>15}")
    for label, t in rows:
        print(f"  {label:<58} {t:>10.3f} {t / base:>15.2f}")


def bench_edit(n_jobs, sample):
    from rapidfuzz.distance import Levenshtein
    from rapidfuzz.process import cdist

    strings = list(load_dataset("splice-strings").data)
    n = len(strings)
    n_pairs = n * (n - 1) // 2
    t_k1, D = timed(lambda: edit_distances(strings, n_jobs=1))
    t_kn, Dn = timed(lambda: edit_distances(strings, n_jobs=n_jobs))
    t_b1, R = timed(lambda: cdist(strings, strings, scorer=Levenshtein.distance, workers=1))
    t_bn, _ = timed(lambda: cdist(strings, strings, scorer=Levenshtein.distance, workers=n_jobs))
    assert np.array_equal(D, R) and np.array_equal(Dn, D)

    def loop():
        out = np.zeros((n, n))
        for i in range(n):
            si = strings[i]
            for j in range(i + 1, n):
                out[i, j] = out[j, i] = Levenshtein.distance(si, strings[j])
        return out

    t_loop, L = timed(loop)
    assert np.array_equal(L, D)
    rng = np.random.default_rng(0)
    pairs = rng.integers(0, n, size=(sample, 2))
    t0 = time.perf_counter()
    for i, j in pairs:
        assert py_levenshtein(strings[i], strings[j]) == D[i, j]
    t_py = (time.perf_counter() - t0) / sample * n_pairs
    report(
        f"Edit distances, splice strings n={n}",
        [
            ("krein edit_distances (n_jobs=1)", t_k1),
            (f"krein edit_distances (n_jobs={n_jobs})", t_kn),
            ("rapidfuzz.process.cdist direct (workers=1)", t_b1),
            (f"rapidfuzz.process.cdist direct (workers={n_jobs})", t_bn),
            ("Python loop over pairs, rapidfuzz Levenshtein.distance", t_loop),
            (f"pure-Python DP (extrapolated from {sample} pairs)", t_py),
        ],
        n_pairs,
    )


def bench_dtw(name, n_jobs, sample):
    from dtaidistance import dtw

    X = load_dataset(name).data
    n = len(X)
    n_pairs = n * (n - 1) // 2
    series = [np.ascontiguousarray(s) for s in X]
    timed(lambda: dtw_distances(X[:10]))  # warm-up (imports, C library)
    t_k1, D = timed(lambda: dtw_distances(X, n_jobs=1))
    t_kn, Dn = timed(lambda: dtw_distances(X, n_jobs=n_jobs))
    t_b, R = timed(lambda: dtw.distance_matrix_fast(series, compact=False, parallel=False))
    t_bp, _ = timed(lambda: dtw.distance_matrix_fast(series, compact=False, parallel=True))
    t_bpr, _ = timed(
        lambda: dtw.distance_matrix_fast(series, compact=False, parallel=False, use_pruning=True)
    )
    np.testing.assert_allclose(D, R, rtol=1e-12)
    np.testing.assert_allclose(Dn, D, rtol=1e-12)

    def loop():
        out = np.zeros((n, n))
        for i in range(n):
            for j in range(i + 1, n):
                out[i, j] = out[j, i] = dtw.distance_fast(series[i], series[j], use_pruning=False)
        return out

    t_loop, L = timed(loop)
    np.testing.assert_allclose(L, D, rtol=1e-12)
    rng = np.random.default_rng(0)
    pairs = rng.integers(0, n, size=(sample, 2))
    lists = [s.tolist() for s in series]
    t0 = time.perf_counter()
    for i, j in pairs:
        assert abs(py_dtw(lists[i], lists[j]) - D[i, j]) <= 1e-9 * max(1.0, D[i, j])
    t_py = (time.perf_counter() - t0) / sample * n_pairs
    report(
        f"DTW distances, {name} n={n}, length {X.shape[1]}",
        [
            ("krein dtw_distances (n_jobs=1)", t_k1),
            (f"krein dtw_distances (n_jobs={n_jobs})", t_kn),
            ("dtaidistance distance_matrix_fast direct (serial)", t_b),
            ("dtaidistance distance_matrix_fast direct (OpenMP)", t_bp),
            ("dtaidistance distance_matrix_fast direct (serial, pruning)", t_bpr),
            ("Python loop over pairs, dtaidistance distance_fast", t_loop),
            (f"pure-Python DP (extrapolated from {sample} pairs)", t_py),
        ],
        n_pairs,
    )


def bench_dtw_throughput(n_series, length, n_jobs, repeat):
    """DTW cells per second (n_pairs · length²) of krein against dtaidistance's parallel C routine and,
    if installed, aeon's numba DTW, on the same pairs (random walks); the timings are interleaved
    and the best of ``repeat`` kept, since other processes share the cores.  CPU / wall is the
    number of cores a run actually had (below n_jobs on a busy machine, where parallel routines
    cannot show their speed-up)."""
    from dtaidistance import dtw

    rng = np.random.default_rng(0)
    X = np.cumsum(rng.normal(size=(n_series, length)), axis=1)
    series = [np.ascontiguousarray(s) for s in X]
    n_pairs = n_series * (n_series - 1) // 2
    cells = n_pairs * length * length
    runs = {
        f"krein dtw_distances (n_jobs={n_jobs})": lambda: dtw_distances(X, n_jobs=n_jobs),
        "dtaidistance distance_matrix_fast (OpenMP)": lambda: dtw.distance_matrix_fast(
            series, compact=True, parallel=True
        ),
        "dtaidistance distance_matrix_fast (OpenMP, pruning: inf where DTW = bound)": lambda: (
            dtw.distance_matrix_fast(series, compact=True, parallel=True, use_pruning=True)
        ),
    }
    try:
        from aeon.distances import dtw_pairwise_distance

        runs["aeon dtw_pairwise_distance (numba)"] = lambda: dtw_pairwise_distance(X) ** 0.5
    except ImportError:
        print("\naeon is not installed: its numba DTW is not compared")
    dtw_distances(X[:10], n_jobs=n_jobs)  # warm-up (imports, OpenMP pool)
    best = dict.fromkeys(runs, np.inf)
    cores = dict.fromkeys(runs, 0.0)
    results = {}
    for _ in range(repeat):
        for label, run in runs.items():
            cpu = time.process_time()
            t, results[label] = timed(run)
            if t < best[label]:
                best[label], cores[label] = t, (time.process_time() - cpu) / t
    D = results[f"krein dtw_distances (n_jobs={n_jobs})"]
    reference = np.asarray(results["dtaidistance distance_matrix_fast (OpenMP)"])
    np.testing.assert_allclose(D[np.triu_indices(n_series, 1)], reference, rtol=1e-12)
    floor = min(t for label, t in best.items() if not label.startswith("krein") and "pruning" not in label)
    print(
        f"\nDTW throughput, {n_series} random walks of length {length}, {cells:.3g} cells, best of {repeat}"
    )
    print(f"  {'method':<76} {'cells/s':>10} {'time / krein':>13} {'CPU / wall':>11}")
    for label, t in best.items():
        print(f"  {label:<76} {cells / t:>10.3g} {t / best[next(iter(best))]:>13.2f} {cores[label]:>11.2f}")
    print(f"  krein time / fastest exact peer routine: {best[next(iter(best))] / floor:.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--series", default="gunpoint")
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--sample", type=int, default=200)
    parser.add_argument("--throughput", type=int, nargs=2, default=(600, 100), metavar=("N", "LENGTH"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only-throughput", action="store_true")
    args = parser.parse_args()
    if not args.only_throughput:
        bench_edit(args.n_jobs, args.sample)
        bench_dtw(args.series, args.n_jobs, max(20, args.sample // 10))
    bench_dtw_throughput(*args.throughput, args.n_jobs, args.repeat)


if __name__ == "__main__":
    main()

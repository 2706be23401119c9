"""``IndefiniteSVC(n_components=500)`` on ijcnn1 (n = 49 990, the whole shipped data set): fit time,
memory beyond the data, the certified duality gap of the low-rank problem, and the training error.

Memory is the peak of Python's allocations during the fit (``tracemalloc``, which NumPy reports to)
and the growth of the process's peak resident set (``ru_maxrss``) over the resident set with the data
loaded: both must stay below 1 GiB (issue #40). The kernel is the sigmoid (indefinite) kernel.

Measured (2 shared cores, sigmoid kernel, m = 500, rank 500): fit 238.5 s, 784 iterations, certified
relative duality gap 0.001 (≤ tol), peak traced allocations 583 MiB, resident set growth 661 MiB,
training error 0.0495 (the majority class's 0.0971).

Run: ``python benchmarks/bench_svm_low_rank.py [--n 49990] [--landmarks 500]``.
"""

import argparse
import resource
import time
import tracemalloc
import warnings

import numpy as np

from krein.datasets import load_dataset
from krein.kernels import Sigmoid
from krein.svm import IndefiniteSVC


def rss_peak_bytes():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def current_rss_bytes():
    with open("/proc/self/statm") as file:
        return int(file.read().split()[1]) * resource.getpagesize()


def main(n=49_990, landmarks=500, seed=0):
    bunch = load_dataset("ijcnn1")
    X_train, y_train = bunch.data[:n], bunch.target[:n]
    before = current_rss_bytes()
    tracemalloc.start()
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = IndefiniteSVC(Sigmoid(), n_components=landmarks, random_state=seed).fit(X_train, y_train)
    seconds = time.perf_counter() - start
    _, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_growth = rss_peak_bytes() - before
    error = float(np.mean(model.predict(X_train) != y_train))
    majority = float(
        np.mean(y_train != np.unique(y_train)[np.argmax(np.unique(y_train, return_counts=True)[1])])
    )
    print(f"n_train = {X_train.shape[0]}, m = {landmarks}, rank = {model.representation_.rank}")
    print(
        f"fit {seconds:.1f} s, {model.n_iter_} iterations, converged: {model.gap_history_[-1] <= model.tol}"
    )
    print(f"certified relative duality gap of the low-rank problem: {model.gap_history_[-1]:.3g}")
    print(f"peak traced allocations during the fit: {traced_peak / 2**20:.0f} MiB")
    print(f"peak resident set growth over the data: {rss_growth / 2**20:.0f} MiB")
    print(f"training error: {error:.4f} (the majority class's: {majority:.4f})")
    print(f"warnings: {[str(w.message)[:120] for w in caught]}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=49_990)
    parser.add_argument("--landmarks", type=int, default=500)
    args = parser.parse_args()
    main(args.n, args.landmarks)

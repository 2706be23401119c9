"""Benchmark of krein.svm (Luss & d'Aspremont 2009) against scipy/scikit-learn, ratios from one run.

1. One projected-gradient iteration (rank-one eigen-update, gradient, projection) at n = 2000 versus
   one ``scipy.linalg.eigh`` of the same kernel (target: ≤ 1/20), on a sigmoid kernel and on a kernel
   with a 50/50 spectrum (the update's worst case).
2. A full ``IndefiniteSVC`` fit versus scikit-learn ``SVC`` on the clipped kernel (with and without
   the clipping eigendecomposition).
3. Total time of projected gradient, ACCPM and the exchange method as n grows (shape of Fig. 2).

Run: ``python benchmarks/bench_svm.py [--quick]``.
"""

import argparse
import time
import warnings

import numpy as np
import scipy.linalg
from sklearn.svm import SVC

from krein.kernels import Sigmoid
from krein.optimize._projection import project_box_hyperplane
from krein.spectral import SpectrumTransformer
from krein.svm import IndefiniteSVC
from krein.svm._proxy import KernelSpectrum, ProxyKernelProblem


def sigmoid_problem(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 10))
    y = np.where(X[:, 0] + X[:, 1] + rng.standard_normal(n) > 0, 1, -1)
    K = Sigmoid(eta=2.0)(X / np.sqrt(10))
    return K, y


def best_of(function, repeat=3):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def balanced_problem(n, seed=0):
    """A kernel with half of its eigenvalues negative: the worst case of the rank-one update.

    The update solves the secular equation on the cheaper side of the spectrum, O(n·min(n₊, n₋)), so
    an equal split is where a projected-gradient iteration costs the most.
    """
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    values = np.abs(rng.standard_normal(n)) * np.where(np.arange(n) < n // 2, -1.0, 1.0)
    K = (Q * values) @ Q.T
    y = np.where(rng.standard_normal(n) > 0, 1, -1)
    return (K + K.T) / 2, y


def pg_iteration_vs_eigh(n):
    for label, (K, y) in (("sigmoid kernel", sigmoid_problem(n)), ("50/50 spectrum", balanced_problem(n))):
        values = np.linalg.eigvalsh(K)
        print(
            f"[1] n = {n}: {label}, {np.mean(values < 0):.0%} negative eigenvalues, "
            f"iota = {np.abs(values[values < 0]).sum() / np.abs(values).sum():.3f}"
        )
        t_eigh = best_of(lambda: scipy.linalg.eigh(K))  # noqa: B023
        labels = y.astype(float)
        problem = ProxyKernelProblem(
            KernelSpectrum(K), 10.0, np.ones(n), np.arange(n), labels, labels, np.full(n, 1.0), 0.0, None
        )
        alpha = project_box_hyperplane(np.random.default_rng(1).uniform(0, 1, n), labels, 1.0)

        def iteration():
            _, gradient = problem.value_and_gradient(alpha)  # noqa: B023
            project_box_hyperplane(alpha + 1e-3 * gradient, labels, 1.0)  # noqa: B023

        t_iter = best_of(iteration, repeat=5)
        print(
            f"    scipy.linalg.eigh: {t_eigh:.3f} s; one PG iteration: {t_iter * 1e3:.1f} ms; "
            f"ratio iteration/eigh = 1/{t_eigh / t_iter:.1f} (target: at most 1/20)"
        )


def fit_vs_svc(n):
    K, y = sigmoid_problem(n, seed=2)
    start = time.perf_counter()
    model = IndefiniteSVC(kernel="precomputed", C=1.0, rho=10.0, tol=1e-3).fit(K, y)
    t_fit = time.perf_counter() - start
    start = time.perf_counter()
    clipped = SpectrumTransformer("clip").fit_transform(K)
    t_clip = time.perf_counter() - start
    t_svc = best_of(lambda: SVC(kernel="precomputed").fit(clipped, y), repeat=1)
    print(
        f"[2] n = {n}: IndefiniteSVC fit {t_fit:.2f} s ({model.n_iter_} iterations, gap "
        f"{model.gap_history_[-1]:.1e}); SVC on clipped kernel {t_svc:.2f} s (+ clipping {t_clip:.2f} s)"
    )
    print(
        f"    ratio IndefiniteSVC / (clip + SVC) = {t_fit / (t_clip + t_svc):.1f}; "
        f"IndefiniteSVC / SVC alone = {t_fit / t_svc:.1f}"
    )


def solvers_vs_n(sizes, exchange_sizes):
    print("[3] total time (s) to relative gap 1e-3, C = 10, rho = 10 (Fig. 2 shape)")
    print("    n     PG      ACCPM   exchange")
    for n in sizes:
        K, y = sigmoid_problem(n, seed=3)
        row = []
        for solver in ["projected_gradient", "accpm", "exchange"]:
            if solver == "exchange" and n not in exchange_sizes:
                row.append("   -   ")
                continue
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                IndefiniteSVC(
                    kernel="precomputed", C=10.0, rho=10.0, tol=1e-3, solver=solver, max_iter=2000
                ).fit(K, y)
            row.append(f"{time.perf_counter() - start:7.2f}")
        print(f"    {n:<5} " + " ".join(row))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    pg_iteration_vs_eigh(500 if args.quick else 2000)
    fit_vs_svc(300 if args.quick else 1000)
    solvers_vs_n([25, 50] if args.quick else [25, 50, 100, 200], [25] if args.quick else [25, 50])

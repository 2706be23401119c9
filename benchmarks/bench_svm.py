"""Benchmark of krein.svm (Luss & d'Aspremont 2009) against scipy/scikit-learn, ratios from one run.

1. One projected-gradient iteration (rank-one eigen-update, gradient, projection) at n = 2000 versus
   one ``scipy.linalg.eigh`` of the same kernel (target: ≤ 1/20), on a sigmoid kernel and on a kernel
   with a 50/50 spectrum (the update's worst case).
2. ``IndefiniteSVC`` fit time in units of one ``eigh`` of the same kernel over the C × ρ grid of the
   luss2009-table2 reproduction, n ∈ {250, 1000, 2000} (median and worst; target ≤ 10), the same
   grid as one ``fit_path``, and the median fit versus clip + ``SVC`` (one eigh and a libsvm fit).
3. The exchange method (Algorithm 3, its QCLPs solved by krein's interior-point method), stabilized
   by the level method (the default) and plain (the paper's), versus projected gradient on the
   paper's Fig. 2 problem (Simpson kernel on USPS 3 vs 5, C = 10) at n = 200 for several ρ (ratio;
   target ≤ 20).
4. ``IndefiniteSVC`` at default settings on the shipped distance data (DTW, edit and tangent
   distances, double-centred, as a user gets them: no rescaling), binary and multiclass, versus
   ``KreinSVC`` (flip + out-of-sample) and clip + ``SVC`` on one stratified 80/20 split: the kernel
   scale, fit time in eigendecomposition-equivalents per binary task and as a ratio to ``KreinSVC``
   (targets ≤ 10 and ≤ 5), the largest relative duality gap, ``ConvergenceWarning``s and test errors.

Run: ``python benchmarks/bench_svm.py [--quick]``.
"""

import argparse
import functools
import time
import warnings
from unittest import mock

import numpy as np
import scipy.linalg
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

import krein.svm._proxy
from krein.kernels import Sigmoid
from krein.optimize import project_box_hyperplane
from krein.optimize._exchange import exchange_maximize
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
            KernelSpectrum(K), 10.0, np.ones(n), np.arange(n), labels, labels, np.full(n, 1.0), 0.0
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


#: The C × ρ grid of the luss2009-table2 reproduction (full form).
PAPER_CS = [0.01, 0.1, 1.0, 10.0, 100.0]
PAPER_RHOS = [0.01, 0.1, 1.0, 10.0, 100.0, 1e4]


def fit_vs_eigh(sizes, cs, rhos):
    """IndefiniteSVC fit time in units of one eigh of the same kernel, over the C × ρ grid."""
    print(f"[2] IndefiniteSVC fit / one scipy.linalg.eigh, tol = 1e-3, C in {cs}, rho in {rhos}")
    print("    (target: <= 10 eigh-equivalents per fit); clip + SVC: one eigh + libsvm per C")
    print("    n     eigh (s)  median  worst  (C, rho) of worst  path/cell  clip+SVC  ratio")
    for n in sizes:
        K, y = sigmoid_problem(n, seed=2)
        t_eigh = best_of(lambda: scipy.linalg.eigh(K), repeat=3)  # noqa: B023
        ratios = {}
        for C in cs:
            for rho in rhos:
                start = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    IndefiniteSVC(kernel="precomputed", C=C, rho=rho, tol=1e-3).fit(K, y)
                ratios[(C, rho)] = (time.perf_counter() - start) / t_eigh
        grid = [{"C": C, "rho": rho} for C in cs for rho in rhos]
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            IndefiniteSVC(kernel="precomputed", tol=1e-3).fit_path(K, y, grid)
        path = (time.perf_counter() - start) / t_eigh / len(grid)
        start = time.perf_counter()
        clipped = SpectrumTransformer("clip").fit_transform(K)
        for C in cs:
            SVC(kernel="precomputed", C=C).fit(clipped, y)
        t_clip_svc = (time.perf_counter() - start) / len(cs)
        values = np.array(list(ratios.values()))
        worst = max(ratios, key=ratios.get)
        median_seconds = float(np.median(values)) * t_eigh
        print(
            f"    {n:<5} {t_eigh:8.3f}  {np.median(values):6.1f}  {values.max():5.1f}  "
            f"{str(worst):<17}  {path:9.1f}  {t_clip_svc:7.3f}s  {median_seconds / t_clip_svc:5.1f}"
        )
    print("    median/worst: independent fits; path/cell: fit_path over the whole grid, per cell;")
    print("    ratio: median IndefiniteSVC fit / (clip + SVC) time")


def simpson_problem(n, seed=0):
    """The setting of the paper's Fig. 2: Simpson kernel on binarized USPS 3 vs 5 (luss2009-figure2)."""
    from krein.experiments.luss2009 import _simpson_subsets

    return next(_simpson_subsets(n, 1, seed))


def _fit_exchange(K, y, rho, max_iter, stabilization):
    """IndefiniteSVC(solver="exchange") with ``exchange_maximize(..., stabilization=...)``."""
    solve = functools.partial(exchange_maximize, stabilization=stabilization)
    with mock.patch.object(krein.svm._proxy, "exchange_maximize", solve):
        return IndefiniteSVC(
            kernel="precomputed", C=10.0, rho=rho, tol=1e-3, solver="exchange", max_iter=max_iter
        ).fit(K, y)


def exchange_vs_projected_gradient(n, rhos, max_iter):
    """Both solvers from scratch on the same kernel, C = 10, tol = 1e-3 (eigendecomposition included).

    The exchange method twice: stabilized by the level method (krein's default) and the paper's plain
    Algorithm 3 (``stabilization=None``). Times are the best of 3 fits (1 when a fit takes over 10 s):
    on a shared machine the best of several is the least disturbed.
    """
    print(f"[3] exchange method / projected gradient, Simpson kernel, USPS 3 vs 5, n = {n}")
    print(f"    C = 10, tol = 1e-3 (exchange: at most {max_iter} cuts); target ratio <= 20")
    print("            projected gradient  level (default)        plain Algorithm 3")
    print("    rho     PG (s)  iter        s      cuts  ratio      s      cuts  ratio")
    K, y = simpson_problem(n, seed=3)
    fits = {
        "pg": lambda rho: IndefiniteSVC(
            kernel="precomputed", C=10.0, rho=rho, tol=1e-3, solver="projected_gradient", max_iter=max_iter
        ).fit(K, y),
        "level": lambda rho: _fit_exchange(K, y, rho, max_iter, "level"),
        "plain": lambda rho: _fit_exchange(K, y, rho, max_iter, None),
    }
    for rho in rhos:
        times, models = {}, {}
        for name, fit in fits.items():
            times[name] = np.inf
            for _ in range(3):
                start = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    models[name] = fit(rho)
                times[name] = min(times[name], time.perf_counter() - start)
                if times[name] > 10:
                    break
        cells = [
            f"{times[name]:7.2f}  {models[name].n_iter_:4d}  {times[name] / times['pg']:5.1f}"
            for name in ("level", "plain")
        ]
        print(f"    {rho:<7g} {times['pg']:6.3f}  {models['pg'].n_iter_:4d}  {'   '.join(cells)}", flush=True)
        for name in ("level", "plain"):
            if not models[name].gap_history_[-1] <= 1e-3:
                print(f"    ({name} stopped at gap {models[name].gap_history_[-1]:.1e})")
    print("    cuts: exchange iterations (one QCLP each); ratio: exchange time / PG time")


#: (data set, distance, objects kept): the shipped distance data of issue #29.
DISTANCE_SETS = [
    ("gunpoint", "dtw", 200),
    ("arrowhead", "dtw", 211),
    ("italypowerdemand", "dtw", 300),
    ("splice-strings", "edit", 300),
    ("digits-3v5", "tangent", 365),
    ("usps-3v5", "tangent", 300),
]


def _distance_task(name, distance, size, seed=0):
    from sklearn.model_selection import train_test_split

    from krein.datasets import load_dataset
    from krein.dissimilarity import dtw_distances, edit_distances, tangent_distances

    bunch = load_dataset(name)
    y = np.asarray(bunch.target)
    index = np.arange(y.size)
    if y.size > size:
        index, _ = train_test_split(index, train_size=size, stratify=y, random_state=seed)
    data = np.asarray(bunch.data, dtype=object if distance == "edit" else float)[index]
    if distance == "edit":
        D = edit_distances(list(data))
    elif distance == "dtw":
        D = dtw_distances(data)
    else:
        D = tangent_distances(data.reshape(len(index), -1) if data.ndim == 2 else data)
    return 0.5 * (D + D.T), y[index]


def distance_sets(sets):
    """IndefiniteSVC at its defaults on double-centred distances (module docstring, part 4)."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.model_selection import train_test_split

    from krein.dissimilarity import DoubleCentering
    from krein.svm import KreinSVC

    print("[4] IndefiniteSVC at default settings on double-centred distances, one 80/20 split")
    print(
        "    set               n    cls  mean|l|   max|l|    eig-eq/task  x KreinSVC  max gap   warn  "
        "err: Indef  Krein  clip+SVC"
    )
    for name, distance, size in sets:
        D, y = _distance_task(name, distance, size)
        train, test = train_test_split(np.arange(y.size), test_size=0.2, stratify=y, random_state=0)
        centering = DoubleCentering().fit(D[np.ix_(train, train)])
        K, K_test = centering.transform(D[np.ix_(train, train)]), centering.transform(D[np.ix_(test, train)])
        values = np.linalg.eigvalsh(K)
        t_eigh = best_of(lambda: scipy.linalg.eigh(K))  # noqa: B023
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            model = IndefiniteSVC(kernel="precomputed").fit(K, y[train])
        n_warn = sum(issubclass(w.category, ConvergenceWarning) for w in caught)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            t_fit = best_of(lambda: IndefiniteSVC(kernel="precomputed").fit(K, y[train]))  # noqa: B023
        krein_svc = KreinSVC(kernel="precomputed").fit(K, y[train])
        t_krein = best_of(lambda: KreinSVC(kernel="precomputed").fit(K, y[train]))  # noqa: B023
        clip = SpectrumTransformer("clip").fit(K)
        clip_svc = SVC(kernel="precomputed", C=float(getattr(model, "C_", model.C))).fit(
            clip.transform(K), y[train]
        )
        histories = model.gap_history_ if isinstance(model.gap_history_, list) else [model.gap_history_]
        n_tasks = len(histories)
        errors = [np.mean(estimator.predict(K_test) != y[test]) for estimator in (model, krein_svc)] + [
            np.mean(clip_svc.predict(clip.transform(K_test)) != y[test])
        ]
        print(
            f"    {name:<17} {train.size:<4} {np.unique(y).size:<4} {np.abs(values).mean():8.3g} "
            f"{np.abs(values).max():8.3g}  {t_fit / t_eigh / n_tasks:10.1f}  {t_fit / t_krein:9.1f}  "
            f"{max(h[-1] for h in histories):7.1e}  {n_warn:4d}  "
            f"{errors[0]:9.3f}  {errors[1]:5.3f}  {errors[2]:8.3f}",
            flush=True,
        )
    print("    eig-eq/task: fit / one scipy.linalg.eigh of K / one-vs-rest tasks; x KreinSVC: fit-time ratio")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--part", type=int, choices=[1, 2, 3, 4], help="run one part only")
    parser.add_argument("--sizes", type=int, nargs="+", help="n of part 2 (default 250 1000 2000)")
    args = parser.parse_args()
    if args.part in (None, 1):
        pg_iteration_vs_eigh(500 if args.quick else 2000)
    if args.part in (None, 2):
        if args.quick:
            fit_vs_eigh(args.sizes or [250], [1.0, 10.0], [1.0, 100.0])
        else:
            fit_vs_eigh(args.sizes or [250, 1000, 2000], PAPER_CS, PAPER_RHOS)
    if args.part in (None, 3):
        with threadpool_limits(1):  # both solvers on one BLAS thread
            if args.quick:
                exchange_vs_projected_gradient(100, [100.0, 1000.0], max_iter=300)
            else:
                exchange_vs_projected_gradient(200, [1.0, 10.0, 100.0, 1000.0], max_iter=1000)
    if args.part in (None, 4):
        distance_sets(DISTANCE_SETS[:2] if args.quick else DISTANCE_SETS)

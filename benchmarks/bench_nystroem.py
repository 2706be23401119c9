"""Benchmarks of krein.nystroem (Oglic & Gärtner 2019): each case times krein and a peer in one run.

1. Streamed low-rank Kreĭn ridge fit, ``KreinRidge(n_components=1000, working_memory=256).fit``
   (n = 10⁶, d = 20, m = 1000, DELTA-GAUSS) against one chunked
   computation of the same m×m Gram matrix Φᵀ Φ by plain GEMMs (kernel block, Φ block = K block · R,
   Φᵀ Φ += Φ blockᵀ Φ block). Targets: time ratio ≤ 2, peak memory ≤ data + 1.5 GB.
2. KreinRidgeClassifier(n_components=1000) against scikit-learn Nystroem + RidgeClassifier at
   n = 2·10⁵ (Gaussian kernel for both, so the work is the same). Target: time ratio ≤ 1; memory ratio.
3. One-shot eigendecomposition (Sec. 2.2) against Gisbrecht–Schleif (Appendix B) at n = 10⁵,
   m = 1000, from the same K_XZ and K_ZZ. The paper's flop counts predict about 2×.

Every measurement runs in a fresh process so that its peak resident memory (``ru_maxrss``) is its own;
memory is reported beyond the resident size once the data are generated.

Usage: ``python benchmarks/bench_nystroem.py [--scale 0.1] [--cases 1 2 3] [--repeat 3] [--blas-threads 1]``.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import resource
import time

import numpy as np

WORKING_MEMORY = 256  # MiB per block of kernel rows


def _rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _data(n, d, seed=0, classes=False):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.standard_normal(n)
    return X, (np.where(y > np.median(y), 1, -1) if classes else y)


def _measure_once(target, args, threads):
    if threads is not None:  # read by the BLAS of the spawned process when it loads
        for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[variable] = str(threads)
    with mp.get_context("spawn").Pool(1) as pool:
        return pool.apply(target, args)


def _measure_pair(first, second, args_first, args_second, threads, repeat):
    """Time two computations alternately ``repeat`` times, each in a fresh process; keep each one's
    fastest run (seconds, peak MiB beyond the data, extra). Alternation and the minimum make the
    ratio robust to other jobs on a shared machine."""
    runs = [[], []]
    for _ in range(repeat):
        runs[0].append(_measure_once(first, args_first, threads))
        runs[1].append(_measure_once(second, args_second, threads))
    return tuple(min(r, key=lambda result: result[0]) for r in runs)


# --------------------------------------------------------------------------- case 1
def _delta_gauss(d):
    from krein.kernels import DeltaGaussian

    return DeltaGaussian(eta1=np.sqrt(d), eta2=2 * np.sqrt(d))


def gram_by_gemm(n, d, m):
    from krein.kernels import block_rows
    from krein.nystroem import landmark_factor, uniform_landmarks

    X, _ = _data(n, d)
    base = _rss_mib()
    kernel = _delta_gauss(d)
    Z = X[uniform_landmarks(n, m, 0)]
    right = landmark_factor(kernel(Z)).right
    start = time.perf_counter()
    gram = np.zeros((right.shape[1],) * 2)
    step = block_rows(m, WORKING_MEMORY, copies=2)
    for first in range(0, n, step):
        features = kernel(X[first : first + step], Z) @ right
        gram += features.T @ features
    return time.perf_counter() - start, _rss_mib() - base, float(np.trace(gram))


def streamed_krein_ridge(n, d, m, lambda_plus=1e-3, lambda_minus=1e-3):
    """The low-rank Kreĭn LSM (Sec. 2.4) fitted by the estimator in one streamed pass."""
    from krein.least_squares import KreinRidge

    X, y = _data(n, d)
    base = _rss_mib()
    start = time.perf_counter()
    model = KreinRidge(
        _delta_gauss(d),
        lambda_plus=lambda_plus,
        lambda_minus=lambda_minus,
        n_components=m,
        random_state=0,
        working_memory=WORKING_MEMORY,
    ).fit(X, y)
    seconds = time.perf_counter() - start
    assert model.representation_.vectors is None  # streamed: no n×r array was held
    return seconds, _rss_mib() - base, "KreinRidge(n_components=1000, working_memory=...).fit"


# --------------------------------------------------------------------------- case 2
def krein_classifier(n, d, m, eta):
    from krein.kernels import Gaussian
    from krein.least_squares import KreinRidgeClassifier

    X, y = _data(n, d, classes=True)
    base = _rss_mib()
    start = time.perf_counter()
    model = KreinRidgeClassifier(
        Gaussian(eta), lambda_plus=1e-4, lambda_minus=1e-4, n_components=m, random_state=0
    ).fit(X, y)
    seconds = time.perf_counter() - start
    return seconds, _rss_mib() - base, float(model.score(X[:20000], y[:20000]))


def sklearn_classifier(n, d, m, eta):
    from sklearn.kernel_approximation import Nystroem
    from sklearn.linear_model import RidgeClassifier
    from sklearn.pipeline import make_pipeline

    X, y = _data(n, d, classes=True)
    base = _rss_mib()
    start = time.perf_counter()
    model = make_pipeline(
        Nystroem(kernel="rbf", gamma=1 / (2 * eta**2), n_components=m, random_state=0),
        RidgeClassifier(alpha=1e-4 * n),
    ).fit(X, y)
    seconds = time.perf_counter() - start
    return seconds, _rss_mib() - base, float(model.score(X[:20000], y[:20000]))


# --------------------------------------------------------------------------- case 3
def eigendecomposition(method, n, d, m):
    from krein.nystroem import gisbrecht_schleif_eigendecomposition, one_shot_eigendecomposition

    X, _ = _data(n, d)
    kernel = _delta_gauss(d)
    Z = X[np.random.default_rng(0).choice(n, m, replace=False)]
    K_XZ, K_ZZ = kernel(X, Z), kernel(Z)
    base = _rss_mib()
    start = time.perf_counter()
    if method == "one-shot":
        result = one_shot_eigendecomposition(K_XZ, K_ZZ)
        values, vectors = result.values, result.vectors
    else:
        values, vectors = gisbrecht_schleif_eigendecomposition(K_XZ, K_ZZ)
    seconds = time.perf_counter() - start
    orthogonality = float(np.max(np.abs(vectors[:, :50].T @ vectors[:, :50] - np.eye(50))))
    return seconds, _rss_mib() - base, (float(values[0]), orthogonality)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every n by this factor")
    parser.add_argument("--cases", type=int, nargs="*", default=[1, 2, 3])
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="alternate the two sides this many times and keep each one's fastest run",
    )
    parser.add_argument(
        "--blas-threads",
        type=int,
        default=None,
        help="BLAS threads for both sides (e.g. 1 on a machine shared with other jobs)",
    )
    args = parser.parse_args()
    d, m = 20, 1000
    print(
        f"BLAS threads: {args.blas_threads or 'library default'}; fastest of {args.repeat} alternating runs"
    )

    if 1 in args.cases:
        n = int(1_000_000 * args.scale)
        data_mib = n * d * 8 / 2**20
        (gemm_s, gemm_mib, _), (fit_s, fit_mib, how) = _measure_pair(
            gram_by_gemm, streamed_krein_ridge, (n, d, m), (n, d, m), args.blas_threads, args.repeat
        )
        print(f"[1] n={n}, d={d}, m={m}, DELTA-GAUSS, working_memory={WORKING_MEMORY} MiB ({how})")
        print(f"    chunked GEMM Gram: {gemm_s:.1f} s; streamed Kreĭn ridge fit: {fit_s:.1f} s")
        print(f"    time ratio fit / GEMM Gram = {fit_s / gemm_s:.2f} (target ≤ 2)")
        print(
            f"    peak memory beyond the data ({data_mib:.0f} MiB): fit {fit_mib:.0f} MiB, "
            f"GEMM Gram {gemm_mib:.0f} MiB (target ≤ 1536 MiB)"
        )

    if 2 in args.cases:
        n = int(200_000 * args.scale)
        eta = np.sqrt(d)
        (ours_s, ours_mib, ours_acc), (peer_s, peer_mib, peer_acc) = _measure_pair(
            krein_classifier,
            sklearn_classifier,
            (n, d, m, eta),
            (n, d, m, eta),
            args.blas_threads,
            args.repeat,
        )
        print(f"[2] n={n}, d={d}, m={m}, Gaussian(eta={eta:.2f}) for both")
        print(
            f"    KreinRidgeClassifier: {ours_s:.1f} s, {ours_mib:.0f} MiB, train acc {ours_acc:.3f}; "
            f"sklearn Nystroem+RidgeClassifier: {peer_s:.1f} s, {peer_mib:.0f} MiB, train acc {peer_acc:.3f}"
        )
        print(
            f"    time ratio krein / sklearn = {ours_s / peer_s:.2f} (target ≤ 1); "
            f"memory ratio = {ours_mib / peer_mib:.2f}"
        )

    if 3 in args.cases:
        n = int(100_000 * args.scale)
        (one_s, one_mib, (one_top, one_orth)), (gs_s, gs_mib, (gs_top, gs_orth)) = _measure_pair(
            eigendecomposition,
            eigendecomposition,
            ("one-shot", n, d, m),
            ("gisbrecht-schleif", n, d, m),
            args.blas_threads,
            args.repeat,
        )
        print(
            f"[3] n={n}, m={m}, DELTA-GAUSS: one-shot {one_s:.2f} s ({one_mib:.0f} MiB), "
            f"Gisbrecht–Schleif {gs_s:.2f} s ({gs_mib:.0f} MiB)"
        )
        print(
            f"    time ratio Gisbrecht–Schleif / one-shot = {gs_s / one_s:.2f} (flop counts predict ~2); "
            f"top eigenvalue {one_top:.6g} vs {gs_top:.6g}; "
            f"max |ŨᵀŨ − I| (top 50) {one_orth:.1e} vs {gs_orth:.1e}"
        )


if __name__ == "__main__":
    main()

"""Fit a low-rank Kreĭn model on a million points, streaming the kernel in blocks.

An indefinite DELTA-GAUSS kernel (difference of two Gaussians, Oglic & Gärtner 2018, App. D) on
n = 1 000 000 points would be an n×n matrix of 8 TB. The Nyström method in Kreĭn spaces (Oglic &
Gärtner 2019, Sec. 2.2) needs only the n×m kernel columns of m landmarks, and with ``working_memory``
the estimator reduces them block by block within that budget (MiB): it accumulates the m×m Gram
matrix and the projections of the targets, never holding an n×m array. The Kreĭn least-squares model
(Sec. 2.4) is then a closed form in the one-shot eigendecomposition K̃ = Ũ Λ Ũᵀ, and f(x) = k(x, Z) β
on the landmarks Z. The same call accepts dask arrays and then runs on a Dask cluster.

Run: ``python examples/million_points_low_rank.py [--n 1000000] [--landmarks 100]`` (offline, well
under a minute on two cores).
"""

import argparse
import time

import numpy as np

from krein.kernels import DeltaGaussian
from krein.least_squares import KreinRidge


def make_data(n, d, rng):
    X = rng.standard_normal((n, d))
    y = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.standard_normal(n)
    return X, y


def main(n=1_000_000, d=5, n_landmarks=100, lam=1e-6, working_memory=64, seed=0):
    rng = np.random.default_rng(seed)
    X, y = make_data(n, d, rng)
    X_test, y_test = make_data(10_000, d, rng)
    kernel = DeltaGaussian(eta1=1.0, eta2=2.0)  # exp(−‖x−x'‖²/2) − exp(−‖x−x'‖²/8): indefinite

    start = time.perf_counter()
    model = KreinRidge(
        kernel,
        lambda_plus=lam,
        lambda_minus=lam,
        n_components=n_landmarks,
        random_state=seed,
        working_memory=working_memory,
    ).fit(X, y)
    seconds = time.perf_counter() - start

    values = model.eigenvalues_  # signed eigenvalues of the rank-m approximation K̃
    rmse = np.sqrt(np.mean((model.predict(X_test) - y_test) ** 2))
    print(
        f"n = {n:,} points, m = {n_landmarks} landmarks, blocks of ≤ {working_memory} MiB: "
        f"fit {seconds:.1f} s"
    )
    print(f"signed spectrum of K̃: {np.sum(values > 0)} positive, {np.sum(values < 0)} negative eigenvalues")
    print(f"test RMSE {rmse:.3f} (standard deviation of the test targets {y_test.std():.3f})")
    return rmse, y_test.std()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--landmarks", type=int, default=100)
    args = parser.parse_args()
    main(n=args.n, n_landmarks=args.landmarks)

"""Benchmark of krein.embedding against the floor and the peer, on one indefinite kernel.

* ``KreinPCA`` (exact) vs its floor, one ``scipy.linalg.eigh`` of the n×n kernel, and vs
  scikit-learn's ``KernelPCA(kernel="precomputed", eigen_solver="dense")``, which refuses the
  indefinite kernel ("significant negative eigenvalues") and is timed on the clipped one;
* ``KreinPCA(n_landmarks=m)`` (one-shot Nyström) vs the same floor;
* ``KreinKMeans`` (Hartigan moves on the Kreĭn objective, one start) vs scikit-learn's ``KMeans``
  (Lloyd, one start) on the flip coordinates ``U |Λ|^{1/2}`` (kernel k-means of the flipped kernel).

The kernel is TL1 on standard normal points in 5 dimensions (indefinite). Threads are pinned to 1.
Run:  python benchmarks/bench_embedding.py [--n 2000] [--landmarks 200] [--clusters 8]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.linalg
from sklearn.cluster import KMeans
from sklearn.decomposition import KernelPCA
from threadpoolctl import threadpool_limits

from krein.embedding import KreinKMeans, KreinPCA
from krein.kernels import TruncatedL1


def timed(fn, repeat=3):
    best, out = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def main(n=2000, landmarks=200, clusters=8):
    X = np.random.default_rng(0).standard_normal((n, 5))
    K = TruncatedL1()(X)
    K = 0.5 * (K + K.T)
    floor, (values, vectors) = timed(lambda: scipy.linalg.eigh(K, driver="evd"))
    clipped = (vectors * np.maximum(values, 0.0)) @ vectors.T
    rows = [
        ("eigh of the n×n kernel (floor)", floor),
        ("KreinPCA, exact", timed(lambda: KreinPCA("precomputed").fit(K))[0]),
        (
            "sklearn KernelPCA, dense, clip(K)",
            timed(lambda: KernelPCA(kernel="precomputed", eigen_solver="dense").fit(clipped))[0],
        ),
        (
            f"KreinPCA, Nyström m = {landmarks}",
            timed(lambda: KreinPCA(TruncatedL1(), n_landmarks=landmarks, random_state=0).fit(X))[0],
        ),
    ]
    print(f"\nembedding of a TL1 kernel, n = {n}")
    for name, seconds in rows:
        print(f"  {name:36s} {seconds:8.3f} s   {seconds / floor:6.2f} × floor")
    flip = KreinPCA("precomputed").fit(K)
    coordinates = flip.embedding_
    krein, model = timed(
        lambda: KreinKMeans(clusters, kernel="precomputed", n_init=1, random_state=0).fit(K), 1
    )
    lloyd, _ = timed(lambda: KMeans(clusters, n_init=1, random_state=0).fit(coordinates), 1)
    print(f"\nk-means, k = {clusters}, one start")
    print(f"  KreinKMeans (Hartigan, Kreĭn objective) {krein:8.3f} s   passes: {model.n_iter_}")
    print(f"  sklearn KMeans on flip coordinates     {lloyd:8.3f} s   ratio {krein / lloyd:6.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--landmarks", type=int, default=200)
    parser.add_argument("--clusters", type=int, default=8)
    args = parser.parse_args()
    with threadpool_limits(1):
        main(args.n, args.landmarks, args.clusters)

"""Benchmark of krein.kernel_learning: learning p base-kernel weights vs p plain kernel ridge fits.

* ``KernelLearningRidge`` with p = 10 Gaussian base kernels (bandwidths spread over two decades) at
  n = 2000, solver PGD (and rIIA), against p independent ``sklearn.kernel_ridge.KernelRidge`` fits —
  one per base kernel, which is what choosing the best single kernel (the paper's BM baseline) costs
  before any cross-validation;
* the cost of one objective evaluation (value, gradient and dual of F(μ) = yᵀ(K_μ + λI)⁻¹y: combine
  the base kernels, factorize, solve, p inner products) against one ``scipy.linalg.cho_factor`` of
  an n×n matrix: each iteration should cost about one Cholesky.

Run:  python benchmarks/bench_kernel_learning.py [--n 2000] [--p 10] [--max-iter 20]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from scipy.linalg import cho_factor
from sklearn.kernel_ridge import KernelRidge

from krein.kernel_learning import KernelLearningRidge
from krein.kernel_learning._combination import KernelCombination
from krein.kernel_learning._objectives import RidgeObjective
from krein.kernels import Gaussian


def timed(fn, repeat=1):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--p", type=int, default=10)
    parser.add_argument("--d", type=int, default=10)
    parser.add_argument("--max-iter", type=int, default=20)
    parser.add_argument("--alpha", type=float, default=0.1)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    X = rng.standard_normal((args.n, args.d))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.standard_normal(args.n)
    etas = np.sqrt(args.d) * np.logspace(-1, 1, args.p)
    kernels = [Gaussian(eta=float(eta)) for eta in etas]

    print(f"n = {args.n}, d = {args.d}, p = {args.p} Gaussian base kernels, alpha = {args.alpha}")
    sk_time, _ = timed(
        lambda: [
            KernelRidge(kernel="rbf", gamma=1.0 / (2 * eta**2), alpha=args.alpha).fit(X, y) for eta in etas
        ]
    )
    print(f"  sklearn KernelRidge, {args.p} independent fits:           {sk_time:8.2f} s")

    for solver in ("pgd", "riia"):
        model = KernelLearningRidge(
            kernels=kernels, solver=solver, alpha=args.alpha, max_iter=args.max_iter, tol=1e-4, beta=1.0
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kl_time, _ = timed(lambda model=model: model.fit(X, y))
        print(
            f"  krein KernelLearningRidge(solver={solver!r}), {model.n_iter_:3d} iterations: {kl_time:8.2f} s"
            f"   ratio krein / sklearn = {kl_time / sk_time:.2f}"
        )

    stack = np.stack([k(X) for k in kernels])
    objective = RidgeObjective(KernelCombination(stack, 1), y, args.alpha)
    mu = np.ones(args.p)
    eval_time, _ = timed(lambda: objective.evaluate(mu), repeat=3)
    A = np.tensordot(mu, stack, axes=1) + args.alpha * np.eye(args.n)
    chol_time, _ = timed(lambda: cho_factor(A, lower=True, check_finite=False), repeat=3)
    print(
        f"  one objective evaluation (d = 1): {eval_time * 1e3:7.1f} ms; one Cholesky: {chol_time * 1e3:7.1f} ms;"
        f"   ratio = {eval_time / chol_time:.2f}"
    )
    objective2 = RidgeObjective(KernelCombination(stack, 2), y, args.alpha)
    eval2_time, _ = timed(lambda: objective2.evaluate(mu), repeat=3)
    print(
        f"  one objective evaluation (d = 2): {eval2_time * 1e3:7.1f} ms;"
        f"   ratio to one Cholesky = {eval2_time / chol_time:.2f}"
    )


if __name__ == "__main__":
    main()

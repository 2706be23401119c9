"""Kreĭn least squares: cost of a fit relative to one eigendecomposition, and against scikit-learn.

Targets (issue 4), all on one precomputed indefinite kernel (sigmoid kernel, n = 3000):

* ``VarianceConstrainedKrein`` fit ≤ 1.3 × one ``scipy.linalg.eigh`` of the same matrix;
* 50 fits along a (λ₊, λ₋, r) grid (``fit_path``: one eigendecomposition) ≤ 1.5 × one ``eigh``;
* one hypergradient evaluation (validation loss and its gradient in λ₊, λ₋, r and the sigmoid's η, the
  unit of :class:`~krein.model_selection.HypergradientSearchCV`; 4/5 of the points train) against one
  ``eigh`` of the training block (LAPACK's ``syevd``, the driver krein uses, faster than scipy's
  default): the kernel part adds GEMMs of O(n² min(n₊, n₋)), so about 2× (Table 3 of Oglic & Gärtner
  2018 spends ~85 % of a cell in these two);
* ``KreinRidge`` versus ``sklearn.kernel_ridge.KernelRidge(kernel="precomputed")`` (scikit-learn's
  Cholesky solve fails on the indefinite matrix and falls back to a least-squares solve).

Every timing is the best of ``--repeats`` runs; ratios are printed from this one run.

    python benchmarks/bench_least_squares.py [--n 3000] [--repeats 3]
"""

import argparse
import time
import warnings

import numpy as np
import scipy.linalg
from sklearn.kernel_ridge import KernelRidge

from krein.kernels import Sigmoid
from krein.least_squares import KreinRidge, VarianceConstrainedKrein
from krein.spectral import indefiniteness


def best_time(function, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    X = rng.standard_normal((args.n, 10))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] * X[:, 2] + 0.1 * rng.standard_normal(args.n)
    K = Sigmoid(2.0)(X)
    print(f"n = {args.n}, sigmoid kernel, indefiniteness ι = {indefiniteness(K):.3f}")

    eigh = best_time(lambda: scipy.linalg.eigh(K), args.repeats)
    vc = best_time(
        lambda: VarianceConstrainedKrein("precomputed", lambda_plus=1e-3, lambda_minus=1e-2, radius=0.5).fit(
            K, y
        ),
        args.repeats,
    )
    grid = [
        {"lambda_plus": a, "lambda_minus": b, "radius": r}
        for a in np.logspace(-4, -1, 5)
        for b in np.logspace(-4, -1, 5)
        for r in (0.3, 0.6)
    ]
    path = best_time(lambda: VarianceConstrainedKrein("precomputed").fit_path(K, y, grid), args.repeats)
    train = 4 * args.n // 5
    eigh_train = best_time(lambda: scipy.linalg.eigh(K[:train, :train], driver="evd"), args.repeats)
    tuned = VarianceConstrainedKrein(Sigmoid(2.0), lambda_plus=1e-3, lambda_minus=1e-2, radius=0.5)
    hypergradient = best_time(
        lambda: tuned._validation_loss_and_gradient(X[:train], y[:train], X[train:], y[train:]), args.repeats
    )
    ridge = best_time(
        lambda: KreinRidge("precomputed", lambda_plus=1e-3, lambda_minus=1e-3).fit(K, y), args.repeats
    )
    alpha = args.n * 1e-3  # the same regularization for λ₊ = λ₋ on the flip spectrum
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn warns that it falls back to lstsq
        sklearn_ridge = best_time(
            lambda: KernelRidge(alpha=alpha, kernel="precomputed").fit(K, y), args.repeats
        )

    print(f"scipy.linalg.eigh                         {eigh:8.3f} s")
    print(
        f"VarianceConstrainedKrein.fit              {vc:8.3f} s   ratio to eigh {vc / eigh:5.2f}  (target ≤ 1.3)"
    )
    print(
        f"fit_path, {len(grid)} (λ₊, λ₋, r) settings      {path:8.3f} s   ratio to eigh {path / eigh:5.2f}  (target ≤ 1.5)"
    )
    print(
        f"hypergradient, {train} training points     {hypergradient:8.3f} s   ratio to their eigh "
        f"{hypergradient / eigh_train:5.2f}  (target ≤ 2.5)"
    )
    print(f"KreinRidge.fit                            {ridge:8.3f} s")
    print(
        f"sklearn KernelRidge(precomputed).fit      {sklearn_ridge:8.3f} s   "
        f"KernelRidge / KreinRidge {sklearn_ridge / ridge:5.2f}  (target > 1)"
    )


if __name__ == "__main__":
    main()

"""The proxy-kernel SVM as a user first meets it: its first fit in a fresh process, in eigendecompositions.

``IndefiniteSVC(kernel="precomputed", C=10, rho=100)`` on the sigmoid kernel of the papers' setting
(n = 250, ``benchmarks/bench_svm.py``'s ``sigmoid_problem``) is fitted once in a new interpreter with
no thread variables set (imports done, so that the time is the fit's: the first call's warm-up
included), and its time is divided by that of one ``scipy.linalg.eigh`` of the same matrix measured in
the same process (the best of five). Target (issue 39): at most 10. Each of ``--repeat`` fresh
processes prints its ratio; the median is reported.

Run: ``python benchmarks/bench_proxy_fresh.py [--repeat 5] [--n 250]``.
"""

import argparse
import os
import statistics
import subprocess
import sys

CHILD = """
import time
import numpy as np
import scipy.linalg
from krein.kernels import Sigmoid
from krein.svm import IndefiniteSVC

n = {n}
rng = np.random.default_rng(0)
X = rng.standard_normal((n, 10))
y = np.where(X[:, 0] + X[:, 1] + rng.standard_normal(n) > 0, 1, -1)
K = Sigmoid(eta=2.0)(X / np.sqrt(10))
start = time.perf_counter()
IndefiniteSVC(kernel="precomputed", C=10, rho=100).fit(K, y)
fit = time.perf_counter() - start
eigh = []
for _ in range(5):
    start = time.perf_counter()
    scipy.linalg.eigh(K)
    eigh.append(time.perf_counter() - start)
print(fit / min(eigh), fit, min(eigh))
"""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--n", type=int, default=250)
    args = parser.parse_args(argv)
    environment = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    ratios = []
    for _ in range(args.repeat):
        output = subprocess.run(
            [sys.executable, "-c", CHILD.format(n=args.n)],
            env=environment,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        ratio, fit, eigh = map(float, output)
        ratios.append(ratio)
        print(f"first fit {fit * 1e3:.1f} ms, one eigh {eigh * 1e3:.2f} ms: {ratio:.1f} eigendecompositions")
    print(f"median over {args.repeat} fresh processes: {statistics.median(ratios):.1f} eigendecompositions")
    return ratios


if __name__ == "__main__":
    main()

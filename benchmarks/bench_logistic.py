"""IKLR (Liu et al. 2019): CCICP-GD vs CCCP-GD, and KLR on a flipped kernel vs scikit-learn.

Two comparisons on one train/test split of the shipped ``banana`` data (TL1 kernel, ρ = 0.7·d,
features scaled to [0, 1]):

1. CCICP-GD (ε = 1) vs CCCP-GD (ε = 1e-4, the paper's setting for CCCP-GD in Table IV), both 20 outer
   iterations from α = 0, with three rules for the inner gradient steps:

   - ``step="paper"``: Algorithm 1 as printed: α ← α − η_t ∇F_k(α) with η_0 = 0.02, η_{t+1} = 0.8 η_t
     (lines 1, 9, 11; restarted for each subproblem), no safeguard, stop once |ΔF_k| ≤ ε;
   - ``step="paper"`` with η_0 = 1/L (L = λ(μ_max + τ) + μ_max²/(4n), the largest curvature of F_k): the
     same rule with a step that suits the kernel's scale (η = 0.02 overshoots once 0.02 > 2/L);
   - ``step="plain"``: the same absolute step without the decay, halved whenever it would increase F_k;
   - ``step="majorizer"`` (krein's default): the step preconditioned by the diagonal majorizer
     P ⪰ ∇²F_k in the eigenbasis of K, which nearly solves a subproblem in one step.

   The paper reports CCICP-GD 3.5–38× faster with accuracy within 0.2–4.4 points (Table IV). Printed
   per run: the time of Algorithm 1 alone on one shared eigendecomposition, the outer iterations, the
   gradient steps (in all, and in the largest subproblem) and the evaluations of F_k they cost, the
   objective and the test accuracy; for the paper's rule also the full ``fit`` (which eigendecomposes
   the kernel itself, an O(n³) cost identical for both solvers). The step counts show where the
   paper's speed-up comes from: a tight ε needs many absolute steps per subproblem, and few
   preconditioned ones.
2. The same problem after flipping the spectrum (|K| = V|Λ|Vᵀ, positive semidefinite, so IKLR is
   ordinary KLR) against scikit-learn's ``LogisticRegression`` on the explicit features Φ = V|Λ|^½
   (ΦΦᵀ = |K|, C = 1/(λn), no intercept): the same objective, two solvers.

3. (``--low-rank``, instead of 1 and 2) The low-rank fit ``IndefiniteLogisticRegression(n_components=m)``
   (Nyström eigen-coordinates, O(n r) per CCCP step, never an n×n array) against the exact fit, both
   CCICP-GD with the default step, on synthetic data (scikit-learn's ``make_classification``, d = 10,
   standardized; TL1 kernel): fit time, test accuracy and ratio at ``--n`` (exact and low rank), then the low-rank fit
   alone at each ``--large-n`` (where the exact one would hold an n×n kernel), beside the floor of one
   landmark kernel block ``K(X, Z)`` (n×m).

4. (``--streaming``) Streamed low-rank fits that never hold an n×m block (issue 18): at ``--n`` points
   (``make_classification``, d = ``--d``, standardized; Gaussian kernel η = √d), ``n_components=--m``
   and ``working_memory=256`` MiB, the fit time (wall and CPU: the machine may be shared, and the
   fits run one after another) and the peak resident memory beyond the data of
   ``KreinRidge`` (±1 targets; one pass: the Nyström Gram matrix), ``IndefiniteLogisticRegression``
   (CCICP-GD, 20 outer iterations, each one pass over the landmark kernel columns) and
   ``KreinSquaredHingeSVC`` (finite Newton, one pass per iteration); each fit runs in a fresh
   process (peak RSS from ``getrusage`` minus the RSS once the data exist), and the ratios to
   ``KreinRidge`` are printed. Threads are pinned to one (``OMP/OPENBLAS/MKL_NUM_THREADS=1``).

5. (``--sgd``) One epoch of CCICP-SGD's single-sample steps (Eq. 12, the paper's step η = 0.02; Table IV's
   full form spends most of its time there): the allocation-free epoch of the linear-model form
   (``krein.optimize``: one dot product, one diagonal scaling and one axpy per sample) against the
   mini-batch loop through ``convex_batch_gradient`` (the loop before it: ~20 small NumPy calls per
   sample), on the TL1 kernel of synthetic data: exact at n = ``--n`` (r = n coordinates) and low rank
   (m = ``--m``) at ``--large-n``, features scaled to [0, 1]; the same permutation, so the iterates
   must agree (printed).

Run: ``python benchmarks/bench_logistic.py [--n 5000] [--alpha 1e-3]``, or
``python benchmarks/bench_logistic.py --low-rank [--n 5000] [--m 200] [--large-n 20000]``, or
``python benchmarks/bench_logistic.py --streaming [--n 100000] [--m 1000] [--d 20]``, or
``python benchmarks/bench_logistic.py --sgd [--n 2000] [--m 1000] [--large-n 7490]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import MinMaxScaler

from krein.datasets import load_dataset
from krein.kernels import TruncatedL1
from krein.logistic import IndefiniteLogisticRegression
from krein.logistic._iklr import _LogisticDC
from krein.optimize import concave_convex_procedure
from krein.representation import SpectralRepresentation
from krein.spectral import indefiniteness

#: The paper's absolute learning rate η (Algorithm 1, line 1), for the plain gradient step.
PAPER_LEARNING_RATE = 0.02
#: Cap on the gradient steps per subproblem (the estimator's default).
MAX_INNER_ITER = 1000


class _CountingLogisticDC(_LogisticDC):
    """Objective (6) that counts the evaluations of its convex part (one per tried gradient step)."""

    def __init__(self, *args):
        super().__init__(*args)
        self.evaluations = 0
        self.evaluations_per_subproblem = []

    def convex(self, c):
        self.evaluations += 1
        return super().convex(c)

    def end_subproblem(self, k, c):
        """``callback`` of the CCCP driver: record the evaluations of the subproblem just solved."""
        self.evaluations_per_subproblem.append(self.evaluations - sum(self.evaluations_per_subproblem))


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - start


def _synthetic(n, d=10, n_test=2000, seed=0):
    X, y = make_classification(n_samples=n + n_test, n_features=d, random_state=seed)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    return X[:n], y[:n], X[n:], y[n:]


def low_rank(args):
    """Part 3: the exact fit against the low-rank one at ``args.n``, then low rank at ``args.large_n``."""
    common = {"kernel": TruncatedL1(), "alpha": args.alpha, "solver": "ccicp"}
    print(f"3. IKLR, n_components={args.m} vs exact; TL1, synthetic d = 10, λ = {args.alpha}")
    print(f"  {'n':>7s} {'model':>9s} {'fit s':>8s} {'accuracy':>9s} {'floor K(X,Z) s':>15s}")
    for n in [args.n, *args.large_n]:
        X, y, X_test, y_test = _synthetic(n)
        landmarks = X[np.sort(np.random.default_rng(0).choice(n, args.m, replace=False))]
        _, floor = timed(common["kernel"], X, landmarks)
        seconds = {}
        for name, extra in [("exact", {}), ("low rank", {"n_components": args.m, "random_state": 0})]:
            if name == "exact" and n != args.n:
                continue
            model = IndefiniteLogisticRegression(**common, **extra)
            _, seconds[name] = timed(model.fit, X, y)
            accuracy = model.score(X_test, y_test)
            print(f"  {n:7d} {name:>9s} {seconds[name]:8.2f} {accuracy:9.4f} {floor:15.3f}")
        if "exact" in seconds:
            print(f"  ratio exact / low rank at n = {n}: {seconds['exact'] / seconds['low rank']:.1f}x")
        print(f"  ratio low rank / floor at n = {n}: {seconds['low rank'] / floor:.1f}x")


class _BatchLoopLogisticDC(_LogisticDC):
    """Objective (6) without the linear-model form: SGD steps through ``convex_batch_gradient``."""

    quadratic_weight = None


def sgd_epoch(args):
    """Part 5: one single-sample SGD epoch, the allocation-free loop against the batch-gradient loop."""
    print(f"5. one CCICP-SGD epoch (batch 1, step='paper', η = 0.02), TL1 kernel, λ = {args.alpha}")
    print(f"  {'model':>18s} {'n':>6s} {'r':>5s} {'loop s':>8s} {'new s':>8s} {'µs/step':>8s} {'ratio':>6s} "
          f"{'max rel diff':>12s}")  # fmt: skip
    for n, m in [(args.n, None), (args.large_n[0], args.m)]:
        X, y, _, _ = _synthetic(n, n_test=1)
        X = MinMaxScaler().fit_transform(X)  # features in [0, 1] as in the paper (Sec. V-A)
        model = IndefiniteLogisticRegression(TruncatedL1(), n_components=m, random_state=0)
        spectrum = model._fit_representation(model._training_data(X, y)[0])
        spectrum.vectors = np.ascontiguousarray(spectrum.vectors)  # held, rows contiguous, as fit stores them
        tau = 20 * max(-spectrum.values.min(), 0.0)
        y_pm = np.where(y == 1, 1.0, -1.0)
        seconds, points = {}, {}
        for name, cls in (("loop", _BatchLoopLogisticDC), ("new", _LogisticDC)):
            problem = cls(spectrum, y_pm, args.alpha, tau)
            start = time.process_time()
            result = concave_convex_procedure(
                problem, np.zeros(spectrum.values.size), inner="sgd", step="paper", learning_rate=0.02,
                inexact_tol=np.inf, max_outer_iter=1, max_inner_iter=1, random_state=0,
            )  # fmt: skip
            seconds[name], points[name] = time.process_time() - start, result.x
        difference = np.max(np.abs(points["new"] - points["loop"])) / np.max(np.abs(points["loop"]))
        label = "exact" if m is None else f"low rank m={m}"
        print(f"  {label:>18s} {n:6d} {spectrum.values.size:5d} {seconds['loop']:8.2f} {seconds['new']:8.2f} "
              f"{1e6 * seconds['new'] / n:8.2f} {seconds['loop'] / seconds['new']:6.1f} {difference:12.2e}")  # fmt: skip


#: Threads pinned for the streaming comparison (each fit runs in its own process with these).
PINNED = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
STREAMED = ("KreinRidge", "IndefiniteLogisticRegression", "KreinSquaredHingeSVC")


def _resident_mib():
    with open("/proc/self/status") as status:
        line = next(line for line in status if line.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024


def streaming_one(args):
    """One streamed fit (in this process): prints a JSON line with its time, memory and accuracy."""
    from krein.kernels import Gaussian
    from krein.least_squares import KreinRidge
    from krein.representation import NystroemRepresentation
    from krein.svm import KreinSquaredHingeSVC

    passes = [1]  # the one-shot eigendecomposition's pass; then each pass of a solver over the data
    for name in ("reduce_rows", "training_outputs", "landmark_moment"):
        method = getattr(NystroemRepresentation, name)
        setattr(
            NystroemRepresentation,
            name,
            lambda self, *a, _method=method: passes.append(1) or _method(self, *a),
        )
    X, y, X_test, y_test = _synthetic(args.n, d=args.d, n_test=10_000)
    data_mib = _resident_mib()
    common = {"kernel": Gaussian(np.sqrt(args.d)), "n_components": args.m, "working_memory": 256.0}
    model = {
        "KreinRidge": lambda: KreinRidge(**common, random_state=0),
        "IndefiniteLogisticRegression": lambda: IndefiniteLogisticRegression(
            **common, alpha=args.alpha, random_state=0
        ),
        "KreinSquaredHingeSVC": lambda: KreinSquaredHingeSVC(**common, random_state=0),
    }[args.streaming_one]()
    targets = np.where(y == 1, 1.0, -1.0) if args.streaming_one == "KreinRidge" else y
    cpu = time.process_time()
    _, seconds = timed(model.fit, X, targets)
    cpu = time.process_time() - cpu
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    scores = model.predict(X_test)
    accuracy = float(
        np.mean((scores > 0 if args.streaming_one == "KreinRidge" else scores == 1) == (y_test == 1))
    )
    row = {
        "seconds": seconds,
        "cpu_seconds": cpu,
        "beyond_data_mib": peak_mib - data_mib,
        "accuracy": accuracy,
        "passes": len(passes),
    }
    print(json.dumps(row))


def streaming(args):
    """Part 4: each streamed fit in a fresh process with pinned threads; times, memory and ratios."""
    print(f"4. streamed fits: n = {args.n}, d = {args.d}, m = {args.m}, working_memory = 256 MiB, "
          f"Gaussian η = √d, λ (IKLR) = {args.alpha}; one thread")  # fmt: skip
    print(
        f"  {'estimator':30s} {'fit s':>8s} {'cpu s':>8s} {'passes':>6s} {'MiB > data':>10s} {'accuracy':>8s}"
    )
    rows = {}
    for name in STREAMED:
        command = [sys.executable, __file__, "--streaming-one", name, "--n", str(args.n), "--m", str(args.m),
                   "--d", str(args.d), "--alpha", str(args.alpha)]  # fmt: skip
        output = subprocess.run(
            command, env={**os.environ, **PINNED}, capture_output=True, text=True, check=True
        )
        rows[name] = json.loads(output.stdout.strip().splitlines()[-1])
        row = rows[name]
        print(
            f"  {name:30s} {row['seconds']:8.1f} {row['cpu_seconds']:8.1f} {row['passes']:6d} "
            f"{row['beyond_data_mib']:10.0f} {row['accuracy']:8.4f}"
        )
    for name in STREAMED[1:]:
        wall, cpu = (rows[name][key] / rows["KreinRidge"][key] for key in ("seconds", "cpu_seconds"))
        print(f"  ratio {name} / KreinRidge: {wall:.2f}x wall, {cpu:.2f}x cpu")


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=5000, help="training points")
    parser.add_argument("--alpha", type=float, default=1e-3)
    parser.add_argument("--dataset", default="banana")
    parser.add_argument("--low-rank", action="store_true", help="run part 3 only")
    parser.add_argument("--m", type=int, default=200, help="landmarks of part 3")
    parser.add_argument("--large-n", type=int, nargs="*", default=[20000], help="low-rank sizes of part 3")
    parser.add_argument("--streaming", action="store_true", help="run part 4 only")
    parser.add_argument("--streaming-one", choices=STREAMED, help=argparse.SUPPRESS)
    parser.add_argument("--d", type=int, default=20, help="features of part 4")
    parser.add_argument("--sgd", action="store_true", help="run part 5 only")
    args = parser.parse_args()
    if args.sgd:
        sgd_epoch(args)
        return
    if args.streaming_one:
        streaming_one(args)
        return
    if args.streaming:
        streaming(args)
        return
    if args.low_rank:
        low_rank(args)
        return

    data = load_dataset(args.dataset)
    rng = np.random.default_rng(0)
    order = rng.permutation(data.target.size)
    X = MinMaxScaler().fit_transform(data.data[order])
    y = data.target[order]
    train, test = slice(0, args.n), slice(args.n, None)
    kernel = TruncatedL1()
    K, kernel_seconds = timed(kernel, X[train])
    K_test = kernel(X[test], X[train])
    spectrum, eig_seconds = timed(SpectralRepresentation.exact, K)
    values, vectors = spectrum.values, spectrum.vectors
    print(f"{args.dataset}: n_train = {args.n}, n_test = {K_test.shape[0]}, λ = {args.alpha}")
    print(f"TL1 kernel {kernel_seconds:.2f} s, eigendecomposition {eig_seconds:.2f} s; "
          f"μ_min = {values[0]:.4g}, μ_max = {values[-1]:.4g}")  # fmt: skip

    # 1. CCICP-GD vs CCCP-GD, with the paper's plain gradient steps and with krein's preconditioned ones
    print(f"\n1. CCICP-GD (ε = 1) vs CCCP-GD (ε = 1e-4), 20 outer iterations from α = 0, at most "
          f"{MAX_INNER_ITER} gradient steps per subproblem; ι = {indefiniteness(values):.2e}")  # fmt: skip
    y_pm = np.where(y[train] == np.unique(y)[1], 1.0, -1.0)
    tau = 20 * max(-values[0], 0.0)  # the estimator's default shift
    # L: the largest curvature of a subproblem F_k (the majorizer's largest entry, at α = 0)
    curvature = float(np.max(_LogisticDC(spectrum, y_pm, args.alpha, tau).metric))
    print(f"  L = λ(μ_max + τ) + μ_max²/(4n) = {curvature:.4g}: plain steps with η > 2/L = {2 / curvature:.3g} "
          "overshoot along the top eigenvector")  # fmt: skip
    rows = {}
    for label, step, learning_rate in [
        ("paper", "paper", PAPER_LEARNING_RATE),
        ("paper, η = 1/L", "paper", 1.0 / curvature),
        ("plain", "plain", PAPER_LEARNING_RATE),
        ("majorizer", "majorizer", 1.0),
    ]:
        print(f"  step={step!r}, learning_rate={learning_rate:.4g}")
        for name, solver, eps in [("CCCP-GD", "cccp", 1e-4), ("CCICP-GD", "ccicp", 1.0)]:
            problem = _CountingLogisticDC(spectrum, y_pm, args.alpha, tau)
            result, solver_seconds = timed(
                concave_convex_procedure, problem, np.zeros(values.size), step=step,
                learning_rate=learning_rate, inexact_tol=eps, max_outer_iter=20,
                max_inner_iter=MAX_INNER_ITER, callback=problem.end_subproblem,
            )  # fmt: skip
            alpha = spectrum.dual_coef(result.x)
            accuracy = np.mean(np.where(K_test @ alpha > 0, np.unique(y)[1], np.unique(y)[0]) == y[test])
            line = (f"    {name:9s} solver {solver_seconds:7.2f} s  {result.n_iter} outer iterations, "
                    f"{result.n_inner_iter:5d} gradient steps ({problem.evaluations:5d} evaluations of g, "
                    f"at most {max(problem.evaluations_per_subproblem)} in one subproblem)\n"
                    f"              objective {result.history[-1]:.6f} "
                    f"(max rise {np.max(np.diff(result.history), initial=0.0):.3g})  "
                    f"test accuracy {accuracy:.4f}")  # fmt: skip
            fit_seconds = np.nan
            if label == "paper":  # the estimator end to end, with its own eigendecomposition
                model = IndefiniteLogisticRegression(
                    kernel=kernel, alpha=args.alpha, solver=solver, inexact_tol=eps, step=step,
                    max_inner_iter=MAX_INNER_ITER, center=False, fit_intercept=False,  # the paper's model
                )  # fmt: skip
                _, fit_seconds = timed(model.fit, X[train], y[train])
                line += f"  (full fit {fit_seconds:.2f} s, accuracy {model.score(X[test], y[test]):.4f})"
            if result.n_inner_iter >= MAX_INNER_ITER:  # otherwise no subproblem can have hit the cap
                line += "  [the cap may have stopped a subproblem]"
            print(line)
            rows[label, name] = (solver_seconds, fit_seconds, accuracy, result.n_inner_iter)
        exact, inexact = rows[label, "CCCP-GD"], rows[label, "CCICP-GD"]
        fit_ratio = "" if label != "paper" else f", full fit {exact[1] / inexact[1]:.2f}x"
        print(f"    ratio CCCP-GD / CCICP-GD ({label}): solver {exact[0] / inexact[0]:.1f}x{fit_ratio} "
              f"(paper: 3.5-38x), gradient steps {exact[3] / inexact[3]:.1f}x; accuracy difference "
              f"{100 * (exact[2] - inexact[2]):+.2f} points")  # fmt: skip

    # 2. Flipped kernel: krein KLR vs scikit-learn LogisticRegression on explicit features
    print("\n2. flipped kernel |K|: IndefiniteLogisticRegression (KLR) vs sklearn LogisticRegression on Φ")
    signs = np.sign(values)
    K_flip = (vectors * np.abs(values)) @ vectors.T
    K_flip_test = ((K_test @ vectors) * signs) @ vectors.T
    features = vectors * np.sqrt(np.abs(values))
    features_test = (K_test @ vectors) * (signs / np.sqrt(np.abs(values)))
    klr = IndefiniteLogisticRegression(
        kernel="precomputed",
        alpha=args.alpha,
        solver="cccp",
        inexact_tol=1e-6,
        center=False,
        fit_intercept=False,
    )
    _, klr_seconds = timed(klr.fit, K_flip, y[train])
    problem = _LogisticDC(SpectralRepresentation(np.abs(values), vectors), y_pm, args.alpha, 0.0)
    _, klr_solver_seconds = timed(
        concave_convex_procedure, problem, np.zeros(values.size), inexact_tol=1e-6, max_outer_iter=20
    )
    peer = LogisticRegression(C=1.0 / (args.alpha * args.n), fit_intercept=False, max_iter=1000)
    _, peer_seconds = timed(peer.fit, features, y[train])
    klr_accuracy = klr.score(K_flip_test, y[test])
    peer_accuracy = peer.score(features_test, y[test])
    agreement = np.mean(klr.predict(K_flip_test) == peer.predict(features_test))
    print(
        f"  krein fit {klr_seconds:.2f} s (with its eigendecomposition), solver alone "
        f"{klr_solver_seconds:.3f} s, objective {klr.objective_history_[0][-1]:.6f}, accuracy {klr_accuracy:.4f}"
    )
    print(
        f"  sklearn lbfgs on Φ (features given) {peer_seconds:.2f} s, {peer.n_iter_[0]} iterations, "
        f"accuracy {peer_accuracy:.4f}; predictions agree on {100 * agreement:.2f} % of test points"
    )
    print(f"  ratio sklearn / krein: vs krein solver alone {peer_seconds / klr_solver_seconds:.1f}x, "
          f"vs krein full fit {peer_seconds / klr_seconds:.2f}x")  # fmt: skip


if __name__ == "__main__":
    main()

"""krein owns its threads (issue 39 item 1): a user who sets no thread variable runs as fast as one who
runs BLAS on one thread.

Parts (``--part``, any of them; default ``sizes cv``):

``sizes``
    The measurement behind :data:`krein._threads.SMALL_PROBLEM_ROWS`: ``scipy.linalg.eigh`` (``evd``)
    and a GEMM ``A @ A`` at n = 200, 500, 1000, 2000, 4000 with one and with two BLAS threads
    (``threadpoolctl``), the two counts alternated, the best of several runs each.
``cv``
    ``KreinClassifierCV`` as the showcase runs it (its quick form's data: the six tasks, at most 250
    objects, inner stratified 3-fold CV), fitted on the training part of each of the 5 outer folds.
    Three cases, each in its own fresh interpreter launched from here with no thread variable in its
    environment (``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS``, ``MKL_NUM_THREADS``, ... removed):
    ``none`` (no thread setting: krein's policy decides), ``blas1`` (every fit inside
    ``threadpoolctl.threadpool_limits(1)``), and, for reference, ``off`` (no setting and the size rule
    switched off, ``SMALL_PROBLEM_ROWS = 0``: BLAS threaded as before the policy). The cases run
    alternately ``--repeat`` times; the best total of each is kept. Target: none / blas1 ≤ 1.10.
``reproduce``
    ``krein reproduce --quick`` (a fresh output folder each time) with no thread variable against
    ``OPENBLAS_NUM_THREADS=1``: wall and CPU seconds of the child process. Minutes; run once.
    Target: wall time ratio ≤ 1.10.

Usage: ``python benchmarks/bench_threads.py [--part sizes cv reproduce] [--repeat 3] [--cases none blas1 off]``\n(``--cases``: those of ``cv``; ``blas1`` is always run). Run it from a
checkout (``PYTHONPATH=src`` is passed on to the children when set).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "GOTO_NUM_THREADS",
)


def clean_environment(**extra):
    """This process's environment without any thread variable, plus ``extra``."""
    env = {key: value for key, value in os.environ.items() if key not in THREAD_VARIABLES}
    env.update(extra)
    return env


# -- sizes ---------------------------------------------------------------------------------------------


def part_sizes(repeat):
    import numpy as np
    import scipy.linalg
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(0)

    def best(f, runs):
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            f()
            times.append(time.perf_counter() - start)
        return min(times)

    print("sizes: best time (s) with 1 and 2 BLAS threads; speed-up = t(1) / t(2)")
    print(
        f"{'n':>5}  {'eigh 1':>8} {'eigh 2':>8} {'speed-up':>8}   {'gemm 1':>8} {'gemm 2':>8} {'speed-up':>8}"
    )
    for n in (200, 500, 1000, 2000, 4000):
        A = rng.standard_normal((n, n))
        S = A + A.T
        runs = 5 if n <= 1000 else 2
        cells = []
        eigh = functools.partial(scipy.linalg.eigh, S, driver="evd", check_finite=False)
        for f in (eigh, functools.partial(np.matmul, A, A)):
            f()  # warm up
            t = {1: np.inf, 2: np.inf}
            for _ in range(repeat):
                for k in (1, 2):
                    with threadpool_limits(k, user_api="blas"):
                        t[k] = min(t[k], best(f, runs))
            cells += [t[1], t[2], t[1] / t[2]]
        print(
            f"{n:>5}  {cells[0]:8.4f} {cells[1]:8.4f} {cells[2]:8.2f}   {cells[3]:8.4f} {cells[4]:8.4f} {cells[5]:8.2f}"
        )


# -- cv ------------------------------------------------------------------------------------------------


def prepare_tasks(path):
    """The showcase's quick data (six tasks), saved for the children."""
    import numpy as np

    from krein.experiments.showcase import FORMS, TASKS, load_task

    max_samples = FORMS.of(SimpleNamespace(quick=True)).max_samples
    arrays = {}
    for i, task in enumerate(TASKS):
        data = load_task(task, max_samples=max_samples, seed=0)
        arrays[f"matrix{i}"] = data.matrix
        arrays[f"y{i}"] = data.y
        arrays[f"distance{i}"] = np.array(data.is_dissimilarity)
    np.savez(path, names=np.array([t.name for t in TASKS]), **arrays)


def child_cv(path, case):
    """Fit KreinClassifierCV on each task's outer training folds; print the seconds as JSON."""
    from contextlib import nullcontext

    import numpy as np
    from sklearn.model_selection import StratifiedKFold

    from krein import _threads
    from krein.model_selection import KreinClassifierCV

    if case == "off":
        _threads.SMALL_PROBLEM_ROWS = 0
    if case == "blas1":
        from threadpoolctl import threadpool_limits

        def setting():
            return threadpool_limits(1)
    else:
        setting = nullcontext
    data = np.load(path)
    outer = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
    inner = StratifiedKFold(n_splits=3, shuffle=True, random_state=0)
    seconds = {}
    for i, name in enumerate(data["names"]):
        X, y = data[f"matrix{i}"], data[f"y{i}"]
        matrix = {"metric": "precomputed"} if bool(data[f"distance{i}"]) else {"kernel": "precomputed"}
        total = 0.0
        for train, _ in outer.split(X, y):
            X_train = X[np.ix_(train, train)]
            start = time.perf_counter()
            with setting():
                KreinClassifierCV(**matrix, cv=inner).fit(X_train, y[train])
            total += time.perf_counter() - start
        seconds[str(name)] = total
    print(json.dumps(seconds))


def run_child(args, env):
    out = subprocess.run(
        [sys.executable, __file__, *args], env=env, capture_output=True, text=True, check=False
    )
    if out.returncode:
        sys.exit(f"child {args} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def part_cv(repeat, cases=("none", "blas1", "off")):
    with tempfile.TemporaryDirectory(prefix="krein-bench-threads-") as folder:
        path = str(Path(folder) / "tasks.npz")
        subprocess.run([sys.executable, __file__, "--prepare", path], env=clean_environment(), check=True)
        best = {case: None for case in cases}
        for r in range(repeat):
            for case in cases:
                seconds = run_child(["--child", path, case], clean_environment())
                total = sum(seconds.values())
                print(
                    f"run {r + 1} {case:>5}: {total:6.1f} s " + " ".join(f"{v:.1f}" for v in seconds.values())
                )
                if best[case] is None or total < sum(best[case].values()):
                    best[case] = seconds
    print("\nKreinClassifierCV fit seconds (5 outer training folds per task, best total of each case):")
    others = [case for case in cases if case != "blas1"]
    print(
        f"{'task':<32} "
        + " ".join(f"{case:>7}" for case in cases)
        + " "
        + " ".join(f"{c + '/blas1':>11}" for c in others)
    )
    rows = [(task, {case: best[case][task] for case in cases}) for task in best["blas1"]]
    rows.append(("total", {case: sum(best[case].values()) for case in cases}))
    for task, t in rows:
        print(
            f"{task:<32} "
            + " ".join(f"{t[case]:7.2f}" for case in cases)
            + " "
            + " ".join(f"{t[case] / t['blas1']:11.2f}" for case in others)
        )
    print("target: none / blas1 ≤ 1.10")


# -- reproduce -----------------------------------------------------------------------------------------


def timed(command, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def part_reproduce():
    results = {}
    for label, extra in (("no variable", {}), ("OPENBLAS_NUM_THREADS=1", {"OPENBLAS_NUM_THREADS": "1"})):
        with tempfile.TemporaryDirectory(prefix="krein-bench-reproduce-") as folder:
            command = [sys.executable, "-m", "krein.cli", "reproduce", "--quick", "--out", folder]
            results[label] = timed(command, clean_environment(**extra))
        wall, cpu = results[label]
        print(f"krein reproduce --quick, {label:<24}: wall {wall:6.1f} s, CPU {cpu:6.1f} s", flush=True)
    ratio = results["no variable"][0] / results["OPENBLAS_NUM_THREADS=1"][0]
    print(f"wall time ratio (no variable / OPENBLAS_NUM_THREADS=1): {ratio:.2f} (target ≤ 1.10)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", nargs="+", choices=["sizes", "cv", "reproduce"], default=["sizes", "cv"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--cases",
        nargs="+",
        choices=["none", "blas1", "off"],
        default=["none", "blas1", "off"],
        help="of --part cv",
    )
    parser.add_argument("--prepare", help=argparse.SUPPRESS)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.prepare:
        prepare_tasks(args.prepare)
        return
    if args.child:
        child_cv(*args.child)
        return
    if "sizes" in args.part:
        part_sizes(args.repeat)
    if "cv" in args.part:
        part_cv(args.repeat, tuple(dict.fromkeys([*args.cases, "blas1"])))
    if "reproduce" in args.part:
        part_reproduce()


if __name__ == "__main__":
    main()

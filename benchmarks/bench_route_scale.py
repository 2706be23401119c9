"""The recommended route at scale: ``KreinClassifierCV(metric="dtw")`` exact and at low rank, on series.

Three measurements, each printed as a table or a ratio (BLAS pinned to one thread where it times):

1. **Exact route cost** (``--exact-cost N``): the fit of ``KreinClassifierCV(metric="precomputed")`` on
   N two-class points (precomputed Euclidean distances) over the time of one ``scipy.linalg.eigh`` of
   the N × N matrix, in one run, both in CPU seconds (one thread: the work, whatever else runs).
2. **Low rank against exact and 1-NN** on cylinder–bell–funnel series
   (:func:`krein.datasets.make_cylinder_bell_funnel`, Saito 1994: three shapes at random onsets and
   widths, noise σ = 1), ``--n-train`` training and ``--n-test`` test series of ``--length`` points:
   test error of the low-rank route (``n_components=--landmarks``), of the exact route (when
   ``n_train ≤ --exact-max``) and of 1-NN DTW; the low-rank fit time beside the time of its own n × m
   DTW evaluations; the distance evaluations against n·m + m²; peak memory beyond the data.

Run: ``python benchmarks/bench_route_scale.py [--quick] [--out FILE.json]``; ``--quick`` is the
scaled-down form the tests run (``tests/test_bench_route_scale.py``). The full form (n = 10⁴, 2000
test series, m = 500) takes about an hour on one core; ``--n-train 100000 --length 100 --n-test 0``
is the 10⁵-series memory run.
"""

import argparse
import json
import resource
import sys
import time
from pathlib import Path

import numpy as np
import scipy.linalg
from scipy.spatial.distance import cdist
from threadpoolctl import threadpool_limits

from krein.datasets import make_cylinder_bell_funnel
from krein.dissimilarity import dtw_distances
from krein.model_selection import KreinClassifierCV


def _peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def exact_cost(n, seed=0):
    """Fit time of the exact route over one eigendecomposition of the n × n distance matrix.

    Both are timed in CPU seconds of this process (BLAS on one thread, the route's folds in sequence,
    so CPU time is the work done): the ratio then does not depend on what else the machine runs."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = (X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=n) > 0).astype(int)
    D = cdist(X, X)
    started = time.process_time()
    scipy.linalg.eigh(D)
    eigh = time.process_time() - started
    started = time.process_time()
    model = KreinClassifierCV(metric="precomputed", random_state=seed, n_jobs=1).fit(D, y)
    fit = time.process_time() - started
    return {
        "n": n,
        "eigh_s": eigh,
        "fit_s": fit,
        "ratio": fit / eigh,
        "choice": model.best_params_["method"],
        "n_splits": sum(key.startswith("split") for key in model.cv_results_),
    }


def _outputs(model, test):
    """``(labels, decisions)`` of the refitted model on ``test``: its decision values, or its labels
    where it has none (k-NN, whose test distances to every training object are computed once)."""
    labels = model.predict(test)
    if hasattr(model.best_estimator_, "decision_function"):
        return labels, np.asarray(model.decision_function(test), dtype=float)
    return labels, labels.astype(float)


def low_rank_against_exact(
    n_train, n_test, length, landmarks, exact_max, seed=0, verbose=1, n_jobs=None, cluster=False, one_nn=True
):
    """Test errors and costs of the low-rank route, the exact route and 1-NN on the same split; with
    ``cluster`` the low-rank fit again on a two-worker ``LocalCluster`` and the largest difference of
    its test decisions from the in-memory fit's."""
    X, y = make_cylinder_bell_funnel(n_train + n_test, length=length, random_state=seed)
    series = list(X)
    train, test = series[:n_train], series[n_train:]
    y_train, y_test = y[:n_train], y[n_train:]
    baseline_mb = _peak_mb()
    out = {"n_train": n_train, "n_test": n_test, "length": length, "landmarks": landmarks}
    started = time.perf_counter()
    model = KreinClassifierCV(
        metric="dtw", n_components=landmarks, random_state=seed, verbose=verbose, n_jobs=n_jobs
    )
    model.fit(train, y_train)
    out["low_rank_fit_s"] = time.perf_counter() - started
    out["low_rank_peak_mb_beyond_data"] = _peak_mb() - baseline_mb
    out["low_rank_choice"] = {k: str(v) for k, v in model.best_params_.items()}
    out["n_distance_evaluations"] = model.n_distance_evaluations_
    out["n_m_plus_m2"] = n_train * landmarks + landmarks**2
    out["block_s"] = model.distance_seconds_  # the route's own n × m DTW evaluations, timed in the fit
    out["fit_over_block"] = out["low_rank_fit_s"] / out["block_s"]
    if n_test:
        labels, decisions = _outputs(model, test)
        out["low_rank_error"] = float(np.mean(labels != y_test))
    if n_test and one_nn:
        D_test = dtw_distances(test, train)
        out["one_nn_error"] = float(np.mean(y_train[np.argmin(D_test, axis=1)] != y_test))
        if n_train <= exact_max:
            started = time.perf_counter()
            exact = KreinClassifierCV(metric="precomputed", n_components=None, random_state=seed)
            exact.fit(dtw_distances(train), y_train)
            out["exact_fit_s"] = time.perf_counter() - started
            out["exact_error"] = float(np.mean(exact.predict(D_test) != y_test))
            out["exact_choice"] = {k: str(v) for k, v in exact.best_params_.items()}
    if n_test and cluster:
        import joblib
        from dask.distributed import Client, LocalCluster

        started = time.perf_counter()
        with (
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True) as local,
            Client(local),
            joblib.parallel_config(backend="dask"),
        ):
            on_cluster = KreinClassifierCV(
                metric="dtw", n_components=landmarks, random_state=seed, verbose=verbose
            )
            on_cluster.fit(train, y_train)
            out["cluster_fit_s"] = time.perf_counter() - started
        out["cluster_choice"] = {k: str(v) for k, v in on_cluster.best_params_.items()}
        out["cluster_max_difference"] = float(np.max(np.abs(decisions - _outputs(on_cluster, test)[1])))
    return out


def report(result):
    lines = []
    if "exact_cost" in result:
        c = result["exact_cost"]
        lines.append(
            f"exact route, n = {c['n']} ({c['n_splits']} folds): fit {c['fit_s']:.1f} CPU s = "
            f"{c['ratio']:.1f} × one eigh ({c['eigh_s']:.2f} s); chose {c['choice']}"
        )
    r = result["cbf"]
    lines.append(f"CBF, n = {r['n_train']} (+{r['n_test']} test), length {r['length']}, m = {r['landmarks']}")
    lines.append(f"{'route':<12} {'test error':>10} {'fit (s)':>9}")
    if "low_rank_error" in r:
        lines.append(f"{'low rank':<12} {r['low_rank_error']:>10.4f} {r['low_rank_fit_s']:>9.1f}")
        if "exact_error" in r:
            lines.append(f"{'exact':<12} {r['exact_error']:>10.4f} {r['exact_fit_s']:>9.1f}")
        if "one_nn_error" in r:
            lines.append(f"{'1-NN DTW':<12} {r['one_nn_error']:>10.4f} {'':>9}")
    if "cluster_max_difference" in r:
        lines.append(
            f"LocalCluster (2 workers): fit {r['cluster_fit_s']:.1f} s, same choice "
            f"{r['cluster_choice'] == r['low_rank_choice']}, largest test decision difference "
            f"{r['cluster_max_difference']:.2e}"
        )
    lines.append(
        f"low-rank fit / its n × m DTW block: {r['low_rank_fit_s']:.1f} / {r['block_s']:.1f} s "
        f"= {r['fit_over_block']:.2f}"
    )
    lines.append(
        f"distance evaluations {r['n_distance_evaluations']} ≤ n·m + m² = {r['n_m_plus_m2']}; "
        f"peak memory beyond the data {r['low_rank_peak_mb_beyond_data']:.0f} MB"
    )
    return "\n".join(lines)


def scale_table(results):
    """The guide's table of the large runs (one row per stored JSON), 80 columns at most."""
    lines = [
        f"{'n':>7} {'length':>6} {'m':>4} {'fit (s)':>8} {'DTW (s)':>8} {'fit/DTW':>7} {'evals':>10} {'n·m+m²':>10} {'MB':>5}"
    ]
    for result in results:
        r = result["cbf"]
        lines.append(
            f"{r['n_train']:>7} {r['length']:>6} {r['landmarks']:>4} {r['low_rank_fit_s']:>8.0f} "
            f"{r['block_s']:>8.0f} {r['fit_over_block']:>7.2f} {r['n_distance_evaluations']:>10} "
            f"{r['n_m_plus_m2']:>10} {r['low_rank_peak_mb_beyond_data']:>5.0f}"
        )
    lines.append("fit: KreinClassifierCV(metric='dtw', n_components=m, n_jobs=2); DTW: its n × m")
    lines.append("distances, timed in the fit; evals: distance evaluations; MB: peak memory")
    lines.append("beyond the data (maximum resident set size)")
    return "\n".join(lines)


GUIDE_START, GUIDE_END = "<!-- route scale table", "<!-- end route scale table -->"


def write_guide(path, results):
    guide = path.read_text()
    head, rest = guide.split(GUIDE_START, 1)
    marker_line, rest = rest.split("\n", 1)
    _, tail = rest.split(GUIDE_END, 1)
    text = f"{head}{GUIDE_START}{marker_line}\n```text\n{scale_table(results)}\n```\n{GUIDE_END}{tail}"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the scaled-down sizes the tests run")
    parser.add_argument("--n-train", type=int, default=10_000)
    parser.add_argument("--n-test", type=int, default=2000)
    parser.add_argument("--length", type=int, default=128)
    parser.add_argument("--landmarks", type=int, default=500)
    parser.add_argument("--exact-max", type=int, default=10_000, help="run the exact route up to this n")
    parser.add_argument("--exact-cost", type=int, default=2000, help="n of the exact-route cost (0: skip)")
    parser.add_argument("--n-jobs", type=int, help="threads of the route (distances and folds)")
    parser.add_argument("--cluster", action="store_true", help="fit again on a 2-worker LocalCluster")
    parser.add_argument("--no-one-nn", action="store_true", help="skip 1-NN and the exact route (large n)")
    parser.add_argument("--out", type=Path, help="write the results as JSON")
    parser.add_argument("--guide", type=Path, help="with --tables: write their table into this guide")
    parser.add_argument("--tables", type=Path, nargs="*", help="only tabulate these stored runs (JSON)")
    args = parser.parse_args(argv)
    if args.tables:
        results = [json.loads(path.read_text()) for path in args.tables]
        print(scale_table(results))
        if args.guide:
            write_guide(args.guide, results)
        return results
    if args.quick:
        args.n_train, args.n_test, args.length, args.landmarks = 150, 90, 32, 30
        args.exact_max, args.exact_cost = 150, 100
    result = {"command": " ".join(["python", "benchmarks/bench_route_scale.py", *sys.argv[1:]])}
    with threadpool_limits(1):
        if args.exact_cost:
            result["exact_cost"] = exact_cost(args.exact_cost)
        result["cbf"] = low_rank_against_exact(
            args.n_train,
            args.n_test,
            args.length,
            args.landmarks,
            args.exact_max,
            verbose=int(not args.quick),
            n_jobs=args.n_jobs,
            cluster=args.cluster,
            one_nn=not args.no_one_nn,
        )
    print(report(result))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        tmp = args.out.with_suffix(".tmp")
        tmp.write_text(json.dumps(result, indent=2))
        tmp.replace(args.out)
    return result


if __name__ == "__main__":
    main()

"""Several elastic distances in one route, against the Elastic Ensemble (Lines & Bagnall 2015).

On the shipped UCR sets with official splits (gunpoint, arrowhead, italypowerdemand), test error (%) and
fit time of

* 1-NN DTW (krein's ``"dtw"``, no window);
* ``KreinClassifierCV(metric="dtw")``: the one-distance route;
* ``KreinClassifierCV(metric=ELASTIC)``: the several-distance route over the field's elastic distances
  (DTW, derivative and weighted DTW, MSM, TWE, ERP, LCSS, EDR; aeon's numba routines through
  ``krein.dissimilarity.pairwise_distances``): each distance's kernels and k-NN, their uniform sum and
  the weighted vote of the per-distance winners, chosen by the same inner folds;
* aeon's ``ElasticEnsemble`` (1-NN on eleven elastic distances, each tuned by leave-one-out over 100
  parameter values, voting with their cross-validated accuracies), run here with ``--ee`` (its
  published setting; ``--ee-fraction`` tunes on a fraction of the parameter values to save time);
* the published EE and Proximity Forest errors (the result files of Proximity Forest 2.0, first
  resample, and the mean of ten runs of the Proximity Forest paper; a range where the two differ).

Run: ``python benchmarks/bench_elastic.py [--ee] [--out DIR] [--guide docs/guide.md]`` (``--rewrite
JSON`` rewrites the outputs from a stored run); writes
``elastic.json``, ``elastic.md`` and ``elastic.png`` to ``DIR`` (default ``docs/results/elastic``)
and, with ``--guide``, the table between the guide's ``elastic table`` markers
(``tests/test_practice_results.py`` checks that the guide's table is this JSON's). BLAS on one thread.
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from krein.datasets import load_dataset
from krein.dissimilarity import dtw_distances
from krein.model_selection import KreinClassifierCV

SEED = 0
SETS = ("gunpoint", "arrowhead", "italypowerdemand")
ELASTIC = ["dtw", "ddtw", "wdtw", "msm", "twe", "erp", "lcss", "edr"]
#: Published test errors (%), issue 38: EE and Proximity Forest (PF 2.0 first resample .. PF mean of ten).
PUBLISHED = {
    "gunpoint": {"EE": 1.3, "PF": (0.0, 0.7)},
    "arrowhead": {"EE": 18.9, "PF": (12.6, 15.5)},
    "italypowerdemand": {"EE": 3.9, "PF": (3.2, 3.6)},
}
COLUMNS = ("1-NN DTW", "route DTW", "route elastic", "EE here", "EE publ.")


def _timed(function):
    started = time.perf_counter()
    value = function()
    return value, time.perf_counter() - started


def run_set(name, with_ee, ee_fraction):
    bunch = load_dataset(name)
    X, y = np.asarray(bunch.data, dtype=float), np.asarray(bunch.target)
    train, test = np.asarray(bunch.train_idx), np.asarray(bunch.test_idx)
    errors, seconds, choices = {}, {}, {}
    D, seconds["1-NN DTW"] = _timed(lambda: dtw_distances(X[test], X[train]))
    errors["1-NN DTW"] = 100 * float(np.mean(y[train][np.argmin(D, axis=1)] != y[test]))
    for column, metric in (("route DTW", "dtw"), ("route elastic", ELASTIC)):
        model, seconds[column] = _timed(
            lambda metric=metric: KreinClassifierCV(metric=metric, random_state=SEED).fit(X[train], y[train])
        )
        errors[column] = 100 * float(np.mean(model.predict(X[test]) != y[test]))
        choices[column] = {key: str(value) for key, value in model.best_params_.items()}
    if with_ee:
        from aeon.classification.distance_based import ElasticEnsemble

        ee = ElasticEnsemble(proportion_of_param_options=ee_fraction, random_state=SEED)
        _, seconds["EE here"] = _timed(lambda: ee.fit(X[train][:, None, :], y[train]))
        errors["EE here"] = 100 * float(np.mean(ee.predict(X[test][:, None, :]) != y[test]))
    errors["EE publ."] = PUBLISHED[name]["EE"]
    return {
        "task": name,
        "n_train": int(train.size),
        "n_test": int(test.size),
        "error": errors,
        "fit_seconds": seconds,
        "choice": choices,
        "proximity_forest": PUBLISHED[name]["PF"],
    }


#: Column labels of the table (11 characters at most).
LABELS = {
    "1-NN DTW": "1-NN DTW",
    "route DTW": "route DTW",
    "route elastic": "route elast",
    "EE here": "EE here",
}
LABELS["EE publ."] = "EE publ."


def _line(name, cells):
    return f"{name:<16}" + "".join(f" {cell:>11}" for cell in cells)


def table(result):
    rows = result["rows"]
    lines = [_line("set", [LABELS[c] for c in COLUMNS])]
    for row in rows:
        lines.append(
            _line(row["task"], [f"{row['error'][c]:.1f}" if c in row["error"] else "" for c in COLUMNS])
        )
    means = {c: np.mean([r["error"][c] for r in rows]) for c in COLUMNS if all(c in r["error"] for r in rows)}
    lines.append(_line("mean", [f"{means[c]:.2f}" if c in means else "" for c in COLUMNS]))
    lines.append("")
    lines.append("test error (%); route elast: KreinClassifierCV over " + ", ".join(ELASTIC[:4]) + ",")
    lines.append("  " + ", ".join(ELASTIC[4:]))
    lines.append("EE publ.: published Elastic Ensemble errors; EE here: aeon's, this machine")
    timed = COLUMNS[1:4]
    lines.append(_line("fit time (s)", [LABELS[c] for c in timed] + ["elast/EE"]))
    for row in rows:
        s = row["fit_seconds"]
        ratio = [f"{s['route elastic'] / s['EE here']:.3f}"] if "EE here" in s else []
        lines.append(_line(row["task"], [f"{s[c]:.1f}" if c in s else "" for c in timed] + ratio))
    return "\n".join(lines)


def plot(result, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result["rows"]
    names = [c for c in COLUMNS if all(c in r["error"] for r in rows)]
    figure, axis = plt.subplots(figsize=(8, 4))
    width = 0.8 / len(names)
    x = np.arange(len(rows))
    for k, name in enumerate(names):
        axis.bar(x + k * width, [r["error"][name] for r in rows], width, label=name)
    axis.set_xticks(x + 0.4 - width / 2, [r["task"] for r in rows])
    axis.set_ylabel("test error (%)")
    axis.set_title("Several elastic distances in one route against the Elastic Ensemble")
    axis.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def write_atomically(path, text):
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def write_guide(path, text):
    start, end = "<!-- elastic table", "<!-- end elastic table -->"
    guide = path.read_text()
    head, rest = guide.split(start, 1)
    marker_line, rest = rest.split("\n", 1)
    _, tail = rest.split(end, 1)
    write_atomically(path, f"{head}{start}{marker_line}\n```text\n{text}\n```\n{end}{tail}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ee", action="store_true", help="also run aeon's ElasticEnsemble here")
    parser.add_argument("--ee-fraction", type=float, default=1.0, help="EE's proportion_of_param_options")
    parser.add_argument("--only", nargs="*", default=list(SETS))
    parser.add_argument("--out", type=Path, default=Path("docs/results/elastic"))
    parser.add_argument("--guide", type=Path)
    parser.add_argument("--rewrite", type=Path, help="only rewrite the outputs from this stored JSON")
    args = parser.parse_args(argv)
    if args.rewrite:
        result = json.loads(args.rewrite.read_text())
    else:
        result = {"command": " ".join(["python", "benchmarks/bench_elastic.py", *sys.argv[1:]]), "rows": []}
        with threadpool_limits(1):
            for name in args.only:
                row = run_set(name, args.ee, args.ee_fraction)
                print(json.dumps(row), flush=True)
                result["rows"].append(row)
    text = table(result)
    print(text)
    args.out.mkdir(parents=True, exist_ok=True)
    write_atomically(args.out / "elastic.json", json.dumps(result, indent=2))
    write_atomically(args.out / "elastic.md", f"```text\n{text}\n```\n")
    plot(result, args.out / "elastic.png")
    if args.guide:
        write_guide(args.guide, text)


if __name__ == "__main__":
    main()

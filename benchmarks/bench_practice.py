"""What a practitioner gets: ``KreinClassifierCV`` against 1-NN, clip+SVC and flip+SVC on real data.

On every shipped classification set with a domain distance or similarity — DTW on gunpoint, arrowhead,
italypowerdemand (univariate) and basicmotions, japanesevowels (multivariate, dependent DTW), the edit
distance on splice DNA strings, the tangent distance on USPS 3 vs 5 and digits 3 vs 5, the human and
alignment similarities aural-sonar and chen-protein, and the dissimilarities protein and coilyork — the
test error of

* ``KreinClassifierCV`` (defaults: ``metric="precomputed"`` for a distance, ``kernel="precomputed"``
  for a similarity; ``cv="auto"``, repeated stratified 5-fold), against
* 1-NN on the distance (on a similarity: the most similar training object),
* clip+SVC and flip+SVC: ``GridSearchCV`` over ``C`` (and, for a distance, the ``γ`` of
  ``GaussianOfDistance``), the grid a user would write, on the same inner folds
  (``krein.model_selection.auto_cv`` with the same seed),

on the official train/test split where the set has one, otherwise on repeated stratified 70/30 splits
(the mean over the repetitions). Larger sets are subsampled (stratified) to ``--max-train`` training
objects. Fit times are measured with BLAS pinned to one thread, and the ratio of ``KreinClassifierCV``'s
fit to the clip+SVC grid search on the same training data is printed per set and over all sets.

Run: ``python benchmarks/bench_practice.py [--quick] [--out DIR] [--guide docs/guide.md]``; writes
``practice.json``, ``practice.md`` and ``practice.png`` to ``DIR`` (default ``docs/results/practice``)
and, with ``--guide``, the table between the guide's ``practice table`` markers
(``tests/test_practice_results.py`` checks that the guide's table is this JSON's).
"""

import argparse
import json
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import joblib
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, StratifiedShuffleSplit
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from krein.datasets import load_dataset
from krein.dissimilarity import (
    GaussianOfDistance,
    dtw_distances,
    edit_distances,
    tangent_distances,
)
from krein.model_selection import KreinClassifierCV, auto_cv
from krein.spectral import SpectrumTransformer

SEED = 0
C_GRID = [0.01, 0.1, 1.0, 10.0, 100.0, 1000.0]
GAMMA_GRID = [0.3, 1.0, 3.0, 10.0]
CACHE = joblib.Memory(Path(__file__).parent / ".cache", verbose=0)


@dataclass(frozen=True)
class Task:
    name: str
    dataset: str
    measure: str  # "dtw", "dtw-ndim", "edit", "tangent", "similarity", "dissimilarity"
    repeats: int = 0  # 0: the official split; otherwise stratified 70/30 splits


TASKS = (
    Task("gunpoint / DTW", "gunpoint", "dtw"),
    Task("arrowhead / DTW", "arrowhead", "dtw"),
    Task("italypowerdemand / DTW", "italypowerdemand", "dtw"),
    Task("basicmotions / DTW", "basicmotions", "dtw-ndim"),
    Task("japanesevowels / DTW", "japanesevowels", "dtw-ndim"),
    Task("splice / edit", "splice-strings", "edit", repeats=3),
    Task("usps 3v5 / tangent", "usps-3v5", "tangent"),
    Task("digits 3v5 / tangent", "digits-3v5", "tangent", repeats=3),
    Task("aural-sonar / sim.", "aural-sonar", "similarity", repeats=5),
    Task("chen-protein / sim.", "chen-protein", "similarity", repeats=5),
    Task("protein / dissim.", "protein", "dissimilarity", repeats=5),
    Task("coilyork / dissim.", "coilyork", "dissimilarity"),
)
QUICK = ("gunpoint / DTW", "italypowerdemand / DTW", "aural-sonar / sim.", "protein / dissim.")


def _dtw_ndim(series):
    from dtaidistance import dtw_ndim

    items = [np.ascontiguousarray(np.asarray(s, dtype=np.double).T) for s in series]  # (length, channels)
    D = np.asarray(dtw_ndim.distance_matrix_fast(items, compact=False), dtype=float)
    return np.maximum(D, D.T)  # the dependent multivariate DTW (one warping path for all channels)


@CACHE.cache
def _distances(dataset, measure, indices):
    """The full matrix over the objects ``indices`` (cached on disk between runs)."""
    data = load_dataset(dataset).data
    if measure == "dtw":
        return dtw_distances(np.asarray(data, dtype=float)[indices])
    if measure == "dtw-ndim":
        return _dtw_ndim([data[i] for i in indices])
    if measure == "edit":
        return edit_distances([str(s) for s in np.asarray(data)[indices]])
    if measure == "tangent":
        return tangent_distances(np.asarray(data, dtype=float)[indices])
    raise ValueError(measure)


def _stratified_subset(y, size, seed):
    if size is None or y.size <= size:
        return np.arange(y.size)
    split = StratifiedShuffleSplit(n_splits=1, train_size=size, random_state=seed)
    return np.sort(next(split.split(np.zeros(y.size), y))[0])


def load(task, max_train):
    """``(M, y, splits, is_distance)``: the matrix over all objects used and the (train, test) splits."""
    bunch = load_dataset(task.dataset)
    y = np.asarray(bunch.target)
    if task.measure in ("similarity", "dissimilarity"):
        M = np.asarray(bunch.data, dtype=float)
        if "data_test" in bunch:  # coilyork: train block and test-vs-train block given
            n, t = M.shape[0], len(bunch.target_test)
            full = np.zeros((n + t, n + t))
            full[:n, :n] = 0.5 * (M + M.T)  # graph matching is asymmetric: the usual symmetrization
            full[n:, :n] = np.asarray(bunch.data_test, dtype=float)
            y = np.concatenate([y, np.asarray(bunch.target_test)])
            return full, y, [(np.arange(n), np.arange(n, n + t))], True
        M = 0.5 * (M + M.T)
        distance = task.measure == "dissimilarity"
    else:
        distance = True
    if task.repeats:
        kept = _stratified_subset(y, None if max_train is None else int(max_train / 0.7), SEED)
        splitter = StratifiedShuffleSplit(n_splits=task.repeats, test_size=0.3, random_state=SEED)
        splits = [(kept[a], kept[b]) for a, b in splitter.split(kept, y[kept])]
    else:
        train = np.asarray(bunch.train_idx)
        train = train[_stratified_subset(y[train], max_train, SEED)]
        test = np.asarray(bunch.test_idx)
        test = test[_stratified_subset(y[test], 4 * max_train if max_train else None, SEED)]
        splits = [(train, test)]
    if task.measure in ("similarity", "dissimilarity"):
        return M, y, splits, distance
    used = np.unique(np.concatenate([np.concatenate(s) for s in splits]))
    D = np.zeros((y.size, y.size))
    D[np.ix_(used, used)] = _distances(task.dataset, task.measure, used)
    return D, y, splits, True


def _spectrum_svc(method, distance, inner):
    steps = [("spectrum", SpectrumTransformer(method)), ("svc", SVC(kernel="precomputed"))]
    grid = {"svc__C": C_GRID}
    if distance:
        steps.insert(0, ("gaussian", GaussianOfDistance()))
        grid["gaussian__gamma"] = GAMMA_GRID
    return GridSearchCV(Pipeline(steps), grid, cv=inner)


def methods(distance, y_train):
    """The compared estimators; the grid searches get ``KreinClassifierCV``'s inner folds."""
    inner = auto_cv(y_train, random_state=SEED)
    krein = KreinClassifierCV(
        **({"metric": "precomputed"} if distance else {"kernel": "precomputed"}), random_state=SEED
    )
    return {
        "KreinClassifierCV": krein,
        "1-NN": KNeighborsClassifier(1, metric="precomputed"),
        "clip+SVC": _spectrum_svc("clip", distance, inner),
        "flip+SVC": _spectrum_svc("flip", distance, inner),
    }


def _as_distance(S):
    """A similarity's nearest neighbour as a distance: ``max S − S`` (the same order in each row)."""
    return S.max() - S


def run_task(task, max_train):
    M, y, splits, distance = load(task, max_train)
    errors, seconds = {}, {}
    for train, test in splits:
        for name, estimator in methods(distance, y[train]).items():
            X = M if distance or name != "1-NN" else _as_distance(M)
            start = time.perf_counter()
            estimator.fit(X[np.ix_(train, train)], y[train])
            seconds.setdefault(name, []).append(time.perf_counter() - start)
            error = 1.0 - estimator.score(X[np.ix_(test, train)], y[test])
            errors.setdefault(name, []).append(100.0 * error)
            if name == "KreinClassifierCV":
                chosen = estimator.best_params_
    n_train = int(np.mean([len(t) for t, _ in splits]))
    return {
        "task": task.name,
        "n_train": n_train,
        "n_classes": int(np.unique(y).size),
        "split": "official" if not task.repeats else f"{task.repeats} × 70/30",
        "distance": distance,
        "error": {k: float(np.mean(v)) for k, v in errors.items()},
        "seconds": {k: float(np.sum(v)) for k, v in seconds.items()},
        "chosen": {k: (v if isinstance(v, str | int) else float(v)) for k, v in chosen.items()},
    }


def table(rows):
    lines = [
        f"{'task':<24}{'n':>5} {'Kreĭn CV':>9}{'1-NN':>7}{'clip':>7}{'flip':>7}{'time×':>7}",
    ]
    for r in rows:
        e = r["error"]
        ratio = r["seconds"]["KreinClassifierCV"] / r["seconds"]["clip+SVC"]
        lines.append(
            f"{r['task']:<24.24}{r['n_train']:>5} {e['KreinClassifierCV']:>9.1f}{e['1-NN']:>7.1f}"
            f"{e['clip+SVC']:>7.1f}{e['flip+SVC']:>7.1f}{ratio:>7.2f}"
        )
    return "\n".join(lines)


GUIDE_START = "<!-- practice table: generated from docs/results/practice/practice.json by benchmarks/bench_practice.py -->"
GUIDE_END = "<!-- end practice table -->"


def report(result):
    """The table and the summary lines, as printed and as the guide shows them."""
    s = result["summary"]
    return (
        table(result["rows"])
        + "\n\ntest error (%); time×: KreinClassifierCV fit / clip+SVC grid search fit\n"
        + f"KreinClassifierCV ≤ 1-NN on {s['not_worse_than_1nn']} of {s['distance_sets']} distance sets;\n"
        + f"mean error {s['mean_error_krein']:.2f} against {s['mean_error_better_svc']:.2f} for the better of\n"
        + f"clip+SVC and flip+SVC; fit time {s['time_ratio_total']:.2f}× clip+SVC over all sets\n"
        + f"(worst set {s['time_ratio_worst']:.2f}×)"
    )


def write_guide(path, result):
    text = path.read_text()
    start, end = text.index(GUIDE_START) + len(GUIDE_START), text.index(GUIDE_END)
    path.write_text(text[:start] + "\n```text\n" + report(result) + "\n```\n" + text[end:])


def summary(rows):
    on_distance = [r for r in rows if r["distance"]]
    not_worse_1nn = sum(r["error"]["KreinClassifierCV"] <= r["error"]["1-NN"] + 1e-9 for r in on_distance)
    krein = np.mean([r["error"]["KreinClassifierCV"] for r in rows])
    better_svc = np.mean([min(r["error"]["clip+SVC"], r["error"]["flip+SVC"]) for r in rows])
    total_ratio = sum(r["seconds"]["KreinClassifierCV"] for r in rows) / sum(
        r["seconds"]["clip+SVC"] for r in rows
    )
    worst_ratio = max(r["seconds"]["KreinClassifierCV"] / r["seconds"]["clip+SVC"] for r in rows)
    return {
        "distance_sets": len(on_distance),
        "not_worse_than_1nn": int(not_worse_1nn),
        "mean_error_krein": float(krein),
        "mean_error_better_svc": float(better_svc),
        "time_ratio_total": float(total_ratio),
        "time_ratio_worst": float(worst_ratio),
    }


def plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = ["KreinClassifierCV", "1-NN", "clip+SVC", "flip+SVC"]
    colors = ["tab:green", "tab:grey", "tab:blue", "tab:orange"]
    figure, axis = plt.subplots(figsize=(11, 4.2))
    width = 0.8 / len(names)
    x = np.arange(len(rows))
    for k, (name, color) in enumerate(zip(names, colors, strict=True)):
        axis.bar(x + k * width, [r["error"][name] for r in rows], width, label=name, color=color)
    axis.set_xticks(x + 0.4 - width / 2, [r["task"] for r in rows], rotation=30, ha="right", fontsize=8)
    axis.set_ylabel("test error (%)")
    axis.set_title("KreinClassifierCV against what practitioners do (lower is better)")
    axis.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK)}")
    parser.add_argument("--max-train", type=int, default=400, help="training objects per set at most")
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).parents[1] / "docs" / "results" / "practice"
    )
    parser.add_argument("--guide", type=Path, help="write the table into this guide (docs/guide.md)")
    parser.add_argument("--only", nargs="*", help="task names (prefixes) to run")
    args = parser.parse_args()
    tasks = [t for t in TASKS if not args.quick or t.name in QUICK]
    if args.only:
        tasks = [t for t in tasks if any(t.name.startswith(p) for p in args.only)]
    rows = []
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", UserWarning)
        for task in tasks:
            rows.append(run_task(task, args.max_train))
            print(table(rows[-1:]).splitlines()[-1], flush=True)
    result = {"rows": rows, "summary": summary(rows), "max_train": args.max_train, "seed": SEED}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "practice.json").write_text(json.dumps(result, indent=1) + "\n")
    text = report(result)
    (args.out / "practice.md").write_text("```text\n" + text + "\n```\n")
    plot(rows, args.out / "practice.png")
    if args.guide is not None:
        write_guide(args.guide, result)
    print(text)


if __name__ == "__main__":
    main()

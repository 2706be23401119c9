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

``--similarity``: the four similarity and dissimilarity sets of Chen et al. (aural-sonar, chen-protein,
protein, coilyork; coilyork within its training block, the only square block it ships) on 10
stratified 70/30 splits each: the route's mean error against the better of
clip+SVC and flip+SVC, their paired difference and its standard error (``practice-similarity.json``,
``.md`` and the guide's ``practice similarity table``).

``--regression``: the same for real targets (``practice-regression.json``, ``.md``, ``.png`` and the
guide's ``practice regression table``; ``--regression --rewrite`` rewrites them from the stored JSON). The test RMSE of ``KreinRegressorCV`` against

* on the shipped regression series sets covid3month (DTW) and cardanosentiment (dependent multivariate
  DTW), official split: 1-NN and 5-NN on the distance, clip + ``KernelRidge`` on
  ``GaussianOfDistance`` and the Kreĭn least squares (``KreinRidge`` on ``GaussianOfDistance`` or the
  double-centred kernel), both tuned by ``GridSearchCV`` on ``KreinRegressorCV``'s inner folds
  (``auto_cv(y, classifier=False)`` with the same seed);
* on the vector sets yacht, airfoil and pm10 (features standardized on the training part, at most
  ``--max-train`` training points), 5 repeated random 70/30 splits: ``KreinRegressorCV(kernel=Gaussian())``
  against scikit-learn's ``KernelRidge(kernel="rbf")`` and ``SVR`` tuned by ``GridSearchCV`` on the same
  inner folds (targets standardized, as ``KreinRegressorCV`` does); mean ± standard error over the splits.
"""

import argparse
import json
import time
import warnings
from dataclasses import dataclass, replace
from pathlib import Path

import joblib
import numpy as np
from sklearn.compose import TransformedTargetRegressor
from sklearn.exceptions import ConvergenceWarning
from sklearn.kernel_ridge import KernelRidge
from sklearn.model_selection import GridSearchCV, ShuffleSplit, StratifiedShuffleSplit
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, SVR
from threadpoolctl import threadpool_limits

from krein.datasets import load_dataset
from krein.dissimilarity import (
    DoubleCentering,
    GaussianOfDistance,
    dtw_distances,
    edit_distances,
    tangent_distances,
)
from krein.kernels import Gaussian
from krein.least_squares import KreinRidge
from krein.model_selection import KreinClassifierCV, KreinRegressorCV, auto_cv
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
        if "data_test" in bunch and not task.repeats:  # coilyork: train and test-vs-train blocks given
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


def run_tasks(tasks, run, progress):
    """``[run(task) for task in tasks]`` with BLAS on one thread and the solvers' convergence and user
    warnings silenced, printing ``progress(row)`` as each row is done."""
    rows = []
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", UserWarning)
        for task in tasks:
            rows.append(run(task))
            print(progress(rows[-1]), flush=True)
    return rows


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
        "split_errors": {k: [float(e) for e in v] for k, v in errors.items()},
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


def write_guide(path, table_text, start_marker=GUIDE_START, end_marker=GUIDE_END):
    text = path.read_text()
    start, end = text.index(start_marker) + len(start_marker), text.index(end_marker)
    path.write_text(text[:start] + "\n```text\n" + table_text + "\n```\n" + text[end:])


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


# -- the similarity sets, on repeated splits -----------------------------------------------------------

#: The sets of Chen et al. (2009) that krein ships, each on this many stratified 70/30 splits: the route
#: against the better of clip+SVC and flip+SVC, with the standard error of their paired difference.
SIMILARITY_REPEATS = 10
SIMILARITY_TASKS = tuple(
    replace(t, repeats=SIMILARITY_REPEATS)
    for t in TASKS
    if t.dataset in ("aural-sonar", "chen-protein", "protein", "coilyork")
)
SIMILARITY_GUIDE_START = (
    "<!-- practice similarity table: generated from docs/results/practice/practice-similarity.json "
    "by benchmarks/bench_practice.py --similarity -->"
)
SIMILARITY_GUIDE_END = "<!-- end practice similarity table -->"


def similarity_comparison(row):
    """The route against the better (by mean) of clip+SVC and flip+SVC on one set's splits: both means,
    the mean paired difference (route − better, in points) and its standard error over the splits."""
    errors = {k: np.asarray(v) for k, v in row["split_errors"].items()}
    better = min(("clip+SVC", "flip+SVC"), key=lambda name: errors[name].mean())
    difference = errors["KreinClassifierCV"] - errors[better]
    standard_error = float(difference.std(ddof=1) / np.sqrt(difference.size))
    return {
        "better": better,
        "krein": float(errors["KreinClassifierCV"].mean()),
        "baseline": float(errors[better].mean()),
        "difference": float(difference.mean()),
        "standard_error": standard_error,
        "within_one_se": bool(difference.mean() <= standard_error),
    }


def similarity_table(rows):
    lines = [f"{'set':<20}{'Kreĭn CV':>9}{'better SVC':>16}{'diff.':>7}{'s.e.':>6}{'≤ 1 s.e.':>10}"]
    for row in rows:
        c = similarity_comparison(row)
        lines.append(
            f"{row['task']:<20.20}{c['krein']:>9.2f}{c['baseline']:>7.2f} ({c['better'][:4]}){c['difference']:>7.2f}"
            f"{c['standard_error']:>6.2f}{'yes' if c['within_one_se'] else 'no':>10}"
        )
    lines.append(f"test error (%), mean over {SIMILARITY_REPEATS} stratified 70/30 splits; diff.:")
    lines.append("Kreĭn CV minus the better of clip+SVC and flip+SVC, paired by split;")
    lines.append("s.e.: the standard error of that difference")
    return "\n".join(lines)


def main_similarity(args):
    rows = run_tasks(
        SIMILARITY_TASKS,
        lambda task: run_task(task, args.max_train),
        lambda row: similarity_table([row]).splitlines()[1],
    )
    result = {"rows": rows, "repeats": SIMILARITY_REPEATS, "max_train": args.max_train, "seed": SEED}
    args.out.mkdir(parents=True, exist_ok=True)
    stored = args.out / "practice-similarity.json"
    tmp = stored.with_suffix(".tmp")
    tmp.write_text(json.dumps(result, indent=1) + "\n")
    tmp.replace(stored)
    text = similarity_table(rows)
    (args.out / "practice-similarity.md").write_text("```text\n" + text + "\n```\n")
    if args.guide is not None:
        write_guide(args.guide, text, SIMILARITY_GUIDE_START, SIMILARITY_GUIDE_END)
    print(text)


# -- regression -------------------------------------------------------------------------------------

ALPHA_GRID = [1e-3, 1e-2, 1e-1, 1.0, 10.0]
LAMBDA_GRID = [1e-4, 1e-3, 1e-2, 1e-1, 1.0]
RBF_GAMMA_GRID = [0.01, 0.1, 1.0, 10.0]
SVR_GRID = {"C": [0.1, 1.0, 10.0, 100.0], "gamma": [0.01, 0.1, 1.0], "epsilon": [0.01, 0.1, 0.5]}


@dataclass(frozen=True)
class RegressionTask:
    name: str
    dataset: str
    measure: str  # "dtw", "dtw-ndim" (official split) or "vector" (repeated 70/30 splits)
    repeats: int = 0


REGRESSION_TASKS = (
    RegressionTask("covid3month / DTW", "covid3month", "dtw"),
    RegressionTask("cardanosentiment / DTW", "cardanosentiment", "dtw-ndim"),
    RegressionTask("yacht / Gaussian", "yacht", "vector", repeats=5),
    RegressionTask("airfoil / Gaussian", "airfoil", "vector", repeats=5),
    RegressionTask("pm10 / Gaussian", "pm10", "vector", repeats=5),
)
SERIES_METHODS = ("KreinRegressorCV", "1-NN", "5-NN", "clip+KRR", "Kreĭn LS GS")
VECTOR_METHODS = ("KreinRegressorCV", "KernelRidge", "SVR")


def load_regression(task, max_train):
    """``(X, y, splits)``: the distance matrix over all objects (series) or the data, and the splits."""
    bunch = load_dataset(task.dataset)
    y = np.asarray(bunch.target, dtype=float)
    if task.measure == "vector":
        rng = np.random.default_rng(SEED)
        kept = np.arange(y.size)
        if max_train is not None and y.size > int(max_train / 0.7):
            kept = np.sort(rng.choice(y.size, size=int(max_train / 0.7), replace=False))
        splitter = ShuffleSplit(n_splits=task.repeats, test_size=0.3, random_state=SEED)
        splits = [(kept[a], kept[b]) for a, b in splitter.split(kept)]
        return np.asarray(bunch.data, dtype=float), y, splits
    splits = [(np.asarray(bunch.train_idx), np.asarray(bunch.test_idx))]
    return _distances(task.dataset, task.measure, np.arange(y.size)), y, splits


class _StandardizedTargets(TransformedTargetRegressor):
    """``TransformedTargetRegressor`` that passes on its regressor's ``pairwise`` tag, so that
    ``GridSearchCV`` slices a precomputed matrix into train × train and test × train."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.regressor.__sklearn_tags__().input_tags.pairwise
        return tags


def _standardized(estimator):
    """Targets standardized on the training part, as ``KreinRegressorCV`` does."""
    return _StandardizedTargets(estimator, transformer=StandardScaler())


def series_methods(y_train):
    """The compared regressors on a distance; the grid searches get ``KreinRegressorCV``'s inner folds."""
    inner = auto_cv(y_train, classifier=False, random_state=SEED)
    clip = Pipeline(
        [
            ("gaussian", GaussianOfDistance()),
            ("spectrum", SpectrumTransformer("clip")),
            ("krr", KernelRidge(kernel="precomputed")),
        ]
    )
    clip_grid = {"regressor__gaussian__gamma": GAMMA_GRID, "regressor__krr__alpha": ALPHA_GRID}
    krein_ls = Pipeline([("kernel", GaussianOfDistance()), ("ls", KreinRidge(kernel="precomputed"))])
    kernels = [GaussianOfDistance(gamma=g) for g in GAMMA_GRID] + [DoubleCentering(scale="median")]
    ls_grid = {
        "regressor__kernel": kernels,
        "regressor__ls__lambda_plus": LAMBDA_GRID,
        "regressor__ls__lambda_minus": LAMBDA_GRID,
    }
    return {
        "KreinRegressorCV": KreinRegressorCV(metric="precomputed", random_state=SEED),
        "1-NN": KNeighborsRegressor(1, metric="precomputed"),
        "5-NN": KNeighborsRegressor(5, metric="precomputed"),
        "clip+KRR": GridSearchCV(_standardized(clip), clip_grid, cv=inner),
        "Kreĭn LS GS": GridSearchCV(_standardized(krein_ls), ls_grid, cv=inner),
    }


def vector_methods(y_train):
    """``KreinRegressorCV`` with a Gaussian kernel and scikit-learn's tuned KernelRidge and SVR."""
    inner = auto_cv(y_train, classifier=False, random_state=SEED)
    krr_grid = {"regressor__alpha": ALPHA_GRID, "regressor__gamma": RBF_GAMMA_GRID}
    svr_grid = {f"regressor__{k}": v for k, v in SVR_GRID.items()}
    return {
        "KreinRegressorCV": KreinRegressorCV(kernel=Gaussian(), random_state=SEED),
        "KernelRidge": GridSearchCV(_standardized(KernelRidge(kernel="rbf")), krr_grid, cv=inner),
        "SVR": GridSearchCV(_standardized(SVR()), svr_grid, cv=inner),
    }


def _inner_summary(model):
    """What the inner folds said: the chosen row's mean R², the best row's, and the best k-NN's."""
    results = model.cv_results_
    means = np.asarray(results["mean_test_score"], dtype=float)
    methods = np.asarray(results["method"])
    knn = methods == "k-NN"
    return {
        "chosen": float(means[model.best_index_]),
        "best": float(means.max()),
        "best_method": str(methods[int(np.argmax(means))]),
        "best_knn": float(means[knn].max()) if knn.any() else None,
    }


def _plain(params):
    return {k: (v if isinstance(v, str | int) else float(v)) for k, v in params.items()}


def run_regression_task(task, max_train):
    X, y, splits = load_regression(task, max_train)
    vector = task.measure == "vector"
    rmse, seconds, chosen, inner = {}, {}, [], []
    for train, test in splits:
        if vector:
            scaler = StandardScaler().fit(X[train])
            X_train, X_test = scaler.transform(X[train]), scaler.transform(X[test])
            compared = vector_methods(y[train])
        else:
            X_train, X_test = X[np.ix_(train, train)], X[np.ix_(test, train)]
            compared = series_methods(y[train])
        for name, estimator in compared.items():
            start = time.perf_counter()
            estimator.fit(X_train, y[train])
            seconds.setdefault(name, []).append(time.perf_counter() - start)
            error = np.sqrt(np.mean((estimator.predict(X_test) - y[test]) ** 2))
            rmse.setdefault(name, []).append(float(error))
            if name == "KreinRegressorCV":
                chosen.append(_plain(estimator.best_params_))
                inner.append(_inner_summary(estimator))
    return {
        "task": task.name,
        "n_train": int(np.mean([len(t) for t, _ in splits])),
        "split": "official" if not task.repeats else f"{task.repeats} × 70/30",
        "distance": not vector,
        "target_std": float(np.std(y)),
        "rmse": rmse,
        "seconds": {k: float(np.sum(v)) for k, v in seconds.items()},
        "chosen": chosen,
        "inner_r2": inner,
    }


def _mean_se(values):
    values = np.asarray(values, dtype=float)
    se = values.std(ddof=1) / np.sqrt(values.size) if values.size > 1 else 0.0
    return float(values.mean()), float(se)


def _better_baseline(row):
    """The better (lower mean RMSE) of the vector baselines."""
    return min(("KernelRidge", "SVR"), key=lambda name: np.mean(row["rmse"][name]))


def regression_summary(rows):
    series = [r for r in rows if r["distance"]]
    vectors = [r for r in rows if not r["distance"]]
    rmse = {r["task"]: {k: float(np.mean(v)) for k, v in r["rmse"].items()} for r in rows}
    not_worse_1nn = sum(rmse[r["task"]]["KreinRegressorCV"] <= rmse[r["task"]]["1-NN"] for r in series)
    not_worse_other = sum(
        rmse[r["task"]]["KreinRegressorCV"] <= min(rmse[r["task"]]["clip+KRR"], rmse[r["task"]]["5-NN"])
        for r in series
    )
    within = 0
    for r in vectors:
        difference = np.subtract(r["rmse"]["KreinRegressorCV"], r["rmse"][_better_baseline(r)])
        mean, se = _mean_se(difference)
        within += bool(mean <= 2.0 * se)
    ratio = sum(r["seconds"]["KreinRegressorCV"] for r in rows) / sum(
        r["seconds"]["clip+KRR" if r["distance"] else "KernelRidge"] for r in rows
    )
    return {
        "series_sets": len(series),
        "not_worse_than_1nn": int(not_worse_1nn),
        "not_worse_than_clip_or_5nn": int(not_worse_other),
        "vector_sets": len(vectors),
        "within_noise_of_better_baseline": int(within),
        "time_ratio_total": float(ratio),
    }


def _number(value):
    return f"{value:.4g}"


def regression_table(rows):
    series = [r for r in rows if r["distance"]]
    vectors = [r for r in rows if not r["distance"]]
    lines = []
    if series:
        lines.append(
            f"{'task':<23}{'n':>4} {'Kreĭn CV':>8}{'1-NN':>8}{'5-NN':>8}{'clip':>8}{'LS GS':>8}{'time×':>6}"
        )
        for r in series:
            e = {k: np.mean(v) for k, v in r["rmse"].items()}
            ratio = r["seconds"]["KreinRegressorCV"] / r["seconds"]["clip+KRR"]
            lines.append(
                f"{r['task']:<23.23}{r['n_train']:>4} "
                + "".join(f"{_number(e[name]):>8}" for name in SERIES_METHODS)
                + f"{ratio:>6.2f}"
            )
    if vectors:
        if lines:
            lines.append("")
        lines.append(f"{'task':<19}{'n':>4} {'Kreĭn CV':>16}{'KernelRidge':>16}{'SVR':>16}{'time×':>6}")
        for r in vectors:
            cells = []
            for name in VECTOR_METHODS:
                mean, se = _mean_se(r["rmse"][name])
                cells.append(f"{_number(mean)} ± {se:.2g}")
            ratio = r["seconds"]["KreinRegressorCV"] / r["seconds"]["KernelRidge"]
            lines.append(
                f"{r['task']:<19.19}{r['n_train']:>4} "
                + "".join(f"{c:>16}" for c in cells)
                + f"{ratio:>6.2f}"
            )
    return "\n".join(lines)


REGRESSION_GUIDE_START = (
    "<!-- practice regression table: generated from docs/results/practice/practice-regression.json "
    "by benchmarks/bench_practice.py --regression -->"
)
REGRESSION_GUIDE_END = "<!-- end practice regression table -->"


def regression_report(result):
    """The tables and the summary lines, as printed and as the guide shows them."""
    s = result["summary"]
    return (
        regression_table(result["rows"])
        + "\n\ntest RMSE (vector sets: mean ± s.e. over the splits); clip: clip + KernelRidge;\n"
        + "LS GS: KreinRidge by GridSearchCV; time×: KreinRegressorCV fit / the grid\n"
        + "search fit of clip+KRR (series) or of KernelRidge (vectors)\n"
        + f"KreinRegressorCV ≤ 1-NN on {s['not_worse_than_1nn']} of {s['series_sets']} series sets, "
        + f"≤ the better of clip\nand 5-NN on {s['not_worse_than_clip_or_5nn']}; within 2 s.e. "
        + "(paired over the splits) of the better\n"
        + f"of KernelRidge and SVR on {s['within_noise_of_better_baseline']} of {s['vector_sets']} "
        + f"vector sets; fit time {s['time_ratio_total']:.2f}× the kernel\nridge grid searches"
    )


def regression_plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(rows), figsize=(2.6 * len(rows), 3.4))
    for axis, row in zip(np.atleast_1d(axes), rows, strict=True):
        names = SERIES_METHODS if row["distance"] else VECTOR_METHODS
        means = [np.mean(row["rmse"][n]) for n in names]
        errors = [_mean_se(row["rmse"][n])[1] for n in names]
        axis.bar(range(len(names)), means, yerr=errors, color=["tab:green"] + ["tab:grey"] * (len(names) - 1))
        axis.set_xticks(
            range(len(names)),
            [n.replace("KreinRegressorCV", "Kreĭn CV") for n in names],
            rotation=45,
            ha="right",
            fontsize=7,
        )
        axis.set_title(row["task"], fontsize=8)
    figure.suptitle("KreinRegressorCV against what practitioners do: test RMSE (lower is better)", fontsize=9)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def main_regression(args):
    tasks = list(REGRESSION_TASKS)
    if args.only:
        tasks = [t for t in tasks if any(t.name.startswith(p) for p in args.only)]
    stored = args.out / "practice-regression.json"
    if args.rewrite:  # the table, figure and guide from the stored run
        result = json.loads(stored.read_text())
        return write_regression(result, args)
    rows = run_tasks(
        tasks,
        lambda task: run_regression_task(task, args.max_train),
        lambda row: f"{regression_table([row]).splitlines()[-1]} {row['chosen']} {row['inner_r2']}",
    )
    result = {"rows": rows, "summary": regression_summary(rows), "max_train": args.max_train, "seed": SEED}
    args.out.mkdir(parents=True, exist_ok=True)
    stored.write_text(json.dumps(result, indent=1) + "\n")
    write_regression(result, args)


def write_regression(result, args):
    rows = result["rows"]
    text = regression_report(result)
    (args.out / "practice-regression.md").write_text("```text\n" + text + "\n```\n")
    regression_plot(rows, args.out / "practice-regression.png")
    if args.guide is not None:
        write_guide(args.guide, text, REGRESSION_GUIDE_START, REGRESSION_GUIDE_END)
    print(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK)}")
    parser.add_argument("--max-train", type=int, default=400, help="training objects per set at most")
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).parents[1] / "docs" / "results" / "practice"
    )
    parser.add_argument("--guide", type=Path, help="write the table into this guide (docs/guide.md)")
    parser.add_argument("--only", nargs="*", help="task names (prefixes) to run")
    parser.add_argument("--regression", action="store_true", help="the regression table instead")
    parser.add_argument(
        "--similarity",
        action="store_true",
        help="the similarity sets on repeated splits, with standard errors",
    )
    parser.add_argument(
        "--rewrite",
        action="store_true",
        help="with --regression: the .md, .png and guide from the stored JSON",
    )
    args = parser.parse_args()
    if args.regression:
        return main_regression(args)
    if args.similarity:
        return main_similarity(args)
    tasks = [t for t in TASKS if not args.quick or t.name in QUICK]
    if args.only:
        tasks = [t for t in tasks if any(t.name.startswith(p) for p in args.only)]
    rows = run_tasks(
        tasks, lambda task: run_task(task, args.max_train), lambda row: table([row]).splitlines()[-1]
    )
    result = {"rows": rows, "summary": summary(rows), "max_train": args.max_train, "seed": SEED}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "practice.json").write_text(json.dumps(result, indent=1) + "\n")
    text = report(result)
    (args.out / "practice.md").write_text("```text\n" + text + "\n```\n")
    plot(rows, args.out / "practice.png")
    if args.guide is not None:
        write_guide(args.guide, text)
    print(text)


if __name__ == "__main__":
    main()

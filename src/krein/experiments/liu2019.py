"""Experiments of Liu, Huang, Gong, Yang & Suykens (2019), indefinite kernel logistic regression (IKLR).

* ``liu2019-table3`` — Table III: test accuracy of KLR (RBF), Flip / Clip / Shift + KLR, TDCASVM, KSVM,
  CCICP-GD and CCICP-SGD with the TL1 kernel (ρ = 0.7·d) on the shipped UCI sets; half of the data
  for training and half for testing, 10 random splits; λ, σ and C chosen by 5-fold cross-validation on
  the training half over {1e-4, 1e-3, 1e-2, 0.1, 1, 5, 10} (Sec. V-A3).
* ``liu2019-table4`` — Table IV: accuracy, training and test time of CCCP-GD, CCICP-GD and CCICP-SGD
  on the larger shipped sets (banana, twonorm, ring, magic; training halves capped in size).
* ``liu2019-spd`` — the analogue of Table V: covariance descriptors of a multichannel time-series set
  under the affine-invariant (indefinite) and log-Euclidean (positive definite) geodesic Gaussian kernels.
* ``liu2019-figure3`` — Fig. 3: objective (6) against the outer iteration for the three solvers.

Features are scaled to [0, 1] over the whole data set (as in the LIBSVM copies the paper used).
"""

from __future__ import annotations

import time
from functools import partial

import numpy as np
from sklearn.model_selection import GridSearchCV, StratifiedKFold, StratifiedShuffleSplit
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MinMaxScaler

from ..kernels import TruncatedL1
from ..logistic import IndefiniteLogisticRegression
from ..spectral import SpectrumTransformer, spectrum_summary
from ._framework import ResultTable, experiment

#: Cross-validation grid of λ, σ and C (Sec. V-A3).
GRID = (1e-4, 1e-3, 1e-2, 0.1, 1.0, 5.0, 10.0)
QUICK_GRID = (1e-3, 1e-2, 0.1, 1.0)
#: The Table III data sets that krein ships (breast = wisconsin; monks2 = monk-2, all 432 instances).
TABLE3_DATASETS = ("australian", "wisconsin", "haberman", "heart", "ionosphere", "monk-2", "sonar", "splice")
TABLE4_DATASETS = ("banana", "twonorm", "ring", "magic")
TABLE3_METHODS = ("KLR(RBF)", "Flip", "Clip", "Shift", "TDCASVM", "KSVM", "CCICP-GD", "CCICP-SGD")


def load_scaled(name, max_samples=None, random_state=0):
    """Features scaled to [0, 1] and labels; ``splice`` as the binary junction-vs-neither task."""
    from ..datasets import load_dataset

    data = load_dataset(name)
    X, y = np.asarray(data.data, dtype=float), np.asarray(data.target)
    if name == "splice":  # LIBSVM's splice is binary: a splice junction (EI or IE) or not (N)
        y = (np.asarray(data.target_names)[y] != "N").astype(int)
    if max_samples is not None and y.size > max_samples:
        X, y = _subsample(X, y, max_samples, random_state)
    return MinMaxScaler().fit_transform(X), y


def _subsample(X, y, max_samples, random_state):
    splitter = StratifiedShuffleSplit(1, train_size=max_samples, random_state=random_state)
    keep = next(splitter.split(np.zeros(y.size), y))[0]
    return X[keep], y[keep]


def klr(**params):
    """Kernel logistic regression on a positive semidefinite precomputed kernel (the baselines)."""
    return IndefiniteLogisticRegression(kernel="precomputed", solver="cccp", tol=1e-8, **params)


def iklr(solver, **params):
    return IndefiniteLogisticRegression(kernel="precomputed", solver=solver, **params)


def precomputed_methods(grid):
    """Method name → (estimator on the precomputed indefinite kernel, CV grid)."""
    from ..svm import DCASVC, KreinSVC

    methods = {
        name: (Pipeline([("spectrum", SpectrumTransformer(method)), ("klr", klr())]), {"klr__lam": grid})
        for name, method in (("Flip", "flip"), ("Clip", "clip"), ("Shift", "shift"))
    }
    methods["TDCASVM"] = (DCASVC(kernel="precomputed", max_iter=20), {"C": grid})  # k_max = 20 as for IKLR
    methods["KSVM"] = (KreinSVC(kernel="precomputed"), {"C": grid})
    methods["CCICP-GD"] = (iklr("ccicp"), {"lam": grid})
    return methods


def _fit_and_score(estimator, grid, K_train, y_train, K_test, y_test, cv, n_jobs):
    search = GridSearchCV(estimator, grid, cv=cv, scoring="accuracy", n_jobs=n_jobs, refit=True)
    start = time.perf_counter()
    search.fit(K_train, y_train)
    seconds = time.perf_counter() - start
    return search.score(K_test, y_test), seconds, search.best_params_, search.best_score_


def table3_scores(X, y, *, methods, n_repetitions, grid, random_state=0, n_jobs=1, advance=lambda: None):
    """Per-method test accuracies over random half/half splits (Table III protocol).

    Returns ``{method: (accuracies, fit_seconds)}``. CCICP-SGD reuses the λ chosen for CCICP-GD (same
    objective; the stochastic solver is too slow to cross-validate on every split).
    """
    K = TruncatedL1()(X)
    squared_distances = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    splitter = StratifiedShuffleSplit(n_repetitions, test_size=0.5, random_state=random_state)
    results = {m: ([], []) for m in methods}
    candidates = precomputed_methods(grid)
    for repetition, (train, test) in enumerate(splitter.split(X, y)):
        cv = StratifiedKFold(5, shuffle=True, random_state=random_state + repetition)
        blocks = (K[np.ix_(train, train)], y[train], K[np.ix_(test, train)], y[test])
        chosen_lam = None
        for method in methods:
            if method == "KLR(RBF)":  # σ and λ jointly by 5-fold CV: σ with the best CV score
                fits = [
                    _fit_and_score(
                        klr(),
                        {"lam": grid},
                        np.exp(-squared_distances[np.ix_(train, train)] / s**2),
                        y[train],
                        np.exp(-squared_distances[np.ix_(test, train)] / s**2),
                        y[test],
                        cv,
                        n_jobs,
                    )
                    for s in grid
                ]
                best = max(fits, key=lambda fit: fit[3])
                accuracy, seconds = best[0], sum(fit[1] for fit in fits)
            elif method == "CCICP-SGD":
                lam = chosen_lam if chosen_lam is not None else 1e-2
                model = iklr("ccicp-sgd", lam=lam, random_state=random_state + repetition)
                start = time.perf_counter()
                model.fit(blocks[0], blocks[1])
                seconds = time.perf_counter() - start
                accuracy = model.score(blocks[2], blocks[3])
            else:
                estimator, method_grid = candidates[method]
                accuracy, seconds, best_params, _ = _fit_and_score(
                    estimator, method_grid, *blocks, cv, n_jobs
                )
                if method == "CCICP-GD":
                    chosen_lam = best_params["lam"]
            results[method][0].append(accuracy)
            results[method][1].append(seconds)
            advance()
    return results


@experiment(
    "liu2019-table3",
    description="IKLR (CCICP-GD/SGD) vs KLR(RBF), flip/clip/shift+KLR, TDCASVM, KSVM on UCI sets, TL1 kernel",
    paper="Liu et al. 2019, Table III",
    quick_minutes=2,
    full_minutes=45,
    selectable=True,
)
def run_table3(ctx):
    datasets = ctx.select(("haberman", "heart", "monk-2") if ctx.quick else TABLE3_DATASETS)
    repetitions, grid = (2, QUICK_GRID) if ctx.quick else (10, GRID)
    max_samples = 300 if ctx.quick else 1000  # splice: the paper's LIBSVM copy has 1000 points
    table = ResultTable("IKLR, Table III (TL1 kernel, half/half splits)", "accuracy", lower_is_better=False)
    with ctx.progress(len(datasets) * repetitions * len(TABLE3_METHODS), "liu2019-table3") as advance:
        for name in datasets:
            X, y = load_scaled(name, max_samples, ctx.random_state)
            summary = spectrum_summary(TruncatedL1()(X))
            table.set_task_info(
                name,
                n=y.size,
                mu_min=summary["min_eigenvalue"],
                mu_max=summary["max_eigenvalue"],
                iota=summary["indefiniteness"],
            )
            results = ctx.cell(
                name,
                partial(
                    table3_scores,
                    X,
                    y,
                    methods=TABLE3_METHODS,
                    n_repetitions=repetitions,
                    grid=grid,
                    random_state=ctx.random_state,
                    n_jobs=ctx.n_jobs,
                    advance=advance,
                ),
                advance=advance,
                units=repetitions * len(TABLE3_METHODS),
            )
            for method, (accuracies, seconds) in results.items():
                table.add(name, method, accuracies, seconds)
    ctx.report(table, "table3")


def solver_comparison(X, y, *, n_repetitions, max_train, grid, random_state=0, n_jobs=1):
    """Accuracy, training and test time of CCCP-GD, CCICP-GD and CCICP-SGD (Table IV protocol).

    λ is chosen once per split by 5-fold CV of CCICP-GD on at most 1000 training points.
    """
    rows = []
    solvers = {
        "CCCP-GD": {"solver": "cccp", "inexact_tol": 1e-4},
        "CCICP-GD": {"solver": "ccicp"},
        "CCICP-SGD": {"solver": "ccicp-sgd"},
    }
    splitter = StratifiedShuffleSplit(n_repetitions, test_size=0.5, random_state=random_state)
    kernel = TruncatedL1()
    for repetition, (train, test) in enumerate(splitter.split(X, y)):
        train = train[:max_train]
        K_train, K_test = kernel(X[train]), kernel(X[test], X[train])
        subset = slice(0, min(1000, train.size))
        cv = StratifiedKFold(5, shuffle=True, random_state=random_state + repetition)
        search = GridSearchCV(iklr("ccicp"), {"lam": grid}, cv=cv, scoring="accuracy", n_jobs=n_jobs)
        lam = search.fit(K_train[subset, subset], y[train][subset]).best_params_["lam"]
        for name, params in solvers.items():
            model = iklr(lam=lam, random_state=random_state + repetition, **params)
            start = time.perf_counter()
            model.fit(K_train, y[train])
            train_seconds = time.perf_counter() - start
            start = time.perf_counter()
            accuracy = model.score(K_test, y[test])
            test_seconds = time.perf_counter() - start
            rows.append(
                {
                    "method": name,
                    "repetition": repetition,
                    "lam": lam,
                    "accuracy": accuracy,
                    "train_seconds": train_seconds,
                    "test_seconds": test_seconds,
                    "inner_steps": int(model.n_inner_iter_[0]),
                }
            )
    return rows


@experiment(
    "liu2019-table4",
    description="CCCP-GD vs CCICP-GD vs CCICP-SGD: accuracy, training and test time on larger sets",
    paper="Liu et al. 2019, Table IV",
    quick_minutes=1,
    full_minutes=10,
)
def run_table4(ctx):
    datasets = ("banana",) if ctx.quick else TABLE4_DATASETS
    repetitions, max_train, grid = (1, 600, QUICK_GRID) if ctx.quick else (3, 3000, GRID)
    table = ResultTable(
        f"IKLR solvers, Table IV (TL1 kernel, ≤ {max_train} training points)",
        "accuracy",
        lower_is_better=False,
    )
    details = []
    with ctx.progress(len(datasets), "liu2019-table4") as advance:
        for name in datasets:
            X, y = load_scaled(name)
            rows = solver_comparison(
                X,
                y,
                n_repetitions=repetitions,
                max_train=max_train,
                grid=grid,
                random_state=ctx.random_state,
                n_jobs=ctx.n_jobs,
            )
            table.set_task_info(name, n_train=min(max_train, y.size // 2))
            for method in dict.fromkeys(r["method"] for r in rows):
                mine = [r for r in rows if r["method"] == method]
                table.add(name, method, [r["accuracy"] for r in mine], [r["train_seconds"] for r in mine])
            details += [{"dataset": name, **r} for r in rows]
            advance()
    ctx.report(table, "table4")
    ctx.report_rows(details, "table4_runs", "Per-run accuracy, training and test time (s), inner steps")


def _spd_kernels(name, max_samples, random_state):
    from ..datasets import load_dataset
    from ..dissimilarity import covariance_descriptors, spd_distances

    data = load_dataset(name)
    y = np.asarray(data.target)
    index = np.arange(y.size)
    if max_samples is not None and y.size > max_samples:
        index, _ = _subsample(index, y, max_samples, random_state)
    S = covariance_descriptors([data.data[i] for i in index])
    distances = {m: spd_distances(S, metric=m) for m in ("affine_invariant", "log_euclidean")}
    return distances, y[index]


def spd_scores(
    K_ai, K_le, y, *, n_repetitions, grid, random_state=0, n_jobs=1, exclude=(), advance=lambda: None
):
    """Table V protocol: the Log-E baselines on ``K_le``, the indefinite-kernel methods on ``K_ai``.

    Returns ``{method: (accuracies, fit_seconds)}`` for every method not in ``exclude``; CCICP-SGD reuses
    the λ chosen for CCICP-GD.
    """
    from sklearn.svm import SVC

    methods = {"SVM(Log-E)": (SVC(kernel="precomputed"), {"C": grid}), "KLR(Log-E)": (klr(), {"lam": grid})}
    methods.update(precomputed_methods(grid))
    methods = {m: v for m, v in methods.items() if m not in exclude}
    scores = {m: ([], []) for m in [*methods, "CCICP-SGD"]}
    splitter = StratifiedShuffleSplit(n_repetitions, test_size=0.5, random_state=random_state)
    for repetition, (train, test) in enumerate(splitter.split(K_ai, y)):
        cv = StratifiedKFold(5, shuffle=True, random_state=random_state + repetition)
        for method, (estimator, method_grid) in methods.items():
            K = K_le if "Log-E" in method else K_ai
            blocks = (K[np.ix_(train, train)], y[train], K[np.ix_(test, train)], y[test])
            accuracy, seconds, best, _ = _fit_and_score(estimator, method_grid, *blocks, cv, n_jobs)
            if method == "CCICP-GD":
                chosen_lam = best["lam"]
            scores[method][0].append(accuracy)
            scores[method][1].append(seconds)
            advance()
        model = iklr("ccicp-sgd", lam=chosen_lam, random_state=random_state + repetition)
        start = time.perf_counter()
        model.fit(K_ai[np.ix_(train, train)], y[train])
        scores["CCICP-SGD"][1].append(time.perf_counter() - start)
        scores["CCICP-SGD"][0].append(model.score(K_ai[np.ix_(test, train)], y[test]))
        advance()
    return scores


@experiment(
    "liu2019-spd",
    description="Geodesic Gaussian kernels on covariance descriptors: affine-invariant (indefinite) vs Log-E",
    paper="Liu et al. 2019, Table V (Yale B replaced by a shipped multichannel series set)",
    quick_minutes=2,
    full_minutes=30,
)
def run_spd(ctx):
    name = "japanesevowels"
    repetitions, grid, max_samples = (2, QUICK_GRID, 200) if ctx.quick else (10, GRID, None)
    distances, y = _spd_kernels(name, max_samples, ctx.random_state)
    # σ: the median affine-invariant distance (the grid {1e-4, ..., 10} is far below these distances)
    sigma = float(np.median(distances["affine_invariant"]))
    K_ai = np.exp(-((distances["affine_invariant"] / sigma) ** 2))
    K_le = np.exp(-((distances["log_euclidean"] / sigma) ** 2))
    summary = spectrum_summary(K_ai)
    table = ResultTable(
        f"IKLR on {name} covariance descriptors (σ = {sigma:.3g})", "accuracy", lower_is_better=False
    )
    table.set_task_info(
        name,
        n=y.size,
        mu_min=summary["min_eigenvalue"],
        mu_max=summary["max_eigenvalue"],
        iota=summary["indefiniteness"],
    )
    methods = ["SVM(Log-E)", "KLR(Log-E)", *precomputed_methods(grid), "CCICP-SGD"]
    with ctx.progress(repetitions * len(methods), "liu2019-spd") as advance:
        scores = spd_scores(
            K_ai,
            K_le,
            y,
            n_repetitions=repetitions,
            grid=grid,
            random_state=ctx.random_state,
            n_jobs=ctx.n_jobs,
            advance=advance,
        )
    for method, (accuracies, seconds) in scores.items():
        table.add(name, method, accuracies, seconds)
    ctx.report(table, "spd")


def objective_curves(X, y, *, lam, max_outer_iter=20, random_state=0):
    """Objective (6) after each outer iteration of CCCP-GD, CCICP-GD and CCICP-SGD (Fig. 3)."""
    solvers = {
        "CCCP-GD": {"solver": "cccp", "inexact_tol": 1e-4},
        "CCICP-GD": {"solver": "ccicp"},
        "CCICP-SGD": {"solver": "ccicp-sgd"},
    }
    K = TruncatedL1()(X)
    return {
        name: IndefiniteLogisticRegression(
            kernel="precomputed", lam=lam, max_outer_iter=max_outer_iter, random_state=random_state, **params
        )
        .fit(K, y)
        .objective_history_[0]
        for name, params in solvers.items()
    }


@experiment(
    "liu2019-figure3",
    description="Objective (6) vs outer iteration for CCCP-GD, CCICP-GD and CCICP-SGD (PNG)",
    paper="Liu et al. 2019, Fig. 3",
    quick_minutes=0.5,
    full_minutes=1,
)
def run_figure3(ctx):
    import matplotlib.pyplot as plt

    tasks = {"monk-2": 150 if ctx.quick else None, "banana": 200 if ctx.quick else 2000}
    figure, axes = plt.subplots(1, len(tasks), figsize=(5 * len(tasks), 3.6))
    curves = {}
    for axis, (name, max_samples) in zip(axes, tasks.items(), strict=True):
        X, y = load_scaled(name, max_samples, ctx.random_state)
        curves[name] = objective_curves(X, y, lam=1e-2, random_state=ctx.random_state)
        for (method, history), color in zip(
            curves[name].items(), ("tab:red", "tab:blue", "tab:green"), strict=True
        ):
            axis.plot(np.arange(history.size), history, marker="o", markersize=3, color=color, label=method)
        axis.set(title=f"{name} (n = {y.size}, λ = 1e-2)", xlabel="outer iteration k", ylabel="objective (6)")
        axis.legend()
    ctx.save_figure(figure, "figure3")
    ctx.write_json(
        {"lam": 1e-2, "curves": {k: {m: h.tolist() for m, h in v.items()} for k, v in curves.items()}},
        "figure3",
    )

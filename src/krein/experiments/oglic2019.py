"""Experiments of Oglic & Gärtner (2019), *Scalable Learning in Reproducing Kernel Kreĭn Spaces*.

* ``oglic2019-figure1`` — Figures 1, 4–6: relative Frobenius error ‖K − K̃‖/‖K‖ of rank-k Nyström
  approximations (one-shot eigendecomposition, Sec. 2.2) against k, for DELTA-GAUSS, SIGMOID,
  RL-SIGMOID and EPANECHNIKOV, with k landmarks and with k·log n landmarks, for the uniform,
  approximate leverage-score and approximate kernel K-means++ samplers (Sec. 2.3); median of 10 runs;
  the paper's plain Eq. (3) and krein's default (validated rank of K_ZZ, issue 17) side by side.
* ``oglic2019-figure2`` — Figure 2: the same errors against the time to compute the approximation
  (landmark selection included), DELTA-GAUSS.
* ``oglic2019-figure8`` — Figure 8: time of a rank-k approximation with K-means++ landmarks against n.
* ``oglic2019-table1`` — Table 1: 10-fold stratified CV error of the rank-100 Kreĭn VC-LSM, Kreĭn LSM,
  Kreĭn SH-SVM and SF-LSM (Sec. 2.4–2.5; 100 landmarks, the paper's split of the Kreĭn space by the
  signature of K_ZZ and its plain Eq. (3), krein's defaults beside it for the LSM) on the papers'
  dissimilarity and similarity sets that krein ships (protein, coilyork; aural-sonar and
  chen-protein), hyperparameters tuned on inner folds of every training part: the Kreĭn methods by
  hypergradients without restarts, as in the paper, and by krein's grid search beside them
  ("… (grid)"). Multi-class sets become one binary one-vs-all task (first class), as in the paper;
  dissimilarities are double centred (``natural_kernel``).
* ``oglic2019-table2`` — Table 2 (Appendix C): the same rank-100 methods beside the whole-space Kreĭn
  SVM, SF-LSM and VC-LSM (the latter tuned by hypergradients as in Oglic & Gärtner 2018, App. C).
* ``oglic2019-figure3`` — Figures 3 and 7: median CV error of the low-rank methods against the rank
  (the Kreĭn methods tuned as in the paper, and by the grid, dashed).

Tables 1, 2 and Figure 3 share their stored cells (one per data set, method, rank and outer fold).
Vectorial data are standardized (Sec. 3); kernel hyperparameters are the Appendix E.1 initial draws of
Oglic & Gärtner (2018) with the experiment's seed.
"""

from __future__ import annotations

import time

import numpy as np

from ..kernels import initial_kernel
from ._framework import ResultTable, experiment
from ._papers import PaperTable
from ._protocol import Forms, outer_splits, run_cells

FIGURE1_KERNELS = ("DELTA-GAUSS", "SIGMOID", "RL-SIGMOID", "EPANECHNIKOV")
SAMPLERS = ("uniform", "leverage", "kmeans++")
#: Vectorial data set of Figures 1, 2 and 8 (the paper names none; MAGIC is the largest we ship).
VECTOR_DATASET = "magic"


def standardized_sample(name, n, seed):
    """``n`` rows of a shipped vectorial data set, standardized (mean 0, unit variance)."""
    from ..datasets import load_dataset, standardize

    X = np.asarray(load_dataset(name).data, dtype=float)
    if n < X.shape[0]:
        X = X[np.random.default_rng(seed).choice(X.shape[0], n, replace=False)]
    return standardize(X)


#: Treatments of the landmark block in Figures 1 and 2: the paper's plain Eq. (3) and krein's default
#: (the pseudo-inverse of K_ZZ truncated to the rank validated on held-out columns; issue 17).
FIGURE_FORMS = {"Eq. (3)": "full", "validated": "validated"}


def approximation_errors(
    X, kernel, ranks, *, repetitions, seed, samplers=SAMPLERS, forms=FIGURE_FORMS, advance=lambda: None
):
    """Median relative Frobenius error and time of rank-k Nyström approximations (Figures 1 and 2).

    Returns one dict per (form, sampler, landmark rule, rank) with ``form`` a key of ``forms``
    (its value is the ``landmark_rank`` of :func:`~krein.nystroem.nystroem_representation`),
    ``landmarks`` "k" (m = k) or "k log n" (m = ⌈k ln n⌉), the median ``error``
    ‖K − Ũ Λ Ũᵀ‖_F / ‖K‖_F, the median estimate ``estimate`` of it (``approximation_error``) and the
    median ``seconds``.
    """
    import warnings

    from ..nystroem import nystroem_representation

    K = kernel(X)
    norm = np.linalg.norm(K)
    n = X.shape[0]
    rows = []
    for form, landmark_rank in forms.items():
        for sampler in samplers:
            for rule in ("k", "k log n"):
                for rank in ranks:
                    m = rank if rule == "k" else min(n, int(np.ceil(rank * np.log(n))))
                    errors, estimates, seconds = [], [], []
                    for repetition in range(repetitions):
                        start = time.perf_counter()
                        with warnings.catch_warnings():  # a poor approximation is what is measured
                            warnings.simplefilter("ignore", UserWarning)
                            rep, _ = nystroem_representation(
                                kernel,
                                X,
                                n_components=m,
                                landmarks=sampler,
                                rank=rank,
                                landmark_rank=landmark_rank,
                                random_state=seed + repetition,
                            )
                        U = rep.vectors
                        seconds.append(time.perf_counter() - start)
                        errors.append(np.linalg.norm(K - (U * rep.values) @ U.T) / norm)
                        estimates.append(rep.approximation_error)
                    rows.append(
                        {
                            "form": form,
                            "sampler": sampler,
                            "landmarks": rule,
                            "rank": rank,
                            "m": m,
                            "error": float(np.median(errors)),
                            "estimate": float(np.median(estimates)),
                            "seconds": float(np.median(seconds)),
                        }
                    )
                    advance()
    return rows


def _error_text(value):
    """Three significant digits; ``a·10^b`` from 1000 on (as in the notes)."""
    if value < 1000:
        return f"{value:.2g}" if value < 0.1 else f"{value:.3g}"
    exponent = int(np.floor(np.log10(value)))
    return f"{value / 10**exponent:.1f}·10^{exponent}"


def figure_error_table(rows):
    """The NOTES.md table of Figures 1 and 2: median error at the smallest → largest rank.

    One line per (kernel, landmark rule, form), one column per sampler; generated from the run's JSON
    rows (``tests/test_oglic2019_experiments.py`` checks that the notes quote it).
    """
    ranks = sorted({r["rank"] for r in rows})
    lines = [
        "| kernel | landmarks | K_ZZ | " + " | ".join(SAMPLERS) + " |",
        "| --- " * (3 + len(SAMPLERS)) + "|",
    ]
    kernels = list(dict.fromkeys(r.get("kernel", "DELTA-GAUSS") for r in rows))
    for kernel in kernels:
        for rule in ("k", "k log n"):
            for form in FIGURE_FORMS:
                cells = []
                for sampler in SAMPLERS:
                    part = {
                        r["rank"]: r["error"]
                        for r in rows
                        if r.get("kernel", "DELTA-GAUSS") == kernel
                        and r["landmarks"] == rule
                        and r["form"] == form
                        and r["sampler"] == sampler
                    }
                    cells.append(f"{_error_text(part[ranks[0]])} → {_error_text(part[ranks[-1]])}")
                lines.append(f"| {kernel} | {rule} | {form} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def figure_error_summary(rows):
    """The NOTES.md sentence per form: cells with a median error above 1, the largest, and the
    median ratio of the error estimate to the error."""
    parts = []
    for form in FIGURE_FORMS:
        part = [r for r in rows if r["form"] == form]
        errors = np.array([r["error"] for r in part])
        ratios = np.array([r["estimate"] / r["error"] for r in part])
        parts.append(
            f"{form}: {int(np.sum(errors > 1))} of {errors.size} median errors above 1, largest "
            f"{_error_text(float(errors.max()))}, estimate / error from {ratios.min():.2f} to "
            f"{ratios.max():.2f} (median {np.median(ratios):.2f})"
        )
    return "; ".join(parts) + "."


def best_sampler_counts(rows):
    """The NOTES.md sentence of Figure 1: per form and landmark rule, in how many (kernel, rank) cells
    each sampler has the lowest median error, and for DELTA-GAUSS (the paper's Fig. 1) at how many
    ranks K-means++ has it."""
    parts = []
    for form in FIGURE_FORMS:
        for rule in ("k", "k log n"):
            cells = {}
            for r in (r for r in rows if r["form"] == form and r["landmarks"] == rule):
                cell = (r.get("kernel", "DELTA-GAUSS"), r["rank"])
                cells.setdefault(cell, {})[r["sampler"]] = r["error"]
            best = {cell: min(errors, key=errors.get) for cell, errors in cells.items()}
            counts = ", ".join(f"{s} {sum(b == s for b in best.values())}" for s in SAMPLERS)
            delta = [b for (kernel, _), b in best.items() if kernel == "DELTA-GAUSS"]
            parts.append(
                f"{form} with {rule} landmarks, lowest in {len(best)} cells: {counts} "
                f"(DELTA-GAUSS: kmeans++ at {delta.count('kmeans++')} of {len(delta)} ranks)"
            )
    return "; ".join(parts) + "."


def _plot_errors(ax, rows, x_key, title):
    styles = {"k": "-", "k log n": "--"}
    colors = {"uniform": "tab:gray", "leverage": "tab:blue", "kmeans++": "tab:red"}
    for sampler in SAMPLERS:
        for rule, style in styles.items():
            part = [r for r in rows if r["sampler"] == sampler and r["landmarks"] == rule]
            if part:
                ax.plot(
                    [r[x_key] for r in part],
                    [r["error"] for r in part],
                    style,
                    marker="o",
                    ms=3,
                    color=colors[sampler],
                    label=f"{sampler} (k | {rule})",
                )
    ax.set_yscale("log")
    ax.set_title(title)
    ax.set_ylabel("relative Frobenius error")


#: Sample size, ranks and repetitions of Figures 1 and 2 in their quick and full form.
FIGURE_SETTINGS = Forms(n=(200, 1000), ranks=((5, 10), (5, 10, 20, 50, 100)), repetitions=(2, 10))


@experiment(
    "oglic2019-figure1",
    description="Nyström approximation error vs rank (four kernels, three samplers, Eq. (3) and the default)",
    paper="Oglic & Gärtner 2019, Figure 1 (and Figures 4-6 of Appendix C)",
    quick_minutes=1.0,
    full_minutes=30.0,
)
def run_figure1(ctx):
    import matplotlib.pyplot as plt

    settings = FIGURE_SETTINGS.of(ctx)
    X = standardized_sample(VECTOR_DATASET, settings.n, ctx.random_state)
    rows = []
    total = len(FIGURE_FORMS) * len(FIGURE1_KERNELS) * len(SAMPLERS) * 2 * len(settings.ranks)
    with ctx.progress(total, "figure 1") as advance:
        for name in FIGURE1_KERNELS:
            kernel = initial_kernel(name, X, random_state=ctx.random_state)
            for row in approximation_errors(
                X,
                kernel,
                settings.ranks,
                repetitions=settings.repetitions,
                seed=ctx.random_state,
                advance=advance,
            ):
                rows.append({"kernel": name, **row})
    figure, axes = plt.subplots(
        len(FIGURE_FORMS), len(FIGURE1_KERNELS), figsize=(5 * len(FIGURE1_KERNELS), 4 * len(FIGURE_FORMS))
    )
    for row_axes, form in zip(axes, FIGURE_FORMS, strict=True):
        for ax, name in zip(row_axes, FIGURE1_KERNELS, strict=True):
            _plot_errors(
                ax,
                [r for r in rows if r["kernel"] == name and r["form"] == form],
                "rank",
                f"{name}, K_ZZ: {form} ({VECTOR_DATASET}, n={settings.n})",
            )
            ax.set_xlabel("rank k")
        row_axes[0].legend(fontsize=7)
    ctx.save_figure(figure, "figure1")
    ctx.report_rows(
        rows,
        "figure1",
        f"Median relative Frobenius error of rank-k Nyström approximations ({settings.repetitions} runs)",
    )


@experiment(
    "oglic2019-figure2",
    description="Nyström approximation error vs computation time (DELTA-GAUSS), Eq. (3) and krein's default",
    paper="Oglic & Gärtner 2019, Figure 2",
    quick_minutes=0.5,
    full_minutes=8.0,
)
def run_figure2(ctx):
    import matplotlib.pyplot as plt

    settings = FIGURE_SETTINGS.of(ctx)
    X = standardized_sample(VECTOR_DATASET, settings.n, ctx.random_state)
    kernel = initial_kernel("DELTA-GAUSS", X, random_state=ctx.random_state)
    with ctx.progress(len(FIGURE_FORMS) * len(SAMPLERS) * 2 * len(settings.ranks), "figure 2") as advance:
        rows = approximation_errors(
            X,
            kernel,
            settings.ranks,
            repetitions=settings.repetitions,
            seed=ctx.random_state,
            advance=advance,
        )
    figure, axes = plt.subplots(1, len(FIGURE_FORMS), figsize=(6 * len(FIGURE_FORMS), 4), sharey=True)
    for ax, form in zip(axes, FIGURE_FORMS, strict=True):
        _plot_errors(
            ax,
            [r for r in rows if r["form"] == form],
            "seconds",
            f"DELTA-GAUSS, K_ZZ: {form} ({VECTOR_DATASET}, n={settings.n})",
        )
        ax.set_xscale("log")
        ax.set_xlabel("time (s), landmark selection included")
    axes[0].legend(fontsize=7)
    ctx.save_figure(figure, "figure2")
    ctx.report_rows(rows, "figure2", "Median error and time of rank-k Nyström approximations (DELTA-GAUSS)")


def scaling_times(X, kernel, sizes, ranks, *, repetitions, seed, advance=lambda: None):
    """Mean and std of the time of a rank-k approximation from k K-means++ landmarks vs n (Figure 8)."""
    from ..nystroem import nystroem_representation

    rows = []
    for rank in ranks:
        for n in sizes:
            seconds = []
            for repetition in range(repetitions):
                start = time.perf_counter()
                nystroem_representation(
                    kernel,
                    X[:n],
                    n_components=rank,
                    landmarks="kmeans++",
                    rank=rank,
                    random_state=seed + repetition,
                )
                seconds.append(time.perf_counter() - start)
            rows.append(
                {
                    "rank": rank,
                    "n": n,
                    "mean_seconds": float(np.mean(seconds)),
                    "std_seconds": float(np.std(seconds)),
                }
            )
            advance()
    return rows


#: Sample sizes, ranks and repetitions of Figure 8 in its quick and full form.
FIGURE8_SETTINGS = Forms(
    sizes=((500, 1000, 2000), (1000, 2000, 5000, 10000, 19020)),
    ranks=((10, 50), (10, 50, 100)),
    repetitions=(2, 10),
)


@experiment(
    "oglic2019-figure8",
    description="time of Nyström approximations with K-means++ landmarks vs the number of instances",
    paper="Oglic & Gärtner 2019, Figure 8 (Appendix C)",
    quick_minutes=0.5,
    full_minutes=8.0,
)
def run_figure8(ctx):
    import matplotlib.pyplot as plt

    settings = FIGURE8_SETTINGS.of(ctx)
    sizes, ranks, repetitions = settings.sizes, settings.ranks, settings.repetitions
    X = standardized_sample(VECTOR_DATASET, max(sizes), ctx.random_state)
    kernel = initial_kernel("DELTA-GAUSS", X, random_state=ctx.random_state)
    with ctx.progress(len(sizes) * len(ranks), "figure 8") as advance:
        rows = scaling_times(
            X, kernel, sizes, ranks, repetitions=repetitions, seed=ctx.random_state, advance=advance
        )
    figure, ax = plt.subplots(figsize=(6, 4))
    for rank in ranks:
        part = [r for r in rows if r["rank"] == rank]
        mean = np.array([r["mean_seconds"] for r in part])
        std = np.array([r["std_seconds"] for r in part])
        ax.plot(sizes, mean, marker="o", label=f"rank {rank}")
        ax.fill_between(sizes, mean - std, mean + std, alpha=0.2)
    ax.set_xlabel("n")
    ax.set_ylabel("time (s)")
    ax.set_title(f"DELTA-GAUSS, K-means++ landmarks ({VECTOR_DATASET})")
    ax.legend()
    ctx.save_figure(figure, "figure8")
    ctx.report_rows(rows, "figure8", f"Time of rank-k Nyström approximations ({repetitions} runs)")


#: The paper's low-rank Kreĭn methods, tuned as in the paper (Sec. 2.4–2.5 and the caption of Table 2):
#: by hypergradients on inner folds, without random restarts.
KREIN_METHODS = ("KREIN VC-LSM", "KREIN LSM", "KREIN SH-SVM")
#: Where their single search starts: the centre of krein's λ grid (on the kernel scaled to a unit mean
#: diagonal), and for the VC-LSM r = 1, the root mean square of the class-balanced targets (krein's
#: default radius for them).
SEARCH_START = {"lambda_plus": 1e-2, "lambda_minus": 1e-2}
#: The suffix of the same methods tuned by krein's grid search instead, shown beside them.
GRID_SUFFIX = " (grid)"
GRID_METHODS = tuple(method + GRID_SUFFIX for method in KREIN_METHODS)


def cell_method(method):
    """The method's name in its cell keys.

    The grid-tuned Kreĭn methods were run under the plain names before the paper's tuning existed;
    their cells keep those keys (``--resume`` reads them back), and the hypergradient-tuned methods
    get new ones ("… hypergradient").
    """
    if method in KREIN_METHODS:
        return f"{method} hypergradient"
    return method.removesuffix(GRID_SUFFIX)


def dissimilarity_model(method, rank, grid, random_state, inner_folds):
    """One method of Tables 1 and 2, with its hyperparameters tuned on inner folds of the training part.

    Low-rank methods (Sec. 2.4–2.5, rank = m = ``rank`` uniform landmarks) follow the paper's formula:
    the Kreĭn space split by the signature of K_ZZ (``nystroem_split="landmarks"``) and the plain
    Eq. (3), every eigenpair of K_ZZ above m·ε inverted (``landmark_rank="full"``); "(krein split)" is
    the estimator's default beside it: the split by the eigenvectors of K̃ (``landmark_rank`` is
    "full" by default too, so the two columns differ only in the split). SF-LSM keeps m
    landmark columns as features and inverts no K_ZZ.

    The Kreĭn LSM, VC-LSM and SH-SVM are tuned as in the paper: λ₊, λ₋ (and r for the VC-LSM) by
    :class:`~krein.model_selection.HypergradientSearchCV` on the inner folds, one L-BFGS-B run from
    :data:`SEARCH_START` and no random restarts (Table 2's caption; ``n_restarts=0``).
    "… (grid)" is krein's grid search beside it: λ₊, λ₋ (α for SF-LSM, C = 1/λ for the Kreĭn SVM)
    from ``grid`` by inner stratified CV accuracy. The full-space VC-LSM is tuned as in Oglic &
    Gärtner (2018), Appendix C: hypergradients with 10 restarts.
    """
    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    from ..least_squares import (
        KreinRidgeClassifier,
        SimilarityFeaturesClassifier,
        VarianceConstrainedKreinClassifier,
    )
    from ..model_selection import HypergradientSearchCV
    from ..svm import KreinSquaredHingeSVC, KreinSVC

    inner = StratifiedKFold(inner_folds, shuffle=True, random_state=random_state)
    low_rank = {"kernel": "precomputed", "n_components": rank, "random_state": random_state}
    paper = {"nystroem_split": "landmarks", "landmark_rank": "full", **low_rank}
    balanced = {"label_encoding": "balanced"}  # the least squares' labels (Oglic & Gärtner 2018, App. C)
    lambdas = {"lambda_plus": grid, "lambda_minus": grid}
    if method == "VC-LSM (full)":
        estimator = VarianceConstrainedKreinClassifier(kernel="precomputed", **balanced)
        return HypergradientSearchCV(estimator, cv=inner, random_state=random_state)
    models = {
        "KREIN VC-LSM": (VarianceConstrainedKreinClassifier(**paper, **balanced), lambdas),
        "KREIN LSM": (KreinRidgeClassifier(**paper, **balanced), lambdas),
        "KREIN LSM (krein split)": (KreinRidgeClassifier(**low_rank, **balanced), lambdas),
        "KREIN SH-SVM": (KreinSquaredHingeSVC(**paper), lambdas),
        "SF-LSM": (SimilarityFeaturesClassifier(**low_rank), {"alpha": grid}),
        "SF-LSM (full)": (SimilarityFeaturesClassifier(kernel="precomputed"), {"alpha": grid}),
        "K-SVM": (KreinSVC(kernel="precomputed"), {"C": 1.0 / grid}),
    }
    estimator, parameters = models[method.removesuffix(GRID_SUFFIX)]
    if method in KREIN_METHODS:
        start = {**SEARCH_START, **({"radius": 1.0} if method == "KREIN VC-LSM" else {})}
        return HypergradientSearchCV(estimator.set_params(**start), cv=inner, n_restarts=0)
    return GridSearchCV(estimator, parameters, cv=inner)


def dissimilarity_task(name):
    """Kernel matrix, binary labels (first class vs rest, as in the paper) and ι of a dissimilarity set."""
    from ..datasets import natural_kernel
    from ..spectral import indefiniteness

    K, y, _ = natural_kernel(name, max_samples=None)
    classes = np.unique(y)
    labels = (y == classes[0]).astype(int) if classes.size > 2 else y
    return K, labels, indefiniteness(K)


def search_record(search):
    """What a hypergradient search chose, kept in its cells: ``params`` (the tuned hyperparameters),
    the inner-CV loss where its final run starts (``initial_loss``) and at the end (``loss``), and
    the names of the hyperparameters that ended on a bound of the search box (``at_bound``)."""
    theta, bounds = search.best_estimator_._hyperparameter_vector()
    names = list(search.best_params_)  # in the order of theta
    at_bound = [
        name
        for name, t, (low, high) in zip(names, theta, bounds, strict=True)
        if min(t - low, high - t) < 1e-6
    ]
    return {
        "params": search.best_params_,
        "initial_loss": search.initial_loss_,
        "loss": search.best_loss_,
        "at_bound": at_bound,
    }


def _fold_error(K, y, train, test, model):
    """``[test error (%), fit seconds]`` of ``model`` fitted on one outer fold of a precomputed kernel,
    followed by its :func:`search_record` for a hypergradient search.

    The kernel is divided by the mean absolute diagonal of the training block, so that the λ grid
    means the same on every data set (equivalently, the grid is scaled by the kernel's size).
    """
    import warnings

    from sklearn.base import clone

    model = clone(model)
    # One fixed grid serves every data set once the kernel is on the scale of its diagonal: a double
    # centred dissimilarity has entries up to 1e5 (coilyork), a similarity has a unit diagonal.
    scale = float(np.mean(np.abs(np.diag(K)[train])))
    start = time.perf_counter()
    with warnings.catch_warnings():  # numerically singular landmark blocks (see the notes)
        warnings.filterwarnings("ignore", "The landmark kernel block K_ZZ is singular", UserWarning)
        model.fit(K[np.ix_(train, train)] / scale, y[train])
        error = 100 * float(np.mean(model.predict(K[np.ix_(test, train)] / scale) != y[test]))
    seconds = time.perf_counter() - start
    return [error, seconds, search_record(model)] if hasattr(model, "best_loss_") else [error, seconds]


def dissimilarity_cells(ctx, datasets, methods, ranks, *, folds, inner_folds, grid):
    """Per-fold test errors (%) of ``methods`` at every rank, one stored cell per fold.

    Returns ``{(data set, method, rank): [[error, fit seconds], ...]}``; whole-space methods have
    rank None. A cell is keyed by data set, method, rank and fold only, so the same cell serves
    Table 1, Table 2 and Figure 3 (``--resume``). The rank is capped at the size of the inner
    training folds; ``grid`` is the λ grid of the grid searches (:func:`dissimilarity_model`).
    """
    data, models = {}, {}
    for name in datasets:
        K, y, _ = dissimilarity_task(name)
        splits = outer_splits(y, folds, random_state=ctx.random_state)
        data[name] = K, y, splits
        smallest = min(len(train) for train, _ in splits) * (inner_folds - 1) // inner_folds
        for method in methods:
            for rank in (None,) if method in FULL_METHODS else ranks:
                usable = None if rank is None else min(rank, smallest)
                models[name, method, rank] = dissimilarity_model(
                    method, usable, grid, ctx.random_state, inner_folds
                )

    def error(name, method, rank, fold):
        K, y, splits = data[name]
        return _fold_error(K, y, *splits[fold], models[name, method, rank])

    def key(name, method, rank, fold):
        key = f"{name}-{cell_method(method)}-r{rank}-fold{fold}"
        return key.replace(" ", "_").replace("(", "").replace(")", "")

    cells = run_cells(
        ctx,
        [(*model, fold) for model in models for fold in range(folds)],
        error,
        key=key,
        description="folds",
    )
    return {model: [cells[(*model, fold)] for fold in range(folds)] for model in models}


#: The paper's dissimilarity sets that krein ships (Table 1 has coilyork and protein; aural-sonar and
#: chen-protein are the similarity sets of Oglic & Gärtner 2018, Table 2).
DISSIMILARITY_DATASETS = ("protein", "coilyork", "aural-sonar", "chen-protein")
LOW_RANK_METHODS = (*KREIN_METHODS, "SF-LSM")
FULL_METHODS = ("K-SVM", "SF-LSM (full)", "VC-LSM (full)")
#: Table 1 (rank 100) and the whole-space columns of Table 2 (Appendix C): error (%), mean and std.
PAPER_TABLE2 = PaperTable.load("oglic2019-tables")


#: Data sets, ranks (= landmarks), outer and inner folds and the λ grid of krein's inner-CV grid search
#: (log-spaced; the paper's gradient search has none) of Tables 1 and 2 in their quick and full form.
DISSIMILARITY_SETTINGS = Forms(
    datasets=(("aural-sonar", "protein"), DISSIMILARITY_DATASETS),
    ranks=((20,), (100,)),
    folds=(3, 10),
    inner_folds=(3, 5),
    grid=(np.logspace(-4, 0, 3), np.logspace(-4, 0, 5)),
)
#: Figure 3: the same at several ranks (two in the quick form, small enough for the test suite).
FIGURE3_SETTINGS = DISSIMILARITY_SETTINGS.replace(ranks=((5, 20), (10, 25, 50, 100)))


def _table(results, methods, rank, title, iotas):
    table = ResultTable(title, "error (%)")
    for (name, method, r), cells in results.items():
        if method in methods and r in (rank, None):
            if name not in table.tasks:
                table.set_task_info(name, **iotas[name])
            table.add(name, method, [c[0] for c in cells], [c[1] for c in cells])
    return table


def _vs_paper(table):
    """Every cell of ``table`` (a :class:`ResultTable`) with a number in :data:`PAPER_TABLE2` beside the
    paper's."""
    return [
        PAPER_TABLE2.compare(row["task"], row["method"], row["mean"], row["std"])
        for row in table.summary()
        if PAPER_TABLE2.has(row["task"], row["method"])
    ]


def _task_info(datasets):
    info = {}
    for name in datasets:
        _, y, iota = dissimilarity_task(name)
        info[name] = {"n": len(y), "iota": iota}
    return info


def tuning_rows(results):
    """One row per (data set, Kreĭn method, rank) tuned as in the paper, from the records in its cells:
    the median tuned hyperparameters, the folds where one ended on a bound, and the median inner-CV
    loss at the start and at the end of the search."""
    rows = []
    for (name, method, rank), cells in results.items():
        records = [cell[2] for cell in cells if len(cell) > 2]
        if method not in KREIN_METHODS or not records:
            continue
        row = {"data set": name, "method": method, "rank": rank}
        for parameter in records[0]["params"]:
            row[f"median {parameter}"] = float(np.median([r["params"][parameter] for r in records]))
        for parameter in records[0]["params"]:
            row[f"folds with {parameter} on a bound"] = sum(parameter in r["at_bound"] for r in records)
        row["median inner loss at the start"] = float(np.median([r["initial_loss"] for r in records]))
        row["median inner loss at the end"] = float(np.median([r["loss"] for r in records]))
        rows.append(row)
    return rows


def _form_cells(ctx, forms, methods):
    """The run's settings of ``forms``, its data sets (``--only``) and their :func:`dissimilarity_cells`."""
    settings = forms.of(ctx)
    datasets = ctx.select(settings.datasets)
    results = dissimilarity_cells(
        ctx,
        datasets,
        methods,
        settings.ranks,
        folds=settings.folds,
        inner_folds=settings.inner_folds,
        grid=settings.grid,
    )
    return settings, datasets, results


def _run_table(ctx, methods, name, what):
    """Table 1 or 2: every method's per-fold errors, the table, and its cells beside the paper's."""
    settings, datasets, results = _form_cells(ctx, DISSIMILARITY_SETTINGS, methods)
    [rank], folds = settings.ranks, settings.folds
    title = f"Rank-{rank} {what} ({rank} uniform landmarks), {folds}-fold stratified CV, tuned"
    table = _table(results, methods, rank, title, _task_info(datasets))
    ctx.report(table, name)
    rows = _vs_paper(table)
    if rows:
        ctx.report(PAPER_TABLE2.comparison(rows, "Ours next to the paper"), f"{name}-vs-paper")
    tuning = tuning_rows(results)
    if tuning:
        title = f"The hypergradient searches (one start, no restarts) over the {folds} outer folds"
        ctx.report_rows(tuning, f"{name}-tuning", title)


@experiment(
    "oglic2019-table1",
    description="rank-100 Kreĭn VC-LSM, LSM, SH-SVM and SF-LSM on the papers' dissimilarity data, "
    "tuned per fold, 10-fold CV",
    paper="Oglic & Gärtner 2019, Table 1",
    quick_minutes=1.0,
    full_minutes=30.0,
    selectable=True,
)
def run_table1(ctx):
    methods = (*LOW_RANK_METHODS, *GRID_METHODS, "KREIN LSM (krein split)")
    _run_table(ctx, methods, "table1", "Kreĭn methods")


@experiment(
    "oglic2019-table2",
    description="Appendix C: rank-100 methods beside the whole-space K-SVM, SF-LSM and VC-LSM, 10-fold CV",
    paper="Oglic & Gärtner 2019, Table 2 (Appendix C)",
    quick_minutes=2.0,
    full_minutes=30.0,
    selectable=True,
)
def run_table2(ctx):
    _run_table(ctx, (*LOW_RANK_METHODS, *FULL_METHODS), "table2", "approximations beside the whole space")


@experiment(
    "oglic2019-figure3",
    description="Figures 3 and 7: median 10-fold CV error of the low-rank methods against the rank",
    paper="Oglic & Gärtner 2019, Figures 3 and 7",
    quick_minutes=1.0,
    full_minutes=90.0,
    selectable=True,
)
def run_figure3(ctx):
    """The cells of Tables 1 and 2 at every rank of :data:`FIGURE3_SETTINGS` (the quick form: ranks 5
    and 20 on two data sets, 3 outer folds), one median error per data set, method and rank."""
    import matplotlib.pyplot as plt

    methods = (*LOW_RANK_METHODS, *GRID_METHODS)
    settings, datasets, results = _form_cells(ctx, FIGURE3_SETTINGS, methods)
    rows = [
        {
            "data set": name,
            "method": method,
            "rank": r,
            "median error": float(np.median([c[0] for c in cells])),
        }
        for (name, method, r), cells in results.items()
    ]
    figure, axes = plt.subplots(1, len(datasets), figsize=(4 * len(datasets), 3.2), squeeze=False)
    for ax, name in zip(axes[0], datasets, strict=True):
        for color, method in enumerate(methods):
            points = [
                (r["rank"], r["median error"]) for r in rows if (r["data set"], r["method"]) == (name, method)
            ]
            grid = method in GRID_METHODS  # dashed, in the colour of the same method tuned as in the paper
            color = f"C{methods.index(method.removesuffix(GRID_SUFFIX)) if grid else color}"
            style = {"ls": "--", "marker": "x"} if grid else {"marker": "o"}
            ax.plot(*zip(*points, strict=True), color=color, label=method, **style)
        ax.set(title=name, xlabel="rank (= landmarks)", ylabel="median error (%)")
    axes[0][0].legend(fontsize=7)
    figure.tight_layout()
    ctx.save_figure(figure, "figure3")
    ctx.report_rows(
        rows, "figure3", f"Median {settings.folds}-fold CV error against the rank (tuned per fold)"
    )

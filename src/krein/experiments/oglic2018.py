"""Experiments of Oglic & Gärtner (2018), *Learning in Reproducing Kernel Kreĭn Spaces*.

* ``oglic2018-table1`` — Table 1: synthetic regression with the indefinite matrix K₀ − K₀⁻¹
  (:func:`krein.datasets.make_krein_regression`, GAUSS and SIGMOID, n = 100, 500, 1000, and the
  paper's two "*Sigmoid" rows, n = 100, 500, as read in :data:`STARRED_FEATURES`); RMSE over
  10-fold cross-validation of KREĬN (problem (4)), FLIP (λ₊ = λ₋, i.e. the flip-spectrum matrix with
  its out-of-sample map), CLIP, SHIFT, SQUARE (problem (2) on the transformed matrix; test rows by the
  linear maps of Chen et al. 2009 for clip/flip and the heuristic of Wu et al. 2005 for shift/square)
  and OMCS-KREĬN (problem (2) on K); the spectrum of each K (min/max eigenvalue, #pos, #neg, ι).
* ``oglic2018-table2`` — Table 2: 10-fold stratified cross-validated classification error of KREĬN
  (problem (4), λ₊, λ₋ and r tuned by hypergradients), the Kreĭn SVM (Loosli et al. 2016,
  :class:`~krein.svm.KreinSVC`, C tuned on a grid) and LRR-SF (linear ridge regression on similarities
  as features, :class:`~krein.least_squares.SimilarityFeaturesClassifier`, α tuned on a grid) on the
  structured data krein ships: the ``protein`` and ``coilyork`` dissimilarities of the paper's table
  (made similarities by negative double centering, Appendix C, refitted on every training part) and
  the ``aural-sonar`` and ``chen-protein`` similarity matrices (Chen et al. 2009; used as they are).
  Multi-class sets become the one-vs-all task of the first class ("the class with the label one",
  Appendix C).
* ``oglic2018-table3`` — Table 3: 10-fold (stratified) cross-validated classification error on
  Haberman, Ionosphere, BreastCancer (wisconsin), Australian, Diabetes (pima) and RMSE on Yacht, PM10,
  Wage and Airfoil with the six kernels of Appendix D, with ι of the training kernel at the tuned
  hyperparameters.

Every model is tuned by :class:`krein.model_selection.HypergradientSearchCV` on inner folds of the
outer training part (Appendix C: 5 inner folds, 10 restarts of ≤ 20 L-BFGS-B iterations, then ≤ 200).
Inputs are standardized, regression targets scaled to unit range (Appendix C); RMSE is reported ×100
(the scale of the paper's tables). ``--n-jobs`` runs the random restarts of each search in parallel.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import KFold, StratifiedKFold

from ..kernels import APPENDIX_D_KERNELS, initial_kernel
from ..least_squares import VarianceConstrainedKrein, VarianceConstrainedKreinClassifier
from ..model_selection import HypergradientSearchCV
from ..spectral import SpectrumTransformer, indefiniteness, spectrum_summary
from ._framework import ResultTable, experiment
from ._papers import PaperTable
from ._protocol import Forms, grid_search, outer_splits, run_cells

#: Method → (spectrum transformation or None, regularization of the variance-constrained problem).
TABLE1_METHODS = {
    "KREIN": (None, "decomposition"),
    "FLIP": ("flip", "krein"),
    "CLIP": ("clip", "krein"),
    "SHIFT": ("shift", "krein"),
    "SQUARE": ("square", "krein"),
    "OMCS-KREIN": (None, "krein"),
}
TABLE1_TASKS = (
    ("GAUSS", 100),
    ("GAUSS", 500),
    ("GAUSS", 1000),
    ("SIGMOID", 100),
    ("SIGMOID", 500),
    ("SIGMOID", 1000),
    ("*SIGMOID", 100),
    ("*SIGMOID", 500),
)
#: The paper's two "*Sigmoid" rows, as read here (the paper never defines the asterisk): the sigmoid
#: kernel in its nearly linear regime on inputs of :data:`STARRED_FEATURES` dimensions, so that
#: K₀ ≈ (XXᵀ − 0.5)/η² is close to singular and K₀ − K₀⁻¹ has the rows' extreme eigenvalues (±10⁵–10⁶)
#: and counts (n = 100: 2 positive, as d ≥ n − 2 gives; n = 500: 100 negative, the rank d of the
#: linear part, whose eigenvalues lie in (0, 1)). η is the point of :data:`STARRED_BANDWIDTHS` whose
#: spectrum is closest to the paper's row (:func:`starred_sigmoid_bandwidth`).
STARRED_FEATURES = 100
STARRED_BANDWIDTHS = tuple(float(eta) for eta in np.logspace(1.0, 2.5, 61))
#: Table 1 of the paper: the spectrum of each task (min, max, pos, neg, iota) and the RMSE (×100) cells
#: of the methods of ``TABLE1_METHODS``.
PAPER_TABLE1 = PaperTable.load("oglic2018-table1")
#: The nine data sets of Table 3, in the paper's order (Yacht, PM10, Wage and Airfoil are regression).
TABLE3_DATASETS = (
    "haberman",
    "ionosphere",
    "wisconsin",
    "australian",
    "pima",
    "yacht",
    "pm10",
    "wage",
    "airfoil",
)

#: Table 3 of the paper on the data sets shipped here: (mean, std, iota) for each kernel of
#: ``APPENDIX_D_KERNELS``; classification error (%) or RMSE (×100).
PAPER_TABLE3 = PaperTable.load("oglic2018-table3")

#: Search settings of Appendix C and of the quick forms.
FULL_SEARCH = {"inner_folds": 5, "n_restarts": 10, "restart_iter": 20, "max_iter": 200}
QUICK_SEARCH = {"inner_folds": 3, "n_restarts": 2, "restart_iter": 10, "max_iter": 20}


def _search(estimator, settings, classification, seed, n_jobs=1):
    splitter = StratifiedKFold if classification else KFold
    return HypergradientSearchCV(
        estimator,
        cv=splitter(settings["inner_folds"], shuffle=True, random_state=seed),
        n_restarts=settings["n_restarts"],
        restart_iter=settings["restart_iter"],
        max_iter=settings["max_iter"],
        n_jobs=n_jobs,
        random_state=seed,
    )


def _rmse_percent(y_true, y_pred):
    return 100.0 * float(np.sqrt(np.mean((y_true - y_pred) ** 2)))


def table1_fold(K, y, train, test, method, settings, seed, n_jobs=1):
    """Test RMSE (×100) of one Table 1 method on one outer fold of the transductive matrix ``K``."""
    transform, regularization = TABLE1_METHODS[method]
    K_train, K_test = K[np.ix_(train, train)], K[np.ix_(test, train)]
    if transform is not None:
        transformer = SpectrumTransformer(transform)
        K_train = transformer.fit_transform(K_train)
        K_test = transformer.transform(K_test, diagonal=np.diag(K)[test] if transform == "square" else None)
    model = VarianceConstrainedKrein("precomputed", regularization=regularization)
    search = _search(model, settings, False, seed, n_jobs).fit(K_train, y[train])
    return _rmse_percent(y[test], search.predict(K_test))


def table1_key(kernel_name, n):
    """The ``--only`` name of a Table 1 task: ``gauss-100``, ``starred-sigmoid-500``."""
    return f"{kernel_name.lower().replace('*', 'starred-')}-{n}"


def _spectrum_distance(summary, paper):
    """How far a :func:`~krein.spectral.spectrum_summary` is from the paper's (a task of
    :data:`PAPER_TABLE1`: min, max, pos, neg, iota): decades between the extreme eigenvalues, plus ten
    times the differences of the fraction of positive eigenvalues and of ι (so a tenth of either weighs
    as one decade)."""
    paper_min, paper_max, paper_pos, paper_iota = (paper[k] for k in ("min", "max", "pos", "iota"))
    if summary["min_eigenvalue"] >= 0 or summary["max_eigenvalue"] <= 0:
        return np.inf
    return (
        abs(np.log10(summary["min_eigenvalue"] / paper_min))
        + abs(np.log10(summary["max_eigenvalue"] / paper_max))
        + 10.0 * abs(summary["n_positive"] - paper_pos) / summary["n"]
        + 10.0 * abs(summary["indefiniteness"] - paper_iota)
    )


def starred_sigmoid_bandwidth(n, seed, bandwidths=STARRED_BANDWIDTHS):
    """The η of ``bandwidths`` whose *Sigmoid matrix (n points, :data:`STARRED_FEATURES` features,
    ``random_state=seed``) has the spectrum closest to the paper's row (:func:`_spectrum_distance`)."""
    from ..datasets import make_krein_regression

    paper = PAPER_TABLE1.task(f"*SIGMOID (n = {n})")
    distances = []
    for eta in bandwidths:
        try:
            _, _, K = make_krein_regression(
                n, STARRED_FEATURES, kernel="sigmoid", bandwidth=eta, return_kernel=True, random_state=seed
            )
        except ValueError:  # K₀ numerically singular: K₀⁻¹ undefined at this η
            distances.append(np.inf)
            continue
        distances.append(_spectrum_distance(spectrum_summary(K), paper))
    if not np.isfinite(np.min(distances)):
        raise ValueError(f"No bandwidth of the grid gives an invertible *Sigmoid matrix for n = {n}.")
    return float(bandwidths[int(np.argmin(distances))])


def table1_task(kernel_name, n, seed):
    """``(K, y, data)`` of one Table 1 task: the matrix K₀ − K₀⁻¹, the targets scaled to unit range and
    how they were drawn (``n_features``, ``bandwidth``: None where drawn as in Appendix E.1)."""
    from ..datasets import make_krein_regression, scale_to_unit_range

    data = {"n_features": 20, "bandwidth": None}  # make_krein_regression's defaults
    if kernel_name.startswith("*"):
        data = {"n_features": STARRED_FEATURES, "bandwidth": starred_sigmoid_bandwidth(n, seed)}
    kernel = kernel_name.lstrip("*").lower()
    _, y, K = make_krein_regression(n, kernel=kernel, return_kernel=True, random_state=seed, **data)
    return K, scale_to_unit_range(y), data


def _fold_cells(ctx, tasks, methods, outer_folds, compute, description):
    """``{(task, method): [value of each outer fold]}``: :func:`run_cells` over every (task, method,
    fold), ``compute(task, method, fold)`` stored under the key ``{task}-{method}-fold{fold}``."""
    folds = range(outer_folds)
    cells = run_cells(
        ctx,
        [(task, method, fold) for task in tasks for method in methods for fold in folds],
        compute,
        key=lambda task, method, fold: f"{task}-{method}-fold{fold}",
        description=description,
    )
    return {
        (task, method): [cells[task, method, fold] for fold in folds] for task in tasks for method in methods
    }


def run_table1(ctx, tasks, methods, outer_folds, settings):
    """Table 1 on ``tasks`` ((kernel, n) pairs): the :class:`ResultTable`, the rows beside the paper's
    (:data:`PAPER_TABLE1`) and one row per task with its spectrum beside the paper's. Every outer fold
    of every method is a cell (:func:`run_cells`)."""
    table = ResultTable("Oglic & Gärtner (2018), Table 1: synthetic K − K⁻¹ regression", "RMSE (×100)")
    versus_paper, spectra, data = [], [], {}
    for kernel_name, n in tasks:
        K, y, drawn = table1_task(kernel_name, n, ctx.random_state)
        splits = outer_splits(y, outer_folds, random_state=ctx.random_state, stratify=False)
        data[table1_key(kernel_name, n)] = K, y, splits
        summary = spectrum_summary(K)
        task = f"{kernel_name} (n = {n})"
        info = {
            "min": summary["min_eigenvalue"],
            "max": summary["max_eigenvalue"],
            "pos": summary["n_positive"],
            "neg": summary["n_negative"],
            "iota": summary["indefiniteness"],
        }
        table.set_task_info(task, **info)
        bandwidth = "E.1" if drawn["bandwidth"] is None else drawn["bandwidth"]
        spectra.append({"task": task, "source": "ours", **info, **drawn, "bandwidth": bandwidth})
        if task in PAPER_TABLE1.tasks:
            spectra.append({"task": task, "source": "paper", **PAPER_TABLE1.task(task)})

    def rmse(key, method, fold):
        K, y, splits = data[key]
        return table1_fold(K, y, *splits[fold], method, settings, ctx.random_state + fold, ctx.n_jobs)

    scores = _fold_cells(ctx, list(data), methods, outer_folds, rmse, "oglic2018-table1")
    for kernel_name, n in tasks:
        task = f"{kernel_name} (n = {n})"
        for method in methods:
            values = scores[table1_key(kernel_name, n), method]
            table.add(task, method, values)
            if PAPER_TABLE1.has(task, method):
                versus_paper.append(PAPER_TABLE1.compare_scores(task, method, values))
    return table, versus_paper, spectra


#: Tasks, outer folds and search settings of the quick and the full form of Table 1.
TABLE1_FORMS = Forms(
    tasks=((("GAUSS", 100), ("SIGMOID", 100)), TABLE1_TASKS),
    folds=(5, 10),
    search=(QUICK_SEARCH, FULL_SEARCH),
)


@experiment(
    "oglic2018-table1",
    description="Synthetic K − K⁻¹ regression: KREĬN vs FLIP, CLIP, SHIFT, SQUARE, OMCS-KREĬN (RMSE).",
    paper="Oglic & Gärtner (ICML 2018), Table 1",
    quick_minutes=1.5,
    full_minutes=60,
    selectable=True,
)
def table1(ctx):
    settings = TABLE1_FORMS.of(ctx)
    chosen = ctx.select(tuple(table1_key(*task) for task in settings.tasks))
    tasks = tuple(task for task in settings.tasks if table1_key(*task) in chosen)
    table, versus_paper, spectra = run_table1(
        ctx, tasks, tuple(TABLE1_METHODS), settings.folds, settings.search
    )
    ctx.report(table, "oglic2018-table1")
    ctx.report(
        PAPER_TABLE1.comparison(versus_paper, "Ours next to the paper's Table 1"), "oglic2018-table1-vs-paper"
    )
    ctx.report_rows(
        spectra,
        "oglic2018-table1-spectra",
        "Spectrum of each K₀ − K₀⁻¹ beside the paper's: extreme eigenvalues, counts, ι; how the "
        "data were drawn (input dimension, kernel bandwidth η; E.1: drawn as in Appendix E.1)",
    )


#: Table 2: the methods (by the paper's column names) and the data sets krein ships.
TABLE2_METHODS = ("KREIN", "K-SVM", "LRR-SF")
TABLE2_DATASETS = ("coilyork", "protein", "aural-sonar", "chen-protein")
#: Grids of the baselines' one hyperparameter (the paper does not give them); 5 inner stratified folds.
KSVM_C_GRID = tuple(np.logspace(-3, 4, 8))
LRRSF_ALPHA_GRID = tuple(np.logspace(-5, 2, 8))

#: Table 2 of the paper: (mean, std) classification error (%) of KREĬN, K-SVM and LRR-SF. Only
#: ``coilyork`` and ``protein`` are shipped; the other eight Duin–Pekalska sets could not be obtained.
PAPER_TABLE2 = PaperTable.load("oglic2018-table2")


def table2_task(name):
    """``(M, y, dissimilarity)`` of a Table 2 data set: its matrix, binary labels and its kind.

    ``M`` is a symmetric dissimilarity (``dissimilarity=True``) or similarity matrix. coilyork's
    graph-matching dissimilarities are not symmetric (max |D − Dᵀ| = 72 of 478); as usual for these
    data (Pekalska & Duin) they are symmetrized, ``(D + Dᵀ)/2``. Only its 144 training objects are
    used: the shipped test block holds test-versus-train dissimilarities only, which cross-validation
    over all 288 objects would need. Multi-class labels become the one-vs-all task of the first class
    (Appendix C): 1 for it, 0 for the rest.
    """
    from ..datasets import load_dataset

    data = load_dataset(name)
    if data.kind not in ("dissimilarity", "similarity"):
        raise ValueError(f"Table 2 needs a dissimilarity or similarity data set, not {name!r} ({data.kind}).")
    M = np.asarray(data.data, dtype=float)
    M = 0.5 * (M + M.T)
    y = np.asarray(data.target)
    classes = np.unique(y)
    if classes.size > 2:
        y = (y == classes[0]).astype(int)
    return M, y, data.kind == "dissimilarity"


def table2_kernel(M, train, test, dissimilarity):
    """Training kernel and test-versus-training rows of one split: double centering (Appendix C),
    fitted on the training part only, for dissimilarities; the similarity blocks otherwise."""
    from ..dissimilarity import DoubleCentering

    train_block, test_block = M[np.ix_(train, train)], M[np.ix_(test, train)]
    if not dissimilarity:
        return train_block, test_block
    centering = DoubleCentering()
    return centering.fit_transform(train_block), centering.transform(test_block)


def table2_fold(M, y, train, test, method, dissimilarity, settings, seed, n_jobs=1):
    """Test error (%) of one Table 2 method on one outer fold, tuned on inner folds of the training part.

    KREĬN is tuned by :class:`HypergradientSearchCV` (Appendix C) on the double-centred training
    kernel; the centring of problem (4) on an inner training part makes that exactly the double
    centering of the inner part. K-SVM and LRR-SF are tuned by :class:`~sklearn.model_selection.
    GridSearchCV` (accuracy, the same inner folds), with the double centering inside the pipeline.
    The matrix is first divided by its largest entry on the training part, so that the baselines'
    grids (:data:`KSVM_C_GRID`, :data:`LRRSF_ALPHA_GRID`) are in the units of a kernel of order one
    on every data set (KREĬN's search is in log space and does not need it).
    """
    from sklearn.pipeline import make_pipeline

    from ..dissimilarity import DoubleCentering
    from ..least_squares import SimilarityFeaturesClassifier
    from ..svm import KreinSVC

    M = M / np.max(np.abs(M[np.ix_(train, train)]))
    if method == "KREIN":
        K_train, K_test = table2_kernel(M, train, test, dissimilarity)
        model = VarianceConstrainedKreinClassifier("precomputed", label_encoding="balanced")  # Appendix C
        search = _search(model, settings, True, seed, n_jobs).fit(K_train, y[train])
        prediction = search.predict(K_test)
    else:
        model, name, grid = {
            "K-SVM": (KreinSVC(kernel="precomputed"), "kreinsvc__C", KSVM_C_GRID),
            "LRR-SF": (
                SimilarityFeaturesClassifier(kernel="precomputed"),
                "similarityfeaturesclassifier__alpha",
                LRRSF_ALPHA_GRID,
            ),
        }[method]
        pipeline = make_pipeline(DoubleCentering(), model) if dissimilarity else make_pipeline(model)
        search = grid_search(
            pipeline,
            {name: list(grid)},
            cv=StratifiedKFold(settings["inner_folds"], shuffle=True, random_state=seed),
            scoring="accuracy",
            n_jobs=n_jobs,
            error_score="raise",
        ).fit(M[np.ix_(train, train)], y[train])
        prediction = search.predict(M[np.ix_(test, train)])
    return _test_score(y[test], prediction, True)


def run_table2(ctx, datasets, methods, outer_folds, settings):
    """Table 2 on ``datasets`` × ``methods``: the error :class:`ResultTable` and the rows beside the
    paper's (:data:`PAPER_TABLE2`, for the sets it has). Every outer fold of every method is a cell
    (:func:`run_cells`)."""
    from ..dissimilarity import DoubleCentering

    table = ResultTable("Oglic & Gärtner (2018), Table 2: structured data", "error (%)")
    data = {}
    for name in datasets:
        M, y, dissimilarity = table2_task(name)
        whole = DoubleCentering().fit_transform(M) if dissimilarity else M
        table.set_task_info(name, n=len(y), iota=indefiniteness(whole))
        data[name] = M, y, dissimilarity, outer_splits(y, outer_folds, random_state=ctx.random_state)

    def error(name, method, fold):
        M, y, dissimilarity, splits = data[name]
        seed = ctx.random_state + fold
        return table2_fold(M, y, *splits[fold], method, dissimilarity, settings, seed, ctx.n_jobs)

    scores = _fold_cells(ctx, datasets, methods, outer_folds, error, "oglic2018-table2")
    versus_paper = []
    for name in datasets:
        for method in methods:
            values = scores[name, method]
            table.add(name, method, values)
            if PAPER_TABLE2.has(name, method):
                versus_paper.append(PAPER_TABLE2.compare_scores(name, method, values))
    return table, versus_paper


#: Outer folds and search settings of the quick and the full form of Table 2.
TABLE2_FORMS = Forms(folds=(3, 10), search=(QUICK_SEARCH, FULL_SEARCH))


@experiment(
    "oglic2018-table2",
    description="Structured data: KREĬN vs Kreĭn SVM vs LRR-SF (10-fold stratified CV error).",
    paper="Oglic & Gärtner (ICML 2018), Table 2",
    quick_minutes=1.0,
    full_minutes=20,
    selectable=True,
)
def table2(ctx):
    settings = TABLE2_FORMS.of(ctx)
    table, versus_paper = run_table2(
        ctx, ctx.select(TABLE2_DATASETS), TABLE2_METHODS, settings.folds, settings.search
    )
    ctx.report(table, "oglic2018-table2")
    ctx.report(
        PAPER_TABLE2.comparison(versus_paper, "Ours next to the paper's Table 2"), "oglic2018-table2-vs-paper"
    )


def _table3_data(name, max_samples, seed):
    from ..datasets import load_dataset, scale_to_unit_range, standardize

    data = load_dataset(name)
    X, y = standardize(np.asarray(data.data, dtype=float)), np.asarray(data.target)
    classification = data.task == "classification"
    if max_samples is not None and X.shape[0] > max_samples:
        keep = np.sort(np.random.default_rng(seed).choice(X.shape[0], max_samples, replace=False))
        X, y = X[keep], y[keep]
    if not classification:
        y = scale_to_unit_range(y.astype(float))
    return X, y, classification


def table3_search(X, y, train, kernel_name, classification, settings, seed, n_jobs=1):
    """The :class:`HypergradientSearchCV` of one Table 3 cell, fitted on the outer training part."""
    kernel = initial_kernel(kernel_name, X[train], random_state=seed)
    if classification:  # the class-balanced labels of Appendix C
        model = VarianceConstrainedKreinClassifier(kernel, label_encoding="balanced")
    else:
        model = VarianceConstrainedKrein(kernel)
    return _search(model, settings, classification, seed, n_jobs).fit(X[train], y[train])


def _test_score(y_true, prediction, classification):
    """Error in % (classification) or RMSE ×100 (regression)."""
    if classification:
        return 100.0 * float(np.mean(prediction != y_true))
    return _rmse_percent(y_true, prediction)


def table3_fold(X, y, train, test, kernel_name, classification, settings, seed, n_jobs=1):
    """(test score, ι at the tuned hyperparameters) of one Table 3 cell on one outer fold.

    The score is the error in % (classification) or the RMSE ×100 (regression).
    """
    search = table3_search(X, y, train, kernel_name, classification, settings, seed, n_jobs)
    score = _test_score(y[test], search.predict(X[test]), classification)
    return score, float(search.best_estimator_.indefiniteness_)


def run_table3(ctx, datasets, kernels, outer_folds, settings, max_samples=None):
    """Table 3 on ``datasets`` × ``kernels``; returns the error and RMSE :class:`ResultTable`\\ s.

    Every outer fold of every (data set, kernel) is a cell (:func:`run_cells`), so ``--resume``
    continues a stopped run (the full protocol takes about six CPU-hours). The third value returned is
    one row per cell set beside the paper's (:data:`PAPER_TABLE3`), the fourth one row per data set
    comparing DELTA-GAUSS with GAUSS fold by fold (:func:`delta_gauss_against_gauss`; empty unless
    both kernels are run).
    """
    errors = ResultTable("Oglic & Gärtner (2018), Table 3: classification", "error (%)")
    rmse = ResultTable("Oglic & Gärtner (2018), Table 3: regression", "RMSE (×100)")
    data = {}
    for name in datasets:
        X, y, classification = _table3_data(name, max_samples, ctx.random_state)
        splits = outer_splits(y, outer_folds, random_state=ctx.random_state, stratify=classification)
        data[name] = X, y, classification, splits

    def score(name, kernel_name, fold):
        X, y, classification, splits = data[name]
        seed = ctx.random_state + fold
        return table3_fold(X, y, *splits[fold], kernel_name, classification, settings, seed, ctx.n_jobs)

    cells = _fold_cells(ctx, datasets, kernels, outer_folds, score, "oglic2018-table3")
    iotas, versus_paper, against_gauss = {}, [], []
    for name, (X, _, classification, _) in data.items():
        table = errors if classification else rmse
        task = f"{name} (n = {X.shape[0]})"
        for kernel_name in kernels:
            scores, iota = zip(*cells[name, kernel_name], strict=True)
            table.add(task, kernel_name, scores)
            iotas[(task, kernel_name)] = float(np.mean(iota))
            versus_paper.append(_versus_paper(name, kernel_name, scores, iotas[(task, kernel_name)]))
        table.set_task_info(task, **{f"ι {k}": iotas[(task, k)] for k in kernels})
        if {"DELTA-GAUSS", "GAUSS"} <= set(kernels):
            row = delta_gauss_against_gauss(cells[name, "DELTA-GAUSS"], cells[name, "GAUSS"])
            kind = "classification" if classification else "regression"
            against_gauss.append({"data set": name, "task": kind, **row})
    return errors, rmse, versus_paper, against_gauss


#: ι of a tuned DELTA-GAUSS model within this of 0 or 1 counts as "near ±GAUSS" (issue 15).
DELTA_GAUSS_NEAR = 0.05


def delta_gauss_against_gauss(delta_folds, gauss_folds):
    """Fold by fold, how often the tuned DELTA-GAUSS model behaves like GAUSS (issue 15).

    ``delta_folds`` and ``gauss_folds`` are the ``(score, ι)`` cells of the same outer folds
    (:func:`table3_fold`). Returns the number of ``folds``, of folds with an ``equal score`` (test error
    or RMSE), and of folds whose DELTA-GAUSS ι lies within :data:`DELTA_GAUSS_NEAR` of 0 (``ι near 0``:
    the +GAUSS limit) or of 1 (``ι near 1``: the −GAUSS limit), the two limits of DELTA-GAUSS
    (:func:`delta_gauss_fold` explains them).
    """
    if len(delta_folds) != len(gauss_folds):
        raise ValueError(f"{len(delta_folds)} DELTA-GAUSS folds against {len(gauss_folds)} GAUSS folds.")
    iotas = [iota for _, iota in delta_folds]
    return {
        "folds": len(delta_folds),
        "equal score": sum(d == g for (d, _), (g, _) in zip(delta_folds, gauss_folds, strict=True)),
        "ι near 0": sum(iota < DELTA_GAUSS_NEAR for iota in iotas),
        "ι near 1": sum(iota > 1 - DELTA_GAUSS_NEAR for iota in iotas),
    }


def _versus_paper(name, kernel_name, scores, iota):
    """One Table 3 cell beside the paper's, with ι (ours: the mean over the folds) beside the paper's."""
    details = {"ι ours": round(iota, 2), "ι paper": PAPER_TABLE3.cell(name, kernel_name)["iota"]}
    return PAPER_TABLE3.compare_scores(name, kernel_name, scores, details=details)


#: Data sets, outer folds, search settings and subsample size of the quick and the full form of Table 3.
TABLE3_FORMS = Forms(
    datasets=(("haberman", "wage"), TABLE3_DATASETS),
    folds=(3, 10),
    search=(QUICK_SEARCH, FULL_SEARCH),
    max_samples=(200, None),
)


@experiment(
    "oglic2018-table3",
    description="UCI data with the six Appendix D kernels, tuned by hypergradients (error / RMSE, ι).",
    paper="Oglic & Gärtner (ICML 2018), Table 3",
    quick_minutes=2.5,
    full_minutes=360,
    selectable=True,
)
def table3(ctx):
    settings = TABLE3_FORMS.of(ctx)
    errors, rmse, versus_paper, against_gauss = run_table3(
        ctx,
        ctx.select(settings.datasets),
        APPENDIX_D_KERNELS,
        settings.folds,
        settings.search,
        max_samples=settings.max_samples,
    )
    for table, name in ((errors, "classification"), (rmse, "regression")):
        if table.tasks:  # --only may leave one of them empty
            ctx.report(table, f"oglic2018-table3-{name}")
    ctx.report(
        PAPER_TABLE3.comparison(versus_paper, "Ours next to the paper's Table 3"), "oglic2018-table3-vs-paper"
    )
    if against_gauss:
        classification = [row for row in against_gauss if row["task"] == "classification"]
        folds = sum(row["folds"] for row in classification)
        equal = sum(row["equal score"] for row in classification)
        near = sum(row["ι near 0"] + row["ι near 1"] for row in classification)
        ctx.report_rows(
            against_gauss,
            "oglic2018-table3-delta-gauss",
            "DELTA-GAUSS against GAUSS, fold by fold: folds with equal test scores, and with the ι of "
            f"the tuned DELTA-GAUSS model below {DELTA_GAUSS_NEAR} or above {1 - DELTA_GAUSS_NEAR}; "
            f"classification: equal errors in {equal} of {folds} folds, ι near 0 or 1 in {near} of {folds}",
        )


#: Data sets of the DELTA-GAUSS re-check (``oglic2018-delta-gauss``).
DELTA_GAUSS_DATASETS = ("haberman", "ionosphere")
#: Outer folds (of the 10-fold splits), search settings and subsample size of its quick and full form.
DELTA_GAUSS_FORMS = Forms(folds=(2, 3), search=(QUICK_SEARCH, FULL_SEARCH), max_samples=(150, None))
#: Relative change of the inner-CV loss below which moving a bandwidth to its bound counts as "no change".
DELTA_GAUSS_FLAT = 1e-3


def delta_gauss_fold(X, y, train, test, settings, seed, n_jobs=1):
    """Where the tuned DELTA-GAUSS model of one Table 3 classification fold sits, against GAUSS.

    DELTA-GAUSS (Appendix D) is ``G(η₁) − G(η₂)`` with ``G(η) = exp(−‖x − x'‖²/(2η²))``. It contains
    ±GAUSS as limits: a wide Gaussian tends to the all-ones matrix, which the centring of problem (4)
    removes (``H 1 1ᵀ H = 0``), so ``η₂ → ∞`` leaves ``+G(η₁)`` and ``η₁ → ∞`` leaves ``−G(η₂)``
    (the KREĬN model on ``−G`` is the one on ``G`` with λ₊ and λ₋ exchanged); a narrow Gaussian tends
    to the identity on distinct points, so ``η₁ → 0`` leaves ``I − G(η₂)``, a shifted −GAUSS (and
    ``η₂ → 0`` a shifted +GAUSS). This runs the Table 3 searches of DELTA-GAUSS and GAUSS on one outer
    fold (the seeds of the stored Table 3 cells) and returns, as a dict:

    * the tuned ``eta1``, ``eta2``, λ₊, λ₋, r, ι, and ``spread``, the median distance between training
      inputs (the scale the bandwidths compare with);
    * ``loss`` — the cross-validated objective (inner-fold validation MSE) at the DELTA-GAUSS optimum;
      ``wide_loss`` — the same with the larger bandwidth at its upper bound (the ±GAUSS limit);
      ``narrow_loss`` — with the smaller bandwidth at its lower bound (the shifted ∓GAUSS limit);
      ``gauss_loss`` — the optimum of the GAUSS search;
    * ``limit`` — "+GAUSS" or "−GAUSS" when the wide limit changes the loss by less than
      :data:`DELTA_GAUSS_FLAT` (relative), "shifted ±GAUSS" when the narrow one does, "none" otherwise;
    * ``error`` / ``gauss_error`` — test errors (%) of the tuned DELTA-GAUSS and GAUSS models, and
      ``agree_gauss``, the fraction of test points on which the two predict the same class.
    """
    from scipy.spatial.distance import pdist

    from ..model_selection import cross_validation_loss

    searches = {
        name: table3_search(X, y, train, name, True, settings, seed, n_jobs)
        for name in ("DELTA-GAUSS", "GAUSS")
    }
    search = searches["DELTA-GAUSS"]
    params = search.best_params_
    eta1, eta2 = float(params["kernel"].eta1), float(params["kernel"].eta2)
    template = clone(search.best_estimator_)
    theta, bounds = template._hyperparameter_vector()
    X_train, y_train = X[train], y[train]
    inner = StratifiedKFold(settings["inner_folds"], shuffle=True, random_state=seed)
    first = len(theta) - 2  # log η₁, log η₂ are the last two entries
    wide, narrow = (first + 1, first) if eta2 > eta1 else (first, first + 1)

    def loss_with(index, bound):
        point = theta.copy()
        point[index] = bounds[index, bound]
        return cross_validation_loss(template, X_train, y_train, inner, point)[0]

    loss = cross_validation_loss(template, X_train, y_train, inner, theta)[0]
    wide_loss, narrow_loss = loss_with(wide, 1), loss_with(narrow, 0)
    if abs(wide_loss - loss) <= DELTA_GAUSS_FLAT * loss:
        limit = "+GAUSS" if eta2 > eta1 else "−GAUSS"
    elif abs(narrow_loss - loss) <= DELTA_GAUSS_FLAT * loss:
        limit = "shifted −GAUSS" if eta2 > eta1 else "shifted +GAUSS"
    else:
        limit = "none"
    predictions = {name: s.predict(X[test]) for name, s in searches.items()}
    return {
        "eta1": eta1,
        "eta2": eta2,
        "spread": float(np.median(pdist(X_train))),
        "lambda_plus": float(params["lambda_plus"]),
        "lambda_minus": float(params["lambda_minus"]),
        "radius": float(params["radius"]),
        "iota": float(search.best_estimator_.indefiniteness_),
        "loss": loss,
        "wide_loss": wide_loss,
        "narrow_loss": narrow_loss,
        "gauss_loss": float(searches["GAUSS"].best_loss_),
        "limit": limit,
        "error": _test_score(y[test], predictions["DELTA-GAUSS"], True),
        "gauss_error": _test_score(y[test], predictions["GAUSS"], True),
        "agree_gauss": float(np.mean(predictions["DELTA-GAUSS"] == predictions["GAUSS"])),
    }


def run_delta_gauss(ctx, datasets, folds, settings, max_samples=None):
    """:func:`delta_gauss_fold` on the first ``folds`` outer folds of each data set (10-fold splits).

    Every fold is a cell (:func:`run_cells`). Returns one row per fold.
    """
    data = {}
    for name in datasets:
        X, y, classification = _table3_data(name, max_samples, ctx.random_state)
        if not classification:
            raise ValueError(f"The DELTA-GAUSS re-check runs on classification data, not {name!r}.")
        data[name] = X, y, outer_splits(y, 10, random_state=ctx.random_state)[:folds]

    def recheck(name, fold):
        X, y, splits = data[name]
        return delta_gauss_fold(X, y, *splits[fold], settings, ctx.random_state + fold, ctx.n_jobs)

    cells = run_cells(
        ctx,
        [(name, fold) for name in datasets for fold in range(folds)],
        recheck,
        key=lambda name, fold: f"delta-gauss-{name}-fold{fold}",
        description="oglic2018-delta-gauss",
    )
    return [{"data set": name, "fold": fold, **value} for (name, fold), value in cells.items()]


def _delta_gauss_row(row):
    """A printable row (80 columns) of :func:`run_delta_gauss`."""
    return {
        "fold": f"{row['data set'][:3]}{row['fold']}",
        "η₁": f"{row['eta1']:.3g}",
        "η₂": f"{row['eta2']:.3g}",
        "ι": f"{row['iota']:.2f}",
        "loss": f"{row['loss']:.4f}",
        "wide": f"{row['wide_loss']:.4f}",
        "narrow": f"{row['narrow_loss']:.4f}",
        "GAUSS": f"{row['gauss_loss']:.4f}",
        "limit": row["limit"],
        "err": f"{row['error']:.1f}",
        "G err": f"{row['gauss_error']:.1f}",
    }


@experiment(
    "oglic2018-delta-gauss",
    description="Re-check of DELTA-GAUSS in Table 3: is the tuned kernel ±GAUSS (bandwidths, losses)?",
    paper="Oglic & Gärtner (ICML 2018), Table 3 and Appendix D",
    quick_minutes=1.0,
    full_minutes=15,
    selectable=True,
)
def delta_gauss(ctx):
    settings = DELTA_GAUSS_FORMS.of(ctx)
    rows = run_delta_gauss(
        ctx,
        ctx.select(DELTA_GAUSS_DATASETS),
        settings.folds,
        settings.search,
        max_samples=settings.max_samples,
    )
    ctx.write_json({"rows": rows}, "delta-gauss-folds")
    at_limit = sum(row["limit"] != "none" for row in rows)
    equal = sum(row["error"] == row["gauss_error"] for row in rows)
    ctx.report_rows(
        [_delta_gauss_row(row) for row in rows],
        "delta-gauss",
        "DELTA-GAUSS at the tuned hyperparameters: bandwidths, ι, inner-CV loss at the optimum, with the "
        "wider bandwidth at its upper and the narrower at its lower bound, GAUSS's optimum; the limit "
        "the loss does not distinguish; test errors (%) of DELTA-GAUSS and GAUSS. "
        f"{at_limit} of {len(rows)} folds at a ±GAUSS limit; equal test errors in {equal} of {len(rows)}",
    )

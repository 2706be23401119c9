"""``showcase``: indefinite kernels handled properly against the usual practice, on shipped real data.

The default job of ``krein reproduce`` (``krein reproduce --quick`` is a newcomer's first command).
On vectorial datasets under indefinite kernels of Appendix D of Oglic & Gärtner (2018) and on
structured datasets under their domain dissimilarity (edit distance on DNA strings, dynamic time
warping on time series, tangent distance on digit images; made into kernels by
:class:`~krein.dissimilarity.DoubleCentering`, fitted inside each training fold), it compares the
methods that learn in the Kreĭn space of the kernel with the usual practice — clip, flip or shift the
spectrum and train an SVC, train an SVC on the indefinite kernel as if it were positive definite, drop
the domain kernel for an RBF SVC on the raw features, or, on a dissimilarity, classify by the nearest
neighbour (1-NN). :class:`~krein.model_selection.KreinClassifierCV` is the library's recommended route:
it gets the raw matrix (the kernel, or the dissimilarity itself) and chooses the kernel's scale, the
method and its penalty by its own inner cross-validation.

Protocol (one for every method): stratified k-fold cross-validation with a fixed seed; each method
tunes its regularization on a tiny inner grid by an inner stratified 3-fold cross-validation of the
training fold only (:class:`~sklearn.model_selection.GridSearchCV`); kernel hyperparameters are the
Appendix E.1 draw of :func:`krein.kernels.initial_kernel` with the same seed, fixed for all methods;
the kernel matrix is scaled by a constant (max |K| = 1, median dissimilarity 1) so that one grid fits
every task. The table reports the test error (%) as mean ± std over the folds, bold where Welch's
t-test does not find the method worse than the best one, the size n and indefiniteness ι of each
task's kernel, and the fit time of each method (inner grid search included). One PNG per task shows
the kernel's spectrum next to the errors.

Adding a method is one entry in :data:`METHODS`; adding a task is one entry in :data:`TASKS`.
"""

from __future__ import annotations

import re
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import joblib
import numpy as np
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from ..dissimilarity import DoubleCentering, dtw_distances, edit_distances, tangent_distances
from ..least_squares import KreinRidgeClassifier, VarianceConstrainedKreinClassifier
from ..logistic import IndefiniteLogisticRegression
from ..model_selection import KreinClassifierCV
from ..spectral import SpectrumTransformer, eigendecompose, indefiniteness
from ..svm import IndefiniteSVC, KreinSVC
from ._framework import ResultTable, experiment
from ._protocol import Forms, grid_search

__all__ = ["METHODS", "TASKS", "Method", "Task", "TaskData", "load_task", "run_showcase"]


@dataclass(frozen=True)
class Task:
    """A dataset and the (dis)similarity the methods learn with.

    Parameters
    ----------
    name : str
        Row label of the results table.
    dataset : str
        Name for :func:`krein.datasets.load_dataset`.
    similarity : str
        An Appendix D kernel name (``"SIGMOID"``, ``"DELTA-GAUSS"``, ...) for vectorial data, or a
        dissimilarity: ``"edit"`` (strings), ``"dtw"`` (univariate series), ``"tangent"`` (images).
    features_dataset : str or None
        Dataset giving the same objects as vectors (in the same order) for the RBF baseline;
        ``None``: the dataset itself, flattened.
    """

    name: str
    dataset: str
    similarity: str
    features_dataset: str | None = None


@dataclass
class TaskData:
    """What a task gives the methods: a kernel or dissimilarity matrix, features and labels."""

    matrix: np.ndarray
    is_dissimilarity: bool
    features: np.ndarray
    y: np.ndarray
    kernel_description: str

    @property
    def kernel(self):
        """The n×n kernel matrix the methods see (double-centred when the matrix is a dissimilarity)."""
        if self.is_dissimilarity:
            return DoubleCentering().fit_transform(self.matrix)
        return self.matrix


@dataclass(frozen=True)
class Method:
    """A method of the comparison.

    Parameters
    ----------
    name : str
        Column label of the results table.
    make : callable
        ``make() -> estimator``; an estimator on a precomputed kernel (``kernel="precomputed"``),
        or on the task's features when ``on_features``.
    grid : dict
        Inner grid of hyperparameters of that estimator (tuned by inner cross-validation).
    on_features : bool, default=False
        The method ignores the task's kernel and learns from its vector features.
    raw : bool, default=False
        The method gets the task's matrix as it is (the kernel, or the dissimilarity, not double-centred)
        and ``make(data, inner_cv)`` builds it for the task (``data`` a :class:`TaskData`).
    distance_only : bool, default=False
        The method runs on dissimilarity tasks only (its cell is empty on the others).
    family : str
        ``"krein"`` for the methods of this library, ``"usual"`` for the usual practice.
    """

    name: str
    make: Callable
    grid: dict = field(default_factory=dict)
    on_features: bool = False
    raw: bool = False
    distance_only: bool = False
    family: str = "krein"


_C = [0.1, 1.0, 10.0]
_LAMBDAS = {"lambda_plus": [1e-3, 1e-2, 1e-1], "lambda_minus": [1e-3, 1e-1]}
#: Landmarks of the low-rank Kreĭn model.
LOW_RANK_COMPONENTS = 50


def _family_cv(data, inner_cv):
    matrix = {"metric": "precomputed"} if data.is_dissimilarity else {"kernel": "precomputed"}
    return KreinClassifierCV(**matrix, cv=inner_cv)


def _spectrum_svc(method):
    return Pipeline([("spectrum", SpectrumTransformer(method)), ("svc", SVC(kernel="precomputed"))])


#: The methods compared, Kreĭn-space methods first, then the usual practice.
METHODS = (
    Method("KreinClassifierCV", _family_cv, raw=True),
    Method("Kreĭn LS", lambda: KreinRidgeClassifier(kernel="precomputed"), _LAMBDAS),
    Method("KREĬN (VC)", lambda: VarianceConstrainedKreinClassifier(kernel="precomputed"), _LAMBDAS),
    Method(
        f"Kreĭn LS (m={LOW_RANK_COMPONENTS})",
        lambda: KreinRidgeClassifier(kernel="precomputed", n_components=LOW_RANK_COMPONENTS, random_state=0),
        _LAMBDAS,
    ),
    # ρ="auto" keeps the proxy kernel's rank-one label term (absent from the test rows) below 1e-3 of
    # the kernel's scale; a small ρ fits the training folds and misses the test fold.
    Method(
        "IndefiniteSVC",
        lambda: IndefiniteSVC(kernel="precomputed"),
        {"C": [1.0, 10.0, 100.0], "rho": ["auto"]},
    ),
    Method("KreinSVC", lambda: KreinSVC(kernel="precomputed"), {"C": _C}),
    Method(
        "IKLR",
        lambda: IndefiniteLogisticRegression(kernel="precomputed", solver="ccicp"),
        {"alpha": [1e-3, 1e-2, 1e-1]},
    ),
    Method("clip+SVC", lambda: _spectrum_svc("clip"), {"svc__C": _C}, family="usual"),
    Method("flip+SVC", lambda: _spectrum_svc("flip"), {"svc__C": _C}, family="usual"),
    Method("shift+SVC", lambda: _spectrum_svc("shift"), {"svc__C": _C}, family="usual"),
    Method("SVC (indefinite)", lambda: SVC(kernel="precomputed"), {"C": _C}, family="usual"),
    Method(
        "SVC (RBF)",
        lambda: make_pipeline(StandardScaler(), SVC(kernel="rbf")),
        {"svc__C": _C},
        on_features=True,
        family="usual",
    ),
    Method(
        "1-NN",
        lambda data, inner_cv: KNeighborsClassifier(n_neighbors=1, metric="precomputed"),
        raw=True,
        distance_only=True,
        family="usual",
    ),
)

#: The tasks: vectorial data under indefinite kernels, structured data under domain dissimilarities.
TASKS = (
    Task("pima / SIGMOID", "pima", "SIGMOID"),
    Task("german / SIGMOID", "german", "SIGMOID"),
    Task("ionosphere / DELTA-GAUSS", "ionosphere", "DELTA-GAUSS"),
    Task("splice / edit distance", "splice-strings", "edit", features_dataset="splice"),
    Task("gunpoint / DTW", "gunpoint", "dtw"),
    Task("digits 3v5 / tangent distance", "digits-3v5", "tangent"),
)

_DISSIMILARITIES = {
    "edit": ("Levenshtein distances", lambda data: edit_distances(list(data))),
    "dtw": ("DTW distances", dtw_distances),
    "tangent": ("mean tangent distances", tangent_distances),
}


def _subsample(y, max_samples, seed):
    """Indices of a stratified subsample of at most ``max_samples`` objects (sorted)."""
    if max_samples is None or y.size <= max_samples:
        return np.arange(y.size)
    kept, _ = train_test_split(np.arange(y.size), train_size=max_samples, stratify=y, random_state=seed)
    return np.sort(kept)


def load_task(task, *, max_samples, seed):
    """Load a task: the scaled kernel (or dissimilarity) matrix, features and labels.

    Vectorial data are standardized (Appendix C of Oglic & Gärtner 2018) and the kernel is scaled
    to max |K| = 1; dissimilarities are scaled to a median off-diagonal value of 1. Scaling by a
    constant changes no method's model class; it lets one regularization grid serve every task.
    """
    from ..datasets import load_dataset, standardize
    from ..kernels import initial_kernel

    bunch = load_dataset(task.dataset)
    y_all = np.asarray(bunch.target)
    idx = _subsample(y_all, max_samples, seed)
    y = y_all[idx]
    if task.similarity in _DISSIMILARITIES:
        label, distances = _DISSIMILARITIES[task.similarity]
        D = distances(np.asarray(bunch.data, dtype=object if task.similarity == "edit" else float)[idx])
        D = 0.5 * (D + D.T)
        D /= np.median(D[np.triu_indices_from(D, k=1)])
        source = bunch if task.features_dataset is None else load_dataset(task.features_dataset)
        features = np.asarray(source.data, dtype=float)[idx].reshape(idx.size, -1)
        return TaskData(D, True, features, y, f"{label}, double-centred in each training fold")
    X = standardize(np.asarray(bunch.data, dtype=float)[idx])
    kernel = initial_kernel(task.similarity, X, random_state=seed)
    K = kernel(X)
    K = 0.5 * (K + K.T) / np.abs(K).max()
    return TaskData(K, False, X, y, f"{kernel!r} (Appendix E.1 draw), scaled to max |K| = 1")


def _estimator(method, data, inner_cv, memory):
    """The method as one estimator: centering step for dissimilarities, inner grid search.

    Pipelines get ``memory`` (a :class:`joblib.Memory`), so that the grid search fits a transformer
    (one eigendecomposition for clip/flip/shift) once per inner fold rather than once per grid point.
    IndefiniteSVC is tuned by
    :class:`~krein.experiments._path_search.PathGridSearchCV`: one warm-started path over its grid per
    inner fold, the same selection rule.
    """
    if method.raw:
        return method.make(data, inner_cv)
    estimator, grid = method.make(), dict(method.grid)
    if isinstance(estimator, Pipeline):
        estimator.set_params(memory=memory)
    if data.is_dissimilarity and not method.on_features:
        estimator = Pipeline([("centering", DoubleCentering()), ("model", estimator)], memory=memory)
        grid = {f"model__{key}": values for key, values in grid.items()}
    if grid:
        path = isinstance(method.make(), IndefiniteSVC)
        estimator = grid_search(
            estimator, grid, cv=inner_cv, scoring="accuracy", error_score="raise", path=path
        )
    return estimator


def _task_figure(task, data, errors, methods):
    """Spectrum of the task's kernel (left) and the test error of each method (right)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    values = eigendecompose(data.kernel).values[::-1]
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8), gridspec_kw={"width_ratios": [1, 1.4]})
    colors = np.where(values >= 0, "tab:blue", "tab:red")
    left.scatter(np.arange(1, values.size + 1), values, c=colors, s=6)
    left.axhline(0.0, color="grey", linewidth=0.8)
    left.set_yscale("symlog", linthresh=max(1e-8, float(np.abs(values).max()) * 1e-3))
    left.set_xlabel("index (descending)")
    left.set_ylabel("eigenvalue")
    left.set_title(f"spectrum: ι = {indefiniteness(values):.3f} (negative in red)", fontsize=9)
    methods = [m for m in methods if m.name in errors]
    names = [m.name for m in methods]
    means = [np.mean(errors[name]) for name in names]
    stds = [np.std(errors[name], ddof=1) if len(errors[name]) > 1 else 0.0 for name in names]
    bar_colors = ["tab:green" if m.family == "krein" else "tab:grey" for m in methods]
    right.barh(names, means, xerr=stds, color=bar_colors, capsize=3)
    right.invert_yaxis()
    right.set_xlabel("test error (%), mean ± std over folds")
    right.set_title("krein (green) vs usual practice (grey)", fontsize=9)
    figure.suptitle(task.name, fontsize=11)
    figure.tight_layout()
    return figure


def run_showcase(ctx, *, tasks=TASKS, methods=METHODS, max_samples=300, n_splits=5, name="showcase"):
    """Run the comparison and report it (``name``.md/.csv/.json and one PNG per task).

    Parameters
    ----------
    ctx : RunContext
    tasks : sequence of Task
    methods : sequence of Method
    max_samples : int or None
        Larger datasets are subsampled (stratified) to this many objects.
    n_splits : int
        Folds of the outer cross-validation.
    name : str
        Base name of the files written.

    Returns
    -------
    ResultTable
    """
    table = ResultTable(
        f"Indefinite kernels: krein vs the usual practice ({n_splits}-fold CV, seed {ctx.random_state})",
        "error (%)",
        lower_is_better=True,
    )
    outer = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=ctx.random_state)
    inner = StratifiedKFold(n_splits=3, shuffle=True, random_state=ctx.random_state)
    descriptions = {}
    with (
        tempfile.TemporaryDirectory(prefix="krein-showcase-") as cache,
        ctx.progress(len(tasks) * len(methods), "showcase") as advance,
    ):
        memory = joblib.Memory(cache, verbose=0)
        for task in tasks:
            data = load_task(task, max_samples=max_samples, seed=ctx.random_state)
            descriptions[task.name] = data.kernel_description
            table.set_task_info(task.name, n=int(data.y.size), iota=float(indefiniteness(data.kernel)))
            errors = {}
            for method in methods:
                if method.distance_only and not data.is_dissimilarity:
                    advance()
                    continue
                X = data.features if method.on_features else data.matrix
                estimator = _estimator(method, data, inner, memory)
                scores, seconds = ctx.cross_validate(estimator, X, data.y, outer, "accuracy")
                errors[method.name] = 100.0 * (1.0 - np.asarray(scores))
                table.add(task.name, method.name, errors[method.name], seconds)
                advance()
            ctx.save_figure(_task_figure(task, data, errors, methods), f"{name}_{_file_name(task.name)}")
    with warnings.catch_warnings():  # Welch's test on identical fold scores (e.g. all 0 % error) is exact
        warnings.simplefilter("ignore", RuntimeWarning)
        with ctx.console.capture():  # the files get the task × method table; the console a compact view
            ctx.report(table, name)
        ctx.console.print(console_table(table))
    ctx.write_json({"kernels": descriptions, "methods": {m.name: m.family for m in methods}}, f"{name}_setup")
    ctx.console.print(
        f"Full table (± std, per-fold values): {ctx.out / name}.md, .csv and .json. One figure per task "
        f"(spectrum and errors): {ctx.out / name}_*.png; open one with an image viewer, e.g. "
        f"`xdg-open {ctx.out / name}_{_file_name(tasks[0].name)}.png` (Linux) or `open ...` (macOS)."
    )
    return table


def console_table(table):
    """A method × task :class:`rich.table.Table` of mean errors that fits an 80-column terminal.

    Tasks are columns ``T1``, ``T2``, … explained in the caption (name, n and ι); a cell is the mean
    over the folds with one decimal (bold green: not significantly worse than the best); the last
    column is the method's total fit time. The ± std and the full task names are in the files
    (``showcase.md``/``.csv``/``.json``).
    """
    from rich.table import Table

    summary = {(r["task"], r["method"]): r for r in table.summary()}
    title = (
        f"{table.title}\nmean {table.metric} over the folds; bold: not significantly worse than the "
        f"best (Welch, p = {table.alpha}); ± std in the .md file"
    )
    caption = []
    view = Table(title=title, title_justify="left", caption_justify="left", padding=(0, 1))
    view.add_column("method", no_wrap=True)
    for number, task in enumerate(table.tasks, start=1):
        info = table.task_info.get(task, {})
        iota = info.get("iota", float("nan"))
        caption.append(f"T{number} = {task} (n = {info.get('n', '?')}, ι = {iota:.2f})")
        view.add_column(f"T{number}", justify="right", no_wrap=True)
    view.add_column("fit (s)", justify="right", no_wrap=True)
    view.caption = "\n".join(caption)
    for method in table.methods:
        cells, seconds = [], 0.0
        for task in table.tasks:
            row = summary.get((task, method))
            if row is None:
                cells.append("")
                continue
            seconds += row["fit_seconds"] * row["n_runs"] if row["fit_seconds"] is not None else 0.0
            text = f"{row['mean']:.1f}"
            cells.append(f"[bold green]{text}[/]" if row["not_worse_than_best"] else text)
        view.add_row(method, *cells, f"{seconds:.0f}")
    return view


def _file_name(label):
    return re.sub(r"[^0-9a-z]+", "_", label.lower()).strip("_")


#: The settings of ``showcase``, (quick, full): objects per task at most, and outer folds.
FORMS = Forms(max_samples=(250, 1000), n_splits=(5, 10))


@experiment(
    "showcase",
    description="krein's Kreĭn-space methods vs clip/flip/shift + SVC, indefinite SVC and RBF SVC on "
    "shipped data (sigmoid, delta-Gauss, edit distance, DTW, tangent distance)",
    paper="the library's main job (methods of all four papers on one protocol)",
    quick_minutes=2,
    full_minutes=30,
)
def run(ctx):
    settings = FORMS.of(ctx)
    run_showcase(ctx, max_samples=settings.max_samples, n_splits=settings.n_splits)

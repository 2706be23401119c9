"""Li, Venturi & Xu, *Learning the Kernel for Classification and Regression*: Tables 1–4 and Figures.

``li-tables`` (Tables 1–4, Ionosphere and Sonar): kernel ridge regression on ±1 labels with a learned
combination of base kernels. For each method, λ and Λ (or β for the regularized methods) are
selected by 10-fold cross-validation on the whole data set (the CV RMSE of the selected parameters
is Tables 1 and 3); the selected model is then evaluated on 30 random 50/50 splits: RMSE of the
regression output and misclassification of its sign (Tables 2 and 4). Methods: PGD, IIA, rPGD, rIIA
for d = 1, PGD and rPGD for d = 2 (Sec. 2.2), the Riemannian trust region of Appendix A.3 (not run in
the paper), BM (the single best base kernel by CV) and UNIF (the uniform combination).

``li-figures`` (Figures 1, 2, 5–9): test RMSE and misclassification of PGD as functions of λ for
d = 1 and d = 2 on breast cancer (the paper's 286-row Ljubljana set, ``breast-cancer``), diabetes
(Pima), fourclass, german, heart, ionosphere and sonar.

``li-svm-figures`` (Figures 3, 4, 10–12, Sec. 3): test misclassification of the 2-norm soft-margin
SVM (Eq. 8) as a function of λ = 1/C, with μ learned by Algorithm 7 (SVM generalized MKL) and with
the μ that PGD learns for KRR, on ionosphere, sonar, breast cancer (Ljubljana), Pima and heart.

Base kernels (on standardized features, d the number of features): Gaussians with bandwidths
√d·{¼, ½, 1, 2} and the polynomial kernels ¼(xᵀx'/d + 1)² and ⅛(xᵀx'/d + 1)³ (scaled to a unit
diagonal on average). The kernel matrices are computed once per data set on the standardized data
(standardization uses all samples, as the paper's preprocessing did) and passed as a precomputed
stack, which scikit-learn's splitters slice.
"""

from __future__ import annotations

import warnings
from functools import cache

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.kernel_ridge import KernelRidge
from sklearn.metrics import make_scorer
from sklearn.model_selection import GridSearchCV, KFold, ShuffleSplit, cross_validate
from sklearn.preprocessing import StandardScaler
from sklearn.utils.validation import validate_data

from .._base import decision_to_labels, one_vs_rest_targets
from .._threads import single_threaded_blas
from ..datasets import load_dataset
from ..kernel_learning import KernelCombination, KernelLearningRidge, KernelLearningSVC, SVMObjective
from ..kernels import Gaussian, Polynomial
from ._framework import ResultTable, experiment
from ._papers import PaperTable
from ._protocol import Forms, run_cells

__all__ = [
    "FIGURES_FORMS",
    "RidgeLearnedSVC",
    "SVM_FIGURES_FORMS",
    "TABLES_FORMS",
    "base_kernel_stack",
    "run_figures",
    "run_svm_figures",
    "run_tables",
    "trend_rows",
]


def base_kernels(n_features, normalized=True):
    """The base kernels: 4 Gaussians and 2 polynomials, scaled by ¼ and ⅛ to a unit diagonal on
    average unless ``normalized=False`` (see the module docstring)."""
    scale = np.sqrt(n_features)
    gaussians = [Gaussian(eta=float(f * scale)) for f in (0.25, 0.5, 1.0, 2.0)]
    polynomials = [
        Polynomial(degree=2, gamma=1.0 / n_features, coef0=1.0),
        Polynomial(degree=3, gamma=1.0 / n_features, coef0=1.0),
    ]
    if normalized:
        polynomials = [0.25 * polynomials[0], 0.125 * polynomials[1]]
    return gaussians + polynomials


def base_kernel_stack(name, normalized=True):
    """``(stack (n, n, p), y ±1)`` for a shipped binary classification data set."""
    bunch = load_dataset(name)
    X = StandardScaler().fit_transform(np.asarray(bunch.data, dtype=float))
    classes = np.unique(bunch.target)
    y = np.where(bunch.target == classes[1], 1.0, -1.0)
    return np.stack([k(X) for k in base_kernels(X.shape[1], normalized)], axis=2), y


class _StackInput:
    """Mixin: ``X`` is a precomputed (n, n, p) stack of base kernels, split by rows and columns."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = True
        return tags


class FixedCombinationRidge(_StackInput, RegressorMixin, BaseEstimator):
    """Kernel ridge regression on a fixed combination of a precomputed (n, n, p) stack (BM, UNIF)."""

    def __init__(self, weights=None, kernel_index=None, alpha=1.0):
        self.weights = weights
        self.kernel_index = kernel_index
        self.alpha = alpha

    def _combine(self, X):
        if self.kernel_index is not None:
            return X[:, :, self.kernel_index]
        weights = np.ones(X.shape[2]) if self.weights is None else np.asarray(self.weights)
        return np.tensordot(X, weights, axes=(2, 0))

    def fit(self, X, y):
        X, y = validate_data(self, X, y, allow_nd=True, y_numeric=True)
        self.model_ = KernelRidge(kernel="precomputed", alpha=self.alpha).fit(self._combine(X), y)
        return self

    def predict(self, X):
        X = validate_data(self, X, allow_nd=True, reset=False)
        return self.model_.predict(self._combine(X))


def _sign_error(y, prediction):
    return float(np.mean(np.where(prediction >= 0, 1.0, -1.0) != y))


SCORING = {
    "rmse": "neg_root_mean_squared_error",
    "error": make_scorer(_sign_error, greater_is_better=False),
}


#: The paper's grid for Λ (Sec. 2.3.2, "Γ"). With μ₀ = 𝟏 (‖μ₀‖ = √p) its two smallest radii keep the
#: learned μ within 4 % of μ₀: the learned kernel is UNIF (see :func:`weights_against_radius`).
PAPER_LAMBDAS = (0.001, 0.1, 0.5, 1.0, 2.0, 10.0)


#: The settings of ``li-tables``, (quick, full): data sets, grids of λ, Λ and β, CV folds of the selection,
#: random 50/50 test splits, iterations, and the radii and λ of the μ-against-Λ diagnostic.
#:
#: ``Lambdas`` is not the paper's grid (:data:`PAPER_LAMBDAS`): F(μ) = yᵀ(K_μ + λI)⁻¹y decreases in
#: every μ_k for positive semidefinite base kernels, so the learned μ lies on the sphere
#: ‖μ − μ₀‖ = Λ and radii much smaller than ‖μ₀‖ leave it at μ₀ (UNIF). The grid starts at
#: Λ = 1 (≈ 0.4‖μ₀‖ for p = 6) so that every candidate is a learned kernel.
TABLES_FORMS = Forms(
    datasets=(("ionosphere", "sonar"), ("ionosphere", "sonar")),
    lams=((1e-2, 1e-1, 1.0), (1e-3, 1e-2, 1e-1, 1.0, 10.0)),
    Lambdas=((1.0, 5.0, 20.0), (1.0, 2.0, 5.0, 10.0, 20.0, 50.0)),
    betas=((0.1, 1.0), (0.001, 0.1, 0.5, 1.0, 2.0, 10.0)),
    cv_folds=(3, 10),
    n_splits=(5, 30),
    max_iter=(20, 50),
    radii=((0.001, 1.0, 10.0), PAPER_LAMBDAS),
    radius_lam=(1.0, 1.0),
)


def _methods(config, n_kernels):
    common = dict(kernels="precomputed", max_iter=config.max_iter, tol=1e-4)
    lam = {"alpha": list(config.lams)}
    ball = {**lam, "radius": list(config.Lambdas)}
    sphere = {**lam, "radius": [v for v in config.Lambdas if v <= 1.0]}  # Λ ≤ min μ₀ = 1
    if not sphere["radius"]:
        raise ValueError(f"Lambdas must hold a radius <= 1 for the trust region, got {config.Lambdas}.")
    ridge = {**lam, "beta": list(config.betas)}
    methods = {}
    for degree in (1, 2):
        methods[f"PGD d={degree}"] = (KernelLearningRidge(solver="pgd", degree=degree, **common), ball)
        if degree == 1:
            methods["IIA d=1"] = (KernelLearningRidge(solver="iia", **common), ball)
        methods[f"rPGD d={degree}"] = (KernelLearningRidge(solver="rpgd", degree=degree, **common), ridge)
        if degree == 1:
            methods["rIIA d=1"] = (KernelLearningRidge(solver="riia", **common), ridge)
        trust_region = KernelLearningRidge(solver="trust_region", degree=degree, **common)
        methods[f"TR d={degree}"] = (trust_region, sphere)
    methods["BM"] = (FixedCombinationRidge(), {**lam, "kernel_index": list(range(n_kernels))})
    methods["UNIF"] = (FixedCombinationRidge(), lam)
    return methods


#: The paper's Tables 1-4, mean ± std per data set, method and measure: the 10-fold CV RMSE at the
#: selected parameters (``CV RMSE``, Tables 1, 3), then the test RMSE and misclassification over 30 random
#: splits (``test RMSE``, ``test error``, Tables 2, 4; their d = 1 columns are IIA and rIIA).
PAPER_CELLS = PaperTable.load("li2024-tables")


def describe_weights(weights):
    """``(‖μ − 𝟏‖/‖𝟏‖, ½Σ_k|μ_k/Σμ − 1/p|)``: how far μ is from μ₀ = 𝟏, and how far its shares are
    from the uniform ones (0: a rescaled UNIF; 1 − 1/p: a single kernel)."""
    weights = np.asarray(weights, dtype=float)
    p = len(weights)
    distance = float(np.linalg.norm(weights - 1.0) / np.sqrt(p))
    shape = float(0.5 * np.sum(np.abs(weights / weights.sum() - 1.0 / p)))
    return distance, shape


def weights_against_radius(stack, y, degree, lam, radii, max_iter):
    """PGD (Algorithms 2, 5) on all samples for each Λ: where μ ends (:func:`describe_weights`)."""
    rows = []
    for radius in radii:
        model = KernelLearningRidge(
            kernels="precomputed",
            solver="pgd",
            degree=degree,
            alpha=lam,
            radius=radius,
            max_iter=max_iter,
            tol=1e-4,
        ).fit(stack, y)
        distance, shape = describe_weights(model.weights_)
        rows.append(
            {
                "Lambda": radius,
                "distance_from_mu0": distance,
                "shape_change": shape,
                "n_iter": model.n_iter_,
                "weights": model.weights_.tolist(),
            }
        )
    return rows


def learned_weight_rows(results):
    """Rows for the NOTES from ``selected_parameters.json``: where the learned μ ends, per method
    (mean over the 30 test splits) and, for PGD on all samples, per radius Λ of the diagnostic."""
    rows = []
    for key, learned in results["learned_weights"].items():
        name, method = key.split("/")
        chosen = results["selected_parameters"][key]
        radius = chosen.get("radius", chosen.get("beta"))
        rows.append(
            {
                "data": name,
                "method": method,
                "λ": f"{chosen['alpha']:g}",
                "Λ or β": f"{'Λ' if 'radius' in chosen else 'β'}={radius:g}",
                "‖μ−𝟏‖/‖𝟏‖": f"{learned['distance_from_mu0']:.3f}",
                "shape": f"{learned['shape_change']:.3f}",
                "iterations": f"{learned['n_iter_mean']:.1f}",
            }
        )
    for key, radii in results["weights_against_radius"].items():
        name, degree = key.split("/")
        for row in radii:
            rows.append(
                {
                    "data": name,
                    "method": f"PGD {degree}, all samples",
                    "λ": f"{results['config']['radius_lam']:g}",
                    "Λ or β": f"Λ={row['Lambda']:g}",
                    "‖μ−𝟏‖/‖𝟏‖": f"{row['distance_from_mu0']:.3f}",
                    "shape": f"{row['shape_change']:.3f}",
                    "iterations": f"{row['n_iter']}",
                }
            )
    return rows


def versus_paper(cv_table, rmse_table, error_table):
    """The :class:`~krein.experiments._papers.Comparison` of the three :class:`ResultTable`\\ s with the
    paper's Tables 1–4 (:data:`PAPER_CELLS`), for the cells both have."""
    ours = {}
    for table, measure in ((cv_table, "CV RMSE"), (rmse_table, "test RMSE"), (error_table, "test error")):
        for row in table.summary():
            ours[(row["task"], row["method"], measure)] = (row["mean"], row["std"])
    rows = [
        PAPER_CELLS.compare(cell["task"], cell["method"], *ours[key], measure=cell["measure"])
        for cell in PAPER_CELLS.cells
        if (key := (cell["task"], cell["method"], cell["measure"])) in ours
    ]
    return PAPER_CELLS.comparison(rows, "Ours next to the paper's Tables 1-4")


def run_tables(ctx, config):
    """Run ``li-tables`` with the sizes of ``config`` and report the three tables."""
    cv_table = ResultTable("CV RMSE at the selected parameters (Li et al. Tables 1, 3)", "RMSE")
    rmse_table = ResultTable("Test RMSE, random 50/50 splits (Li et al. Tables 2, 4, 'MSE' row)", "RMSE")
    error_table = ResultTable(
        "Test misclassification of sign(f) (Li et al. Tables 2, 4, 'MSF' row)", "error rate"
    )
    selected, learned, radius_rows = {}, {}, {}
    for name in config.datasets:
        stack, y = base_kernel_stack(name)
        methods = _methods(config, stack.shape[2])
        folds = KFold(config.cv_folds, shuffle=True, random_state=ctx.random_state)
        splits = ShuffleSplit(config.n_splits, test_size=0.5, random_state=ctx.random_state)
        for table in (cv_table, rmse_table, error_table):
            table.set_task_info(name, n=len(y), p=stack.shape[2])
        with ctx.progress(len(methods), f"li-tables {name}") as advance, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for method, (estimator, grid) in methods.items():
                search = GridSearchCV(
                    estimator, grid, cv=folds, scoring=SCORING["rmse"], n_jobs=ctx.n_jobs, error_score="raise"
                ).fit(stack, y)
                best = search.best_index_
                cv_scores = [search.cv_results_[f"split{i}_test_score"][best] for i in range(config.cv_folds)]
                cv_table.add(name, method, -np.asarray(cv_scores))
                selected[f"{name}/{method}"] = search.best_params_
                result = cross_validate(
                    search.best_estimator_,
                    stack,
                    y,
                    cv=splits,
                    scoring=SCORING,
                    n_jobs=ctx.n_jobs,
                    error_score="raise",
                    return_estimator=True,
                )
                rmse_table.add(name, method, -result["test_rmse"], result["fit_time"])
                error_table.add(name, method, -result["test_error"], result["fit_time"])
                fitted = result["estimator"]
                if hasattr(fitted[0], "weights_"):
                    described = np.array([describe_weights(e.weights_) for e in fitted])
                    learned[f"{name}/{method}"] = {
                        "weights_mean": np.mean([e.weights_ for e in fitted], axis=0).tolist(),
                        "distance_from_mu0": float(described[:, 0].mean()),
                        "shape_change": float(described[:, 1].mean()),
                        "n_iter_mean": float(np.mean([e.n_iter_ for e in fitted])),
                    }
                advance()
            for degree in (1, 2):
                radius_rows[f"{name}/d={degree}"] = weights_against_radius(
                    stack, y, degree, config.radius_lam, config.radii, config.max_iter
                )
    ctx.report(cv_table, "cv_rmse")
    ctx.report(rmse_table, "test_rmse")
    ctx.report(error_table, "test_error")
    ctx.report(versus_paper(cv_table, rmse_table, error_table), "vs_paper")
    results = {
        "selected_parameters": selected,
        "learned_weights": learned,
        "weights_against_radius": radius_rows,
        "config": config.__dict__,
    }
    ctx.write_json(results, "selected_parameters")
    ctx.report_rows(
        learned_weight_rows(results),
        "learned_weights",
        "Where the learned μ ends: distance from μ₀ = 𝟏 and distance of its shares from UNIF's",
    )


@experiment(
    "li-tables",
    description="Learned linear/quadratic kernel combinations for KRR on Ionosphere and Sonar: "
    "PGD, IIA, rPGD, rIIA, trust region, BM, UNIF (CV-selected, 30 random 50/50 splits).",
    paper="Li, Venturi & Xu, Tables 1-4",
    quick_minutes=1.5,
    full_minutes=25,
)
def run(ctx):
    with single_threaded_blas():  # small matrices: parallelism comes from ctx.n_jobs
        run_tables(ctx, TABLES_FORMS.of(ctx))


#: Figure numbers of the paper: regression (PGD for KRR) and classification (SVM) against λ.
REGRESSION_FIGURES = {
    "ionosphere": 1,
    "sonar": 2,
    "breast-cancer": 5,
    "pima": 6,
    "fourclass": 7,
    "german": 8,
    "heart": 9,
}
CLASSIFICATION_FIGURES = {"ionosphere": 3, "sonar": 4, "breast-cancer": 10, "pima": 11, "heart": 12}


#: The settings of ``li-figures``, (quick, full): data sets, λ grid, Λ, random 50/50 test splits,
#: iterations, and the folds of the CV error plotted beside the test error, as the paper plots them.
FIGURES_FORMS = Forms(
    datasets=(
        ("heart", "sonar"),
        ("breast-cancer", "pima", "fourclass", "german", "heart", "ionosphere", "sonar"),
    ),
    lams=((1e-3, 1e-1, 10.0), (1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0)),
    Lambda=(1.0, 1.0),
    n_splits=(2, 10),
    max_iter=(20, 50),
    cv_folds=(3, 10),
)


class RidgeLearnedSVC(_StackInput, ClassifierMixin, BaseEstimator):
    """The 2-norm soft-margin SVM (Eq. 8) with the kernel that PGD learned for KRR (Sec. 3).

    The paper's question in Sec. 3: "if the kernels learned for the KRR optimization problem could
    fit well for SVM" — μ is learned by :class:`~krein.kernel_learning.KernelLearningRidge` (PGD,
    Algorithms 2 and 5, on ``M = {μ ≥ 0 : ‖μ − 𝟏‖ ≤ Λ}``), then the SVM of Eq. (8) with λ = 1/C is
    solved once with K_μ fixed. Binary problems, precomputed (n, n, p) stacks.
    """

    def __init__(self, degree=1, alpha=1.0, radius=1.0, max_iter=50):
        self.degree = degree
        self.alpha = alpha
        self.radius = radius
        self.max_iter = max_iter

    def fit(self, X, y):
        X, y = validate_data(self, X, y, allow_nd=True)
        self.classes_, Y = one_vs_rest_targets(y)
        if Y.shape[1] != 1:
            raise ValueError(f"RidgeLearnedSVC is binary, got {len(self.classes_)} classes in y.")
        ridge = KernelLearningRidge(
            kernels="precomputed",
            solver="pgd",
            degree=self.degree,
            alpha=self.alpha,
            radius=self.radius,
            max_iter=self.max_iter,
            tol=1e-4,
        ).fit(X, Y[:, 0])
        self.weights_ = ridge.weights_
        combination = KernelCombination(np.ascontiguousarray(np.moveaxis(X, 2, 0)), self.degree)
        state = SVMObjective(combination, Y, self.alpha).evaluate(self.weights_)
        self.dual_coef_, self.intercept_ = state.dual_coef.T, state.intercept
        return self

    def decision_function(self, X):
        X = validate_data(self, X, allow_nd=True, reset=False)
        kernel = np.tensordot(X, self.weights_, axes=(2, 0)) ** self.degree
        return (kernel @ self.dual_coef_.T + self.intercept_).ravel()

    def predict(self, X):
        return decision_to_labels(self.decision_function(X), self.classes_)


def _lambda_curves(ctx, config, methods, scoring, description, cv_folds=None):
    """Test scores of ``methods`` against λ over random 50/50 splits, one record per (data, method, λ).

    ``methods`` maps a label to ``(degree, make(lam))``; a record holds ``<score>_mean`` and
    ``<score>_std`` (over the splits) for every score of ``scoring``, and with ``cv_folds`` also
    ``cv_<score>_mean`` and ``cv_<score>_std`` over the folds of a K-fold CV on all samples. Each record
    is a cell of ``ctx`` (``--resume`` reads it back).
    """
    splits = {"": ShuffleSplit(config.n_splits, test_size=0.5, random_state=ctx.random_state)}
    if cv_folds is not None:
        splits["cv_"] = KFold(cv_folds, shuffle=True, random_state=ctx.random_state)

    def compute(name, stack, y, label, degree, make, lam):
        record = {"dataset": name, "method": label, "degree": degree, "lam": lam}
        for prefix, cv in splits.items():
            result = cross_validate(
                make(lam), stack, y, cv=cv, scoring=scoring, n_jobs=ctx.n_jobs, error_score="raise"
            )
            for score in scoring:
                values = -result[f"test_{score}"]
                record |= {
                    f"{prefix}{score}_mean": float(np.mean(values)),
                    f"{prefix}{score}_std": float(np.std(values)),
                }
        return record

    stacks = cache(base_kernel_stack)  # one data set's kernels, loaded when a cell needs them
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        records = run_cells(
            ctx,
            [(name, label, lam) for name in config.datasets for label in methods for lam in config.lams],
            lambda name, label, lam: compute(name, *stacks(name), label, *methods[label], lam),
            key=lambda name, label, lam: f"{description}-{name}-{label}-{lam:g}".replace(" ", ""),
            description=description,
        )
    return list(records.values())


def _plot_curves(ctx, records, name, panels, title, file_name):
    """One panel per ``(y label, method labels, score)``: mean ± std of the score against λ."""
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 3.6), layout="constrained")
    for axis, (ylabel, labels, score) in zip(np.atleast_1d(axes), panels, strict=True):
        for label, style in zip(labels, ("o-", "s--", "^:", "v-."), strict=False):
            rows = [r for r in records if r["dataset"] == name and r["method"] == label]
            axis.errorbar(
                [r["lam"] for r in rows],
                [r[f"{score}_mean"] for r in rows],
                yerr=[r[f"{score}_std"] for r in rows],
                fmt=style,
                capsize=3,
                label=label,
            )
        axis.set_xscale("log")
        axis.set_xlabel("λ")
        axis.set_ylabel(ylabel)
        axis.legend()
    figure.suptitle(title)
    ctx.save_figure(figure, file_name)


def trend_rows(records, score):
    """Per (data, method): the mean ``score`` at the smallest and the largest λ, and its best λ."""
    rows = []
    for name, method in dict.fromkeys((r["dataset"], r["method"]) for r in records):
        curve = sorted(
            (r["lam"], r[f"{score}_mean"]) for r in records if (r["dataset"], r["method"]) == (name, method)
        )
        best_lam, best = min(curve, key=lambda point: point[1])
        rows.append(
            {
                "data": name,
                "method": method,
                "score": score,
                f"λ={curve[0][0]:g}": f"{curve[0][1]:.3f}",
                f"λ={curve[-1][0]:g}": f"{curve[-1][1]:.3f}",
                "best λ": f"{best_lam:g}",
                "best": f"{best:.3f}",
            }
        )
    return rows


def _report_trends(ctx, config, records, rows, title):
    """Write the trend ``rows`` (``trends``) and the curves with their settings (``curves.json``)."""
    ctx.report_rows(rows, "trends", title)
    ctx.write_json({"config": config.__dict__, "curves": records}, "curves")
    return records


def run_figures(ctx, config):
    """Test RMSE and misclassification of PGD against λ for d = 1, 2 (one PNG per data set)."""

    def pgd(degree):
        return lambda lam: KernelLearningRidge(
            kernels="precomputed",
            solver="pgd",
            degree=degree,
            alpha=lam,
            radius=config.Lambda,
            max_iter=config.max_iter,
            tol=1e-4,
        )

    methods = {f"d = {degree}": (degree, pgd(degree)) for degree in (1, 2)}
    records = _lambda_curves(ctx, config, methods, SCORING, "li-figures", cv_folds=config.cv_folds)
    labels = list(methods)
    for name in config.datasets:
        figure = REGRESSION_FIGURES.get(name)
        _plot_curves(
            ctx,
            records,
            name,
            [
                (f"{config.cv_folds}-fold CV RMSE", labels, "cv_rmse"),
                ("test RMSE", labels, "rmse"),
                ("test misclassification", labels, "error"),
            ],
            f"{'' if figure is None else f'Figure {figure}: '}PGD, learned kernel for KRR on {name} "
            f"(Λ = {config.Lambda}; test: {config.n_splits} random 50/50 splits)",
            f"pgd_lambda_{name}",
        )
    rows = trend_rows(records, "cv_rmse") + trend_rows(records, "rmse") + trend_rows(records, "error")
    title = "CV RMSE, test RMSE and sign error of PGD at the ends of the λ grid and at its best λ"
    return _report_trends(ctx, config, records, rows, title)


@experiment(
    "li-figures",
    description="Test RMSE and misclassification of PGD-learned kernels against λ, d = 1 and 2, on "
    "breast-cancer (Ljubljana), pima, fourclass, german, heart, ionosphere, sonar (PNG).",
    paper="Li, Venturi & Xu, Figures 1, 2, 5-9",
    quick_minutes=0.5,
    full_minutes=10,
)
def run_li_figures(ctx):
    with single_threaded_blas():
        run_figures(ctx, FIGURES_FORMS.of(ctx))


#: The settings of ``li-svm-figures``: those of ``li-figures`` on the data sets of the paper's
#: classification figures (3, 4, 10, 11, 12) in the full form.
SVM_FIGURES_FORMS = FIGURES_FORMS.replace(
    datasets=(("heart", "sonar"), ("ionosphere", "sonar", "breast-cancer", "pima", "heart"))
)


def run_svm_figures(ctx, config):
    """Test misclassification of the SVM with learned kernels against λ (Sec. 3; one PNG per data set).

    Two ways to learn μ, for d = 1 and d = 2: Algorithm 7 (:class:`KernelLearningSVC`, PGD on the SVM
    dual optimum J(μ)) and the paper's Sec. 3 question, μ learned by KRR PGD then used in the same
    2-norm soft-margin SVM (:class:`RidgeLearnedSVC`). Λ and μ₀ = 𝟏 as in ``li-figures``.
    """
    common = dict(radius=config.Lambda, max_iter=config.max_iter)

    def algorithm7(degree):
        return lambda lam: KernelLearningSVC(
            kernels="precomputed", solver="pgd", degree=degree, alpha=lam, **common
        )

    def from_ridge(degree):
        return lambda lam: RidgeLearnedSVC(degree=degree, alpha=lam, **common)

    methods = {}
    for degree in (1, 2):
        methods[f"Alg. 7, d = {degree}"] = (degree, algorithm7(degree))
    for degree in (1, 2):
        methods[f"KRR μ, d = {degree}"] = (degree, from_ridge(degree))
    scoring = {"error": SCORING["error"]}
    records = _lambda_curves(ctx, config, methods, scoring, "li-svm-figures")
    labels = list(methods)
    for name in config.datasets:
        figure = CLASSIFICATION_FIGURES.get(name)
        _plot_curves(
            ctx,
            records,
            name,
            [
                ("test misclassification, Algorithm 7", labels[:2], "error"),
                ("test misclassification, μ from KRR PGD", labels[2:], "error"),
            ],
            f"{'' if figure is None else f'Figure {figure}: '}2-norm SVM with learned kernels on {name} "
            f"(Λ = {config.Lambda}, {config.n_splits} random 50/50 splits)",
            f"svm_lambda_{name}",
        )
    title = "Test misclassification of the SVM at the ends of the λ grid and at its best λ"
    return _report_trends(ctx, config, records, trend_rows(records, "error"), title)


@experiment(
    "li-svm-figures",
    description="Test misclassification of the 2-norm SVM with learned kernels (Algorithm 7, and μ "
    "learned by KRR PGD) against λ, d = 1 and 2, on ionosphere, sonar, breast-cancer, pima, heart (PNG).",
    paper="Li, Venturi & Xu, Figures 3, 4, 10-12",
    quick_minutes=0.5,
    full_minutes=10,
)
def run_li_svm_figures(ctx):
    with single_threaded_blas():
        run_svm_figures(ctx, SVM_FIGURES_FORMS.of(ctx))


#: The UNIF test, (quick, full): data sets, the λ of the uniform combination, random 50/50 splits.
UNIF_FORMS = Forms(
    datasets=(("sonar",), ("ionosphere", "sonar")),
    lams=((1e-3, 1.0), (1e-6, 1e-4, 1e-3, 1e-2, 0.1, 1.0, 10.0)),
    n_splits=(3, 30),
)


@experiment(
    "li-tables-unif",
    description="Test RMSE and sign error of UNIF (the uniform sum of the base kernels, KRR) against λ, with "
    "the base kernels scaled to a unit diagonal and unscaled: is the paper's UNIF unnormalized?",
    paper="Li, Venturi & Xu, Tables 2 and 4 (UNIF)",
    quick_minutes=0.2,
    full_minutes=2,
)
def run_li_tables_unif(ctx):
    """UNIF of ``li-tables`` (kernel ridge regression on the sum of the six base kernels, ±1 labels) on
    the same 30 random 50/50 splits, at every λ of a wide grid instead of its CV-selected one, with the
    polynomial base kernels scaled by ¼ and ⅛ (ours) and unscaled (diagonal ≈ 4 and 8 on average):
    which (scaling, λ) gives the paper's UNIF test RMSE (1.11 on ionosphere, 1.69 on sonar)?"""
    settings = UNIF_FORMS.of(ctx)
    rows = []
    for name in settings.datasets:
        splits = ShuffleSplit(settings.n_splits, test_size=0.5, random_state=ctx.random_state)
        for normalized in (True, False):
            stack, y = base_kernel_stack(name, normalized)
            for lam in settings.lams:
                scores = cross_validate(
                    FixedCombinationRidge(alpha=lam), stack, y, cv=splits, scoring=SCORING, n_jobs=ctx.n_jobs
                )
                rmse, error = -scores["test_rmse"], -scores["test_error"]
                rows.append(
                    {
                        "data set": name,
                        "base kernels": "scaled" if normalized else "unscaled",
                        "lam": lam,
                        "test RMSE": float(rmse.mean()),
                        "RMSE std": float(rmse.std(ddof=1)),
                        "sign error": float(error.mean()),
                        "error std": float(error.std(ddof=1)),
                    }
                )
    ctx.report_rows(rows, "unif", "UNIF (uniform sum of the base kernels) against λ, scaled and unscaled")

"""Li, Venturi & Xu, *Learning the Kernel for Classification and Regression*: Tables 1–4 and Figures.

``li-tables`` (Tables 1–4, Ionosphere and Sonar): kernel ridge regression on ±1 labels with a learned
combination of base kernels. For each method, λ and Λ (or β for the regularized methods) are
selected by 10-fold cross-validation on the whole data set (the CV RMSE of the selected parameters
is Tables 1 and 3); the selected model is then evaluated on 30 random 50/50 splits: RMSE of the
regression output and misclassification of its sign (Tables 2 and 4). Methods: PGD, IIA, rPGD, rIIA
for d = 1, PGD and rPGD for d = 2 (Sec. 2.2), the Riemannian trust region of Appendix A.3 (not run in
the paper), BM (the single best base kernel by CV) and UNIF (the uniform combination).

``li-figures`` (Figures 1, 2, 5, 6, 9): test RMSE and misclassification of PGD as functions of λ for
d = 1 and d = 2 on breast cancer (Wisconsin), diabetes (Pima), heart, ionosphere and sonar.

Base kernels (on standardized features, d the number of features): Gaussians with bandwidths
√d·{¼, ½, 1, 2} and the polynomial kernels ¼(xᵀx'/d + 1)² and ⅛(xᵀx'/d + 1)³ (scaled to a unit
diagonal on average). The kernel matrices are computed once per data set on the standardized data
(standardization uses all samples, as the paper's preprocessing did) and passed as a precomputed
stack, which scikit-learn's splitters slice.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.kernel_ridge import KernelRidge
from sklearn.metrics import make_scorer
from sklearn.model_selection import GridSearchCV, KFold, ShuffleSplit, cross_validate
from sklearn.preprocessing import StandardScaler
from sklearn.utils.validation import validate_data

from .._threads import single_threaded_blas
from ..datasets import load_dataset
from ..kernel_learning import KernelLearningRidge
from ..kernels import Gaussian, Polynomial
from ._framework import ResultTable, experiment

__all__ = ["FiguresConfig", "TablesConfig", "base_kernel_stack", "run_figures", "run_tables"]


def base_kernels(n_features):
    """The base kernels: 4 Gaussians and 2 scaled polynomials (see the module docstring)."""
    scale = np.sqrt(n_features)
    gaussians = [Gaussian(eta=float(f * scale)) for f in (0.25, 0.5, 1.0, 2.0)]
    polynomials = [
        0.25 * Polynomial(degree=2, gamma=1.0 / n_features, coef0=1.0),
        0.125 * Polynomial(degree=3, gamma=1.0 / n_features, coef0=1.0),
    ]
    return gaussians + polynomials


def base_kernel_stack(name):
    """``(stack (n, n, p), y ±1)`` for a shipped binary classification data set."""
    bunch = load_dataset(name)
    X = StandardScaler().fit_transform(np.asarray(bunch.data, dtype=float))
    classes = np.unique(bunch.target)
    y = np.where(bunch.target == classes[1], 1.0, -1.0)
    return np.stack([k(X) for k in base_kernels(X.shape[1])], axis=2), y


class FixedCombinationRidge(RegressorMixin, BaseEstimator):
    """Kernel ridge regression on a fixed combination of a precomputed (n, n, p) stack (BM, UNIF)."""

    def __init__(self, weights=None, kernel_index=None, lam=1.0):
        self.weights = weights
        self.kernel_index = kernel_index
        self.lam = lam

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = True
        return tags

    def _combine(self, X):
        if self.kernel_index is not None:
            return X[:, :, self.kernel_index]
        weights = np.ones(X.shape[2]) if self.weights is None else np.asarray(self.weights)
        return np.tensordot(X, weights, axes=(2, 0))

    def fit(self, X, y):
        X, y = validate_data(self, X, y, allow_nd=True, y_numeric=True)
        self.model_ = KernelRidge(kernel="precomputed", alpha=self.lam).fit(self._combine(X), y)
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


@dataclass(frozen=True)
class TablesConfig:
    """Sizes of the ``li-tables`` experiment."""

    datasets: tuple = ("ionosphere", "sonar")
    lams: tuple = (1e-3, 1e-2, 1e-1, 1.0, 10.0)
    Lambdas: tuple = (0.001, 0.1, 0.5, 1.0, 2.0, 10.0)  # the paper's grid for Λ
    betas: tuple = (0.001, 0.1, 0.5, 1.0, 2.0, 10.0)
    cv_folds: int = 10
    n_splits: int = 30
    max_iter: int = 50

    @classmethod
    def quick(cls):
        return cls(
            lams=(1e-2, 1e-1, 1.0),
            Lambdas=(0.5, 1.0, 2.0),
            betas=(0.1, 1.0),
            cv_folds=3,
            n_splits=5,
            max_iter=20,
        )


def _methods(config, n_kernels):
    common = dict(kernels="precomputed", max_iter=config.max_iter, tol=1e-4)
    lam = {"lam": list(config.lams)}
    ball = {**lam, "Lambda": list(config.Lambdas)}
    sphere = {**lam, "Lambda": [v for v in config.Lambdas if v <= 1.0]}  # Λ ≤ min μ₀ = 1
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


def run_tables(ctx, config):
    """Run ``li-tables`` with the sizes of ``config`` and report the three tables."""
    cv_table = ResultTable("CV RMSE at the selected parameters (Li et al. Tables 1, 3)", "RMSE")
    rmse_table = ResultTable("Test RMSE, random 50/50 splits (Li et al. Tables 2, 4, 'MSE' row)", "RMSE")
    error_table = ResultTable(
        "Test misclassification of sign(f) (Li et al. Tables 2, 4, 'MSF' row)", "error rate"
    )
    selected = {}
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
                )
                rmse_table.add(name, method, -result["test_rmse"], result["fit_time"])
                error_table.add(name, method, -result["test_error"], result["fit_time"])
                advance()
    ctx.report(cv_table, "cv_rmse")
    ctx.report(rmse_table, "test_rmse")
    ctx.report(error_table, "test_error")
    ctx.write_json({"selected_parameters": selected, "config": config.__dict__}, "selected_parameters")


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
        run_tables(ctx, TablesConfig.quick() if ctx.quick else TablesConfig())


@dataclass(frozen=True)
class FiguresConfig:
    """Sizes of the ``li-figures`` experiment."""

    datasets: tuple = ("wisconsin", "pima", "heart", "ionosphere", "sonar")
    lams: tuple = (1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0)
    Lambda: float = 1.0
    n_splits: int = 10
    max_iter: int = 50

    @classmethod
    def quick(cls):
        return cls(datasets=("heart", "sonar"), lams=(1e-3, 1e-1, 10.0), n_splits=2, max_iter=20)


def run_figures(ctx, config):
    """Test RMSE and misclassification of PGD against λ for d = 1, 2 (one PNG per data set)."""
    import matplotlib.pyplot as plt

    curves = {}
    splits = ShuffleSplit(config.n_splits, test_size=0.5, random_state=ctx.random_state)
    total = len(config.datasets) * 2 * len(config.lams)
    with ctx.progress(total, "li-figures") as advance, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in config.datasets:
            stack, y = base_kernel_stack(name)
            for degree in (1, 2):
                for lam in config.lams:
                    model = KernelLearningRidge(
                        kernels="precomputed",
                        solver="pgd",
                        degree=degree,
                        lam=lam,
                        Lambda=config.Lambda,
                        max_iter=config.max_iter,
                        tol=1e-4,
                    )
                    result = cross_validate(
                        model, stack, y, cv=splits, scoring=SCORING, n_jobs=ctx.n_jobs, error_score="raise"
                    )
                    curves[(name, degree, lam)] = (-result["test_rmse"], -result["test_error"])
                    advance()
    for name in config.datasets:
        figure, axes = plt.subplots(1, 2, figsize=(10, 3.6), layout="constrained")
        for degree, style in ((1, "o-"), (2, "s--")):
            for axis, which, label in ((axes[0], 0, "test RMSE"), (axes[1], 1, "test misclassification")):
                values = np.array([curves[(name, degree, lam)][which] for lam in config.lams])
                axis.errorbar(
                    config.lams,
                    values.mean(axis=1),
                    yerr=values.std(axis=1),
                    fmt=style,
                    capsize=3,
                    label=f"d = {degree}",
                )
                axis.set_xscale("log")
                axis.set_xlabel("λ")
                axis.set_ylabel(label)
        axes[0].legend()
        figure.suptitle(
            f"PGD, learned kernel for KRR on {name} (Λ = {config.Lambda}, "
            f"{config.n_splits} random 50/50 splits)"
        )
        ctx.save_figure(figure, f"pgd_lambda_{name}")
    ctx.write_json(
        {
            "config": config.__dict__,
            "curves": [
                {
                    "dataset": n,
                    "degree": d,
                    "lam": lam,
                    "rmse_mean": float(np.mean(r)),
                    "rmse_std": float(np.std(r)),
                    "error_mean": float(np.mean(e)),
                    "error_std": float(np.std(e)),
                }
                for (n, d, lam), (r, e) in curves.items()
            ],
        },
        "curves",
    )
    return curves


@experiment(
    "li-figures",
    description="Test RMSE and misclassification of PGD-learned kernels against λ, d = 1 and 2, on "
    "wisconsin, pima, heart, ionosphere, sonar (PNG).",
    paper="Li, Venturi & Xu, Figures 1, 2, 5, 6, 9",
    quick_minutes=0.5,
    full_minutes=10,
)
def run_li_figures(ctx):
    with single_threaded_blas():
        run_figures(ctx, FiguresConfig.quick() if ctx.quick else FiguresConfig())

"""The li-tables and li-figures experiments: their quick forms (numbers checked, files written) and parts."""

import json
import re
from pathlib import Path

import numpy as np
import pytest
from _results import assert_counts, comparison_rows, load, summary

from krein.experiments import RunContext, get_experiment
from krein.experiments.li2024 import (
    FIGURES_FORMS,
    PAPER_CELLS,
    SVM_FIGURES_FORMS,
    TABLES_FORMS,
    UNIF_FORMS,
    FixedCombinationRidge,
    RidgeLearnedSVC,
    base_kernel_stack,
    describe_weights,
    learned_weight_rows,
    run_figures,
    trend_rows,
    weights_against_radius,
)


def test_experiments_are_registered():
    assert get_experiment("li-tables").paper.startswith("Li, Venturi & Xu")
    assert get_experiment("li-figures").paper.startswith("Li, Venturi & Xu")
    assert get_experiment("li-svm-figures").paper == "Li, Venturi & Xu, Figures 3, 4, 10-12"


def test_base_kernel_stack_is_symmetric_with_unit_scale():
    stack, y = base_kernel_stack("sonar")
    assert stack.shape == (208, 208, 6)
    assert set(np.unique(y)) == {-1.0, 1.0}
    np.testing.assert_allclose(stack, np.swapaxes(stack, 0, 1))
    np.testing.assert_allclose(np.diagonal(stack[:, :, :4], axis1=0, axis2=1), 1.0)  # Gaussians
    assert 0.5 < np.mean(np.diagonal(stack[:, :, 4])) < 2.0


def test_fixed_combination_ridge_is_kernel_ridge_on_the_sum():
    stack, y = base_kernel_stack("sonar")
    unif = FixedCombinationRidge(alpha=0.5).fit(stack[:100, :100], y[:100])
    from sklearn.kernel_ridge import KernelRidge

    reference = KernelRidge(kernel="precomputed", alpha=0.5).fit(stack[:100, :100].sum(axis=2), y[:100])
    np.testing.assert_allclose(
        unif.predict(stack[100:, :100]), reference.predict(stack[100:, :100].sum(axis=2))
    )


#: Test objects of a random 50/50 split (ShuffleSplit rounds the test half up).
TEST_SIZES = {"ionosphere": 176, "sonar": 104, "heart": 135}
TABLE_METHODS = ("PGD d=1", "IIA d=1", "rPGD d=1", "rIIA d=1", "TR d=1", "PGD d=2", "rPGD d=2", "TR d=2")


@pytest.mark.slow
@pytest.mark.parametrize("quick_form", ["li-tables"], indirect=True)
def test_li_tables_quick_form(quick_form):
    config = TABLES_FORMS.quick
    errors, rmse, cv = (summary(quick_form, name) for name in ("test_error", "test_rmse", "cv_rmse"))
    cells = [(name, method) for name in config.datasets for method in (*TABLE_METHODS, "BM", "UNIF")]
    assert list(errors) == list(rmse) == list(cv) == cells
    assert {row["n_runs"] for row in errors.values()} == {config.n_splits}
    assert {row["n_runs"] for row in cv.values()} == {config.cv_folds}
    for row in errors.values():  # far better than chance (the paper: 0.22-0.26 on sonar)
        assert 0.0 < row["mean"] < {"ionosphere": 0.15, "sonar": 0.3}[row["task"]], row
    assert all(0.3 < row["mean"] < 1.0 for row in (*rmse.values(), *cv.values()))  # labels ±1: below 1
    # per split: a sign error is a whole count of the test half, and at most the mean squared error
    # (a point of label ±1 on the wrong side of 0 is at least 1 away from it)
    split_rmse = {(s["task"], s["method"]): s["values"] for s in load(quick_form, "test_rmse")["scores"]}
    for score in load(quick_form, "test_error")["scores"]:
        assert_counts(100 * np.array(score["values"]), TEST_SIZES[score["task"]])
        squared = np.square(split_rmse[score["task"], score["method"]])
        assert np.all(np.array(score["values"]) <= squared + 1e-12), score
    versus = comparison_rows(quick_form, "vs_paper")
    assert len(versus) == 36  # per data set: 6 CV cells (Tables 1, 3), 12 test cells (Tables 2, 4)
    for row in (r for r in versus if r["measure"] == "test RMSE"):
        assert row["ours mean"] == round(rmse[row["task"], row["method"]]["mean"], PAPER_CELLS.decimals)
    selected = load(quick_form, "selected_parameters")["selected_parameters"]
    assert set(selected) == {f"{name}/{method}" for name, method in cells}
    assert all(params["alpha"] in config.lams for params in selected.values())
    weights = load(quick_form, "learned_weights")["rows"]
    assert [r["Λ or β"] for r in weights if r["method"] == "PGD d=1, all samples"] == [
        f"Λ={radius:g}" for radius in config.radii
    ] * len(config.datasets)
    assert {r["method"] for r in weights} == {*TABLE_METHODS, "PGD d=1, all samples", "PGD d=2, all samples"}


def _check_below_the_squared_error(records, scores):
    """Each record's mean sign error over the splits is at most its mean squared error (np.std: the
    mean of the squares is mean² + std²)."""
    for record in records:
        for prefix in scores:
            error, rmse, std = (record[f"{prefix}{k}"] for k in ("error_mean", "rmse_mean", "rmse_std"))
            assert error <= rmse**2 + std**2 + 1e-12, record


@pytest.mark.slow
@pytest.mark.parametrize("quick_form", ["li-figures"], indirect=True)
def test_li_figures_quick_form(quick_form):
    config = FIGURES_FORMS.quick
    records = load(quick_form, "curves")["curves"]
    assert [(r["dataset"], r["degree"], r["lam"]) for r in records] == [
        (name, degree, lam) for name in config.datasets for degree in (1, 2) for lam in config.lams
    ]
    for record in records:
        assert 0 < record["error_mean"] < 0.35 and 0.5 < record["cv_rmse_mean"] < 1.0, record
        assert_counts(100 * record["error_mean"] * config.n_splits, TEST_SIZES[record["dataset"]])
    _check_below_the_squared_error(records, ("", "cv_"))
    for name in config.datasets:
        assert (quick_form.out / f"pgd_lambda_{name}.png").stat().st_size > 10_000
    rows = load(quick_form, "trends")["rows"]
    assert rows == [row for score in ("cv_rmse", "rmse", "error") for row in trend_rows(records, score)]
    # --resume reads the stored cells back instead of fitting again
    again = RunContext(
        quick=True, out=quick_form.out, show_progress=False, resume=True, experiment=quick_form.experiment
    )
    assert run_figures(again, config) == records


@pytest.mark.slow
@pytest.mark.parametrize("quick_form", ["li-svm-figures"], indirect=True)
def test_li_svm_figures_quick_form(quick_form):
    config = SVM_FIGURES_FORMS.quick
    records = load(quick_form, "curves")["curves"]
    methods = ("Alg. 7, d = 1", "Alg. 7, d = 2", "KRR μ, d = 1", "KRR μ, d = 2")
    assert sorted((r["dataset"], r["method"], r["lam"]) for r in records) == sorted(
        (name, method, lam) for name in config.datasets for method in methods for lam in config.lams
    )
    for record in records:  # far better than chance (heart 0.44, sonar 0.47)
        assert 0.0 < record["error_mean"] < 0.35, record
        assert_counts(100 * record["error_mean"] * config.n_splits, TEST_SIZES[record["dataset"]])
    for name in config.datasets:
        assert (quick_form.out / f"svm_lambda_{name}.png").stat().st_size > 10_000


@pytest.mark.parametrize("quick_form", ["li-tables-unif"], indirect=True)
def test_li_tables_unif_quick_form(quick_form):
    """UNIF is kernel ridge regression on the sum of the base kernels: scikit-learn's KernelRidge on the
    summed stack, on the same splits, gives the run's test RMSE and sign error."""
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.model_selection import ShuffleSplit

    config = UNIF_FORMS.quick
    rows = load(quick_form, "unif")["rows"]
    assert [(r["data set"], r["base kernels"], r["lam"]) for r in rows] == [
        (name, scaling, lam)
        for name in config.datasets
        for scaling in ("scaled", "unscaled")
        for lam in config.lams
    ]
    for row in rows:
        stack, y = base_kernel_stack(row["data set"], normalized=row["base kernels"] == "scaled")
        K = stack.sum(axis=2)
        rmse, error = [], []
        for train, test in ShuffleSplit(config.n_splits, test_size=0.5, random_state=0).split(y):
            model = KernelRidge(kernel="precomputed", alpha=row["lam"]).fit(K[np.ix_(train, train)], y[train])
            predicted = model.predict(K[np.ix_(test, train)])
            rmse.append(np.sqrt(np.mean((predicted - y[test]) ** 2)))
            error.append(np.mean(np.where(predicted >= 0, 1.0, -1.0) != y[test]))
        assert row["test RMSE"] == pytest.approx(np.mean(rmse), rel=1e-9)
        assert row["RMSE std"] == pytest.approx(np.std(rmse, ddof=1), rel=1e-6)
        assert row["sign error"] == pytest.approx(np.mean(error), abs=1e-12)


def test_ridge_learned_svc_is_the_2_norm_svm_on_the_ridge_kernel():
    """Its weights are KernelLearningRidge's; its SVM is LIBSVM's on K_μ + λI (Eq. 8, hard margin)."""
    from sklearn.svm import SVC

    from krein.kernel_learning import KernelLearningRidge

    stack, y = base_kernel_stack("sonar")
    train, test = np.arange(0, 208, 2), np.arange(1, 208, 2)
    X, X_test = stack[np.ix_(train, train)], stack[np.ix_(test, train)]
    model = RidgeLearnedSVC(degree=2, alpha=0.5, radius=1.0, max_iter=10).fit(X, y[train])
    ridge = KernelLearningRidge(kernels="precomputed", degree=2, alpha=0.5, radius=1.0, max_iter=10, tol=1e-4)
    np.testing.assert_allclose(model.weights_, ridge.fit(X, y[train]).weights_)
    K = np.tensordot(X, model.weights_, axes=(2, 0)) ** 2
    svc = SVC(kernel="precomputed", C=1e6, tol=1e-8).fit(K + 0.5 * np.eye(len(train)), y[train])
    K_test = np.tensordot(X_test, model.weights_, axes=(2, 0)) ** 2
    np.testing.assert_allclose(model.decision_function(X_test), svc.decision_function(K_test), atol=1e-3)
    np.testing.assert_array_equal(model.predict(X_test), svc.predict(K_test))
    with pytest.raises(ValueError, match="binary, got 3 classes"):
        RidgeLearnedSVC().fit(X[:30, :30], np.arange(30) % 3)


def test_describe_weights():
    assert describe_weights(np.ones(4)) == (0.0, 0.0)
    distance, shape = describe_weights(np.array([3.0, 3.0, 3.0, 3.0]))
    assert distance == pytest.approx(2.0) and shape == pytest.approx(0.0)  # a rescaled UNIF
    assert describe_weights(np.array([1.0, 0.0, 0.0, 0.0]))[1] == pytest.approx(0.75)  # one kernel: 1 - 1/p


def test_learned_weights_lie_on_the_sphere_of_radius_lambda():
    """F decreases in every μ_k (PSD base kernels): PGD ends on ‖μ − 𝟏‖ = Λ, so Λ ≪ ‖𝟏‖ is UNIF."""
    stack, y = base_kernel_stack("sonar")
    rows = weights_against_radius(stack[:80, :80], y[:80], 1, 1.0, (0.001, 0.5), max_iter=50)
    for row in rows:
        assert row["distance_from_mu0"] == pytest.approx(row["Lambda"] / np.sqrt(6), rel=1e-6)
        assert np.all(np.asarray(row["weights"]) >= 1.0)  # every weight grows
    assert rows[0]["shape_change"] < 1e-3 and rows[1]["shape_change"] > 1e-2


@pytest.mark.parametrize("name", ["li-tables", "li-figures"])
def test_quick_configs_are_smaller_than_full(name):
    full, quick = (
        (TABLES_FORMS.full, TABLES_FORMS.quick)
        if name == "li-tables"
        else (FIGURES_FORMS.full, FIGURES_FORMS.quick)
    )
    assert quick.n_splits < full.n_splits and len(quick.lams) < len(full.lams)


RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"


def _markdown_lines(rows):
    keys = list(dict.fromkeys(k for row in rows for k in row))
    return {"| " + " | ".join(str(row.get(k, "")) for k in keys) + " |" for row in rows}


def _data_rows(notes, names):
    """The table rows of a NOTES.md whose first cell names a data set."""
    return [
        line for line in notes.splitlines() if line.startswith("| ") and line.split(" | ")[0][2:] in names
    ]


def test_li_tables_notes_match_the_json():
    folder = RESULTS / "li-tables"
    notes = (folder / "NOTES.md").read_text()
    results = json.loads((folder / "selected_parameters.json").read_text())
    versus = json.loads((folder / "vs_paper.json").read_text())["rows"]
    assert json.loads((folder / "learned_weights.json").read_text())["rows"] == learned_weight_rows(results)
    allowed = _markdown_lines(learned_weight_rows(results)) | _markdown_lines(versus)
    rows = _data_rows(notes, {"ionosphere", "sonar"})
    assert len(rows) >= 10
    for line in rows:
        assert line in allowed, line
    inside = sum(row["inside the paper's ± 1 std"] == "yes" for row in versus)
    assert f"{inside} of {len(versus)} cells" in notes
    # The cells the prose quotes, with the Welch outcome it states (True: not worse than the best).
    quoted = {
        "test_rmse": [
            ("ionosphere", "IIA d=1", True),
            ("ionosphere", "UNIF", True),
            ("sonar", "IIA d=1", True),
            ("sonar", "UNIF", True),
            ("ionosphere", "BM", False),
            ("sonar", "BM", True),
            ("ionosphere", "PGD d=2", False),
            ("sonar", "PGD d=2", False),
            ("ionosphere", "TR d=2", False),
            ("sonar", "TR d=1", True),
        ],
        "test_error": [
            ("sonar", "PGD d=2", True),
            ("sonar", "PGD d=1", True),
            ("ionosphere", "IIA d=1", True),
        ],
    }
    for table, cells in quoted.items():
        summary = {
            (r["task"], r["method"]): r for r in json.loads((folder / f"{table}.json").read_text())["summary"]
        }
        for task, method, not_worse in cells:
            row = summary[(task, method)]
            assert f"{row['mean']:.3f}" in notes and row["not_worse_than_best"] == not_worse, (
                table,
                task,
                method,
            )
    paper_grid = json.loads((folder / "paper-grid" / "selected_parameters.json").read_text())[
        "selected_parameters"
    ]
    at_mu0 = sorted(k for k, v in paper_grid.items() if v.get("radius") == 0.001)
    assert at_mu0 == ["ionosphere/PGD d=2", "ionosphere/TR d=2"] + [
        f"sonar/{m} d={d}" for m, d in (("IIA", 1), ("PGD", 1), ("PGD", 2), ("TR", 1), ("TR", 2))
    ]
    paper_rmse = {
        (r["task"], r["method"]): r["mean"]
        for r in json.loads((folder / "paper-grid" / "test_rmse.json").read_text())["summary"]
    }
    assert paper_rmse[("sonar", "PGD d=1")] == pytest.approx(paper_rmse[("sonar", "UNIF")], rel=1e-4)
    assert (
        f"{paper_rmse[('sonar', 'UNIF')]:.4f}" in notes
        and f"{paper_rmse[('ionosphere', 'PGD d=2')]:.3f}" in notes
    )
    # Every three-decimal number of the NOTES is a cell of this run, of the paper-grid run or of vs_paper.
    known = {value for row in learned_weight_rows(results) for value in row.values()}
    known |= {f"{row[k]:.3f}" for row in versus for k in ("ours mean", "ours std", "paper mean", "paper std")}
    for run in (folder, folder / "paper-grid"):
        for table in ("cv_rmse", "test_rmse", "test_error"):
            known |= {f"{r['mean']:.3f}" for r in json.loads((run / f"{table}.json").read_text())["summary"]}
    unif = json.loads((folder / "unif" / "unif.json").read_text())["rows"]  # li-tables-unif
    known |= {f"{r['test RMSE']:.3f}" for r in unif}
    assert set(re.findall(r"\b\d\.\d{3}\b", notes)) <= known
    chosen = {k: v.get("radius") for k, v in results["selected_parameters"].items() if "radius" in v}
    assert {k for k, v in chosen.items() if v != 1.0} == {"ionosphere/PGD d=1", "ionosphere/IIA d=1"}
    assert chosen["ionosphere/PGD d=1"] == 2.0
    assert results["config"]["Lambdas"] == [1.0, 2.0, 5.0, 10.0, 20.0, 50.0]


@pytest.mark.parametrize("name", ["li-figures", "li-svm-figures"])
def test_li_figure_notes_match_the_json(name):
    folder = RESULTS / name
    records = json.loads((folder / "curves.json").read_text())["curves"]
    scores = ("cv_rmse", "rmse", "error") if name == "li-figures" else ("error",)
    generated = [row for score in scores for row in trend_rows(records, score)]
    assert json.loads((folder / "trends.json").read_text())["rows"] == generated
    notes = (folder / "NOTES.md").read_text()
    rows = _data_rows(notes, {r["dataset"] for r in records})
    assert len(rows) >= 4
    for line in rows:
        assert line in _markdown_lines(generated), line
    # Every three-decimal number of the prose is a cell of this run's trends or of li-figures' (KRR).
    krr = json.loads((RESULTS / "li-figures" / "trends.json").read_text())["rows"]
    known = {value for row in generated + krr for value in row.values()}
    assert set(re.findall(r"\b\d\.\d{3}\b", notes)) <= known


def test_unscaled_base_kernels_differ_only_by_the_polynomial_factors():
    """li-tables-unif's unscaled stack: the Gaussians as before, the polynomials 4 and 8 times larger."""
    from krein.experiments.li2024 import base_kernel_stack

    scaled, y = base_kernel_stack("sonar")
    unscaled, y_unscaled = base_kernel_stack("sonar", normalized=False)
    assert np.array_equal(y, y_unscaled)
    np.testing.assert_allclose(unscaled[:, :, :4], scaled[:, :, :4])
    np.testing.assert_allclose(unscaled[:, :, 4:], scaled[:, :, 4:] * [4.0, 8.0], rtol=1e-12)

"""The li-tables and li-figures experiments in tiny forms (numbers checked, files written)."""

import json
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

from krein.experiments import RunContext, get_experiment
from krein.experiments.li2024 import (
    FIGURES_FORMS,
    TABLES_FORMS,
    FixedCombinationRidge,
    RidgeLearnedSVC,
    base_kernel_stack,
    describe_weights,
    learned_weight_rows,
    run_figures,
    run_svm_figures,
    run_tables,
    trend_rows,
    weights_against_radius,
)


def _context(tmp_path):
    return RunContext(quick=True, out=tmp_path, show_progress=False, console=Console(quiet=True))


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


def test_li_tables_tiny(tmp_path):
    config = replace(
        TABLES_FORMS.full,
        datasets=("sonar",),
        lams=(0.1, 1.0),
        Lambdas=(1.0,),
        betas=(1.0,),
        cv_folds=2,
        n_splits=2,
        max_iter=5,
        radii=(0.001, 1.0),
    )
    run_tables(_context(tmp_path), config)
    for name in ("cv_rmse", "test_rmse", "test_error"):
        assert (tmp_path / f"{name}.md").exists() and (tmp_path / f"{name}.csv").exists()
    summary = json.loads((tmp_path / "test_error.json").read_text())["summary"]
    methods = {row["method"] for row in summary}
    assert {
        "PGD d=1",
        "IIA d=1",
        "rPGD d=1",
        "rIIA d=1",
        "PGD d=2",
        "rPGD d=2",
        "TR d=1",
        "BM",
        "UNIF",
    } <= methods
    for row in summary:  # sonar with Gaussian kernels: far better than chance (the paper: 0.22-0.26)
        assert 0.0 < row["mean"] < 0.35, row
    rmse = json.loads((tmp_path / "test_rmse.json").read_text())["summary"]
    assert all(0.3 < row["mean"] < 1.0 for row in rmse)
    versus = json.loads((tmp_path / "vs_paper.json").read_text())["rows"]
    assert len(versus) == 18  # sonar: 6 CV cells (Table 3), 12 test cells (Table 4)
    cell = next(r for r in versus if r["measure"] == "test RMSE" and r["method"] == "UNIF")
    unif = next(r for r in rmse if r["method"] == "UNIF")
    assert (cell["paper mean"], cell["paper std"]) == (1.69, 0.02)
    assert (cell["ours mean"], cell["ours std"]) == (round(unif["mean"], 2), round(unif["std"], 2))
    weights = json.loads((tmp_path / "learned_weights.json").read_text())["rows"]
    assert [r["Λ or β"] for r in weights if r["method"] == "PGD d=1, all samples"] == ["Λ=0.001", "Λ=1"]
    assert {r["method"] for r in weights} >= {"PGD d=1", "IIA d=1", "rPGD d=2", "TR d=1"}


def test_li_figures_tiny(tmp_path):
    config = replace(
        FIGURES_FORMS.full, datasets=("heart",), lams=(1e-2, 1.0), n_splits=2, max_iter=5, cv_folds=2
    )
    records = run_figures(_context(tmp_path), config)
    assert (tmp_path / "pgd_lambda_heart.png").stat().st_size > 1000
    assert len(records) == 4
    for record in records:
        assert record["rmse_mean"] > 0 and record["error_mean"] < 0.4
        assert 0.5 < record["cv_rmse_mean"] < 1.0  # heart, labels ±1: better than predicting 0
    rows = json.loads((tmp_path / "trends.json").read_text())["rows"]
    assert [(r["method"], r["score"]) for r in rows] == [
        (f"d = {degree}", score) for score in ("cv_rmse", "rmse", "error") for degree in (1, 2)
    ]
    first = next(r for r in records if r["method"] == "d = 1" and r["lam"] == 1e-2)
    assert rows[2]["λ=0.01"] == f"{first['rmse_mean']:.3f}"
    # --resume reads the stored cells back instead of fitting again
    again = run_figures(RunContext(quick=True, out=tmp_path, show_progress=False, resume=True), config)
    assert again == records


def test_li_svm_figures_tiny(tmp_path):
    config = replace(FIGURES_FORMS.full, datasets=("heart",), lams=(1e-2, 1.0), n_splits=2, max_iter=5)
    records = run_svm_figures(_context(tmp_path), config)
    assert (tmp_path / "svm_lambda_heart.png").stat().st_size > 1000
    assert {r["method"] for r in records} == {
        "Alg. 7, d = 1",
        "Alg. 7, d = 2",
        "KRR μ, d = 1",
        "KRR μ, d = 2",
    }
    assert all(0.0 < r["error_mean"] < 0.35 for r in records)  # heart: far better than chance (0.44)


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

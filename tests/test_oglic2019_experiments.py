"""The oglic2019 experiments: their quick forms and their parts in tiny forms (the full ones run
through ``krein reproduce``)."""

import math

import numpy as np
import pytest
from _results import assert_counts, comparison_rows, load, summary

from krein.experiments import RunContext, get_experiment
from krein.experiments._protocol import outer_splits
from krein.experiments.oglic2019 import (
    DISSIMILARITY_SETTINGS,
    FIGURE1_KERNELS,
    FIGURE3_SETTINGS,
    FIGURE8_SETTINGS,
    FIGURE_FORMS,
    FIGURE_SETTINGS,
    FULL_METHODS,
    GRID_METHODS,
    GRID_SUFFIX,
    KREIN_METHODS,
    LOW_RANK_METHODS,
    PAPER_TABLE2,
    SAMPLERS,
    VECTOR_DATASET,
    _vs_paper,
    approximation_errors,
    cell_method,
    dissimilarity_cells,
    dissimilarity_model,
    dissimilarity_task,
    scaling_times,
    standardized_sample,
    tuning_rows,
)
from krein.kernels import initial_kernel
from krein.least_squares import KreinRidgeClassifier
from krein.model_selection import HypergradientSearchCV

GRID = DISSIMILARITY_SETTINGS.quick.grid


def test_experiments_are_registered():
    names = ("figure1", "figure2", "figure3", "figure8", "table1", "table2")
    for name in (f"oglic2019-{n}" for n in names):
        assert get_experiment(name).paper.startswith("Oglic & Gärtner 2019")


@pytest.mark.slow
def test_approximation_errors_decay_with_rank_and_are_exact_at_full_rank():
    X = standardized_sample("magic", 60, seed=0)
    kernel = initial_kernel(FIGURE1_KERNELS[0], X, random_state=0)
    rows = approximation_errors(X, kernel, (2, 8), repetitions=2, seed=0, samplers=("kmeans++",))
    k_rows = [r for r in rows if r["landmarks"] == "k"]
    assert k_rows[0]["error"] > k_rows[1]["error"]
    full = approximation_errors(X, kernel, (60,), repetitions=1, seed=0, samplers=("uniform",))
    assert full[0]["error"] < 1e-8  # every point a landmark, full rank: K itself


def test_scaling_times_rows():
    X = standardized_sample("magic", 200, seed=0)
    kernel = initial_kernel("DELTA-GAUSS", X, random_state=0)
    rows = scaling_times(X, kernel, (100, 200), (5,), repetitions=1, seed=0)
    assert [r["n"] for r in rows] == [100, 200]
    assert all(r["mean_seconds"] > 0 for r in rows)


def test_low_rank_models_use_the_papers_split_and_are_tuned():
    grid = np.logspace(-3, 0, 2)
    for method in KREIN_METHODS:
        search = dissimilarity_model(method, 10, grid, 0, 3)
        assert isinstance(search, HypergradientSearchCV) and search.n_restarts == 0  # the paper's tuning
        start = search.estimator.get_params()
        assert (start["lambda_plus"], start["lambda_minus"]) == (1e-2, 1e-2)
        assert start.get("radius", 1.0) == 1.0
        by_grid = dissimilarity_model(method + GRID_SUFFIX, 10, grid, 0, 3)
        assert set(by_grid.param_grid) == {"lambda_plus", "lambda_minus"}
        for estimator in (search.estimator, by_grid.estimator):
            assert estimator.get_params()["nystroem_split"] == "landmarks"
            assert estimator.get_params()["landmark_rank"] == "full"  # the paper's Eq. (3)
            assert estimator.n_components == 10
        assert type(search.estimator) is type(by_grid.estimator)
    default = dissimilarity_model("KREIN LSM (krein split)", 10, grid, 0, 3).estimator
    assert default.nystroem_split == "approximation"
    assert default.landmark_rank == KreinRidgeClassifier().landmark_rank  # krein's default
    full = dissimilarity_model("VC-LSM (full)", None, grid, 0, 3)
    assert full.estimator.n_components is None and full.n_restarts == 10


def test_grid_cells_keep_their_keys_and_hypergradient_cells_get_new_ones():
    """The cells stored before the paper's tuning (plain names) are the grid methods' cells."""
    assert [cell_method(m) for m in GRID_METHODS] == list(KREIN_METHODS)
    assert len({cell_method(m) for m in (*KREIN_METHODS, *GRID_METHODS, *FULL_METHODS, "SF-LSM")}) == 10
    from pathlib import Path

    cells = Path(__file__).resolve().parents[1] / "docs" / "results" / "oglic2019-table1" / "cells"
    assert (cells / "coilyork-KREIN_SH-SVM-r100-fold0.json").is_file()  # a grid cell, read back


@pytest.mark.slow
def test_the_searched_sh_svm_cell_beats_chance_on_aural_sonar(tmp_path):
    ctx = RunContext(quick=True, out=tmp_path, show_progress=False)
    results = dissimilarity_cells(
        ctx, ("aural-sonar",), ("KREIN SH-SVM",), (8,), folds=3, inner_folds=2, grid=GRID
    )
    errors = [cell[0] for cell in results[("aural-sonar", "KREIN SH-SVM", 8)]]
    assert np.mean(errors) < 40
    assert len(list((tmp_path / "cells").glob("aural-sonar-KREIN_SH-SVM_hypergradient-r8-fold*.json"))) == 3
    records = [cell[2] for cell in results[("aural-sonar", "KREIN SH-SVM", 8)]]
    assert all(
        r["loss"] < r["initial_loss"] and set(r["params"]) == {"lambda_plus", "lambda_minus"} for r in records
    )
    (row,) = tuning_rows(results)
    assert row["median lambda_plus"] == np.median([r["params"]["lambda_plus"] for r in records])
    assert row["median inner loss at the end"] < row["median inner loss at the start"]


@pytest.mark.slow
def test_dissimilarity_cells_are_stored_and_read_back(tmp_path):
    ctx = RunContext(quick=True, out=tmp_path, show_progress=False)
    methods = ("KREIN LSM (grid)", "SF-LSM (full)")
    results = dissimilarity_cells(ctx, ("aural-sonar",), methods, (8,), folds=3, inner_folds=2, grid=GRID)
    assert set(results) == {("aural-sonar", "KREIN LSM (grid)", 8), ("aural-sonar", "SF-LSM (full)", None)}
    errors = [cell[0] for cells in results.values() for cell in cells]
    assert len(errors) == 6 and all(0 <= e <= 100 for e in errors)
    assert np.mean(errors) < 40  # aural sonar under its own similarity: far better than chance
    assert len(list((tmp_path / "cells").glob("aural-sonar-KREIN_LSM-r8-fold*.json"))) == 3  # the old key
    again = RunContext(quick=True, out=tmp_path, show_progress=False, resume=True)
    assert (
        dissimilarity_cells(again, ("aural-sonar",), methods, (8,), folds=3, inner_folds=2, grid=GRID)
        == results
    )


def test_vs_paper_marks_cells_inside_the_papers_std():
    lsm, sf = (PAPER_TABLE2.cell("protein", method)["mean"] for method in ("KREIN LSM", "SF-LSM"))
    summary = [
        {"task": "protein", "method": "KREIN LSM", "mean": lsm + 2.0, "std": 1.0},
        {"task": "protein", "method": "SF-LSM", "mean": sf + 5.0, "std": 1.0},
        {"task": "aural-sonar", "method": "SF-LSM", "mean": 10.0, "std": 1.0},  # not in the paper
    ]

    class Table:
        def summary(self):
            return summary

    rows = _vs_paper(Table())
    assert [r["inside the paper's ± 1 std"] for r in rows] == ["yes", "no"]  # 2 ≤ 2.76; 5 > 3.91
    assert [r["difference"] for r in rows] == [2.0, 5.0]


@pytest.mark.parametrize("name", ["figure1", "figure2"])
def test_figure_notes_quote_the_committed_json(name):
    """Every number of the notes' tables and summary is generated from the run's JSON."""
    import json
    from pathlib import Path

    from krein.experiments.oglic2019 import figure_error_summary, figure_error_table

    folder = Path(__file__).resolve().parents[1] / "docs" / "results" / f"oglic2019-{name}"
    rows = json.loads((folder / f"{name}.json").read_text())["rows"]
    notes = (folder / "NOTES.md").read_text()
    assert figure_error_table(rows) in notes
    assert figure_error_summary(rows) in notes


def test_figure1_notes_say_where_kmeans_is_best():
    """The verdict on K-means++ rests on the counts the notes quote, generated from the run's JSON."""
    import json
    from pathlib import Path

    from krein.experiments.oglic2019 import best_sampler_counts

    folder = Path(__file__).resolve().parents[1] / "docs" / "results" / "oglic2019-figure1"
    rows = json.loads((folder / "figure1.json").read_text())["rows"]
    sentence = best_sampler_counts(rows)
    assert sentence in (folder / "NOTES.md").read_text()
    assert sentence.startswith(
        "Eq. (3) with k landmarks, lowest in 20 cells: uniform 4, leverage 5, kmeans++ 11"
    )


def test_figure_notes_helpers_on_a_quick_run():
    X = standardized_sample("magic", 80, seed=0)
    kernel = initial_kernel("DELTA-GAUSS", X, random_state=0)
    rows = approximation_errors(X, kernel, (3, 6), repetitions=1, seed=0)
    from krein.experiments.oglic2019 import figure_error_summary, figure_error_table

    table = figure_error_table(rows)
    assert table.count("\n") == 1 + 2 * 2  # header, rule, (k, k log n) × (Eq. (3), validated)
    assert "validated: " in figure_error_summary(rows)


# ------------------------------------------------------------------------------------- quick forms


def _check_approximation_rows(rows, kernels):
    """The rows of Figures 1 and 2 (quick form): one per kernel, form, sampler, landmark rule and rank,
    with m = k or ⌈k ln n⌉ landmarks; no rank-k approximation beats the best one (Eckart–Young: the
    eigenvalues of K beyond the k largest in magnitude), krein's validated K_ZZ is never worse than the
    zero matrix, and the held-out estimate of the error is near the error."""
    settings = FIGURE_SETTINGS.quick
    X = standardized_sample(VECTOR_DATASET, settings.n, seed=0)
    cells = [
        (kernel, form, sampler, rule, rank)
        for kernel in kernels
        for form in FIGURE_FORMS
        for sampler in SAMPLERS
        for rule in ("k", "k log n")
        for rank in settings.ranks
    ]
    assert [
        (r.get("kernel", kernels[0]), r["form"], r["sampler"], r["landmarks"], r["rank"]) for r in rows
    ] == cells
    for kernel in kernels:
        K = initial_kernel(kernel, X, random_state=0)(X)
        magnitudes = np.sort(np.abs(np.linalg.eigvalsh(K)))
        for r in (r for r in rows if r.get("kernel", kernels[0]) == kernel):
            k = r["rank"]
            assert r["m"] == (k if r["landmarks"] == "k" else math.ceil(k * math.log(settings.n)))
            best = np.sqrt(np.sum(magnitudes[:-k] ** 2)) / np.linalg.norm(K)
            assert r["error"] >= best - 1e-12, r
            assert r["form"] == "Eq. (3)" or r["error"] < 1, r
            assert 0.5 < r["estimate"] / r["error"] < 2 and r["seconds"] > 0, r


@pytest.mark.slow
@pytest.mark.parametrize("quick_form", ["oglic2019-figure1"], indirect=True)
def test_figure1_quick_form(quick_form):
    _check_approximation_rows(load(quick_form, "figure1")["rows"], FIGURE1_KERNELS)
    assert (quick_form.out / "figure1.png").stat().st_size > 10_000


@pytest.mark.parametrize("quick_form", ["oglic2019-figure2"], indirect=True)
def test_figure2_quick_form(quick_form):
    _check_approximation_rows(load(quick_form, "figure2")["rows"], ("DELTA-GAUSS",))
    assert (quick_form.out / "figure2.png").stat().st_size > 10_000


@pytest.mark.parametrize("quick_form", ["oglic2019-figure8"], indirect=True)
def test_figure8_quick_form(quick_form):
    settings = FIGURE8_SETTINGS.quick
    rows = load(quick_form, "figure8")["rows"]
    assert [(r["rank"], r["n"]) for r in rows] == [(k, n) for k in settings.ranks for n in settings.sizes]
    assert all(r["mean_seconds"] > 0 and 0 <= r["std_seconds"] < r["mean_seconds"] for r in rows)
    assert (quick_form.out / "figure8.png").stat().st_size > 10_000


def _check_dissimilarity_table(ctx, name, methods):
    """Table 1 or 2 (quick form): every method on every data set, one error per outer fold, each a
    whole number of the fold's test objects; the task facts, the tuning records and the cells beside
    the paper's agree with the run and with the data."""
    settings = DISSIMILARITY_SETTINGS.quick
    rows = summary(ctx, name)
    assert list(rows) == [(task, method) for task in settings.datasets for method in methods]
    scores = {(s["task"], s["method"]): s["values"] for s in load(ctx, name)["scores"]}
    for task in settings.datasets:
        _, y, iota = dissimilarity_task(task)
        sizes = [len(test) for _, test in outer_splits(y, settings.folds, random_state=0)]
        for method in methods:
            row = rows[task, method]
            assert (row["n"], row["iota"], row["n_runs"]) == (y.size, pytest.approx(iota), settings.folds)
            assert_counts(scores[task, method], sizes)
            assert row["mean"] == pytest.approx(np.mean(scores[task, method]))
        # the papers' similarity and dissimilarity data: every method far better than chance
        assert max(rows[task, method]["mean"] for method in methods) < 25, task
    for row in comparison_rows(ctx, f"{name}-vs-paper"):
        assert row["task"] == "protein" and PAPER_TABLE2.has("protein", row["method"])
        assert row["ours mean"] == round(rows["protein", row["method"]]["mean"], PAPER_TABLE2.decimals)
    tuning = load(ctx, f"{name}-tuning")["rows"]
    assert [(r["data set"], r["method"]) for r in tuning] == [
        (task, method) for task in settings.datasets for method in KREIN_METHODS
    ]
    for r in tuning:  # a search ends no higher than it starts, and every bound count is a count of folds
        assert r["median inner loss at the end"] <= r["median inner loss at the start"], r
        assert all(0 <= v <= settings.folds for k, v in r.items() if k.startswith("folds with")), r


@pytest.mark.slow
@pytest.mark.parametrize("quick_form", ["oglic2019-table1"], indirect=True)
def test_table1_quick_form(quick_form):
    methods = (*LOW_RANK_METHODS, *GRID_METHODS, "KREIN LSM (krein split)")
    _check_dissimilarity_table(quick_form, "table1", methods)


@pytest.mark.slow
@pytest.mark.parametrize("quick_form", ["oglic2019-table2"], indirect=True)
def test_table2_quick_form(quick_form):
    _check_dissimilarity_table(quick_form, "table2", (*LOW_RANK_METHODS, *FULL_METHODS))


@pytest.mark.slow
@pytest.mark.parametrize("quick_form", ["oglic2019-figure3"], indirect=True)
def test_figure3_quick_form(quick_form):
    """One median error per data set, method and rank (the cells of Tables 1 and 2 at each rank), all
    better than chance (two classes)."""
    settings = FIGURE3_SETTINGS.quick
    rows = load(quick_form, "figure3")["rows"]
    methods = (*LOW_RANK_METHODS, *GRID_METHODS)
    assert [(r["data set"], r["method"], r["rank"]) for r in rows] == [
        (task, method, rank) for task in settings.datasets for method in methods for rank in settings.ranks
    ]
    assert all(0 <= r["median error"] < 50 for r in rows)
    assert (quick_form.out / "figure3.png").stat().st_size > 10_000

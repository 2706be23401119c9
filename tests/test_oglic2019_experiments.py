"""Tiny forms of the oglic2019 experiments (the full ones run through ``krein reproduce``)."""

import numpy as np
import pytest

from krein.experiments import RunContext, get_experiment
from krein.experiments.oglic2019 import (
    FIGURE1_KERNELS,
    approximation_errors,
    scaling_times,
    standardized_sample,
    table1,
)
from krein.kernels import initial_kernel


def test_experiments_are_registered():
    for name in ("oglic2019-figure1", "oglic2019-figure2", "oglic2019-figure8", "oglic2019-table1"):
        assert get_experiment(name).paper.startswith("Oglic & Gärtner 2019")


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


def test_figure2_quick_writes_figure_and_table(tmp_path):
    get_experiment("oglic2019-figure2").run(RunContext(quick=True, out=tmp_path, show_progress=False))
    assert (tmp_path / "figure2.png").stat().st_size > 0
    assert "kmeans++" in (tmp_path / "figure2.md").read_text()


def test_table1_on_one_small_dataset(tmp_path):
    ctx = RunContext(quick=True, out=tmp_path, show_progress=False)
    table = table1(ctx, ("gunpoint",), max_samples=60, rank=20, folds=3)
    summary = table.summary()
    assert {r["method"] for r in summary} == {"KREIN VC-LSM", "KREIN LSM", "KREIN SH-SVM", "SF-LSM"}
    assert all(0 <= r["mean"] <= 100 for r in summary)
    assert np.mean([r["mean"] for r in summary]) < 40  # gunpoint is an easy task under DTW


@pytest.mark.parametrize("name", ["oglic2019-figure8"])
def test_quick_forms_run(tmp_path, name):
    get_experiment(name).run(RunContext(quick=True, out=tmp_path, show_progress=False))
    assert any(tmp_path.iterdir())


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


def test_figure_notes_helpers_on_a_quick_run():
    X = standardized_sample("magic", 80, seed=0)
    kernel = initial_kernel("DELTA-GAUSS", X, random_state=0)
    rows = approximation_errors(X, kernel, (3, 6), repetitions=1, seed=0)
    from krein.experiments.oglic2019 import figure_error_summary, figure_error_table

    table = figure_error_table(rows)
    assert table.count("\n") == 1 + 2 * 2  # header, rule, (k, k log n) × (Eq. (3), validated)
    assert "validated: " in figure_error_summary(rows)

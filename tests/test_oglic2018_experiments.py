"""Tiny forms of the oglic2018 experiments (the full ones run through ``krein reproduce``)."""

import json

import numpy as np

from krein.experiments import RunContext, get_experiment
from krein.experiments.oglic2018 import TABLE1_METHODS, run_table1, run_table3

TINY_SEARCH = {"inner_folds": 2, "n_restarts": 1, "restart_iter": 3, "max_iter": 3}


def test_experiments_are_registered():
    assert get_experiment("oglic2018-table1").paper.endswith("Table 1")
    assert get_experiment("oglic2018-table3").paper.endswith("Table 3")


def test_table1_tiny(tmp_path):
    ctx = RunContext(quick=True, out=tmp_path, show_progress=False)
    table = run_table1(ctx, (("SIGMOID", 40),), tuple(TABLE1_METHODS), 2, TINY_SEARCH)
    ctx.report(table, "table1")
    summary = json.loads((tmp_path / "table1.json").read_text())["summary"]
    assert {row["method"] for row in summary} == set(TABLE1_METHODS)
    assert all(np.isfinite(row["mean"]) and row["mean"] > 0 for row in summary)
    info = table.task_info["SIGMOID (n = 40)"]
    assert info["pos"] + info["neg"] <= 40 and 0 <= info["iota"] <= 1


def test_table3_tiny(tmp_path):
    ctx = RunContext(quick=True, out=tmp_path, show_progress=False)
    errors, rmse, versus_paper = run_table3(
        ctx, ("haberman", "wage"), ("SIGMOID", "GAUSS"), 2, TINY_SEARCH, max_samples=50
    )
    [row_error] = [r for r in errors.summary() if r["method"] == "GAUSS"]
    assert 0 <= row_error["mean"] <= 100
    assert errors.task_info["haberman (n = 50)"]["ι GAUSS"] < 1e-6  # GAUSS is positive definite
    assert all(r["mean"] > 0 for r in rmse.summary())
    # One row per cell beside the paper's numbers; "inside" is |ours − paper| ≤ the paper's std.
    assert [(r["data set"], r["kernel"]) for r in versus_paper] == [
        ("haberman", "SIGMOID"),
        ("haberman", "GAUSS"),
        ("wage", "SIGMOID"),
        ("wage", "GAUSS"),
    ]
    wage_gauss = versus_paper[3]
    assert wage_gauss["paper"] == "9.87 (± 2.12)" and wage_gauss["ι paper"] == "0.00"
    ours = float(wage_gauss["ours"].split()[0])
    assert wage_gauss["inside the paper's ± 1 std"] == ("yes" if abs(ours - 9.87) <= 2.12 else "no")


def test_table3_resumes_from_cells(tmp_path):
    def run(resume):
        ctx = RunContext(quick=True, out=tmp_path, show_progress=False, resume=resume)
        return run_table3(ctx, ("haberman",), ("GAUSS",), 2, TINY_SEARCH, max_samples=40)[0]

    first = run(False).summary()
    cells = sorted(p.name for p in (tmp_path / "cells").iterdir())
    assert cells == ["haberman-GAUSS-fold0.json", "haberman-GAUSS-fold1.json"]
    # A resumed run reads the cells back: edit one and the table shows the edit.
    path = tmp_path / "cells" / "haberman-GAUSS-fold0.json"
    record = json.loads(path.read_text())
    record["value"][0] = 99.0
    path.write_text(json.dumps(record))
    resumed = run(True).summary()
    assert resumed[0]["mean"] != first[0]["mean"]
    assert resumed[0]["mean"] == np.mean(
        [99.0, json.loads((tmp_path / "cells" / cells[1]).read_text())["value"][0]]
    )

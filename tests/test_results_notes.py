"""Numbers quoted in docs/results/{showcase,luss2009-figure1}/NOTES.md, checked against the runs' JSON."""

import json
from pathlib import Path

import numpy as np
import pytest

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"

#: (task, method, mean error %) as quoted in the showcase notes.
SHOWCASE_CLAIMS = [
    ("gunpoint / DTW", "Kreĭn LS", 3.0),
    ("gunpoint / DTW", "KREĬN (VC)", 3.0),
    ("gunpoint / DTW", "KreinSVC", 3.0),
    ("gunpoint / DTW", "flip+SVC", 3.0),
    ("gunpoint / DTW", "SVC (indefinite)", 41.0),
    ("gunpoint / DTW", "shift+SVC", 41.0),
    ("gunpoint / DTW", "clip+SVC", 19.5),
    ("gunpoint / DTW", "IndefiniteSVC", 30.5),
    ("ionosphere / DELTA-GAUSS", "Kreĭn LS", 6.0),
    ("ionosphere / DELTA-GAUSS", "Kreĭn LS (m=50)", 4.8),
    ("ionosphere / DELTA-GAUSS", "shift+SVC", 36.0),
    ("pima / SIGMOID", "KREĬN (VC)", 28.4),
    ("pima / SIGMOID", "clip+SVC", 21.6),
    ("pima / SIGMOID", "flip+SVC", 24.0),
    ("pima / SIGMOID", "shift+SVC", 23.2),
    ("pima / SIGMOID", "SVC (indefinite)", 26.4),
    ("pima / SIGMOID", "IndefiniteSVC", 25.6),
    ("german / SIGMOID", "clip+SVC", 26.4),
    ("german / SIGMOID", "flip+SVC", 28.8),
    ("german / SIGMOID", "shift+SVC", 26.4),
    ("german / SIGMOID", "SVC (indefinite)", 28.0),
    ("german / SIGMOID", "IndefiniteSVC", 23.6),
    ("german / SIGMOID", "Kreĭn LS", 31.6),
    ("german / SIGMOID", "KREĬN (VC)", 33.2),
    ("splice / edit distance", "SVC (RBF)", 9.2),
    ("splice / edit distance", "IndefiniteSVC", 20.0),
]


def _showcase():
    data = json.loads((RESULTS / "showcase" / "showcase.json").read_text())
    return {(r["task"], r["method"]): r for r in data["summary"]}, (
        RESULTS / "showcase" / "NOTES.md"
    ).read_text()


@pytest.mark.parametrize("task,method,value", SHOWCASE_CLAIMS)
def test_showcase_notes_quote_the_run(task, method, value):
    summary, notes = _showcase()
    assert summary[(task, method)]["mean"] == pytest.approx(value, abs=0.05)
    assert f"{value:.1f}" in notes or f"{value:g} %" in notes


def test_showcase_notes_ranges_and_significance():
    summary, notes = _showcase()
    assert all(r["not_worse_than_best"] for (task, _), r in summary.items() if task == "pima / SIGMOID")
    digits = [r["mean"] for (task, _), r in summary.items() if task.startswith("digits")]
    assert (min(digits), max(digits)) == pytest.approx((1.2, 2.8)) and "1.2–2.8 %" in notes
    splice = [r["mean"] for (task, m), r in summary.items() if task.startswith("splice") and m != "SVC (RBF)"]
    assert (min(splice), max(splice)) == pytest.approx((18.8, 31.6)) and "18.8–31.6 %" in notes
    assert summary[("pima / SIGMOID", "KREĬN (VC)")]["std"] == pytest.approx(9.3, abs=0.05)
    assert summary[("gunpoint / DTW", "Kreĭn LS")]["iota"] == pytest.approx(0.05, abs=0.005)
    assert summary[("ionosphere / DELTA-GAUSS", "Kreĭn LS")]["iota"] == pytest.approx(0.50, abs=0.005)


def _figure1():
    data = json.loads((RESULTS / "luss2009-figure1" / "figure1_gap.json").read_text())
    return data, (RESULTS / "luss2009-figure1" / "NOTES.md").read_text()


@pytest.mark.parametrize(
    "label,row",
    [
        ("ACCPM", "ACCPM"),
        ("projected gradient, step 5/k (paper)", "PG, step 5/k (paper)"),
        ("projected gradient, BB steps (krein default)", "PG, BB steps (krein)"),
    ],
)
def test_figure1_notes_table_is_the_run(label, row):
    from krein.experiments.luss2009 import figure1_summary

    data, notes = _figure1()
    assert (data["n"], data["C"], data["rho"], data["iterations"]) == (200, 10.0, 1.0, 300)
    summary = figure1_summary(data["gaps"][label])
    cells = [f"{10 ** summary['mean_log10'][k]:.1e}" for k in (10, 50, 150, 300)]
    cells.append(f"{summary['final_median']:.1e}")
    assert f"| {row} | " + " | ".join(cells) + " |" in notes


def test_figure1_notes_first_iterations_below_1e_3():
    from krein.experiments.luss2009 import figure1_summary

    data, notes = _figure1()
    first = {
        label: int(np.argmax(figure1_summary(runs)["mean_log10"] < -3))
        for label, runs in data["gaps"].items()
    }
    assert first["projected gradient, step 5/k (paper)"] == 123 and "iteration 123" in notes
    assert first["projected gradient, BB steps (krein default)"] == 22 and "1e-3 in 22 iterations" in notes
    assert np.all(figure1_summary(data["gaps"]["ACCPM"])["mean_log10"] > -3)

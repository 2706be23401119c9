"""The committed Liu et al. (2019) results: every number their NOTES quote is checked against the JSON."""

import json
from pathlib import Path

import numpy as np

from krein.experiments._papers import INSIDE

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"


def _load(experiment, name):
    path = RESULTS / experiment / name
    return json.loads(path.read_text()), (RESULTS / experiment / "NOTES.md").read_text()


def test_figure3_notes_match_the_run():
    run, notes = _load("liu2019-figure3", "figure3.json")
    curves, L = run["curves"], run["curvature_L"]
    assert run["n_train"] == {"monk-1": 124, "ijcnn1": 2000}
    for task in ("monk-1", "ijcnn1"):
        assert f"2/L = {2 / L[task]:.2g}" in notes
    paper, krein = curves["paper"], curves["majorizer"]
    # the paper's steps: stable on monk-1 (2/L > η = 0.02), monotone GD curves
    assert 2 / L["monk-1"] > run["paper_learning_rate"] > 2 / L["ijcnn1"]
    for method in ("CCCP-GD", "CCICP-GD"):
        history = np.asarray(paper["monk-1"][method])
        assert np.all(np.diff(history) <= 1e-12)
        assert f"{method} {history[-1]:.3f}" in notes
    # ... and overshooting on ijcnn1: the GD curves end above the start, SGD overflowed
    for method in ("CCCP-GD", "CCICP-GD"):
        history = paper["ijcnn1"][method]
        assert history[-1] > history[0] and f"{method} {history[-1]:.3f}" in notes
    assert paper["ijcnn1"]["CCICP-SGD"] == [] and "CCICP-SGD overflowed" in notes
    # krein's steps: monotone GD everywhere, all three solvers at the same objective on ijcnn1
    for task in ("monk-1", "ijcnn1"):
        for method in ("CCCP-GD", "CCICP-GD"):
            assert np.all(np.diff(krein[task][method]) <= 1e-12)
    finals = {round(krein["ijcnn1"][m][-1], 4) for m in krein["ijcnn1"]}
    assert len(finals) == 1 and f"all three at {finals.pop():.4f}" in notes


def figure2_lines(run):
    """One line per data set and step rule: inner steps and test accuracy from ε = 1e-4 to ε = 1 and 5."""
    lines = []
    for task, result in run["results"].items():
        for step in ("paper", "majorizer"):
            rows = {r["epsilon"]: r for r in result["rows"] if r["step"] == step}
            steps = " → ".join(str(rows[e]["inner_steps"]) for e in (1e-4, 1.0, 5.0))
            accuracy = " → ".join(f"{rows[e]['accuracy']:.3f}" for e in (1e-4, 1.0, 5.0))
            lines.append(
                f"- {task} (n = {result['n_train']}, λ = {result['lam']:g}), step={step}: inner steps "
                f"{steps}, test accuracy {accuracy}"
            )
    return lines


def test_figure2_notes_match_the_run():
    run, notes = _load("liu2019-figure2", "figure2.json")
    assert run["epsilons"] == [1e-4, 1e-3, 1e-2, 0.1, 0.5, 1.0, 5.0]
    for line in figure2_lines(run):
        assert line in notes
    for result in run["results"].values():
        rows = {(r["step"], r["epsilon"]): r for r in result["rows"]}
        # krein's steps: ε ≥ 0.5 exceeds every change of F_k, one step per subproblem
        assert all(rows["majorizer", e]["inner_steps"] == 20 for e in (0.5, 1.0, 5.0))
    # the paper's steps overshoot on guide1-t (F_k changes by more than ε = 5) but not on monk-1
    paper_steps = {task: {r["epsilon"]: r["inner_steps"] for r in result["rows"] if r["step"] == "paper"}
                   for task, result in run["results"].items()}  # fmt: skip
    assert paper_steps["monk-1"][5.0] == 20 < paper_steps["guide1-t"][5.0]


def table3_lines(versus_paper, summary):
    """One line per data set: size and training-half spectrum beside the paper's Table II, CCICP-GD and
    CCICP-SGD beside its Table III, and how many methods are inside the paper's mean ± 1 std."""
    info = {row["task"]: row for row in summary}
    lines = []
    for task in dict.fromkeys(row["task"] for row in versus_paper):
        rows = [row for row in versus_paper if row["task"] == task]
        t = info[task]
        text = (
            f"- {task}: n = {t['n']} (paper {t['paper_n']}), training-half μ_min = {t['mu_min']:.3g}, "
            f"μ_max = {t['mu_max']:.4g} (paper {t['paper_mu_min']:g}, {t['paper_mu_max']:g})"
        )
        for row in rows:
            if row["method"] in ("CCICP-GD", "CCICP-SGD"):
                text += (
                    f"; {row['method']} {row['ours mean']:.3f} ± {row['ours std']:.3f} "
                    f"(paper {row['paper mean']:.3f} ± {row['paper std']:.3f})"
                )
        inside = sum(row[INSIDE] == "yes" for row in rows)
        lines.append(text + f"; {inside} of {len(rows)} methods inside the paper's ± 1 std")
    return lines


def test_table3_notes_match_the_run():
    versus, notes = _load("liu2019-table3", "table3-vs-paper.json")
    summary = json.loads((RESULTS / "liu2019-table3" / "table3.json").read_text())["summary"]
    rows = versus["rows"]
    inside = sum(row[INSIDE] == "yes" for row in rows)
    assert f"{inside} of {len(rows)} cells inside the paper's mean ± 1 std" in versus["title"]
    assert f"{inside} of {len(rows)} cells" in notes
    for row in rows:  # the mark is what it says
        assert row[INSIDE] == (
            "yes" if abs(row["ours mean"] - row["paper mean"]) <= row["paper std"] + 1e-9 else "no"
        )
    for line in table3_lines(rows, summary):
        assert line in notes
    assert max(row["iota"] for row in summary) <= 0.11 and "ι ≤ 0.11" in notes
    same = [row for row in rows if row["task"] != "splice"]
    for method in ("CCICP-GD", "CCICP-SGD"):
        mine = [row for row in same if row["method"] == method]
        counted = sum(row[INSIDE] == "yes" for row in mine)
        assert f"{method} inside the paper's ± 1 std on {counted} of {len(mine)}" in notes
        assert 2 * counted > len(mine)  # "most", as the fidelity verdict says
    for task in ("diabetic", "monk-2", "parkinsons"):  # the ranges the notes quote
        values = [row["ours mean"] for row in rows if row["task"] == task]
        assert f"{task}: ours {min(values):.3f}–{max(values):.3f}" in notes
    tdcasvm = [row for row in rows if row["method"] == "TDCASVM"]
    counted = sum(row[INSIDE] == "yes" for row in tdcasvm)
    assert len(tdcasvm) == 16 and f"TDCASVM inside on {counted} of 16" in notes  # the fidelity verdict


def full_split_lines(cells):
    """One line per finished full-form split of liu2019-table4 (``cells/<data set>--<split>.json``):
    the training kernel's extreme eigenvalues (of K̃ where low rank) and each method's test accuracy and
    training time and inner steps (epochs for SGD), or that its iterates overflowed."""
    lines = []
    for path in sorted(
        cells.glob("*.json"), key=lambda p: (p.stem.rsplit("--", 1)[0], int(p.stem.rsplit("--", 1)[1]))
    ):
        name, split = path.stem.rsplit("--", 1)
        parts = []
        for row in json.loads(path.read_text())["value"]:
            if row["accuracy"] is None:
                parts.append(f"{row['method']} overflowed")
            else:
                unit = "epochs" if "SGD" in row["method"] else "steps"
                parts.append(
                    f"{row['method']} {row['accuracy']:.3f} ({row['train_seconds']:.3g} s, "
                    f"{row['inner_steps']} {unit})"
                )
        spectrum = next(row for row in json.loads(path.read_text())["value"] if row["accuracy"] is not None)
        mu = f"μ_min = {spectrum['mu_min']:.4g}, μ_max = {spectrum['mu_max']:.4g}"
        lines.append(f"- {name}, split {split} ({mu}): " + "; ".join(parts))
    return lines


def test_table4_notes_quote_the_full_splits():
    folder = RESULTS / "liu2019-table4"
    notes = (folder / "NOTES.md").read_text()
    stored = [json.loads(p.read_text()) for p in (folder / "cells").glob("*.json")]
    assert stored and all(not cell["quick"] for cell in stored)
    for line in full_split_lines(folder / "cells"):
        assert line in notes

"""Every number a docs/results/*/NOTES.md quotes with a marker agrees with the run's JSON (issue 15)."""

import json
from pathlib import Path

import numpy as np
import pytest

from krein.experiments._notes import (
    check_notes,
    evaluate,
    paper_cells,
    parse_notes,
    quoted_value,
    refresh_notes,
    rewritten_number,
)

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"
NOTES = sorted(RESULTS.glob("**/NOTES.md"))


@pytest.mark.parametrize("path", NOTES, ids=[str(p.parent.relative_to(RESULTS)) for p in NOTES])
def test_notes_numbers_agree_with_json(path):
    quotes, _ = parse_notes(path.read_text())
    if not quotes:
        pytest.skip(f"{path} quotes no number with a marker (see krein.experiments._notes)")
    assert check_notes(path) == []


def test_quoted_value_precision():
    assert quoted_value("0.0050") == pytest.approx((0.005, 5e-5))
    assert quoted_value("−7.8·10⁴") == pytest.approx((-7.8e4, 500.0))
    assert quoted_value("1e-6") == pytest.approx((1e-6, 0.5e-6))
    assert quoted_value("2261") == pytest.approx((2261.0, 0.5))
    assert quoted_value("1800") == pytest.approx((1800.0, 50.0))
    assert quoted_value("10⁴") == (1e4, 0.0)
    assert quoted_value("0") == pytest.approx((0.0, 0.5))
    with pytest.raises(ValueError, match="Cannot read"):
        quoted_value("1.2.3")


@pytest.fixture
def folder(tmp_path):
    data = {
        "provenance": {"seed": 0},
        "rows": [
            {"task": "pima", "n": 768, "ours": "25.66 (± 4.10)", "error": 0.2566},
            {"task": "wage", "n": 3000, "ours": "10.93 (± 2.13)", "error": 0.1093},
        ],
        "curve": {"PG-1": [1.0, 0.5, 0.25]},
    }
    (tmp_path / "run.json").write_text(json.dumps(data))
    return tmp_path


def test_evaluate_paths_selectors_and_arithmetic(folder):
    assert evaluate("run.json:rows[task=pima].error", folder) == 0.2566
    assert evaluate("rows[n=3000].ours.1", folder, "run.json") == 2.13
    assert evaluate("rows.1.error * 100", folder, "run.json") == pytest.approx(10.93)
    assert evaluate('mean(curve."PG-1") / (curve."PG-1".2 - 0.125)', folder, "run.json") == pytest.approx(
        (1.75 / 3) / 0.125
    )
    assert evaluate("max(run.json:rows.*.n) - min(run.json:rows.*.error)", folder) == pytest.approx(
        3000 - 0.1093
    )
    assert evaluate("sum(run.json:rows*[task=wage].n) + len(run.json:rows*[task=pima].error)", folder) == 3001
    (folder / "quick").mkdir()
    (folder / "quick" / "run.json").write_text(json.dumps({"rows": [{"error": 0.5}]}))
    assert evaluate("quick/run.json:rows.0.error * 2", folder) == 1.0
    assert evaluate("rows.0.error/quick/run.json:rows.0.error", folder, "run.json") == 0.2566 / 0.5
    assert evaluate('curve."PG-1".1/run.json:rows.0.error', folder, "run.json") == 0.5 / 0.2566
    with pytest.raises(ValueError):  # a folder name is a word: no way up out of the notes' folder
        evaluate("../run.json:rows.0.error", folder / "quick", "run.json")
    with pytest.raises(ValueError, match="matches 0 records"):
        evaluate("run.json:rows[task=heart].error", folder)
    with pytest.raises(ValueError, match="no key"):
        evaluate("run.json:rows.0.accuracy", folder)
    with pytest.raises(ValueError, match="is a list"):
        evaluate('run.json:curve."PG-1"', folder)


def test_check_notes_reports_a_wrong_number(folder):
    notes = folder / "NOTES.md"
    notes.write_text(
        "# run\n<!--json run.json -->\n"
        "Pima: 25.66<!--= rows[task=pima].ours.0 ~ 27.08 ± 4.61 --> (± 4.1<!--= rows[task=pima].ours.1 -->),\n"
        "wage 10.9 %<!--= rows[task=wage].error * 100 ~ 9.95 ± 0.50 -->.\n"
    )
    assert check_notes(notes) == []
    assert paper_cells(notes) == [(25.66, 27.08, 4.61), (pytest.approx(10.93), 9.95, 0.5)]
    notes.write_text(notes.read_text().replace("25.66<", "25.67<").replace("4.1<", "4.2<"))
    problems = check_notes(notes)
    assert len(problems) == 2
    assert "the notes say 25.67, the JSON gives 25.66" in problems[0]
    assert ":3:" in problems[1]


def test_check_notes_holds_counts_exact(folder):
    """An integer quoted for an integer value is exact ("of 3000" is not 2999), while a rounded
    integer of a fractional value keeps the tolerance of its significant digits."""
    notes = folder / "NOTES.md"
    notes.write_text(
        "<!--json run.json -->\nn = 3000<!--= rows[task=wage].n -->, 3000<!--= rows.1.n - 0.4 -->\n"
    )
    assert check_notes(notes) == []
    notes.write_text("<!--json run.json -->\nn = 3000<!--= rows[task=wage].n - 1 -->\n")
    assert "the notes say 3000, the JSON gives 2999" in check_notes(notes)[0]


def test_marker_without_number_is_an_error(folder):
    with pytest.raises(ValueError, match="does not follow a number"):
        parse_notes("the best<!--= rows.0.error --> method")
    with pytest.raises(ValueError, match="MEAN ± STD"):
        parse_notes("0.26<!--= rows.0.error ~ 0.3 -->")


def test_fidelity_table_is_current():
    from krein.experiments._fidelity import fidelity_markdown

    committed = (RESULTS / "fidelity.md").read_text()
    assert committed == fidelity_markdown(RESULTS), (
        "run `krein results --write` and commit docs/results/fidelity.md"
    )


def test_fidelity_rows_count_cells_and_read_the_form(folder):
    from krein.experiments._fidelity import fidelity_rows

    run = folder / "oglic2018-demo"
    run.mkdir()
    (run / "run.json").write_text((folder / "run.json").read_text().replace('"seed": 0', '"quick": true'))
    rows = [{"inside the paper's ± 1 std": "yes"}, {"inside the paper's ± 1 std": "no"}]
    (run / "demo-vs-paper.json").write_text(json.dumps({"comparison": {"counted": True}, "rows": rows}))
    # a comparison marked counted: false (a variant off the paper's protocol) and rows without the
    # comparison record are not counted, whatever their file names
    (run / "variant.json").write_text(json.dumps({"comparison": {"counted": False}, "rows": rows}))
    (run / "other-vs-paper.json").write_text(json.dumps({"rows": rows}))
    (run / "NOTES.md").write_text(
        "# demo\n<!--json run.json -->\n<!--fidelity\ndata: the paper's\nverdict: partly:\n  see below\n-->\n"
        "25.66<!--= rows[task=pima].ours.0 ~ 27.08 ± 1.00 --> and 10.93<!--= rows[task=wage].ours.0 ~ 10 ± 1 -->\n"
    )
    (row,) = fidelity_rows(folder)
    assert row["paper"] == "Oglic & Gärtner, ICML 2018"
    assert row["form"] == "quick"
    assert row["within ± 1 std / compared"] == "2 / 4"  # 10.93 and the vs-paper "yes"
    assert row["verdict"] == "partly: see below"
    assert row["data"] == "the paper's"


def test_krein_results_command_checks_and_writes(folder):
    from krein.cli import main

    run = folder / "demo"
    run.mkdir()
    (run / "run.json").write_text((folder / "run.json").read_text())
    (run / "NOTES.md").write_text("# demo\n<!--json run.json -->\n25.66<!--= rows[task=pima].ours.0 -->\n")
    assert main(["results", "--dir", str(folder), "--write"]) == 0
    assert "| demo |" in (folder / "fidelity.md").read_text()
    (run / "NOTES.md").write_text("# demo\n<!--json run.json -->\n25.7<!--= rows[task=pima].ours.1 -->\n")
    assert main(["results", "--dir", str(folder)]) == 1


def test_committed_notes_keep_the_fidelity_rules():
    """No NOTES.md calls a number the paper's that is not in its paper data, and every full form names
    its declared protocol changes in a 'differs:' line (issue 33)."""
    from krein.experiments._fidelity import fidelity_problems

    assert fidelity_problems(RESULTS) == []


def _register(monkeypatch, name, differs=()):
    from krein.experiments import _framework

    _framework.list_experiments()  # import the real ones first, so the demo is not overwritten
    demo = _framework.Experiment(name, lambda ctx: None, "demo", "Demo, Table 1", 1, 1, False, differs)
    monkeypatch.setitem(_framework._REGISTRY, name, demo)


def test_full_form_without_a_differs_line_is_reported(folder, monkeypatch):
    from krein.cli import main
    from krein.experiments._fidelity import fidelity_problems, fidelity_rows

    _register(monkeypatch, "liu2019-demo", differs=("CCICP step", "λ by CV on 1000 points"))
    run = folder / "liu2019-demo"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"provenance": {"quick": False}, "rows": []}))
    block = "<!--fidelity\ndata: the paper's\nverdict: partly\n{}-->\n"
    (run / "NOTES.md").write_text(block.format(""))
    (problem,) = fidelity_problems(folder)
    assert "CCICP step; λ by CV on 1000 points" in problem
    assert main(["results", "--dir", str(folder)]) == 1
    (run / "NOTES.md").write_text(block.format("differs: the CCICP step is krein's majorizer\n"))
    (problem,) = fidelity_problems(folder)
    assert "λ by CV on 1000 points" in problem and "CCICP step" not in problem
    text = "differs: CCICP step (majorizer);\n  λ by CV on 1000 points, not all\n"
    (run / "NOTES.md").write_text(block.format(text))
    assert fidelity_problems(folder) == []
    assert (
        fidelity_rows(folder)[0]["differs from the paper"]
        == "CCICP step (majorizer); λ by CV on 1000 points, not all"
    )
    (run / "NOTES.md").write_text(block.format(""))
    (run / "run.json").write_text(json.dumps({"provenance": {"quick": True}, "rows": []}))
    assert fidelity_problems(folder) == []  # a quick form is reduced by definition


def test_a_number_called_the_papers_must_be_in_its_paper_data(folder, monkeypatch):
    from krein.experiments._fidelity import fidelity_problems, said_paper_numbers

    _register(monkeypatch, "liu2019-demo")
    run = folder / "liu2019-demo"
    run.mkdir()
    (run / "run.json").write_text((folder / "run.json").read_text())
    versus = {"rows": [{"method": "GD", "ours": 0.9, "paper": 0.846, "paper std": 0.027}]}
    (run / "demo-vs-paper.json").write_text(json.dumps(versus))
    text = (
        "<!--json run.json -->\nGD 0.869 (paper 0.846 ± 0.027); the paper's −5.86·10⁵ and 9.99 ± 1.31.\n"
        "Ours 25.66<!--= rows[task=pima].ours.0 ~ 27.08 ± 1.00 --> (the paper 27.08 ± 1.00; we 10.50).\n"
        'With step="paper" 0.55 and the paper: 84.6, 2.5<!--= rows[task=pima].error * 10 -->.\n'
        "Below the paper's for every method, by 1.6 points.\n"
    )
    (run / "NOTES.md").write_text(text)
    said = said_paper_numbers(text)
    assert said == [(2, "0.846"), (2, "0.027"), (2, "−5.86·10⁵"), (2, "9.99"), (2, "1.31"), (3, "27.08"),
                    (3, "1.00"), (4, "84.6")]  # fmt: skip
    problems = fidelity_problems(folder)
    assert [p.split(": ", 1)[1].split(" is ")[0] for p in problems] == ["−5.86·10⁵", "9.99", "1.31"]
    (run / "spectra.json").write_text(json.dumps({"rows": [{"source": "paper", "min": -5.86e5}]}))
    assert len(fidelity_problems(folder)) == 2  # a row whose source is the paper is paper data


@pytest.mark.parametrize(
    ("text", "value", "expected"),
    [
        ("0.50", 0.4449, "0.44"),
        ("−7.8", -7.84, "−7.8"),
        ("-0.00", -0.001, "0.00"),
        ("45", 44.6, "45"),
        ("1300", 1273.0, "1300"),
        ("1300", 1351.0, "1400"),
        ("0", 0.4, "0"),
        ("1e-4", 0.000194, "2e-4"),
        ("2.5e-3", 0.00311, "3.1e-3"),
        ("7.8·10⁴", 1.0, None),
    ],
)
def test_rewritten_number_keeps_the_notation(text, value, expected):
    assert rewritten_number(text, value) == expected
    if expected is not None:  # what is written agrees with the value, as check_notes reads it
        number, tolerance = quoted_value(expected.replace("−", "-"))
        assert abs(number - value) <= tolerance * (1 + 1e-9)


def test_refresh_notes_rewrites_stale_numbers_and_lists_them(folder):
    notes = folder / "NOTES.md"
    notes.write_text(
        "<!--json run.json -->\nPima 25.70<!--= rows[task=pima].ours.0 ~ 27.08 ± 4.61 --> (paper 27.08),\n"
        "wage 10.9 %<!--= rows[task=wage].error * 100 -->, n = 3001<!--= rows[task=wage].n -->,\n"
        "broken 1.0<!--= rows[task=heart].error -->\n"
    )
    assert refresh_notes(notes) == [(2, "25.70", "25.66"), (3, "3001", "3000")]
    text = notes.read_text()
    assert "Pima 25.66<!--= rows[task=pima].ours.0 ~ 27.08 ± 4.61 --> (paper 27.08)" in text
    assert "wage 10.9 %<!--" in text and "n = 3000<!--" in text
    (problem,) = check_notes(notes)  # the marker that cannot be evaluated is left for the check
    assert "matches 0 records" in problem
    assert refresh_notes(notes) == []


def test_krein_results_refresh(folder, capsys):
    from krein.cli import main

    run = folder / "demo"
    run.mkdir()
    (run / "run.json").write_text((folder / "run.json").read_text())
    (run / "NOTES.md").write_text("# demo\n<!--json run.json -->\n25.7<!--= rows[task=pima].ours.1 -->\n")
    assert main(["results", "--dir", str(folder)]) == 1
    assert main(["results", "--dir", str(folder), "--refresh"]) == 0
    assert ":3: 25.7 → 4.1 (read the sentence again)" in " ".join(capsys.readouterr().out.split())
    assert "4.1<!--=" in (run / "NOTES.md").read_text()


# luss2009-figure1: the table of the notes is figure1_summary of the run's gaps.


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
    assert first["projected gradient, step 5/k (paper)"] == 74 and "iteration 74" in notes
    assert first["projected gradient, BB steps (krein default)"] == 19 and "1e-3 in 19 iterations" in notes
    assert np.all(figure1_summary(data["gaps"]["ACCPM"])["mean_log10"] > -3)

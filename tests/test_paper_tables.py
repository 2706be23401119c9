"""The papers' numbers as data (``krein/experiments/papers/*.json``) and the one comparison with them.

Every data file loads and is used by an experiment module; every comparison with a paper under
docs/results has the one schema and is what the experiments' comparison functions give from the stored
results beside it (``tests/paper_comparisons.py``), so a wrong number in a data file is caught.
"""

import dataclasses
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from paper_comparisons import BUILDERS, RESULTS

from krein.experiments import PaperTable, list_experiments, paper_table_names
from krein.experiments._papers import COLUMNS, INSIDE

ROOT = Path(__file__).resolve().parents[1]


def _committed(folder, stem):
    return json.loads((RESULTS / folder / f"{stem}.json").read_text())


def test_every_data_file_loads_with_its_source():
    names = paper_table_names()
    assert len(names) == 13
    for name in names:
        table = PaperTable.load(name)
        assert table.paper and table.item and table.caption and table.measure, name
        assert table.page is None or table.page > 0
        assert table.cells or table.tasks, name
        for cell in table.cells:  # every mean as the paper prints it
            assert round(cell["mean"], table.decimals) == cell["mean"], (name, cell)


def test_every_data_file_is_used_by_an_experiment_module():
    used = set()
    for experiment in list_experiments():
        module = sys.modules[experiment.run.__module__]
        used |= {v.name for v in vars(module).values() if isinstance(v, PaperTable)}
    assert used == set(paper_table_names())


def test_a_missing_table_or_cell_is_named():
    with pytest.raises(ValueError, match="No paper data named 'oglic2018-table9'; available: li2024-tables"):
        PaperTable.load("oglic2018-table9")
    table = PaperTable.load("liu2019-table6")
    with pytest.raises(KeyError, match="no cell \\('monk-1', 'CCICP-GD', 'α⁽⁰⁾ = 2'\\)"):
        table.cell("monk-1", "CCICP-GD", initialization="α⁽⁰⁾ = 2")
    with pytest.raises(TypeError, match="a cell is named by task, method and \\('initialization',\\)"):
        table.cell("monk-1", "CCICP-GD")
    with pytest.raises(KeyError, match="has no task 'heart'"):
        PaperTable.load("liu2019-table5").task("heart")


def test_compare_rounds_ours_to_the_papers_decimals():
    table = PaperTable.load("oglic2018-table2")  # coilyork KREIN: 22.56 ± 7.66
    row = table.compare("coilyork", "KREIN", 30.224, 1.0)
    assert list(row) == list(COLUMNS)
    assert (row["ours mean"], row["difference"], row[INSIDE]) == (30.22, 7.66, "yes")  # |Δ| = std: inside
    assert table.compare("coilyork", "KREIN", 30.226)[INSIDE] == "no"  # 30.23: one hundredth out
    assert table.compare("coilyork", "KREIN", None) | {"task": 0} == {
        "task": 0,
        "method": "KREIN",
        "ours mean": None,
        "ours std": None,
        "paper mean": 22.56,
        "paper std": 7.66,
        "difference": None,
        INSIDE: "no",
    }
    with pytest.raises(ValueError, match="gives the std of coilyork/KREIN"):
        table.compare("coilyork", "KREIN", 20.0, paper_std=1.0)
    # a cell without a std: the file's tolerance (Table VI's single runs), else the spread passed
    single = PaperTable.load("liu2019-table6")  # monk-1, CCICP-GD, α⁽⁰⁾ = 0: 0.694, one run
    near = single.compare("monk-1", "CCICP-GD", 0.6994, initialization="α⁽⁰⁾ = 0")
    assert (near["paper std"], near["difference"], near[INSIDE]) == (None, 0.005, "yes")
    luss = PaperTable.load("luss2009-table2")
    with pytest.raises(ValueError, match="no std for USPS-3-5-SS/SVM and no tolerance_without_std"):
        luss.compare("USPS-3-5-SS", "SVM", 70.0, measure="accuracy")
    assert luss.compare("USPS-3-5-SS", "SVM", 70.0, paper_std=1.2, measure="accuracy")["paper std"] == 1.2


def test_comparison_reports_in_the_one_schema(tmp_path):
    from krein.experiments import RunContext

    table = PaperTable.load("liu2019-table3")
    rows = [table.compare_scores("heart", m, [0.80, 0.82]) for m in ("KLR(RBF)", "Flip")]
    comparison = table.comparison(rows, "demo", note="one note")
    assert comparison.caption() == "demo: 2 of 2 cells inside the paper's mean ± 1 std; one note"
    assert rows[0]["ours std"] == round(0.02**0.5 * 0.1, 3)  # ddof=1
    RunContext(quick=True, out=tmp_path, show_progress=False).report(comparison, "demo-vs-paper")
    stored = json.loads((tmp_path / "demo-vs-paper.json").read_text())
    assert stored["comparison"]["columns"] == list(COLUMNS)
    assert stored["comparison"]["data"] == "papers/liu2019-table3.json" and stored["comparison"]["counted"]
    assert stored["rows"] == rows
    markdown = (tmp_path / "demo-vs-paper.md").read_text()
    assert "| heart | KLR(RBF) | 0.810 | 0.014 | 0.816 | 0.044 | -0.006 | yes |" in markdown
    assert "(krein/experiments/papers/liu2019-table3.json)" in markdown


def _comparison_files():
    """Every JSON under docs/results that sets ours beside a paper's cells (cells excluded)."""
    found = set()
    for path in RESULTS.rglob("*.json"):
        if "cells" in path.relative_to(RESULTS).parts:
            continue
        stored = json.loads(path.read_text())
        rows = stored.get("rows") if isinstance(stored.get("rows"), list) else []
        if "comparison" in stored or any(isinstance(r, dict) and INSIDE in r for r in rows):
            found.add((str(path.parent.relative_to(RESULTS)), path.stem))
    return found


def test_every_committed_comparison_has_the_one_schema():
    expected = {(folder, stem) for folder, stems in BUILDERS.items() for stem in stems}
    assert _comparison_files() == expected
    for folder, stem in expected:
        stored = _committed(folder, stem)
        columns = stored["comparison"]["columns"]
        assert columns[:2] == list(COLUMNS[:2]) and columns[-6:] == list(COLUMNS[2:])
        for row in stored["rows"]:
            assert list(row)[: len(columns)] == columns, (folder, stem)
            assert row[INSIDE] in ("yes", "no")


@pytest.mark.parametrize("folder, stem", sorted((f, s) for f, stems in BUILDERS.items() for s in stems))
def test_committed_comparison_is_regenerated_from_the_stored_results(folder, stem):
    """The rows, the title and the source of each comparison follow from the results JSON beside it
    and the data file: a number changed in either would fail here."""
    comparison = BUILDERS[folder][stem](RESULTS / folder)
    stored = _committed(folder, stem)
    regenerated = json.loads(json.dumps(comparison.to_json()))
    assert stored["rows"] == regenerated["rows"]
    assert {k: stored[k] for k in ("title", "comparison")} == {
        k: regenerated[k] for k in ("title", "comparison")
    }


def test_a_wrong_paper_number_is_caught(monkeypatch):
    """A mistyped number in a data file changes the regenerated comparison (and so fails the test above):
    Liu et al.'s Table V has KSVM at 97.8 ± 0.3; typed as 97.3 the comparison's paper column moves."""
    from krein.experiments import liu2019

    folder, stem = "liu2019-table5", "table5-vs-paper"
    table = liu2019.PAPER_TABLE5
    cells = [dict(c, mean=97.3) if c["method"] == "KSVM" else c for c in table.cells]
    monkeypatch.setattr(liu2019, "PAPER_TABLE5", dataclasses.replace(table, cells=cells))
    rows = json.loads(json.dumps(BUILDERS[folder][stem](RESULTS / folder).to_json()))["rows"]
    [(ours, committed)] = [
        (r, c) for r, c in zip(rows, _committed(folder, stem)["rows"], strict=True) if r != c
    ]
    assert (ours["method"], ours["paper mean"], committed["paper mean"]) == ("KSVM", 97.3, 97.8)


@pytest.mark.slow
def test_the_wheel_ships_the_data_files(tmp_path):
    """``pip wheel`` (hatchling) puts every data file into the wheel, beside the experiment modules, and
    the ``py.typed`` marker (PEP 561: type checkers read krein's annotations)."""
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    if built.returncode != 0:
        pytest.skip(f"cannot build the wheel here (no build backend?): {built.stderr[-300:]}")
    [wheel] = tmp_path.glob("krein-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "krein/py.typed" in names
    shipped = {n for n in names if n.startswith("krein/experiments/papers/")}
    assert shipped == {f"krein/experiments/papers/{name}.json" for name in paper_table_names()}
    from krein.datasets._registry import get_info
    from krein.datasets._registry import names as dataset_names

    files = {get_info(name).file for name in dataset_names()} - {"sklearn"}
    assert {"covid3month", "cardanosentiment"} <= files
    assert {f"krein/datasets/data/{stem}.npz" for stem in files} <= set(names)


def test_krein_results_finds_a_comparison_that_disagrees_with_its_data_file(tmp_path, monkeypatch):
    """``krein results`` (:func:`fidelity_problems`) holds each stored comparison to the data file it
    names: a paper number typed wrong on either side, or a verdict that does not follow, is reported."""
    import shutil

    from krein.experiments import _fidelity

    folder = tmp_path / "liu2019-table5"
    shutil.copytree(RESULTS / "liu2019-table5", folder, ignore=shutil.ignore_patterns("cells"))
    path = folder / "table5-vs-paper.json"
    committed = path.read_text()
    assert _fidelity._comparison_problems(folder) == []

    def edited(method, **changes):
        stored = json.loads(committed)
        stored["rows"] = [dict(r, **changes) if r["method"] == method else r for r in stored["rows"]]
        path.write_text(json.dumps(stored))
        return _fidelity._comparison_problems(folder)

    [problem] = edited("KSVM", **{"paper mean": 97.3})
    assert problem.endswith("yaleb/KSVM: paper mean 97.3, the data file has 97.8")
    [problem] = edited("Clip", **{INSIDE: "yes"})  # 71.2 against 95.6 ± 2.9
    assert (
        "yaleb/Clip: difference -24.4 and 'yes' do not follow from ours 71.2 and the paper's 95.6" in problem
    )
    # the data file typed wrong: every stored comparison with that cell disagrees, krein results fails
    path.write_text(committed)
    table = PaperTable.load("liu2019-table5")
    wrong = dataclasses.replace(
        table, cells=[dict(c, std=0.5) if c["method"] == "KSVM" else c for c in table.cells]
    )
    monkeypatch.setattr(_fidelity.PaperTable, "load", classmethod(lambda cls, name: wrong))
    problems = _fidelity.fidelity_problems(tmp_path)
    assert [p.split(": ", 1)[1] for p in problems] == ["yaleb/KSVM: paper std 0.3, the data file has 0.5"]

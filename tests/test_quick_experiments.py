"""Every experiment of ``krein reproduce --list`` runs in some test, so that none rots.

The owners of the paper experiments run theirs (in a small form) in ``tests/test_<paper>_experiments.py``;
an experiment counts as covered by another test file when that file names it in quotes and runs an
experiment (it builds a ``RunContext`` or calls the ``krein reproduce`` command). Every experiment no
other file covers is run here in its ``--quick`` form.
"""

import re
from pathlib import Path

import pytest

from krein.cli import main
from krein.experiments import RunContext, list_experiments

TESTS = Path(__file__).resolve().parent
RUNS_AN_EXPERIMENT = re.compile(r"RunContext\(|[\"']reproduce[\"']")


def covered_elsewhere():
    """Names of the experiments run by test files other than this one."""
    names = {e.name for e in list_experiments()}
    covered = set()
    for path in TESTS.rglob("test_*.py"):
        if path.name == Path(__file__).name:
            continue
        text = path.read_text(encoding="utf-8")
        if RUNS_AN_EXPERIMENT.search(text):
            covered |= {name for name in names if f'"{name}"' in text or f"'{name}'" in text}
    return covered


UNCOVERED = sorted({e.name for e in list_experiments()} - covered_elsewhere())


def test_the_coverage_scan_sees_known_tests():
    """The scan finds the experiments this file knows other tests run (guards the scan itself)."""
    covered = covered_elsewhere()
    assert "spectra" in covered  # tests/test_experiments_framework.py and tests/test_cli.py run it
    assert "showcase" in covered  # tests/test_showcase.py (through run_showcase and RunContext)


def test_every_experiment_has_a_quick_form_and_a_test():
    experiments = list_experiments()
    assert experiments, "no experiment registered"
    for e in experiments:
        assert 0 < e.quick_minutes <= e.full_minutes, e.name
        assert e.description and e.paper, e.name
    tested_here = set(UNCOVERED)
    assert {e.name for e in experiments} == covered_elsewhere() | tested_here


@pytest.mark.slow
@pytest.mark.parametrize("name", UNCOVERED or [pytest.param(None, marks=pytest.mark.skip("all covered"))])
def test_uncovered_experiment_runs_quick(name, tmp_path):
    from krein.experiments import get_experiment

    ctx = RunContext(quick=True, out=tmp_path, show_progress=False)
    get_experiment(name).run(ctx)
    assert ctx.written, f"{name} wrote no result file"
    assert all(path.is_file() and path.stat().st_size > 0 for path in ctx.written)


def test_reproduce_list_names_every_experiment(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")  # rich would shorten long names to fit 80 columns
    assert main(["reproduce", "--list"]) == 0
    printed = capsys.readouterr().out
    for e in list_experiments():
        assert e.name in printed

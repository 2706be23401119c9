"""The experiment framework: registry, result tables with Welch tests, written files."""

import json

import numpy as np
import pytest
from scipy import stats

from krein.experiments import ResultTable, RunContext, get_experiment, list_experiments


def make_table():
    table = ResultTable("demo", "error (%)", lower_is_better=True)
    table.add("task", "good", [1.0, 1.2, 0.9, 1.1], fit_seconds=[0.1] * 4)
    table.add("task", "tie", [1.1, 1.0, 1.3, 0.8], fit_seconds=[0.2] * 4)
    table.add("task", "bad", [5.0, 5.5, 4.8, 5.2], fit_seconds=[0.3] * 4)
    table.set_task_info("task", n=40, iota=0.25)
    return table


def test_summary_marks_by_welch_test():
    rows = {r["method"]: r for r in make_table().summary()}
    assert rows["good"]["best"] and rows["good"]["mean"] == pytest.approx(1.05)
    expected = stats.ttest_ind([5.0, 5.5, 4.8, 5.2], [1.0, 1.2, 0.9, 1.1], equal_var=False).pvalue
    assert rows["bad"]["p_value_vs_best"] == pytest.approx(expected)
    assert not rows["bad"]["not_worse_than_best"]
    assert rows["tie"]["not_worse_than_best"]
    assert rows["good"]["std"] == pytest.approx(np.std([1.0, 1.2, 0.9, 1.1], ddof=1))


def test_higher_is_better_picks_the_maximum():
    table = ResultTable("acc", "accuracy", lower_is_better=False)
    table.add("t", "a", [0.9, 0.91, 0.92])
    table.add("t", "b", [0.5, 0.52, 0.51])
    best = [r["method"] for r in table.summary() if r["best"]]
    assert best == ["a"]


def test_markdown_bolds_and_reports_times():
    markdown = make_table().to_markdown()
    assert "| task | n | iota | good | tie | bad |" in markdown
    assert "**1.05 (± 0.13)**" in markdown and "| 5.125 (± 0.3) |" in markdown
    assert "Total fit time (s): good 0.4, tie 0.8, bad 1.2" in markdown


def test_report_writes_files_with_provenance(tmp_path):
    context = RunContext(quick=True, out=tmp_path, random_state=7, show_progress=False)
    context.report(make_table(), "demo")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.csv", "demo.json", "demo.md"]
    data = json.loads((tmp_path / "demo.json").read_text())
    assert data["provenance"]["seed"] == 7 and "numpy" in data["provenance"]
    assert len(data["scores"]) == 3
    assert (tmp_path / "demo.csv").read_text().startswith("# seed: 7")
    context.report_rows([{"a": 1, "b": 2.5}], "rows", "plain")
    assert "| 1 | 2.5 |" in (tmp_path / "rows.md").read_text()


def test_registry():
    names = [e.name for e in list_experiments()]
    assert "spectra" in names and names == sorted(names)
    with pytest.raises(ValueError, match="Unknown experiment"):
        get_experiment("no-such-experiment")


@pytest.mark.parametrize("quick_form", ["spectra"], indirect=True)
def test_spectra_quick_form(quick_form):
    """One row per data set and Appendix D kernel; ι is 0 without a negative eigenvalue and at least
    |λ_min| / (n max |λ|) with one."""
    from krein.datasets import load_dataset
    from krein.experiments.spectra import DATASETS
    from krein.kernels import APPENDIX_D_KERNELS

    rows = json.loads((quick_form.out / "spectra.json").read_text())["rows"]
    by_kernel = {(r["dataset"], r["kernel"]): r for r in rows}
    assert list(by_kernel) == [(name, kernel) for name in DATASETS[:3] for kernel in APPENDIX_D_KERNELS]
    assert by_kernel[("haberman", "GAUSS")]["indefiniteness"] < 1e-10
    assert by_kernel[("haberman", "DELTA-GAUSS")]["indefiniteness"] > 0.1
    for r in rows:
        n, low, high, iota = r["n"], r["min_eigenvalue"], r["max_eigenvalue"], r["indefiniteness"]
        assert n == min(300, load_dataset(r["dataset"]).target.size)
        assert low <= high and r["n_positive"] + r["n_negative"] <= n and 0 <= iota <= 1
        assert iota == 0 if low >= 0 else iota >= -low / (n * max(-low, high)), r


def test_cells_are_stored_and_resumed(tmp_path):
    calls = []

    def compute():
        calls.append(1)
        return [0.25, np.float64(3.5)]

    first = RunContext(quick=False, out=tmp_path, random_state=3, show_progress=False)
    assert first.cell("haberman-GAUSS-fold0", compute) == [0.25, 3.5]
    stored = json.loads((tmp_path / "cells" / "haberman-GAUSS-fold0.json").read_text())
    assert stored["value"] == [0.25, 3.5] and stored["seed"] == 3 and not stored["quick"]
    # Without --resume the cell is recomputed; with it, it is read back.
    first.cell("haberman-GAUSS-fold0", compute)
    resumed = RunContext(quick=False, out=tmp_path, random_state=3, show_progress=False, resume=True)
    assert resumed.cell("haberman-GAUSS-fold0", compute) == [0.25, 3.5]
    assert len(calls) == 2
    with pytest.raises(ValueError, match="cell key"):
        first.cell("a/b", compute)


def test_a_cell_read_back_advances_the_progress_it_would_have_made(tmp_path):
    steps = []

    def compute(advance):
        for _ in range(3):
            advance()
        return 1.0

    for resume in (False, True):  # computed: three steps from compute; read back: three at once
        ctx = RunContext(quick=True, out=tmp_path, show_progress=False, resume=resume)
        steps.clear()
        ctx.cell("key", lambda: compute(lambda n=1: steps.append(n)), advance=steps.append, units=3)
        assert sum(steps) == 3 and len(steps) == (1 if resume else 3)


def test_select_restricts_tasks_and_names_unknown_ones(tmp_path):
    ctx = RunContext(quick=True, out=tmp_path, show_progress=False, only=["wage", "haberman"])
    assert ctx.select(("haberman", "ionosphere", "wage")) == ("haberman", "wage")
    assert RunContext(quick=True, out=tmp_path).select(("a", "b")) == ("a", "b")
    with pytest.raises(ValueError, match="Unknown task.*nope"):
        RunContext(quick=True, out=tmp_path, only=["nope"]).select(("a", "b"))


def test_progress_prints_plain_lines_off_a_terminal(tmp_path):
    import io

    from rich.console import Console

    buffer = io.StringIO()
    ctx = RunContext(quick=True, out=tmp_path, console=Console(file=buffer, force_terminal=False))
    with ctx.progress(3, "demo") as advance:
        for _ in range(3):
            advance()
    assert "demo: 3/3" in buffer.getvalue() and "min left" in buffer.getvalue()


@pytest.mark.parametrize("damage", ["truncated", "not a record", "empty"])
def test_a_damaged_cell_is_reported_by_path_and_recomputed(tmp_path, damage):
    from io import StringIO

    from rich.console import Console

    first = RunContext(quick=True, out=tmp_path, show_progress=False)
    first.cell("k", lambda: [1.0, 2.0])
    path = tmp_path / "cells" / "k.json"
    text = path.read_text()
    path.write_text({"truncated": text[: len(text) // 2], "not a record": "[1, 2]", "empty": ""}[damage])
    log = StringIO()
    console = Console(file=log, width=400)
    resumed = RunContext(quick=True, out=tmp_path, show_progress=False, resume=True, console=console)
    assert resumed.cell("k", lambda: [3.0]) == [3.0]  # recomputed, never a bare JSONDecodeError
    assert str(path) in log.getvalue() and "recomputing" in log.getvalue()
    assert json.loads(path.read_text())["value"] == [3.0]


def test_writers_use_unique_temporary_names(tmp_path, monkeypatch):
    """Two runs into one folder must not share a temporary file (the old ``<key>.partial`` was shared,
    so one writer could rename the other's torn cell into place)."""
    from krein.experiments import _framework

    names = []
    original = _framework._temporary_name

    def recording_temporary_name(path):
        name = original(path)
        names.append(name.name)
        return name

    monkeypatch.setattr(_framework, "_temporary_name", recording_temporary_name)
    ctx = RunContext(quick=True, out=tmp_path, show_progress=False)
    for _ in range(2):
        ctx.cell("k", lambda: 1.0)
    ctx.write_json({"a": 1}, "extra")
    temporary = [name for name in names if name.endswith(".partial") and "write-check" not in name]
    assert len(temporary) == 3 and len(set(temporary)) == 3
    assert all(str(_framework.os.getpid()) in name for name in temporary)
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["extra.json", "k.json"]


def test_out_is_checked_before_any_work(tmp_path):
    a_file = tmp_path / "results.txt"
    a_file.write_text("not a folder")
    for out in (a_file, a_file / "sub"):
        with pytest.raises(ValueError, match="is a file, not a folder"):
            RunContext(quick=True, out=out, show_progress=False)


def test_an_unwritable_out_is_refused_before_any_work(tmp_path, monkeypatch, capsys):
    """(Simulated: the tests may run as root, for whom permissions do not bite.)"""
    from pathlib import Path

    from krein.cli import main

    def refuse(self, data):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "write_bytes", refuse)
    with pytest.raises(PermissionError, match="cannot create or write the folder .*writable output folder"):
        RunContext(quick=True, out=tmp_path / "out", show_progress=False)
    assert main(["reproduce", "spectra", "--quick", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--out" in err and "Permission denied" in err


def test_a_wide_table_prints_in_80_columns_without_truncating_a_cell():
    from rich.console import Console

    from krein.experiments._framework import print_table

    table = ResultTable("wide", "error")
    methods = ["KREIN", "FLIP", "CLIP", "SHIFT", "SQUARE", "OMCS-KREIN", "A-VERY-LONG-METHOD-NAME"]
    for task in ("GAUSS (n = 100)", "SIGMOID [n = 500]"):
        for k, method in enumerate(methods):
            table.add(task, method, [10.0 + k, 12.5 + k, 11.25 + k])
    console = Console(width=80, record=True, color_system=None)
    print_table(console, *table.to_rows())
    text = console.export_text()
    assert max(len(line.rstrip()) for line in text.splitlines()) <= 80
    assert "…" not in text
    _, _, rows, _ = table.to_rows()
    for row in rows:
        for cell in row:
            assert cell.replace("**", "") in text


def _resumed(tmp_path, **options):
    from io import StringIO

    from rich.console import Console

    log = StringIO()
    settings = {"quick": True, "random_state": 0, "experiment": "demo"} | options
    ctx = RunContext(
        out=tmp_path, show_progress=False, resume=True, console=Console(file=log, width=400), **settings
    )
    return ctx, log


@pytest.mark.parametrize(
    ("change", "reported"),
    [
        ({"random_state": 4}, "seed 0 (this run: 4)"),
        ({"quick": False}, "quick True (this run: False)"),
        ({"experiment": "other"}, "experiment 'demo' (this run: 'other')"),
        ({}, None),
    ],
)
def test_a_foreign_cell_is_reported_in_one_line_and_recomputed(tmp_path, change, reported):
    """Issue 42: a cell of another seed stopped the run, and one of another experiment was reused."""
    first = RunContext(quick=True, out=tmp_path, show_progress=False, experiment="demo")
    first.cell("k", lambda: [1.0, 2.0])
    stored = json.loads((tmp_path / "cells" / "k.json").read_text())
    assert {k: stored[k] for k in ("format", "experiment", "key", "seed", "quick")} == {
        "format": 2,
        "experiment": "demo",
        "key": "k",
        "seed": 0,
        "quick": True,
    }
    ctx, log = _resumed(tmp_path, **change)
    expected = [1.0, 2.0] if reported is None else [3.0]
    assert ctx.cell("k", lambda: [3.0]) == expected
    lines = log.getvalue().strip().splitlines()
    if reported is None:
        assert lines == []
    else:
        assert len(lines) == 1 and str(tmp_path / "cells" / "k.json") in lines[0]
        assert "foreign" in lines[0] and reported in lines[0] and "recomputing" in lines[0]


@pytest.mark.parametrize("damage", ["no identity", "old format", "edited value", "another key"])
def test_a_cell_without_identity_or_edited_is_recomputed(tmp_path, damage):
    first = RunContext(quick=True, out=tmp_path, show_progress=False, experiment="demo")
    first.cell("k", lambda: [1.0, 2.0])
    path = tmp_path / "cells" / "k.json"
    stored = json.loads(path.read_text())
    if damage == "no identity":  # what krein wrote before issue 42
        stored = {"seed": 0, "quick": True, "value": [1.0, 2.0]}
    elif damage == "old format":
        stored["format"] = 1
    elif damage == "edited value":
        stored["value"] = [1.0, 2.5]
    else:  # a cell copied under another name
        stored["key"] = "j"
    path.write_text(json.dumps(stored))
    ctx, log = _resumed(tmp_path)
    assert ctx.cell("k", lambda: [3.0]) == [3.0]
    line = log.getvalue().strip()
    assert "\n" not in line and str(path) in line and "recomputing" in line
    assert ("edited" if damage == "edited value" else "foreign") in line
    assert json.loads(path.read_text())["value"] == [3.0]


def test_a_stop_signal_during_a_write_leaves_the_file_whole(tmp_path, monkeypatch):
    """Issue 42: SIGTERM or SIGINT while a result is written is held until the file is whole and the
    temporary one is gone, then raised (SIGTERM as ``Terminated``, a ``KeyboardInterrupt``)."""
    import os
    import signal

    from krein._interrupt import Terminated, install_stop_handlers, restore_handlers
    from krein.experiments import _framework, write_atomic

    fsync = os.fsync

    for signum, raised in ((signal.SIGTERM, Terminated), (signal.SIGINT, KeyboardInterrupt)):

        def fsync_then_signal(descriptor, signum=signum):
            os.kill(os.getpid(), signum)  # the signal arrives in the middle of the write
            return fsync(descriptor)

        monkeypatch.setattr(_framework.os, "fsync", fsync_then_signal)
        previous = install_stop_handlers()
        try:
            with pytest.raises(raised):
                write_atomic(tmp_path / "r.json", json.dumps({"a": list(range(1000))}))
        finally:
            restore_handlers(previous)
            monkeypatch.setattr(_framework.os, "fsync", fsync)
        assert json.loads((tmp_path / "r.json").read_text()) == {"a": list(range(1000))}
        assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_a_second_run_into_a_folder_is_refused_and_a_stale_lock_taken_over(tmp_path):
    import os
    import subprocess
    import sys

    from krein.experiments import output_lock

    lock = tmp_path / ".krein-run.lock"
    lock.write_text(f"{os.getppid()}\n")  # a live process holds the folder
    with pytest.raises(BlockingIOError, match=f"process {os.getppid()}") as error:
        with output_lock(tmp_path):
            pass
    assert str(tmp_path) in str(error.value) and "\n" not in str(error.value)
    assert lock.read_text() == f"{os.getppid()}\n"
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True)
    lock.write_text(gone.stdout.decode())  # its process has ended: stale
    with output_lock(tmp_path):
        assert lock.read_text() == f"{os.getpid()}\n"
    assert not lock.exists()

"""The showcase (``krein reproduce --quick`` with no name) in a tiny form: its table, files and invariants."""

import json

import numpy as np
import pytest
from rich.console import Console

from krein.cli import SHOWCASE
from krein.experiments import RunContext, get_experiment
from krein.experiments.showcase import METHODS, TASKS, Task, console_table, load_task, run_showcase
from krein.spectral import indefiniteness

TINY_TASKS = (Task("heart / SIGMOID", "heart", "SIGMOID"), Task("gunpoint / DTW", "gunpoint", "dtw"))
TINY_METHODS = tuple(m for m in METHODS if m.name in {"Kreĭn LS", "KreinSVC", "flip+SVC", "SVC (RBF)"})


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("showcase")
    ctx = RunContext(quick=True, out=out, show_progress=False, console=Console(record=True, width=120))
    table = run_showcase(ctx, tasks=TINY_TASKS, methods=TINY_METHODS, max_samples=90, n_splits=3)
    return table, out, ctx


def test_showcase_is_the_default_experiment():
    assert SHOWCASE == "showcase"
    experiment = get_experiment(SHOWCASE)
    assert experiment.quick_minutes <= 5


@pytest.mark.slow
def test_every_method_is_scored_on_every_task(tiny_run):
    table, _, _ = tiny_run
    assert table.tasks == [t.name for t in TINY_TASKS]
    assert table.methods == [m.name for m in TINY_METHODS]
    for task in table.tasks:
        for method in table.methods:
            cell = table.cells[(task, method)]
            assert len(cell.values) == 3 and len(cell.fit_seconds) == 3
            assert all(0.0 <= v <= 100.0 for v in cell.values)
            assert all(s > 0 for s in cell.fit_seconds)
    # a 3-fold error is a multiple of 100 / test-fold size: 30 test objects per fold here
    values = np.concatenate([c.values for c in table.cells.values()])
    np.testing.assert_allclose(values * 30 / 100, np.round(values * 30 / 100), atol=1e-9)


@pytest.mark.slow
def test_proposition_3_krein_svc_equals_flip_pipeline(tiny_run):
    """KreinSVC is SVC on the flip-spectrum kernel with the out-of-sample map (Prop. 3, Oglic & Gärtner
    2019); the flip+SVC pipeline is the same model, so the two columns agree fold by fold."""
    table, _, _ = tiny_run
    for task in table.tasks:
        np.testing.assert_allclose(
            table.cells[(task, "KreinSVC")].values, table.cells[(task, "flip+SVC")].values, atol=1e-12
        )


@pytest.mark.slow
def test_task_info_is_the_spectrum_of_the_task_kernel(tiny_run):
    table, _, _ = tiny_run
    for task in TINY_TASKS:
        data = load_task(task, max_samples=90, seed=0)
        info = table.task_info[task.name]
        assert info["n"] == 90
        assert info["iota"] == pytest.approx(indefiniteness(np.linalg.eigvalsh(data.kernel)), rel=1e-9)
        assert 0.0 < info["iota"] < 0.5  # both kernels are indefinite


@pytest.mark.slow
def test_files_and_console_table(tiny_run):
    table, out, ctx = tiny_run
    for suffix in ("md", "csv", "json"):
        assert (out / f"showcase.{suffix}").is_file()
    saved = json.loads((out / "showcase.json").read_text())
    assert saved["provenance"]["seed"] == 0
    stored = {(s["task"], s["method"]): s["values"] for s in saved["scores"]}
    assert stored == {key: cell.values for key, cell in table.cells.items()}
    assert sorted(p.name for p in out.glob("*.png")) == [
        "showcase_gunpoint_dtw.png",
        "showcase_heart_sigmoid.png",
    ]
    setup = json.loads((out / "showcase_setup.json").read_text())
    assert set(setup["kernels"]) == set(table.tasks)
    markdown = (out / "showcase.md").read_text()
    assert markdown.count("**") >= 2 * len(table.tasks)  # at least the best of each task is bold
    printed = ctx.console.export_text()
    for method in table.methods:
        assert method in printed
    assert "ι = " in printed and "fit (s)" in printed
    assert f"{out / 'showcase'}_heart_sigmoid.png" in printed  # where the figures went


@pytest.mark.slow
def test_console_table_marks_the_best_in_bold(tiny_run):
    table, _, _ = tiny_run
    console = Console(record=True, width=150)
    console.print(console_table(table))
    styled = console.export_text(styles=True)
    best = {r["task"]: r for r in table.summary() if r["best"]}
    for row in best.values():
        assert f"{row['mean']:.1f}" in styled
    assert "\x1b[1" in styled  # bold


@pytest.mark.slow
def test_console_table_fits_80_columns_with_every_number(tiny_run):
    """The main job read at 80 columns: no line wider, nothing cut ("…"), every method name and every
    mean error visible in its row, every task named in the caption."""
    table, _, _ = tiny_run
    wide = [Task(f"{t.name} #{i}", t.dataset, t.similarity) for i in range(2) for t in TINY_TASKS]
    for copy in wide:  # six tasks and eleven methods, as in the showcase
        for method in table.methods:
            cell = table.cells[(copy.name.rsplit(" #", 1)[0], method)]
            table.add(copy.name, method, cell.values, cell.fit_seconds)
        table.set_task_info(copy.name, **table.task_info[copy.name.rsplit(" #", 1)[0]])
    for name in [m.name for m in METHODS if m.name not in table.methods]:
        for task in table.tasks:
            table.add(task, name, [12.5, 100.0 / 3], [1.0, 1.0])
    console = Console(record=True, width=80)
    console.print(console_table(table))
    printed = console.export_text()
    assert max(len(line) for line in printed.splitlines()) <= 80
    assert "…" not in printed
    rows = {line.split("│")[1].strip(): line for line in printed.splitlines() if line.count("│") > 3}
    summary = {(r["task"], r["method"]): r for r in table.summary()}
    for method in table.methods:
        for task in table.tasks:
            assert f"{summary[(task, method)]['mean']:.1f}" in rows[method]
    for task in table.tasks:
        assert task in printed


@pytest.mark.parametrize("task", TASKS, ids=[t.name for t in TASKS])
def test_load_task_scales_and_stratifies(task):
    data = load_task(task, max_samples=60, seed=0)
    assert data.matrix.shape == (60, 60) and data.features.shape[0] == 60 and data.y.shape == (60,)
    np.testing.assert_array_equal(data.matrix, data.matrix.T)
    if data.is_dissimilarity:
        off_diagonal = data.matrix[np.triu_indices(60, k=1)]
        assert np.median(off_diagonal) == pytest.approx(1.0)
        assert np.all(np.diag(data.matrix) == 0)
    else:
        assert np.abs(data.matrix).max() == pytest.approx(1.0)
    # stratified: class shares within one object of the full data set's
    from krein.datasets import load_dataset

    y_all = np.asarray(load_dataset(task.dataset).target)
    for label in np.unique(y_all):
        assert abs(np.sum(data.y == label) - 60 * np.mean(y_all == label)) <= 1.0

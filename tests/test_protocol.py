"""The experiment protocol helper: forms, stored cells, outer splits and the inner grid search."""

import dataclasses
import io
import json

import numpy as np
import pytest
from rich.console import Console
from sklearn.linear_model import RidgeClassifier
from sklearn.model_selection import StratifiedKFold, StratifiedShuffleSplit

from krein.experiments import RunContext
from krein.experiments._path_search import PathGridSearchCV
from krein.experiments._protocol import Forms, grid_search, outer_splits, run_cells

#: A toy experiment: ridge classifiers on two synthetic tasks, tuned on inner folds, scored on splits.
TOY = Forms(tasks=(("a",), ("a", "b")), repetitions=(2, 4), alphas=((1.0,), (0.1, 1.0, 10.0)))


def _toy_data(task):
    rng = np.random.default_rng(0 if task == "a" else 1)
    X = rng.normal(size=(60, 3))
    return X, (X[:, 0] + 0.3 * rng.normal(size=60) > 0).astype(int)


def _toy_score(task, split, repetitions, alphas, calls):
    """Test accuracy of the tuned ridge classifier on one outer split of one task."""
    calls.append((task, split))
    X, y = _toy_data(task)
    train, test = outer_splits(y, repetitions, random_state=0, test_size=0.5)[split]
    inner = StratifiedKFold(3, shuffle=True, random_state=split)
    search = grid_search(RidgeClassifier(), {"alpha": list(alphas)}, cv=inner, scoring="accuracy")
    return {"accuracy": search.fit(X[train], y[train]).score(X[test], y[test])}


def _run_toy(ctx, calls):
    settings = TOY.of(ctx)
    return run_cells(
        ctx,
        [(task, split) for task in settings.tasks for split in range(settings.repetitions)],
        lambda task, split: _toy_score(task, split, settings.repetitions, settings.alphas, calls),
        key=lambda task, split: f"{task}--{split}",
        description="toy",
    )


def _context(tmp_path, quick=False, resume=False):
    console = Console(file=io.StringIO(), width=80)
    return RunContext(quick=quick, out=tmp_path, show_progress=False, resume=resume, console=console)


def test_forms_pick_the_quick_or_the_full_settings(tmp_path):
    assert TOY.of(_context(tmp_path, quick=True)) == TOY.quick
    assert TOY.of(_context(tmp_path)) == TOY.full
    assert (TOY.quick.repetitions, TOY.full.repetitions) == (2, 4)
    assert dataclasses.asdict(TOY.full) == {"tasks": ("a", "b"), "repetitions": 4, "alphas": (0.1, 1.0, 10.0)}
    with pytest.raises(dataclasses.FrozenInstanceError):
        TOY.full.repetitions = 5
    # replace keeps the order of the settings, changes one and adds another
    variant = TOY.replace(repetitions=(1, 3), inner_folds=(3, 5))
    assert list(dataclasses.asdict(variant.full)) == ["tasks", "repetitions", "alphas", "inner_folds"]
    assert (variant.quick.repetitions, variant.full.inner_folds, TOY.full.repetitions) == (1, 5, 4)
    with pytest.raises(TypeError, match="'repetitions' must be a \\(quick, full\\) pair"):
        Forms(repetitions=10)
    with pytest.raises(TypeError, match="pair"):
        Forms(grid=(1, 2, 3))


def test_run_cells_stores_each_cell_once_and_resume_reads_them_back(tmp_path):
    calls = []
    first = _run_toy(_context(tmp_path), calls)
    assert list(first) == [(t, s) for t in ("a", "b") for s in range(4)]  # in the order given
    assert sorted(calls) == sorted(first)  # each cell computed once
    stored = sorted(p.name for p in (tmp_path / "cells").iterdir())
    assert stored == sorted(f"{t}--{s}.json" for t in ("a", "b") for s in range(4))
    record = json.loads((tmp_path / "cells" / "b--3.json").read_text())
    assert (record["seed"], record["quick"], record["value"]) == (0, False, first["b", 3])
    # the value is the direct computation's
    assert first["a", 1] == _toy_score("a", 1, 4, (0.1, 1.0, 10.0), [])
    assert all(0.6 < value["accuracy"] <= 1.0 for value in first.values())
    # --resume computes nothing and gives the same values
    calls.clear()
    assert _run_toy(_context(tmp_path, resume=True), calls) == first
    assert calls == []
    # without --resume every cell is computed again
    _run_toy(_context(tmp_path), calls)
    assert len(calls) == 8


def test_run_cells_recomputes_a_torn_cell(tmp_path):
    calls = []
    first = _run_toy(_context(tmp_path), calls)
    torn = tmp_path / "cells" / "a--2.json"
    torn.write_text(torn.read_text()[:20])  # a run stopped while writing (or an edited file)
    calls.clear()
    ctx = _context(tmp_path, resume=True)
    assert _run_toy(ctx, calls) == first
    assert calls == [("a", 2)]
    assert "a--2.json: not a valid cell (torn" in ctx.console.file.getvalue().replace("\n", "")
    assert json.loads(torn.read_text())["value"] == first["a", 2]


def test_run_cells_recomputes_the_other_form_and_refuses_shared_keys(tmp_path):
    _run_toy(_context(tmp_path, quick=True), [])
    assert len(list((tmp_path / "cells").iterdir())) == 2  # quick: task a, two splits
    # cells of the quick form are foreign to a full run: reported and recomputed, never read back
    ctx = _context(tmp_path, resume=True)
    calls = []
    _run_toy(ctx, calls)
    assert len(calls) == 8 and "a--0.json: a foreign cell: quick True" in ctx.console.file.getvalue()
    with pytest.raises(ValueError, match="share a key"):
        run_cells(_context(tmp_path), [(1,), (2,)], lambda i: i, key=lambda i: "same", description="x")


def test_run_cells_progress_counts_units(tmp_path):
    ctx = _context(tmp_path)
    steps = []

    def progress(total, description):
        steps.append(total)

        class Bar:
            def __enter__(self):
                return lambda n=1: steps.append(n)

            def __exit__(self, *args):
                return False

        return Bar()

    ctx.progress = progress

    def long_cell(i, advance):
        for _ in range(3):
            advance()
        return i

    run_cells(ctx, [(1,), (2,)], long_cell, key=str, description="x", units=3, progress_in_compute=True)
    assert steps == [6, 1, 1, 1, 1, 1, 1]
    steps.clear()
    ctx.resume = True  # read back: 3 units at once per cell
    run_cells(ctx, [(1,), (2,)], long_cell, key=str, description="x", units=3, progress_in_compute=True)
    assert steps == [6, 3, 3]
    steps.clear()
    run_cells(ctx, [(3,)], lambda i: i, key=str, description="x", units=2)  # advanced after the cell
    assert steps == [2, 2]


def test_outer_splits_are_the_splitters_splits():
    y = np.repeat([0, 1], [12, 8])
    halves = outer_splits(y, 3, random_state=4, test_size=0.5)
    expected = StratifiedShuffleSplit(3, test_size=0.5, random_state=4).split(np.zeros(20), y)
    for (train, test), (train_e, test_e) in zip(halves, expected, strict=True):
        np.testing.assert_array_equal(train, train_e)
        np.testing.assert_array_equal(test, test_e)
        assert np.bincount(y[train]).tolist() == [6, 4]  # stratified halves
    folds = outer_splits(y, 4, random_state=0)
    assert len(folds) == 4
    np.testing.assert_array_equal(np.sort(np.concatenate([test for _, test in folds])), np.arange(20))
    assert all(np.bincount(y[test]).tolist() == [3, 2] for _, test in folds)  # stratified folds
    plain = outer_splits(np.arange(10.0), 5, random_state=0, stratify=False)  # regression targets
    assert sorted(np.concatenate([test for _, test in plain]).tolist()) == list(range(10))


def test_grid_search_picks_grid_or_path_search():
    X, y = _toy_data("a")
    search = grid_search(RidgeClassifier(), {"alpha": [0.1, 1e4]}, cv=3, scoring="accuracy")
    assert search.fit(X, y).best_params_ == {"alpha": 0.1}  # alpha = 1e4 shrinks the model to nothing
    assert search.error_score is np.nan and search.refit is True
    assert isinstance(
        grid_search(RidgeClassifier(), {}, cv=3, scoring="accuracy", path=True), PathGridSearchCV
    )

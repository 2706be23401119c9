"""What a run of an experiment wrote, read back for the tests that check its numbers.

Shared by the tests of the experiments' quick forms (the ``quick_form`` fixture of
``tests/conftest.py`` gives the run's :class:`~krein.experiments.RunContext`).
"""

import json
from pathlib import Path

import numpy as np

from krein.experiments import PaperTable


def load(ctx, stem):
    """The JSON file ``stem``.json that the run ``ctx`` wrote."""
    return json.loads((ctx.out / f"{stem}.json").read_text())


def summary(ctx, stem):
    """``{(task, method): summary row}`` of the result table the run wrote as ``stem``.json."""
    return {(row["task"], row["method"]): row for row in load(ctx, stem)["summary"]}


def comparison_rows(ctx, stem):
    """The rows of the comparison with a paper that the run wrote as ``stem``.json, after checking each
    against the paper data file the comparison names: the paper's mean and std are the file's, and the
    difference and the verdict follow from ours (:meth:`~krein.experiments.PaperTable.disagreements`)."""
    stored = load(ctx, stem)
    paper = PaperTable.load(Path(stored["comparison"]["data"]).stem)
    assert [problem for row in stored["rows"] for problem in paper.disagreements(row)] == []
    return stored["rows"]


def assert_counts(percentages, sizes, decimals=None):
    """Each of ``percentages`` is 100 k / n for a whole k and its ``n`` of ``sizes`` (an error or an
    accuracy in % on n test points), rounded to ``decimals`` where the run rounds it."""
    sizes = np.asarray(sizes)
    counts = np.asarray(percentages, dtype=float) * sizes / 100
    rounding = 0.0 if decimals is None else 0.5 * 10.0**-decimals * sizes / 100
    assert np.all(np.abs(counts - np.round(counts)) <= rounding + 1e-9), percentages

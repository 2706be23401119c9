"""The papers' reported numbers, as data, and the one comparison of a result with them.

Every number an experiment takes from a paper lives in a data file ``papers/NAME.json`` beside the
experiment modules (shipped in the wheel), never in Python::

    {
      "paper": "Oglic & Gärtner, Learning in Reproducing Kernel Kreĭn Spaces, ICML 2018",
      "item": "Table 2",
      "page": null,
      "caption": "Table 2. This table presents the results of experiments with indefinite kernels ...",
      "measure": "classification error (%), mean and std over 10 outer folds",
      "decimals": 2,
      "keys": [],
      "tasks": {"coilyork": {"n": 288}},
      "cells": [
        {"task": "coilyork", "method": "KREIN", "mean": 22.56, "std": 7.66},
        ...
      ]
    }

``item`` is the table or figure, ``page`` its page in the published paper (null where not yet
checked against it: the plain-text copies under ``shared/papers`` have no page breaks), ``caption``
the opening of its caption (to find it), ``decimals`` the decimals the paper prints its means with.
A *cell* is one number of the paper with its spread: ``task`` and ``method`` and the further
``keys`` the table names (``measure``, ``initialization``...), ``mean``, ``std`` (null where the
paper gives none) and other numbers the paper prints beside it (``iota``, ``train_seconds``).
``tasks`` holds what the paper says about a task as a whole (sizes, extreme eigenvalues).

:class:`PaperTable` loads one file; :meth:`PaperTable.compare` sets a result beside one of its cells
in the one schema of :data:`COLUMNS`, and :meth:`PaperTable.comparison` gathers such rows into a
:class:`Comparison` that :meth:`~krein.experiments.RunContext.report` writes as Markdown, CSV and JSON.
The fidelity table (:mod:`krein.experiments._fidelity`) counts the rows of every such JSON file.

The rule: ours is rounded to the decimals the paper prints and is *inside* when it lies within the
paper's std of the paper's mean (``|round(ours) − paper| ≤ std``); a cell without a std uses the
file's ``tolerance_without_std`` (or the spread the experiment derives, ``paper_std=``).
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from importlib import resources

__all__ = ["COLUMNS", "INSIDE", "Comparison", "PaperTable", "paper_table_names"]

#: The column that says whether ours lies within the paper's mean ± 1 std ("yes"/"no").
INSIDE = "inside the paper's ± 1 std"
#: The columns of every comparison with a paper, in order: the cell's keys (``task``, ``method`` and
#: the table's further ``keys`` after them), ours and the paper's mean and std, their difference
#: (ours − paper) and the verdict. Further columns of an experiment (``runs``, ``ι ours``) follow.
COLUMNS = ("task", "method", "ours mean", "ours std", "paper mean", "paper std", "difference", INSIDE)
#: Added to a std before the comparison, so that a difference equal to the std in the printed
#: decimals is inside despite the binary rounding of both.
_SLACK = 1e-9
_FOLDER = "papers"


def paper_table_names():
    """The names of every data file under ``papers/`` (shipped with the package), sorted."""
    folder = resources.files(__package__) / _FOLDER
    return sorted(p.name[: -len(".json")] for p in folder.iterdir() if p.name.endswith(".json"))


def _rounded(value, decimals):
    return None if value is None else round(float(value), decimals)


@dataclass(frozen=True)
class PaperTable:
    """The numbers one table (or figure) of a paper reports, read from ``papers/NAME.json``.

    Attributes
    ----------
    name : str
        The data file's name without ``.json`` (``"oglic2018-table1"``).
    paper, item, caption, measure : str
        The paper, the table or figure, the opening of its caption and what its numbers measure.
    page : int or None
        The page of the published paper (None: not checked yet).
    decimals : int
        The decimals the paper prints its means with; ours is compared at that precision.
    keys : tuple of str
        The keys of a cell beyond ``task`` and ``method``.
    tasks : dict
        ``{task: {fact: number}}``: what the paper reports about each task as a whole.
    cells : list of dict
        One dict per cell: its keys, ``mean``, ``std`` (None where not reported) and further numbers.
    tolerance_without_std : float or None
        The tolerance of a cell whose std the paper does not report.
    """

    name: str
    paper: str
    item: str
    page: int | None
    caption: str
    measure: str
    decimals: int
    keys: tuple[str, ...] = ()
    tasks: dict = field(default_factory=dict)
    cells: list = field(default_factory=list)
    tolerance_without_std: float | None = None

    @classmethod
    def load(cls, name):
        """The table stored as ``papers/NAME.json`` (a ``ValueError`` naming the files otherwise)."""
        path = resources.files(__package__) / _FOLDER / f"{name}.json"
        if not path.is_file():
            raise ValueError(f"No paper data named {name!r}; available: {', '.join(paper_table_names())}.")
        data = json.loads(path.read_text(encoding="utf-8"))
        missing = {"paper", "item", "page", "caption", "measure", "decimals"} - data.keys()
        if missing:
            raise ValueError(f"papers/{name}.json lacks {', '.join(sorted(missing))}.")
        table = cls(
            name=name,
            paper=data["paper"],
            item=data["item"],
            page=data["page"],
            caption=data["caption"],
            measure=data["measure"],
            decimals=int(data["decimals"]),
            keys=tuple(data.get("keys", ())),
            tasks=data.get("tasks", {}),
            cells=data.get("cells", []),
            tolerance_without_std=data.get("tolerance_without_std"),
        )
        table._check()
        return table

    def _check(self):
        seen = set()
        for cell in self.cells:
            needed = {"task", "method", *self.keys, "mean", "std"}
            if not needed <= cell.keys():
                raise ValueError(f"papers/{self.name}.json: the cell {cell} lacks {needed - cell.keys()}.")
            key = self._key(cell["task"], cell["method"], cell)
            if key in seen:
                raise ValueError(f"papers/{self.name}.json: the cell {key} is given twice.")
            seen.add(key)

    def _key(self, task, method, keys):
        return (task, method, *(keys[k] for k in self.keys))

    @property
    def cell_tasks(self):
        """The tasks of the cells, in the file's order, each once."""
        return list(dict.fromkeys(cell["task"] for cell in self.cells))

    def task(self, task):
        """What the paper reports about ``task`` as a whole (a dict of numbers)."""
        if task not in self.tasks:
            raise KeyError(f"papers/{self.name}.json has no task {task!r}; it has {', '.join(self.tasks)}.")
        return self.tasks[task]

    def has(self, task, method, **keys):
        """Whether the paper reports the cell (``task``, ``method``, ``keys``)."""
        return any(self._key(c["task"], c["method"], c) == self._key(task, method, keys) for c in self.cells)

    def cell(self, task, method, **keys):
        """The paper's cell (``task``, ``method`` and the table's further ``keys``) as a dict."""
        if set(keys) != set(self.keys):
            raise TypeError(f"papers/{self.name}.json: a cell is named by task, method and {self.keys}.")
        wanted = self._key(task, method, keys)
        for cell in self.cells:
            if self._key(cell["task"], cell["method"], cell) == wanted:
                return cell
        raise KeyError(f"papers/{self.name}.json has no cell {wanted}.")

    def numbers(self):
        """Every number of the table (the tasks' facts and the cells' numbers), for checking prose."""
        values = [v for facts in self.tasks.values() for v in facts.values()]
        values += [v for cell in self.cells for v in cell.values()]
        return [float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)]

    def compare(self, task, method, mean, std=None, *, paper_std=None, details=None, **keys):
        """One row of :data:`COLUMNS`: ours (``mean``, ``std``; ``mean`` None for no result) beside
        the paper's cell, then ``details`` (a dict of further columns).

        ``paper_std`` is the spread of a cell that the paper prints without one, derived by the
        experiment (a binomial standard error, say); a cell with a std of its own refuses it.
        """
        cell = self.cell(task, method, **keys)
        spread = cell["std"]
        if paper_std is not None:
            if spread is not None:
                raise ValueError(
                    f"papers/{self.name}.json gives the std of {task}/{method}; paper_std= is only for a "
                    "cell without one."
                )
            spread = paper_std
        tolerance = spread if spread is not None else self.tolerance_without_std
        if tolerance is None:
            raise ValueError(
                f"papers/{self.name}.json gives no std for {task}/{method} and no tolerance_without_std; "
                "pass paper_std="
            )
        ours = _rounded(mean, self.decimals)
        difference = None if ours is None else round(ours - cell["mean"], self.decimals)
        inside = difference is not None and abs(difference) <= tolerance + _SLACK
        return {
            "task": task,
            "method": method,
            **{k: keys[k] for k in self.keys},
            "ours mean": ours,
            "ours std": _rounded(std, self.decimals),
            "paper mean": cell["mean"],
            "paper std": _rounded(spread, self.decimals),
            "difference": difference,
            INSIDE: "yes" if inside else "no",
            **(details or {}),
        }

    def compare_scores(self, task, method, scores, **options):
        """:meth:`compare` of the per-run ``scores`` of ours: their mean and std (``ddof=1``; None for
        fewer than two runs, None for both without a score)."""
        scores = [float(s) for s in scores]
        mean = sum(scores) / len(scores) if scores else None
        std = None
        if len(scores) > 1:
            std = (sum((s - mean) ** 2 for s in scores) / (len(scores) - 1)) ** 0.5
        return self.compare(task, method, mean, std, **options)

    def disagreements(self, row):
        """What is wrong with a stored comparison ``row`` (of :meth:`compare`) against this table: a
        paper mean or std that is not the data file's, or a difference or verdict that does not follow
        from ours and the paper's (an empty list when it agrees)."""
        keys = {k: row.get(k) for k in self.keys}
        try:
            cell = self.cell(row["task"], row["method"], **keys)
        except KeyError as error:
            return [str(error.args[0])]
        name = "/".join(str(k) for k in self._key(row["task"], row["method"], keys))
        problems = []
        if row["paper mean"] != cell["mean"]:
            problems.append(f"{name}: paper mean {row['paper mean']}, the data file has {cell['mean']}")
        if cell["std"] is not None and row["paper std"] != _rounded(cell["std"], self.decimals):
            problems.append(f"{name}: paper std {row['paper std']}, the data file has {cell['std']}")
        ours = row["ours mean"]
        difference = None if ours is None else round(ours - cell["mean"], self.decimals)
        tolerance = row["paper std"] if row["paper std"] is not None else self.tolerance_without_std
        inside = difference is not None and tolerance is not None and abs(difference) <= tolerance + _SLACK
        if row["difference"] != difference or row[INSIDE] != ("yes" if inside else "no"):
            problems.append(
                f"{name}: difference {row['difference']} and {row[INSIDE]!r} do not follow from ours {ours} "
                f"and the paper's {cell['mean']} ± {tolerance}"
            )
        return problems

    def comparison(self, rows, title, *, note="", counted=True):
        """The :class:`Comparison` of ``rows`` (from :meth:`compare`)."""
        return Comparison(self, list(rows), title, note, counted)


@dataclass
class Comparison:
    """Rows of :meth:`PaperTable.compare`, reported like a result table
    (:meth:`~krein.experiments.RunContext.report` writes ``NAME.md``, ``.csv`` and ``.json``).

    The title states the count of cells inside the paper's mean ± 1 std, then ``note``. ``counted``
    False marks a comparison the fidelity table leaves out (a variant that departs from the paper's
    protocol on purpose).
    """

    table: PaperTable
    rows: list
    title: str
    note: str = ""
    counted: bool = True

    @property
    def inside(self):
        return sum(row[INSIDE] == "yes" for row in self.rows)

    def caption(self):
        count = f"{self.inside} of {len(self.rows)} cells inside the paper's mean ± 1 std"
        return f"{self.title}: {count}{'; ' + self.note if self.note else ''}"

    def header(self):
        return list(dict.fromkeys(k for row in self.rows for k in row)) or list(COLUMNS)

    def to_rows(self):
        """``(caption, header, rows, footer)`` with the cells as text (ours and the paper's at the
        paper's decimals)."""
        from ._framework import _format_value

        numeric = {"ours mean", "ours std", "paper mean", "paper std", "difference"}
        header = self.header()

        def text(key, value):
            if value is None:
                return ""
            if key in numeric:
                return f"{value:.{self.table.decimals}f}"
            return _format_value(value)

        rows = [[text(k, row.get(k)) for k in header] for row in self.rows]
        return f"**{self.caption()}**", header, rows, self._source()

    def _source(self):
        page = f", p. {self.table.page}" if self.table.page is not None else ""
        source = f"krein/experiments/papers/{self.table.name}.json"
        return f"Paper: {self.table.paper}, {self.table.item}{page} ({source})."

    def to_markdown(self):
        from ._framework import _markdown_row

        caption, header, rows, footer = self.to_rows()
        lines = [caption, "", _markdown_row(header), _markdown_row("---" for _ in header)]
        lines += [_markdown_row(row) for row in rows]
        return "\n".join([*lines, "", footer])

    def to_csv(self):
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=self.header())
        writer.writeheader()
        writer.writerows(self.rows)
        return buffer.getvalue()

    def to_json(self):
        return {
            "title": self.caption(),
            "comparison": {
                "data": f"papers/{self.table.name}.json",
                "paper": self.table.paper,
                "item": self.table.item,
                "page": self.table.page,
                "measure": self.table.measure,
                "columns": list(COLUMNS[:2]) + list(self.table.keys) + list(COLUMNS[2:]),
                "counted": self.counted,
            },
            "rows": self.rows,
        }

"""One table over every reproduced result: how close each experiment comes to its paper.

For every ``docs/results/NAME/`` with a NOTES.md, :func:`fidelity_rows` gives the paper and the item
reproduced, the form that was run (from the ``quick`` flag stamped into the run's JSON), the data,
the number of the paper's cells our value lies within (mean ± 1 std of the paper) next to the number
compared, and the verdict. The counts come from the run's JSON, never from typing: the markers of
the NOTES.md that name a paper cell (``<!--= PATH ~ MEAN ± STD -->``, see
:mod:`krein.experiments._notes`) and the rows of every comparison with the paper in the folder (a JSON
file written from a :class:`~krein.experiments._papers.Comparison`, with its ``comparison`` record and
the ``inside the paper's ± 1 std`` column; one marked ``counted: false`` is left out).
The data and the verdict are judgements, written once in the NOTES.md::

    <!--fidelity
    data: the paper's (6 of its 9 UCI sets)
    verdict: reproduced: all 36 cells inside the paper's ± 1 std
    -->

(optional keys: ``paper:`` and ``item:`` where the experiment's registration does not say it;
``differs:`` where the full form's protocol differs from the paper's).
:func:`fidelity_markdown` renders the table that opens ``docs/results.md``
(``krein results --write`` regenerates ``docs/results/fidelity.md``).

:func:`fidelity_problems` holds the results to three rules (``krein results`` fails on any):

- every protocol change that an experiment's registration declares (``@experiment(differs=...)``) is
  named in the ``differs:`` line of its NOTES.md when the run on record is the full form;
- every decimal number that a NOTES.md says is the paper's (``(paper 0.846 ± 0.027)``, ``the
  paper's 9.04``, ``paper: 97.6``) is one of the experiment's paper data (as written, or as a
  percentage of a fraction there): the paper data files its module loads
  (:class:`~krein.experiments._papers.PaperTable`) and its ``PAPER*`` settings, the paper columns and
  paper rows of the JSON beside the notes and the paper cells of its markers (:func:`paper_numbers`);
- every comparison with the paper (in the folder or below it, ``quick/``) agrees with the data file
  it names: the paper's mean and std are the file's, the difference and the verdict follow from ours
  (:meth:`~krein.experiments._papers.PaperTable.disagreements`), so a comparison left stale by a
  corrected data file is found.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from ._notes import paper_cells, quoted_value
from ._papers import INSIDE, PaperTable

__all__ = ["fidelity_markdown", "fidelity_problems", "fidelity_rows", "paper_numbers", "said_paper_numbers"]

# The five papers, by the prefix of their experiments' names (README of ../papers).
PAPERS = {
    "oglic2018": "Oglic & Gärtner, ICML 2018",
    "luss2009": "Luss & d'Aspremont, MPC 2009",
    "liu2019": "Liu et al., TNNLS 2019",
    "oglic2019": "Oglic & Gärtner, ICML 2019",
    "li": "Li, Venturi & Xu",
}
_BLOCK = re.compile(r"<!--fidelity\s*\n(?P<body>.*?)-->", re.S)
_COLUMNS = (
    "paper",
    "item",
    "experiment",
    "form",
    "data",
    "differs from the paper",
    "within ± 1 std / compared",
    "verdict",
)
# "the paper's 9.04", "(paper 0.846 ± 0.027)", "paper: 97.6": the clause after the word (not a code name
# such as step="paper"), up to a ';', '.', ':', parenthesis, line end, or a comma before words
_SAID_PAPER = re.compile(
    r"(?<![=\"`\w])paper(?:'s)?\b:?(?P<clause>(?:[^;.:()\n,]|\.\d|,(?!\s*[A-Za-z]))*)", re.I
)
_DECIMAL = re.compile(r"(?<![\w.·^])[−-]?\d+\.\d+(?:·10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)?(?![\d.·]|\s?<!--=)")


def _fields(text):
    match = _BLOCK.search(text)
    if match is None:
        return {}
    fields, key = {}, None
    for line in match["body"].splitlines():
        head = re.match(r"(\w+):\s*(.*)$", line)
        if head:
            key = head[1]
            fields[key] = head[2].strip()
        elif key and line.strip():
            fields[key] += " " + line.strip()
    return fields


def _form(folder):
    flags = set()
    for path in folder.glob("*.json"):
        stamp = json.loads(path.read_text()).get("provenance", {})
        if "quick" in stamp:
            flags.add(bool(stamp["quick"]))
    form = {frozenset({False}): "full", frozenset({True}): "quick"}.get(frozenset(flags), "full and quick")
    if not flags:
        form = "—"
    if (folder / "quick").is_dir():
        form += " (+ quick/)"
    return form


def _cells(folder):
    inside = compared = 0
    for ours, mean, std in paper_cells(folder / "NOTES.md"):
        compared += 1
        inside += abs(ours - mean) <= std
    for path in sorted(folder.glob("*.json")):
        stored = json.loads(path.read_text())
        if stored.get("comparison", {}).get("counted"):
            compared += len(stored["rows"])
            inside += sum(row[INSIDE] == "yes" for row in stored["rows"])
    return inside, compared


def _item(paper):
    """ "Table 3" of "Oglic & Gärtner (ICML 2018), Table 3" (the paper has its own column)."""
    match = re.search(r"\b(Tables?|Figures?|Fig\.) .*$", paper)
    return match[0] if match else paper


def fidelity_rows(results):
    """One dict per experiment folder of ``results`` that has a NOTES.md, in paper order."""
    from ._framework import list_experiments

    registered = {e.name: e for e in list_experiments()}
    rows = []
    for notes in sorted(Path(results).glob("*/NOTES.md")):
        folder = notes.parent
        name = folder.name
        fields = _fields(notes.read_text())
        prefix = next((p for p in PAPERS if name.startswith(p)), None)
        inside, compared = _cells(folder)
        rows.append(
            {
                "paper": fields.get("paper") or PAPERS.get(prefix, "—"),
                "item": fields.get("item") or _item(registered[name].paper if name in registered else "—"),
                "experiment": name,
                "form": _form(folder),
                "data": fields.get("data", "—"),
                "differs from the paper": fields.get("differs", "—"),
                "within ± 1 std / compared": f"{inside} / {compared}" if compared else "—",
                "verdict": fields.get("verdict", "— (no fidelity block in NOTES.md)"),
            }
        )
    order = list(PAPERS.values())
    rows.sort(key=lambda r: (order.index(r["paper"]) if r["paper"] in order else len(order), r["experiment"]))
    return rows


def fidelity_markdown(results):
    """The fidelity table of ``results`` as Markdown (the text of ``docs/results/fidelity.md``)."""
    rows = fidelity_rows(results)
    lines = [
        "<!-- generated by `krein results --write` from the NOTES.md and JSON of each folder -->",
        "",
        "| " + " | ".join(_COLUMNS) + " |",
        "| " + " | ".join("---" for _ in _COLUMNS) + " |",
    ]
    lines += ["| " + " | ".join(row[c].replace("|", "\\|") for c in _COLUMNS) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _numbers(value):
    """Every number in a nested structure of dicts, lists, tuples and numbers (strings skipped)."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int | float):
        return [float(value)]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list | tuple):
        return [x for item in value for x in _numbers(item)]
    return []


def paper_numbers(folder, experiment=None):
    """The experiment's paper data: every number of the paper data files its module loads (the
    :class:`~krein.experiments._papers.PaperTable` objects of the module) and of its ``PAPER*``
    settings (when ``experiment`` is a
    registered :class:`~krein.experiments._framework.Experiment`; of every experiment module for one
    that belongs to no single paper, the showcase), of the JSON files in
    ``folder`` (the values of keys that start with "paper" and of rows whose ``source`` is "paper")
    and of the paper cells of its NOTES.md markers."""
    from ._framework import list_experiments

    folder = Path(folder)
    values = []
    if experiment is not None:
        modules = [sys.modules[experiment.run.__module__]]
        if not any(experiment.name.startswith(prefix) for prefix in PAPERS):  # the showcase: all papers
            modules = [sys.modules[e.run.__module__] for e in list_experiments()]
        for module in modules:
            for key, value in vars(module).items():
                if isinstance(value, PaperTable):
                    values += value.numbers()
                elif key.startswith("PAPER"):  # a setting the paper gives (li2024.PAPER_LAMBDAS)
                    values += _numbers(value)
    for path in folder.glob("*.json"):  # paper columns, and rows whose source is the paper
        rows = json.loads(path.read_text()).get("rows", [])
        for row in rows if isinstance(rows, list) else []:
            paper_row = row.get("source") == "paper"
            paper = [v for key, v in row.items() if paper_row or key.lower().startswith("paper")]
            values += _numbers(paper)
    if (folder / "NOTES.md").is_file():
        values += [x for _, mean, std in paper_cells(folder / "NOTES.md") for x in (mean, std)]
    return values


def said_paper_numbers(text):
    """``[(line, number as written), ...]``: the decimal numbers that ``text`` says are the paper's, in
    the clause after the word "paper" or "paper's" (not a code name such as ``step="paper"``) up to the
    next ``;``, ``.``, ``:``, parenthesis, line end or a comma followed by a word, without a marker (a
    marked number is ours)."""
    said = []
    for match in _SAID_PAPER.finditer(text):
        clause_start = match.start("clause")
        for number in _DECIMAL.finditer(match["clause"]):
            line = text.count("\n", 0, clause_start + number.start()) + 1
            said.append((line, number[0]))
    return said


def _is_paper_number(text, values):
    number, tolerance = quoted_value(text)
    return any(
        abs(number - v) <= tolerance * (1 + 1e-9) or abs(number - 100 * v) <= tolerance for v in values
    )


def _comparison_problems(folder):
    """:meth:`~krein.experiments._papers.PaperTable.disagreements` of every comparison in ``folder`` and
    its subfolders (``quick/``), against the data file its ``comparison`` record names."""
    problems = []
    for path in sorted(folder.rglob("*.json")):
        if "cells" in path.relative_to(folder).parts:
            continue
        stored = json.loads(path.read_text())
        source = stored.get("comparison", {}).get("data", "")
        if not source:
            continue
        table = PaperTable.load(Path(source).stem)
        problems += [f"{path}: {p}" for row in stored["rows"] for p in table.disagreements(row)]
    return problems


def fidelity_problems(results):
    """Messages for every breach of the three rules of the module docstring in ``results``."""
    from ._framework import list_experiments

    registered = {e.name: e for e in list_experiments()}
    problems = []
    for notes in sorted(Path(results).glob("*/NOTES.md")):
        folder, text = notes.parent, notes.read_text()
        experiment = registered.get(folder.name)
        if experiment is not None and experiment.differs and "full" in _form(folder):
            written = _fields(text).get("differs", "")
            missing = [d for d in experiment.differs if d.lower() not in written.lower()]
            if missing:
                problems.append(
                    f"{notes}: the full form differs from the paper in {'; '.join(missing)}, which the "
                    "'differs:' line of the fidelity block does not name"
                )
        problems += _comparison_problems(folder)
        values = paper_numbers(folder, experiment)
        for line, number in said_paper_numbers(text):
            if not _is_paper_number(number, values):
                problems.append(
                    f"{notes}:{line}: {number} is called the paper's but is not in its paper data"
                )
    return problems

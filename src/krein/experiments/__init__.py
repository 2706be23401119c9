"""The papers' experiments as named, runnable definitions (``krein reproduce NAME``).

Each public submodule of this package registers its experiments with :func:`experiment`; importing
:func:`list_experiments` discovers them all. The papers' reported numbers are data files in
``papers/`` (:func:`paper_table_names`), loaded and compared with by :class:`PaperTable`.
"""

from ._fidelity import fidelity_markdown, fidelity_problems, fidelity_rows
from ._framework import (
    Experiment,
    ResultTable,
    RunContext,
    check_output_folder,
    experiment,
    get_experiment,
    list_experiments,
    output_lock,
    provenance,
    write_atomic,
)
from ._notes import check_notes, refresh_notes
from ._papers import Comparison, PaperTable, paper_table_names

__all__ = [
    "Comparison",
    "Experiment",
    "PaperTable",
    "ResultTable",
    "RunContext",
    "check_notes",
    "check_output_folder",
    "experiment",
    "fidelity_markdown",
    "fidelity_problems",
    "fidelity_rows",
    "get_experiment",
    "list_experiments",
    "output_lock",
    "paper_table_names",
    "provenance",
    "refresh_notes",
    "write_atomic",
]

"""The papers' experiments as named, runnable definitions (``krein reproduce NAME``).

Each public submodule of this package registers its experiments with :func:`experiment`; importing
:func:`list_experiments` discovers them all.
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
    provenance,
    write_atomic,
)
from ._notes import check_notes, refresh_notes

__all__ = [
    "Experiment",
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
    "provenance",
    "refresh_notes",
    "write_atomic",
]

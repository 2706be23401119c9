"""The papers' experiments as named, runnable definitions (``krein reproduce NAME``).

Each public submodule of this package registers its experiments with :func:`experiment`; importing
:func:`list_experiments` discovers them all.
"""

from ._framework import (
    Experiment,
    ResultTable,
    RunContext,
    experiment,
    get_experiment,
    list_experiments,
    provenance,
)

__all__ = [
    "Experiment",
    "ResultTable",
    "RunContext",
    "experiment",
    "get_experiment",
    "list_experiments",
    "provenance",
]

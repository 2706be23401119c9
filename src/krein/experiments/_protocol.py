"""The protocol of the paper experiments: quick and full settings side by side, splits, stored cells.

An experiment module declares its settings once with :class:`Forms`, each setting's quick and full
value side by side, and picks one form with ``FORMS.of(ctx)``. It then evaluates its methods on its
tasks through :func:`run_cells`: every unit of work (one method on one task, one split, or a method
on all splits of a task) is a *cell*, computed once and stored by :meth:`RunContext.cell
<krein.experiments._framework.RunContext.cell>` (atomic writes, ``--resume``), under one progress bar.
:func:`outer_splits` gives the repeated random splits or the k folds of a task, and
:func:`grid_search` the inner cross-validation that tunes a method on a training part.

A typical experiment::

    FORMS = Forms(datasets=(("heart",), ALL_DATASETS), repetitions=(2, 10), grid=((0.1, 1.0), GRID))

    def run(ctx):
        settings = FORMS.of(ctx)
        data = {name: load(name) for name in ctx.select(settings.datasets)}
        splits = {name: outer_splits(y, settings.repetitions, random_state=ctx.random_state,
                                     test_size=0.5) for name, (X, y) in data.items()}
        scores = run_cells(
            ctx, [(name, method) for name in data for method in METHODS],
            lambda name, method: [score(method, *data[name], *split) for split in splits[name]],
            key=lambda name, method: f"{name}--{method}", description="table 3",
        )
"""

from __future__ import annotations

from dataclasses import make_dataclass
from functools import partial

import numpy as np

__all__ = ["Forms", "grid_search", "outer_splits", "run_cells"]


class Forms:
    """An experiment's settings, each given as its ``(quick, full)`` pair of values.

    ``Forms(repetitions=(2, 10), grid=(QUICK_GRID, GRID))`` holds two frozen dataclass instances,
    :attr:`quick` and :attr:`full`, with the fields ``repetitions`` and ``grid``; :meth:`of` picks
    the one of a run (``ctx.quick``). Write a setting that does not change between the forms as the
    same value twice: every setting of both forms stands in one place.
    """

    def __init__(self, **pairs):
        for name, pair in pairs.items():
            if not isinstance(pair, tuple) or len(pair) != 2:
                raise TypeError(f"Setting {name!r} must be a (quick, full) pair, got {pair!r}.")
        settings = make_dataclass("Settings", list(pairs), frozen=True)
        self._pairs = dict(pairs)
        self.quick = settings(**{name: quick for name, (quick, _) in pairs.items()})
        self.full = settings(**{name: full for name, (_, full) in pairs.items()})

    def of(self, ctx):
        """The settings of the run ``ctx``: :attr:`quick` with ``--quick``, :attr:`full` otherwise."""
        return self.quick if ctx.quick else self.full

    def replace(self, **pairs):
        """These forms with the settings ``pairs`` added or replaced (another experiment's variant)."""
        return Forms(**(self._pairs | pairs))

    def __repr__(self):
        return f"Forms({', '.join(f'{name}={pair!r}' for name, pair in self._pairs.items())})"


def run_cells(ctx, cells, compute, *, key, description, units=1, progress_in_compute=False):
    """``{cell: value}``: the value of ``compute(*cell)`` for every ``cell`` of ``cells``, in order.

    ``cells`` is a sequence of tuples naming the units of work, such as ``(task, method)``,
    ``(task, method, split)`` or ``(task, split)``. Each value is stored by :meth:`RunContext.cell`
    under the file name ``key(*cell)`` (``OUT/cells/<key>.json``, written atomically), and with
    ``--resume`` read back instead of computed; a torn or edited cell is reported and recomputed.
    The value is what JSON gives back (tuples become lists), whether computed or read.

    One progress bar (``description``) counts ``units`` steps a cell: after each cell, or, with
    ``progress_in_compute``, inside a long cell as it goes — then ``compute(*cell, advance=advance)``
    must call ``advance()`` ``units`` times (a cell read back advances them at once).
    """
    cells = list(cells)
    keys = [key(*cell) for cell in cells]
    if len(set(keys)) != len(keys):
        raise ValueError(f"Two cells of {description!r} share a key; keys must name one cell each.")
    values = {}
    with ctx.progress(len(cells) * units, description) as advance:
        for cell, name in zip(cells, keys, strict=True):
            if progress_in_compute:
                work = partial(compute, *cell, advance=advance)
                values[cell] = ctx.cell(name, work, advance=advance, units=units)
            else:
                values[cell] = ctx.cell(name, partial(compute, *cell))
                advance(units)
    return values


def outer_splits(y, n_splits, *, random_state, test_size=None, stratify=True):
    """The outer ``(train, test)`` index pairs of a task with labels or targets ``y``.

    With ``test_size``, ``n_splits`` random splits with that test share (``StratifiedShuffleSplit``,
    or ``ShuffleSplit`` when not ``stratify``: the repeated half/half splits of Liu et al. and Li et
    al.); without, the ``n_splits`` folds of a shuffled (stratified) k-fold cross-validation. The
    splits depend on ``y`` (its size and, stratified, its classes) and ``random_state`` only.
    """
    from sklearn.model_selection import KFold, ShuffleSplit, StratifiedKFold, StratifiedShuffleSplit

    y = np.asarray(y)
    if test_size is None:
        splitter = (StratifiedKFold if stratify else KFold)(n_splits, shuffle=True, random_state=random_state)
    else:
        splitter = (StratifiedShuffleSplit if stratify else ShuffleSplit)(
            n_splits, test_size=test_size, random_state=random_state
        )
    return list(splitter.split(np.zeros(y.size), y))


def grid_search(estimator, grid, *, cv, scoring, n_jobs=1, error_score=np.nan, path=False):
    """The inner cross-validation that tunes ``estimator`` over ``grid`` on a training part (unfitted).

    A :class:`~sklearn.model_selection.GridSearchCV` refitted on the whole training part; with
    ``path`` (an :class:`~krein.svm.IndefiniteSVC`, alone or at the end of a pipeline), a
    :class:`~krein.experiments._path_search.PathGridSearchCV`, which goes along one warm-started
    path over the grid per inner fold and selects by the same rule.
    """
    from sklearn.model_selection import GridSearchCV

    from ._path_search import PathGridSearchCV

    if path:
        return PathGridSearchCV(estimator, grid, cv=cv, scoring=scoring)
    return GridSearchCV(estimator, grid, cv=cv, scoring=scoring, n_jobs=n_jobs, error_score=error_score)

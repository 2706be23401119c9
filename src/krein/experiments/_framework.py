"""Named, runnable experiments: a registry, a run context and result tables with Welch tests.

An experiment is a function ``run(ctx)`` registered with :func:`experiment`. It evaluates methods on
tasks (usually by cross-validation with fixed seeds, :meth:`RunContext.cross_validate`), collects the
per-fold scores in a :class:`ResultTable` and hands it to :meth:`RunContext.report`, which prints it
and writes Markdown, CSV and JSON files — each stamped with the command line, seeds and library
versions — to the output folder. Figures go through :meth:`RunContext.save_figure` (PNG).

Long experiments are resumable: :meth:`RunContext.cell` stores each unit of work (one outer fold of
one method on one data set, say) as a small JSON file under ``OUT/cells/`` and, with ``resume=True``
(``krein reproduce NAME --resume``), returns the stored value instead of recomputing it, so a run that
was stopped continues where it stopped. A cell records what identifies it (the format version, the
experiment, its key, the seed and the form) and a digest of its value; a stored cell that cannot be
read back (torn), or that is foreign (another experiment, key, seed or form, another format, no
identity) or edited (its value does not match its digest), is reported in one line naming the file
and recomputed. Every file is written under a temporary name unique to its writer (process id and a
random suffix), flushed to disk and renamed into place, with SIGINT and SIGTERM held meanwhile
(:func:`krein._interrupt.uninterrupted`), so two runs into one folder never share a temporary file,
a reader never sees a torn one and a stopped run leaves none. :func:`output_lock` keeps a second run
out of a folder a live run is writing (``krein reproduce`` takes it). Experiments declared with
``selectable=True`` also accept a subset of their tasks (``--only NAME ...``,
:meth:`RunContext.select`).
"""

from __future__ import annotations

import csv
import hashlib
import importlib
import io
import json
import os
import pkgutil
import platform
import secrets
import sys
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy import stats

from .._interrupt import uninterrupted
from .._threads import blas_for_rows

__all__ = [
    "Experiment",
    "ResultTable",
    "RunContext",
    "check_output_folder",
    "experiment",
    "get_experiment",
    "list_experiments",
    "output_lock",
]

#: Version of the cell record :meth:`RunContext.cell` writes; a cell of another version is foreign.
CELL_FORMAT = 2

_REGISTRY: dict[str, Experiment] = {}


@dataclass(frozen=True)
class Experiment:
    """A registered experiment.

    Attributes
    ----------
    name : str
        Name used on the command line (``krein reproduce NAME``).
    run : callable
        ``run(ctx: RunContext) -> None``.
    description : str
    paper : str
        The paper, table or figure it reproduces.
    quick_minutes, full_minutes : float
        Expected run time on 2 cores of the ``--quick`` and of the full form.
    selectable : bool
        Whether the experiment runs a subset of its tasks through :meth:`RunContext.select`.
    differs : tuple of str
        How the protocol of the full form differs from the paper's, one short phrase per change
        (``"CCICP step"``, ``"λ by CV on 1000 points"``); each must appear in the ``differs:`` line
        of the results' NOTES.md (``krein results`` checks it, :mod:`krein.experiments._fidelity`).
    """

    name: str
    run: Callable
    description: str
    paper: str
    quick_minutes: float
    full_minutes: float
    selectable: bool = False
    differs: tuple[str, ...] = ()


def experiment(name, *, description, paper, quick_minutes, full_minutes, selectable=False, differs=()):
    """Decorator registering ``run(ctx)`` as the experiment ``name`` (``differs``: :class:`Experiment`)."""

    def register(run):
        if name in _REGISTRY and _REGISTRY[name].run is not run:
            raise ValueError(f"An experiment named {name!r} is already registered.")
        _REGISTRY[name] = Experiment(
            name, run, description, paper, quick_minutes, full_minutes, selectable, tuple(differs)
        )
        return run

    return register


def _import_experiment_modules():
    package = importlib.import_module("krein.experiments")
    for module in pkgutil.iter_modules(package.__path__):
        if not module.name.startswith("_"):
            importlib.import_module(f"krein.experiments.{module.name}")


def list_experiments():
    """All registered experiments, sorted by name."""
    _import_experiment_modules()
    return [_REGISTRY[name] for name in sorted(_REGISTRY)]


def get_experiment(name):
    """The experiment registered as ``name`` (a clear error listing the names otherwise)."""
    _import_experiment_modules()
    if name not in _REGISTRY:
        raise ValueError(f"Unknown experiment {name!r}; available: {', '.join(sorted(_REGISTRY))}.")
    return _REGISTRY[name]


def provenance(command=None):
    """Command line, library versions and platform, written into every results file.

    ``command`` is the command line to record (default: this process's ``sys.argv``).
    """
    import joblib
    import matplotlib
    import scipy
    import sklearn

    import krein

    return {
        "command": command or " ".join([Path(sys.argv[0]).name] + sys.argv[1:]),
        "krein": krein.__version__,
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "joblib": joblib.__version__,
        "matplotlib": matplotlib.__version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
    }


def check_output_folder(out):
    """``out`` as a :class:`~pathlib.Path` to a folder this process can write, created if needed.

    Checked before any work, so that a run does not fail only when it writes its results: a
    ``ValueError`` when ``out`` is an existing file (or lies under one), a ``PermissionError`` when
    the folder cannot be written.
    """
    out = Path(out)
    blocking = next((p for p in (out, *out.parents) if p.exists() and not p.is_dir()), None)
    if blocking is not None:
        raise ValueError(f"{blocking} is a file, not a folder; give an output folder path.")
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = _temporary_name(out / ".write-check")
        with uninterrupted():  # a stop signal here would leave the probe behind
            try:
                probe.write_bytes(b"")
            finally:
                probe.unlink(missing_ok=True)
    except OSError as error:
        raise type(error)(
            f"cannot create or write the folder {out} ({error.strerror or error}); "
            "give a writable output folder."
        ) from error
    return out


def _temporary_name(path):
    """A sibling of ``path`` no other writer uses: the process id and a random suffix."""
    return path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.partial")


def write_atomic(path, data):
    """Write ``data`` (str or bytes) to ``path`` through a temporary name unique to this writer.

    A stopped run leaves no torn file under ``path``, and two writers of one folder never write into
    each other's temporary file; the last rename wins.
    """
    path = Path(path)
    partial = _temporary_name(path)
    payload = data if isinstance(data, bytes) else data.encode("utf-8")
    with uninterrupted():  # SIGINT / SIGTERM wait until the file is whole and the temporary one gone
        try:
            with partial.open("wb") as file:
                file.write(payload)
                file.flush()
                os.fsync(file.fileno())
            partial.replace(path)
            _sync_folder(path.parent)
        finally:
            partial.unlink(missing_ok=True)
    return path


def _sync_folder(folder):
    """Flush the rename of a file in ``folder`` to disk (where the platform allows it)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


_LOCK_NAME = ".krein-run.lock"


def _process_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _lock_holder(path):
    """The live process holding the lock file ``path``, or None when the lock is stale."""
    try:
        text = path.read_text().strip()
        age = time.time() - path.stat().st_mtime
    except (OSError, UnicodeDecodeError):
        return None
    if not text.isdigit():
        return -1 if age < 10.0 else None  # being written by its owner just now, or left torn
    pid = int(text)
    return pid if pid != os.getpid() and _process_alive(pid) else None


@contextmanager
def output_lock(out):
    """Hold ``out`` for this process while a run writes into it.

    The lock is the file ``out/.krein-run.lock`` holding the process id, created exclusively
    (``O_CREAT | O_EXCL``). A lock of a process that is no longer alive (a run killed with SIGKILL) is
    stale and taken over; a live one makes this raise :class:`BlockingIOError` in one line naming the
    folder and the process, so that two runs never interleave their cells in one folder.
    """
    path = Path(out) / _LOCK_NAME
    for _ in range(3):
        try:
            with uninterrupted():  # the lock is never left empty by a stop signal
                descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                with os.fdopen(descriptor, "w") as file:
                    file.write(f"{os.getpid()}\n")
        except FileExistsError:
            holder = _lock_holder(path)
            if holder is not None:
                who = "another process" if holder < 0 else f"process {holder}"
                raise BlockingIOError(
                    f"{out} is being written by another run ({who}, lock {path}); wait for it to finish "
                    "or give another --out."
                ) from None
            path.unlink(missing_ok=True)  # stale: its process is gone
            continue
        break
    else:
        raise BlockingIOError(f"could not take the lock {path} of {out}; give another --out.")
    try:
        yield path
    finally:
        with uninterrupted():
            try:
                if path.read_text().strip() == str(os.getpid()):
                    path.unlink()
            except OSError:
                pass


@dataclass
class _Cell:
    values: list[float]
    fit_seconds: list[float]


@dataclass
class ResultTable:
    """Per-fold scores of methods on tasks, summarized as mean ± std with Welch-test marks.

    Parameters
    ----------
    title : str
    metric : str
        Name of the score, e.g. ``"error (%)"`` or ``"RMSE"``.
    lower_is_better : bool, default=True
    alpha : float, default=0.05
        Level of Welch's t-test against the best method of each task: methods *not* significantly
        worse than the best are marked in bold.
    """

    title: str
    metric: str
    lower_is_better: bool = True
    alpha: float = 0.05
    cells: dict = field(default_factory=dict)
    task_info: dict = field(default_factory=dict)

    @classmethod
    def from_json(cls, data):
        """The table written as ``data`` (:meth:`to_json`; the JSON file of
        :meth:`RunContext.report`), with its per-run values and fit times and its task facts."""
        table = cls(data["title"], data["metric"], data["lower_is_better"], data["alpha"])
        for score in data["scores"]:
            table.add(score["task"], score["method"], score["values"], score["fit_seconds"] or None)
        fixed = {"task", "method", "mean", "std", "n_runs", "fit_seconds", "best", "p_value_vs_best"}
        for row in data["summary"]:
            info = {k: v for k, v in row.items() if k not in fixed | {"not_worse_than_best"}}
            table.set_task_info(row["task"], **info)
        return table

    def add(self, task, method, values, fit_seconds=None):
        """Record the per-repetition ``values`` of ``method`` on ``task``."""
        values = [float(v) for v in np.ravel(values)]
        seconds = [] if fit_seconds is None else [float(s) for s in np.ravel(fit_seconds)]
        self.cells[(task, method)] = _Cell(values, seconds)

    def set_task_info(self, task, **info):
        """Attach facts about a task (``n``, ``iota``...) shown as extra columns."""
        self.task_info.setdefault(task, {}).update(info)

    @property
    def tasks(self):
        return list(dict.fromkeys(task for task, _ in self.cells))

    @property
    def methods(self):
        return list(dict.fromkeys(method for _, method in self.cells))

    def summary(self):
        """One dict per (task, method): mean, std, fit time, best and Welch-test outcome."""
        rows = []
        for task in self.tasks:
            cells = {m: c for (t, m), c in self.cells.items() if t == task}
            means = {m: float(np.mean(c.values)) for m, c in cells.items() if c.values}
            if not means:
                continue
            best = (min if self.lower_is_better else max)(means, key=means.get)
            for method, cell in cells.items():
                p_value = _welch_p_value(cell.values, cells[best].values)
                rows.append(
                    {
                        "task": task,
                        **{k: v for k, v in self.task_info.get(task, {}).items()},
                        "method": method,
                        "mean": means.get(method, float("nan")),
                        "std": float(np.std(cell.values, ddof=1)) if len(cell.values) > 1 else 0.0,
                        "n_runs": len(cell.values),
                        "fit_seconds": float(np.mean(cell.fit_seconds)) if cell.fit_seconds else None,
                        "best": method == best,
                        "p_value_vs_best": p_value,
                        "not_worse_than_best": method == best or not p_value < self.alpha,
                    }
                )
        return rows

    def to_markdown(self):
        """A task × method table of ``mean (± std)``; bold where not significantly worse."""
        caption, header, rows, footer = self.to_rows()
        lines = [caption, "", _markdown_row(header), _markdown_row("---" for _ in header)]
        lines += [_markdown_row(row) for row in rows]
        if footer:
            lines += ["", footer]
        return "\n".join(lines)

    def to_rows(self):
        """``(caption, header, rows, footer)`` of :meth:`to_markdown`, cells as Markdown text."""
        info_keys = list(dict.fromkeys(k for info in self.task_info.values() for k in info))
        header = ["task", *info_keys, *self.methods]
        caption = (
            f"**{self.title}** — {self.metric}, mean (± std); bold: not significantly worse than the "
            f"best (Welch's t-test, p = {self.alpha})."
        )
        summary = {(r["task"], r["method"]): r for r in self.summary()}
        rows = []
        for task in self.tasks:
            info = self.task_info.get(task, {})
            row = [task, *(_format_value(info.get(k, "")) for k in info_keys)]
            for method in self.methods:
                r = summary.get((task, method))
                if r is None:
                    row.append("")
                    continue
                text = f"{r['mean']:.4g} (± {r['std']:.2g})"
                row.append(f"**{text}**" if r["not_worse_than_best"] else text)
            rows.append(row)
        return caption, header, rows, self._time_line()

    def _time_line(self):
        totals = {}
        for (_, method), cell in self.cells.items():
            if cell.fit_seconds:
                totals[method] = totals.get(method, 0.0) + float(np.sum(cell.fit_seconds))
        if not totals:
            return ""
        return "Total fit time (s): " + ", ".join(f"{m} {s:.3g}" for m, s in totals.items())

    def to_csv(self):
        rows = self.summary()
        buffer = io.StringIO()
        if rows:
            keys = list(dict.fromkeys(k for r in rows for k in r))
            writer = csv.DictWriter(buffer, fieldnames=keys)
            writer.writeheader()
            writer.writerows(rows)
        return buffer.getvalue()

    def to_json(self):
        return {
            "title": self.title,
            "metric": self.metric,
            "lower_is_better": self.lower_is_better,
            "alpha": self.alpha,
            "summary": self.summary(),
            "scores": [
                {"task": t, "method": m, "values": c.values, "fit_seconds": c.fit_seconds}
                for (t, m), c in self.cells.items()
            ],
        }


def _welch_p_value(a, b):
    if a is b or len(a) < 2 or len(b) < 2:
        return float("nan") if a is not b else 1.0
    if np.std(a) == 0 and np.std(b) == 0:
        return 1.0 if np.mean(a) == np.mean(b) else 0.0
    return float(stats.ttest_ind(a, b, equal_var=False).pvalue)


def _markdown_row(cells):
    return "| " + " | ".join(cells) + " |"


def print_table(console, caption, header, rows, footer=""):
    """Print a Markdown table on ``console`` without truncating a cell.

    A table wider than the console is printed as several tables, each with the first column and as
    many of the others as fit, in order; cells never wrap or shrink, so every number and name can be
    read and copied (the files keep the whole table).
    """
    from rich.markdown import Markdown
    from rich.table import Table
    from rich.text import Text

    def plain(text):
        return str(text).replace("**", "")

    widths = [max(len(plain(c)) for c in column) for column in zip(header, *rows, strict=True)]
    chunks, current, used = [], [], widths[0] + 4
    for j in range(1, len(header)):
        if current and used + widths[j] + 3 > console.width:
            chunks.append(current)
            current, used = [], widths[0] + 4
        current.append(j)
        used += widths[j] + 3
    chunks.append(current)
    console.print(Markdown(caption))
    for k, chunk in enumerate(chunks):
        if k:
            console.print()
        grid = Table(box=None, show_edge=False, pad_edge=False, header_style="bold")
        for j in [0, *chunk]:
            grid.add_column(header[j], no_wrap=True, overflow="ignore")
        for row in rows:
            grid.add_row(
                *(Text(plain(row[j]), style="bold" if row[j].startswith("**") else "") for j in [0, *chunk])
            )
        console.print(grid)
    if footer:
        console.print(footer)


def _format_value(value):
    if isinstance(value, float):
        return f"{value:.3g}"
    return str(value)


class RunContext:
    """What an experiment receives: options, output folder, console, progress and reporting.

    Parameters
    ----------
    quick : bool
        Run the small form (minutes) instead of the full experiment.
    out : path-like
        Folder the tables and figures are written to (created if needed).
    n_jobs : int, default=1
        Parallel jobs for cross-validation.
    random_state : int, default=0
        Seed of every random choice of the experiment.
    console : rich.console.Console, optional
    show_progress : bool, default=True
    command : str, optional
        Command line recorded in the results files (default: ``sys.argv``).
    resume : bool, default=False
        Reuse the cells stored under ``out/cells`` by an earlier run with the same options
        (:meth:`cell`).
    only : sequence of str, optional
        Run only these tasks (:meth:`select`).
    experiment : str, optional
        Name of the experiment run, recorded in each cell (a cell of another experiment is foreign).
    """

    def __init__(
        self,
        *,
        quick,
        out,
        n_jobs=1,
        random_state=0,
        console=None,
        show_progress=True,
        command=None,
        resume=False,
        only=None,
        experiment=None,
    ) -> None:
        from rich.console import Console

        self.quick = bool(quick)
        self.out = check_output_folder(out)
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.console = console if console is not None else Console()
        self.show_progress = show_progress
        self.command = command
        self.resume = bool(resume)
        self.only = None if only is None else tuple(only)
        self.experiment = experiment
        self.written: list[Path] = []

    @contextmanager
    def progress(self, total, description):
        """Context manager yielding ``advance(n=1)``.

        Shows a rich progress bar on a terminal; elsewhere (a log file, CI) it prints a plain line
        with the count, the elapsed time and an estimate of the time left, at most every 30 seconds
        and at the end.
        """
        if not self.show_progress:
            yield lambda n=1: None
            return
        if not self.console.is_terminal:
            yield _progress_lines(self.console, total, description)
            return
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

        with Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=self.console,
            transient=False,
        ) as bar:
            task = bar.add_task(description, total=total)
            yield lambda n=1: bar.advance(task, n)

    def cell(self, key, compute, *, advance=None, units=0):
        """The value of one unit of work, computed by ``compute()`` or, when resuming, read back.

        The value (anything JSON can hold: numbers, lists, dicts of them) is written to
        ``out/cells/<key>.json`` with what identifies it (:data:`CELL_FORMAT`, the experiment, the
        key, the seed and the quick flag) and a digest of the value. With ``resume`` a stored cell of
        this experiment, key, seed and form is returned instead of calling ``compute``; any other
        stored cell — torn, foreign (another experiment, key, seed or form, another format, or no
        identity) or edited — is reported in one line naming its path on the console and recomputed,
        never mixed in silently. A ``compute`` that advances a progress bar by ``units`` steps as it
        goes names that bar's ``advance``: a cell read back advances it by ``units`` at once.
        """
        if not key or any(c in key for c in "/\\\0"):
            raise ValueError(f"A cell key must be a non-empty file name, got {key!r}.")
        path = self.out / "cells" / f"{key}.json"
        identity = {
            "format": CELL_FORMAT,
            "experiment": self.experiment,
            "key": key,
            "seed": self.random_state,
            "quick": self.quick,
        }
        if self.resume and path.is_file():
            stored, problem = _read_cell(path, identity)
            if problem is None:
                if advance is not None and units:
                    advance(units)
                return stored["value"]
            self.console.print(f"[yellow]{path}: {problem}; recomputing it.[/]", soft_wrap=True)
        value = json.loads(json.dumps(compute(), default=_jsonable))
        path.parent.mkdir(parents=True, exist_ok=True)
        record = {**identity, "digest": _digest(value), "value": value, **provenance(self.command)}
        write_atomic(path, json.dumps(record, indent=1))
        return value

    def select(self, names):
        """``names`` restricted to :attr:`only` (all of them when ``only`` is None), in order."""
        if self.only is None:
            return tuple(names)
        unknown = sorted(set(self.only) - set(names))
        if unknown:
            raise ValueError(
                f"Unknown task(s) {', '.join(unknown)} for --only; choose from {', '.join(names)}."
            )
        return tuple(name for name in names if name in self.only)

    def cross_validate(self, estimator, X, y, cv, scoring):
        """Per-fold test scores and fit times of ``estimator`` (``sklearn.model_selection``).

        Precomputed-kernel estimators and pipelines are split correctly through their ``pairwise``
        tag. Returns ``(scores, fit_seconds)`` as arrays. BLAS runs on one thread when the data are
        small (fits, predictions and scores alike: :func:`krein._threads.blas_for_rows`).
        """
        from sklearn.model_selection import cross_validate

        with blas_for_rows(len(y)):
            result = cross_validate(
                estimator, X, y, cv=cv, scoring=scoring, n_jobs=self.n_jobs, error_score="raise"
            )
        return result["test_score"], result["fit_time"]

    def _stamp(self):
        return {"seed": self.random_state, "quick": self.quick, **provenance(self.command)}

    def report(self, table, name):
        """Print ``table`` and write ``name``.md, .csv and .json (with provenance) to ``out``."""
        self.out.mkdir(parents=True, exist_ok=True)
        stamp = self._stamp()
        markdown = table.to_markdown()
        print_table(self.console, *table.to_rows())
        header = "<!-- " + json.dumps(stamp) + " -->\n\n"
        paths = {
            "md": header + markdown + "\n",
            "csv": "".join(f"# {k}: {v}\n" for k, v in stamp.items()) + table.to_csv(),
            "json": json.dumps({"provenance": stamp, **table.to_json()}, indent=2, default=_jsonable),
        }
        for suffix, text in paths.items():
            self.written.append(write_atomic(self.out / f"{name}.{suffix}", text))

    def report_rows(self, rows, name, title):
        """Print a plain table (a list of dicts) and write it as ``name``.md, .csv and .json."""
        self.out.mkdir(parents=True, exist_ok=True)
        stamp = self._stamp()
        keys = list(dict.fromkeys(k for row in rows for k in row))
        lines = [f"**{title}**", "", _markdown_row(keys), _markdown_row("---" for _ in keys)]
        lines += [_markdown_row(_format_value(row.get(k, "")) for k in keys) for row in rows]
        markdown = "\n".join(lines)
        print_table(
            self.console,
            f"**{title}**",
            keys,
            [[_format_value(row.get(k, "")) for k in keys] for row in rows],
        )
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=keys)
        writer.writeheader()
        writer.writerows(rows)
        texts = {
            "md": "<!-- " + json.dumps(stamp) + " -->\n\n" + markdown + "\n",
            "csv": "".join(f"# {k}: {v}\n" for k, v in stamp.items()) + buffer.getvalue(),
            "json": json.dumps(
                {"provenance": stamp, "title": title, "rows": rows}, indent=2, default=_jsonable
            ),
        }
        for suffix, text in texts.items():
            self.written.append(write_atomic(self.out / f"{name}.{suffix}", text))

    def write_json(self, data, name):
        """Write extra results (with provenance) as ``name``.json."""
        self.out.mkdir(parents=True, exist_ok=True)
        path = write_atomic(
            self.out / f"{name}.json",
            json.dumps({"provenance": self._stamp(), **data}, indent=2, default=_jsonable),
        )
        self.written.append(path)
        return path

    def save_figure(self, figure, name):
        """Save a matplotlib figure as ``name``.png (with provenance in the PNG metadata)."""
        import matplotlib.pyplot as plt

        self.out.mkdir(parents=True, exist_ok=True)
        stamp = self._stamp()
        buffer = io.BytesIO()
        figure.savefig(
            buffer, format="png", dpi=120, bbox_inches="tight", metadata={"Description": json.dumps(stamp)}
        )
        plt.close(figure)
        path = write_atomic(self.out / f"{name}.png", buffer.getvalue())
        self.written.append(path)
        return path


def _progress_lines(console, total, description):
    """``advance(n=1)`` printing ``description: k/total, elapsed, left`` as plain lines."""
    start = last = time.perf_counter()
    done = 0

    def advance(n=1):
        nonlocal done, last
        done += n
        now = time.perf_counter()
        if now - last < 30.0 and done < total:
            return
        last = now
        elapsed = now - start
        left = elapsed / done * (total - done) if done else float("nan")
        console.print(
            f"{description}: {done}/{total}, {elapsed / 60:.1f} min elapsed, about {left / 60:.1f} min left"
        )

    return advance


def _digest(value):
    """SHA-256 of the canonical JSON of a cell's value (its keys sorted)."""
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode("utf-8")).hexdigest()


def _read_cell(path, identity):
    """``(record, None)`` for the cell stored at ``path`` when it is the cell ``identity`` names, whole
    and unedited; ``(None, what is wrong)`` otherwise (torn, foreign, edited)."""
    try:
        stored = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None, "not a valid cell (torn: not readable JSON)"
    if not isinstance(stored, dict) or "value" not in stored:
        return None, "not a valid cell (foreign: not a cell record)"
    if "format" not in stored or "key" not in stored:
        return None, "a foreign cell (it records no identity: written by an older krein or by hand)"
    differ = [
        f"{name} {stored.get(name)!r} (this run: {expected!r})"
        for name, expected in identity.items()
        if stored.get(name) != expected
    ]
    if differ:
        return None, "a foreign cell: " + ", ".join(differ)
    if stored.get("digest") != _digest(stored["value"]):
        return None, "an edited cell (its value does not match its digest)"
    return stored, None


def _jsonable(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)

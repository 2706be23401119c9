"""The ``krein`` command: ``info``, ``datasets``, ``spectrum``, ``embed``, ``reproduce`` and ``bench``.

Every user error (a bad argument, an unknown name, a missing file, an unusable ``--out``) ends in one
line on stderr that names the argument and says what to do, and exit status 2; ``krein --debug ...``
shows the traceback instead. :func:`main` does this for every subcommand: a subcommand reports a
mistake by raising :class:`UsageError` (or lets the library's ``ValueError``/``TypeError``/``OSError``
through).
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
from contextlib import ExitStack
from pathlib import Path

import numpy as np

from ._interrupt import Terminated, install_stop_handlers, restore_handlers, stop_exit_status

__all__ = ["UsageError", "main"]

#: Experiment run by ``krein reproduce`` when no name is given.
SHOWCASE = "showcase"

#: Exit status of a user error (as argparse uses).
USAGE_ERROR = 2

#: The source checkout this package runs from (``src/krein/cli.py`` lies two folders below it); for
#: an installed package a folder that has no ``benchmarks/`` or ``docs/results/``.
_SOURCE_ROOT = Path(__file__).resolve().parents[2]


class UsageError(Exception):
    """A mistake on the command line; :func:`main` prints it as one line on stderr and exits with 2.

    The message names the argument and the fix, e.g. ``"--npy k.npy: no such file; give the path of
    a matrix saved with numpy.save"``.
    """


class _Parser(argparse.ArgumentParser):
    """argparse, but a parse error is a :class:`UsageError` (one line, no usage block)."""

    def error(self, message):
        raise UsageError(f"{self.prog}: error: {message} (see {self.prog} --help)")


def _console():
    from rich.console import Console

    return Console()


def cmd_info(args):
    """Versions of krein and its dependencies, BLAS libraries and thread counts."""

    from rich.table import Table
    from threadpoolctl import threadpool_info

    from .experiments import provenance

    console = _console()
    table = Table(title="krein", show_header=False)
    for key, value in provenance().items():
        if key not in ("command", "date"):
            table.add_row(key, str(value))
    table.add_row("cpu count", str(os.cpu_count()))
    for pool in threadpool_info():
        name = f"{pool.get('user_api')}: {pool.get('internal_api')} {pool.get('version') or ''}".strip()
        table.add_row(name, f"{pool.get('num_threads')} threads ({Path(pool.get('filepath', '')).name})")
    console.print(table)
    return 0


def cmd_datasets(args):
    """List the datasets shipped with krein: kind, size, classes, official split (fits 80 columns)."""
    from rich.table import Table

    from .datasets import list_datasets

    table = Table(
        title="datasets shipped with krein (krein spectrum --dataset NAME)",
        box=None,
        padding=(0, 1, 0, 0),
    )
    for key in ("name", "kind", "n", "d", "classes", "split", "natural"):
        table.add_column(key, no_wrap=True, justify="right" if key == "n" else "left")
    for row in list_datasets():
        split = "-" if row["split"] is None else "/".join(map(str, row["split"]))
        classes = "real" if row["classes"] is None else str(row["classes"])
        table.add_row(row["name"], row["kind"], str(row["n"]), str(row["d"]), classes, split, row["natural"])
    _console().print(table)
    return 0


def _spectrum_kernel(args):
    """The kernel matrix ``krein spectrum`` reports on, a short label and a description."""
    _check_sampling(args)
    if args.npy is not None:
        return _load_kernel_matrix(args.npy), Path(args.npy).stem, args.npy
    if args.dataset is None:
        raise UsageError("give --dataset NAME (with --kernel) or --npy FILE.")
    from .datasets import load_dataset, natural_kernel, standardize

    _check_dataset(args.dataset)
    if args.kernel is None:
        K, _, description = natural_kernel(args.dataset, max_samples=args.max_samples, random_state=args.seed)
        return K, args.dataset, description
    bunch = load_dataset(args.dataset)
    if bunch.kind in ("dissimilarity", "similarity"):
        raise UsageError(f"--kernel: {args.dataset} is a {bunch.kind} matrix; leave out --kernel.")
    X = standardize(np.asarray(bunch.data, dtype=float).reshape(len(bunch.target), -1))
    if args.max_samples and X.shape[0] > args.max_samples:
        X = X[np.random.default_rng(args.seed).choice(X.shape[0], args.max_samples, replace=False)]
    kernel = _named_kernel(args.kernel, X, args.seed)
    return kernel(X), f"{args.dataset}-{args.kernel}", repr(kernel)


def _named_kernel(name, X, seed):
    """The kernel ``--kernel NAME`` builds on the data ``X``: every alias of a kernel class builds the
    same kernel (``gaussian``, ``rbf`` and ``GAUSS`` alike), with the hyperparameters drawn by Appendix
    E.1 of Oglic & Gärtner (2018) for the kernels of Appendix D and the defaults otherwise."""
    from .kernels import APPENDIX_D_CLASSES, initial_kernel, make_kernel

    try:
        kernel = make_kernel(name)
    except ValueError as error:
        raise UsageError(f"--kernel: {error}") from error
    if kernel == "precomputed":
        raise UsageError("--kernel precomputed: give the matrix with --npy FILE instead.")
    if type(kernel) in APPENDIX_D_CLASSES:
        return initial_kernel(APPENDIX_D_CLASSES[type(kernel)], X, random_state=seed)
    return kernel


def _load_kernel_matrix(path):
    """The square, finite matrix saved at ``path`` (``--npy``), or a :class:`UsageError`."""
    if not Path(path).is_file():
        raise UsageError(f"--npy {path}: no such file; give a kernel matrix saved with numpy.save.")
    try:
        K = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as error:
        raise UsageError(f"--npy {path}: not a NumPy .npy array ({error}).") from error
    if K.ndim != 2 or K.shape[0] != K.shape[1] or K.dtype.kind not in "iuf" or not np.all(np.isfinite(K)):
        raise UsageError(
            f"--npy {path}: expected a finite square numeric matrix, got shape {K.shape} of {K.dtype}."
        )
    K = np.asarray(K, dtype=float)
    from ._validation import SYMMETRY_RTOL, symmetry_error

    asymmetry = symmetry_error(K)
    if asymmetry > SYMMETRY_RTOL:
        raise UsageError(
            f"--npy {path}: the matrix is not symmetric (max|K - K.T| / max|K| = {asymmetry:.3g} exceeds "
            f"{SYMMETRY_RTOL:g}), so it has no real spectrum; save the symmetric part 0.5 * (K + K.T)."
        )
    return K


def cmd_spectrum(args):
    """Spectrum statistics (n, min/max eigenvalue, #positive, #negative, ι) and a PNG plot."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from rich.table import Table

    from .spectral import eigendecompose, spectrum_summary

    K, label, description = _spectrum_kernel(args)
    out = _output_folder(args.out)
    values = eigendecompose(K).values
    summary = spectrum_summary(values)
    table = Table(title=f"spectrum of {label}: {description}")
    for key in summary:
        table.add_column(key)
    table.add_row(*(f"{v:.4g}" if isinstance(v, float) else str(v) for v in summary.values()))
    console = _console()
    console.print(table)
    figure, axis = plt.subplots(figsize=(6, 3.5))
    ordered = values[::-1]
    axis.plot(np.arange(1, ordered.size + 1), ordered, ".", markersize=3)
    axis.axhline(0.0, color="grey", linewidth=0.8)
    axis.set_xlabel("index (descending)")
    axis.set_ylabel("eigenvalue")
    axis.set_yscale("symlog", linthresh=max(1e-6, float(np.max(np.abs(values))) * 1e-4))
    axis.set_title(f"{label}: ι = {summary['indefiniteness']:.3f}", fontsize=9)
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in label)[:80]
    path = _write_figure(figure, out / f"spectrum_{name}.png")
    console.print(f"plot written to {path}")
    return 0


def cmd_embed(args):
    """Pseudo-Euclidean embedding of a shipped dataset's natural kernel: a PNG scatter and spectrum."""
    import matplotlib

    matplotlib.use("Agg")
    from rich.table import Table

    from .datasets import natural_kernel
    from .embedding import KreinPCA
    from .plotting import plot_embedding

    _check_dataset(args.dataset)
    _check_sampling(args)
    out = _output_folder(args.out)
    try:
        K, y, description = natural_kernel(
            args.dataset, method=args.method, max_samples=args.max_samples, random_state=args.seed
        )
    except ValueError as error:
        if args.method is None or "method" not in str(error):
            raise
        raise UsageError(f"--method {args.method}: {error}") from error
    pca = KreinPCA("precomputed").fit(K)
    table = Table(title=f"Kreĭn embedding of {description}")
    for column in ("n", "p", "q", "ι", "shown: pos 1+2", "shown: neg 1"):
        table.add_column(column)
    positive, negative = pca.explained_ratio_[pca.signature_ > 0], pca.explained_ratio_[pca.signature_ < 0]
    table.add_row(
        str(K.shape[0]),
        str(pca.n_positive_),
        str(pca.n_negative_),
        f"{pca.indefiniteness_:.3f}",
        f"{100 * positive[:2].sum():.1f}% of Σ|λ|",
        f"{100 * negative[:1].sum():.1f}% of Σ|λ|",
    )
    console = _console()
    console.print(table)
    figure = plot_embedding(pca, y, title=description)
    label = args.dataset if args.method is None else f"{args.dataset}-{args.method}"
    path = _write_figure(figure, out / f"embedding_{label}.png")
    console.print(f"plot written to {path}")
    return 0


def cmd_reproduce(args):
    """Run one experiment, every experiment (``all``), or list them (``--list``)."""
    from rich.table import Table

    from .experiments import RunContext, get_experiment, list_experiments, output_lock

    console = _console()
    if args.list:
        # Names are never wrapped or cut (they are what a user copies); the text column wraps.
        table = Table(title="experiments (krein reproduce NAME [--quick])", title_justify="left")
        table.add_column("name", no_wrap=True)
        table.add_column("min", no_wrap=True, justify="right")
        table.add_column("reproduces: description", ratio=1)
        for e in list_experiments():
            minutes = f"{e.quick_minutes:g}/{e.full_minutes:g}"
            table.add_row(e.name, minutes, f"[italic]{e.paper}[/]: {e.description}")
        table.caption = "min: minutes of the quick/full form"
        console.print(table)
        return 0
    name = args.name or SHOWCASE
    names = [e.name for e in list_experiments()]
    if name == "all":
        experiments = [e for e in list_experiments() if e.name != SHOWCASE]
    elif name in names:
        experiments = [get_experiment(name)]
    else:
        raise UsageError(
            f"NAME: unknown experiment {name!r}; choose one of: all, {', '.join(names)} "
            "(krein reproduce --list)."
        )
    if args.only and not all(e.selectable for e in experiments):
        fixed = ", ".join(e.name for e in experiments if not e.selectable)
        raise UsageError(f"--only is not supported by {fixed} (it runs all its tasks); leave --only out.")
    if args.n_jobs == 0:
        raise UsageError("--n-jobs must be a positive number of jobs, or negative (-1: every CPU); got 0.")
    _check_seed(args.seed)
    _output_folder(args.out)
    folders = []
    try:
        for e in experiments:
            out = Path(args.out) / e.name if name == "all" else Path(args.out)
            console.rule(f"[bold]{e.name}[/bold] — {e.paper}" + (" (quick)" if args.quick else ""))
            folders.append(out)
            out.mkdir(parents=True, exist_ok=True)
            with ExitStack() as held:
                try:
                    held.enter_context(output_lock(out))  # a second run into this folder is refused
                except BlockingIOError as error:
                    raise UsageError(f"--out: {error}") from None
                context = RunContext(
                    quick=args.quick,
                    out=out,
                    n_jobs=args.n_jobs,
                    random_state=args.seed,
                    console=console,
                    command=args.command_line,
                    resume=args.resume,
                    only=args.only,
                    experiment=e.name,
                )
                e.run(context)
            for path in context.written:
                console.print(f"wrote {path}")
    except KeyboardInterrupt as stop:
        print(_stopped_line(stop, folders, args), file=sys.stderr)
        return stop_exit_status(stop)
    return 0


def _stopped_line(stop, folders, args):
    """One line: how the run was stopped, the finished cells kept and the command that resumes it."""
    import shlex

    signal_name = "SIGTERM" if isinstance(stop, Terminated) else "SIGINT"
    kept = sum(1 for folder in folders for _ in (folder / "cells").glob("*.json"))
    where = ", ".join(str(folder / "cells") for folder in folders) or str(Path(args.out) / "cells")
    argv = list(args.argv)
    if "--resume" not in argv:
        argv.append("--resume")
    return (
        f"krein reproduce: stopped by {signal_name}; kept {kept} finished cell(s) in {where}, every file "
        f"written is whole; continue with: {shlex.join(['krein', *argv])}"
    )


def cmd_results(args):
    """Check every NOTES.md's marked numbers against its JSON (after rewriting them from it with
    ``--refresh``), its paper numbers against the paper data and its ``differs:`` line against the
    experiment's declared protocol changes, and print (or write) the fidelity table."""
    from rich.table import Table

    from .experiments import check_notes, fidelity_markdown, fidelity_problems, fidelity_rows, refresh_notes

    console = _console()
    results = _results_folder(args.dir)
    if args.refresh:
        for notes in sorted(results.glob("**/NOTES.md")):
            for line, old, new in refresh_notes(notes):
                console.print(f"{notes}:{line}: {old} → {new} (read the sentence again)")
    problems = [p for notes in sorted(results.glob("**/NOTES.md")) for p in check_notes(notes)]
    problems += fidelity_problems(results)
    rows = fidelity_rows(results)
    table = Table(title=f"reproduced results ({results})")
    for column in ("experiment", "form", "within ± 1 std / compared", "verdict"):
        table.add_column(column)
    for row in rows:
        table.add_row(*(row[c] for c in ("experiment", "form", "within ± 1 std / compared", "verdict")))
    console.print(table)
    if args.write:
        path = _write_output(results / "fidelity.md", fidelity_markdown(results), argument="--dir")
        console.print(f"wrote {path}")
    for problem in problems:
        console.print(f"[red]{problem}[/red]")
    return 1 if problems else 0


def _results_folder(directory):
    """``--dir`` (None: docs/results of the checkout, :func:`_checkout_folder`) as a results folder:
    it exists, holds at least one NOTES.md, and every JSON file in it is a JSON object (a cell under
    ``cells/`` a record with ``seed``, ``quick`` and ``value``); otherwise a :class:`UsageError` naming
    the folder or the file (a mistyped ``--dir`` printed an empty table and exited 0; a torn or foreign
    cell was reported without its path)."""
    import json

    if directory is None:
        results = _checkout_folder("results", "docs/results", "or give --dir DIR")
    else:
        results = Path(directory)
        if not results.is_dir():
            raise UsageError(
                f"--dir {directory}: no such folder; give the results folder (docs/results of a source "
                "checkout)."
            )
    if next(results.glob("**/NOTES.md"), None) is None:
        raise UsageError(
            f"--dir {results}: no experiment folder with a NOTES.md under it; give the results folder "
            "(docs/results of a source checkout)."
        )
    for path in sorted(results.glob("**/*.json")):
        try:
            stored = json.loads(path.read_text())
        except (OSError, UnicodeDecodeError, ValueError) as error:
            raise UsageError(
                f"{path}: not a readable JSON result ({error}); the file is torn or foreign: recompute it "
                "(krein reproduce NAME --resume) or remove it."
            ) from error
        cell = "cells" in path.relative_to(results).parts[:-1]
        if not isinstance(stored, dict) or (cell and not {"seed", "quick", "value"} <= stored.keys()):
            raise UsageError(
                f"{path}: not a result {'cell' if cell else 'file'} of krein (a JSON "
                f"{'record with seed, quick and value' if cell else 'object'} expected); the file is "
                "foreign: recompute it (krein reproduce NAME --resume) or remove it."
            )
    return results


def cmd_bench(args):
    """Run ``benchmarks/bench_NAME.py`` of a source checkout."""
    folder = _checkout_folder("bench", "benchmarks")
    script = folder / f"bench_{args.name}.py"
    if not script.is_file():
        available = sorted(p.stem[6:] for p in folder.glob("bench_*.py"))
        raise UsageError(
            f"NAME: no benchmark {args.name!r} in {folder}; available: {', '.join(available) or 'none'}."
        )
    saved, sys.argv = sys.argv, [str(script), *args.bench_args]
    try:
        runpy.run_path(str(script), run_name="__main__")
    finally:
        sys.argv = saved  # the caller's arguments, as they were (main() may run in a longer process)
    return 0


def _checkout_folder(command, relative, alternative=""):
    """``relative`` (a folder of the source repository that the package does not ship) in the working
    directory or in the checkout this package runs from; outside a checkout a :class:`UsageError`
    that says so and where to get one."""
    for root in (Path.cwd(), _SOURCE_ROOT):
        if (root / relative).is_dir():
            return root / relative
    raise UsageError(
        f"krein {command}: error: {relative}/ not found: krein {command} reads the {relative}/ folder of a "
        "source checkout, which an installed package does not include; run it from the root of a clone "
        f"of the krein git repository{' ' + alternative if alternative else ''}."
    )


def _check_dataset(name):
    from .datasets import list_datasets

    names = sorted({row["name"] for row in list_datasets()})
    if name not in names:
        raise UsageError(f"--dataset {name!r} is not a shipped dataset; choose one of: {', '.join(names)}.")


def _check_seed(seed):
    if not 0 <= seed < 2**32:
        raise UsageError(f"--seed must be an integer from 0 to 2**32 - 1, got {seed}.")


def _check_sampling(args):
    """``--max-samples`` and ``--seed`` of the subcommands that subsample a dataset; ``--max-samples 0``
    (no subsampling, as documented) becomes None."""
    if args.max_samples is not None and (args.max_samples < 0 or args.max_samples == 1):
        raise UsageError(
            f"--max-samples must be an integer of at least 2 (0: no subsampling), got {args.max_samples}."
        )
    args.max_samples = args.max_samples or None
    _check_seed(args.seed)


def _write_output(path, data, argument="--out"):
    """``write_atomic(path, data)``; an error names ``path`` (the user's), never the temporary file."""
    from .experiments import write_atomic

    try:
        return write_atomic(path, data)
    except OSError as error:
        raise UsageError(
            f"{argument}: cannot write {path} ({error.strerror or error}); give a folder where it can be "
            "written."
        ) from error


def _write_figure(figure, path):
    """Save a matplotlib figure as a PNG at ``path`` (atomically) and close it."""
    import io

    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=120, bbox_inches="tight")
    plt.close(figure)
    return _write_output(path, buffer.getvalue())


def _output_folder(out):
    """``--out`` as a writable folder (created if needed), or a :class:`UsageError` naming it."""
    from .experiments import check_output_folder

    try:
        return check_output_folder(out)
    except (ValueError, OSError) as error:
        raise UsageError(f"--out: {error}") from error


def build_parser():
    parser = _Parser(
        prog="krein", description="Learning with indefinite kernels: experiments and diagnostics."
    )
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    sub = parser.add_subparsers(dest="command", required=True)

    sub.add_parser("info", help="versions, BLAS and threads").set_defaults(func=cmd_info)
    sub.add_parser("datasets", help="list the shipped datasets").set_defaults(func=cmd_datasets)

    spectrum = sub.add_parser("spectrum", help="spectrum statistics and plot of a kernel matrix")
    spectrum.add_argument("--dataset", help="a shipped dataset (see `krein datasets`)")
    spectrum.add_argument(
        "--kernel",
        help="kernel name (e.g. SIGMOID, DELTA-GAUSS, gaussian); default: the dataset's natural "
        "dissimilarity or kernel",
    )
    spectrum.add_argument("--npy", help="a kernel matrix saved with numpy.save")
    spectrum.add_argument(
        "--max-samples", type=int, default=2000, help="subsample larger datasets (0: no subsampling)"
    )
    spectrum.add_argument("--seed", type=int, default=0)
    spectrum.add_argument("--out", default="krein-results", help="folder for the PNG plot")
    spectrum.set_defaults(func=cmd_spectrum)

    embed = sub.add_parser("embed", help="pseudo-Euclidean embedding of a dataset: scatter and spectrum PNG")
    embed.add_argument("--dataset", required=True, help="a shipped dataset (see `krein datasets`)")
    embed.add_argument(
        "--method", help="the dataset's (dis)similarity, e.g. edit, dtw, tangent, simpson (default: natural)"
    )
    embed.add_argument(
        "--max-samples", type=int, default=1000, help="subsample larger datasets (0: no subsampling)"
    )
    embed.add_argument("--seed", type=int, default=0)
    embed.add_argument("--out", default="krein-results", help="folder for the PNG plot")
    embed.set_defaults(func=cmd_embed)

    reproduce = sub.add_parser("reproduce", help="run a paper experiment (default: the showcase)")
    reproduce.add_argument("name", nargs="?", help="experiment name, or 'all'; see --list")
    reproduce.add_argument("--list", action="store_true", help="list experiments and run times")
    reproduce.add_argument("--quick", action="store_true", help="the small form (minutes)")
    reproduce.add_argument("--out", default="krein-results", help="output folder")
    reproduce.add_argument("--n-jobs", type=int, default=1, help="parallel jobs")
    reproduce.add_argument("--seed", type=int, default=0, help="random seed")
    reproduce.add_argument(
        "--resume",
        action="store_true",
        help="reuse the finished cells of an earlier run with the same --out (continue a stopped run)",
    )
    reproduce.add_argument("--only", nargs="+", metavar="TASK", help="run only these tasks (data sets)")
    reproduce.set_defaults(func=cmd_reproduce)

    results = sub.add_parser(
        "results", help="check the NOTES.md numbers and protocol changes and show the fidelity table"
    )
    results.add_argument(
        "--dir", help="the results folder of a source checkout (default: docs/results of the checkout)"
    )
    results.add_argument("--write", action="store_true", help="(re)write DIR/fidelity.md")
    results.add_argument(
        "--refresh",
        action="store_true",
        help="first rewrite every marked number of the NOTES.md files from their JSON (lists what changed)",
    )
    results.set_defaults(func=cmd_results)

    bench = sub.add_parser("bench", help="run benchmarks/bench_NAME.py of a source checkout")
    bench.add_argument("name")
    bench.add_argument("bench_args", nargs=argparse.REMAINDER)
    bench.set_defaults(func=cmd_bench)
    return parser


def main(argv=None):
    """Run the ``krein`` command; a user error is one line on stderr and exit status 2 (see module doc)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    previous = install_stop_handlers()  # SIGTERM stops a run as Ctrl-C does: cleanly, its own status
    try:
        return _main(argv)
    finally:
        restore_handlers(previous)


def _main(argv):
    debug = "--debug" in argv
    command = "krein"
    try:
        args, unknown = build_parser().parse_known_args(argv)
        command = f"krein {args.command}"
        if unknown:
            raise UsageError(
                f"{command}: error: unrecognized arguments: {' '.join(unknown)} (see {command} --help)"
            )
        args.command_line = " ".join(["krein", *argv])
        args.argv = argv
        return args.func(args)
    except UsageError as error:
        if debug:
            raise
        message = str(error)
    except (ValueError, TypeError, OSError) as error:
        if debug:
            raise
        message = f"{error} (krein --debug {' '.join(argv)} shows the traceback)"
    except SystemExit as error:
        if debug or error.code is None or isinstance(error.code, int):
            raise
        message = str(error.code)
    except KeyboardInterrupt as stop:
        print(f"{command}: interrupted", file=sys.stderr)
        return stop_exit_status(stop)
    line = " ".join(message.split())
    if not line.startswith("krein"):
        line = f"{command}: error: {line}"
    print(line, file=sys.stderr)
    return USAGE_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

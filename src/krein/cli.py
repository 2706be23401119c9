"""The ``krein`` command: ``info``, ``datasets``, ``spectrum``, ``embed``, ``reproduce`` and ``bench``."""

from __future__ import annotations

import argparse
import os
import runpy
import sys
from pathlib import Path

import numpy as np

__all__ = ["main"]

#: Experiment run by ``krein reproduce`` when no name is given.
SHOWCASE = "showcase"


def _console():
    from rich.console import Console

    return Console()


def cmd_info(args):
    """Versions of krein and its dependencies, BLAS libraries and thread counts."""
    import os

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
    if args.npy is not None:
        return np.load(args.npy), Path(args.npy).stem, args.npy
    if args.dataset is None:
        raise SystemExit("krein spectrum: give --dataset NAME (with --kernel) or --npy FILE.")
    from .datasets import load_dataset, natural_kernel, standardize
    from .kernels import initial_kernel, make_kernel

    if args.kernel is None:
        K, _, description = natural_kernel(args.dataset, max_samples=args.max_samples, random_state=args.seed)
        return K, args.dataset, description
    bunch = load_dataset(args.dataset)
    if bunch.kind in ("dissimilarity", "similarity"):
        raise SystemExit(f"krein spectrum: {args.dataset} is a {bunch.kind} matrix; leave out --kernel.")
    X = standardize(np.asarray(bunch.data, dtype=float).reshape(len(bunch.target), -1))
    if args.max_samples and X.shape[0] > args.max_samples:
        X = X[np.random.default_rng(args.seed).choice(X.shape[0], args.max_samples, replace=False)]
    try:
        kernel = initial_kernel(args.kernel, X, random_state=args.seed)
    except ValueError:
        kernel = make_kernel(args.kernel)
    return kernel(X), f"{args.dataset}-{args.kernel}", repr(kernel)


def cmd_spectrum(args):
    """Spectrum statistics (n, min/max eigenvalue, #positive, #negative, ι) and a PNG plot."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from rich.table import Table

    from .spectral import eigendecompose, spectrum_summary

    K, label, description = _spectrum_kernel(args)
    values = eigendecompose(K).values
    summary = spectrum_summary(values)
    table = Table(title=f"spectrum of {label}: {description}")
    for key in summary:
        table.add_column(key)
    table.add_row(*(f"{v:.4g}" if isinstance(v, float) else str(v) for v in summary.values()))
    console = _console()
    console.print(table)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    figure, axis = plt.subplots(figsize=(6, 3.5))
    ordered = values[::-1]
    axis.plot(np.arange(1, ordered.size + 1), ordered, ".", markersize=3)
    axis.axhline(0.0, color="grey", linewidth=0.8)
    axis.set_xlabel("index (descending)")
    axis.set_ylabel("eigenvalue")
    axis.set_yscale("symlog", linthresh=max(1e-6, float(np.max(np.abs(values))) * 1e-4))
    axis.set_title(f"{label}: ι = {summary['indefiniteness']:.3f}", fontsize=9)
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in label)[:80]
    path = out / f"spectrum_{name}.png"
    figure.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(figure)
    console.print(f"plot written to {path}")
    return 0


def cmd_embed(args):
    """Pseudo-Euclidean embedding of a shipped dataset's natural kernel: a PNG scatter and spectrum."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from rich.table import Table

    from .datasets import natural_kernel
    from .embedding import KreinPCA
    from .plotting import plot_embedding

    K, y, description = natural_kernel(
        args.dataset, method=args.method, max_samples=args.max_samples, random_state=args.seed
    )
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
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    label = args.dataset if args.method is None else f"{args.dataset}-{args.method}"
    path = out / f"embedding_{label}.png"
    partial = path.with_name(f".{path.stem}.{os.getpid()}.png")
    figure.savefig(partial, dpi=120, bbox_inches="tight")
    plt.close(figure)
    partial.replace(path)
    console.print(f"plot written to {path}")
    return 0


def cmd_reproduce(args):
    """Run one experiment, every experiment (``all``), or list them (``--list``)."""
    from rich.table import Table

    from .experiments import RunContext, get_experiment, list_experiments

    console = _console()
    if args.list:
        table = Table(title="experiments (krein reproduce NAME [--quick])")
        for column in ("name", "reproduces", "quick (min)", "full (min)", "description"):
            table.add_column(column)
        for e in list_experiments():
            table.add_row(e.name, e.paper, f"{e.quick_minutes:g}", f"{e.full_minutes:g}", e.description)
        console.print(table)
        return 0
    name = args.name or SHOWCASE
    if name == "all":
        experiments = [e for e in list_experiments() if e.name != SHOWCASE]
    else:
        experiments = [get_experiment(name)]
    if args.only and not all(e.selectable for e in experiments):
        fixed = ", ".join(e.name for e in experiments if not e.selectable)
        raise SystemExit(f"krein reproduce: --only is not supported by {fixed} (it runs all its tasks).")
    for e in experiments:
        out = Path(args.out) / e.name if name == "all" else Path(args.out)
        console.rule(f"[bold]{e.name}[/bold] — {e.paper}" + (" (quick)" if args.quick else ""))
        context = RunContext(
            quick=args.quick,
            out=out,
            n_jobs=args.n_jobs,
            random_state=args.seed,
            console=console,
            command=args.command_line,
            resume=args.resume,
            only=args.only,
        )
        e.run(context)
        for path in context.written:
            console.print(f"wrote {path}")
    return 0


def cmd_bench(args):
    """Run ``benchmarks/bench_NAME.py`` of a source checkout."""
    candidates = [Path.cwd() / "benchmarks", Path(__file__).resolve().parents[2] / "benchmarks"]
    for folder in candidates:
        script = folder / f"bench_{args.name}.py"
        if script.is_file():
            sys.argv = [str(script), *args.bench_args]
            runpy.run_path(str(script), run_name="__main__")
            return 0
    available = sorted({p.stem[6:] for f in candidates if f.is_dir() for p in f.glob("bench_*.py")})
    raise SystemExit(
        f"krein bench: no benchmark {args.name!r} (benchmarks live in a source checkout's benchmarks/ "
        f"folder); available: {', '.join(available) or 'none found'}."
    )


def build_parser():
    parser = argparse.ArgumentParser(
        prog="krein", description="Learning with indefinite kernels: experiments and diagnostics."
    )
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
    spectrum.add_argument("--max-samples", type=int, default=2000, help="subsample larger datasets")
    spectrum.add_argument("--seed", type=int, default=0)
    spectrum.add_argument("--out", default="krein-results", help="folder for the PNG plot")
    spectrum.set_defaults(func=cmd_spectrum)

    embed = sub.add_parser("embed", help="pseudo-Euclidean embedding of a dataset: scatter and spectrum PNG")
    embed.add_argument("--dataset", required=True, help="a shipped dataset (see `krein datasets`)")
    embed.add_argument(
        "--method", help="the dataset's (dis)similarity, e.g. edit, dtw, tangent, simpson (default: natural)"
    )
    embed.add_argument("--max-samples", type=int, default=1000, help="subsample larger datasets")
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

    bench = sub.add_parser("bench", help="run benchmarks/bench_NAME.py of a source checkout")
    bench.add_argument("name")
    bench.add_argument("bench_args", nargs=argparse.REMAINDER)
    bench.set_defaults(func=cmd_bench)
    return parser


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser().parse_args(argv)
    args.command_line = " ".join(["krein", *argv])
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

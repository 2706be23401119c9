"""Run the full stress suite and write the estimator × case → outcome matrix into docs/reliability.md.

Every cell (an estimator variant on one hostile input, ``tests/stress/cases.py``) runs in its own forked
process with a time limit, so that a hang shows as ``timeout`` and a crash in native code (a signal) as
``crash`` instead of taking the run down. The full form runs each cell at several training-set sizes; a
cell's outcome is its worst over the sizes.

Usage::

    python tools/stress_matrix.py                     # sizes 24 and 200, writes docs/reliability.md
    python tools/stress_matrix.py --sizes 24 --jobs 2 --timeout 60 --out /tmp/reliability.md

The matrix replaces what lies between the ``stress-matrix`` markers of the output file; the prose
around it (written by hand) is kept.
"""

from __future__ import annotations

import argparse
import multiprocessing
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "stress")]

from cases import KNOWN_FAILURES, Outcome, cells, run_case  # noqa: E402

BEGIN, END = "<!-- stress-matrix:begin -->", "<!-- stress-matrix:end -->"
SYMBOLS = {"ok": "✓", "error": "E", "unclear error": "✗?", "wrong result": "✗", "crash": "💥", "timeout": "⏱"}
SEVERITY = ["ok", "error", "unclear error", "wrong result", "crash", "timeout"]


def _child(connection, index, n_samples):
    subject, case = _CELLS[index]
    outcome = run_case(subject, case, n_samples)
    connection.send((outcome.status, outcome.detail, outcome.warnings))
    connection.close()


def run_cells(all_cells, sizes, jobs, timeout):
    """Outcome of every (cell, size), each in a forked process: ``{(index, size): Outcome}``."""
    context = multiprocessing.get_context("fork")
    pending = [(index, n) for index in range(len(all_cells)) for n in sizes]
    running, results = {}, {}
    while pending or running:
        while pending and len(running) < jobs:
            index, n = pending.pop(0)
            receiver, sender = context.Pipe(duplex=False)
            process = context.Process(target=_child, args=(sender, index, n))
            process.start()
            sender.close()
            running[(index, n)] = (process, receiver, time.monotonic())
        for key, (process, receiver, started) in list(running.items()):
            finished = process.exitcode is not None  # read before polling: a result sent before exit is seen
            if receiver.poll():
                try:
                    status, detail, caught = receiver.recv()
                    results[key] = Outcome(status, detail, caught)
                except EOFError:
                    pass
            if finished or key in results:
                process.join()
                if key not in results:
                    results[key] = Outcome("crash", f"process died with exit code {process.exitcode}")
                del running[key]
            elif time.monotonic() - started > timeout:
                process.kill()
                process.join()
                results[key] = Outcome("timeout", f"no result within {timeout:g} s")
                del running[key]
        time.sleep(0.005)
    return results


def worst(outcomes):
    return max(outcomes, key=lambda o: SEVERITY.index(o.status))


def matrix_markdown(all_cells, results, sizes):
    """The matrix (rows: estimator variants, columns: cases) and the list of failures and warnings."""
    subjects = list(dict.fromkeys(subject.name for subject, _ in all_cells))
    cases = {case.name: case for _, case in all_cells}
    case_names = list(cases)
    table = {}
    for index, (subject, case) in enumerate(all_cells):
        table[(subject.name, case.name)] = (case, worst([results[(index, n)] for n in sizes]))
    lines = [
        f"Training sizes: {', '.join(map(str, sizes))} (the CI form, `pytest tests/stress`, runs "
        f"{min(sizes)}). Symbols: ✓ correct result, E clear error naming the argument, ✗ wrong result "
        "(NaN, shape, differs from the clean baseline), ✗? an error that does not name the argument, "
        "💥 crash, ⏱ hang; · the case does not apply; a trailing `!` marks a cell that is not what the "
        "case requires (a known failure, listed below).",
        "",
        "| estimator | " + " | ".join(case_names) + " |",
        "| --- | " + " | ".join("---" for _ in case_names) + " |",
    ]
    failures, warned = [], {}
    for name in subjects:
        row = []
        for case_name in case_names:
            entry = table.get((name, case_name))
            if entry is None:
                row.append("·")
                continue
            case, outcome = entry
            mark = SYMBOLS[outcome.status]
            if not outcome.passes(case.expect):
                mark += "!"
                known = KNOWN_FAILURES.get((name, case_name))
                failures.append(
                    f"- **{name} / {case_name}** ({case.description}; expected {case.expect}): "
                    f"{outcome.status}: `{_short(outcome.detail)}`" + (f" — {known}" if known else "")
                )
            for text in outcome.warnings:
                key = re.sub(r"[-+]?\d[\d.e+-]*", "#", text)  # one entry per message, whatever the numbers
                example, where = warned.setdefault(key, (text, []))
                where.append(f"{name} / {case_name}")
            row.append(mark)
        lines.append(f"| {name} | " + " | ".join(row) + " |")
    lines += ["", "**Cases.**", ""]
    lines += [f"- `{case.name}`: {case.description} — must end in: {case.expect}" for case in cases.values()]
    lines += ["", f"**Cells that fail their case ({len(failures)}).**", ""]
    lines += failures or ["None."]
    lines += [
        "",
        "**Warnings raised (numerical health and others; one example message each), with the cells "
        "that raised them.**",
        "",
    ]
    for example, where in sorted(warned.values(), key=lambda item: -len(item[1])):
        shown = ", ".join(where[:4]) + (f" and {len(where) - 4} more" if len(where) > 4 else "")
        lines.append(f"- `{_short(example)}` — {shown}")
    return "\n".join(lines)


def _short(text, limit=220):
    text = " ".join(str(text).split()).replace("|", "\\|").replace("`", "'")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def write(path, matrix, command):
    text = path.read_text() if path.exists() else f"# Reliability\n\n{BEGIN}\n{END}\n"
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{path} has no {BEGIN} … {END} markers to put the matrix between.")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    stamp = f"Generated by `{command}` ({time.strftime('%Y-%m-%d')}).\n\n"
    path.write_text(f"{head}{BEGIN}\n{stamp}{matrix}\n{END}{tail}")


_CELLS = []


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[24, 200])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per cell")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "reliability.md")
    args = parser.parse_args(argv)
    _CELLS[:] = cells()
    started = time.monotonic()
    results = run_cells(_CELLS, args.sizes, args.jobs, args.timeout)
    matrix = matrix_markdown(_CELLS, results, args.sizes)
    command = "python tools/stress_matrix.py " + " ".join(sys.argv[1:] if argv is None else argv)
    write(args.out, matrix, command.strip())
    n_failed = sum(
        not worst([results[(i, n)] for n in args.sizes]).passes(case.expect)
        for i, (_, case) in enumerate(_CELLS)
    )
    print(
        f"{len(_CELLS)} cells × {len(args.sizes)} sizes in {time.monotonic() - started:.0f} s; "
        f"{n_failed} cells fail their case; matrix written to {args.out}"
    )


if __name__ == "__main__":
    main()

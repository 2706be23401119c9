"""The ``krein`` command."""

import numpy as np
import pytest

from krein.cli import main
from krein.kernels import Sigmoid


def test_info(capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert "numpy" in out and "scikit-learn" in out and "threads" in out


def test_reproduce_list(capsys):
    assert main(["reproduce", "--list"]) == 0
    assert "spectra" in capsys.readouterr().out


def test_spectrum_of_saved_kernel(tmp_path, capsys):
    K = Sigmoid(1.0)(np.random.default_rng(0).normal(size=(30, 3)))
    path = tmp_path / "k.npy"
    np.save(path, K)
    assert main(["spectrum", "--npy", str(path), "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    values = np.linalg.eigvalsh(K)
    assert f"{values.min():.4g}" in out
    assert list(tmp_path.glob("spectrum_*.png"))


def test_spectrum_of_dataset_with_kernel(tmp_path, capsys):
    assert main(["spectrum", "--dataset", "haberman", "--kernel", "SIGMOID", "--out", str(tmp_path)]) == 0
    assert "306" in capsys.readouterr().out


def test_reproduce_writes_results(tmp_path):
    assert main(["reproduce", "spectra", "--quick", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "spectra.md").read_text().count("|") > 20


def test_unknown_benchmark_is_explained(capsys):
    assert main(["bench", "nonexistent"]) == 2
    assert "available: " in capsys.readouterr().err


def test_bench_runs_the_script_with_its_arguments_and_restores_argv(tmp_path, monkeypatch, capsys):
    import sys

    import krein.cli

    folder = tmp_path / "benchmarks"
    folder.mkdir()
    (folder / "bench_echo.py").write_text("import sys\nprint('argv:', sys.argv[1:])\n")
    monkeypatch.setattr(krein.cli, "_checkout_folder", lambda *_: folder)
    before = list(sys.argv)
    assert main(["bench", "echo", "--", "--quick", "--n", "3"]) == 0
    assert "argv: ['--quick', '--n', '3']" in capsys.readouterr().out
    assert sys.argv == before


def test_only_is_refused_by_experiments_without_tasks(tmp_path, capsys):
    assert main(["reproduce", "spectra", "--quick", "--only", "haberman", "--out", str(tmp_path)]) == 2
    assert "--only is not supported by spectra" in capsys.readouterr().err


def test_only_runs_a_subset(tmp_path, monkeypatch):
    from krein.experiments import oglic2018

    tiny = {"inner_folds": 2, "n_restarts": 1, "restart_iter": 2, "max_iter": 2}
    monkeypatch.setattr(oglic2018, "TABLE3_FORMS", oglic2018.TABLE3_FORMS.replace(search=(tiny, tiny)))
    assert (
        main(["reproduce", "oglic2018-table3", "--quick", "--only", "haberman", "--out", str(tmp_path)]) == 0
    )
    assert (tmp_path / "oglic2018-table3-classification.md").is_file()
    assert not (tmp_path / "oglic2018-table3-regression.md").exists()
    assert len(list((tmp_path / "cells").glob("haberman-*.json"))) == 18  # 6 kernels × 3 folds


# ----------------------------------------------------------------------------------------------------
# User errors: one line on stderr naming the argument, exit status 2, no traceback.


def _subcommands():
    from krein.cli import build_parser

    parser = build_parser()
    action = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return sorted(action.choices)


def _assert_user_error(capsys, argv, named):
    code = main(argv)
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert code == 2, captured.err
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err + captured.out
    assert named in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("subcommand", _subcommands())
def test_every_subcommand_answers_an_unknown_option_in_one_line(capsys, subcommand):
    code = main([subcommand, "--no-such-option"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert err.startswith(f"krein {subcommand}: error: ")
    # the option named, or first the missing required argument (bench passes later options on)
    assert "--no-such-option" in err or "the following arguments are required" in err


def _bad_arguments(tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder")
    ragged = tmp_path / "ragged.npy"
    np.save(ragged, np.zeros((3, 2)))
    return [
        (["no-such-subcommand"], "no-such-subcommand"),
        (["reproduce", "no-such-experiment"], "no-such-experiment"),
        (["reproduce", "spectra", "--quick", "--out", str(a_file)], "--out"),
        (["reproduce", "spectra", "--quick", "--n-jobs", "zero"], "--n-jobs"),
        (["reproduce", "spectra", "--quick", "--n-jobs", "0"], "--n-jobs"),
        (["reproduce", "spectra", "--quick", "--seed", "-1"], "--seed"),
        (["reproduce", "spectra", "--quick", "--only", "haberman"], "--only"),
        (["spectrum"], "--dataset"),
        (["spectrum", "--npy", str(tmp_path / "missing.npy")], "--npy"),
        (["spectrum", "--npy", str(a_file)], "--npy"),
        (["spectrum", "--npy", str(ragged)], "--npy"),
        (["spectrum", "--dataset", "no-such-data"], "--dataset"),
        (["spectrum", "--dataset", "haberman", "--kernel", "no-such-kernel"], "--kernel"),
        (["spectrum", "--dataset", "haberman", "--max-samples", "-3"], "--max-samples"),
        (["spectrum", "--dataset", "haberman", "--out", str(a_file)], "--out"),
        (["embed"], "--dataset"),
        (["embed", "--dataset", "no-such-data"], "--dataset"),
        (["embed", "--dataset", "haberman", "--max-samples", "-2"], "--max-samples"),
        (["embed", "--dataset", "aural-sonar", "--method", "no-such-method"], "--method"),
        (["spectrum", "--dataset", "haberman", "--seed", str(2**40)], "--seed"),
        (["embed", "--dataset", "haberman", "--out", str(a_file)], "--out"),
        (["bench", "no-such-benchmark"], "no-such-benchmark"),
        (["info", "extra"], "extra"),
        (["datasets", "--bogus"], "--bogus"),
    ]


def test_every_user_error_is_one_line_naming_the_argument(tmp_path, capsys):
    for argv, named in _bad_arguments(tmp_path):
        _assert_user_error(capsys, [*argv], named)
    assert not list(tmp_path.glob("spectrum_*"))  # nothing computed before the check failed


def test_debug_shows_the_traceback():
    from krein.cli import UsageError

    with pytest.raises(UsageError, match="no-such-experiment"):
        main(["--debug", "reproduce", "no-such-experiment"])


def test_the_installed_command_prints_one_line(tmp_path):
    import subprocess
    import sys

    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from krein.cli import main; sys.exit(main())",
            "reproduce",
            "nope",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "'nope'" in result.stderr


def test_reproduce_list_shows_full_names_at_80_columns(capsys, monkeypatch):
    """Every experiment name is printed whole on one line in an 80-column terminal (it is what a user
    copies), and no line is wider than 80 characters."""
    from krein.experiments import list_experiments

    monkeypatch.setenv("COLUMNS", "80")
    assert main(["reproduce", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) <= 80
    names = {line.split("│")[1].strip() for line in lines if line.count("│") > 2}
    assert {e.name for e in list_experiments()} <= names


def test_datasets_lists_every_set_within_80_columns(capsys, monkeypatch):
    from krein.datasets import list_datasets

    monkeypatch.setenv("COLUMNS", "80")
    assert main(["datasets"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) <= 80 and not any("…" in line for line in lines)
    rows = {line.split()[0]: line.split() for line in lines[2:] if line.strip()}
    for d in list_datasets():
        assert rows[d["name"]][1:3] == [d["kind"], str(d["n"])]
    assert rows["ijcnn1"][5] == "35000/14990" and rows["yacht"][4] == "real"


def test_spectrum_of_a_similarity_dataset(tmp_path, capsys):
    assert main(["spectrum", "--dataset", "aural-sonar", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "38" in out and "-2.096" in out
    assert main(["spectrum", "--dataset", "protein", "--kernel", "SIGMOID", "--out", str(tmp_path)]) == 2
    assert "protein is a dissimilarity matrix" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "folder"), [(["results"], "docs/results/"), (["bench", "kernels"], "benchmarks/")]
)
def test_checkout_commands_outside_a_checkout_say_they_need_one(tmp_path, monkeypatch, capsys, argv, folder):
    """An installed package has neither docs/results nor benchmarks: one line, exit 2, no traceback."""
    import krein.cli

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(krein.cli, "_SOURCE_ROOT", tmp_path / "site-packages")
    line = _assert_user_error(capsys, argv, folder)
    assert line.startswith(f"krein {argv[0]}: error: ")
    assert "source checkout" in line and "clone of the krein git repository" in line


def test_checkout_commands_find_the_checkout_the_package_runs_from(tmp_path, monkeypatch, capsys):
    """From a source checkout (an editable install) the commands read its folders wherever they run."""
    import sys

    import krein.cli

    checkout = tmp_path / "checkout"
    (checkout / "benchmarks").mkdir(parents=True)
    (checkout / "benchmarks" / "bench_demo.py").write_text(
        "import sys\nprint('demo ran with', sys.argv[1:])\n"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.setattr(krein.cli, "_SOURCE_ROOT", checkout)
    monkeypatch.setattr(sys, "argv", list(sys.argv))  # krein bench hands the script its own argv
    assert main(["bench", "demo", "--size", "3"]) == 0
    assert "demo ran with ['--size', '3']" in capsys.readouterr().out
    assert main(["bench", "no-such-benchmark"]) == 2
    err = capsys.readouterr().err
    assert str(checkout / "benchmarks") in err and "available: demo" in err


def _results_folder(tmp_path):
    """A copy of one experiment folder of docs/results (NOTES.md and its cells)."""
    import shutil
    from pathlib import Path

    source = Path(__file__).resolve().parents[1] / "docs" / "results" / "embeddings"
    shutil.copytree(source, tmp_path / "results" / "embeddings")
    return tmp_path / "results"


def test_results_refuses_a_folder_without_results(tmp_path, capsys):
    """Issue 31: a mistyped ``--dir`` printed an empty table and exited 0."""
    _assert_user_error(capsys, ["results", "--dir", str(tmp_path / "no-such-folder")], "--dir")
    (tmp_path / "empty").mkdir()
    _assert_user_error(capsys, ["results", "--dir", str(tmp_path / "empty")], "NOTES.md")


def test_results_names_a_torn_or_foreign_cell(tmp_path, capsys):
    """Issue 31: a torn or foreign cell was reported without its path (or not at all)."""
    results = _results_folder(tmp_path)
    assert main(["results", "--dir", str(results)]) == 0
    capsys.readouterr()
    cell = results / "embeddings" / "cells" / "arrowhead.json"
    text = cell.read_text()
    for content in (text[: len(text) // 2], "[1, 2]", '{"rows": []}'):
        cell.write_text(content)
        _assert_user_error(capsys, ["results", "--dir", str(results)], str(cell))


def test_write_errors_name_the_users_file_not_a_temporary_one(tmp_path, capsys):
    """Issue 31: an unwritable target was reported as ``.embedding_x.123.png -> embedding_x.png``, a
    temporary file the user never named."""
    results = _results_folder(tmp_path)
    (results / "fidelity.md").mkdir()
    line = _assert_user_error(capsys, ["results", "--dir", str(results), "--write"], "fidelity.md")
    assert ".partial" not in line
    out = tmp_path / "out"
    (out / "embedding_aural-sonar.png").mkdir(parents=True)
    line = _assert_user_error(capsys, ["embed", "--dataset", "aural-sonar", "--out", str(out)], "--out")
    assert "embedding_aural-sonar.png" in line and "/." not in line


def test_max_samples_zero_means_no_subsampling(tmp_path, capsys):
    """Issue 31: ``--max-samples 0`` is documented as "no subsampling" and was rejected."""
    assert main(["spectrum", "--dataset", "aural-sonar", "--max-samples", "0", "--out", str(tmp_path)]) == 0
    assert "aural-sonar (n=100)" in capsys.readouterr().out
    assert main(["embed", "--dataset", "aural-sonar", "--max-samples", "0", "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    _assert_user_error(
        capsys, ["spectrum", "--dataset", "aural-sonar", "--max-samples", "1"], "--max-samples"
    )


def test_kernel_aliases_build_the_same_kernel(tmp_path, capsys):
    """Issue 31: ``--kernel GAUSS`` drew the bandwidth of Appendix E.1 and ``--kernel gaussian`` (or
    ``rbf``) took the default one: aliases of one kernel gave different spectra."""
    tables = []
    for name in ("GAUSS", "gaussian", "rbf", "sigmoid", "SIGMOID"):
        argv = ["spectrum", "--dataset", "guide1-t", "--kernel", name, "--max-samples", "200"]
        assert main([*argv, "--out", str(tmp_path)]) == 0
        tables.append(" ".join(capsys.readouterr().out.split(":", 1)[1].split("plot written")[0].split()))
    assert tables[0] == tables[1] == tables[2] and tables[3] == tables[4]


def test_spectrum_of_an_asymmetric_npy_names_the_option(tmp_path, capsys):
    """An asymmetric --npy matrix is a one-line error that names --npy and the file (issue 42)."""
    path = tmp_path / "asym.npy"
    np.save(path, np.array([[1.0, 2.0], [0.0, 1.0]]))
    line = _assert_user_error(capsys, ["spectrum", "--npy", str(path), "--out", str(tmp_path)], "--npy")
    assert f"--npy {path}: the matrix is not symmetric" in line and "= 1 exceeds 1e-08" in line
    np.save(path, np.array([[1.0, 2.0], [2.0 + 1e-12, 1.0]]))  # rounding only: accepted
    assert main(["spectrum", "--npy", str(path), "--out", str(tmp_path)]) == 0


def test_bench_restores_argv_when_the_script_fails(tmp_path, monkeypatch, capsys):
    import sys

    import krein.cli

    folder = tmp_path / "benchmarks"
    folder.mkdir()
    (folder / "bench_fail.py").write_text("raise ValueError('bad --n')\n")
    (folder / "bench_exit.py").write_text("import sys\nsys.exit(3)\n")
    monkeypatch.setattr(krein.cli, "_checkout_folder", lambda *_: folder)
    before = list(sys.argv)
    assert main(["bench", "fail", "--", "--n", "x"]) == 2
    assert "bad --n" in capsys.readouterr().err and sys.argv == before
    with pytest.raises(SystemExit):
        main(["bench", "exit", "--", "--n", "3"])
    assert sys.argv == before


def _reproduce_process(out, *extra):
    """``krein reproduce`` of Table 1's quick form on one task, as a child process of this checkout."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    import krein

    env = dict(os.environ, PYTHONPATH=str(Path(krein.__file__).parents[1]), COLUMNS="200")
    argv = ["reproduce", "oglic2018-table1", "--quick", "--only", "gauss-100", "--out", str(out), *extra]
    return subprocess.Popen(
        [sys.executable, "-m", "krein.cli", *argv],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _stop_after(process, cells, at_least, signum, rng):
    """Send ``signum`` once ``cells`` holds ``at_least`` cells (and a random moment more)."""
    import time

    deadline = time.monotonic() + 60
    while len(list(cells.glob("*.json"))) < at_least and process.poll() is None:
        assert time.monotonic() < deadline, "the run made no progress"
        time.sleep(0.02)
    time.sleep(rng.uniform(0.0, 0.3))
    process.send_signal(signum)
    return process.communicate(timeout=60)[1], process.returncode


def _results(folder):
    """Every JSON result and cell value under ``folder``, without the provenance (dates, commands)."""
    import json

    results = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            assert not path.name.startswith("."), f"a temporary or hidden file was left: {path}"
            data = json.loads(path.read_text()) if path.suffix == ".json" else None
            if path.parent.name == "cells":
                results[path.name] = (data["key"], data["value"])
            elif data is not None:
                results[path.name] = {k: v for k, v in data.items() if k != "provenance"}
            else:
                results[path.name] = None
    return results


@pytest.mark.slow
def test_a_stopped_run_resumes_to_the_results_of_an_uninterrupted_one(tmp_path):
    """Issue 42: SIGINT, then SIGTERM, at random points of ``krein reproduce``; each stop keeps every
    finished cell whole, leaves no partial file, says in one line what was kept and how to resume
    (exit 130, then 143, no traceback), and ``--resume`` ends with the results, bitwise, of a run
    that was never stopped."""
    import json
    import random
    import secrets
    import signal

    seed = secrets.randbits(32)
    rng = random.Random(seed)
    reference = _reproduce_process(tmp_path / "reference")
    out = tmp_path / "stopped"
    cells = out / "cells"
    for signum, status, extra in ((signal.SIGINT, 130, ()), (signal.SIGTERM, 143, ("--resume",))):
        before = len(list(cells.glob("*.json")))
        process = _reproduce_process(out, *extra)
        stderr, returncode = _stop_after(process, cells, before + rng.randint(1, 10), signum, rng)
        assert returncode == status, (seed, stderr)
        kept = sorted(cells.glob("*.json"))
        name = signal.Signals(signum).name
        assert stderr.strip().count("\n") == 0 and "Traceback" not in stderr, (seed, stderr)
        assert f"stopped by {name}; kept {len(kept)} finished cell(s) in {cells}" in stderr, (seed, stderr)
        assert stderr.strip().endswith(f"--out {out} --resume"), (seed, stderr)
        assert all(json.loads(p.read_text())["value"] is not None for p in kept), seed  # whole cells
        assert not [p for p in out.rglob(".*")], seed  # no temporary file, no lock left
        assert len(kept) > before, seed
    finish = _reproduce_process(out, "--resume")
    assert finish.communicate(timeout=120)[1] == "" and finish.returncode == 0
    assert reference.communicate(timeout=120)[1] == "" and reference.returncode == 0
    assert len(list(cells.glob("*.json"))) == 30  # 6 methods × 5 folds
    assert _results(out) == _results(tmp_path / "reference"), seed

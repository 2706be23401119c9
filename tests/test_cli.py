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


def test_results_refuses_a_missing_dir(tmp_path, capsys):
    _assert_user_error(capsys, ["results", "--dir", str(tmp_path / "missing")], "--dir")


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

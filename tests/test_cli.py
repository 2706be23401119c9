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


def test_unknown_benchmark_is_explained():
    with pytest.raises(SystemExit, match="available: .*kernels"):
        main(["bench", "nonexistent"])


def test_only_is_refused_by_experiments_without_tasks(tmp_path):
    with pytest.raises(SystemExit, match="--only is not supported by spectra"):
        main(["reproduce", "spectra", "--quick", "--only", "haberman", "--out", str(tmp_path)])


def test_only_runs_a_subset(tmp_path, monkeypatch):
    from krein.experiments import oglic2018

    monkeypatch.setattr(
        oglic2018, "QUICK_SEARCH", {"inner_folds": 2, "n_restarts": 1, "restart_iter": 2, "max_iter": 2}
    )
    assert (
        main(["reproduce", "oglic2018-table3", "--quick", "--only", "haberman", "--out", str(tmp_path)]) == 0
    )
    assert (tmp_path / "oglic2018-table3-classification.md").is_file()
    assert not (tmp_path / "oglic2018-table3-regression.md").exists()
    assert len(list((tmp_path / "cells").glob("haberman-*.json"))) == 18  # 6 kernels × 3 folds


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
    with pytest.raises(SystemExit, match="protein is a dissimilarity matrix"):
        main(["spectrum", "--dataset", "protein", "--kernel", "SIGMOID", "--out", str(tmp_path)])

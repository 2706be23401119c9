"""Every script in ``examples/`` runs offline and gives the numbers its docstring promises."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
TESTED = {
    "strings_edit_distance",
    "time_series_dtw",
    "spd_affine_invariant",
    "million_points_low_rank",
    "kernel_learning",
    "krein_embedding",
    "recommended_route",
}


def load(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_example_is_tested():
    assert {p.stem for p in EXAMPLES.glob("*.py")} == TESTED


def test_strings_edit_distance(capsys):
    accuracies = load("strings_edit_distance").main(n_samples=300)
    assert set(accuracies) == {"Kreĭn ridge classifier", "clip + SVC (usual practice)"}
    # three classes with shares (0.24, 0.24, 0.52): both models beat the majority class
    assert all(a > 0.6 for a in accuracies.values()), accuracies
    assert "ι of the training kernel" in capsys.readouterr().out


@pytest.mark.slow
def test_time_series_dtw():
    accuracies = load("time_series_dtw").main()
    assert accuracies["Kreĭn SVM"] > 0.9 and accuracies["variance-constrained Kreĭn"] > 0.9
    # libsvm on the indefinite kernel stops at a stationary point: far worse than the Kreĭn methods
    assert accuracies["SVC on the indefinite kernel"] < accuracies["Kreĭn SVM"] - 0.2


def test_spd_affine_invariant(capsys):
    accuracy, probabilities = load("spd_affine_invariant").main()
    assert accuracy > 0.5  # nine speakers: chance is about 0.19
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-12)
    assert "negative eigenvalues" in capsys.readouterr().out


def test_million_points_low_rank_small():
    rmse, spread = load("million_points_low_rank").main(n=100_000, n_landmarks=60, working_memory=8)
    assert rmse < 0.7 * spread


@pytest.mark.slow
def test_million_points_low_rank_command_line():
    """The script's own entry point (argument parsing included), on a smaller n."""
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / "million_points_low_rank.py"), "--n", "20000", "--landmarks", "40"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "n = 20,000 points" in result.stdout and "test RMSE" in result.stdout


def test_kernel_learning():
    errors = load("kernel_learning").main()
    learned = min(errors["learned, degree 1"], errors["learned, degree 2"])
    singles = [v for k, v in errors.items() if k.startswith("single")]
    assert learned <= min(singles) + 1e-12
    assert learned < 0.12


@pytest.mark.parametrize("name", sorted(TESTED))
def test_example_documents_how_to_run_it(name):
    text = (EXAMPLES / f"{name}.py").read_text()
    assert f"python examples/{name}.py" in text
    assert 'if __name__ == "__main__":' in text


@pytest.mark.slow
def test_krein_embedding(tmp_path, capsys):
    accuracies, agreement, pca = load("krein_embedding").main(plot=str(tmp_path / "embedding.png"))
    # GunPoint/DTW: the negative part alone predicts the gesture, and adds to the positive part
    assert accuracies["negative part"] > accuracies["majority class"] + 0.15
    assert accuracies["both parts"] > accuracies["positive part"] + 0.05
    assert pca.n_negative_ > 50 and agreement["signed spectral"] > 0.5
    assert (tmp_path / "embedding.png").stat().st_size > 10_000
    assert "signature (p, q)" in capsys.readouterr().out


@pytest.mark.slow
def test_recommended_route_beats_one_nearest_neighbour(capsys):
    (error, error_1nn, error_pipeline), (sim_error, sim_error_1nn) = load("recommended_route").main()
    # GunPoint / DTW, official split: 1-NN DTW errs 9.3 % (UCR's published value, 14 of 150)
    assert error_1nn == pytest.approx(14 / 150)
    assert error <= error_1nn and error_pipeline <= error_1nn
    assert sim_error <= sim_error_1nn + 1e-12 and sim_error < 0.2
    printed = capsys.readouterr().out
    assert "chosen: {'kernel'" in printed and "rank" in printed

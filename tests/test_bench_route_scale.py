"""The quick form of benchmarks/bench_route_scale.py: the low-rank route on series, its counters and costs."""

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent.parent / "benchmarks" / "bench_route_scale.py"


@pytest.mark.slow
def test_the_quick_benchmark_runs_and_its_numbers_hold(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("bench_route_scale", SCRIPT)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    result = bench.main(["--quick", "--out", str(tmp_path / "scale.json")])
    cbf = result["cbf"]
    n, m = cbf["n_train"], cbf["landmarks"]
    assert cbf["n_distance_evaluations"] == (n - m) * m + m * (m - 1) // 2 <= n * m + m**2
    assert cbf["low_rank_error"] <= cbf["one_nn_error"] + 0.05
    assert cbf["low_rank_error"] <= cbf["exact_error"] + 0.05
    assert result["exact_cost"]["ratio"] > 1
    assert (tmp_path / "scale.json").exists()
    assert "low-rank fit / its n × m DTW block" in capsys.readouterr().out

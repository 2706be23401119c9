"""The same ``random_state`` gives bit-identical results, across runs and across ``n_jobs``; every
results file of ``krein reproduce`` records the seed, the library versions and the command line."""

import json
import sys

import numpy as np
import pytest
from _estimators import outputs, subjects, toy_problem
from joblib import parallel_config
from sklearn.model_selection import KFold

SUBJECTS = subjects()


def fit_outputs(subject, **params):
    task = subject.task
    X, y, X_test = toy_problem("regressor" if task == "regressor" else "classifier", n_samples=30)
    train, test = subject.encode(X, X_test)
    estimator = subject.make(**params)
    if task in ("classifier", "regressor"):
        estimator.fit(train, y)
    else:
        estimator.fit(train)
    return outputs(estimator, test)


def assert_identical(first, second):
    assert first.keys() == second.keys() and first
    for method in first:
        np.testing.assert_array_equal(first[method], second[method], err_msg=method)


@pytest.mark.parametrize("subject", SUBJECTS, ids=lambda s: s.name)
def test_same_random_state_gives_bit_identical_outputs(subject):
    params = {"random_state": 12345} if subject.has_random_state else {}
    assert_identical(fit_outputs(subject, **params), fit_outputs(subject, **params))


N_JOBS_SUBJECTS = [s for s in SUBJECTS if s.variant != "precomputed" and "n_jobs" in s.make().get_params()]


# The parallel runs use joblib's threading backend: what n_jobs may change is how work is split and
# gathered, which threads exercise as well as processes, without seconds of worker start-up per test.


@pytest.mark.parametrize("subject", N_JOBS_SUBJECTS, ids=lambda s: s.name)
def test_n_jobs_does_not_change_the_result(subject):
    with parallel_config(backend="threading"):
        assert_identical(fit_outputs(subject, n_jobs=1), fit_outputs(subject, n_jobs=2))


def test_some_estimator_has_n_jobs():
    assert N_JOBS_SUBJECTS, "no estimator with n_jobs was discovered; the n_jobs test checks nothing"


def test_cross_validate_is_identical_across_n_jobs(tmp_path):
    from krein.experiments import RunContext
    from krein.least_squares import KreinRidge

    X, y, _ = toy_problem("regressor", n_samples=40)
    cv = KFold(4, shuffle=True, random_state=0)
    scores = []
    for n_jobs in (1, 2):
        with parallel_config(backend="threading"):
            context = RunContext(quick=True, out=tmp_path, n_jobs=n_jobs, show_progress=False)
            fold_scores, _ = context.cross_validate(
                KreinRidge(kernel="sigmoid"), X, y, cv, "neg_mean_squared_error"
            )
        scores.append(fold_scores)
    assert scores[0].shape == (4,)
    np.testing.assert_array_equal(scores[0], scores[1])


def _probe_experiment(ctx):
    """An experiment that writes one file of each kind the framework can write."""
    import matplotlib.pyplot as plt

    from krein.experiments import ResultTable

    table = ResultTable("probe", "error")
    table.add("task", "method", [1.0, 2.0])
    ctx.report(table, "table")
    ctx.report_rows([{"a": 1}], "rows", "rows")
    ctx.write_json({"x": 1}, "extra")
    figure, axes = plt.subplots()
    axes.plot([0, 1])
    ctx.save_figure(figure, "figure")


def test_cli_stamps_seed_versions_and_command_into_every_file(tmp_path, monkeypatch):
    from PIL import Image

    from krein.cli import main
    from krein.experiments import _framework

    probe = _framework.Experiment("provenance-probe", _probe_experiment, "probe", "none", 0.01, 0.01)
    monkeypatch.setitem(_framework._REGISTRY, probe.name, probe)
    argv = ["reproduce", "provenance-probe", "--quick", "--seed", "17", "--out", str(tmp_path)]
    monkeypatch.setattr(sys, "argv", ["/some/bin/krein", *argv])
    assert main(argv) == 0
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == [
        "extra.json",
        "figure.png",
        "rows.csv",
        "rows.json",
        "rows.md",
        "table.csv",
        "table.json",
        "table.md",
    ]
    command = "krein " + " ".join(argv)
    for path in tmp_path.iterdir():
        if path.suffix == ".json":
            stamp = json.loads(path.read_text())["provenance"]
        elif path.suffix == ".md":
            stamp = json.loads(path.read_text().split("<!-- ", 1)[1].split(" -->", 1)[0])
        elif path.suffix == ".csv":
            lines = [line[2:] for line in path.read_text().splitlines() if line.startswith("# ")]
            stamp = dict(line.split(": ", 1) for line in lines)
            stamp["seed"] = int(stamp["seed"])
        else:
            stamp = json.loads(Image.open(path).text["Description"])
        assert stamp["seed"] == 17, path.name
        assert stamp["command"] == command, path.name
        for library in ("krein", "numpy", "scipy", "scikit-learn", "python"):
            assert stamp[library], (path.name, library)

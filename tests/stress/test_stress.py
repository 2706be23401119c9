"""The stress suite, small form: every estimator (and its precomputed variant) against every hostile input.

Each cell must end in a correct result or a clear error naming the argument (see ``cases.py``); the full
matrix, with crash and hang detection in subprocesses, is written by ``tools/stress_matrix.py`` to
``docs/reliability.md``.
"""

import numpy as np
import pytest
from cases import KNOWN_FAILURES, cells, run_case

CELLS = cells()


def _param(subject, case):
    marks = []
    reason = KNOWN_FAILURES.get((subject.name, case.name))
    if reason is not None:
        marks.append(pytest.mark.xfail(reason=reason, strict=False))
    return pytest.param(subject, case, id=f"{subject.name}-{case.name}", marks=marks)


@pytest.mark.parametrize(("subject", "case"), [_param(s, c) for s, c in CELLS])
def test_stress(subject, case):
    outcome = run_case(subject, case)
    assert outcome.passes(case.expect), (
        f"{subject.name} on {case.name} ({case.description}): expected {case.expect}, "
        f"got {outcome.status}: {outcome.detail}"
    )


def test_every_estimator_is_stressed():
    from _estimators import public_estimators

    stressed = {subject.cls for subject, _ in CELLS}
    assert stressed == set(public_estimators())
    assert len(CELLS) >= 20 * len(stressed)


class _Faulty:
    """A regressor whose fit or prediction misbehaves in one chosen way (to test the judge)."""

    def __init__(self, fault):
        self.fault = fault

    def fit(self, X, y):
        if self.fault == "unclear":
            raise ValueError("something went wrong")
        if self.fault == "crash":
            raise ZeroDivisionError("division by zero")
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X):
        X = np.asarray(X, dtype=float)
        if self.fault == "nan":
            return np.full(len(X), np.nan)
        if self.fault == "shape":
            return np.zeros(len(X) + 1)
        if self.fault == "layout":
            return np.full(len(X), self.mean_) + (0.0 if X.flags.c_contiguous else 1.0)
        return np.full(len(X), self.mean_)

    def get_params(self, deep=True):
        return {"fault": self.fault}

    def set_params(self, **params):
        self.fault = params["fault"]
        return self


@pytest.mark.parametrize(
    ("fault", "status"),
    [
        ("none", "ok"),
        ("nan", "wrong result"),
        ("shape", "wrong result"),
        ("unclear", "unclear error"),
        ("crash", "crash"),
        ("layout", "wrong result"),
    ],
)
def test_the_judge_catches_each_kind_of_failure(fault, status):
    from cases import Trial, run_trial

    X = np.arange(12.0).reshape(6, 2)
    y = np.arange(6.0)
    baseline = Trial(None, X, y, X[:3])
    strided = np.asfortranarray(X)
    trial = Trial(_Faulty(fault), strided, y, strided[:3], baseline=baseline)
    outcome = run_trial(trial, names=("X",))
    assert outcome.status == status, outcome.detail


def test_a_clear_error_must_name_the_argument():
    from cases import names_argument

    assert names_argument("Input X contains NaN.", ("X",))
    assert not names_argument("max_iter reached", ("X",))
    assert names_argument("y contains only one Class", ("class",))
    assert not names_argument("classification failed", ("class",))


def _segfault(subject, n):
    import faulthandler
    import os
    import signal

    faulthandler.disable()  # pytest's traceback dump is noise here
    os.kill(os.getpid(), signal.SIGSEGV)


def _hang(subject, n):
    import time

    time.sleep(60)


@pytest.mark.slow
def test_matrix_tool_reports_crashes_and_hangs(tmp_path):
    """``tools/stress_matrix.py`` runs each cell in its own process: a native crash and a hang become
    cells of the matrix instead of taking the run down."""
    import importlib.util
    from pathlib import Path

    from cases import CASES_BY_NAME, Case

    path = Path(__file__).resolve().parents[2] / "tools" / "stress_matrix.py"
    spec = importlib.util.spec_from_file_location("stress_matrix", path)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    subject = next(s for s, _ in CELLS if s.cls.__name__ == "KreinRidge" and s.variant == "precomputed")
    chosen = [
        (subject, CASES_BY_NAME["clean"]),
        (subject, CASES_BY_NAME["nan_X"]),
        (subject, Case("segfault", "a native crash", "ok", _segfault)),
        (subject, Case("hang", "never returns", "ok", _hang)),
    ]
    tool._CELLS[:] = chosen
    results = tool.run_cells(chosen, sizes=[12], jobs=2, timeout=5.0)
    assert [results[(i, 12)].status for i in range(4)] == ["ok", "error", "crash", "timeout"]
    matrix = tool.matrix_markdown(chosen, results, [12])
    assert "| KreinRidge[precomputed] | ✓ | E |" in matrix
    assert "Cells that fail their case (2)" in matrix


def test_the_judge_catches_an_absurd_regression_output():
    """A finite but absurd prediction (1e9 for targets of order 1) is a degenerate model."""
    from cases import Trial, run_trial
    from sklearn.base import BaseEstimator, RegressorMixin

    class Absurd(RegressorMixin, BaseEstimator):
        def fit(self, X, y):
            return self

        def predict(self, X):
            return np.full(len(X), 1e9)

    X = np.arange(12.0).reshape(6, 2)
    outcome = run_trial(Trial(Absurd(), X, np.ones(6), X[:3]), names=("X",))
    assert outcome.status == "wrong result" and "1e6 times beyond the targets" in outcome.detail


@pytest.mark.parametrize(("offset", "status"), [(0.0, "ok"), (1e-171, "wrong result")])
def test_outputs_for_scaled_targets_are_compared_at_their_own_scale(offset, status):
    """Targets scaled by 1e-170 (``Trial.unit``): a prediction 3 % off is a wrong result, although
    any two numbers near 1e-170 are equal to an absolute tolerance."""
    from cases import Trial, run_trial
    from sklearn.base import BaseEstimator, RegressorMixin

    class Mean(RegressorMixin, BaseEstimator):  # the mean of the targets, plus a fixed offset
        def __init__(self, offset=0.0):
            self.offset = offset

        def fit(self, X, y):
            self.mean_ = float(np.mean(y))
            return self

        def predict(self, X):
            return np.full(len(X), self.mean_ + self.offset)

    X, y = np.arange(12.0).reshape(6, 2), np.arange(1.0, 7.0)
    trial = Trial(Mean(offset), X, 1e-170 * y, X[:3], baseline=Trial(None, X, y, X[:3]), unit=1e-170)
    assert run_trial(trial, names=("X",)).status == status


def test_cluster_labels_are_compared_up_to_renaming():
    from cases import _same_partition

    assert _same_partition(np.array([0, 0, 1, 2]), np.array([5, 5, 3, 4]))
    assert not _same_partition(np.array([0, 1, 1, 2]), np.array([5, 5, 3, 4]))
    assert not _same_partition(np.array([0, 0, 1, 1]), np.array([0, 0, 0, 0]))

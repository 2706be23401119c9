"""Resource limits: an estimator asked to build an n×n kernel that cannot fit in memory fails at once with
a ``MemoryError`` naming the low-rank alternative (``n_components=...``), before allocating it.

``krein._base.available_memory`` is replaced by a tiny budget, so the guard must trip for the 30-sample
problem; the low-rank estimators (which never form the n×n matrix) must still fit.
"""

import pytest
from _estimators import subjects, toy_problem

import krein._base

#: Estimators that never form the n×n training kernel (their memory grows with n·m, not n²).
LOW_RANK = {"IndefiniteNystroem"}

KERNEL_SUBJECTS = [s for s in subjects() if s.variant == "kernel"]


def fit(subject, **params):
    task = subject.task
    X, y, _ = toy_problem("regressor" if task == "regressor" else "classifier", n_samples=30)
    estimator = subject.make(**params)
    return estimator.fit(X, y) if task in ("classifier", "regressor") else estimator.fit(X)


@pytest.mark.parametrize("subject", KERNEL_SUBJECTS, ids=lambda s: s.name)
def test_memory_guard(subject, monkeypatch):
    budget = 8 * 30 * 30  # bytes: not even one 30×30 float64 matrix
    monkeypatch.setattr(krein._base, "available_memory", lambda: budget)
    if subject.cls.__name__ in LOW_RANK:
        fit(subject)
        return
    with pytest.raises(MemoryError, match=r"n_(components|landmarks)=\d+") as caught:
        fit(subject)
    assert "30×30" in str(caught.value)


def test_guard_reports_the_sizes(monkeypatch):
    from krein.least_squares import KreinRidge

    monkeypatch.setattr(krein._base, "available_memory", lambda: 2**30)
    with pytest.raises(MemoryError) as caught:
        krein._base.check_kernel_memory(100_000, KreinRidge(), copies=3)
    message = str(caught.value)
    assert f"{8 * 100_000**2 * 3 / 2**30:.1f} GiB" in message and "1.0 GiB" in message
    assert "KreinRidge" in message and "100000×100000" in message
    krein._base.check_kernel_memory(1000, KreinRidge(), copies=3)  # 24 MB fit: no error

"""Tiny runs of the luss2009 experiments (quick forms, or their helpers on subsets)."""

import json

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC

from krein.experiments import RunContext, get_experiment
from krein.experiments.luss2009 import _select_and_test, _simpson_subsets, average_measure


def test_average_measure():
    y_true = np.array([1, 1, 0, 0])
    y_pred = np.array([1, 0, 0, 0])
    assert average_measure(y_true, y_pred) == pytest.approx((0.75 + 0.5) / 2)


def test_table2_selection_on_a_subset():
    K, y = next(_simpson_subsets(40, 1, 0))
    y = (y > 0).astype(int)
    train, test = np.arange(0, 40, 2), np.arange(1, 40, 2)
    kernels = [("simpson", K[np.ix_(train, train)], K[np.ix_(test, train)])]
    accuracy, recall, average, params, _ = _select_and_test(
        SVC(kernel="precomputed"), {"C": [0.1, 1.0]}, kernels, y[train], y[test], StratifiedKFold(3), 1
    )
    assert average == pytest.approx((accuracy + recall) / 2)
    assert accuracy > 60 and params["C"] in (0.1, 1.0)


@pytest.mark.parametrize("name", ["luss2009-table3", "luss2009-figure1", "luss2009-figure2"])
def test_quick_runs(name, tmp_path):
    get_experiment(name).run(RunContext(quick=True, out=tmp_path, show_progress=False))
    written = {p.name for p in tmp_path.iterdir()}
    assert written
    if name == "luss2009-figure1":
        assert "figure1_gap.png" in written
        gaps = json.loads((tmp_path / "figure1_gap.json").read_text())["gaps"]
        # ACCPM drives the gap down on every subset
        assert all(run[-1] < run[0] for run in gaps["ACCPM"])


def test_figure2_sizes_beyond_the_3v5_pair_use_all_digits():
    [(K, y)] = list(_simpson_subsets(400, 1, 0))
    assert K.shape == (400, 400) and set(np.unique(y)) == {-1, 1}
    np.testing.assert_allclose(K, K.T)
    with pytest.raises(ValueError, match="exceeds the 1797"):
        next(_simpson_subsets(2000, 1, 0))

"""Tiny runs of the luss2009 experiments (quick forms, or their helpers on subsets)."""

import json

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC

from krein.datasets import load_dataset
from krein.experiments import RunContext, get_experiment
from krein.experiments._papers import INSIDE
from krein.experiments.luss2009 import (
    PAPER_TABLE1,
    PAPER_TABLE2,
    PAPER_TABLE3,
    TABLE2_DATA,
    _select_and_test,
    _simpson_subsets,
    average_measure,
    figure2_row,
    paper_split,
    paper_standard_errors,
    versus_paper,
)


def test_average_measure():
    y_true = np.array([1, 1, 0, 0])
    y_pred = np.array([1, 0, 0, 0])
    assert average_measure(y_true, y_pred) == pytest.approx((0.75 + 0.5) / 2)


def test_table2_selection_on_a_subset():
    K, y = next(_simpson_subsets(40, 1, 0))
    y = (y > 0).astype(int)
    train, test = np.arange(0, 40, 2), np.arange(1, 40, 2)
    accuracy, recall, average, params, _ = _select_and_test(
        SVC(kernel="precomputed"),
        {"C": [0.1, 1.0]},
        [("simpson", K)],
        train,
        test,
        y,
        StratifiedKFold(3),
        1,
        0,
    )
    assert average == pytest.approx((accuracy + recall) / 2)
    assert accuracy > 60 and params["C"] in (0.1, 1.0)
    predicted = SVC(kernel="precomputed", C=params["C"]).fit(K[np.ix_(train, train)], y[train])
    predicted = predicted.predict(K[np.ix_(test, train)])
    # the recall is that of class 0, the positive class passed
    assert recall == pytest.approx(100 * np.mean(predicted[y[test] == 0] == 0))


def test_paper_recalls_name_the_positive_class():
    """Each of the paper's recalls is k/N for a whole k, with N the test count of the class TABLE2_DATA
    names; the test size of Table 1 does the same for the accuracies."""
    assert len(PAPER_TABLE2.cells) == 7 * 3 * 6
    for cell in PAPER_TABLE2.cells:
        task, measure, value = cell["task"], cell["measure"], cell["mean"]
        if measure == "average":
            continue
        stem = task.rsplit("-", 1)[0] if task.startswith("USPS") else task
        n = TABLE2_DATA[stem][2] if measure == "recall" else PAPER_TABLE1.task(task)["n_test"]
        k = round(value * n / 100)
        assert 100 * k / n == pytest.approx(value, abs=0.006), (task, measure, value)
    # and the positive class is the one whose share of the data gives nearer N test points than the other
    for stem, (name, positive, n) in TABLE2_DATA.items():
        n_test = PAPER_TABLE1.task(stem + "-SS" if stem.startswith("USPS") else stem)["n_test"]
        share = np.mean(load_dataset(name).target == positive)
        assert abs(share * n_test - n) < abs((1 - share) * n_test - n), stem


def test_versus_paper_binomial_errors():
    row = {"task": "USPS-3-5-SS", "method": "Denoise", "accuracy": 96.0, "recall": 90.0, "average": 93.0}
    comparison = versus_paper([row], PAPER_TABLE2, "demo")
    cells = {c["measure"]: c for c in comparison.rows}
    # accuracy 95.47 % on the paper's 773 test images, recall 94.50 % on its 418 threes
    accuracy, recall = 100 * np.sqrt(0.9547 * 0.0453 / 773), 100 * np.sqrt(0.945 * 0.055 / 418)
    assert (cells["accuracy"]["paper mean"], cells["recall"]["paper mean"]) == (95.47, 94.50)
    assert cells["accuracy"]["paper std"] == pytest.approx(accuracy, abs=0.005)
    assert cells["recall"]["paper std"] == pytest.approx(recall, abs=0.005)
    assert cells["average"]["paper std"] == pytest.approx(0.5 * np.hypot(accuracy, recall), abs=0.005)
    assert (cells["accuracy"][INSIDE], cells["recall"][INSIDE]) == ("yes", "no")
    assert comparison.caption() == "demo: 1 of 3 cells inside the paper's mean ± 1 std"
    # Table 3 rows find the same sizes; the sigmoid rows theirs
    paper = {"accuracy": 95.47, "recall": 94.50}
    assert paper_standard_errors("USPS-4-6-gaussian", paper)["accuracy"] == pytest.approx(
        100 * np.sqrt(0.9547 * 0.0453 / 857), abs=0.005
    )
    assert paper_standard_errors("German-sig", paper)["recall"] == pytest.approx(
        100 * np.sqrt(0.945 * 0.055 / 150), abs=0.005
    )
    # a Table 3 row is named by its condition too
    row = {"task": "USPS-4-6-gaussian", "condition": "noisy", "method": "SVM", "accuracy": 98.0}
    row |= {"recall": 98.15, "average": 98.0}
    cells = versus_paper([row], PAPER_TABLE3, "demo").rows
    assert [(c["condition"], c["measure"], c["paper mean"]) for c in cells] == [
        ("noisy", "accuracy", 98.00),
        ("noisy", "recall", 98.15),
        ("noisy", "average", 98.08),
    ]


def test_versus_paper_counts_a_difference_equal_to_the_se_as_inside():
    # USPS-4-6-TD1 average: 99.36 against 99.54 ± 0.18; in floats |99.36 − 99.54| = 0.18000000000000682
    row = {"task": "USPS-4-6-TD1", "method": "Denoise", "accuracy": 99.0, "recall": 99.0, "average": 99.36}
    (average,) = [c for c in versus_paper([row], PAPER_TABLE2, "demo").rows if c["measure"] == "average"]
    assert (average["paper mean"], average["paper std"]) == (99.54, 0.18) and abs(99.36 - 99.54) > 0.18
    assert average[INSIDE] == "yes"


def test_paper_split_has_the_papers_sizes():
    data, train, test = paper_split("pima", 384, 0)
    assert train.size == test.size == 384 and not np.intersect1d(train, test).size
    assert abs(data.target[train].mean() - data.target[test].mean()) < 0.01


@pytest.mark.slow
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
    if name == "luss2009-figure2":
        rows = json.loads((tmp_path / "figure2_time.json").read_text())["rows"]
        exchange = [r for r in rows if r["solver"] == "SIQCLP (exchange)"]
        assert [r["n"] for r in exchange] == [40, 80]
        assert all(r["converged"] <= 2 and r["n_iter"] <= 100 for r in exchange)


def test_figure2_row_counts_the_fits_that_reach_the_tolerance():
    record = {"seconds": [1.0, 3.0, 8.0], "n_iter": [10, 30, 100], "final_gap": [0.05, 0.1, 1.0]}
    row = figure2_row("SIQCLP (exchange)", 1.0, 100, record)
    assert row["seconds"] == 4.0 and row["n_iter"] == pytest.approx(140 / 3, abs=0.05)
    assert row["ms_per_iter"] == pytest.approx(1e3 * 12 / 140, abs=1e-3)
    assert row["max_final_gap"] == 1.0
    assert row["converged"] == 2 and row["seconds_converged"] == 2.0
    stalled = figure2_row("x", 1.0, 100, {"seconds": [5.0], "n_iter": [100], "final_gap": [1.0]})
    assert stalled["converged"] == 0 and stalled["seconds_converged"] is None


def test_simpson_subsets_are_usps_3v5():
    [(K, y)] = list(_simpson_subsets(60, 1, 0))
    assert K.shape == (60, 60) and set(np.unique(y)) == {-1, 1}
    np.testing.assert_allclose(K, K.T)
    np.testing.assert_allclose(np.diag(K), 1.0)
    with pytest.raises(ValueError, match="exceeds the 1540"):
        next(_simpson_subsets(2000, 1, 0))


def test_krein_accpm_agrees_with_an_independent_one(tmp_path):
    """luss2009-figure1-accpm (quick): krein's ACCPM centres are cvxpy's analytic centres of the same
    localization sets, IndefiniteSVC certifies the same gaps as the independent oracle, and the ACCPM
    written with cvxpy's centres follows krein's from the same start."""
    pytest.importorskip("cvxpy")
    get_experiment("luss2009-figure1-accpm").run(RunContext(quick=True, out=tmp_path, show_progress=False))
    centers = json.loads((tmp_path / "accpm_centers.json").read_text())["rows"]
    assert [row["iteration"] for row in centers] == [5, 15, 30]
    for row in centers:
        assert row["relative distance"] < 1e-3 and abs(row["barrier krein − cvxpy"]) < 1e-4
        assert row["gap (independent)"] == pytest.approx(row["gap (IndefiniteSVC)"], rel=1e-6)
    check = json.loads((tmp_path / "accpm_check.json").read_text())
    gaps = check["gaps"]
    ours, theirs = np.array(gaps["krein accpm_maximize"]), np.array(gaps["cvxpy ACCPM, feasible set (P₀)"])
    assert np.allclose(ours[:15], theirs[:15], rtol=1e-3)
    # errors are on the gap's scale, and the optimum lies below every certified bound: error ≤ gap
    for name, curve in gaps.items():
        assert np.all(np.array(check["errors"][name]) <= np.array(curve) + 1e-9), name

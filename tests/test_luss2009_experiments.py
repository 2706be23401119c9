"""The luss2009 experiments: their quick forms, and their helpers on subsets."""

import importlib.util

import numpy as np
import pytest
from _results import assert_counts, comparison_rows, load
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC

from krein.datasets import load_dataset
from krein.experiments._papers import INSIDE
from krein.experiments.luss2009 import (
    FIGURE1_FORMS,
    FIGURE1_SOLVERS,
    FIGURE2_CHECK_FORMS,
    FIGURE2_FORMS,
    FIGURE2_SOLVERS,
    PAPER_TABLE1,
    PAPER_TABLE2,
    PAPER_TABLE3,
    TABLE2_DATA,
    TABLE2_FORMS,
    TABLE2_METHODS,
    TABLE3_FORMS,
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


def _check_measures(rows, parts):
    """Rows of Table 2 or 3: accuracy and recall (%) are whole counts of the test part and of its
    positive class (``parts[task]``: their sizes), their average the mean of the two, all rounded to
    two decimals."""
    for row in rows:
        size, positives = parts[row["task"]]
        assert_counts([row["accuracy"]], size, decimals=2)
        assert_counts([row["recall"]], positives, decimals=2)
        assert abs(row["average"] - (row["accuracy"] + row["recall"]) / 2) <= 0.01, row
        assert all(0 <= row[m] <= 100 for m in ("accuracy", "recall", "average")), row


def _test_parts(stem, settings):
    """(test size, test count of the recall's class) of the quick form's split of ``stem``."""
    name, positive, _ = TABLE2_DATA[stem]
    n_train = PAPER_TABLE1.task(stem + "-SS" if stem.startswith("USPS") else stem)["n_train"]
    data, _, test = paper_split(name, n_train, 0, settings.subsample)
    return test.size, int(np.sum(data.target[test] == positive))


@pytest.mark.slow
@pytest.mark.parametrize("quick_form", ["luss2009-table2"], indirect=True)
def test_table2_quick_form(quick_form):
    """Every method on every task of Table 2 (both USPS kernels), with the paper's cells beside ours;
    Table 1 gives the spectrum of the kernel Indefinite SVM selected: indefinite, and for USPS, with
    a unit diagonal, λ_min ≤ 1 ≤ λ_max ≤ n."""
    settings = TABLE2_FORMS.quick
    parts = {
        task: _test_parts(stem, settings)
        for stem in TABLE2_DATA
        for task in ((f"{stem}-SS", f"{stem}-TD1") if stem.startswith("USPS") else (stem,))
    }
    rows = load(quick_form, "table2")["rows"]
    assert [(r["task"], r["method"]) for r in rows] == [(t, m) for t in parts for m in TABLE2_METHODS]
    _check_measures(rows, parts)
    for row in rows:
        for measure in ("accuracy", "recall", "average"):
            paper = PAPER_TABLE2.cell(row["task"], row["method"], measure=measure)["mean"]
            assert row[f"paper {measure}"] == paper
    versus = comparison_rows(quick_form, "table2_vs_paper")
    ours = {(r["task"], r["method"], m): r[m] for r in rows for m in ("accuracy", "recall", "average")}
    assert [(r["task"], r["method"], r["measure"]) for r in versus] == list(ours)
    assert all(r["ours mean"] == ours[r["task"], r["method"], r["measure"]] for r in versus)
    selected = {(r["task"], r["method"]): r for r in load(quick_form, "table2_parameters")["selected"]}
    assert list(selected) == [(r["task"], r["method"]) for r in rows]
    for r in selected.values():
        assert r.get("C", r.get("svc__C")) in settings.Cs and r.get("rho", settings.rhos[0]) in settings.rhos
    spectra = load(quick_form, "table1")["rows"]
    assert [r["task"] for r in spectra] == list(parts)
    for r in spectra:
        assert r["kernel"] == selected[r["task"], "Indefinite SVM"]["kernel"]
        assert (r["n_train"], r["n_test"]) == (settings.subsample // 2, parts[r["task"]][0])
        assert r["λ_min"] < 0 < r["λ_max"], r
        if r["task"].startswith("USPS"):
            assert r["λ_min"] <= 1 <= r["λ_max"] <= settings.subsample, r


@pytest.mark.parametrize("quick_form", ["luss2009-table3"], indirect=True)
def test_table3_quick_form(quick_form):
    """SVM and PerturbSVM on clean and noisy USPS, the parameters chosen on the clean data reused on the
    noisy data (Sec. 5.2), beside the paper's cells."""
    settings = TABLE3_FORMS.quick
    rows = load(quick_form, "table3")["rows"]
    cells = [
        (f"{stem}-{kernel}", method, condition)
        for kernel in ("linear", "gaussian")
        for stem in settings.stems
        for method in ("SVM", "PerturbSVM")
        for condition in ("clean", "noisy")
    ]
    assert [(r["task"], r["method"], r["condition"]) for r in rows] == cells
    _check_measures(rows, {r["task"]: _test_parts(r["task"].rsplit("-", 1)[0], settings) for r in rows})
    for clean, noisy in zip(rows[::2], rows[1::2], strict=True):
        assert (clean["C"], clean["rho"]) == (noisy["C"], noisy["rho"]) and clean["C"] in settings.Cs
        assert clean["rho"] in settings.rhos if clean["method"] == "PerturbSVM" else clean["rho"] is None
    versus = comparison_rows(quick_form, "table3_vs_paper")
    assert len(versus) == 3 * len(rows)


@pytest.mark.parametrize("quick_form", ["luss2009-figure1"], indirect=True)
def test_figure1_quick_form(quick_form):
    settings = FIGURE1_FORMS.quick
    assert (quick_form.out / "figure1_gap.png").stat().st_size > 10_000
    gaps = load(quick_form, "figure1_gap")["gaps"]
    assert {name: np.shape(runs) for name, runs in gaps.items()} == dict.fromkeys(
        FIGURE1_SOLVERS, (settings.repeats, settings.iterations + 1)
    )
    assert all(np.all(np.isfinite(runs)) and np.min(runs) > 0 for runs in gaps.values())
    # every method drives the gap down on every subset; ACCPM below 0.1, krein's steps below the paper's
    assert all(run[-1] < run[0] for runs in gaps.values() for run in runs)
    assert all(run[-1] < 0.1 for run in gaps["ACCPM"])
    paper, krein = (np.array(gaps[k])[:, -1] for k in list(FIGURE1_SOLVERS)[1:])
    assert np.all(krein <= paper)


@pytest.mark.slow
@pytest.mark.parametrize("quick_form", ["luss2009-figure2"], indirect=True)
def test_figure2_quick_form(quick_form):
    settings = FIGURE2_FORMS.quick
    rows = load(quick_form, "figure2_time")["rows"]
    assert [(r["solver"], r["rho"], r["n"]) for r in rows] == [
        (label, rho, n) for label in FIGURE2_SOLVERS for rho in settings.rhos for n in settings.sizes[label]
    ]
    for r in rows:
        assert 0 <= r["converged"] <= settings.repeats and r["seconds"] > 0 and r["n_iter"] >= 1
        assert (r["seconds_converged"] is None) == (r["converged"] == 0)
        assert (r["converged"] == settings.repeats) == (r["max_final_gap"] <= 0.1)
    exchange = [r for r in rows if r["solver"] == "SIQCLP (exchange)"]
    assert all(r["n_iter"] <= 100 for r in exchange)


@pytest.mark.parametrize("quick_form", ["luss2009-figure2-plain"], indirect=True)
def test_figure2_plain_quick_form(quick_form):
    """The certified gaps are nonnegative (valid upper bounds), the cuts within the cap; ACCPM stopped
    before its cap only at the tolerance."""
    settings = FIGURE2_CHECK_FORMS.quick
    runs = load(quick_form, "exchange_runs")["rows"]
    assert [(r["n"], r["subset"], r["rho"], r["method"]) for r in runs] == [
        (n, subset, rho, method)
        for n in settings.sizes
        for subset in range(settings.repeats)
        for rho in settings.rhos
        for method in ("plain (paper)", "level (krein)")
    ]
    assert all(1 <= r["cuts"] <= settings.max_cuts and r["final gap"] >= 0 for r in runs)
    for row in load(quick_form, "exchange")["rows"]:
        mine = [r for r in runs if (r["method"], r["rho"], r["n"]) == (row["method"], row["rho"], row["n"])]
        assert row["of"] == len(mine) == settings.repeats
        assert row["reached 0.1"] == sum(r["final gap"] <= 0.1 for r in mine)
    accpm = load(quick_form, "accpm")["rows"]
    assert [r["n"] for r in accpm] == settings.accpm_sizes
    for r in accpm:
        assert 1 <= r["iterations"] <= settings.accpm_max_iter and r["final gap"] >= 0
        assert r["iterations"] == settings.accpm_max_iter or r["final gap"] <= 0.1


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


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("cvxpy") is None, reason="needs cvxpy")
@pytest.mark.parametrize("quick_form", ["luss2009-figure1-accpm"], indirect=True)
def test_krein_accpm_agrees_with_an_independent_one(quick_form):
    """luss2009-figure1-accpm (quick): krein's ACCPM centres are cvxpy's analytic centres of the same
    localization sets, IndefiniteSVC certifies the same gaps as the independent oracle, and the ACCPM
    written with cvxpy's centres follows krein's from the same start."""
    centers = load(quick_form, "accpm_centers")["rows"]
    assert [row["iteration"] for row in centers] == [5, 15, 30]
    for row in centers:
        assert row["relative distance"] < 1e-3 and abs(row["barrier krein − cvxpy"]) < 1e-4
        assert row["gap (independent)"] == pytest.approx(row["gap (IndefiniteSVC)"], rel=1e-6)
    check = load(quick_form, "accpm_check")
    gaps = check["gaps"]
    ours, theirs = np.array(gaps["krein accpm_maximize"]), np.array(gaps["cvxpy ACCPM, feasible set (P₀)"])
    assert np.allclose(ours[:15], theirs[:15], rtol=1e-3)
    # errors are on the gap's scale, and the optimum lies below every certified bound: error ≤ gap
    for name, curve in gaps.items():
        assert np.all(np.array(check["errors"][name]) <= np.array(curve) + 1e-9), name

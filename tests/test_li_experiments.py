"""The li-tables and li-figures experiments in tiny forms (numbers checked, files written)."""

import json

import numpy as np
import pytest
from rich.console import Console

from krein.experiments import RunContext, get_experiment
from krein.experiments.li2024 import (
    FiguresConfig,
    FixedCombinationRidge,
    TablesConfig,
    base_kernel_stack,
    run_figures,
    run_tables,
)


def _context(tmp_path):
    return RunContext(quick=True, out=tmp_path, show_progress=False, console=Console(quiet=True))


def test_experiments_are_registered():
    assert get_experiment("li-tables").paper.startswith("Li, Venturi & Xu")
    assert get_experiment("li-figures").paper.startswith("Li, Venturi & Xu")


def test_base_kernel_stack_is_symmetric_with_unit_scale():
    stack, y = base_kernel_stack("sonar")
    assert stack.shape == (208, 208, 6)
    assert set(np.unique(y)) == {-1.0, 1.0}
    np.testing.assert_allclose(stack, np.swapaxes(stack, 0, 1))
    np.testing.assert_allclose(np.diagonal(stack[:, :, :4], axis1=0, axis2=1), 1.0)  # Gaussians
    assert 0.5 < np.mean(np.diagonal(stack[:, :, 4])) < 2.0


def test_fixed_combination_ridge_is_kernel_ridge_on_the_sum():
    stack, y = base_kernel_stack("sonar")
    unif = FixedCombinationRidge(lam=0.5).fit(stack[:100, :100], y[:100])
    from sklearn.kernel_ridge import KernelRidge

    reference = KernelRidge(kernel="precomputed", alpha=0.5).fit(stack[:100, :100].sum(axis=2), y[:100])
    np.testing.assert_allclose(
        unif.predict(stack[100:, :100]), reference.predict(stack[100:, :100].sum(axis=2))
    )


def test_li_tables_tiny(tmp_path):
    config = TablesConfig(
        datasets=("sonar",), lams=(0.1, 1.0), Lambdas=(1.0,), betas=(1.0,), cv_folds=2, n_splits=2, max_iter=5
    )
    run_tables(_context(tmp_path), config)
    for name in ("cv_rmse", "test_rmse", "test_error"):
        assert (tmp_path / f"{name}.md").exists() and (tmp_path / f"{name}.csv").exists()
    summary = json.loads((tmp_path / "test_error.json").read_text())["summary"]
    methods = {row["method"] for row in summary}
    assert {
        "PGD d=1",
        "IIA d=1",
        "rPGD d=1",
        "rIIA d=1",
        "PGD d=2",
        "rPGD d=2",
        "TR d=1",
        "BM",
        "UNIF",
    } <= methods
    for row in summary:  # sonar with Gaussian kernels: far better than chance (the paper: 0.22-0.26)
        assert 0.0 < row["mean"] < 0.35, row
    rmse = json.loads((tmp_path / "test_rmse.json").read_text())["summary"]
    assert all(0.3 < row["mean"] < 1.0 for row in rmse)


def test_li_figures_tiny(tmp_path):
    config = FiguresConfig(datasets=("heart",), lams=(1e-2, 1.0), n_splits=2, max_iter=5)
    curves = run_figures(_context(tmp_path), config)
    assert (tmp_path / "pgd_lambda_heart.png").stat().st_size > 1000
    assert len(curves) == 4
    for rmse, error in curves.values():
        assert np.all(rmse > 0) and np.all(error < 0.4)


@pytest.mark.parametrize("name", ["li-tables", "li-figures"])
def test_quick_configs_are_smaller_than_full(name):
    full, quick = (
        (TablesConfig(), TablesConfig.quick())
        if name == "li-tables"
        else (FiguresConfig(), FiguresConfig.quick())
    )
    assert quick.n_splits < full.n_splits and len(quick.lams) < len(full.lams)

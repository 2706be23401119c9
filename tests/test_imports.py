"""The layering rule: no package of krein imports another package's private module.

``krein.svm`` may import ``krein.svm._proxy`` and the shared root helpers (``krein._base``,
``krein._validation``, ``krein._threads``), and any public name of another package
(``from krein.optimize import projected_gradient``), but never ``krein.optimize._cccp``.
"""

import ast
from pathlib import Path

import pytest

import krein

SOURCE = Path(krein.__file__).parent


def _module_name(path):
    parts = list(path.relative_to(SOURCE.parent).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def _is_module(name):
    path = SOURCE.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def private_imports(source, module, is_package=False):
    """``(line, imported module)`` for each import in ``source`` (the text of ``module``, a list of
    name parts) of a private module ``krein.Y._z...`` of another package ``Y``."""
    own = module[1] if len(module) > 2 or (is_package and len(module) > 1) else None
    base = module if is_package else module[:-1]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            prefix = base[: len(base) - node.level + 1] if node.level else []
            names = [".".join(prefix + ([node.module] if node.module else []))]
            # ``from krein.y import _z`` imports the module ``_z`` where there is one
            names += [
                f"{names[0]}.{alias.name}"
                for alias in node.names
                if alias.name.startswith("_") and _is_module(f"{names[0]}.{alias.name}")
            ]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] != "krein" or len(parts) < 3 or parts[1].startswith("_"):
                continue
            if any(part.startswith("_") for part in parts[2:]) and parts[1] != own:
                found.append((node.lineno, name))
    return found


def test_the_rule_finds_a_cross_package_private_import():
    source = "from ..optimize._cccp import concave_convex_procedure\nfrom ._proxy import kkt_intercept\n"
    assert private_imports(source, ["krein", "svm", "_baselines"]) == [(1, "krein.optimize._cccp")]
    source = "def f():\n    from krein.representation import _columns\n"
    assert private_imports(source, ["krein", "least_squares", "_fit"]) == [
        (2, "krein.representation._columns")
    ]
    # the package's own private modules and the shared root helpers are allowed
    source = "from .._base import KernelEstimatorMixin\nfrom ._solvers import projected_gradient\n"
    assert private_imports(source, ["krein", "kernel_learning", "_estimators"]) == []
    assert private_imports("from ._iklr import X\n", ["krein", "logistic"], is_package=True) == []
    # a root module (the command line) is in no package
    assert private_imports("from .experiments._notes import check_notes\n", ["krein", "cli"]) == [
        (1, "krein.experiments._notes")
    ]


@pytest.mark.parametrize("path", sorted(SOURCE.rglob("*.py")), ids=lambda p: str(p.relative_to(SOURCE)))
def test_no_package_imports_another_packages_private_module(path):
    found = private_imports(path.read_text(), _module_name(path), path.name == "__init__.py")
    assert not found, f"{path.relative_to(SOURCE)} imports private modules of other packages: {found}"


def test_optimize_exports_its_solvers():
    import krein.optimize as optimize

    assert sorted(optimize.__all__) == sorted(set(optimize.__all__))
    for name in optimize.__all__:
        value = getattr(optimize, name)
        assert not callable(value) or value.__module__.startswith("krein.optimize"), name
    for name in ("projected_gradient", "concave_convex_procedure", "accpm_maximize", "exchange_maximize"):
        assert name in optimize.__all__

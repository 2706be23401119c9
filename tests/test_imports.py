"""The layering rules of ``docs/developer.md``: each layer imports only the layers before it, and no
package of krein imports another package's private module.

``krein.svm`` may import ``krein.svm._proxy`` and the shared root helpers (``krein._base``,
``krein._validation``, ``krein._threads``), and any public name of another package
(``from krein.optimize import projected_gradient``), but never ``krein.optimize._cccp``; and it may
import ``krein.optimize`` (an earlier layer) but not ``krein.model_selection`` (a later one) nor
``krein.logistic`` (its own layer).
"""

import ast
import re
from pathlib import Path

import pytest

import krein

SOURCE = Path(krein.__file__).parent
DEVELOPER_NOTES = Path(__file__).parents[1] / "docs" / "developer.md"


def _module_name(path):
    parts = list(path.relative_to(SOURCE.parent).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def _is_module(name):
    path = SOURCE.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def imported_modules(source, module, is_package=False):
    """``(line, imported module)`` for each import anywhere in ``source`` (the text of ``module``, a
    list of name parts), relative imports resolved: ``from krein.y import z`` imports ``krein.y``, and
    the module ``krein.y.z`` where there is one."""
    base = module if is_package else module[:-1]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            prefix = base[: len(base) - node.level + 1] if node.level else []
            names = [".".join(prefix + ([node.module] if node.module else []))]
            names += [
                f"{names[0]}.{alias.name}" for alias in node.names if _is_module(f"{names[0]}.{alias.name}")
            ]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found += [(node.lineno, name) for name in names]
    return found


def _owner(module, is_package=False):
    """The package (or root module) of krein that ``module`` belongs to: ``svm`` for
    ``krein.svm._proxy``, ``_base`` for ``krein._base``; None for ``krein`` itself."""
    return module[1] if len(module) > 1 else None


def private_imports(source, module, is_package=False):
    """``(line, imported module)`` for each import in ``source`` (the text of ``module``, a list of
    name parts) of a private module ``krein.Y._z...`` of another package ``Y``."""
    own = module[1] if len(module) > 2 or (is_package and len(module) > 1) else None
    found = []
    for line, name in imported_modules(source, module, is_package):
        parts = name.split(".")
        if parts[0] != "krein" or len(parts) < 3 or parts[1].startswith("_"):
            continue
        if any(part.startswith("_") for part in parts[2:]) and parts[1] != own:
            found.append((line, name))
    return found


def documented_layers(notes=None):
    """The layers of the table in ``docs/developer.md`` ("Layers and imports"), first to last: a list of
    lists of the names under ``krein`` (``["least_squares", "svm", ...]`` for the estimators)."""
    text = DEVELOPER_NOTES.read_text() if notes is None else notes
    section = text.split("## Layers and imports", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if re.match(r"\|\s*[a-z][a-z ]*\|\s*`krein\.", line)]
    return [re.findall(r"`krein\.(\w+)`", row.split("|")[2]) for row in rows]


def layer_violations(modules, layers):
    """``(module, line, imported module, why)`` for each import against ``layers``.

    ``modules`` maps the name parts of each module to its list of :func:`imported_modules`. A module
    of layer i may import the layers before i and its own package; a root helper (``krein._x``) sits
    in no layer, and may be imported by layer i when every layer it imports (itself, or through other
    helpers) comes before i.
    """
    index = {name: i for i, names in enumerate(layers) for name in names}
    direct = {}  # helper → the helpers and packages it imports
    for module, imports in modules.items():
        owner = _owner(module)
        if owner is not None and owner.startswith("_"):
            direct.setdefault(owner, set()).update(
                name.split(".")[1] for _, name in imports if name.startswith("krein.") and name != "krein"
            )

    def helper_level(helper, seen=()):
        """The last layer ``helper`` imports, through other helpers too (-1: none)."""
        levels = [-1]
        for name in direct.get(helper, ()):
            if name.startswith("_") and name not in seen:
                levels.append(helper_level(name, (*seen, helper)))
            elif not name.startswith("_"):
                levels.append(index[name])
        return max(levels)

    found = []
    for module, imports in modules.items():
        owner = _owner(module)
        if owner is None or owner.startswith("_"):
            continue  # krein itself; a helper's imports place it, above
        for line, name in imports:
            parts = name.split(".")
            if parts[0] != "krein" or len(parts) < 2 or parts[1] == owner:
                continue
            target = parts[1]
            if target.startswith("_"):
                if helper_level(target) >= index[owner]:
                    found.append(
                        (".".join(module), line, name, "a helper that imports this layer or a later one")
                    )
            elif index[target] == index[owner]:
                found.append((".".join(module), line, name, "another package of the same layer"))
            elif index[target] > index[owner]:
                found.append((".".join(module), line, name, "a later layer"))
    return found


def _all_modules():
    paths = sorted(SOURCE.rglob("*.py"))
    return {
        tuple(_module_name(path)): imported_modules(
            path.read_text(), _module_name(path), path.name == "__init__.py"
        )
        for path in paths
    }


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


def test_the_layer_rule_finds_imports_against_the_layers():
    layers = [["dissimilarity"], ["kernels"], ["least_squares", "svm"], ["model_selection"]]
    modules = {
        ("krein", "kernels", "_distance"): imported_modules(
            "def f():\n    from ..svm import X\nfrom ..dissimilarity import pairwise_distances\n",
            ["krein", "kernels", "_distance"],
        ),
        ("krein", "svm"): imported_modules(
            "from ..least_squares import Y\nfrom .._base import Z\nfrom ._proxy import W\n",
            ["krein", "svm"],
            is_package=True,
        ),
        ("krein", "dissimilarity", "_a"): imported_modules(
            "from .._base import Z\n", ["krein", "dissimilarity", "_a"]
        ),
        ("krein", "_base"): imported_modules("from .kernels import make_kernel\n", ["krein", "_base"]),
    }
    assert layer_violations(modules, layers) == [
        ("krein.kernels._distance", 2, "krein.svm", "a later layer"),
        ("krein.svm", 1, "krein.least_squares", "another package of the same layer"),
        ("krein.dissimilarity._a", 1, "krein._base", "a helper that imports this layer or a later one"),
    ]
    notes = (
        "## Layers and imports\n\n| layer | packages |\n| --- | --- |\n| a | `krein.x` |\n"
        "| b c | `krein.y`, `krein.z` |\n\n## Next\n\n| d | `krein.w` |\n"
    )
    assert documented_layers(notes) == [["x"], ["y", "z"]]


def test_every_package_has_its_documented_layer():
    layers = documented_layers()
    listed = [name for names in layers for name in names]
    assert len(listed) == len(set(listed)), listed
    packages = {path.parent.name for path in SOURCE.glob("*/__init__.py")}
    modules = {path.stem for path in SOURCE.glob("*.py") if not path.name.startswith("_")}
    public = {name for name in packages | modules if not name.startswith("_")}
    assert sorted(listed) == sorted(public)
    assert layers[:2] == [["dissimilarity"], ["kernels"]]  # the distances, then the kernels of distances


def test_every_import_respects_the_documented_layers():
    found = layer_violations(_all_modules(), documented_layers())
    assert not found, "imports against the layers of docs/developer.md: " + "; ".join(map(str, found))

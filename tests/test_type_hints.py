"""The public API carries type hints (issue 32): every public function of the modules below, and every
public method of their public classes that are not estimators, annotates each parameter and its
return value, and the annotations resolve (``typing.get_type_hints``: no misspelt or unimported
name behind ``from __future__ import annotations``)."""

import importlib
import inspect
import typing

import pytest
from sklearn.base import BaseEstimator

#: The modules whose public names (``__all__``) must be annotated, and whether their classes are
#: included (estimators never are; ``krein.spectral``'s classes are the spectral representation's).
MODULES = {
    "krein.optimize": True,
    "krein.kernels": True,
    "krein.dissimilarity": True,
    "krein.datasets": True,
    "krein.spectral": False,
}


def _own_functions(cls):
    """The public methods, properties, ``__init__`` and ``__call__`` that krein defines on ``cls``."""
    for name, member in inspect.getmembers(cls):
        if name.startswith("_") and name not in ("__init__", "__call__"):
            continue
        if isinstance(member, property):
            yield f"{cls.__name__}.{name}", member.fget
        elif inspect.isfunction(member) and member.__module__.startswith("krein"):
            yield f"{cls.__name__}.{name}", member


def _public_callables():
    for module_name, with_classes in MODULES.items():
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                yield f"{module_name}.{name}", obj
            elif with_classes and inspect.isclass(obj) and not issubclass(obj, BaseEstimator):
                for qualified, function in _own_functions(obj):
                    yield f"{module_name}.{qualified}", function


CALLABLES = dict(_public_callables())


def test_the_walk_finds_the_api():
    expected = {
        "krein.optimize.solve_sphere_quadratic",
        "krein.kernels.Kernel.__call__",
        "krein.spectral.eigendecompose",
    }
    assert expected <= set(CALLABLES)
    assert "krein.kernels.Gaussian.__init__" in CALLABLES and len(CALLABLES) > 80


@pytest.mark.parametrize("name", sorted(CALLABLES))
def test_public_callable_is_annotated(name):
    function = CALLABLES[name]
    hints = typing.get_type_hints(function)
    parameters = [p for p in inspect.signature(function).parameters if p not in ("self", "cls")]
    missing = [p for p in parameters if p not in hints]
    assert not missing, f"{name}: parameters without a type hint: {missing}"
    assert "return" in hints, f"{name}: no return annotation"

"""The public API carries type hints (issue 32): every public function of the modules below, and
every public method and property of their public classes (estimators and transformers included),
annotates each parameter and its return value, and the annotations resolve
(``typing.get_type_hints``: no misspelt or unimported name behind ``from __future__ import
annotations``). A class's methods are the ones krein defines, on the class or on a private base or
mixin of krein's; scikit-learn's own (``get_params``, ``set_params``, a mixin's ``score``) are not
krein's to annotate."""

import importlib
import inspect
import typing

import pytest

#: The modules whose public names (``__all__``) must be annotated, functions and classes.
MODULES = [
    "krein.optimize",
    "krein.kernels",
    "krein.dissimilarity",
    "krein.datasets",
    "krein.spectral",
    "krein.representation",
    "krein.least_squares",
    "krein.svm",
    "krein.logistic",
    "krein.kernel_learning",
    "krein.embedding",
    "krein.nystroem",
    "krein.model_selection",
]


def _is_krein(function):
    return function.__module__.startswith("krein")


def _own_functions(cls):
    """The public methods, properties, ``__init__`` and ``__call__`` that krein defines on ``cls``."""
    for name, member in inspect.getmembers(cls):
        if name.startswith("_") and name not in ("__init__", "__call__"):
            continue
        if isinstance(member, property):
            if _is_krein(member.fget):
                yield f"{cls.__name__}.{name}", member.fget
        elif inspect.isfunction(member) and _is_krein(member):
            yield f"{cls.__name__}.{name}", member


def _public_callables():
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                yield f"{module_name}.{name}", obj
            elif inspect.isclass(obj):
                for qualified, function in _own_functions(obj):
                    yield f"{module_name}.{qualified}", function


CALLABLES = dict(_public_callables())


def test_the_walk_finds_the_api():
    expected = {
        "krein.optimize.solve_sphere_quadratic",
        "krein.kernels.Kernel.__call__",
        "krein.spectral.eigendecompose",
        "krein.spectral.SpectrumTransformer.transform",
        "krein.least_squares.KreinRidge.__init__",  # from the private base _KreinLeastSquares
        "krein.least_squares.KreinRidge.fit_path",
        "krein.svm.KreinSVC.decision_function",
        "krein.dissimilarity.DoubleCentering.fit_transform",
    }
    assert expected <= set(CALLABLES)
    assert "krein.kernels.Gaussian.__init__" in CALLABLES and len(CALLABLES) > 200
    # scikit-learn's own methods are not krein's to annotate
    assert "krein.least_squares.KreinRidge.get_params" not in CALLABLES


@pytest.mark.parametrize("name", sorted(CALLABLES))
def test_public_callable_is_annotated(name):
    function = CALLABLES[name]
    hints = typing.get_type_hints(function)
    parameters = [p for p in inspect.signature(function).parameters if p not in ("self", "cls")]
    missing = [p for p in parameters if p not in hints]
    assert not missing, f"{name}: parameters without a type hint: {missing}"
    assert "return" in hints, f"{name}: no return annotation"

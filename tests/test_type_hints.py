"""The public API carries type hints (issue 32): every public function of the modules below, and
every public method and property of their public classes (estimators and transformers included),
annotates each parameter and its return value, and the annotations resolve
(``typing.get_type_hints``: no misspelt or unimported name behind ``from __future__ import
annotations``). A class's methods are the ones krein defines, on the class or on a private base or
mixin of krein's; scikit-learn's own (``get_params``, ``set_params``, a mixin's ``score``) are not
krein's to annotate. The string options of an estimator's ``__init__`` hints (``Literal``) are those
its ``_parameter_constraints`` accept."""

import importlib
import inspect
import types
import typing

import pytest
from sklearn.utils._param_validation import StrOptions

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
    """The public methods (class and static ones included), properties, ``__init__`` and ``__call__``
    that krein defines on ``cls`` or on one of its bases."""
    for name, member in inspect.getmembers(cls):
        if name.startswith("_") and name not in ("__init__", "__call__"):
            continue
        if isinstance(member, property):
            function = member.fget
        elif inspect.ismethod(member):  # a classmethod, bound to the class
            function = member.__func__
        elif inspect.isfunction(member):
            function = member
        else:
            continue
        if _is_krein(function):
            yield f"{cls.__name__}.{name}", function


def _public_classes():
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj):
                yield f"{module_name}.{name}", obj


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
        "krein.representation.SpectralRepresentation.exact",  # a classmethod
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


#: The estimators and transformers: the public classes with scikit-learn parameter constraints.
ESTIMATORS = {name: cls for name, cls in _public_classes() if hasattr(cls, "_parameter_constraints")}


def _literal_strings(hint):
    """The strings of the ``Literal`` types in ``hint`` (a ``Literal``, or a union holding some)."""
    if typing.get_origin(hint) is typing.Literal:
        return set(typing.get_args(hint))
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return set().union(*(_literal_strings(arg) for arg in typing.get_args(hint)))
    return set()


def test_the_estimators_are_found():
    assert {"krein.least_squares.KreinRidge", "krein.spectral.SpectrumTransformer"} <= set(ESTIMATORS)
    assert len(ESTIMATORS) > 25


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_literal_hints_match_the_parameter_constraints(name):
    """A string option in an ``__init__`` hint is one that ``_validate_params`` accepts, and back."""
    cls = ESTIMATORS[name]
    hints = typing.get_type_hints(cls.__init__)
    for parameter, constraints in cls._parameter_constraints.items():
        options = set().union(*(c.options for c in constraints if isinstance(c, StrOptions)))
        assert _literal_strings(hints[parameter]) == options, f"{name}: {parameter}"

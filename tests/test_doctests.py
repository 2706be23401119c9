"""The docstrings' examples run (issue 32): the doctests of every module of ``krein`` pass, and every
public estimator and transformer has an Examples section (one example at least) and a See Also section.

This runs what ``python -m pytest --doctest-modules src/krein`` runs, on the installed package, so the
README's test command covers it."""

import doctest
import importlib
import inspect
import pkgutil

import pytest
from sklearn.base import BaseEstimator

import krein

#: The public packages whose estimators and transformers the issue names.
PUBLIC_PACKAGES = (
    "least_squares",
    "svm",
    "logistic",
    "kernel_learning",
    "embedding",
    "nystroem",
    "spectral",
    "dissimilarity",
    "model_selection",
)

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _modules():
    return sorted(name for _, name, _ in pkgutil.walk_packages(krein.__path__, "krein."))


def _doctests(module_name):
    module = importlib.import_module(module_name)
    return [test for test in doctest.DocTestFinder().find(module) if test.examples]


MODULES_WITH_EXAMPLES = [name for name in _modules() if _doctests(name)]


def _public_estimators():
    found = {}
    for package in PUBLIC_PACKAGES:
        module = importlib.import_module(f"krein.{package}")
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
                found[name] = obj
    return found


PUBLIC_ESTIMATORS = _public_estimators()


@pytest.mark.parametrize("module_name", MODULES_WITH_EXAMPLES)
def test_doctests_pass(module_name):
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report = []
    for test in _doctests(module_name):
        runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


def test_there_are_23_public_estimators_and_transformers():
    # the count of issue 32; a new public estimator is added to the checks below by itself
    assert len(PUBLIC_ESTIMATORS) >= 23, sorted(PUBLIC_ESTIMATORS)


@pytest.mark.parametrize("name", sorted(PUBLIC_ESTIMATORS))
def test_every_public_estimator_has_examples_and_see_also(name):
    cls = PUBLIC_ESTIMATORS[name]
    doc = inspect.getdoc(cls)
    (test,) = [t for t in doctest.DocTestFinder(recurse=False).find(cls, name) if t.examples]
    assert any(f"{name}(" in example.source for example in test.examples), "the example builds the class"
    assert any(example.want for example in test.examples), "the example shows a result"
    assert "\nSee Also\n--------\n" in doc
    assert cls.__module__ in MODULES_WITH_EXAMPLES

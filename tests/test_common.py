"""scikit-learn's estimator checks over every public estimator of krein.

Estimators are discovered from the ``__all__`` of the modules listed in ``tests/_estimators.py``. A
justified expected failure is declared on the estimator class as ``_expected_failed_checks = {"check_name": "reason"}``.
"""

import pytest
from _estimators import public_estimators
from sklearn.utils.estimator_checks import parametrize_with_checks

ESTIMATORS = public_estimators()


def test_estimators_are_discovered():
    names = {cls.__name__ for cls in ESTIMATORS}
    assert "SpectrumTransformer" in names


def _expected_failures(estimator):
    return dict(getattr(estimator, "_expected_failed_checks", {}))


def _instances():
    for cls in ESTIMATORS:
        if cls.__name__ in ("HypergradientSearchCV", "KreinClassifierCV", "KreinRegressorCV"):
            continue  # meta-estimators, checked in tests/test_model_selection.py and test_family_search.py
        yield cls()


@parametrize_with_checks(list(_instances()), expected_failed_checks=_expected_failures)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_docstring_cites_its_source(cls):
    """Every public estimator documents what it implements (paper, section or equation)."""
    assert cls.__doc__ and len(cls.__doc__) > 200, cls

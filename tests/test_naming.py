"""The naming table of docs/developer.md, checked over every public estimator."""

import inspect

import pytest
from sklearn.base import BaseEstimator, is_classifier

from krein import embedding, kernel_learning, least_squares, logistic, model_selection, nystroem, svm

ESTIMATORS = sorted(
    {
        obj
        for module in (least_squares, svm, logistic, kernel_learning, embedding, nystroem, model_selection)
        for obj in vars(module).values()
        if inspect.isclass(obj) and issubclass(obj, BaseEstimator) and obj.__module__.startswith("krein.")
    },
    key=lambda cls: cls.__name__,
)

#: Names the table retired, with the name that replaced each.
RETIRED = {"lam": "alpha", "Lambda": "radius", "step_size": "learning_rate"}


def _parameters(cls):
    return list(inspect.signature(cls.__init__).parameters.values())[1:]


def test_every_public_estimator_is_listed():
    names = {cls.__name__ for cls in ESTIMATORS}
    assert {"KreinRidge", "IndefiniteSVC", "KernelLearningRidge", "IndefiniteLogisticRegression"} <= names
    assert "HypergradientSearchCV" in names and "IndefiniteNystroem" in names


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_every_parameter_after_the_first_is_keyword_only(cls):
    parameters = _parameters(cls)
    assert parameters[0].name in ("kernel", "kernels", "n_clusters", "estimator")
    positional = [p.name for p in parameters[1:] if p.kind != inspect.Parameter.KEYWORD_ONLY]
    assert not positional, f"{cls.__name__}: {positional} should be keyword-only"


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_no_estimator_uses_a_retired_name(cls):
    names = {p.name for p in _parameters(cls)}
    assert not names & set(RETIRED), {name: RETIRED[name] for name in names & set(RETIRED)}


LOW_RANK = [cls for cls in ESTIMATORS if "n_components" in {p.name for p in _parameters(cls)}]


@pytest.mark.parametrize("cls", LOW_RANK, ids=lambda cls: cls.__name__)
def test_more_landmarks_than_samples_warn_and_use_every_sample(cls):
    import numpy as np
    from sklearn.base import is_classifier, is_regressor

    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 3))
    y = (X[:, 0] > 0).astype(int) if is_classifier(cls()) else X[:, 0] + 0.1 * rng.standard_normal(30)
    supervised = is_classifier(cls()) or is_regressor(cls())
    extra = {"random_state": 0} if "random_state" in {p.name for p in _parameters(cls)} else {}

    def output(n_components):
        model = cls(n_components=n_components, **extra)
        model.fit(X, y) if supervised else model.fit(X)
        for method in (
            "transform",
            "decision_function",
            "predict",
        ):  # the outlier detectors: decision_function
            if hasattr(model, method) and (supervised or method != "predict"):
                return getattr(model, method)(X)
        return model.labels_

    with pytest.warns(UserWarning, match="n_components=45 > n_samples=30"):
        clamped = output(45)
    np.testing.assert_allclose(np.abs(clamped), np.abs(output(30)), rtol=1e-6, atol=1e-8)


CLASSIFIERS = [cls for cls in ESTIMATORS if is_classifier(cls())]


@pytest.mark.parametrize("cls", CLASSIFIERS, ids=lambda cls: cls.__name__)
def test_dual_coef_is_tasks_by_points(cls):
    import warnings

    import numpy as np

    rng = np.random.default_rng(1)
    X = rng.standard_normal((30, 2))
    y = np.digitize(X[:, 0], [-0.4, 0.4])  # three classes
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = cls().fit(X, y)
    if hasattr(model, "dual_coef_"):  # (the similarity-features models have coef_ on features)
        assert model.dual_coef_.shape == (3, 30)
        if hasattr(model, "intercept_"):  # (IKLR has no bias)
            assert np.shape(model.intercept_) == (3,)

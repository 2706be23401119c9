"""Discovery of krein's public estimators and how the reliability tests build and feed them.

Shared by ``tests/test_common.py`` (scikit-learn's checks), the stress suite (``tests/stress``), the
persistence, reproducibility and property tests and ``tools/stress_matrix.py``. An estimator is found
from the ``__all__`` of the modules in :data:`MODULES`, so a new estimator is covered as soon as it
is exported; :data:`FAST_PARAMS` only keeps the iterative ones small enough for a test.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
from dataclasses import dataclass, field

import numpy as np
from sklearn.base import BaseEstimator, is_classifier, is_outlier_detector, is_regressor

MODULES = [
    "krein.spectral",
    "krein.dissimilarity",
    "krein.nystroem",
    "krein.least_squares",
    "krein.svm",
    "krein.logistic",
    "krein.kernel_learning",
    "krein.model_selection",
    "krein.embedding",
]


def public_estimators():
    """Every non-abstract estimator class in the ``__all__`` of :data:`MODULES`, sorted by name."""
    found = {}
    for name in MODULES:
        if importlib.util.find_spec(name) is None:
            continue
        module = importlib.import_module(name)
        for attribute in getattr(module, "__all__", []):
            obj = getattr(module, attribute)
            if inspect.isclass(obj) and issubclass(obj, BaseEstimator) and not inspect.isabstract(obj):
                found[obj.__name__] = obj
    return [found[name] for name in sorted(found)]


#: Parameters that keep an estimator's iterations within a test's budget (applied where accepted).
FAST_PARAMS = {
    "IndefiniteLogisticRegression": {"max_outer_iter": 5, "max_inner_iter": 100},
    "IndefiniteNystroem": {"n_components": 10},
    "KreinClassifierCV": {"cv": 3},
    "KreinRegressorCV": {"cv": 3},
}

#: Input of the estimators that only take a pairwise matrix (no ``kernel`` parameter).
PAIRWISE_INPUT = {
    "DoubleCentering": "dissimilarity",
    "GaussianOfDistance": "dissimilarity",
    "SpectrumTransformer": "kernel",
}


def meta_estimator_factories():
    """Builders of the meta-estimators, which need an inner estimator (name → callable(**params))."""
    factories = {}
    if importlib.util.find_spec("krein.model_selection") is not None:
        from krein.model_selection import HypergradientSearchCV

        def hypergradient_search(kernel="gaussian", **params):
            from krein.least_squares import VarianceConstrainedKrein

            small = {"cv": 3, "n_restarts": 2, "restart_iter": 3, "max_iter": 5, "random_state": 0}
            return HypergradientSearchCV(VarianceConstrainedKrein(kernel=kernel), **{**small, **params})

        factories[HypergradientSearchCV.__name__] = hypergradient_search
    return factories


def _accepted(cls, params):
    names = inspect.signature(cls).parameters
    return {key: value for key, value in params.items() if key in names}


@dataclass(frozen=True)
class Subject:
    """One estimator as the reliability tests use it: a class, a variant and its kind of input.

    Attributes
    ----------
    cls : type
    variant : str
        ``"kernel"`` (points in, the estimator's default kernel), ``"precomputed"`` (an n×n kernel in,
        ``kernel="precomputed"``) or ``"pairwise"`` (an estimator that only takes a pairwise matrix).
    input : str
        ``"points"``, ``"kernel"``, ``"kernel_stack"`` (n×n×p base kernels, ``kernels="precomputed"``)
        or ``"dissimilarity"``: what ``X`` is.
    params : dict
    """

    cls: type
    variant: str
    input: str
    params: dict = field(default_factory=dict)

    @property
    def name(self):
        return f"{self.cls.__name__}[{self.variant}]"

    def make(self, **params):
        """A fresh estimator with the fast parameters, the variant's and ``params``."""
        merged = {**FAST_PARAMS.get(self.cls.__name__, {}), **self.params, **params}
        factory = meta_estimator_factories().get(self.cls.__name__)
        if factory is not None:
            return factory(**merged)
        if "random_state" in inspect.signature(self.cls).parameters:
            merged.setdefault("random_state", 0)
        return self.cls(**_accepted(self.cls, merged))

    @property
    def task(self):
        """``"classifier"``, ``"regressor"``, ``"outlier"`` or ``"transformer"``."""
        estimator = self.make()
        if is_classifier(estimator):
            return "classifier"
        if is_regressor(estimator):
            return "regressor"
        if is_outlier_detector(estimator):
            return "outlier"
        return "transformer"

    @property
    def has_kernel(self):
        return self.variant == "kernel"

    @property
    def has_random_state(self):
        return "random_state" in self.make().get_params()

    def encode(self, X_train, X_test=None):
        """The training input (and test-versus-train input) this subject takes for points ``X``."""
        if self.input == "points":
            return X_train if X_test is None else (X_train, X_test)
        if self.input == "dissimilarity":
            from sklearn.metrics import euclidean_distances

            pair = euclidean_distances
        elif self.input == "kernel_stack":
            from krein.kernels import Gaussian

            kernels = (reference_kernel(), Gaussian(1.0))

            def pair(A, B):
                return np.stack([kernel(A, B) for kernel in kernels], axis=-1)
        else:
            pair = reference_kernel()
        train = pair(X_train, X_train)
        if self.input != "dissimilarity":
            train = 0.5 * (train + np.swapaxes(train, 0, 1))
        return train if X_test is None else (train, pair(X_test, X_train))


def reference_kernel():
    """The indefinite kernel that precomputed inputs are made with (truncated ℓ₁, ρ = 0.7·d)."""
    from krein.kernels import TruncatedL1

    return TruncatedL1()


def subjects(estimators=None):
    """Every (estimator, variant) pair: with its default kernel and with ``kernel="precomputed"`` (or
    ``kernels="precomputed"`` for the estimators that combine base kernels)."""
    found = []
    for cls in public_estimators() if estimators is None else estimators:
        if cls.__name__ in PAIRWISE_INPUT:
            found.append(Subject(cls, "pairwise", PAIRWISE_INPUT[cls.__name__]))
            continue
        parameters = inspect.signature(cls).parameters
        found.append(Subject(cls, "kernel", "points"))
        if "kernel" in parameters or cls.__name__ in meta_estimator_factories():
            found.append(Subject(cls, "precomputed", "kernel", {"kernel": "precomputed"}))
        elif "kernels" in parameters:
            found.append(Subject(cls, "precomputed", "kernel_stack", {"kernels": "precomputed"}))
    return found


def outputs(estimator, X):
    """Every prediction-like output of a fitted estimator on ``X`` (name → array)."""
    results = {}
    for method in ("predict", "decision_function", "predict_proba", "score_samples", "transform"):
        if hasattr(estimator, method):
            results[method] = np.asarray(getattr(estimator, method)(X))
    return results


def toy_problem(task, n_samples=24, n_test=7, n_features=3, n_classes=2, random_state=0):
    """Standardized points with targets for ``task``: ``(X, y, X_test)`` (``y`` None if unsupervised)."""
    rng = np.random.default_rng(random_state)
    X = rng.standard_normal((n_samples + n_test, n_features))
    if task == "classifier":
        score = X[:, 0] + 0.5 * X[:, 1]
        edges = np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1])
        y = np.searchsorted(edges, score)
        return X[:n_samples], y[:n_samples], X[n_samples:]
    if task == "regressor":
        y = np.sin(X[:, 0]) + 0.5 * X[:, 1]
        return X[:n_samples], y[:n_samples], X[n_samples:]
    return X[:n_samples], None, X[n_samples:]

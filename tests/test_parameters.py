"""The constructor convention: ``store_parameters(self, locals())`` records exactly the signature."""

import numpy as np
import pytest
from sklearn.base import clone

import krein.kernels as kernels
from krein._parameters import parameter_names, store_parameters
from krein.svm import IndefiniteSVR


class _Toy:
    def __init__(self, a, *, b=2, c=None):
        store_parameters(self, locals())


def test_store_parameters_records_each_argument_unchanged_and_nothing_else():
    values = [1.0, 2.0]
    toy = _Toy(values, c="x")
    assert parameter_names(_Toy) == ["a", "b", "c"]
    assert vars(toy) == {"a": values, "b": 2, "c": "x"}
    assert toy.a is values  # unchanged: not copied, not converted (scikit-learn's clone checks `is`)


def test_a_subclass_adding_arguments_records_both_sets():
    class Extended(_Toy):
        def __init__(self, a, *, b=2, c=None, d=4):
            super().__init__(a, b=b, c=c)
            store_parameters(self, locals())

    extended = Extended(1, d=5)
    assert parameter_names(Extended) == ["a", "b", "c", "d"]
    assert vars(extended) == {"a": 1, "b": 2, "c": None, "d": 5}


@pytest.mark.parametrize(
    "kernel",
    [
        kernels.Gaussian(eta=0.5),
        kernels.ARDGaussian(eta=np.array([1.0, 2.0])),
        kernels.DeltaGaussian(eta2=3.0),
        kernels.Epanechnikov(),
        kernels.TruncatedL1(rho=2.0),
        kernels.Polynomial(degree=3, coef0_bounds=(1e-2, 1e2)),
        kernels.Gaussian() - kernels.Sigmoid(eta=2.0),
        2.0 * kernels.Gaussian(),
        kernels.Gaussian() ** 2,
    ],
    ids=lambda k: type(k).__name__,
)
def test_kernels_store_their_signature(kernel):
    names = parameter_names(type(kernel))
    assert sorted(vars(kernel)) == sorted(names)
    assert type(kernel)(**kernel.get_params(deep=False)) == kernel


def test_estimator_parameters_survive_clone():
    svr = IndefiniteSVR("precomputed", C=3.0, epsilon=0.2, solver="accpm", smoothing=1e-3)
    assert clone(svr).get_params() == svr.get_params()
    assert set(vars(svr)) == set(parameter_names(IndefiniteSVR))

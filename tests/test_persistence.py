"""Every fitted estimator round-trips through pickle, joblib and skops with identical predictions.

skops (``skops.io``) is the format for files from untrusted sources: loading never executes code, and
every type outside skops' default trusted set must be named by the caller. The types a krein model
needs are all from krein, numpy, scipy or scikit-learn; the test asserts that, then passes that list
explicitly as ``trusted`` (never ``trusted=True``).
"""

import io
import pickle

import joblib
import numpy as np
import pytest
from _estimators import outputs, subjects, toy_problem

skops_io = pytest.importorskip("skops.io")

#: Packages whose types a krein model may ask skops to trust.
TRUSTED_PACKAGES = ("krein.", "numpy.", "scipy.", "sklearn.")

SUBJECTS = subjects()


def fitted(subject):
    task = subject.task
    X, y, X_test = toy_problem("regressor" if task == "regressor" else "classifier", n_samples=30)
    train, test = subject.encode(X, X_test)
    estimator = subject.make()
    if task in ("classifier", "regressor"):
        estimator.fit(train, y)
    else:
        estimator.fit(train)
    return estimator, test


def assert_same_outputs(original, restored, X_test):
    expected, got = outputs(original, X_test), outputs(restored, X_test)
    assert expected.keys() == got.keys() and expected
    for method in expected:
        np.testing.assert_array_equal(got[method], expected[method], err_msg=method)


@pytest.mark.parametrize("subject", SUBJECTS, ids=lambda s: s.name)
def test_pickle_and_joblib_round_trip(subject):
    estimator, X_test = fitted(subject)
    assert_same_outputs(estimator, pickle.loads(pickle.dumps(estimator)), X_test)
    buffer = io.BytesIO()
    joblib.dump(estimator, buffer)
    buffer.seek(0)
    assert_same_outputs(estimator, joblib.load(buffer), X_test)


@pytest.mark.parametrize("subject", SUBJECTS, ids=lambda s: s.name)
def test_skops_round_trip_with_explicit_trusted_types(subject):
    estimator, X_test = fitted(subject)
    data = skops_io.dumps(estimator)
    untrusted = skops_io.get_untrusted_types(data=data)
    foreign = [name for name in untrusted if not name.startswith(TRUSTED_PACKAGES)]
    assert not foreign, (
        f"{subject.name} needs skops to trust types outside krein/numpy/scipy/sklearn: {foreign}"
    )
    restored = skops_io.loads(data, trusted=untrusted)
    assert type(restored) is type(estimator)
    assert_same_outputs(estimator, restored, X_test)


def test_skops_refuses_untrusted_types_unless_listed():
    from krein.kernels import Gaussian
    from krein.spectral import SpectrumTransformer

    subject = next(s for s in SUBJECTS if s.cls is SpectrumTransformer)
    estimator, _ = fitted(subject)
    estimator.kernel_for_test_ = Gaussian(0.5)
    data = skops_io.dumps(estimator)
    untrusted = skops_io.get_untrusted_types(data=data)
    assert any(name.startswith("krein.") for name in untrusted)
    with pytest.raises(Exception, match="[Uu]ntrusted"):
        skops_io.loads(data, trusted=[])

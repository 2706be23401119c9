"""Hostile inputs for every estimator: the stress cases and the rule that judges their outcome.

Each :class:`Case` builds a :class:`Trial` (an estimator, training input, test input) for a
:class:`~_estimators.Subject` and says what it must end in:

* ``"ok"``: a correct result — fit and every prediction method succeed, outputs are finite, have one
  row per test sample, class labels come from the training labels, and (for inputs that only differ
  in layout or type from a clean baseline) outputs equal the baseline's;
* ``"error"``: a ``ValueError`` or ``TypeError`` whose message names the argument (one of
  ``Case.names``, matched as a word, case-insensitively);
* ``"either"``: one of the two (degenerate but legal input, e.g. a singular kernel).

Anything else — a NaN prediction, a wrong shape, another exception type, an error message that does not
say what is wrong — is a failure. :func:`run_case` returns an :class:`Outcome`; ``tests/stress/test_stress.py``
asserts on it and ``tools/stress_matrix.py`` tabulates it (in subprocesses, to catch crashes and hangs).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from _estimators import Subject, outputs, toy_problem
from sklearn.base import is_regressor

#: Outcome statuses that count as handled (the others are failures).
HANDLED = ("ok", "error")
#: Training samples in the small (CI) form; ``tools/stress_matrix.py`` also runs larger ones.
SMALL_SIZE = 24


@dataclass
class Trial:
    """What one case feeds an estimator.

    ``baseline``: the data (``estimator`` unused: a clone of this trial's is fitted) whose outputs this
    trial must reproduce — the same numbers in another layout or type; ``relabel``: maps the baseline's
    predicted labels to this trial's (string class labels); ``after_fit``: called with the fitted
    estimator before its outputs are taken (side calls that must not change it); ``rtol``: how close
    to the baseline's the outputs must be; ``partition``: predicted labels are cluster names, equal to
    the baseline's up to renaming; ``unit``: real outputs are compared in units of ``unit`` (divided
    by it: targets scaled by ``unit``), so that outputs near 1e-170 are held to the same relative
    accuracy as outputs near 1.
    """

    estimator: object
    X: object
    y: object
    X_test: object
    baseline: Trial | None = None
    relabel: Callable | None = None
    after_fit: Callable | None = None
    rtol: float = 1e-7
    partition: bool = False
    unit: float = 1.0


@dataclass(frozen=True)
class Case:
    """One hostile input: a name, the expected ending, who it applies to and how to build it."""

    name: str
    description: str
    expect: str
    build: Callable[[Subject, int], Trial]
    applies: Callable[[Subject], bool] = lambda subject: True
    names: tuple = ()


@dataclass
class Outcome:
    """``status``: "ok", "error" (clear), "unclear error", "crash", "wrong result" (or "timeout" in tools)."""

    status: str
    detail: str = ""
    warnings: list = field(default_factory=list)

    def passes(self, expect):
        if expect == "either":
            return self.status in HANDLED
        return self.status == expect


# --------------------------------------------------------------------------------------------------
# Data


def problem(subject, n_samples, n_classes=2, random_state=0):
    """Clean points ``(X, y, X_test)``: regression targets for regressors, class labels otherwise
    (transformers and outlier detectors are fitted without them)."""
    task = subject.task
    return toy_problem(
        "regressor" if task == "regressor" else "classifier",
        n_samples=n_samples,
        n_classes=n_classes,
        random_state=random_state,
    )


def _fit_target(subject, y):
    return None if subject.task in ("outlier", "transformer") else y


def clean_trial(subject, n_samples=SMALL_SIZE, **params):
    """The clean baseline: float64, C-contiguous, well-scaled data."""
    X, y, X_test = problem(subject, n_samples)
    train, test = subject.encode(X, X_test)
    return Trial(subject.make(**params), train, _fit_target(subject, y), test)


def _with_inputs(trial, transform, relabel=None, y=None):
    """A trial on ``transform(train)``/``transform(test)`` that must reproduce ``trial``."""
    return Trial(
        trial.estimator,
        transform(trial.X),
        trial.y if y is None else y,
        transform(trial.X_test),
        baseline=trial,
        relabel=relabel,
    )


# --------------------------------------------------------------------------------------------------
# The cases


def _nan_in_train(subject, n, value=np.nan):
    trial = clean_trial(subject, n)
    X = trial.X.copy()
    X[1, 0] = value
    if subject.input != "points":
        X[0, 1] = value
    trial.X = X
    return trial


def _nan_in_target(subject, n):
    trial = clean_trial(subject, n)
    y = trial.y.astype(float)
    y[2] = np.nan
    trial.y = y
    return trial


def _nan_in_test(subject, n):
    trial = clean_trial(subject, n)
    X_test = trial.X_test.copy()
    X_test[0, 0] = np.nan
    trial.X_test = X_test
    return trial


def _empty(subject, n):
    trial = clean_trial(subject, n)
    trial.X = trial.X[:0] if subject.input == "points" else trial.X[:0, :0]
    trial.y = None if trial.y is None else trial.y[:0]
    return trial


def _one_sample(subject, n):
    trial = clean_trial(subject, n)
    trial.X = trial.X[:1] if subject.input == "points" else trial.X[:1, :1]
    trial.y = None if trial.y is None else trial.y[:1]
    trial.X_test = trial.X_test[:, :1] if subject.input != "points" else trial.X_test
    return trial


def _one_class(subject, n):
    trial = clean_trial(subject, n)
    trial.y = np.zeros_like(trial.y)
    return trial


def _three_classes(subject, n):
    X, y, X_test = problem(subject, n, n_classes=3)
    train, test = subject.encode(X, X_test)
    return Trial(subject.make(), train, y, test)


def _points_trial(subject, X, y, X_test, **params):
    train, test = subject.encode(X, X_test)
    return Trial(subject.make(**params), train, _fit_target(subject, y), test)


def _duplicated_points(subject, n):
    X, y, X_test = problem(subject, n // 2)
    return _points_trial(subject, np.vstack([X, X]), np.concatenate([y, y]), X_test)


def _identical_points(subject, n):
    X, y, X_test = problem(subject, n)
    return _points_trial(subject, np.ones_like(X), y, X_test)


def _constant_feature(subject, n):
    X, y, X_test = problem(subject, n)
    X, X_test = X.copy(), X_test.copy()
    X[:, 1] = 3.0
    X_test[:, 1] = 3.0
    return _points_trial(subject, X, y, X_test)


def _scaled_points(scale):
    def build(subject, n):
        X, y, X_test = problem(subject, n)
        return _points_trial(subject, X * scale, y, X_test * scale)

    return build


def _scaled_kernel(scale):
    def build(subject, n):
        trial = clean_trial(subject, n)
        trial.X = trial.X * scale
        trial.X_test = trial.X_test * scale
        return trial

    return build


def _bandwidth(eta):
    def build(subject, n):
        from krein.kernels import Gaussian

        return clean_trial(subject, n, kernel=Gaussian(eta))

    return build


def _scaled_targets(scale):
    """Targets scaled by ``scale`` (near the edges of floating point): a linear estimator of the targets
    must give the clean predictions scaled by the same factor (to 1e-6 relative, and 1e-8 of the
    largest prediction). Solvers run to ``tol=1e-10``, so that the comparison measures the scaling and
    not the solver's tolerance (at the proxy SVR's default 1e-3, the rounding of ``y·scale`` alone
    moves its predictions by 4e-4)."""

    def build(subject, n):
        trial = clean_trial(subject, n, tol=1e-10)
        baseline = Trial(None, trial.X, trial.y, trial.X_test)
        scaled = Trial(trial.estimator, trial.X, trial.y * scale, trial.X_test, baseline=baseline)
        scaled.unit, scaled.rtol = scale, 1e-6
        return scaled

    return build


def _huge_distances(subject, n):
    """Points 1e155 apart under a unit-bandwidth Gaussian: their squared distances leave the
    floating-point range, and the kernel is the identity (not NaN)."""
    from krein.kernels import Gaussian

    X, y, X_test = problem(subject, n)
    return Trial(subject.make(kernel=Gaussian(1.0)), X * 1e155, _fit_target(subject, y), X_test * 1e155)


def _integer_input(subject, n):
    X, y, X_test = problem(subject, n)
    X, X_test = np.round(4 * X).astype(np.int64), np.round(4 * X_test).astype(np.int64)
    if subject.input != "points":
        train, test = subject.encode(X.astype(float), X_test.astype(float))
        X, X_test = np.round(10 * train).astype(np.int64), np.round(10 * test).astype(np.int64)
    trial = Trial(subject.make(), X, _fit_target(subject, y), X_test)
    trial.baseline = Trial(None, X.astype(float), trial.y, X_test.astype(float))
    return trial


def _float32_input(subject, n):
    trial = clean_trial(subject, n)
    single = _with_inputs(trial, lambda A: np.asarray(A, dtype=np.float32))
    single.baseline = Trial(None, single.X.astype(np.float64), trial.y, single.X_test.astype(np.float64))
    return single


def _non_contiguous(subject, n):
    def strided(A):
        wide = np.zeros((A.shape[0], 2 * A.shape[1], *A.shape[2:]), order="F")
        wide[:, ::2] = A
        return wide[:, ::2]

    return _with_inputs(clean_trial(subject, n), strided)


def _read_only(subject, n):
    def frozen(A):
        A = A.copy()
        A.flags.writeable = False
        return A

    trial = clean_trial(subject, n)
    frozen_trial = _with_inputs(trial, frozen)
    if trial.y is not None:
        frozen_trial.y = frozen(trial.y)
    return frozen_trial


def _pandas_input(subject, n):
    import pandas as pd

    def frame(A):
        return pd.DataFrame(A, columns=[f"c{j}" for j in range(A.shape[1])])

    trial = clean_trial(subject, n)
    pandas_trial = _with_inputs(trial, frame)
    if trial.y is not None:
        pandas_trial.y = pd.Series(trial.y, name="target")
    return pandas_trial


def _string_labels(subject, n):
    trial = clean_trial(subject, n)
    names = np.array(["negative", "positive"], dtype=object)
    return _with_inputs(
        trial, lambda A: A, relabel=lambda labels: names[labels.astype(int)], y=names[trial.y]
    )


def _wrong_test_width(subject, n):
    trial = clean_trial(subject, n)
    trial.X_test = trial.X_test[:, :-1]
    return trial


def _asymmetric_kernel(subject, n):
    trial = clean_trial(subject, n)
    X = trial.X.copy()
    X[0, 1] += 0.5 * np.abs(X).max()
    trial.X = X
    return trial


def _non_square_kernel(subject, n):
    trial = clean_trial(subject, n)
    trial.X = trial.X[:, :-1]
    return trial


def _one_dimensional(subject, n):
    trial = clean_trial(subject, n)
    trial.X = trial.X[(slice(None),) + (0,) * (trial.X.ndim - 1)]
    return trial


def _far_from_origin(subject, n):
    """Points offset by 1e7; the baseline gets the same points shifted back exactly (``(X + 1e7) − 1e7``
    is exact), so any difference is precision lost by the estimator (e.g. distances expanded as
    ‖x‖² + ‖y‖² − 2xᵀy). A Gaussian kernel where the estimator takes one (distances are shift invariant)."""
    from krein.kernels import Gaussian

    X, y, X_test = problem(subject, n)
    far, far_test = X + 1e7, X_test + 1e7
    trial = Trial(subject.make(kernel=Gaussian(1.0)), far, _fit_target(subject, y), far_test)
    trial.baseline = Trial(None, far - 1e7, trial.y, far_test - 1e7)
    trial.rtol = 1e-5  # rounding differences of 1e-16 steer iterative searches apart by ~1e-7
    trial.partition = subject.task != "classifier"  # ... and pick another of tied restarts (clusters)
    return trial


def _side_calls(subject, n):
    """Fitted on the clean data, then side calls with other data (predictions and ``score`` on other
    test rows, ``fit_path`` on another training set): the outputs must still be those of the clean fit."""
    trial = clean_trial(subject, n)
    other = clean_trial(subject, n + 5)

    def side_calls(estimator):
        rows = trial.X_test[::-1][:-1]
        for method in ("predict", "decision_function", "transform", "score_samples"):
            if hasattr(estimator, method):
                getattr(estimator, method)(rows)
        if trial.y is not None and hasattr(estimator, "score"):
            estimator.score(rows, trial.y[: len(rows)])
        if hasattr(estimator, "fit_path"):
            estimator.fit_path(other.X, other.y, [{}])

    side = _with_inputs(trial, lambda A: A)
    side.after_fit = side_calls
    return side


def _kernel_argument(subject, kernel):
    """``kernel=kernel``, or ``kernels=[kernel]`` for the estimators that combine base kernels."""
    import inspect

    combines = "kernels" in inspect.signature(subject.cls).parameters
    return {"kernels": [kernel]} if combines else {"kernel": kernel}


def _indefinite_kernel(subject, n):
    """kernel=Sigmoid(1.0): a strongly indefinite kernel; either a sane model or a
    clear refusal (the judge also checks that regression outputs are of the targets' magnitude)."""
    from krein.kernels import Sigmoid

    return clean_trial(subject, n, **_kernel_argument(subject, Sigmoid(1.0)))


def _linear_kernel_on(scale):
    """kernel=Linear() on points scaled by ``scale``: kernel values scale²·xᵀx', beyond double precision
    (1e155: they overflow) or subnormal (1e-160: fewer than 53 bits)."""

    def build(subject, n):
        from krein.kernels import Linear

        X, y, X_test = problem(subject, n)
        estimator = subject.make(**_kernel_argument(subject, Linear()))
        return Trial(estimator, X * scale, _fit_target(subject, y), X_test * scale)

    return build


def _near_duplicates(subject, n):
    """Every point twice, the copy moved by 1e-10: a numerically singular, not exactly singular, kernel."""
    X, y, X_test = problem(subject, n // 2)
    moved = X + 1e-10 * np.random.default_rng(1).standard_normal(X.shape)
    return _points_trial(subject, np.vstack([X, moved]), np.concatenate([y, y]), X_test)


def _supervised(subject):
    return subject.task in ("classifier", "regressor")


def _classifier(subject):
    return subject.task == "classifier"


def _regressor(subject):
    return subject.task == "regressor"


def _precomputed(subject):
    return subject.input != "points"


def _points(subject):
    return subject.input == "points"


def _two_dimensional(subject):
    return subject.input != "kernel_stack"


def _kernel_object(subject):
    return subject.variant == "kernel"


def _takes_kernel_argument(subject):
    """The estimator has a ``kernel`` argument (the kernel-learning ones build their own base kernels)."""
    import inspect

    from _estimators import meta_estimator_factories

    return "kernel" in inspect.signature(subject.cls).parameters or (
        subject.cls.__name__ in meta_estimator_factories()
    )


def _takes_a_kernel(subject):
    """Points in, and a kernel (or base kernels) to choose."""
    import inspect

    from _estimators import meta_estimator_factories

    names = inspect.signature(subject.cls).parameters
    return subject.input == "points" and (
        "kernel" in names or "kernels" in names or subject.cls.__name__ in meta_estimator_factories()
    )


#: Words that name the input matrix in a clear error message.
X_NAMES = ("X", "D", "K", "kernel")

CASES = [
    Case("clean", "float64 C-contiguous standardized data (the baseline)", "ok", clean_trial),
    Case("nan_X", "NaN in the training input", "error", _nan_in_train, names=X_NAMES),
    Case(
        "inf_X",
        "+inf in the training input",
        "error",
        lambda s, n: _nan_in_train(s, n, np.inf),
        names=X_NAMES,
    ),
    Case("nan_y", "NaN in the targets", "error", _nan_in_target, _supervised, names=("y",)),
    Case("nan_X_test", "NaN in the test input", "error", _nan_in_test, names=X_NAMES),
    Case("empty", "zero training samples", "error", _empty, names=(*X_NAMES, "sample", "samples")),
    Case(
        "one_sample",
        "a single training sample",
        "either",
        _one_sample,
        names=(*X_NAMES, "y", "sample", "samples", "class", "n_components"),
    ),
    Case(
        "one_class", "every training label the same", "error", _one_class, _classifier, names=("class", "y")
    ),
    Case(
        "three_classes",
        "three classes (one-vs-rest or a clear refusal)",
        "either",
        _three_classes,
        _classifier,
        names=("class", "classes", "y"),
    ),
    Case(
        "duplicated_points",
        "every training point twice (a singular kernel)",
        "either",
        _duplicated_points,
        names=(*X_NAMES, "singular"),
    ),
    Case(
        "identical_points",
        "all training points equal (a rank-one kernel)",
        "either",
        _identical_points,
        names=(*X_NAMES, "singular", "rank"),
    ),
    Case("constant_feature", "a feature with one value", "ok", _constant_feature),
    Case("tiny_values", "inputs scaled by 1e-150", "either", _scaled_points(1e-150), _points, names=X_NAMES),
    Case("huge_values", "inputs scaled by 1e150", "either", _scaled_points(1e150), _points, names=X_NAMES),
    Case(
        "tiny_kernel",
        "kernel values scaled by 1e-150",
        "either",
        _scaled_kernel(1e-150),
        _precomputed,
        names=X_NAMES,
    ),
    Case(
        "huge_kernel",
        "kernel values scaled by 1e150",
        "either",
        _scaled_kernel(1e150),
        _precomputed,
        names=X_NAMES,
    ),
    Case(
        "kernel_1e-300",
        "kernel values scaled by 1e-300, near the smallest normal double (products underflow)",
        "either",
        _scaled_kernel(1e-300),
        _precomputed,
        names=X_NAMES,
    ),
    Case(
        "kernel_1e300",
        "kernel values scaled by 1e300, near the largest double (squares overflow)",
        "either",
        _scaled_kernel(1e300),
        _precomputed,
        names=X_NAMES,
    ),
    Case(
        "kernel_1e-310",
        "kernel values scaled by 1e-310: subnormal, fewer than 53 bits",
        "either",
        _scaled_kernel(1e-310),
        _precomputed,
        names=X_NAMES,
    ),
    Case(
        "linear_kernel_overflow",
        "kernel=Linear() on points scaled by 1e155: the kernel values overflow",
        "either",
        _linear_kernel_on(1e155),
        _takes_a_kernel,
        names=X_NAMES,
    ),
    Case(
        "linear_kernel_subnormal",
        "kernel=Linear() on points scaled by 1e-160: the kernel values are subnormal",
        "either",
        _linear_kernel_on(1e-160),
        _takes_a_kernel,
        names=X_NAMES,
    ),
    Case(
        "bandwidth_1e-8",
        "kernel=Gaussian(1e-8): an identity kernel",
        "either",
        _bandwidth(1e-8),
        _kernel_object,
        names=(*X_NAMES, "eta", "bandwidth"),
    ),
    Case(
        "bandwidth_1e8",
        "kernel=Gaussian(1e8): an all-ones kernel",
        "either",
        _bandwidth(1e8),
        _kernel_object,
        names=(*X_NAMES, "eta", "bandwidth"),
    ),
    Case("integer_input", "int64 input (same numbers as floats)", "ok", _integer_input),
    Case("float32_input", "float32 input (same numbers as float64)", "ok", _float32_input),
    Case("non_contiguous", "a strided, Fortran-ordered view", "ok", _non_contiguous),
    Case("read_only", "read-only arrays", "ok", _read_only),
    Case("pandas", "pandas DataFrame and Series", "ok", _pandas_input, _two_dimensional),
    Case("string_labels", "class labels that are strings", "ok", _string_labels, _classifier),
    Case(
        "wrong_test_width",
        "a test input with one column too few",
        "error",
        _wrong_test_width,
        names=(*X_NAMES, "features", "column", "columns"),
    ),
    Case(
        "asymmetric_kernel",
        "an asymmetric precomputed training matrix",
        "error",
        _asymmetric_kernel,
        _precomputed,
        names=(*X_NAMES, "symmetric"),
    ),
    Case(
        "non_square_kernel",
        "a non-square precomputed training matrix",
        "error",
        _non_square_kernel,
        _precomputed,
        names=(*X_NAMES, "square"),
    ),
    Case(
        "one_dimensional_X", "a 1-D training input", "error", _one_dimensional, names=(*X_NAMES, "2D", "2-D")
    ),
    Case(
        "far_from_origin",
        "points offset by 1e7 (same outputs as the points shifted back)",
        "ok",
        _far_from_origin,
        _points,
    ),
    Case(
        "side_calls",
        "fitted, then score/fit_path/predict on other data: outputs unchanged",
        "ok",
        _side_calls,
    ),
    Case(
        "indefinite_kernel",
        "kernel=Sigmoid(1.0), strongly indefinite: a sane model or a clear refusal",
        "either",
        _indefinite_kernel,
        _takes_a_kernel,
        names=(*X_NAMES, "alpha", "indefinite", "positive definite"),
    ),
    Case(
        "near_duplicates",
        "every point twice, the copy moved by 1e-10 (numerically singular kernel)",
        "either",
        _near_duplicates,
        names=(*X_NAMES, "singular", "rank"),
    ),
    Case(
        "huge_distances",
        "points 1e155 apart, kernel=Gaussian(1.0): squared distances overflow, the kernel is the identity",
        "ok",
        _huge_distances,
        _kernel_object,
    ),
    Case(
        "bandwidth_1e-170",
        "kernel=Gaussian(1e-170): η² underflows; an identity kernel",
        "either",
        _bandwidth(1e-170),
        _kernel_object,
        names=(*X_NAMES, "eta", "bandwidth"),
    ),
    Case(
        "bandwidth_1e160",
        "kernel=Gaussian(1e160): η² overflows; an all-ones kernel",
        "either",
        _bandwidth(1e160),
        _kernel_object,
        names=(*X_NAMES, "eta", "bandwidth"),
    ),
    Case(
        "array_bandwidth",
        "kernel=Gaussian(eta=[1, 2, 3]): a per-feature bandwidth given to a scalar kernel",
        "error",
        _bandwidth([1.0, 2.0, 3.0]),
        lambda subject: _kernel_object(subject) and _takes_kernel_argument(subject),
        names=("eta",),
    ),
    Case(
        "huge_targets",
        "regression targets scaled by 1e160: the predictions scaled likewise",
        "ok",
        _scaled_targets(1e160),
        _regressor,
    ),
    Case(
        "tiny_targets",
        "regression targets scaled by 1e-170: the predictions scaled likewise",
        "ok",
        _scaled_targets(1e-170),
        _regressor,
    ),
]

CASES_BY_NAME = {case.name: case for case in CASES}


# --------------------------------------------------------------------------------------------------
# Running and judging


def names_argument(message, names):
    """Whether ``message`` contains one of ``names`` as a word (one-letter names case-sensitively)."""
    for name in names:
        pattern = rf"(?<![A-Za-z_]){re.escape(name)}(?![A-Za-z_])"
        if re.search(pattern, message, 0 if len(name) == 1 else re.IGNORECASE):
            return True
    return False


def _fit_and_predict(trial):
    estimator = trial.estimator
    if trial.y is None:
        estimator.fit(trial.X)
    else:
        estimator.fit(trial.X, trial.y)
    if trial.after_fit is not None:
        trial.after_fit(estimator)
    results = outputs(estimator, trial.X_test)
    if hasattr(estimator, "fit_transform"):
        from sklearn.base import clone

        copy = clone(estimator)
        results["fit_transform"] = np.asarray(
            copy.fit_transform(trial.X) if trial.y is None else copy.fit_transform(trial.X, trial.y)
        )
    return estimator, results


def _is_regressor(estimator):
    try:
        return is_regressor(estimator)
    except AttributeError:  # not a scikit-learn estimator (the judge's own test doubles)
        return False


def _problems(trial, estimator, results):
    n_test = len(trial.X_test)
    n_train = len(trial.X)
    found = []
    for method, values in results.items():
        expected_rows = n_train if method == "fit_transform" else n_test
        if values.shape[:1] != (expected_rows,):
            found.append(f"{method} has shape {values.shape}, expected {expected_rows} rows")
        if values.dtype.kind in "fc" and not np.all(np.isfinite(values)):
            found.append(f"{method} returned {np.sum(~np.isfinite(values))} non-finite values")
    if "predict" in results and _is_regressor(estimator) and trial.y is not None:
        scale = 1.0 + float(np.max(np.abs(np.asarray(trial.y, dtype=float)), initial=0.0))
        largest = float(np.max(np.abs(results["predict"]), initial=0.0))
        if largest > 1e6 * scale:  # finite but absurd: a degenerate model returned silently
            found.append(f"predict returned values up to {largest:.3g}, 1e6 times beyond the targets")
    if "predict" in results and hasattr(estimator, "classes_"):
        unknown = set(results["predict"].tolist()) - set(np.asarray(estimator.classes_).tolist())
        if unknown:
            found.append(f"predict returned labels {sorted(map(str, unknown))} not among classes_")
    return found


def _same_partition(a, b):
    """Whether two labelings name the same groups (a bijection maps one onto the other)."""
    pairs = set(zip(a.tolist(), b.tolist(), strict=True))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


def _differences(results, reference, relabel, rtol=1e-7, partition=False, unit=1.0):
    found = []
    for method, values in reference.items():
        if method == "predict" and relabel is not None:
            values = relabel(values)
        got = results.get(method)
        if got is None or got.shape != values.shape:
            found.append(f"{method} shape differs from the baseline")
        elif values.dtype.kind in "fc":
            got = got / unit
            scale = max(float(np.max(np.abs(values), initial=0.0)), 1.0)
            if not np.allclose(got, values, rtol=rtol, atol=0.01 * rtol * scale):
                found.append(
                    f"{method} differs from the baseline by {np.max(np.abs(got - values)) * unit:.3g}"
                )
        elif not (np.array_equal(got, values) or (partition and _same_partition(got, values))):
            found.append(f"{method} labels differ from the baseline")
    return found


def run_trial(trial, names):
    """Fit and predict, then judge: an :class:`Outcome`."""
    from sklearn.base import clone

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            estimator, results = _fit_and_predict(trial)
        except (ValueError, TypeError) as error:
            message = f"{type(error).__name__}: {error}"
            status = "error" if names_argument(str(error), names) else "unclear error"
            return Outcome(status, message, _warning_texts(caught))
        except Exception as error:  # noqa: BLE001 - any other exception is what the suite reports
            return Outcome("crash", f"{type(error).__name__}: {error}", _warning_texts(caught))
        found = _problems(trial, estimator, results)
        if not found and trial.baseline is not None:
            baseline = trial.baseline
            baseline.estimator = clone(trial.estimator)
            _, reference = _fit_and_predict(baseline)
            found = _differences(results, reference, trial.relabel, trial.rtol, trial.partition, trial.unit)
    if found:
        return Outcome("wrong result", "; ".join(found), _warning_texts(caught))
    return Outcome("ok", "", _warning_texts(caught))


def _warning_texts(caught):
    texts = []
    for item in caught:
        text = f"{item.category.__name__}: {item.message}"
        if text not in texts and not issubclass(
            item.category, (DeprecationWarning, PendingDeprecationWarning)
        ):
            texts.append(text)
    return texts


def run_case(subject, case, n_samples=SMALL_SIZE):
    """Build the case for ``subject`` with ``n_samples`` training samples and judge the outcome."""
    return run_trial(case.build(subject, n_samples), case.names)


#: Cells the suite found failing, with the reason; the CI test marks them as expected failures (not
#: strict: a fix shows as XPASS) and the matrix shows them. Remove an entry once fixed. (The libsvm
#: overflow on kernels near 1e150 is fixed: the SVMs reject kernel values beyond 1e100 by name.)
KNOWN_FAILURES: dict[tuple[str, str], str] = {
    # libsvm solves the dual to its tolerance tol = 1e-3 only; the rounding differences of the flip
    # kernel of points offset by 1e7 take its working-set path elsewhere, and the decision values move
    # by 2.5e-4 (the cell fails on ee91cf7 too with this machine's BLAS).
    ("KreinSVC[kernel]", "far_from_origin"): "libsvm's result is accurate to tol = 1e-3 only: decision "
    "values move by 2.5e-4 under the kernel's rounding differences",
}


def cells(estimators=None):
    """Every applicable ``(subject, case)`` pair."""
    from _estimators import subjects

    return [(subject, case) for subject in subjects(estimators) for case in CASES if case.applies(subject)]

"""Properties of the hostile-input classes of issue 19 (hypothesis; small examples, derandomized for CI).

* distance-based kernels are shift invariant to ~1e-12 wherever the data sit (precision does not
  depend on the offset from the origin), values and gradient contractions alike;
* the kernel-learning ridge objective is +∞ exactly where K_μ + λI is not positive definite, and a
  fitted model never leaves that domain;
* a stored cell damaged at any byte is recomputed on ``--resume``, never used and never a bare
  ``JSONDecodeError``;
* any unknown experiment name is one line on stderr with exit status 2.
"""

import json
import warnings

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from krein.kernels import ARDGaussian, DeltaGaussian, Epanechnikov, Gaussian

CHEAP = settings(
    max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
SLOW = settings(max_examples=6, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])

seeds = st.integers(0, 2**31 - 1)
offsets = st.floats(-1e9, 1e9, allow_nan=False, allow_infinity=False)


@CHEAP
@given(seed=seeds, offset=offsets, which=st.sampled_from(["gauss", "rl-gauss", "epanechnikov", "delta"]))
def test_distance_kernels_are_shift_invariant_to_full_precision(seed, offset, which):
    rng = np.random.default_rng(seed)
    kernel = {
        "gauss": Gaussian(float(rng.uniform(0.3, 3.0))),
        "rl-gauss": ARDGaussian(rng.uniform(0.3, 3.0, size=3)),
        "epanechnikov": Epanechnikov(float(rng.uniform(1.0, 4.0))),
        "delta": DeltaGaussian(),
    }[which]
    far = rng.standard_normal((25, 3)) + offset
    near = far - offset  # the same differences as far (exact for large offsets, harmless for small)
    scale = 1.0 + np.abs(near).max() ** 2
    assert np.abs(kernel(far) - kernel(near)).max() <= 1e-12 * scale
    assert np.abs(kernel(far[:9], far) - kernel(near[:9], near)).max() <= 1e-12 * scale
    M = rng.standard_normal((25, 25))
    got = kernel.value_and_contraction(far)[1](M)
    expected = kernel.value_and_contraction(near)[1](M)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9 * np.abs(expected).max())


@SLOW
@given(seed=seeds, weight=st.floats(0.0, 3.0), lam=st.floats(0.05, 5.0))
def test_ridge_objective_is_finite_exactly_on_its_domain(seed, weight, lam):
    from krein.kernel_learning._combination import KernelCombination
    from krein.kernel_learning._objectives import RidgeObjective
    from krein.kernels import Sigmoid

    rng = np.random.default_rng(seed)
    X = rng.standard_normal((20, 3))
    y = X[:, 0]
    stack = np.stack([Gaussian(1.0)(X), Sigmoid(0.8)(X)])
    mu = np.array([1.0, weight])
    smallest = np.linalg.eigvalsh(np.tensordot(mu, stack, axes=1))[0] + lam
    if abs(smallest) < 1e-9:
        return  # on the boundary the Cholesky test may go either way
    value = RidgeObjective(KernelCombination(stack, 1), y, lam).evaluate(mu).value
    if smallest > 0:
        assert np.isfinite(value) and value > 0  # yᵀA⁻¹y > 0 for A positive definite
    else:
        assert value == np.inf


@SLOW
@given(seed=seeds, lam=st.floats(0.05, 30.0))
def test_kernel_learning_never_returns_a_model_outside_the_domain(seed, lam):
    from krein.kernel_learning import KernelLearningRidge
    from krein.kernels import Sigmoid

    rng = np.random.default_rng(seed)
    X = rng.standard_normal((30, 3))
    y = X[:, 0] + 0.1 * rng.standard_normal(30)
    kernels = [Gaussian(1.0), Sigmoid(1.0)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            model = KernelLearningRidge(kernels=kernels, alpha=lam, max_iter=20).fit(X, y)
        except ValueError as error:
            assert "Increase alpha" in str(error)
            return
    K = sum(w * k(X) for w, k in zip(model.weights_, kernels, strict=True))
    assert np.linalg.eigvalsh(K)[0] + lam > 0
    assert np.abs(model.predict(X)).max() < 1e3 * (1 + np.abs(y).max())


@CHEAP
@given(cut=st.integers(0, 10_000), garbage=st.binary(max_size=8))
def test_a_damaged_cell_is_never_used(tmp_path_factory, cut, garbage):
    from krein.experiments import RunContext

    out = tmp_path_factory.mktemp("cells")
    RunContext(quick=True, out=out, show_progress=False).cell("c", lambda: {"a": [1.0, 2.0]})
    path = out / "cells" / "c.json"
    data = path.read_bytes()
    damaged = data[: cut % len(data)] + garbage
    path.write_bytes(damaged)
    resumed = RunContext(quick=True, out=out, show_progress=False, resume=True)
    try:
        stored = json.loads(damaged)
        intact = isinstance(stored, dict) and {"seed", "quick", "value"} <= stored.keys()
    except (UnicodeDecodeError, json.JSONDecodeError):
        intact = False
    value = resumed.cell("c", lambda: "recomputed")
    assert value == (stored["value"] if intact else "recomputed")


@CHEAP
@given(name=st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_.", min_size=1, max_size=20))
def test_any_unknown_experiment_name_is_one_line_and_status_2(name):
    import contextlib
    import io

    from krein.cli import main
    from krein.experiments import list_experiments

    if name in {e.name for e in list_experiments()} | {"all"} or name.startswith("-"):
        return
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["reproduce", name, "--out", "/nonexistent-dir-for-krein-tests/x"])
    assert code == 2
    lines = err.getvalue().strip().splitlines()
    assert len(lines) == 1 and repr(name) in lines[0] and "NAME" in lines[0]

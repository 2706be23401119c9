"""Kernels: formulas against independent evaluations, gradients against finite differences."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from krein.kernels import (
    KERNEL_NAMES,
    ARDGaussian,
    ARDSigmoid,
    Constant,
    DeltaGaussian,
    Epanechnikov,
    Gaussian,
    Kernel,
    Linear,
    Polynomial,
    Sigmoid,
    TruncatedL1,
    make_kernel,
)
from krein.spectral import indefiniteness

RNG = np.random.default_rng(0)
X = RNG.normal(size=(13, 4))
Y = RNG.normal(size=(7, 4))


def pairwise(f, A, B):
    """Independent evaluation: a double loop over pairs."""
    return np.array([[f(a, b) for b in B] for a in A])


ETA = np.array([0.7, 1.3, 2.0, 0.9])
FORMULAS = [
    (Gaussian(0.8), lambda a, b: np.exp(-np.sum((a - b) ** 2) / (2 * 0.8**2))),
    (ARDGaussian(ETA), lambda a, b: np.exp(-np.sum((a - b) ** 2 / ETA**2))),
    (Sigmoid(1.7), lambda a, b: np.tanh((a @ b - 0.5) / 1.7**2)),
    (ARDSigmoid(ETA), lambda a, b: np.tanh(np.sum(a * b / ETA**2))),
    (
        DeltaGaussian(0.6, 1.9),
        lambda a, b: (
            np.exp(-np.sum((a - b) ** 2) / (2 * 0.6**2)) - np.exp(-np.sum((a - b) ** 2) / (2 * 1.9**2))
        ),
    ),
    (Epanechnikov(ETA * 2), lambda a, b: max(0.0, 1 - np.sum((a - b) ** 2 / (2 * ETA) ** 2)) ** 2),
    (TruncatedL1(3.0), lambda a, b: max(3.0 - np.sum(np.abs(a - b)), 0.0)),
    (TruncatedL1(), lambda a, b: max(0.7 * 4 - np.sum(np.abs(a - b)), 0.0)),
    (Polynomial(3, 0.5, 2.0), lambda a, b: (0.5 * a @ b + 2.0) ** 3),
    (Linear(), lambda a, b: a @ b),
    (
        Gaussian(0.8) - 0.5 * Sigmoid(1.7),
        lambda a, b: np.exp(-np.sum((a - b) ** 2) / 1.28) - 0.5 * np.tanh((a @ b - 0.5) / 2.89),
    ),
    (Gaussian(0.8) * Polynomial(2), lambda a, b: np.exp(-np.sum((a - b) ** 2) / 1.28) * (a @ b + 1) ** 2),
    (Sigmoid(1.7) ** 3, lambda a, b: np.tanh((a @ b - 0.5) / 2.89) ** 3),
    (Gaussian(0.8) + 2.0, lambda a, b: np.exp(-np.sum((a - b) ** 2) / 1.28) + 2.0),
]


@pytest.mark.parametrize(
    "kernel, formula", FORMULAS, ids=lambda k: repr(k)[:40] if isinstance(k, Kernel) else ""
)
def test_kernel_matches_formula(kernel, formula):
    np.testing.assert_allclose(kernel(X), pairwise(formula, X, X), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(kernel(X, Y), pairwise(formula, X, Y), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(kernel.diag(X), [formula(x, x) for x in X], rtol=1e-12, atol=1e-12)


GRADIENT_KERNELS = [k for k, _ in FORMULAS] + [
    ARDGaussian(1.3),
    Epanechnikov(3.0),
    Polynomial(2, 0.7, 1.5, coef0_bounds=(1e-3, 1e3)),
    3.0 * DeltaGaussian(0.6, 1.9) - Gaussian(0.5) * Sigmoid(2.0),
    (Gaussian(0.9) + ARDSigmoid(ETA)) ** 2,
    Constant(0.5, value_bounds=(1e-3, 1e3)) * Gaussian(1.1),
]


@pytest.mark.parametrize("kernel", GRADIENT_KERNELS, ids=lambda k: repr(k)[:40])
@pytest.mark.parametrize("rectangular", [False, True])
def test_gradient_matches_central_differences(kernel, rectangular):
    B = Y if rectangular else None
    K, G = kernel(X, B, eval_gradient=True)
    assert G.shape == K.shape + (kernel.n_dims,)
    theta, h = kernel.theta, 1e-5
    for i in range(kernel.n_dims):
        plus, minus = theta.copy(), theta.copy()
        plus[i] += h
        minus[i] -= h
        fd = (kernel.clone_with_theta(plus)(X, B) - kernel.clone_with_theta(minus)(X, B)) / (2 * h)
        scale = max(np.linalg.norm(fd), 1e-12)
        assert np.linalg.norm(G[:, :, i] - fd) / scale <= 1e-6, (i, np.linalg.norm(G[:, :, i] - fd) / scale)


CONTRACTION_KERNELS = GRADIENT_KERNELS + [
    ARDGaussian(ETA, eta_bounds="fixed"),
    DeltaGaussian(0.6, 1.9, eta1_bounds="fixed"),
    ARDSigmoid(2.0),
    ARDGaussian(ETA * 3) * Epanechnikov(ETA * 4),
    2.0 * ARDSigmoid(ETA) - ARDGaussian(ETA) ** 2,
]


@pytest.mark.parametrize("kernel", CONTRACTION_KERNELS, ids=lambda k: repr(k)[:40])
@pytest.mark.parametrize("rectangular", [False, True])
def test_contraction_equals_inner_products_with_the_tensor(kernel, rectangular):
    # Per-feature kernels contract by one GEMM (expanded squares); the reference is the tensor.
    B = Y if rectangular else None
    M = RNG.normal(size=(X.shape[0], (Y if rectangular else X).shape[0]))
    _, G = kernel(X, B, eval_gradient=True)
    expected = np.einsum("ab,abk->k", M, G)
    K, contract = kernel.value_and_contraction(X, B)
    np.testing.assert_allclose(K, kernel(X, B), rtol=1e-12, atol=1e-12)
    got = contract(M)
    assert got.shape == (kernel.n_dims,)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12 * np.abs(M).sum())


def test_contraction_on_far_apart_points_keeps_the_gram_diagonal_exact():
    # Points 1e4 apart with bandwidth 1: only the diagonal (x = y) has a non-zero kernel value, and
    # there (x − y)² = 0 exactly, so every inner product is 0. Expanding the square on the diagonal
    # would leave rounding of order eps · x² ≈ 1e-8 instead.
    far = X * 1e4
    kernel = ARDGaussian(np.ones(4))
    expected = np.einsum("ab,abk->k", np.ones((13, 13)), kernel(far, eval_gradient=True)[1])
    assert np.all(expected == 0.0)
    np.testing.assert_allclose(kernel.value_and_contraction(far)[1](np.ones((13, 13))), expected, atol=1e-12)


def test_contraction_checks_the_shape_of_M():
    with pytest.raises(ValueError, match=r"M has shape \(13, 13\) but K\(X, Y\) has shape \(13, 7\)"):
        Gaussian(1.0).value_and_contraction(X, Y)[1](np.ones((13, 13)))


def test_fixed_hyperparameters_leave_theta():
    kernel = DeltaGaussian(0.5, 2.0, eta1_bounds="fixed")
    assert kernel.n_dims == 1
    np.testing.assert_allclose(kernel.theta, [np.log(2.0)])
    _, G = kernel(X, eval_gradient=True)
    assert G.shape[2] == 1
    assert TruncatedL1().n_dims == 0  # rho = 0.7 d is fixed


def test_theta_roundtrip_and_bounds():
    kernel = Gaussian(2.0) - 0.5 * ARDSigmoid(ETA)
    theta = kernel.theta
    assert theta.shape == (1 + 1 + 4,)
    kernel.theta = theta + 0.1
    np.testing.assert_allclose(kernel.k1.eta, 2.0 * np.exp(0.1))
    np.testing.assert_allclose(kernel.k2.scale, 0.5 * np.exp(0.1))
    np.testing.assert_allclose(kernel.k2.kernel.eta, ETA * np.exp(0.1))
    np.testing.assert_allclose(kernel.bounds, np.log([[1e-5, 1e5]] * 6))
    assert [h.name for h in kernel.hyperparameters] == ["k1__eta", "k2__scale", "k2__kernel__eta"]
    assert (-0.5 * ARDSigmoid(ETA)).n_dims == 4  # a negative scale is fixed


def test_get_set_params_nested():
    kernel = Gaussian(1.0) + Sigmoid(2.0)
    params = kernel.get_params()
    assert params["k1__eta"] == 1.0 and params["k2__eta"] == 2.0
    kernel.set_params(k2__eta=3.0)
    assert kernel.k2.eta == 3.0
    with pytest.raises(ValueError, match="Invalid parameter"):
        kernel.set_params(k3=1)


def test_indefiniteness_of_appendix_d_kernels():
    data = np.random.default_rng(1).normal(size=(120, 5))
    assert indefiniteness(Gaussian(1.5)(data)) < 1e-12
    for kernel in (Sigmoid(1.0), DeltaGaussian(1.0, 2.0), Epanechnikov(2.0), TruncatedL1()):
        assert indefiniteness(kernel(data)) > 1e-3, kernel
    assert Gaussian().is_positive_definite and not Sigmoid().is_positive_definite
    assert not (Gaussian() - Gaussian(2.0)).is_positive_definite
    assert (Gaussian() * Polynomial()).is_positive_definite


def test_threaded_evaluation_equals_single_block():
    A = np.random.default_rng(2).normal(size=(900, 6))
    B = A[:700]
    for kernel in (Gaussian(1.2), DeltaGaussian(), Sigmoid(), Epanechnikov(2.0), Gaussian() - Sigmoid()):
        np.testing.assert_allclose(kernel(A, B), kernel._block(A, B), rtol=0, atol=1e-13)


def test_thread_count_respects_omp_num_threads(monkeypatch):
    from krein._threads import n_threads

    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert n_threads() == 1
    monkeypatch.setenv("OMP_NUM_THREADS", "not a number")
    unlimited = n_threads()
    monkeypatch.delenv("OMP_NUM_THREADS")
    assert n_threads() == unlimited >= 1


@pytest.mark.parametrize(
    "kernel, match",
    [
        (Gaussian(-1.0), "eta"),
        (Gaussian(np.nan), "eta"),
        (ARDGaussian([1.0, 2.0]), "eta"),
        (Polynomial(0), "degree"),
        (Polynomial(gamma=0.0), "gamma"),
        (TruncatedL1(-2.0), "rho"),
    ],
)
def test_bad_hyperparameters_are_named(kernel, match):
    with pytest.raises((ValueError, TypeError), match=match):
        kernel(X)


def test_bad_inputs_are_named():
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="X"):
        Gaussian()(bad)
    with pytest.raises(ValueError, match="Y"):
        Gaussian()(X, np.ones((3, 2)))
    with pytest.raises(ValueError, match="inf"):
        Gaussian()(X, np.full((2, 4), np.inf))
    with pytest.raises(TypeError):
        Gaussian() + "a"


def test_make_kernel():
    for name, cls in KERNEL_NAMES.items():
        assert isinstance(make_kernel(name), cls)
    assert make_kernel("PRECOMPUTED") == "precomputed"
    assert isinstance(make_kernel("Delta-Gauss"), DeltaGaussian)
    original = Gaussian(2.0)
    copy = make_kernel(original)
    copy.eta = 5.0
    assert original.eta == 2.0 and copy == Gaussian(5.0)
    with pytest.raises(ValueError, match="Unknown kernel"):
        make_kernel("nope")
    with pytest.raises(TypeError, match="kernel must be"):
        make_kernel(3)


def test_extreme_bandwidths_stay_finite():
    for eta in (1e-8, 1e8):
        K = Gaussian(eta)(X)
        assert np.all(np.isfinite(K))
    np.testing.assert_allclose(Gaussian(1e-8)(X), np.eye(len(X)), atol=1e-300)
    np.testing.assert_allclose(Gaussian(1e8)(X), 1.0, atol=1e-14)


@settings(max_examples=30, deadline=None)
@given(
    arrays(np.float64, st.tuples(st.integers(1, 8), st.integers(1, 4)), elements=st.floats(-5, 5)),
    st.sampled_from(
        [Gaussian(1.0), Sigmoid(2.0), DeltaGaussian(), Epanechnikov(3.0), TruncatedL1(2.0), Polynomial()]
    ),
)
def test_kernel_symmetry_property(data, kernel):
    K = kernel(data)
    np.testing.assert_allclose(K, K.T, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(kernel(data, data[:1]), K[:, :1], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "kernel",
    [Gaussian(1.0), ARDGaussian(np.array([1.0, 3.0, 0.7])), Epanechnikov(3.0), DeltaGaussian()],
    ids=lambda k: type(k).__name__,
)
def test_distance_kernels_keep_their_precision_far_from_the_origin(kernel):
    """Distances expanded about the origin, ‖x‖² + ‖y‖² − 2xᵀy, lose ~0.05 on data offset by 1e7 (and
    a Gaussian Gram matrix there reported ι ≈ 0.02); expanded about the data's centre they keep ~1e-15.
    The points are exactly representable both ways (offset then subtracted), so both sides see the
    same differences."""
    from krein.spectral import spectrum_summary

    far = np.random.default_rng(0).normal(size=(120, 3)) + 1e7
    near = far - 1e7
    assert np.abs(kernel(far) - kernel(near)).max() < 1e-12
    assert np.abs(kernel(far[:40], far) - kernel(near[:40], near)).max() < 1e-12
    M = np.random.default_rng(1).normal(size=(120, 120))
    _, contract_far = kernel.value_and_contraction(far)
    _, contract_near = kernel.value_and_contraction(near)
    np.testing.assert_allclose(contract_far(M), contract_near(M), rtol=1e-11, atol=1e-11)
    if kernel.is_positive_definite:
        assert spectrum_summary(np.linalg.eigvalsh(kernel(far)))["indefiniteness"] < 1e-12


@pytest.mark.parametrize(
    "kernel", [Gaussian(1.0), ARDGaussian(np.linspace(0.5, 2.0, 20))], ids=lambda k: type(k).__name__
)
def test_gaussian_blocks_never_exceed_one_at_coincident_points(kernel):
    """One GEMM on augmented data rounds the exponent of coincident points to ±ε·spread; a positive one
    would give k(x, x) > 1, so the exponent is clipped at zero wherever rounding made it positive."""
    Y = np.random.default_rng(0).normal(scale=300.0, size=(50, 20))
    X = np.vstack([Y[::-1], Y + 1e-3])  # every landmark again, in another row order, and near copies
    K = kernel(X, Y)
    assert K.max() <= 1.0
    np.testing.assert_allclose(np.diag(K[:50][::-1]), 1.0, atol=1e-12)


def test_symmetric_evaluation_is_exactly_symmetric_where_the_gemm_rounds_asymmetrically():
    """A Gaussian whose bandwidth is 1e-5 of the spread, on points with copies moved by 1e-10: one GEMM
    rounds the exponents of (i, j) and (j, i) apart by ~1e-7, so K(X) is averaged with its transpose
    (block by block, bitwise as ``0.5 * (K + K.T)``) and keeps the exact diagonal."""
    from krein.kernels._base import _average_with_transpose

    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 5))
    X = np.vstack([X, X + 1e-10 * rng.normal(size=X.shape)])
    kernel = Gaussian(3.5e-5)
    K = kernel(X)
    assert np.array_equal(K, K.T) and np.array_equal(np.diag(K), np.ones(24))
    raw = kernel(X, X.copy())  # the rectangular evaluation is left as computed
    assert np.abs(raw - raw.T).max() > 1e-9
    A = rng.normal(size=(301, 301))
    assert np.array_equal(_average_with_transpose(A.copy(), rows=37), 0.5 * (A + A.T))


SCALE_FREE = [
    lambda s: Gaussian(1.3 * s),
    lambda s: ARDGaussian([1.0 * s, 2.0 * s, 0.5 * s]),
    lambda s: DeltaGaussian(1.0 * s, 2.0 * s),
    lambda s: Epanechnikov(3.0 * s),
    lambda s: ARDSigmoid([1.0 * s, 2.0 * s, 3.0 * s]),
]


@pytest.mark.parametrize("scale", [1e-170, 1e-160, 1e155, 1e160, 1e300])
@pytest.mark.parametrize(
    "make", SCALE_FREE, ids=["gauss", "rl-gauss", "delta-gauss", "epanechnikov", "rl-sigmoid"]
)
def test_kernels_of_scaled_differences_at_the_edges_of_floating_point(make, scale):
    """Issue 31: data and bandwidths near 1e±160 (distances whose squares leave the floating-point
    range, η² that underflows) gave NaN, a ZeroDivisionError or an OverflowError. ``k(sX, sY; sη)``
    equals ``k(X, Y; η)`` for these kernels, gradients included."""
    rng = np.random.default_rng(0)
    X, Y = rng.standard_normal((6, 3)), rng.standard_normal((4, 3))
    reference, scaled = make(1.0), make(scale)
    np.testing.assert_allclose(scaled(X * scale), reference(X), atol=1e-12)
    np.testing.assert_allclose(scaled(X * scale, Y * scale), reference(X, Y), atol=1e-12)
    np.testing.assert_allclose(scaled.diag(X * scale), reference.diag(X), atol=1e-12)
    K, gradient = scaled(X * scale, eval_gradient=True)
    np.testing.assert_allclose(gradient, reference(X, eval_gradient=True)[1], atol=1e-12)


@pytest.mark.parametrize("scale", [1e155, 1e300])
def test_distances_beyond_the_range_of_their_squares(scale):
    """Issue 31: a Gaussian of unit bandwidth on points 1e155 apart is the identity (its off-diagonal
    entries are exp(−10³¹⁰) = 0), not NaN; a Sigmoid whose η matches the data gives tanh(xᵀx'/η²)."""
    X = np.random.default_rng(1).standard_normal((5, 2)) * scale
    np.testing.assert_array_equal(Gaussian(1.0)(X), np.eye(5))
    np.testing.assert_array_equal(Gaussian(1.0)(X, X[:2]), np.eye(5)[:, :2])
    np.testing.assert_array_equal(DeltaGaussian(1.0, 2.0)(X), np.zeros((5, 5)))
    unit = X / scale
    np.testing.assert_allclose(Sigmoid(scale)(X), np.tanh(unit @ unit.T), atol=1e-12)
    np.testing.assert_allclose(Sigmoid(scale).diag(X), np.tanh(np.sum(unit**2, axis=1)), atol=1e-12)


@pytest.mark.parametrize(
    ("kernel", "error", "message"),
    [
        (
            lambda: Gaussian(eta=[1.0, 2.0]),
            ValueError,
            r"eta of Gaussian must be a positive number.*ARDGaussian",
        ),
        (lambda: Sigmoid(eta=[1.0]), ValueError, r"eta of Sigmoid must be a positive number.*ARDSigmoid"),
        (
            lambda: DeltaGaussian(eta1=[1.0, 2.0]),
            ValueError,
            "eta1 of DeltaGaussian must be a positive number",
        ),
        (lambda: Gaussian(eta="a"), TypeError, "eta must be a positive number, got 'a'"),
        (lambda: ARDGaussian(eta=["a", "b"]), TypeError, "eta must be a positive number or a 1-D array"),
        (lambda: Polynomial(gamma="a"), TypeError, "gamma must be a real number"),
        (lambda: Polynomial(coef0=[1.0]), TypeError, "coef0 must be a real number"),
        (lambda: Gaussian(eta=-1.0), ValueError, r"eta must be finite and strictly positive, got -1\.0"),
    ],
)
def test_hyperparameter_messages_name_the_argument(kernel, error, message):
    """Issue 31: ``Gaussian(eta=[1, 2])`` and non-numbers ended in numpy's own messages."""
    X = np.random.default_rng(2).standard_normal((4, 2))
    with pytest.raises(error, match=message):
        kernel()(X)


def test_an_overflowing_kernel_is_not_called_a_precomputed_one():
    """Issue 31: a kernel that overflows on the user's data was reported as "a precomputed kernel must
    be finite", a matrix the user never passed."""
    from krein.least_squares import KreinRidge

    X = np.random.default_rng(3).standard_normal((10, 2)) * 1e155
    with pytest.raises(ValueError, match="rescale X") as caught:
        KreinRidge(Linear()).fit(X, np.arange(10.0))
    assert "precomputed" not in str(caught.value)
    with pytest.raises(ValueError, match="X contains infinity"):
        KreinRidge("precomputed").fit(np.full((3, 3), np.inf), np.arange(3.0))


@pytest.mark.parametrize(
    ("kernel", "error", "message"),
    [
        (lambda: Gaussian(eta=-1), ValueError, r"eta must be finite and strictly positive, got -1\."),
        (lambda: ARDGaussian(eta=[1.0, -2.0, 3.0]), ValueError, r"got \[1\.0, -2\.0, 3\.0\]"),
        (lambda: Polynomial(gamma=-1), ValueError, r"gamma must be .* got -1\."),
        (lambda: Gaussian(eta="a"), TypeError, "eta must be a positive number, got 'a'"),
    ],
)
def test_an_estimator_reports_the_users_hyperparameter_not_its_log_space_copy(kernel, error, message):
    """Issue 31: an estimator copies its kernel through ``theta = log(h)``, so ``eta=-1`` was reported
    as "got nan" (and a string as numpy's "could not convert string to float")."""
    from krein.least_squares import KreinRidge
    from krein.nystroem import IndefiniteNystroem

    X = np.random.default_rng(5).standard_normal((20, 3))
    for estimator in (KreinRidge(kernel()), IndefiniteNystroem(kernel(), n_components=5)):
        with pytest.raises(error, match=message):
            estimator.fit(X, X[:, 0])

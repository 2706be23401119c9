"""Kreĭn least squares: identities from the papers, global optimality, exact hypergradients."""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.base import clone
from sklearn.datasets import load_iris

import krein.representation as estimators_module
from krein.kernels import APPENDIX_D_KERNELS, Gaussian, Sigmoid, initial_kernel
from krein.least_squares import (
    KreinRidge,
    KreinRidgeClassifier,
    VarianceConstrainedKrein,
    VarianceConstrainedKreinClassifier,
)


def _indefinite_kernel(n, seed, n_negative=None):
    rng = np.random.default_rng(seed)
    V, _ = np.linalg.qr(rng.standard_normal((n, n)))
    values = rng.uniform(0.2, 3.0, n)
    values[: n // 3 if n_negative is None else n_negative] *= -1
    return (V * values) @ V.T, V, values, rng


def _data(seed=0, n=40, d=3):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.sin(X[:, 0]) + 0.3 * X[:, 1] + 0.1 * rng.standard_normal(n)
    return X, y


# ---------------------------------------------------------------------------- Kreĭn ridge
def test_proposition_2_flip_kernel_ridge_equivalence():
    """λ₊ = λ₋: Kreĭn ridge = kernel ridge on the flip matrix H with test map k_xᵀP (2019, Prop. 2)."""
    K_all, _, _, _ = _indefinite_kernel(60, 1)
    train, test = np.arange(45), np.arange(45, 60)
    K, K_test = K_all[np.ix_(train, train)], K_all[np.ix_(test, train)]
    y = np.random.default_rng(2).standard_normal(45)
    lam = 0.03
    model = KreinRidge("precomputed", lambda_plus=lam, lambda_minus=lam, center=False).fit(K, y)
    sigma, U = np.linalg.eigh(K)
    H = (U * np.abs(sigma)) @ U.T
    P = (U * np.sign(sigma)) @ U.T
    alpha_H = np.linalg.solve(H + 45 * lam * np.eye(45), y)
    np.testing.assert_allclose(model.predict(K_test), K_test @ P @ alpha_H, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(model.predict(K), H @ alpha_H, rtol=1e-8, atol=1e-10)


def test_krein_ridge_solves_its_normal_equations_with_two_lambdas():
    """α = (H + nΛ±)⁻¹ P y (2019, Sec. 2.4) minimizes (1/n)‖Kα − y‖² + λ₊αᵀK₊α + λ₋αᵀK₋α."""
    K, U, values, rng = _indefinite_kernel(30, 3)
    y = rng.standard_normal(30)
    model = KreinRidge("precomputed", lambda_plus=0.05, lambda_minus=0.3, center=False).fit(K, y)
    K_plus = (U * np.maximum(values, 0)) @ U.T
    K_minus = (U * np.maximum(-values, 0)) @ U.T
    alpha = model.dual_coef_
    gradient = K @ (K @ alpha - y) / 30 + (0.05 * K_plus + 0.3 * K_minus) @ alpha
    assert np.max(np.abs(gradient)) < 1e-10


def test_ridge_is_the_variance_constrained_solution_with_multiplier_minus_one():
    """Kreĭn ridge lies on the variance-constrained path: VC with r = std of ridge predictions has μ* = −1."""
    X, y = _data()
    ridge = KreinRidge(Sigmoid(1.5), lambda_plus=0.02, lambda_minus=0.05).fit(X, y)
    radius = np.std(ridge.predict(X))
    vc = VarianceConstrainedKrein(Sigmoid(1.5), lambda_plus=0.02, lambda_minus=0.05, radius=radius).fit(X, y)
    assert vc.multiplier_ == pytest.approx(-1.0, abs=1e-9)
    np.testing.assert_allclose(vc.dual_coef_, ridge.dual_coef_, rtol=1e-7, atol=1e-10)


# ---------------------------------------------------------------------------- variance constrained
def _vc_objective(K, y, lambda_plus, lambda_minus, regularization):
    sigma, U = np.linalg.eigh(K)
    sign = 1.0 if regularization == "decomposition" else -1.0
    R = (U * (lambda_plus * np.maximum(sigma, 0) + sign * lambda_minus * np.maximum(-sigma, 0))) @ U.T
    n = y.size

    def objective(a):
        return np.sum((K @ a - y) ** 2) / n + a @ R @ a

    def gradient(a):
        return 2 * K @ (K @ a - y) / n + 2 * R @ a

    return objective, gradient


@pytest.mark.parametrize(
    "regularization, hard", [("decomposition", False), ("krein", False), ("decomposition", True)]
)
def test_global_optimality_against_local_solves(regularization, hard):
    """Problem (4)/(2): the returned α beats ≥ 200 SLSQP solves on the constraint (1/n)‖Kα‖² = r²."""
    n = 10
    K, U, values, rng = _indefinite_kernel(n, 11 if hard else 5)
    y = rng.standard_normal(n)
    lambda_plus, lambda_minus, radius = 0.05, 0.1, 0.8
    if hard:  # y ⊥ the eigenvector bounding the interval of μ, radius beyond φ(0)
        w = n * np.where(values > 0, lambda_plus, lambda_minus) / np.abs(values)
        bound = np.argmin(w)
        y -= U[:, bound] * (U[:, bound] @ y)
        b = U.T @ y
        gap = w - w[bound]
        phi0 = np.sum(np.divide(b, gap, out=np.zeros(n), where=gap > 0) ** 2)
        radius = 1.5 * np.sqrt(phi0 / n)
    model = VarianceConstrainedKrein(
        "precomputed",
        lambda_plus=lambda_plus,
        lambda_minus=lambda_minus,
        radius=radius,
        regularization=regularization,
        center=False,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(K, y)
    assert model.hard_case_ == hard
    assert any("end of its interval" in str(w.message) for w in caught) == hard
    objective, gradient = _vc_objective(K, y, lambda_plus, lambda_minus, regularization)
    alpha = model.dual_coef_
    assert abs(np.sum((K @ alpha) ** 2) / n - radius**2) <= 1e-10 * radius**2
    constraint = {
        "type": "eq",
        "fun": lambda a: np.sum((K @ a) ** 2) / n - radius**2,
        "jac": lambda a: 2 * K @ (K @ a) / n,
    }
    best = np.inf
    for _ in range(200):
        a0 = np.linalg.solve(K, rng.standard_normal(n))
        a0 *= radius * np.sqrt(n) / np.linalg.norm(K @ a0)
        result = minimize(
            objective,
            a0,
            jac=gradient,
            method="SLSQP",
            constraints=[constraint],
            options={"ftol": 1e-13, "maxiter": 300},
        )
        if result.success and abs(constraint["fun"](result.x)) < 1e-8:
            best = min(best, result.fun)
    assert np.isfinite(best)
    assert objective(alpha) <= best + 1e-8 * max(1.0, abs(best))


def test_variance_constraint_and_centering():
    """Training predictions have mean ȳ and standard deviation r; a constant added to k changes nothing."""
    X, y = _data(1)
    model = VarianceConstrainedKrein(Sigmoid(1.2), radius=0.4).fit(X, y)
    predictions = model.predict(X)
    assert np.mean(predictions) == pytest.approx(np.mean(y), abs=1e-10)
    assert np.std(predictions) == pytest.approx(0.4, rel=1e-10)
    K = Sigmoid(1.2)(X)
    K_test = Sigmoid(1.2)(X[:7] + 0.1, X)
    shifted = clone(model).set_params(kernel="precomputed").fit(K + 5.0, y)
    np.testing.assert_allclose(shifted.predict(K_test + 5.0), model.predict(X[:7] + 0.1), atol=1e-9)


def test_fit_path_reuses_one_eigendecomposition(monkeypatch):
    X, y = _data(2)
    grid = [
        {"lambda_plus": a, "lambda_minus": b, "radius": r}
        for a in (0.01, 0.1)
        for b in (0.01, 0.1)
        for r in (0.3, 0.6)
    ]
    calls = []
    exact = estimators_module.SpectralRepresentation.exact
    monkeypatch.setattr(
        estimators_module.SpectralRepresentation,
        "exact",
        classmethod(lambda cls, K, **kw: calls.append(1) or exact(K, **kw)),
    )
    models = VarianceConstrainedKrein(Sigmoid(1.0)).fit_path(X, y, grid)
    assert len(calls) == 1
    for setting, model in zip(grid, models, strict=True):
        single = VarianceConstrainedKrein(Sigmoid(1.0), **setting).fit(X, y)
        np.testing.assert_allclose(model.predict(X[:5]), single.predict(X[:5]), rtol=1e-10)
    with pytest.raises(ValueError, match="kernel matrix must stay"):
        KreinRidge().fit_path(X, y, [{"kernel": "sigmoid"}])


def test_fit_path_leaves_a_fitted_estimator_as_it_was():
    """Issue 19: ``m.fit(XA, yA); m.fit_path(XB, yB, ...)`` left ``X_fit_`` from B with the
    coefficients from A."""
    XA, yA = _data(2)
    XB, yB = _data(5)
    model = KreinRidge(Sigmoid(1.0)).fit(XA, yA)
    before = model.predict(XA[:5])
    state = {k: v for k, v in vars(model).items()}
    paths = model.fit_path(XB, yB, [{"lambda_plus": 0.1}])
    assert paths[0].X_fit_ is not model.X_fit_
    assert vars(model).keys() == state.keys() and all(vars(model)[k] is v for k, v in state.items())
    np.testing.assert_array_equal(model.predict(XA[:5]), before)
    unfitted = KreinRidge(Sigmoid(1.0))
    unfitted.fit_path(XB, yB, [{"lambda_plus": 0.1}])
    assert not hasattr(unfitted, "dual_coef_") and not hasattr(unfitted, "X_fit_")


# ---------------------------------------------------------------------------- classifiers
@pytest.mark.parametrize("label_encoding", ["plain", "balanced"])
def test_classifier_fits_its_labels_and_one_vs_rest(label_encoding):
    """The classifier is the regressor on ±1 labels ("plain", the default) or on the class-balanced
    labels of Appendix C ("balanced"), thresholded at 0."""
    X, y = load_iris(return_X_y=True)
    binary = y[:100] > 0
    Xb = X[:100][np.r_[0:50, 50:70]]
    yb = binary[np.r_[0:50, 50:70]]
    clf = VarianceConstrainedKreinClassifier(Sigmoid(3.0), radius=0.5, label_encoding=label_encoding).fit(
        Xb, yb
    )
    n_pos, n_neg = 20, 50
    if label_encoding == "plain":
        targets = np.where(yb, 1.0, -1.0)
    else:
        targets = np.where(yb, np.sqrt(n_neg / n_pos), -np.sqrt(n_pos / n_neg))
    reg = VarianceConstrainedKrein(Sigmoid(3.0), radius=0.5).fit(Xb, targets)
    np.testing.assert_allclose(clf.decision_function(X[:10]), reg.predict(X[:10]), rtol=1e-10)
    np.testing.assert_array_equal(clf.predict(X[:10]), reg.predict(X[:10]) > 0)
    ridge = KreinRidgeClassifier(Sigmoid(3.0), label_encoding=label_encoding).fit(Xb, yb)
    np.testing.assert_allclose(
        ridge.decision_function(X), KreinRidge(Sigmoid(3.0)).fit(Xb, targets).predict(X)
    )
    multi = KreinRidgeClassifier("gaussian", label_encoding=label_encoding).fit(X, y)
    scores = multi.decision_function(X)
    assert scores.shape == (150, 3)
    np.testing.assert_array_equal(multi.predict(X), np.argmax(scores, axis=1))
    assert multi.score(X, y) > 0.9


def test_plain_labels_do_not_trade_accuracy_for_the_small_class():
    """On data with 1 positive in 10 and no signal, the default (±1 labels, the intercept carries the
    class ratio) predicts the large class, as scikit-learn's RidgeClassifier does; the balanced labels
    of Appendix C centre the decision on zero and predict the small class about half the time."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = (np.arange(300) % 10 == 0).astype(int)
    plain = KreinRidgeClassifier("gaussian").fit(X[:200], y[:200])
    balanced = KreinRidgeClassifier("gaussian", label_encoding="balanced").fit(X[:200], y[:200])
    assert np.mean(plain.predict(X[200:]) == 1) < 0.05
    assert np.mean(balanced.predict(X[200:]) == 1) > 0.2
    assert plain.score(X[200:], y[200:]) > balanced.score(X[200:], y[200:]) + 0.1


def test_auto_penalty_is_kernel_ridge_with_alpha_one_on_a_unit_scale_kernel():
    """``"auto"`` is λ± = s/n: on a positive definite kernel scaled to s = 1 (and not centred, so that
    both models are the same function class) the predictions are scikit-learn's ``KernelRidge()``'s
    fitted with the intercept as the mean of y."""
    from sklearn.kernel_ridge import KernelRidge

    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=60)
    K = Gaussian(1.5)(X)
    K /= np.trace(K) / K.shape[0]  # s = Σ|σ|/n = 1 for a positive definite kernel
    ours = KreinRidge("precomputed", center=False).fit(K, y)
    theirs = KernelRidge(kernel="precomputed").fit(K, y)
    np.testing.assert_allclose(ours.predict(K[:10]), theirs.predict(K[:10]), rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------------------- hypergradients
def _finite_difference_check(estimator, X_train, y_train, X_val, y_val, step=1e-5):
    theta, _ = estimator._hyperparameter_vector()
    _, gradient = estimator._validation_loss_and_gradient(X_train, y_train, X_val, y_val)
    numeric = np.empty_like(theta)
    for i in range(theta.size):
        e = np.zeros_like(theta)
        e[i] = step
        values = [
            clone(estimator)
            .set_params(**estimator._params_from_vector(theta + s * e))
            ._validation_loss_and_gradient(X_train, y_train, X_val, y_val)[0]
            for s in (1, -1)
        ]
        numeric[i] = (values[0] - values[1]) / (2 * step)
    assert gradient.shape == theta.shape
    np.testing.assert_allclose(gradient, numeric, rtol=1e-5, atol=1e-5 * np.max(np.abs(numeric)))


@pytest.mark.parametrize("name", APPENDIX_D_KERNELS)
def test_hypergradient_matches_finite_differences(name):
    """∂Ξ/∂(log λ₊, log λ₋, log r, log η) of Eq. (8)/Appendix E.2, incl. eigenvector derivatives."""
    X, y = _data(3)
    kernel = initial_kernel(name, X[:30], random_state=1)
    model = VarianceConstrainedKrein(kernel, lambda_plus=0.05, lambda_minus=0.02, radius=0.5)
    _finite_difference_check(model, X[:30], y[:30], X[30:], y[30:])


@pytest.mark.parametrize(
    "model, targets",
    [
        (KreinRidge(Sigmoid(1.3), lambda_plus=0.03, lambda_minus=0.1), "values"),
        (KreinRidge(Sigmoid(1.3), lambda_plus=0.03, lambda_minus=0.1), "two outputs"),
        (
            VarianceConstrainedKrein(
                Sigmoid(1.3), lambda_plus=0.03, lambda_minus=0.1, radius=0.4, regularization="krein"
            ),
            "values",
        ),
        (
            VarianceConstrainedKreinClassifier(Sigmoid(1.3), lambda_plus=0.03, lambda_minus=0.1, radius=0.9),
            "two classes",
        ),
        (
            VarianceConstrainedKreinClassifier(Sigmoid(1.3), lambda_plus=0.03, lambda_minus=0.1, radius=0.9),
            "three classes",
        ),
    ],
    ids=["ridge", "ridge-two-outputs", "omcs-krein", "classifier", "classifier-three-classes"],
)
def test_hypergradient_of_other_models(model, targets):
    """Several targets (outputs, one-vs-rest tasks) share one kernel-gradient contraction."""
    X, y = _data(4)
    y = {
        "values": y,
        "two outputs": np.c_[y, np.sin(2 * X[:, 0])],
        "two classes": (y > 0).astype(int),
        "three classes": np.digitize(y, np.quantile(y, [1 / 3, 2 / 3])),
    }[targets]
    _finite_difference_check(model, X[:30], y[:30], X[30:], y[30:])


@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["mostly-negative", "mostly-positive"])
def test_hypergradient_on_lopsided_spectra(sign):
    """Both orders of the Cauchy-block products in the kernel part of the hypergradient."""
    X, y = _data(6)
    kernel = sign * (Gaussian(1.5) - 0.3 * Gaussian(0.4))
    values = np.linalg.eigvalsh(kernel(X[:30]))
    n_positive, n_negative = np.sum(values > 0), np.sum(values < 0)
    assert (n_positive, n_negative) == ((10, 20) if sign > 0 else (20, 10))
    for regularization in ("decomposition", "krein"):
        model = VarianceConstrainedKrein(
            kernel, lambda_plus=0.05, lambda_minus=0.02, radius=0.5, regularization=regularization
        )
        _finite_difference_check(model, X[:30], y[:30], X[30:], y[30:])


def test_hypergradient_with_precomputed_kernel():
    X, y = _data(5)
    K = Sigmoid(1.1)(X)
    model = VarianceConstrainedKrein("precomputed", lambda_plus=0.05, lambda_minus=0.05, radius=0.5)
    train, val = np.arange(30), np.arange(30, 40)
    _finite_difference_check(model, K[np.ix_(train, train)], y[train], K[np.ix_(val, train)], y[val])


# ---------------------------------------------------------------------------- errors
def test_clear_errors():
    K, _, _, rng = _indefinite_kernel(12, 0)
    y = rng.standard_normal(12)
    asymmetric = K + np.triu(np.ones((12, 12)), 1)
    with pytest.raises(ValueError, match="symmetric"):
        VarianceConstrainedKrein("precomputed").fit(asymmetric, y)
    with pytest.raises(ValueError, match="square"):
        KreinRidge("precomputed").fit(K[:, :10], y)
    model = KreinRidge("precomputed").fit(K, y)
    with pytest.raises(ValueError, match="12"):
        model.predict(K[:3, :11])
    with pytest.raises(ValueError, match="only one class"):
        KreinRidgeClassifier("precomputed").fit(K, np.ones(12))
    with pytest.raises(ValueError, match="radius"):
        VarianceConstrainedKrein("precomputed", radius=-1.0).fit(K, y)
    with pytest.raises(ValueError, match="lambda_minus"):
        KreinRidge("precomputed", lambda_minus=0.0).fit(K, y)
    with pytest.raises(ValueError, match="zero"):
        KreinRidge("precomputed").fit(np.zeros((5, 5)), np.arange(5.0))


@pytest.mark.parametrize("factor", [1e-170, 1e160])
@pytest.mark.parametrize("cls", [KreinRidge, VarianceConstrainedKrein])
def test_targets_at_the_ends_of_floating_point_give_the_scaled_model(cls, factor):
    """The model is homogeneous in y (the default radius is the targets' spread): targets near 1e160
    (whose squares overflow) or 1e-170 (whose squares underflow) give factor × the model of y. The
    default radius overflowed to 'radius must be finite', a parameter the user never set."""
    from krein.kernels import Gaussian

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=40)
    base = cls(Gaussian(1.0)).fit(X, y)
    scaled = cls(Gaussian(1.0)).fit(X, factor * y)
    np.testing.assert_allclose(scaled.predict(X) / factor, base.predict(X), rtol=1e-12, atol=1e-12)
    if cls is VarianceConstrainedKrein:
        assert scaled.radius_ / factor == pytest.approx(base.radius_, rel=1e-12)

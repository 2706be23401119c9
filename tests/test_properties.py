"""Properties over random data and random kernels (hypothesis; small examples, derandomized for CI).

* permuting the training points leaves predictions unchanged (every classifier, regressor and
  outlier detector, with its own kernel and precomputed);
* scaling y scales the predictions of the regressors that are (positively homogeneous and odd) in y;
* relabelling the classes relabels the predictions;
* the identities of the papers on random instances: Propositions 2 and 3 of Oglic & Gärtner (2019)
  (Kreĭn ridge with λ₊ = λ₋ and the Kreĭn SVM are kernel ridge regression and the SVM on the flip
  matrix |K| with the out-of-sample map k_xᵀP, P = U sign(D) Uᵀ) and Theorem 1 of Luss & d'Aspremont
  (2009) (the proxy kernel K* = (K₀ + (Yα)(Yα)ᵀ/4ρ)₊ minimizes −½(Yα)ᵀK(Yα) + ρ‖K − K₀‖²_F over K ⪰ 0).
"""

import numpy as np
import pytest
from _estimators import subjects, toy_problem
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

#: Per-estimator properties: a few examples each (there are many estimators).
PER_ESTIMATOR = settings(
    max_examples=4, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
#: Identities of the papers: more examples, each cheap.
IDENTITY = settings(
    max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)

seeds = st.integers(0, 2**31 - 1)

#: Estimators whose result depends on the order of the training points by design (inner CV folds).
ORDER_DEPENDENT = {"HypergradientSearchCV", "KreinClassifierCV", "KreinRegressorCV"}

SUPERVISED = [s for s in subjects() if s.task in ("classifier", "regressor", "outlier")]
CLASSIFIERS = [s for s in SUPERVISED if s.task == "classifier"]
#: Regressors whose problem is invariant under (f, y) → (c f, c y) for every real c ≠ 0 (those that
#: iterate, and those whose defaults follow the targets' scale, solve in units of the targets).
HOMOGENEOUS_REGRESSORS = [
    s
    for s in SUPERVISED
    if s.cls.__name__
    in (
        "KreinRidge",
        "VarianceConstrainedKrein",
        "KernelLearningRidge",
        "IndefiniteSVR",
        "HypergradientSearchCV",
    )
]


#: Estimators whose property tests take many seconds per case (DCASVC's DC iterations).
SLOW_SUBJECTS = {"DCASVC"}


def mark_slow(subjects):
    """``subjects`` with the cases of :data:`SLOW_SUBJECTS` marked slow."""
    return [
        pytest.param(s, marks=pytest.mark.slow) if s.cls.__name__ in SLOW_SUBJECTS else s for s in subjects
    ]


def scores(estimator, X):
    """The real-valued output of a fitted estimator (decision function where there is one)."""
    if hasattr(estimator, "decision_function"):
        return np.asarray(estimator.decision_function(X), dtype=float)
    return np.asarray(estimator.predict(X), dtype=float)


def decided(estimator, X):
    """Test points whose predicted label is not a tie (a zero score, or equal top one-vs-rest scores):
    e.g. a point farther than ρ from every training point has an all-zero truncated-ℓ₁ kernel row."""
    values = scores(estimator, X)
    tolerance = 1e-9 * max(1.0, float(np.max(np.abs(values))))
    if values.ndim == 1:
        return np.abs(values) > tolerance
    top = np.sort(values, axis=1)
    return top[:, -1] - top[:, -2] > tolerance


def precise(subject):
    """Solver tolerances tight enough that a solution does not depend on the order of the work
    (libsvm's working-set choice, say) by more than the comparison allows."""
    if subject.cls.__name__ in (
        "IndefiniteSVC",
        "IndefiniteSVR",
        "IndefiniteOneClassSVM",
        "KreinSVC",
        "ModifiedSVC",
    ):
        return {"tol": 1e-9}
    return {}


def fit(subject, X, y):
    estimator = subject.make(**precise(subject))
    return estimator.fit(X) if subject.task == "outlier" else estimator.fit(X, y)


def assert_close(got, expected, rtol=1e-6):
    scale = max(float(np.max(np.abs(expected))), 1e-12)
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol * scale)


def data(subject, seed, n_samples=20, n_classes=2):
    task = "regressor" if subject.task == "regressor" else "classifier"
    X, y, X_test = toy_problem(task, n_samples=n_samples, n_classes=n_classes, random_state=seed)
    return X, y, X_test


def permute(subject, X, X_test, order):
    """Training input and test input after reordering the training points by ``order``."""
    train, test = subject.encode(X, X_test)
    if subject.input == "points":
        return train[order], test
    return train[np.ix_(order, order)], test[:, order]


@pytest.mark.parametrize(
    "subject",
    mark_slow([s for s in SUPERVISED if s.cls.__name__ not in ORDER_DEPENDENT]),
    ids=lambda s: s.name,
)
@PER_ESTIMATOR
@given(seed=seeds)
def test_permuting_training_points_leaves_predictions_unchanged(subject, seed):
    X, y, X_test = data(subject, seed)
    order = np.random.default_rng(seed).permutation(len(X))
    train, test = subject.encode(X, X_test)
    reference = fit(subject, train, y)
    train_p, test_p = permute(subject, X, X_test, order)
    permuted = fit(subject, train_p, y[order])
    assert_close(scores(permuted, test_p), scores(reference, test), rtol=1e-5)
    if subject.task == "classifier":
        clear = decided(reference, test)
        np.testing.assert_array_equal(permuted.predict(test_p)[clear], reference.predict(test)[clear])


@pytest.mark.parametrize("subject", HOMOGENEOUS_REGRESSORS, ids=lambda s: s.name)
@PER_ESTIMATOR
@given(seed=seeds, factor=st.sampled_from([-1e3, -2.5, 1e-3, 0.5, 7.0, 1e4]))
def test_scaling_y_scales_regression_predictions(subject, seed, factor):
    X, y, X_test = data(subject, seed)
    train, test = subject.encode(X, X_test)
    reference = fit(subject, train, y).predict(test)
    assert_close(fit(subject, train, factor * y).predict(test), factor * reference, rtol=1e-7)


@pytest.mark.parametrize(  # stratified inner folds follow the classes' sorted order: relabelling moves them
    "subject",
    mark_slow([s for s in CLASSIFIERS if s.cls.__name__ not in ORDER_DEPENDENT]),
    ids=lambda s: s.name,
)
@PER_ESTIMATOR
@given(seed=seeds, n_classes=st.sampled_from([2, 3]), data_=st.data())
def test_relabelling_classes_relabels_predictions(subject, seed, n_classes, data_):
    names = data_.draw(st.permutations(["cat", "dog", "emu"][:n_classes]))
    X, y, X_test = data(subject, seed, n_classes=n_classes)
    train, test = subject.encode(X, X_test)
    reference = fit(subject, train, y)
    relabelled = fit(subject, train, np.asarray(names, dtype=object)[y]).predict(test)
    clear = decided(reference, test)
    assert clear.sum() >= len(test) // 2
    expected = np.asarray(names, dtype=object)[reference.predict(test)]
    np.testing.assert_array_equal(relabelled[clear], expected[clear])


# ------------------------------------------------------------------------------------------------
# Identities of the papers, on random indefinite kernels


def random_indefinite_kernel(rng, n, n_test):
    """A random symmetric indefinite ``K`` (n×n, both signs, well separated from 0) and test rows."""
    U, _ = np.linalg.qr(rng.standard_normal((n, n)))
    magnitudes = rng.uniform(0.2, 5.0, n)
    signs = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    rng.shuffle(signs)
    values = signs * magnitudes
    K = (U * values) @ U.T
    return 0.5 * (K + K.T), rng.standard_normal((n_test, n))


def flip_and_out_of_sample_map(K):
    """The flip matrix H = U|D|Uᵀ and P = U sign(D) Uᵀ (Oglic & Gärtner 2019, Sec. 2.4)."""
    values, U = np.linalg.eigh(K)
    return (U * np.abs(values)) @ U.T, (U * np.sign(values)) @ U.T


@IDENTITY
@given(seed=seeds, n=st.integers(4, 16), lam=st.floats(1e-3, 10.0))
def test_proposition_2_krein_ridge_is_flip_kernel_ridge(seed, n, lam):
    """KreinRidge with λ₊ = λ₋ = λ: f(x) = k_xᵀ P α_H with α_H = (H + nλI)⁻¹y (kernel ridge on H)."""
    from sklearn.kernel_ridge import KernelRidge

    from krein.least_squares import KreinRidge

    rng = np.random.default_rng(seed)
    K, K_test = random_indefinite_kernel(rng, n, 5)
    y = rng.standard_normal(n)
    H, P = flip_and_out_of_sample_map(K)
    ridge = KernelRidge(alpha=n * lam, kernel="precomputed").fit(H, y)
    expected = K_test @ P @ ridge.dual_coef_
    model = KreinRidge(kernel="precomputed", lambda_plus=lam, lambda_minus=lam, center=False).fit(K, y)
    assert_close(model.predict(K_test), expected, rtol=1e-8)
    # on the training points the two hypotheses coincide: K α* = H α_H
    assert_close(model.predict(K), H @ ridge.dual_coef_, rtol=1e-8)


@IDENTITY
@given(seed=seeds, n=st.integers(6, 16), C=st.sampled_from([0.1, 1.0, 10.0]))
def test_proposition_3_krein_svc_is_flip_svc(seed, n, C):
    """KreinSVC: f(x) = k_xᵀ P (y∘α_H) + b with α_H, b the SVM on the flip matrix H."""
    from sklearn.svm import SVC

    from krein.svm import KreinSVC

    rng = np.random.default_rng(seed)
    K, K_test = random_indefinite_kernel(rng, n, 5)
    y = np.arange(n) % 2
    rng.shuffle(y)
    H, P = flip_and_out_of_sample_map(K)
    svm = SVC(kernel="precomputed", C=C, tol=1e-10).fit(H, y)
    signed_alpha = np.zeros(n)
    signed_alpha[svm.support_] = svm.dual_coef_[0]
    expected = K_test @ P @ signed_alpha + svm.intercept_[0]
    model = KreinSVC(kernel="precomputed", C=C, tol=1e-10).fit(K, y)
    assert_close(model.decision_function(K_test), expected, rtol=1e-6)
    assert_close(model.decision_function(K), H @ signed_alpha + svm.intercept_[0], rtol=1e-6)


def psd_part(A):
    values, U = np.linalg.eigh(0.5 * (A + A.T))
    return (U * np.maximum(values, 0.0)) @ U.T


@IDENTITY
@given(seed=seeds, n=st.integers(3, 14), rho=st.floats(0.05, 50.0), C=st.floats(0.1, 10.0))
def test_theorem_1_proxy_kernel_is_the_inner_minimizer(seed, n, rho, C):
    """For feasible α, K* = (K₀ + zzᵀ/4ρ)₊ (z = Yα) solves min_{K⪰0} −½zᵀKz + ρ‖K − K₀‖²_F: checked
    against the projection computed here and by the KKT conditions of that conic problem
    (K* ⪰ 0, G = ∇ ⪰ 0, ⟨K*, G⟩ = 0); the objective value of (7) that the solvers maximize is
    αᵀe + that inner minimum."""
    from krein.svm._proxy import KernelSpectrum, ProxyKernelProblem

    rng = np.random.default_rng(seed)
    K0, _ = random_indefinite_kernel(rng, n, 1)
    labels = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    alpha = rng.uniform(0.0, C, n)
    problem = ProxyKernelProblem(
        KernelSpectrum(K0), rho, np.ones(n), np.arange(n), labels, labels, np.full(n, C), 0.0
    )
    K_star, _ = problem.proxy(alpha)
    z = labels * alpha
    np.testing.assert_allclose(
        K_star, psd_part(K0 + np.outer(z, z) / (4 * rho)), atol=1e-9 * (1 + np.abs(K0).max())
    )
    gradient = -0.5 * np.outer(z, z) + 2 * rho * (K_star - K0)
    scale = 1 + np.abs(gradient).max() + rho * np.abs(K0).max()
    assert np.linalg.eigvalsh(K_star).min() >= -1e-9 * scale
    assert np.linalg.eigvalsh(0.5 * (gradient + gradient.T)).min() >= -1e-8 * scale
    assert abs(np.sum(K_star * gradient)) <= 1e-8 * scale * (1 + np.abs(K_star).max())
    inner = -0.5 * z @ K_star @ z + rho * np.sum((K_star - K0) ** 2)
    value, _ = problem.value_and_gradient(alpha)
    assert value == pytest.approx(alpha.sum() + inner, rel=1e-9, abs=1e-9 * scale)


@PER_ESTIMATOR
@given(seed=seeds, rho=st.sampled_from([0.1, 1.0, 10.0]))
def test_theorem_1_holds_for_the_fitted_indefinite_svc(seed, rho):
    """The fitted proxy kernel and coefficients c = P₊z (P₊ the projector on the range of K*) satisfy
    P₊(K* − K₀)P₊ = ccᵀ/4ρ, as K* = (K₀ + zzᵀ/4ρ)₊ implies (the negative part lies outside that range)."""
    from krein.svm import IndefiniteSVC

    rng = np.random.default_rng(seed)
    K0, _ = random_indefinite_kernel(rng, 12, 1)
    y = np.arange(12) % 2
    model = IndefiniteSVC(kernel="precomputed", rho=rho, max_iter=200).fit(K0, y)
    K_star, c = model.proxy_kernel_, model.dual_coef_[0]
    values, U = np.linalg.eigh(K_star)
    assert values.min() >= -1e-9 * np.abs(values).max()
    basis = U[:, values > 1e-9 * np.abs(values).max()]
    projector = basis @ basis.T
    np.testing.assert_allclose(projector @ c, c, atol=1e-8 * (1 + np.abs(c).max()))
    np.testing.assert_allclose(
        projector @ (K_star - K0) @ projector, np.outer(c, c) / (4 * rho), atol=1e-8 * (1 + np.abs(K0).max())
    )

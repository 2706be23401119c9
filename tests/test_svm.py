"""Numbers for krein.svm: solver agreement, identities of Luss & d'Aspremont (2009), Proposition 3 (2019)."""

import numpy as np
import pytest
import scipy.linalg
from sklearn.base import clone
from sklearn.pipeline import make_pipeline
from sklearn.svm import SVC

from krein.kernels import Gaussian, Sigmoid
from krein.optimize import smoothed_positive_part, smoothed_square
from krein.spectral import SpectrumTransformer
from krein.svm import DCASVC, IndefiniteOneClassSVM, IndefiniteSVC, IndefiniteSVR, KreinSVC, ModifiedSVC
from krein.svm._proxy import KernelSpectrum, ProxyKernelProblem, solve_proxy_problem


def _data(n=20, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(n) > 0, 1, -1)
    K = Sigmoid(eta=1.0)(X)
    assert np.linalg.eigvalsh(K)[0] < -1e-3  # indefinite
    return X, y, K


def _problem(K, y, rho, C=1.0, weights=None):
    n = y.size
    labels = y.astype(float)
    return ProxyKernelProblem(
        KernelSpectrum(K, weights), rho, np.ones(n), np.arange(n), labels, labels, np.full(n, C), 0.0
    )


def _objective_by_definition(K, y, alpha, rho, weights=None):
    """(4) at α with the inner minimum taken by an explicit eigendecomposition (Theorem 1 / 3)."""
    h = np.ones(y.size) if weights is None else weights
    omega = np.sqrt(h)
    z = y * alpha / omega
    Kt = K * np.outer(omega, omega)
    values, vectors = scipy.linalg.eigh(Kt + np.outer(z, z) / (4 * rho))
    Kstar = (vectors * np.maximum(values, 0)) @ vectors.T
    return alpha.sum() - 0.5 * z @ Kstar @ z + rho * np.sum((Kstar - Kt) ** 2)


@pytest.mark.parametrize("weights", [None, "random"])
def test_objective_and_gradient(weights):
    X, y, K = _data()
    rng = np.random.default_rng(1)
    h = rng.uniform(0.5, 2.0, y.size) if weights else None
    problem = _problem(K, y, rho=0.3, weights=h)
    alpha = rng.uniform(0, 1, y.size)
    value, gradient = problem.value_and_gradient(alpha)
    assert value == pytest.approx(_objective_by_definition(K, y, alpha, 0.3, h), rel=1e-12)
    step = 1e-6
    numeric = [
        (problem.value_and_gradient(alpha + step * e)[0] - problem.value_and_gradient(alpha - step * e)[0])
        / (2 * step)
        for e in np.eye(y.size)
    ]
    np.testing.assert_allclose(gradient, numeric, rtol=1e-6, atol=1e-6)


def _smoothed_by_definition(K, y, alpha, rho, eps, weights=None):
    """``(f, f_ε, ∇f_ε)`` of the smoothed (7) (Sec. 3) from an explicit eigendecomposition of X."""
    h = np.ones(y.size) if weights is None else weights
    omega = np.sqrt(h)
    z = y * alpha / omega
    Kt = K * np.outer(omega, omega)
    values, vectors = scipy.linalg.eigh(Kt + np.outer(z, z) / (4 * rho))
    base = alpha.sum() + rho * np.sum(Kt**2)
    value = base - rho * np.sum(np.maximum(values, 0) ** 2)
    smoothed = base - rho * np.sum(smoothed_square(values, eps))
    K_eps = (vectors * smoothed_positive_part(values, eps)) @ vectors.T
    return value, smoothed, 1 - y / omega * (K_eps @ z), values


@pytest.mark.parametrize("weights", [None, "random"])
@pytest.mark.parametrize("eps", [1e-2, 0.3])
def test_smoothed_objective_and_gradient(weights, eps):
    """f_ε and ∇f_ε = p − Mᵀ(Σφ_ε(λᵢ)vᵢvᵢᵀz) against eigh and against central finite differences of f_ε;
    the true f comes back from the same eigenvalues."""
    X, y, K = _data()
    rng = np.random.default_rng(1)
    h = rng.uniform(0.5, 2.0, y.size) if weights else None
    problem = _problem(K, y, rho=0.3, weights=h)
    for _ in range(3):
        alpha = rng.uniform(0, 1, y.size)
        value, smoothed, gradient = problem.smoothed_value_and_gradient(alpha, eps)
        ref_value, ref_smoothed, ref_gradient, _ = _smoothed_by_definition(K, y, alpha, 0.3, eps, h)
        assert value == pytest.approx(ref_value, rel=1e-12)
        assert value == pytest.approx(problem.value_and_gradient(alpha)[0], rel=1e-12)
        assert smoothed == pytest.approx(ref_smoothed, rel=1e-12)
        np.testing.assert_allclose(gradient, ref_gradient, rtol=1e-10, atol=1e-10)
        step = 1e-6
        numeric = np.array([
            (problem.smoothed_value_and_gradient(alpha + step * e, eps)[1]
             - problem.smoothed_value_and_gradient(alpha - step * e, eps)[1]) / (2 * step)
            for e in np.eye(y.size)
        ])  # fmt: skip
        assert np.linalg.norm(gradient - numeric) <= 1e-6 * np.linalg.norm(gradient)


def test_smoothing_bound_and_limit():
    """0 ≤ f_ε − f = ρΣ(λ₊² − g_ε(λ)) ≤ ρεΣλ₊, and ε → 0 recovers f and ∇f."""
    X, y, K = _data()
    rho = 0.3
    problem = _problem(K, y, rho=rho)
    rng = np.random.default_rng(5)
    for _ in range(5):
        alpha = rng.uniform(0, 1, y.size)
        f, gradient = problem.value_and_gradient(alpha)
        for eps in [1e-3, 1e-1, 1.0, 10.0]:
            value, smoothed, _ = problem.smoothed_value_and_gradient(alpha, eps)
            _, _, _, lam = _smoothed_by_definition(K, y, alpha, rho, eps)
            positive = np.maximum(lam, 0)
            excess = rho * np.sum(positive**2 - smoothed_square(lam, eps))
            assert smoothed - value == pytest.approx(excess, rel=1e-8, abs=1e-10)
            assert 0 <= smoothed - value <= rho * eps * positive.sum()
        trace_positive = np.maximum(_smoothed_by_definition(K, y, alpha, rho, 1.0)[3], 0).sum()
        previous = np.inf
        for eps in [1e-2, 1e-4, 1e-6, 1e-8]:
            value, smoothed, smoothed_gradient = problem.smoothed_value_and_gradient(alpha, eps)
            assert value == pytest.approx(f, rel=1e-12)
            assert -1e-12 <= smoothed - f <= rho * eps * trace_positive + 1e-12
            # 0 ≤ max(0, ·) − φ_ε ≤ ε/2, so ‖∇f_ε − ∇f‖ ≤ (ε/2)·max|coef|·‖z‖ (|coef| = 1 here)
            distance = np.abs(smoothed_gradient - gradient).max()
            assert distance <= eps / 2 * np.linalg.norm(alpha) + 1e-12 and distance <= previous
            previous = distance
        value, smoothed, smoothed_gradient = problem.smoothed_value_and_gradient(alpha, 0.0)
        assert value == smoothed == f
        np.testing.assert_array_equal(smoothed_gradient, gradient)


@pytest.mark.parametrize("solver", ["projected_gradient", "accpm"])
def test_smoothed_fit_certifies_the_true_problem(solver):
    """With ε > 0 the solvers follow f_ε, but the gap and the value are those of (7): the fit reaches a
    relative duality gap ≤ tol of (7), and its value is within the smoothing bound of the ε = 0 one."""
    X, y, K = _data()
    rho, tol, eps = 0.5, 1e-5, 1e-7  # the certificate of (7) at the f_ε-maximizer is O(ε‖z‖)
    problem = _problem(K, y, rho)
    kwargs = {"solver": solver, "max_iter": 3000, "tol": tol}
    plain = solve_proxy_problem(problem, **kwargs)
    smooth = solve_proxy_problem(problem, smoothing=eps, **kwargs)
    assert plain.converged and smooth.converged and smooth.gap_history[-1] <= tol
    # The reported value is f (not f_ε) at the returned point, and the upper bound certifies (7).
    value, smoothed, _ = problem.smoothed_value_and_gradient(smooth.beta, eps)
    assert smooth.value == value and smooth.smoothing_excess == pytest.approx(smoothed - value)
    _, _, _, lam = _smoothed_by_definition(K, y, smooth.beta, rho, eps)
    assert 0 < smooth.smoothing_excess <= rho * eps * np.maximum(lam, 0).sum()
    assert smooth.value <= plain.upper_bound and plain.value <= smooth.upper_bound
    scale = max(1.0, abs(plain.value - problem.constant()))
    assert plain.value - smooth.value <= min(smooth.smoothing_excess, 2 * tol * scale)
    # The estimator reports the same certified optimum.
    fits = [IndefiniteSVC(kernel="precomputed", rho=rho, smoothing=e, **kwargs).fit(K, y) for e in [0.0, eps]]
    assert fits[1].gap_history_[-1] <= tol
    assert abs(fits[1].objective_ - fits[0].objective_) <= 2 * tol * scale
    np.testing.assert_array_equal(fits[1].predict(K), fits[0].predict(K))


def test_smoothed_svr_and_one_class_certify_and_smoothing_zero_is_default():
    X, y, K = _data(n=20)
    kwargs = {"kernel": "precomputed", "rho": 0.5, "tol": 1e-5, "max_iter": 3000}
    svr = IndefiniteSVR(smoothing=1e-7, **kwargs).fit(K, X[:, 0])
    assert svr.gap_history_[-1] <= 1e-5
    # K + eeᵀ: on K itself the one-class optimum is f₀ exactly (α with (K₀)₊α = 0 exists), a value of
    # 0 that no relative gap certifies from ACCPM's interior centers (projected gradient lands on it)
    for solver in ["projected_gradient", "accpm"]:
        fits = [IndefiniteOneClassSVM(solver=solver, smoothing=e, **kwargs).fit(K + 1) for e in [0.0, 1e-7]]
        assert fits[1].gap_history_[-1] <= 1e-5
        assert fits[1].objective_ == pytest.approx(fits[0].objective_, rel=2e-5)
    # smoothing=0.0 is the default method (same iterates); a PSD kernel (PerturbSVM (22)) is not smoothed.
    default = IndefiniteSVC(kernel="precomputed", rho=0.5).fit(K, y)
    explicit = IndefiniteSVC(kernel="precomputed", rho=0.5, smoothing=0.0).fit(K, y)
    np.testing.assert_array_equal(default.dual_coef_, explicit.dual_coef_)
    np.testing.assert_array_equal(default.gap_history_, explicit.gap_history_)
    K_psd = X @ X.T + 1.0
    psd = [IndefiniteSVC(kernel="precomputed", rho=0.5, smoothing=e).fit(K_psd, y) for e in [0.0, 0.1]]
    np.testing.assert_array_equal(psd[0].dual_coef_, psd[1].dual_coef_)


def test_smoothing_errors():
    X, y, K = _data()
    with pytest.raises(ValueError, match="exchange"):
        IndefiniteSVC(kernel="precomputed", solver="exchange", smoothing=1e-3).fit(K, y)
    with pytest.raises(ValueError, match="smoothing"):
        IndefiniteSVC(kernel="precomputed", smoothing=-1.0).fit(K, y)
    # Too much smoothing cannot close the gap of (7): the warning says so and quantifies it.
    with pytest.warns(Warning, match="smoothing=0.3"):
        IndefiniteSVC(kernel="precomputed", rho=0.5, tol=1e-8, max_iter=20, smoothing=0.3).fit(K, y)


def test_three_solvers_agree():
    X, y, K = _data(n=16)
    tol = 1e-6
    fits = {
        solver: IndefiniteSVC(
            kernel="precomputed", C=1.0, rho=0.5, solver=solver, tol=tol, max_iter=3000
        ).fit(K, y)
        for solver in ["projected_gradient", "accpm", "exchange"]
    }
    values = np.array([f.objective_ for f in fits.values()])
    np.testing.assert_allclose(values, values.mean(), rtol=1e-5)
    for fit in fits.values():
        assert fit.gap_history_[-1] <= tol
        # The proxy kernel is PSD and the objective matches (4) evaluated from it.
        assert np.linalg.eigvalsh(fit.proxy_kernel_)[0] > -1e-9
    # Each value is a lower bound and the best upper bound is within tol of it.
    assert values.max() - values.min() <= 2 * tol * max(1, abs(values.mean()))


def test_svr_gap_certifies_optimum_and_one_class_solvers_agree():
    X, y, K = _data(n=20)
    svr = IndefiniteSVR(kernel="precomputed", rho=0.5, tol=1e-6, max_iter=3000).fit(K, X[:, 0])
    assert svr.gap_history_[-1] <= 1e-6  # upper bound from an SVR solve on the proxy kernel (Sec. 4.1)
    assert np.corrcoef(svr.predict(K), X[:, 0])[0, 1] > 0.5
    fits = [
        IndefiniteOneClassSVM(kernel="precomputed", rho=0.5, tol=1e-6, solver=s, max_iter=3000).fit(K + 1)
        for s in ["projected_gradient", "accpm"]
    ]
    assert fits[0].objective_ == pytest.approx(fits[1].objective_, rel=1e-5)
    assert all(f.gap_history_[-1] <= 1e-6 for f in fits)


def test_proxy_kernel_tends_to_clipped_kernel():
    X, y, K = _data()
    values, vectors = scipy.linalg.eigh(K)
    clipped = (vectors * np.maximum(values, 0)) @ vectors.T
    distances = [
        np.linalg.norm(
            IndefiniteSVC(kernel="precomputed", rho=rho, tol=1e-6).fit(K, y).proxy_kernel_ - clipped
        )
        for rho in [0.1, 10.0, 1e3, 1e5]
    ]
    assert all(a > b for a, b in zip(distances, distances[1:], strict=False))
    assert distances[-1] < 1e-3 * np.linalg.norm(clipped)


def test_large_rho_matches_denoise_svm():
    """ρ → ∞: Indefinite SVM = SVM on the clipped kernel (Sec. 2.3)."""
    X, y, K = _data()
    model = IndefiniteSVC(kernel="precomputed", C=1.0, rho=1e7, tol=1e-8).fit(K, y)
    reference = make_pipeline(SpectrumTransformer("clip"), SVC(kernel="precomputed", tol=1e-8)).fit(K, y)
    np.testing.assert_allclose(model.decision_function(K), reference.decision_function(K), atol=1e-4)


def test_perturb_svm_objective_is_problem_22():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((25, 2))
    y = np.where(X[:, 1] > 0, 1, -1)
    K = X @ X.T + 1.0  # PSD: no eigendecomposition, objective (22)
    model = IndefiniteSVC(kernel="precomputed", rho=0.7).fit(K, y)
    alpha = y * model.dual_coef_[0]  # c = z = Yα for PSD kernels
    assert np.all(alpha >= -1e-12) and np.all(alpha <= 1 + 1e-12)
    expected = (
        alpha.sum() - 0.5 * (y * alpha) @ K @ (y * alpha) - np.sum(np.outer(alpha, alpha) ** 2) / (16 * 0.7)
    )
    assert model.objective_ == pytest.approx(expected, rel=1e-10)
    assert KernelSpectrum(K).vectors is None


def test_constant_penalty_weights_rescale_rho():
    """Theorem 3 with H = c² eeᵀ is Theorem 1 with ρ c²."""
    X, y, K = _data()
    weighted = IndefiniteSVC(kernel="precomputed", C=1.0, rho=0.5, tol=1e-8).fit(
        K, y, penalty_weights=np.full(y.size, 2.0)
    )
    plain = IndefiniteSVC(kernel="precomputed", C=1.0, rho=2.0, tol=1e-8).fit(K, y)
    assert weighted.objective_ == pytest.approx(plain.objective_, rel=1e-6)
    np.testing.assert_allclose(weighted.proxy_kernel_, plain.proxy_kernel_, atol=1e-4)


def test_krein_svc_is_flip_svm_with_out_of_sample_map():
    """Proposition 3 (Oglic & Gärtner 2019)."""
    X, y, K = _data(n=40)
    rng = np.random.default_rng(3)
    K_test = Sigmoid(eta=1.0)(rng.standard_normal((15, 3)), X)
    model = KreinSVC(kernel="precomputed", C=2.0, tol=1e-10).fit(K, y)
    reference = make_pipeline(SpectrumTransformer("flip"), SVC(kernel="precomputed", C=2.0, tol=1e-10)).fit(
        K, y
    )
    np.testing.assert_allclose(
        model.decision_function(K_test), reference.decision_function(K_test), atol=1e-6
    )
    np.testing.assert_allclose(model.decision_function(K), reference.decision_function(K), atol=1e-6)


def test_modified_svc_is_linear_svm_on_kernel_rows():
    X, y, K = _data(n=40)
    model = ModifiedSVC(kernel="precomputed", C=0.5, tol=1e-10).fit(K, y)
    reference = SVC(kernel="linear", C=0.5, tol=1e-10).fit(K, y)  # features: the kernel rows
    np.testing.assert_allclose(model.decision_function(K), reference.decision_function(K), atol=1e-6)


def test_dca_ascends_the_nonconvex_dual_and_matches_svm_when_psd():
    X, y, K = _data(n=40)
    model = DCASVC(kernel="precomputed", tol=1e-10, max_iter=200).fit(K, y)
    history = model.objective_history_[0]
    assert np.all(np.diff(history) >= -1e-9 * np.abs(history[1:]))
    assert model.shift_ > 0
    K_psd = X @ X.T
    dca = DCASVC(kernel="precomputed", tol=1e-12).fit(K_psd, y)
    svm = SVC(kernel="precomputed", tol=1e-10).fit(K_psd, y)
    np.testing.assert_allclose(dca.decision_function(K_psd), svm.decision_function(K_psd), atol=1e-4)


def test_multiclass_one_vs_rest_and_step_schedule():
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.standard_normal((15, 2)) + c for c in ([0, 4], [4, 0], [-4, -4])])
    y = np.repeat([0, 1, 2], 15)
    model = IndefiniteSVC(kernel=Sigmoid(eta=2.0), rho=1.0, learning_rate=5.0, max_iter=200).fit(X, y)
    assert model.decision_function(X).shape == (45, 3)
    assert model.proxy_kernel_.shape == (3, 45, 45)
    assert np.mean(model.predict(X) == y) > 0.9


def test_errors():
    X, y, K = _data()
    with pytest.raises(ValueError, match="symmetric"):
        IndefiniteSVC(kernel="precomputed").fit(K + np.triu(np.ones_like(K), 1), y)
    with pytest.raises(ValueError, match="penalty_weights"):
        IndefiniteSVC(kernel="precomputed").fit(K, y, penalty_weights=-np.ones(y.size))
    with pytest.raises(ValueError, match="one class"):
        IndefiniteSVC(kernel="precomputed").fit(K, np.ones(y.size))
    with pytest.raises(ValueError, match="one column per training sample"):
        IndefiniteSVC(kernel="precomputed").fit(K, y).predict(K[:, :5])
    with pytest.warns(Warning, match="duality gap"):
        IndefiniteSVC(kernel="precomputed", rho=0.01, tol=1e-12, max_iter=2).fit(K, y)


def test_large_negative_part_does_not_fake_convergence():
    """Regression: the gap was relative to |f|, which contains the constant ρ‖(K₀)₋‖²; with a large
    negative part the very first check passed and the model stayed at α = 0 (one class predicted)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    v = rng.normal(size=60)
    v /= np.linalg.norm(v)
    K = Gaussian(1.0)(X) - 50.0 * np.outer(v, v)
    model = IndefiniteSVC(kernel="precomputed", C=1.0, rho=10.0).fit(K, y)
    assert model.n_iter_ > 1
    assert np.abs(model.dual_coef_).max() > 0
    assert model.score(K, y) > 0.8


@pytest.mark.parametrize("name", ["ModifiedSVC", "KreinSVC"])
def test_libsvm_baselines_stop_at_max_iter_and_say_so(name):
    """Issue 19: ModifiedSVC and KreinSVC had no max_iter and ran for minutes at large C (ModifiedSVC
    at C=1e5 on 200 noisy points: 97 s)."""
    import time

    from sklearn.exceptions import ConvergenceWarning

    import krein.svm

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = rng.integers(0, 2, 80)  # noise: no separating function, a slow dual at large C
    cls = getattr(krein.svm, name)
    start = time.perf_counter()
    with pytest.warns(ConvergenceWarning, match=r"max_iter=500 .* increase max_iter, or decrease C"):
        model = cls(kernel="sigmoid", C=1e6, max_iter=500).fit(X, y)
    assert time.perf_counter() - start < 5.0
    assert model.n_iter_ == 500
    assert np.all(np.isfinite(model.decision_function(X)))
    with pytest.raises(ValueError, match="max_iter"):
        cls(max_iter=0).fit(X, y)


def _svm_primal_and_dual(K, y, C):
    """libsvm on a PSD ``K``: its dual value (≤ ω) and the primal value of its (w, b) (≥ ω)."""
    svc = SVC(kernel="precomputed", C=C, tol=1e-10).fit(K, y)
    alpha = np.zeros(y.size)
    alpha[svc.support_] = np.abs(svc.dual_coef_[0])
    z = np.where(y == svc.classes_[1], 1.0, -1.0) * alpha
    margins = np.where(y == svc.classes_[1], 1.0, -1.0) * (K @ z + svc.intercept_[0])
    quadratic = 0.5 * z @ K @ z
    return quadratic + C * np.maximum(0.0, 1.0 - margins).sum(), alpha.sum() - quadratic


@pytest.mark.parametrize("kind", ["psd", "indefinite"])
def test_objective_never_exceeds_the_clipped_svm_optimum(kind):
    """f* ≤ ω((K₀)₊) + ρ‖(K₀)₋‖² (the bound of Sec. 2.4 at K = (K₀)₊), with f* → that bound as ρ → ∞.
    Regression: ρ(‖K₀‖² − ‖X₊‖²) cancelled catastrophically and reported values above the optimum
    (and negative gaps) from ρ ≈ 1e8 on."""
    X, y, K = _data(n=30)
    if kind == "psd":
        K = X @ X.T + 1.0
    values, vectors = scipy.linalg.eigh(K)
    clipped = (vectors * np.maximum(values, 0)) @ vectors.T
    negative = float(np.sum(np.minimum(values, 0) ** 2))
    primal, dual = _svm_primal_and_dual(clipped, y, C=1.0)
    for rho in [1.0, 1e4, 1e8, 1e10, 1e12]:
        model = IndefiniteSVC(kernel="precomputed", C=1.0, rho=rho, tol=1e-6).fit(K, y)
        constant = rho * negative
        assert model.objective_ - constant <= primal + 1e-9 * (1 + constant)
        assert np.all(model.gap_history_ >= 0) and model.gap_history_[-1] <= 1e-6
        if rho >= 1e8:  # the ρ → ∞ limit is the SVM on the clipped kernel
            assert model.objective_ - constant == pytest.approx(dual, rel=1e-5, abs=1e-6 * (1 + constant))


def test_certified_gap_bounds_the_paper_bound_and_the_optimum():
    """f(β) + gap(β) is the Sec. 2.4 bound with the primal point w(β): it lies above
    ω(K*(β)) + ρ‖K*(β) − K₀‖² (libsvm on the proxy kernel) and above the optimum, for any feasible β;
    at the optimum it closes."""
    X, y, K = _data()
    rho, C = 0.5, 1.0
    problem = _problem(K, y, rho, C)
    best = solve_proxy_problem(problem, solver="projected_gradient", max_iter=5000, tol=1e-8)
    rng = np.random.default_rng(2)
    for _ in range(4):
        beta = problem.project(rng.uniform(0, C, y.size))
        value, gradient = problem.value_and_gradient(beta)
        bound = value + problem.gap(beta, gradient)
        K_star, _ = problem.proxy(beta)
        _, svm_dual = _svm_primal_and_dual(K_star, y, C)
        assert bound >= svm_dual + rho * np.sum((K_star - K) ** 2) - 1e-8
        assert bound >= best.value - 1e-9 * abs(best.value)
    value, gradient = problem.value_and_gradient(best.beta)
    assert problem.gap(best.beta, gradient) <= 1e-7 * abs(value - problem.constant())


def test_fit_path_matches_independent_fits_with_fewer_iterations():
    X, y, K = _data(n=40)
    grid = [{"C": C, "rho": rho} for C in [0.1, 1.0, 10.0] for rho in [1.0, 100.0]]
    template = IndefiniteSVC(kernel="precomputed", tol=1e-6, max_iter=5000)
    path = template.fit_path(K, y, grid)
    cold = [clone(template).set_params(**p).fit(K, y) for p in grid]
    for warm, independent, setting in zip(path, cold, grid, strict=True):
        assert warm.C == setting["C"] and warm.rho == setting["rho"]
        scale = max(1.0, abs(independent.objective_ - setting["rho"] * _negative_norm(K)))
        assert abs(warm.objective_ - independent.objective_) <= 2e-6 * scale
        np.testing.assert_allclose(warm.decision_function(K), independent.decision_function(K), atol=1e-2)
    # fewer than independent fits from the paper's start β = 0 (a fit starts from the ρ → ∞ solution)
    assert sum(m.n_iter_ for m in path) < sum(_iterations_from_zero(m, K, y) for m in cold)
    with pytest.raises(ValueError, match="fit_path can only vary"):
        template.fit_path(K, y, [{"kernel": "gaussian"}])
    svr = IndefiniteSVR(kernel="precomputed", tol=1e-6).fit_path(K, X[:, 0], [{"epsilon": 0.1}, {"C": 2.0}])
    assert svr[1].C == 2.0 and svr[1].epsilon == "auto" and svr[1].gap_history_[-1] <= 1e-6
    one_class = IndefiniteOneClassSVM(kernel="precomputed", tol=1e-6).fit_path(K + 1, None, [{"nu": 0.3}])
    assert one_class[0].nu == 0.3 and one_class[0].gap_history_[-1] <= 1e-6


def _iterations_from_zero(model, K, y):
    spectrum, tasks = model._prepare(K, y)
    problem = model._problem(spectrum, tasks[0])
    return solve_proxy_problem(
        problem, solver="projected_gradient", max_iter=model.max_iter, tol=model.tol
    ).n_iter


def _negative_norm(K):
    return float(np.sum(np.minimum(np.linalg.eigvalsh(K), 0) ** 2))


def test_paper_step_is_t_over_k_from_zero():
    """learning_rate=t: β_k = P_A(β_{k−1} + (t/k)∇f(β_{k−1})) from β₀ = 0, no line search (Sec. 3.2)."""
    X, y, K = _data()
    problem = _problem(K, y, rho=1.0)
    evaluated = []
    evaluate = problem.evaluate
    problem.evaluate = lambda beta, smoothing=0.0: evaluated.append(beta.copy()) or evaluate(beta, smoothing)
    solve_proxy_problem(problem, solver="projected_gradient", max_iter=3, tol=1e-12, learning_rate=5.0)
    assert len(evaluated) == 4
    np.testing.assert_array_equal(evaluated[0], 0.0)
    for k in range(1, 4):
        _, gradient = problem.value_and_gradient(evaluated[k - 1])
        np.testing.assert_allclose(evaluated[k], problem.project(evaluated[k - 1] + 5.0 / k * gradient))

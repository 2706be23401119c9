"""IndefiniteLogisticRegression (IKLR, Liu et al. 2019) and the geodesic Gaussian kernels of its Table I."""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit, log_expit
from sklearn.linear_model import LogisticRegression
from sklearn.utils.estimator_checks import parametrize_with_checks

from krein.dissimilarity import covariance_descriptors, spd_distances
from krein.dissimilarity._geodesic_kernel import geodesic_gaussian_kernel
from krein.kernels import Gaussian, TruncatedL1
from krein.logistic import IndefiniteLogisticRegression
from krein.logistic._iklr import _LogisticDC
from krein.optimize import concave_convex_procedure
from krein.representation import SpectralRepresentation


def paper_model(*args, **params):
    """IKLR as objective (5)/(6) of the paper: ``f = Kα`` on the kernel as given (no intercept, no
    centring), the model these tests write out by hand."""
    return IndefiniteLogisticRegression(*args, center=False, fit_intercept=False, **params)


def objective(K, y_pm, alpha, lam):
    """Objective (5) written directly from the paper, independently of the estimator."""
    return -np.mean(log_expit(y_pm * (K @ alpha))) + 0.5 * lam * alpha @ K @ alpha


@pytest.fixture(scope="module")
def local_minimum_problem():
    """An indefinite kernel whose objective (6) has a strict local minimum near α = 0.

    The negative eigenvectors are orthogonal to y and |μ| ≫ 4nλ, so the logistic term's curvature
    beats the negative quadratic around the fit (objective (6) is unbounded below in general).
    """
    rng = np.random.default_rng(0)
    n = 30
    y = np.repeat([0, 1], n // 2)
    Q = np.linalg.qr(np.column_stack([2.0 * y - 1, rng.normal(size=(n, n - 1))]))[0]
    V = np.column_stack([Q[:, 1:3], Q[:, [0]], Q[:, 3:]])
    K = (V * np.r_[-3.0, -2.0, np.linspace(0.5, 10, n - 2)]) @ V.T
    return 0.5 * (K + K.T), y


@pytest.fixture(scope="module")
def tl1_problem():
    """TL1 kernel (ρ = 0.7·d) on a 2-D XOR problem: strongly indefinite."""
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, size=(80, 2))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    K = TruncatedL1()(X)
    assert np.linalg.eigvalsh(K)[0] < -0.1
    return X, y, K


def fit_exact(K, y, **params):
    params = {"alpha": 1e-3, "solver": "cccp", "inexact_tol": 1e-14, "max_outer_iter": 2000,
              "max_inner_iter": 100_000, "tol": 1e-15, "tau": 3.0, **params}  # fmt: skip
    return IndefiniteLogisticRegression(kernel="precomputed", **params).fit(K, y)


def test_cccp_converges_to_a_stationary_point(local_minimum_problem):
    K, y = local_minimum_problem
    model = fit_exact(K, y)
    assert model.objective_gradient_norm(K, y)[0] <= 1e-6
    assert model.n_iter_[0] < 2000  # stopped by convergence, not by the cap
    # stationarity of (5) checked against a finite-difference gradient of the paper's formula
    alpha, y_pm = model.dual_coef_[0], 2.0 * y - 1
    steps = 1e-6 * np.eye(K.shape[0])
    numeric = [
        (objective(K, y_pm, alpha + e, 1e-3) - objective(K, y_pm, alpha - e, 1e-3)) / 2e-6 for e in steps
    ]
    assert np.max(np.abs(numeric)) < 1e-6


def test_gradient_variants_reach_the_cccp_stationary_point(local_minimum_problem):
    K, y = local_minimum_problem
    reference = fit_exact(K, y).decision_function(K)
    inexact = fit_exact(K, y, solver="ccicp", inexact_tol=1.0)  # the paper's CCICP-GD (ε = 1)
    assert inexact.n_inner_iter_[0] == inexact.n_iter_[0]  # one gradient step per subproblem
    np.testing.assert_allclose(inexact.decision_function(K), reference, atol=1e-6)
    loose = fit_exact(K, y, inexact_tol=1e-4)  # the paper's CCCP-GD tolerance
    np.testing.assert_allclose(loose.decision_function(K), reference, atol=1e-5)


@pytest.mark.parametrize("solver", ["cccp", "ccicp"])
def test_deterministic_solvers_decrease_the_objective_monotonically(tl1_problem, solver):
    X, y, K = tl1_problem
    model = paper_model(alpha=1e-2, solver=solver, max_outer_iter=30).fit(X, y)
    history = model.objective_history_[0]
    assert history.size == 31
    assert np.all(np.diff(history) <= 1e-12)
    assert history[-1] < history[0] - 0.1
    # the recorded values are objective (5) itself
    alpha = model.dual_coef_[0]
    assert history[-1] == pytest.approx(objective(K, 2.0 * y - 1, alpha, 1e-2), rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("sgd_inexact", [False, True])
def test_stochastic_solver_decreases_the_objective_on_average(tl1_problem, sgd_inexact):
    X, y, K = tl1_problem
    histories = np.array(
        [
            IndefiniteLogisticRegression(
                alpha=1e-2, solver="ccicp-sgd", sgd_inexact=sgd_inexact, max_outer_iter=10, random_state=seed
            )
            .fit(X, y)
            .objective_history_[0]
            for seed in range(8)
        ]
    )
    mean = histories.mean(axis=0)
    assert np.all(np.diff(mean) < 0)
    exact = IndefiniteLogisticRegression(alpha=1e-2, solver="cccp", max_outer_iter=10).fit(X, y)
    assert mean[-1] < exact.objective_history_[0][-1] + 0.05


def test_sgd_inexact_rule_runs_fewer_epochs(tl1_problem):
    X, y, _ = tl1_problem
    common = {"alpha": 1e-2, "solver": "ccicp-sgd", "max_outer_iter": 5, "random_state": 0}
    exact = IndefiniteLogisticRegression(**common).fit(X, y)
    inexact = IndefiniteLogisticRegression(sgd_inexact=True, **common).fit(X, y)
    assert inexact.n_inner_iter_[0] == 5  # ε = 1: one epoch per subproblem (CCICP-SGD-I)
    assert exact.n_inner_iter_[0] > 3 * 5


def test_psd_kernel_gives_kernel_logistic_regression():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(50, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=50) > 0).astype(int)
    y_pm, lam, n = 2.0 * y - 1, 1e-2, 50
    kernel = Gaussian(eta=1.5)
    K = kernel(X)
    model = paper_model(kernel=kernel, alpha=lam, solver="cccp", inexact_tol=1e-14, tol=1e-14).fit(X, y)
    assert model.tau_ == 0.0  # K₋ = 0: the subproblem is all of KLR
    f = model.decision_function(X)

    # explicit features Φ with K = ΦΦᵀ: KLR is linear logistic regression on Φ with ‖w‖² = αᵀKα
    values, vectors = np.linalg.eigh(K)
    features = vectors * np.sqrt(np.maximum(values, 0))

    # independent solver 1: scipy L-BFGS on the primal objective in w
    def fun(w):
        margins = y_pm * (features @ w)
        value = -np.mean(log_expit(margins)) + 0.5 * lam * w @ w
        return value, lam * w - features.T @ (y_pm * expit(-margins)) / n

    reference = minimize(fun, np.zeros(n), jac=True, method="L-BFGS-B", options={"gtol": 1e-12, "ftol": 0})
    np.testing.assert_allclose(f, features @ reference.x, atol=1e-6)

    # independent solver 2: scikit-learn's LogisticRegression on the same features
    sklearn_model = LogisticRegression(
        C=1 / (lam * n), fit_intercept=False, tol=1e-12, solver="newton-cholesky"
    )
    sklearn_model.fit(features, y)
    np.testing.assert_allclose(f, sklearn_model.decision_function(features), atol=1e-6)
    np.testing.assert_allclose(model.predict_proba(X), sklearn_model.predict_proba(features), atol=1e-6)


def test_logistic_dc_gradients_match_finite_differences(tl1_problem):
    _, y, K = tl1_problem
    values, vectors = np.linalg.eigh(K)
    problem = _LogisticDC(SpectralRepresentation(values, vectors), 2.0 * y - 1, lam=0.05, tau=1.0)
    c = np.random.default_rng(3).normal(size=values.size) * 0.1
    for function in (problem.convex, problem.concave):
        _, gradient = function(c)
        numeric = [(function(c + e)[0] - function(c - e)[0]) / 2e-6 for e in 1e-6 * np.eye(c.size)]
        np.testing.assert_allclose(gradient, numeric, atol=1e-7)
    # g − h is objective (5), and the majorizer bounds the Hessian of g
    alpha = vectors @ c
    assert problem.objective(c) == pytest.approx(objective(K, 2.0 * y - 1, alpha, 0.05), rel=1e-12)
    margins = (2.0 * y - 1) * (vectors @ (values * c))
    weights = expit(margins) * expit(-margins)
    hessian = (vectors * values).T @ (weights[:, None] * (vectors * values)) / y.size + np.diag(
        problem.convex_weight
    )
    assert np.linalg.eigvalsh(np.diag(problem.metric) - hessian)[0] >= -1e-10
    # the batch gradient over all samples is the exact gradient
    np.testing.assert_allclose(problem.convex_batch_gradient(c, np.arange(y.size)), problem.convex(c)[1])


def test_multiclass_is_one_vs_rest_on_a_shared_decomposition():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(60, 3))
    y = np.argmax(X, axis=1)
    model = IndefiniteLogisticRegression(alpha=1e-2, max_outer_iter=5).fit(X, y)
    scores = model.decision_function(X)
    assert scores.shape == (60, 3) and model.dual_coef_.shape == (3, 60)
    for k in range(3):
        binary = IndefiniteLogisticRegression(alpha=1e-2, max_outer_iter=5, tau=model.tau_).fit(X, y == k)
        np.testing.assert_allclose(scores[:, k], binary.decision_function(X), atol=1e-10)
    probabilities = model.predict_proba(X)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0)
    np.testing.assert_array_equal(model.predict(X), np.argmax(scores, axis=1))
    assert model.score(X, y) > 0.85


def test_precomputed_kernel_matches_kernel_object(tl1_problem):
    X, y, K = tl1_problem
    direct = IndefiniteLogisticRegression(kernel=TruncatedL1()).fit(X[:60], y[:60])
    precomputed = IndefiniteLogisticRegression(kernel="precomputed").fit(K[:60, :60], y[:60])
    np.testing.assert_allclose(
        direct.decision_function(X[60:]), precomputed.decision_function(K[60:, :60]), atol=1e-10
    )
    np.testing.assert_allclose(direct.predict_proba(X[60:])[:, 1], expit(direct.decision_function(X[60:])))


@pytest.mark.parametrize("init", ["ones", "minus_ones", "random"])
def test_initializations_start_from_the_paper_values(tl1_problem, init):
    X, y, K = tl1_problem
    model = paper_model(init=init, alpha=1e-2, max_outer_iter=1, random_state=0).fit(X, y)
    start = {"ones": np.ones(80), "minus_ones": -np.ones(80)}.get(init)
    if start is None:
        start = np.random.RandomState(0).uniform(0, 1, size=80)
    assert model.objective_history_[0][0] == pytest.approx(objective(K, 2.0 * y - 1, start, 1e-2), rel=1e-9)


def test_plain_step_decreases_the_objective_monotonically(tl1_problem):
    X, y, K = tl1_problem
    common = {"alpha": 1e-2, "max_outer_iter": 30, "step": "plain"}
    for solver in ("cccp", "ccicp"):
        # η = 5 is beyond 2/L (L ≈ 2.4 near α = 0) on the steepest direction: the halving safeguard engages
        for learning_rate in (None, 5.0):
            model = paper_model(solver=solver, learning_rate=learning_rate, **common).fit(X, y)
            history = model.objective_history_[0]
            assert history.size == 31
            assert np.all(np.diff(history) <= 1e-12)
            assert history[-1] < history[0] - 0.05
            alpha = model.dual_coef_[0]
            assert history[-1] == pytest.approx(objective(K, 2.0 * y - 1, alpha, 1e-2), rel=1e-10)
    # ε = 1: one plain gradient step per subproblem, i.e. α₁ = −0.02 ∇F(0) = 0.02 K y/(2n) (gradient (10))
    y_pm = 2.0 * y - 1
    one = paper_model(kernel="precomputed", solver="ccicp", step="plain", max_outer_iter=1)
    one.fit(K, y)
    assert one.n_inner_iter_[0] == 1
    np.testing.assert_allclose(one.dual_coef_[0], 0.02 * K @ y_pm / (2 * 80), atol=1e-12)


def test_paper_step_is_algorithm_1_in_alpha(tl1_problem):
    # two steps of Algorithm 1 on one subproblem from α = 0 (ε tiny stops neither): η₀ = 0.02, η₁ = 0.8·η₀,
    # with the gradient (10) λK₊α − (1/n) K(y ⊙ β) − λK₋α₀ in α itself (K₋α₀ = 0)
    X, y, K = tl1_problem
    n, y_pm, lam = 80, 2.0 * y - 1, 1e-2
    model = paper_model(
        kernel="precomputed", alpha=lam, solver="cccp", step="paper", inexact_tol=1e-300, max_inner_iter=2,
        max_outer_iter=1,
    ).fit(K, y)  # fmt: skip
    mu, V = np.linalg.eigh(K)
    K_plus = (V * (np.maximum(mu, 0) + model.tau_)) @ V.T
    alpha = np.zeros(n)
    for eta in (0.02, 0.016):
        alpha = alpha - eta * (lam * K_plus @ alpha - K @ (y_pm * expit(-y_pm * (K @ alpha))) / n)
    assert model.n_inner_iter_[0] == 2 and model.tau_ > 0
    np.testing.assert_allclose(model.dual_coef_[0], alpha, rtol=1e-9, atol=1e-12)


def test_plain_step_cccp_reaches_the_default_stationary_point():
    # a small PSD problem with a well-conditioned spectrum, so that plain steps converge too
    rng = np.random.default_rng(6)
    n = 30
    y = (rng.uniform(size=n) > 0.4).astype(int)
    Q = np.linalg.qr(rng.normal(size=(n, n)))[0]
    K = (Q * np.linspace(0.5, 5.0, n)) @ Q.T
    K = 0.5 * (K + K.T)
    common = {"kernel": "precomputed", "alpha": 0.1, "solver": "cccp", "inexact_tol": 1e-15,
              "max_inner_iter": 100_000, "tol": 1e-15}  # fmt: skip
    default = paper_model(**common).fit(K, y)
    plain = paper_model(step="plain", learning_rate=1.0, **common).fit(K, y)
    assert default.tau_ == plain.tau_ == 0.0  # PSD: one exact subproblem is all of KLR
    assert plain.n_inner_iter_[0] > 10 * default.n_inner_iter_[0]  # plain steps: many per subproblem
    assert default.objective_gradient_norm(K, y)[0] < 1e-9
    # the rule |ΔF_k| ≤ ε stops plain steps at a gradient of about √ε
    assert plain.objective_gradient_norm(K, y)[0] < 1e-7
    assert plain.objective_history_[0][-1] == pytest.approx(default.objective_history_[0][-1], abs=1e-13)
    np.testing.assert_allclose(plain.dual_coef_, default.dual_coef_, atol=1e-6)
    # and both agree with an independent solver: scipy L-BFGS on objective (5) directly
    y_pm = 2.0 * y - 1

    def fun(alpha):
        margins = y_pm * (K @ alpha)
        gradient = K @ (0.1 * alpha - y_pm * expit(-margins) / n)
        return objective(K, y_pm, alpha, 0.1), gradient

    reference = minimize(fun, np.zeros(n), jac=True, method="L-BFGS-B", options={"gtol": 1e-12, "ftol": 0})
    np.testing.assert_allclose(plain.dual_coef_[0], reference.x, atol=1e-6)


def test_errors_name_the_argument(tl1_problem):
    X, y, K = tl1_problem
    with pytest.raises(ValueError, match="tau"):
        IndefiniteLogisticRegression(tau=0.0).fit(X, y)
    with pytest.raises(ValueError, match="symmetric"):
        IndefiniteLogisticRegression(kernel="precomputed").fit(K + np.triu(K, 1), y)
    with pytest.raises(ValueError, match="one class"):
        IndefiniteLogisticRegression().fit(X, np.zeros(80))
    with pytest.raises(ValueError, match="solver"):
        IndefiniteLogisticRegression(solver="newton").fit(X, y)
    with pytest.raises(ValueError, match="'step' parameter"):
        IndefiniteLogisticRegression(step="newton").fit(X, y)
    with pytest.raises(ValueError, match="learning_rate"):
        IndefiniteLogisticRegression(step="plain", learning_rate=0.0).fit(X, y)
    with pytest.raises(FloatingPointError, match="diverged"):  # (6) is unbounded below: τ tiny, λ large
        IndefiniteLogisticRegression(alpha=10.0, tau=0.5, max_outer_iter=5000).fit(X, y)


@pytest.mark.parametrize("factor", [1e-300, 1e-150, 1e150, 1e300])
def test_kernels_near_the_ends_of_double_precision_give_the_same_model(tl1_problem, factor):
    """alpha="auto" follows the kernel's scale and the CCCP steps are taken on K/u (u a power of two
    near its largest eigenvalue) with λ/u and τ/u: a kernel times 1e±300 gives the decision function of
    K to rounding (its majorizer λ(μ⁺ + τ) + μ²/4n overflowed: "the iterates of CCCP overflowed"). An
    explicit alpha beyond double precision in those units is an error naming it."""
    _, y, K = tl1_problem
    base = IndefiniteLogisticRegression(kernel="precomputed").fit(K, y)
    scaled = IndefiniteLogisticRegression(kernel="precomputed").fit(factor * K, y)
    expected = base.decision_function(K)
    np.testing.assert_allclose(
        scaled.decision_function(factor * K), expected, rtol=1e-10, atol=1e-12 * np.abs(expected).max()
    )
    assert scaled.alpha_ == pytest.approx(factor * base.alpha_, rel=1e-12)
    assert scaled.tau_ == pytest.approx(factor * base.tau_, rel=1e-12)
    if factor == 1e-300:
        with pytest.raises(ValueError, match="alpha=1e\\+10 is beyond double precision"):
            IndefiniteLogisticRegression(kernel="precomputed", alpha=1e10).fit(factor * K, y)


def test_geodesic_gaussian_kernels_of_table_one():
    rng = np.random.default_rng(5)
    series = rng.normal(size=(40, 4, 30)) * rng.uniform(0.2, 5.0, size=(40, 4, 1))
    S = covariance_descriptors(series)
    for metric in ("affine_invariant", "log_euclidean"):
        K = geodesic_gaussian_kernel(S, metric=metric, sigma=2.0)
        np.testing.assert_allclose(K, np.exp(-(spd_distances(S, metric=metric) ** 2) / 4.0))
        np.testing.assert_allclose(np.diag(K), 1.0)
        np.testing.assert_allclose(geodesic_gaussian_kernel(S[:5], S, metric=metric, sigma=2.0), K[:5])
    # log-Euclidean: a Gaussian kernel of the matrix logarithms, hence positive semidefinite
    assert np.linalg.eigvalsh(geodesic_gaussian_kernel(S, metric="log_euclidean", sigma=4.0))[0] > -1e-10
    with pytest.raises(ValueError, match="sigma"):
        geodesic_gaussian_kernel(S, sigma=0.0)


def test_affine_invariant_kernel_is_indefinite_where_log_euclidean_is_not():
    rng = np.random.default_rng(5)
    series = rng.normal(size=(60, 3, 30)) * rng.uniform(0.2, 5.0, size=(60, 3, 1))
    S = covariance_descriptors(series)
    sigma = 2 * np.median(spd_distances(S, metric="affine_invariant"))
    smallest = {
        metric: np.linalg.eigvalsh(geodesic_gaussian_kernel(S, metric=metric, sigma=sigma))[0]
        for metric in ("affine_invariant", "log_euclidean")
    }
    assert smallest["affine_invariant"] < -1e-3 and smallest["log_euclidean"] > -1e-10


# ---------------------------------------------------------------- low rank (Nyström eigen-coordinates)


@pytest.mark.parametrize("solver", ["cccp", "ccicp"])
def test_every_point_a_landmark_is_the_exact_model(tl1_problem, solver):
    """m = n, landmark_rank="full": K̃ = K, so the two fits run the same iterations in rotated coordinates.

    They differ by the rounding of two eigendecompositions (the Nyström one goes through the Gram
    matrix of K_XZ), carried through 20 CCCP iterations: 4e-13 observed, 1e-9 asserted (|f| ≈ 2.6).
    """
    X, y, _ = tl1_problem
    X_test = np.random.default_rng(3).uniform(-1, 1, size=(50, 2))
    common = {"alpha": 1e-2, "solver": solver, "max_outer_iter": 20}
    exact = IndefiniteLogisticRegression(**common).fit(X, y)
    low_rank = IndefiniteLogisticRegression(n_components=X.shape[0], landmark_rank="full", **common).fit(X, y)
    np.testing.assert_array_equal(low_rank.landmark_indices_, np.arange(X.shape[0]))
    assert low_rank.tau_ == pytest.approx(exact.tau_, rel=1e-10)
    np.testing.assert_allclose(low_rank.eigenvalues_, exact.eigenvalues_, atol=1e-10)
    np.testing.assert_allclose(low_rank.decision_function(X_test), exact.decision_function(X_test), atol=1e-9)
    np.testing.assert_allclose(low_rank.objective_history_[0], exact.objective_history_[0], rtol=1e-10)


def test_low_rank_stationary_point_and_precomputed_kernel(local_minimum_problem):
    """With m = n on a precomputed kernel the low-rank fit reaches the exact stationary point of (6)."""
    K, y = local_minimum_problem
    exact = fit_exact(K, y)
    low_rank = fit_exact(K, y, n_components=K.shape[0])
    assert low_rank.objective_gradient_norm(K, y)[0] <= 1e-6
    np.testing.assert_allclose(low_rank.decision_function(K), exact.decision_function(K), atol=1e-8)


def test_low_rank_kernel_object_and_precomputed_agree(tl1_problem):
    X, y, K = tl1_problem
    common = {"alpha": 1e-2, "solver": "cccp", "max_outer_iter": 10, "n_components": 30, "random_state": 4}
    direct = IndefiniteLogisticRegression(kernel=TruncatedL1(), **common).fit(X, y)
    precomputed = IndefiniteLogisticRegression(kernel="precomputed", **common).fit(K, y)
    np.testing.assert_array_equal(direct.landmark_indices_, precomputed.landmark_indices_)
    assert direct.dual_coef_.shape == (1, 30) and direct.X_fit_.shape == (30, 2)
    np.testing.assert_allclose(
        direct.decision_function(X[:20]), precomputed.decision_function(K[:20]), atol=1e-10
    )


@pytest.mark.parametrize("kernel", ["sigmoid", "tl1"])
def test_quarter_landmarks_accuracy_close_to_exact(kernel):
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=600, n_features=10, random_state=0)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    train, test = slice(0, 400), slice(400, None)
    # the same λ for both (alpha="auto" is relative to the scale of the kernel each model learns with:
    # K for the exact model, its Nyström approximation K̃ for the low-rank one)
    exact = IndefiniteLogisticRegression(kernel=kernel, alpha=1e-2, solver="cccp").fit(X[train], y[train])
    assert exact.eigenvalues_[0] < 0  # indefinite
    for seed in range(3):
        low_rank = IndefiniteLogisticRegression(
            kernel=kernel, alpha=1e-2, solver="cccp", n_components=100, random_state=seed
        )
        low_rank.fit(X[train], y[train])
        assert low_rank.eigenvalues_.size <= 100
        assert low_rank.score(X[test], y[test]) >= exact.score(X[test], y[test]) - 0.05


def test_n_components_above_n_samples_warns_and_uses_every_point(tl1_problem):
    X, y, _ = tl1_problem
    with pytest.warns(UserWarning, match="n_components=500 > n_samples=80"):
        model = IndefiniteLogisticRegression(n_components=500, max_outer_iter=3).fit(X, y)
    np.testing.assert_array_equal(model.landmark_indices_, np.arange(80))


def test_low_rank_fit_never_allocates_an_n_by_n_array():
    import tracemalloc

    rng = np.random.default_rng(0)
    n = 3000
    X = rng.normal(size=(n, 5))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    model = IndefiniteLogisticRegression(kernel="sigmoid", n_components=100, max_outer_iter=5, random_state=0)
    tracemalloc.start()
    try:
        model.fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # O(n m): a few n×m arrays (Ũ, a block of landmark columns; 2.4 MB each; 7.5 MB observed), far
    # below the 72 MB of one n×n float64 array
    assert peak < 8 * n**2 / 4
    assert model.representation_.vectors.shape == (n, model.eigenvalues_.size)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_streamed_ccicp_makes_one_pass_per_gradient_step(monkeypatch, n_classes):
    """A zero start costs no pass over the data: objective (6) at α = 0 is ln 2 and its gradient comes
    from the projections Ũᵀy of the Nyström pass; each gradient step is then one streamed pass."""
    from krein.representation import NystroemRepresentation

    passes = []
    reduce_rows = NystroemRepresentation.reduce_rows
    monkeypatch.setattr(
        NystroemRepresentation, "reduce_rows", lambda self, *a: passes.append(1) or reduce_rows(self, *a)
    )
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = np.argmax(X, axis=1) if n_classes == 3 else (X[:, 0] * X[:, 1] > 0).astype(int)
    params = {"kernel": "tl1", "n_components": 40, "max_outer_iter": 6, "random_state": 0}
    model = IndefiniteLogisticRegression(**params, working_memory=0.01).fit(X, y)
    assert len(passes) == model.n_inner_iter_.sum() > 0
    for history in model.objective_history_:
        assert history[0] == pytest.approx(np.log(2.0), rel=1e-15)
    # g and ∇g at α = 0 from the projection equal those of a pass over the data
    spectrum, task = model.representation_, 2.0 * (y == y.max()) - 1.0
    with_projection = _LogisticDC(spectrum, task, 1e-2, 1.0, spectrum.project(task))
    zero = np.zeros(spectrum.values.size)
    value, gradient = with_projection.convex(zero)
    assert len(passes) == model.n_inner_iter_.sum()
    expected_value, expected_gradient = _LogisticDC(spectrum, task, 1e-2, 1.0).convex(zero)
    assert len(passes) == model.n_inner_iter_.sum() + 1
    assert value == pytest.approx(expected_value, rel=1e-14)
    np.testing.assert_allclose(
        gradient, expected_gradient, rtol=0, atol=1e-12 * np.abs(expected_gradient).max()
    )


@parametrize_with_checks([IndefiniteLogisticRegression(n_components=10, max_outer_iter=5, random_state=0)])
def test_low_rank_model_passes_the_sklearn_checks(estimator, check):
    """tests/test_common.py checks the default (exact) instance; this one the low-rank path."""
    check(estimator)


class _BatchLoopLogisticDC(_LogisticDC):
    """Objective (6) without the linear-model form: the SGD solver falls back to the mini-batch loop of
    ``convex_batch_gradient`` (the single-sample loop as it was written before the O(r) epoch)."""

    quadratic_weight = None


@pytest.mark.parametrize("step, learning_rate", [("majorizer", 1.0), ("paper", 0.02)])
@pytest.mark.parametrize("low_rank", [False, True], ids=["exact", "streamed Nyström"])
def test_single_sample_epoch_equals_the_batch_gradient_loop(tl1_problem, step, learning_rate, low_rank):
    """The allocation-free single-sample epoch takes the steps of Eq. (12) through
    ``convex_batch_gradient``: same permutation, same iterates (1e-12), on an indefinite kernel
    (τ > 0, so the linearized ``∇h`` enters every step) and on a streamed representation."""
    X, y, K = tl1_problem
    if low_rank:
        model = IndefiniteLogisticRegression(n_components=40, working_memory=0.01, random_state=0)
        spectrum = model._fit_representation(model._training_data(X, y)[0])
        assert spectrum.streams and spectrum._vectors is None
    else:
        spectrum = SpectralRepresentation.exact(K)
    tau = 2.0 * max(-spectrum.values.min(), 0.0)
    assert tau > 0
    common = {"inner": "sgd", "step": step, "learning_rate": learning_rate, "inexact_tol": 1e-6,
              "max_outer_iter": 3, "max_inner_iter": 8, "random_state": 0}  # fmt: skip
    fast, loop = (
        concave_convex_procedure(
            cls(spectrum, 2.0 * y - 1, 1e-2, tau), np.zeros(spectrum.values.size), **common
        )
        for cls in (_LogisticDC, _BatchLoopLogisticDC)
    )
    assert fast.n_inner_iter == loop.n_inner_iter > 3
    np.testing.assert_allclose(fast.x, loop.x, rtol=0, atol=1e-12 * np.max(np.abs(loop.x)))
    np.testing.assert_allclose(fast.history, loop.history, rtol=1e-12)
    assert not np.allclose(fast.x, 0.0)


def test_single_sample_steps_that_overflow_raise(tl1_problem):
    _, y, K = tl1_problem
    spectrum = SpectralRepresentation.exact(K)
    for cls in (_LogisticDC, _BatchLoopLogisticDC):  # a plain step far beyond 2/L diverges in both
        with pytest.raises(FloatingPointError, match="diverged"):
            concave_convex_procedure(
                cls(spectrum, 2.0 * y - 1, 1.0, 20.0), np.zeros(K.shape[0]), inner="sgd", step="plain",
                learning_rate=1e3, max_outer_iter=20, max_inner_iter=50, random_state=0,
            )  # fmt: skip


def test_negative_slope_is_the_logistic_weight():
    outputs = np.array([-800.0, -30.0, -1.0, -1e-9, 0.0, 2.5, 40.0, 800.0])
    for label in (-1.0, 1.0):
        expected = label * expit(-label * outputs)
        got = [_LogisticDC.negative_slope(float(o), label) for o in outputs]
        np.testing.assert_allclose(got, expected, rtol=1e-15, atol=0)


@pytest.mark.parametrize("solver", ["ccicp", "ccicp-sgd"])
def test_fit_ending_above_the_zero_model_warns(solver):
    """From α⁽⁰⁾ = 1 the TL1 outputs K1 saturate every margin; majorizer steps (curvature bound
    λμ + μ²/(4n) against about λμ there) then leave objective (6) far above F(0) = ln 2 after 20
    iterations, and the fit says so. From zero, or with the paper's absolute steps, it ends below."""
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=200, n_features=5, random_state=0)
    X = (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0))
    common = {"alpha": 1e-4, "solver": solver, "random_state": 0}
    with pytest.warns(UserWarning, match=r"ends above the objective \(6\) of the zero model") as record:
        model = paper_model(TruncatedL1(), init="ones", **common).fit(X, y)
    assert model.objective_history_[0][-1] > 10 * np.log(2)
    assert "init='ones'" in str(record[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for init, step in (("zeros", "majorizer"), ("ones", "paper")):
            model = paper_model(TruncatedL1(), init=init, step=step, **common).fit(X, y)
            assert model.objective_history_[0][-1] < np.log(2)


# ---------------------------------------------------------------------------- the default model: intercept
def _psd_problem(seed=3, n=60):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.7 * rng.normal(size=n) > 0.6).astype(int)  # about 1 positive in 3
    return X, y, Gaussian(eta=1.5)(X)


def _lbfgs_with_intercept(features, y_pm, lam):
    """Kernel logistic regression with an unpenalized intercept, ``(1/n) Σ ln(1 + exp(−y(Φw + b))) +
    (λ/2)‖w‖²``, by scipy's L-BFGS on the primal: the decision values on the training points."""
    n, d = features.shape

    def fun(v):
        w, b = v[:-1], v[-1]
        margins = y_pm * (features @ w + b)
        weights = y_pm * expit(-margins)
        value = -np.mean(log_expit(margins)) + 0.5 * lam * w @ w
        return value, np.append(lam * w - features.T @ weights / n, -np.mean(weights))

    options = {"gtol": 1e-12, "ftol": 0, "maxiter": 20_000}
    v = minimize(fun, np.zeros(d + 1), jac=True, method="L-BFGS-B", options=options).x
    return features @ v[:-1] + v[-1]


def test_default_is_kernel_logistic_regression_with_an_intercept_on_the_centred_kernel():
    """On a positive definite kernel the default (centred kernel, unpenalized intercept, λ = s/n) is
    scikit-learn's ``LogisticRegression(C=1/s)`` on features of the centred kernel, the plain kernel
    logistic regression (C = 1 on a kernel of unit scale)."""
    X, y, K = _psd_problem()
    n = y.size
    model = IndefiniteLogisticRegression("precomputed", solver="cccp", inexact_tol=1e-15, tol=1e-15).fit(K, y)
    Kc = K - K.mean(axis=0) - K.mean(axis=1)[:, None] + K.mean()
    values, vectors = np.linalg.eigh(Kc)
    keep = values > 1e-10 * values.max()
    features = vectors[:, keep] * np.sqrt(values[keep])
    s = np.sum(np.abs(values[keep])) / n
    assert model.alpha_ == pytest.approx(s / n, rel=1e-9)
    reference = LogisticRegression(C=1.0 / s, tol=1e-12, max_iter=100_000).fit(features, y)
    np.testing.assert_allclose(model.decision_function(K), reference.decision_function(features), atol=1e-6)
    assert abs(model.intercept_[0]) > 0.3  # the class ratio is in the intercept
    assert model.objective_gradient_norm(K, y)[0] < 1e-8


@pytest.mark.parametrize("solver", ["cccp", "ccicp"])
def test_intercept_on_the_uncentred_kernel_reaches_the_optimum(solver):
    """``fit_intercept`` without centring: the majorizer doubles its loss terms (``AᵀA ⪯ 2 diag(μ², n)``),
    the objective still decreases monotonically and reaches the primal optimum of an independent
    solver."""
    X, y, K = _psd_problem(seed=4)
    lam = 1e-2
    model = IndefiniteLogisticRegression(
        "precomputed",
        alpha=lam,
        center=False,
        solver=solver,
        max_outer_iter=200,
        tol=1e-15,
        inexact_tol=1e-15,
    ).fit(K, y)
    history = model.objective_history_[0]
    assert np.all(np.diff(history) <= 1e-12)
    values, vectors = np.linalg.eigh(K)
    features = vectors * np.sqrt(np.maximum(values, 0.0))
    expected = _lbfgs_with_intercept(features, 2.0 * y - 1, lam)
    np.testing.assert_allclose(model.decision_function(K), expected, atol=1e-5)


def test_stochastic_solver_fits_the_intercept():
    X, y, K = _psd_problem(seed=5)
    exact = IndefiniteLogisticRegression("precomputed", solver="cccp", tol=1e-14).fit(K, y)
    sgd = IndefiniteLogisticRegression("precomputed", solver="ccicp-sgd", max_outer_iter=40, random_state=0)
    sgd.fit(K, y)
    assert sgd.objective_history_[0][-1] == pytest.approx(exact.objective_history_[0][-1], abs=2e-3)
    assert sgd.intercept_[0] == pytest.approx(exact.intercept_[0], abs=0.1)


def test_intercept_follows_the_class_ratio_of_an_indefinite_kernel(tl1_problem):
    """On the indefinite TL1 kernel with 1 positive in 5 and no signal, the default predicts the large
    class; the paper's model without intercept (centred, so it cannot shift) is pulled to 50/50."""
    rng = np.random.default_rng(7)
    X = rng.uniform(-1, 1, size=(150, 2))
    y = (np.arange(150) % 5 == 0).astype(int)
    default = IndefiniteLogisticRegression(TruncatedL1()).fit(X[:100], y[:100])
    no_intercept = IndefiniteLogisticRegression(TruncatedL1(), fit_intercept=False).fit(X[:100], y[:100])
    assert np.mean(default.predict(X[100:])) < 0.1
    assert default.score(X[100:], y[100:]) > no_intercept.score(X[100:], y[100:]) + 0.1

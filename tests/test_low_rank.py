"""The low-rank (Nyström) path of the Kreĭn least squares estimators (Oglic & Gärtner 2019, Sec. 2.4)."""

import numpy as np
import pytest

from krein.kernels import DeltaGaussian
from krein.least_squares import KreinRidge, KreinRidgeClassifier, VarianceConstrainedKrein
from krein.least_squares._similarity_features import SimilarityFeaturesClassifier, SimilarityFeaturesRidge


@pytest.fixture(scope="module")
def regression():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = np.sin(X[:, 0]) + 0.3 * X[:, 1] ** 2 + 0.05 * rng.normal(size=120)
    X_test = rng.normal(size=(15, 3))
    return X, y, X_test


KERNEL = DeltaGaussian(1.0, 2.0)


@pytest.mark.parametrize(
    "estimator",
    [
        KreinRidge(KERNEL, lambda_plus=1e-2, lambda_minus=1e-1, center=False),
        VarianceConstrainedKrein(KERNEL, lambda_plus=1e-2, lambda_minus=1e-1, radius=0.5, center=False),
    ],
    ids=lambda e: type(e).__name__,
)
def test_every_point_a_landmark_gives_the_exact_model(regression, estimator):
    X, y, X_test = regression
    exact = estimator.fit(X, y).predict(X_test)
    low_rank = estimator.set_params(n_components=len(X), random_state=0).fit(X, y).predict(X_test)
    np.testing.assert_allclose(low_rank, exact, rtol=1e-6, atol=1e-7)


def test_low_rank_krein_ridge_matches_closed_form_on_nystroem_kernel(regression):
    """Kreĭn LSM on K̃ = K_XZ K_ZZ⁻¹ K_ZX: α = (H̃ + nΛ±)⁻¹ P̃ y, f(x) = k̃_xᵀ α (Sec. 2.4)."""
    X, y, X_test = regression
    lam_plus, lam_minus = 1e-2, 1e-1
    model = KreinRidge(
        KERNEL, lambda_plus=lam_plus, lambda_minus=lam_minus, center=False, n_components=30, random_state=0
    ).fit(X, y)
    Z = X[model.landmark_indices_]
    solve = np.linalg.solve(KERNEL(Z), KERNEL(Z, X))
    K_tilde = KERNEL(X, Z) @ solve
    values, vectors = np.linalg.eigh(0.5 * (K_tilde + K_tilde.T))
    keep = np.abs(values) > 1e-8 * np.abs(values).max()
    values, vectors = values[keep], vectors[:, keep]
    n = len(X)
    penalty = n * np.where(values > 0, lam_plus, lam_minus)
    alpha = vectors @ ((vectors.T @ y) * np.sign(values) / (np.abs(values) + penalty))
    expected = KERNEL(X_test, Z) @ (solve @ alpha)
    np.testing.assert_allclose(model.predict(X_test), expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("landmarks", ["uniform", "leverage", "kmeans++"])
def test_low_rank_classifiers_learn(landmarks):
    from sklearn.datasets import make_moons

    X, y = make_moons(300, noise=0.15, random_state=0)
    X_test, y_test = make_moons(200, noise=0.15, random_state=1)
    model = KreinRidgeClassifier(KERNEL, n_components=40, landmarks=landmarks, random_state=0).fit(X, y)
    assert model.score(X_test, y_test) > 0.9
    assert model.landmark_indices_.size == 40


def test_similarity_features_ridge_normal_equations(regression):
    X, y, X_test = regression
    alpha = 1e-2
    model = SimilarityFeaturesRidge(KERNEL, alpha=alpha, n_components=25, random_state=0).fit(X, y)
    P = X[model.prototype_indices_]
    F = np.hstack([KERNEL(X, P), np.ones((len(X), 1))])
    penalty = len(X) * alpha * np.diag(np.r_[np.ones(25), 0.0])
    coef = np.linalg.solve(F.T @ F + penalty, F.T @ y)
    np.testing.assert_allclose(
        model.predict(X_test), np.hstack([KERNEL(X_test, P), np.ones((15, 1))]) @ coef, rtol=1e-8, atol=1e-10
    )
    by_matrix = SimilarityFeaturesRidge("precomputed", alpha=alpha, n_components=25, random_state=0)
    by_matrix.fit(KERNEL(X), y)
    np.testing.assert_allclose(by_matrix.predict(KERNEL(X_test, X)), model.predict(X_test), atol=1e-10)


def test_similarity_features_classifier_one_vs_rest():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    model = SimilarityFeaturesClassifier(KERNEL, alpha=1e-3).fit(X, y)
    assert model.decision_function(X).shape == (150, 3)
    assert model.score(X, y) > 0.9

"""krein.embedding: the pseudo-Euclidean embedding (KreinPCA) and clustering in the Kreĭn space."""

import itertools
import warnings

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from sklearn.decomposition import KernelPCA
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score
from sklearn.pipeline import make_pipeline

from krein.dissimilarity import DoubleCentering
from krein.embedding import KreinKMeans, KreinPCA, KreinSpectralClustering, krein_kmeans_objective
from krein.embedding._clustering import _lloyd
from krein.kernels import Gaussian, TruncatedL1
from krein.spectral import indefiniteness


def _indefinite(n=40, n_test=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n + n_test, 3))
    kernel = TruncatedL1()
    K = kernel(X[:n])
    return 0.5 * (K + K.T), kernel(X[n:], X[:n]), X[:n], X[n:]


def _gram(Y, signature, Z=None):
    return (Y * signature) @ (Y if Z is None else Z).T


def _centred(K):
    H = np.eye(K.shape[0]) - 1.0 / K.shape[0]
    return H @ K @ H


def _signature_gap_kernel(n=60, seed=0):
    """Points whose class is carried by the negative part only: k(x, x') = aᵀa' − bᵀb'.

    ``a`` is noise in 3 dimensions, ``b`` two well-separated class means in 2 dimensions.
    """
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    a = 0.8 * rng.standard_normal((n, 3))
    b = np.where(y[:, None] == 0, -1.0, 1.0) * np.array([1.0, 0.0]) + 0.2 * rng.standard_normal((n, 2))
    return a @ a.T - b @ b.T, y


# ---------------------------------------------------------------------------------------- KreinPCA
def test_embedding_reproduces_the_kernel_with_its_signature():
    K, _, _, _ = _indefinite()
    pca = KreinPCA("precomputed", center=False).fit(K)
    values = np.linalg.eigvalsh(K)
    tolerance = K.shape[0] * np.finfo(float).eps * np.abs(values).max()
    assert (pca.n_positive_, pca.n_negative_) == (np.sum(values > tolerance), np.sum(values < -tolerance))
    assert pca.n_negative_ > 0
    np.testing.assert_allclose(_gram(pca.embedding_, pca.signature_), K, rtol=0, atol=1e-10 * np.abs(K).max())
    assert np.all(np.diff(np.abs(pca.eigenvalues_)) <= 0)  # ordered by |λ|
    iota = indefiniteness(values)
    np.testing.assert_allclose(pca.explained_, [1 - iota, iota], atol=1e-12)
    np.testing.assert_allclose(pca.explained_ratio_.sum(), 1.0, atol=1e-12)


def test_centred_embedding_reproduces_the_centred_kernel_and_has_mean_zero():
    K, _, _, _ = _indefinite()
    pca = KreinPCA("precomputed").fit(K)
    np.testing.assert_allclose(
        _gram(pca.embedding_, pca.signature_), _centred(K), atol=1e-10 * np.abs(K).max()
    )
    np.testing.assert_allclose(pca.embedding_.mean(axis=0), 0.0, atol=1e-10)


@pytest.mark.parametrize("center", [True, False])
@pytest.mark.parametrize("n_components", [None, 25])
def test_out_of_sample_coordinates_of_training_rows_equal_the_fitted_ones(center, n_components):
    K, _, X, _ = _indefinite()
    for pca, training in [
        (KreinPCA("precomputed", center=center, n_landmarks=n_components, random_state=0), K),
        (KreinPCA(TruncatedL1(), center=center, n_landmarks=n_components, random_state=0), X),
    ]:
        pca.fit(training)
        scale = np.abs(pca.embedding_).max()
        np.testing.assert_allclose(pca.transform(training), pca.embedding_, atol=1e-8 * scale)


def test_truncated_embedding_keeps_the_largest_magnitudes_and_its_test_rows():
    K, K_test, _, _ = _indefinite()
    full = KreinPCA("precomputed").fit(K)
    pca = KreinPCA("precomputed", n_components=4).fit(K)
    np.testing.assert_allclose(pca.eigenvalues_, full.eigenvalues_[:4])
    np.testing.assert_allclose(
        np.abs(pca.transform(K_test)), np.abs(full.transform(K_test)[:, :4]), atol=1e-10
    )
    explained = full.explained_ratio_[:4]
    signs = full.signature_[:4]
    np.testing.assert_allclose(pca.explained_, [explained[signs > 0].sum(), explained[signs < 0].sum()])
    with pytest.warns(UserWarning, match="n_components=500 > n_samples"):
        assert KreinPCA("precomputed", n_components=500).fit(K).eigenvalues_.size == full.eigenvalues_.size


def test_n_components_counts_coordinates_as_in_kernel_pca():
    """Issue 31: ``KreinPCA(n_components=2)`` meant 2 Nyström landmarks; it means 2 coordinates, as in
    scikit-learn's ``KernelPCA`` (the landmark count is ``n_landmarks``)."""
    X = np.random.default_rng(4).standard_normal((80, 3))
    K = X @ X.T + (1.0 + X[:, :1] @ X[:, :1].T) ** 2
    ours = KreinPCA("precomputed", n_components=2).fit_transform(K)
    theirs = KernelPCA(n_components=2, kernel="precomputed").fit_transform(K)
    assert ours.shape == (80, 2)
    signs = np.sign(np.sum(ours * theirs, axis=0))
    np.testing.assert_allclose(ours * signs, theirs, atol=1e-8 * np.abs(theirs).max())
    low = KreinPCA("precomputed", n_components=2, n_landmarks=80, random_state=0).fit_transform(K)
    np.testing.assert_allclose(np.abs(low), np.abs(ours), atol=1e-8 * np.abs(theirs).max())


def test_positive_definite_kernel_equals_scikit_learn_kernel_pca_up_to_sign():
    rng = np.random.default_rng(1)
    X, X_test = rng.standard_normal((50, 4)), rng.standard_normal((7, 4))
    eta = 1.3
    ours = KreinPCA(Gaussian(eta), n_components=6).fit(X)
    theirs = KernelPCA(6, kernel="rbf", gamma=0.5 / eta**2).fit(X)
    assert ours.n_negative_ == 0
    np.testing.assert_allclose(ours.eigenvalues_, theirs.eigenvalues_, rtol=1e-10)
    reference, test_reference = theirs.transform(X), theirs.transform(X_test)
    signs = np.sign(np.sum(ours.embedding_ * reference, axis=0))
    np.testing.assert_allclose(ours.embedding_ * signs, reference, atol=1e-10)
    np.testing.assert_allclose(ours.transform(X_test) * signs, test_reference, atol=1e-10)


def test_low_rank_on_every_landmark_equals_the_exact_embedding():
    K, K_test, _, _ = _indefinite()
    exact = KreinPCA("precomputed").fit(K)
    low = KreinPCA("precomputed", n_landmarks=K.shape[0], random_state=0).fit(K)
    assert low.landmark_indices_.size == K.shape[0]
    np.testing.assert_allclose(low.eigenvalues_, exact.eigenvalues_, atol=1e-10 * np.abs(K).max())
    # coordinates are unique up to rotations inside eigenspaces: compare their indefinite Gram matrices
    for rows in (K_test, K):
        a, b = exact.transform(rows), low.transform(rows)
        np.testing.assert_allclose(_gram(a, exact.signature_), _gram(b, low.signature_), atol=1e-8)


def test_low_rank_embedding_approximates_the_leading_coordinates():
    rng = np.random.default_rng(3)
    X, X_test = rng.standard_normal((300, 2)), rng.standard_normal((10, 2))
    kernel = Gaussian(0.7) - 0.7 * Gaussian(1.5)  # indefinite, fast-decaying spectrum
    exact = KreinPCA(kernel, n_components=5).fit(X)
    low = KreinPCA(kernel, n_components=5, n_landmarks=80, random_state=0).fit(X)
    assert exact.indefiniteness_ > 0.01 and low.X_fit_.shape == (80, 2)
    np.testing.assert_allclose(low.eigenvalues_, exact.eigenvalues_, rtol=1e-3)
    gram = _gram(exact.transform(X_test), exact.signature_)
    np.testing.assert_allclose(
        _gram(low.transform(X_test), low.signature_), gram, atol=1e-2 * np.abs(gram).max()
    )


def test_dissimilarities_are_embedded_with_their_distances():
    rng = np.random.default_rng(4)
    points = rng.standard_normal((30, 3))
    D = cdist(points, points, "cityblock")  # ℓ₁ distances: not Euclidean
    pca = KreinPCA("precomputed", dissimilarity=True).fit(D)
    assert pca.n_negative_ > 0
    Y, s = pca.embedding_, pca.signature_
    squares = np.sum(Y**2 * s, axis=1)[:, None] + np.sum(Y**2 * s, axis=1)[None, :] - 2 * _gram(Y, s)
    np.testing.assert_allclose(squares, D**2, atol=1e-10 * (D**2).max())
    np.testing.assert_allclose(pca.inverse_transform(Y), D, atol=1e-6)
    np.testing.assert_allclose(pca.transform(D), Y, atol=1e-8 * np.abs(Y).max())  # training rows
    with pytest.warns(UserWarning, match="singular"):  # a double-centred K has the null vector 1
        low = KreinPCA("precomputed", dissimilarity=True, n_landmarks=30, random_state=0).fit(D)
    np.testing.assert_allclose(low.eigenvalues_, pca.eigenvalues_, atol=1e-9 * np.abs(pca.eigenvalues_).max())
    np.testing.assert_allclose(low.transform(D), low.embedding_, atol=1e-8 * np.abs(Y).max())
    piped = make_pipeline(DoubleCentering(), KreinPCA("precomputed")).fit(D)
    np.testing.assert_allclose(np.abs(piped.transform(D)), np.abs(pca.transform(D)), atol=1e-10)
    euclidean = KreinPCA("precomputed", dissimilarity=True).fit(cdist(points, points))
    assert (euclidean.n_positive_, euclidean.n_negative_) == (3, 0)  # classical scaling recovers ℝ³


def test_inverse_transform_gives_kernel_rows_and_warns_when_truncated_distances_go_negative():
    K, K_test, _, X_test = _indefinite()
    pca = KreinPCA("precomputed", center=False).fit(K)
    np.testing.assert_allclose(pca.inverse_transform(pca.transform(K_test)), K_test, atol=1e-8)
    assert not hasattr(KreinPCA(TruncatedL1()).fit(X_test), "inverse_transform")
    rng = np.random.default_rng(5)
    points = rng.standard_normal((25, 2))
    D = cdist(points, points, "chebyshev")
    embedded = KreinPCA("precomputed", dissimilarity=True).fit(D)
    assert embedded.n_negative_ > 0
    coordinates = np.zeros((1, embedded.signature_.size))
    coordinates[0, np.flatnonzero(embedded.signature_ < 0)[0]] = 10 * D.max()  # far out on a negative axis
    with pytest.warns(UserWarning, match="negative"):
        embedded.inverse_transform(coordinates)


def test_feature_names_and_pandas_output_carry_the_signature():
    pd = pytest.importorskip("pandas")
    K, _ = _signature_gap_kernel()
    pca = KreinPCA("precomputed", n_components=4).set_output(transform="pandas").fit(K)
    frame = pca.transform(K[:5])
    assert isinstance(frame, pd.DataFrame)
    expected, counts = [], {1.0: 0, -1.0: 0}
    for sign in pca.signature_:
        expected.append(f"kreinpca_{'pos' if sign > 0 else 'neg'}{counts[sign]}")
        counts[sign] += 1
    assert list(frame.columns) == expected
    assert any(name.startswith("kreinpca_neg") for name in expected)


def test_bad_input_is_named():
    K, _, X, _ = _indefinite()
    with pytest.raises(ValueError, match="dissimilarity=True needs"):
        KreinPCA(TruncatedL1(), dissimilarity=True).fit(X)
    pca = KreinPCA("precomputed").fit(K)
    with pytest.raises(ValueError, match="one column per training sample"):
        pca.transform(K[:, :5])
    with pytest.raises(ValueError, match=r"shape \(n_samples, \d+\)"):
        pca.inverse_transform(np.ones((2, 1)))
    with pytest.raises(ValueError, match="non-negative"):
        KreinPCA("precomputed", dissimilarity=True).fit(-np.abs(K))


# ---------------------------------------------------------------------------------------- clustering
def test_kmeans_objective_is_shift_invariant_up_to_a_constant():
    """J(K + σI) = J(K) + σ(n − k) (Roth et al. 2003): the same partitions are optimal."""
    K, _, _, _ = _indefinite(n=50)
    sigma = -1.5 * np.linalg.eigvalsh(K)[0]
    model = KreinKMeans(3, kernel="precomputed", random_state=0).fit(K)
    shifted = KreinKMeans(3, kernel="precomputed", random_state=0).fit(K + sigma * np.eye(50))
    np.testing.assert_array_equal(model.labels_, shifted.labels_)
    np.testing.assert_allclose(shifted.inertia_ - model.inertia_, sigma * (50 - 3), rtol=1e-10)
    np.testing.assert_allclose(model.inertia_, krein_kmeans_objective(K, model.labels_), rtol=1e-12)


def test_kmeans_objective_equals_the_dissimilarity_form():
    rng = np.random.default_rng(6)
    points = rng.standard_normal((20, 2))
    D = cdist(points, points, "cityblock")
    K = DoubleCentering().fit_transform(D)
    labels = rng.integers(0, 3, size=20)
    direct = sum(
        (D[np.ix_(labels == c, labels == c)] ** 2).sum() / (2 * np.sum(labels == c)) for c in range(3)
    )
    np.testing.assert_allclose(krein_kmeans_objective(K, labels), direct, rtol=1e-10)


def test_hartigan_finds_the_optimal_partition_of_a_small_indefinite_problem():
    K, _, _, _ = _indefinite(n=9, seed=2)
    best = min(
        krein_kmeans_objective(K, np.array((0,) + labels))
        for labels in itertools.product((0, 1), repeat=8)
        if 0 < sum(labels) < 9
    )
    model = KreinKMeans(2, kernel="precomputed", random_state=0).fit(K)
    np.testing.assert_allclose(model.inertia_, best, rtol=1e-12)


def test_hartigan_result_admits_no_improving_single_move_and_beats_lloyd():
    K, _, _, _ = _indefinite(n=60, seed=3)
    model = KreinKMeans(4, kernel="precomputed", n_init=3, random_state=0).fit(K)
    labels = model.labels_
    for i in range(labels.size):
        if np.sum(labels == labels[i]) == 1:
            continue
        for c in range(4):
            moved = labels.copy()
            moved[i] = c
            assert krein_kmeans_objective(K, moved) >= model.inertia_ - 1e-9 * np.abs(K).max()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        lloyd = KreinKMeans(4, kernel="precomputed", n_init=3, algorithm="lloyd", random_state=0).fit(K)
    assert model.inertia_ <= lloyd.inertia_ + 1e-9


def test_lloyd_cycles_on_an_indefinite_kernel_and_says_so():
    """The textbook iteration is not a descent method in a Kreĭn space: it can cycle, and says so."""
    for seed in range(100):
        B = np.random.default_rng(seed).standard_normal((8, 8))
        K = B + B.T
        if _lloyd(K, np.arange(8) % 2, 2, 50)[2]:
            break
    else:
        pytest.fail("no cycling example among 100 random indefinite kernels")
    for n_init in range(1, 30):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            KreinKMeans(2, kernel="precomputed", algorithm="lloyd", n_init=n_init, random_state=seed).fit(K)
        if any(issubclass(w.category, ConvergenceWarning) and "cycles" in str(w.message) for w in caught):
            break
    else:
        pytest.fail("KreinKMeans(algorithm='lloyd') never warned on a cycling kernel")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # Hartigan's moves cannot cycle
        KreinKMeans(2, kernel="precomputed", n_init=n_init, random_state=seed).fit(K)


def test_predict_assigns_training_points_to_their_cluster_on_a_definite_kernel():
    rng = np.random.default_rng(7)
    X = np.concatenate([rng.normal(-3, 1, (20, 2)), rng.normal(3, 1, (20, 2))])
    model = KreinKMeans(2, kernel=Gaussian(2.0), random_state=0).fit(X)
    np.testing.assert_array_equal(model.predict(X), model.labels_)
    assert adjusted_rand_score(np.repeat([0, 1], 20), model.labels_) == 1.0


def test_signed_spectral_clustering_uses_the_negative_part():
    """Classes carried by the negative part: found by the signed embedding, lost by clipping."""
    K, y = _signature_gap_kernel()
    pca = KreinPCA("precomputed", n_components=4).fit(K)
    assert pca.n_negative_ >= 1
    signed = KreinSpectralClustering(2, kernel="precomputed", rank=4, random_state=0).fit(K)
    assert adjusted_rand_score(y, signed.labels_) > 0.9
    values, vectors = np.linalg.eigh(K)
    clipped = (vectors * np.maximum(values, 0)) @ vectors.T
    clip = KreinSpectralClustering(2, kernel="precomputed", rank=3, random_state=0).fit(clipped)
    assert adjusted_rand_score(y, clip.labels_) < 0.2
    np.testing.assert_array_equal(signed.predict(K), signed.labels_)
    # Kreĭn k-means rewards spread along negative directions: it does not find these classes (guide)
    krein = KreinKMeans(2, kernel="precomputed", random_state=0).fit(K)
    assert adjusted_rand_score(y, krein.labels_) < 0.2
    low = KreinSpectralClustering(2, kernel="precomputed", rank=4, n_components=5, random_state=0).fit(K)
    assert adjusted_rand_score(y, low.labels_) > 0.9  # a rank-5 kernel: 5 landmarks represent it exactly


def test_clusterers_name_their_bad_input():
    K, _, _, _ = _indefinite(n=5, n_test=1)
    with pytest.raises(ValueError, match="X has 5 samples .* fewer than n_clusters=6"):
        KreinKMeans(6, kernel="precomputed").fit(K)
    with pytest.raises(ValueError, match="X has 5 samples .* fewer than n_clusters=6"):
        KreinSpectralClustering(6, kernel="precomputed", rank=2).fit(K)


def test_one_sample_is_named_not_called_a_zero_kernel():
    """Issue 31: one sample with center=True was reported as "the training kernel is numerically zero"."""
    from krein.least_squares import KreinRidge

    X = np.ones((1, 2))
    for estimator in (KreinPCA(Gaussian()), KreinRidge(Gaussian())):
        with pytest.raises(ValueError, match="center=True needs at least 2 samples, got n_samples=1"):
            estimator.fit(X, [1.0]) if isinstance(estimator, KreinRidge) else estimator.fit(X)

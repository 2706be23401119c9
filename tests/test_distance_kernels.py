"""Distances made into kernels: GaussianOfDistance and DoubleCentering(scale="median")."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.spatial.distance import cdist
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.svm import SVC

from krein.dissimilarity import DoubleCentering, GaussianOfDistance


def _points(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


def test_gaussian_of_distance_is_the_gaussian_kernel_with_the_median_heuristic():
    X, _ = _points()
    Xt = np.random.default_rng(1).normal(size=(7, 3))
    D = cdist(X, X)
    median_sq = np.median(D[np.triu_indices(60, 1)] ** 2)
    g = GaussianOfDistance(gamma=0.5)
    K = g.fit_transform(D)
    assert_allclose(K, np.exp(-0.5 * D**2 / median_sq), rtol=1e-13)
    assert_allclose(g.gamma_, 0.5 / median_sq, rtol=1e-13)
    assert_allclose(g.transform(cdist(Xt, X)), np.exp(-0.5 * cdist(Xt, X) ** 2 / median_sq), rtol=1e-13)
    assert_array_equal(K, K.T)
    absolute = GaussianOfDistance(gamma=0.5, relative=False).fit(D)
    assert_allclose(absolute.transform(cdist(Xt, X)), np.exp(-0.5 * cdist(Xt, X) ** 2), rtol=1e-13)


@pytest.mark.parametrize("factor", [1e-3, 1e3, 1e150, 1e-150])
def test_distance_kernels_do_not_depend_on_the_scale_of_D(factor):
    X, _ = _points()
    D, Dt = cdist(X, X), cdist(X[:9] + 0.1, X)
    for transformer in (GaussianOfDistance(gamma=2.0), DoubleCentering(scale="median")):
        K = transformer.fit_transform(D)
        Kt = transformer.transform(Dt)
        K_scaled = transformer.fit_transform(factor * D)
        assert np.isfinite(K_scaled).all()
        assert_allclose(K_scaled, K, rtol=1e-10, atol=1e-12)
        assert_allclose(transformer.transform(factor * Dt), Kt, rtol=1e-10, atol=1e-12)


def test_double_centering_median_scale_is_double_centering_of_the_scaled_distances():
    X, _ = _points()
    D = cdist(X, X)
    dc = DoubleCentering(scale="median")
    K = dc.fit_transform(D)
    s = np.sqrt(np.median(D[np.triu_indices(60, 1)] ** 2))
    assert_allclose(dc.distance_scale_, s, rtol=1e-13)
    assert_allclose(K, DoubleCentering().fit_transform(D / s), rtol=1e-12, atol=1e-14)
    assert_allclose(dc.transform(D[:5]), K[:5], rtol=1e-12, atol=1e-13)


def test_median_of_duplicated_objects_uses_the_positive_distances():
    D = np.zeros((6, 6))
    D[0, 1:] = D[1:, 0] = 2.0  # objects 1..5 coincide: 10 zero pairs, 5 pairs at distance 2
    g = GaussianOfDistance().fit(D)
    assert_allclose(g.distance_scale_, 2.0)
    with pytest.raises(ValueError, match="all zero off the diagonal"):
        GaussianOfDistance().fit(np.zeros((4, 4)))
    with pytest.raises(ValueError, match="at least 2 objects"):
        GaussianOfDistance().fit(np.zeros((1, 1)))


def test_gaussian_of_distance_validation_names_the_argument():
    g = GaussianOfDistance()
    with pytest.raises(ValueError, match="D must be a square"):
        g.fit(np.ones((3, 4)))
    with pytest.raises(ValueError, match="D must be symmetric"):
        g.fit(np.array([[0.0, 1.0], [2.0, 0.0]]))
    with pytest.raises(ValueError, match="GaussianOfDistance: D must hold non-negative"):
        g.fit(np.array([[0.0, -1.0], [-1.0, 0.0]]))
    with pytest.raises(ValueError, match="gamma"):
        GaussianOfDistance(gamma=-1.0).fit(np.array([[0.0, 1.0], [1.0, 0.0]]))
    g.fit(np.array([[0.0, 1.0], [1.0, 0.0]]))
    with pytest.raises(ValueError, match="expecting 2 features.*one column per training sample"):
        g.transform(np.ones((3, 3)))
    assert GaussianOfDistance().__sklearn_tags__().input_tags.pairwise


def test_set_output_gives_one_column_per_training_object():
    pd = pytest.importorskip("pandas")
    X, _ = _points(n=10)
    for transformer in (GaussianOfDistance(), DoubleCentering(scale="median")):
        frame = transformer.set_output(transform="pandas").fit_transform(cdist(X, X))
        assert isinstance(frame, pd.DataFrame) and frame.shape == (10, 10)
        assert list(frame.columns)[:2] == [f"{type(transformer).__name__.lower()}{i}" for i in range(2)]


@pytest.mark.parametrize("transformer", [GaussianOfDistance(), DoubleCentering(scale="median")])
def test_grid_search_on_a_precomputed_distance_equals_the_steps_by_hand(transformer):
    X, y = _points(n=80)
    D = cdist(X, X) ** 0.7  # a non-Euclidean distance
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    grid = {"gaussianofdistance__gamma": [0.3, 3.0]} if isinstance(transformer, GaussianOfDistance) else {}
    grid["svc__C"] = [0.1, 10.0]
    search = GridSearchCV(make_pipeline(transformer, SVC(kernel="precomputed")), grid, cv=cv).fit(D, y)
    name = next(iter(grid)) if len(grid) == 2 else None
    by_hand = {}
    for params in search.cv_results_["params"]:
        scores = []
        for train, test in cv.split(D, y):
            step = type(transformer)(**transformer.get_params())
            if name:
                step.set_params(gamma=params[name])
            K = step.fit_transform(D[np.ix_(train, train)])
            model = SVC(kernel="precomputed", C=params["svc__C"]).fit(K, y[train])
            scores.append(model.score(step.transform(D[np.ix_(test, train)]), y[test]))
        by_hand[tuple(sorted(params.items()))] = np.mean(scores)
    assert_allclose(
        search.cv_results_["mean_test_score"],
        [by_hand[tuple(sorted(p.items()))] for p in search.cv_results_["params"]],
        rtol=1e-12,
    )

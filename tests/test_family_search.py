"""KreinClassifierCV and KreinRegressorCV: one cross-validated choice across the Kreĭn family."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.spatial.distance import cdist
from sklearn.base import clone
from sklearn.model_selection import (
    GridSearchCV,
    KFold,
    RepeatedKFold,
    RepeatedStratifiedKFold,
    StratifiedKFold,
    cross_val_score,
)
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from krein.dissimilarity import GaussianOfDistance
from krein.kernels import Gaussian
from krein.least_squares import KreinRidgeClassifier
from krein.model_selection import KreinClassifierCV, KreinRegressorCV, auto_cv
from krein.model_selection._candidates import CLASSIFIER_METHODS, KernelNormalizer
from krein.spectral import SpectrumTransformer

SPECTRAL = [m for m in CLASSIFIER_METHODS if m != "k-NN"]


def _problem(n=60, seed=0, classes=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    angle = np.arctan2(X[:, 1], X[:, 0])
    y = np.floor((angle + np.pi) / (2 * np.pi) * classes).astype(int) % classes
    flip = rng.random(n) < 0.05
    y[flip] = (y[flip] + 1) % classes
    return X, y


def _distance(A, B):
    return cdist(A, B, "cityblock") ** 0.8  # not Euclidean: an indefinite Gaussian


def test_one_eigendecomposition_per_fold_and_one_for_the_refit():
    X, y = _problem()
    D = _distance(X, X)
    K = GaussianOfDistance().fit_transform(D)
    for cv in (3, 5):
        model = KreinClassifierCV(kernel="precomputed", methods=SPECTRAL, cv=cv).fit(K, y)
        assert model.n_eigendecompositions_ == cv + 1
        n_candidates = len(model.cv_results_["params"])
        assert n_candidates > 40  # every spectral method over its penalties: still cv + 1
    model = KreinClassifierCV(metric="precomputed", scales=[1.0], methods=SPECTRAL + ["k-NN"], cv=4).fit(D, y)
    assert model.n_eigendecompositions_ in (4, 5)  # + 1 unless the winner is k-NN (no spectrum)
    assert model.n_eigendecompositions_ == 4 + (model.best_params_["method"] != "k-NN")


def test_scores_agree_with_grid_search_on_the_same_pipeline_and_folds():
    X, y = _problem(n=70, seed=1)
    D = _distance(X, X)
    cv = StratifiedKFold(4, shuffle=True, random_state=3)
    model = KreinClassifierCV(metric="precomputed", scales=[0.5, 2.0], methods=["flip+SVC", "k-NN"], cv=cv)
    model.fit(D, y)
    results = model.cv_results_
    pipeline = Pipeline(
        [
            ("gaussian", GaussianOfDistance()),
            ("normalize", KernelNormalizer()),
            ("spectrum", SpectrumTransformer("flip")),
            ("rescale", KernelNormalizer(center=False)),
            ("svc", SVC(kernel="precomputed")),
        ]
    )
    search = GridSearchCV(pipeline, {"gaussian__gamma": [0.5, 2.0], "svc__C": [0.1, 1.0, 10.0, 100.0]}, cv=cv)
    search.fit(D, y)
    for params, score in zip(
        search.cv_results_["params"], search.cv_results_["mean_test_score"], strict=True
    ):
        label = f"Gaussian(γ={params['gaussian__gamma']:g}·γ₀)"
        row = [
            i
            for i in range(len(results["params"]))
            if results["kernel"][i] == label and results["params"][i] == {"C": params["svc__C"]}
        ]
        assert len(row) == 1
        assert_allclose(results["mean_test_score"][row[0]], score, rtol=1e-12)
    knn = GridSearchCV(KNeighborsClassifier(metric="precomputed"), {"n_neighbors": [1, 3, 5]}, cv=cv).fit(
        D, y
    )
    for params, score in zip(knn.cv_results_["params"], knn.cv_results_["mean_test_score"], strict=True):
        i = next(i for i, p in enumerate(results["params"]) if results["method"][i] == "k-NN" and p == params)
        assert_allclose(results["mean_test_score"][i], score, rtol=1e-12)
    plain = clone(model).set_params(baseline_margin=0.0).fit(D, y)
    assert plain.best_score_ == pytest.approx(max(results["mean_test_score"]))


def _chosen_by_hand(results, folds, margin):
    """The rule of KreinClassifierCV's choice, written out: the best mean, unless its paired gain over
    the best k-NN is within ``margin`` Nadeau-Bengio corrected standard errors."""
    means = np.asarray(results["mean_test_score"])
    splits = np.array([results[f"split{k}_test_score"] for k in range(len(folds))]).T
    best = int(np.argmax(means))
    knn = [i for i, m in enumerate(results["method"]) if m == "k-NN"]
    baseline = knn[int(np.argmax(means[knn]))]
    gain = splits[best] - splits[baseline]
    ratio = np.mean([len(test) / len(train) for train, test in folds])
    error = np.sqrt((1 / gain.size + ratio) * gain.var(ddof=1))
    return baseline if gain.mean() <= margin * error else best


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_nearest_neighbours_are_kept_unless_the_gain_exceeds_the_corrected_standard_error(seed):
    X, y = _problem(n=60, seed=seed, classes=3)
    D = _distance(X, X)
    cv = RepeatedStratifiedKFold(n_splits=4, n_repeats=2, random_state=seed)
    folds = list(cv.split(D, y))
    chosen = set()
    for margin in (0.0, 0.5, 1.0, 3.0):
        model = KreinClassifierCV(
            metric="precomputed",
            scales=[1.0],
            methods=["Kreĭn LS", "clip+SVC", "k-NN"],
            cv=cv,
            baseline_margin=margin,
        ).fit(D, y)
        assert model.best_index_ == _chosen_by_hand(model.cv_results_, folds, margin)
        chosen.add(model.best_params_["method"])
        if margin == 0.0:
            assert model.best_score_ == max(model.cv_results_["mean_test_score"])
    assert "k-NN" in chosen  # the margin decides at least once on these problems


def test_a_tie_with_nearest_neighbours_keeps_them():
    rng = np.random.default_rng(10)
    centres = np.array([[0.0, 0.0], [20.0, 0.0]])
    y = np.repeat([0, 1], 20)
    X = centres[y] + rng.normal(size=(40, 2))
    D = cdist(X, X)
    params = {"metric": "precomputed", "scales": [1.0], "methods": ["Kreĭn LS", "k-NN"], "cv": 4}
    tied = KreinClassifierCV(**params).fit(D, y)  # every candidate scores 1 on every fold
    assert tied.best_params_["method"] == "k-NN"
    assert KreinClassifierCV(**params, baseline_margin=0.0).fit(D, y).best_params_["method"] == "Kreĭn LS"


def test_auto_cv_repeats_five_fold_on_small_sets():
    assert auto_cv(np.arange(60) % 2).get_n_splits() == 25
    assert auto_cv(np.arange(1000) % 3).get_n_splits() == 10
    assert auto_cv(np.arange(1001) % 3).get_n_splits() == 3 * 2  # 3 folds above 1000 samples
    assert auto_cv(np.linspace(0, 1, 5000), classifier=False).get_n_splits() == 3
    assert auto_cv(np.array([0, 0, 0, 1, 1, 1, 1, 1])).get_n_splits() == 3 * 5  # 3 folds: 3 of class 0
    X, y = _problem(n=60, seed=11)
    K = GaussianOfDistance().fit_transform(_distance(X, X))
    model = KreinClassifierCV(kernel="precomputed", methods=SPECTRAL, random_state=0).fit(K, y)
    assert model.n_eigendecompositions_ == 25 + 1
    again = KreinClassifierCV(kernel="precomputed", methods=SPECTRAL, random_state=0).fit(K, y)
    assert_array_equal(again.cv_results_["mean_test_score"], model.cv_results_["mean_test_score"])
    with pytest.raises(ValueError, match="a class has 1 sample"):
        auto_cv(np.array([0, 1, 1, 1]))
    with pytest.raises(ValueError, match="at least 2 targets"):
        auto_cv(np.array([1.0]), classifier=False)


def test_the_refitted_winner_is_the_chosen_pipeline_fitted_by_hand():
    X, y = _problem(n=50, seed=2)
    Xt, _ = _problem(n=20, seed=3)
    K, Kt = Gaussian(eta=0.7)(X), Gaussian(eta=0.7)(Xt, X)
    model = KreinClassifierCV(kernel="precomputed", methods=["Kreĭn LS"], cv=3).fit(K, y)
    params = {k: v for k, v in model.best_params_.items() if k not in ("kernel", "method")}
    normalizer = KernelNormalizer()
    by_hand = KreinRidgeClassifier(kernel="precomputed", center=False, **params).fit(
        normalizer.fit_transform(K), y
    )
    assert_array_equal(model.predict(Kt), by_hand.predict(normalizer.transform(Kt)))
    assert_allclose(
        model.decision_function(Kt), by_hand.decision_function(normalizer.transform(Kt)), rtol=1e-10
    )


@pytest.mark.slow
@pytest.mark.parametrize("factor", [1e3, 1e-3])
def test_a_scaled_kernel_or_distance_gives_the_same_choice_and_predictions(factor):
    X, y = _problem(n=60, seed=4, classes=3)
    Xt, _ = _problem(n=25, seed=5)
    D, Dt = _distance(X, X), _distance(Xt, X)
    K = GaussianOfDistance().fit(D)
    S, St = K.transform(D), K.transform(Dt)
    S = 0.5 * (S + S.T)
    for option, train, test in (("metric", D, Dt), ("kernel", S, St)):
        methods = SPECTRAL + (["k-NN"] if option == "metric" else [])
        params = {option: "precomputed", "methods": methods, "cv": 3}
        base = KreinClassifierCV(**params).fit(train, y)
        scaled = KreinClassifierCV(**params).fit(factor * train, y)
        assert scaled.best_params_ == base.best_params_
        assert_allclose(scaled.cv_results_["mean_test_score"], base.cv_results_["mean_test_score"])
        assert_array_equal(scaled.predict(factor * test), base.predict(test))


def test_nested_cross_validation_slices_the_precomputed_distance():
    X, y = _problem(n=60, seed=6)
    D = _distance(X, X)
    outer = StratifiedKFold(3, shuffle=True, random_state=0)
    model = KreinClassifierCV(metric="precomputed", scales=[1.0], methods=["Kreĭn LS", "k-NN"], cv=3)
    assert model.__sklearn_tags__().input_tags.pairwise
    scores = cross_val_score(model, D, y, cv=outer)
    by_hand = [
        model.fit(D[np.ix_(train, train)], y[train]).score(D[np.ix_(test, train)], y[test])
        for train, test in outer.split(D, y)
    ]
    assert_allclose(scores, by_hand)
    assert scores.mean() > 0.8


def test_kernel_object_scales_and_results_table():
    pd = pytest.importorskip("pandas")
    X, y = _problem(n=45, seed=7)
    model = KreinClassifierCV(Gaussian(eta=1.0), methods=["Kreĭn LS", "clip+SVC"], cv=3).fit(X, y)
    assert set(model.cv_results_["kernel"]) == {
        "Gaussian(eta=1.0)",
        "Gaussian(eta=1.0)×0.5",
        "Gaussian(eta=1.0)×2",
    }
    assert model.n_eigendecompositions_ == 3 * 3 + 1
    frame = pd.DataFrame(model.cv_results_)
    assert len(frame) == len(model.cv_results_["params"]) and "mean_test_score" in frame
    table = str(model.cv_results_)
    assert table.splitlines()[0].split()[:2] == ["rank", "score"]
    assert len(table.splitlines()) == 1 + 2 * 3  # the best setting of each kernel × method
    assert model.score(X, y) > 0.8


def test_regressor_chooses_across_the_family_on_a_distance():
    rng = np.random.default_rng(8)
    X = rng.uniform(-2, 2, size=(70, 1))
    y = 5.0 + np.sin(2 * X[:, 0]) + 0.05 * rng.normal(size=70)
    Xt = rng.uniform(-2, 2, size=(30, 1))
    model = KreinRegressorCV(metric="precomputed", cv=KFold(3, shuffle=True, random_state=0)).fit(
        cdist(X, X), y
    )
    prediction = model.predict(cdist(Xt, X))
    assert np.sqrt(np.mean((prediction - 5.0 - np.sin(2 * Xt[:, 0])) ** 2)) < 0.15
    scaled = KreinRegressorCV(metric="precomputed", cv=KFold(3, shuffle=True, random_state=0)).fit(
        1e3 * cdist(X, X), y
    )
    assert scaled.best_params_ == model.best_params_
    assert_allclose(scaled.predict(1e3 * cdist(Xt, X)), prediction, rtol=1e-8)


def test_regressor_does_not_keep_nearest_neighbours_its_inner_folds_show_worse():
    # a linear target in 3 dimensions: k-NN is 0.10 below the best mean inner R²; the classifier's
    # rule (baseline_margin=1) keeps it since the gain is within the corrected standard error
    rng = np.random.default_rng(3)
    w = np.ones(3) / np.sqrt(3)
    X = rng.normal(size=(40, 3))
    y = X @ w + 0.5 * rng.normal(size=40)
    Xt = rng.normal(size=(400, 3))
    params = {
        "metric": "precomputed",
        "scales": [1.0],
        "methods": ["Kreĭn LS", "clip+SVR", "k-NN"],
        "cv": RepeatedKFold(n_splits=5, n_repeats=2, random_state=3),
    }
    model = KreinRegressorCV(**params).fit(cdist(X, X), y)
    means = np.asarray(model.cv_results_["mean_test_score"])
    knn = np.asarray(model.cv_results_["method"]) == "k-NN"
    assert model.baseline_margin == 0.0
    assert model.best_params_["method"] == "Kreĭn LS"
    assert model.best_score_ == means.max()
    assert means.max() - means[knn].max() > 0.09
    old = KreinRegressorCV(**params, baseline_margin=1.0).fit(cdist(X, X), y)
    assert old.best_params_["method"] == "k-NN"
    assert old.best_score_ == means[knn].max()
    rmse = [np.sqrt(np.mean((m.predict(cdist(Xt, X)) - Xt @ w) ** 2)) for m in (model, old)]
    assert (
        rmse[0] < 0.9 * rmse[1]
    )  # 0.42 against 0.50: the choice of the inner folds is also the better on new data


def test_regressor_penalties_reach_a_smooth_noise_free_target(monkeypatch):
    # sin(2x) without noise wants λ far below the classifier's grid end 1e-3 (nλ = 0.06 on 60 points)
    from krein.model_selection import _candidates

    rng = np.random.default_rng(0)
    X, Xt = rng.uniform(-2, 2, size=(60, 1)), np.linspace(-1.9, 1.9, 200)[:, None]
    params = {"kernel": Gaussian(), "methods": ["Kreĭn LS"], "cv": KFold(3, shuffle=True, random_state=0)}

    def rmse(model):
        return np.sqrt(np.mean((model.predict(Xt) - np.sin(2 * Xt[:, 0])) ** 2))

    model = KreinRegressorCV(**params).fit(X, np.sin(2 * X[:, 0]))
    assert model.best_params_["lambda_plus"] == 1e-6
    assert model.best_score_ > 0.99999
    assert rmse(model) < 1e-3
    assert KreinClassifierCV(methods=["Kreĭn LS"]).fit(X, X[:, 0] > 0).cv_results_["params"][-1] == {
        "lambda_minus": 1e-3,
        "lambda_plus": 1e-3,
    }  # the classifier's grid is unchanged
    monkeypatch.setattr(_candidates, "_REGRESSION_LAMBDAS", _candidates._LAMBDAS)
    coarse = KreinRegressorCV(**params).fit(X, np.sin(2 * X[:, 0]))
    assert coarse.best_params_["lambda_plus"] == 1e-3
    assert rmse(coarse) > 10 * rmse(model)


def test_bad_input_names_the_argument():
    X, y = _problem(n=30)
    D = _distance(X, X)
    with pytest.raises(ValueError, match="not both"):
        KreinClassifierCV(kernel="precomputed", metric="precomputed").fit(D, y)
    with pytest.raises(ValueError, match="distance matrix must be non-negative"):
        KreinClassifierCV(metric="precomputed").fit(-D, y)
    with pytest.raises(ValueError, match="square"):
        KreinClassifierCV(metric="precomputed").fit(D[:, :10], y)
    with pytest.raises(ValueError, match="one class only"):
        KreinClassifierCV(metric="precomputed").fit(D, np.zeros(30))
    with pytest.raises(ValueError, match="methods must be"):
        KreinClassifierCV(metric="precomputed", methods=["clip"]).fit(D, y)
    with pytest.raises(ValueError, match="need a distance"):
        KreinClassifierCV(kernel="precomputed", methods=["k-NN"]).fit(D, y)
    with pytest.raises(ValueError, match="scales must be"):
        KreinClassifierCV(metric="precomputed", scales=[0.0]).fit(D, y)
    with pytest.raises(ValueError, match="no scale to search"):
        KreinClassifierCV(kernel="precomputed", scales=[1.0]).fit(D, y)
    with pytest.raises(ValueError, match="constant"):
        KreinClassifierCV(kernel="precomputed").fit(np.ones((30, 30)), y)


@pytest.mark.slow  # scikit-learn's checks refit the search dozens of times
@parametrize_with_checks(
    [
        KreinClassifierCV(methods=["Kreĭn LS", "clip+SVC"], scales=[1.0], cv=3),
        KreinRegressorCV(methods=["Kreĭn LS", "flip+SVR"], scales=[1.0], cv=3),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_a_method_that_cannot_be_fitted_ranks_last_with_a_warning(monkeypatch):
    from sklearn.exceptions import FitFailedWarning

    from krein.logistic import IndefiniteLogisticRegression

    def refuse(self, X, y):
        raise ValueError("refused on purpose")

    monkeypatch.setattr(IndefiniteLogisticRegression, "fit", refuse)
    X, y = _problem(n=45, seed=9)
    D = _distance(X, X)
    with pytest.warns(FitFailedWarning, match="IKLR: ValueError: refused on purpose"):
        model = KreinClassifierCV(metric="precomputed", scales=[1.0], methods=["IKLR", "Kreĭn LS"], cv=3).fit(
            D, y
        )
    rows = [i for i, m in enumerate(model.cv_results_["method"]) if m == "IKLR"]
    assert all(model.cv_results_["mean_test_score"][i] == -np.inf for i in rows)
    assert model.best_params_["method"] == "Kreĭn LS"
    with pytest.raises(ValueError, match="no candidate could be fitted"):
        KreinClassifierCV(metric="precomputed", scales=[1.0], methods=["IKLR"], cv=3).fit(D, y)

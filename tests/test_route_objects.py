"""The route on objects and at low rank: KreinClassifierCV / KreinRegressorCV with metric= and n_components=."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.neighbors import KNeighborsClassifier

from krein.datasets import make_cylinder_bell_funnel
from krein.dissimilarity import DoubleCentering, GaussianOfDistance, dtw_distances, pairwise_distances
from krein.least_squares import KreinRidgeClassifier, VarianceConstrainedKreinClassifier
from krein.model_selection import KreinClassifierCV, KreinRegressorCV
from krein.model_selection._candidates import KernelChoice, KernelNormalizer
from krein.model_selection._folds import evaluate_neighbors_fold
from krein.model_selection._low_rank import (
    TREATMENTS,
    fit_least_squares,
    fit_linear_svm,
    landmark_kernel,
    nystroem_fold,
)
from krein.model_selection._selection import SearchResults, select_with_baseline


def _series(n=45, seed=0):
    """Cylinder–bell–funnel series cut to random lengths (DTW takes series of any lengths)."""
    X, y = make_cylinder_bell_funnel(n, length=40, random_state=seed)
    lengths = np.random.default_rng(seed).integers(30, 41, size=n)
    return [x[:k] for x, k in zip(X, lengths, strict=True)], y


def test_objects_in_gives_the_choice_and_predictions_of_the_precomputed_distance():
    series, y = _series()
    train, test = series[:36], series[36:]
    model = KreinClassifierCV(metric="dtw", cv=3, random_state=0, n_components=None).fit(train, y[:36])
    D = dtw_distances(train)
    reference = KreinClassifierCV(metric="precomputed", cv=3, random_state=0).fit(D, y[:36])
    assert model.best_params_ == reference.best_params_
    assert_array_equal(model.predict(test), reference.predict(dtw_distances(test, train)))
    assert_allclose(model.cv_results_["mean_test_score"], reference.cv_results_["mean_test_score"])
    assert model.n_distance_evaluations_ == 36 * 35 // 2  # each unordered pair once
    assert model.n_components_ is None and reference.n_distance_evaluations_ == 0


def test_metric_params_reach_the_metric():
    series, y = _series(30)
    model = KreinClassifierCV(
        metric="dtw", metric_params={"window": 3}, cv=3, methods=["k-NN"], random_state=0
    ).fit(series, y)
    D = dtw_distances(series, window=3)
    reference = KreinClassifierCV(metric="precomputed", cv=3, methods=["k-NN"], random_state=0).fit(D, y)
    assert_allclose(model.cv_results_["mean_test_score"], reference.cv_results_["mean_test_score"])


def test_a_fold_with_every_object_a_landmark_is_the_exact_normalized_kernel():
    series, y = _series(40)
    D = dtw_distances(series)
    landmarks = np.arange(40)
    rows = np.arange(0, 40, 2)
    for choice in (
        KernelChoice("g", lambda: GaussianOfDistance(gamma=0.5)),
        KernelChoice("dc", lambda: __import__("krein").dissimilarity.DoubleCentering(scale="median")),
    ):
        kernel = landmark_kernel(choice, D, landmarks)
        representation = nystroem_fold(kernel, rows)
        # the exact route: the transformer fitted on every object, the fold's block normalized
        transformer = choice.make().fit(D)
        K = KernelNormalizer().fit_transform(transformer.transform(D)[np.ix_(rows, rows)])
        exact = np.linalg.eigvalsh(K)
        exact = exact[np.abs(exact) > 1e-8 * np.abs(exact).max()]
        assert_allclose(np.sort(representation.values), np.sort(exact), atol=1e-8)
        # test rows: the coordinates reproduce the normalized test-versus-train kernel
        others = np.arange(1, 40, 2)
        U = representation.coordinates(kernel.rows(others))
        approx = U @ (representation.values[:, None] * representation.vectors.T)
        normalizer = KernelNormalizer().fit(transformer.transform(D)[np.ix_(rows, rows)])
        K_test = normalizer.transform(transformer.transform(D)[np.ix_(others, rows)])
        assert_allclose(approx, K_test, atol=1e-8)


@pytest.mark.parametrize("constrained", [False, True])
def test_the_low_rank_least_squares_with_every_object_a_landmark_are_the_exact_estimators(constrained):
    series, y = _series(42, seed=1)
    D = dtw_distances(series)
    choice = KernelChoice("g", lambda: GaussianOfDistance(gamma=1.0))
    kernel = landmark_kernel(choice, D, np.arange(42))
    train, test = np.arange(0, 42, 3), np.setdiff1d(np.arange(42), np.arange(0, 42, 3))
    representation = nystroem_fold(kernel, train)
    settings = [{"lambda_plus": 1e-1, "lambda_minus": 1e4}, {"lambda_plus": 1e-3, "lambda_minus": 1e-2}]
    models = fit_least_squares(representation, y[train], settings, np.unique(y), constrained=constrained)
    normalizer = KernelNormalizer()
    K = choice.make().fit(D).transform(D)
    K_train = normalizer.fit_transform(K[np.ix_(train, train)])
    K_test = normalizer.transform(K[np.ix_(test, train)])
    U = representation.coordinates(kernel.rows(test))
    estimator = VarianceConstrainedKreinClassifier if constrained else KreinRidgeClassifier
    for setting, model in zip(settings, models, strict=True):
        exact = estimator(kernel="precomputed", center=False, **setting).fit(K_train, y[train])
        assert_allclose(model.decision_function(U), exact.decision_function(K_test), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("spectrum", ["clip", "flip", "square"])
def test_the_low_rank_svm_minimizes_the_squared_hinge_on_the_treated_features(spectrum):
    # an independent solver (L-BFGS) on the explicit features Φ = Ũ g(λ) of the treated spectrum
    from scipy.optimize import minimize

    series, y = _series(60, seed=5)
    D = dtw_distances(series)
    landmarks = np.arange(0, 60, 2)
    choice = KernelChoice("dc", lambda: DoubleCentering(scale="median"))
    kernel = landmark_kernel(choice, D[:, landmarks], landmarks)
    train, test = np.arange(0, 60, 4), np.setdiff1d(np.arange(60), np.arange(0, 60, 4))
    train = np.union1d(train, np.arange(1, 60, 4))
    representation = nystroem_fold(kernel, train)
    assert (representation.values < 0).any()  # an indefinite kernel: clip drops a part
    scaling = TREATMENTS[spectrum](representation.values)
    features = representation.vectors[:, scaling > 0] * scaling[scaling > 0]
    U = representation.coordinates(kernel.rows(test))
    Phi_test = U[:, scaling > 0] * scaling[scaling > 0]
    settings = [{"C": 0.1}, {"C": 10.0}]
    classes = np.unique(y)
    models = fit_linear_svm(representation, y[train], settings, classes, spectrum=spectrum)
    for setting, model in zip(settings, models, strict=True):
        for t, label in enumerate(classes):  # one-vs-rest: a problem per class
            signs = np.where(y[train] == label, 1.0, -1.0)

            def objective(p, C=setting["C"], signs=signs):
                w, b = p[:-1], p[-1]
                slack = np.maximum(0.0, 1.0 - signs * (features @ w + b))
                gradient_w = w - 2.0 * C * features.T @ (signs * slack)
                return 0.5 * w @ w + C * slack @ slack, np.append(gradient_w, -2.0 * C * signs @ slack)

            start = np.zeros(features.shape[1] + 1)
            options = {"gtol": 1e-12, "ftol": 1e-15, "maxiter": 10_000}
            p = minimize(objective, start, jac=True, method="L-BFGS-B", options=options).x
            assert_allclose(model.decision_function(U)[:, t], Phi_test @ p[:-1] + p[-1], atol=1e-5)


def test_neighbours_on_the_held_out_landmarks_are_scikit_learns():
    series, y = _series(60, seed=2)
    D = dtw_distances(series)
    landmarks = np.arange(0, 60, 3)
    train, test = np.arange(30, 60), np.arange(0, 30)
    family = next(
        f
        for f in __import__("krein.model_selection._candidates", fromlist=["x"]).families_of(True)
        if f.on_distance
    )
    result = evaluate_neighbors_fold(
        family, D[:, landmarks], landmarks, y, train, test, lambda m, X, t: m.predict(X), np.unique(y)
    )
    held_out = landmarks[np.isin(landmarks, test)]
    for k, predictions in zip(family.settings(), result.scores[("distance", "k-NN")], strict=True):
        knn = KNeighborsClassifier(k["n_neighbors"], metric="precomputed").fit(
            D[np.ix_(train, train)], y[train]
        )
        assert_array_equal(predictions, knn.predict(D[np.ix_(held_out, train)]))


def test_the_low_rank_route_computes_only_the_block_to_the_landmarks():
    series, y = _series(80, seed=3)
    m = 20
    model = KreinClassifierCV(metric="dtw", n_components=m, cv=3, random_state=0).fit(series, y)
    assert model.n_components_ == m and model.landmark_indices_.shape == (m,)
    assert model.n_distance_evaluations_ == (80 - m) * m + m * (m - 1) // 2
    # the same landmarks on the precomputed matrix: the same choice and predictions
    D = dtw_distances(series)
    reference = KreinClassifierCV(metric="precomputed", n_components=m, cv=3, random_state=0).fit(D, y)
    assert_array_equal(reference.landmark_indices_, model.landmark_indices_)
    assert model.best_params_ == reference.best_params_
    new, _ = _series(12, seed=9)
    assert_allclose(model.predict(new), reference.predict(dtw_distances(new, series)))
    assert {"Kreĭn LS", "clip+SVC", "k-NN"} <= set(model.cv_results_["method"])
    assert "shift+SVC" not in set(model.cv_results_["method"])  # no low-rank form
    assert np.isfinite(model.cv_results_["mean_landmark_score"]).all()


def test_the_low_rank_route_learns_cylinder_bell_funnel():
    X, y = make_cylinder_bell_funnel(450, length=64, random_state=4)
    series = list(X)
    model = KreinClassifierCV(metric="dtw", n_components=60, cv=3, random_state=0)
    model.fit(series[:300], y[:300])
    error = np.mean(model.predict(series[300:]) != y[300:])
    D_test = dtw_distances(series[300:], series[:300])
    nearest = np.mean(y[:300][np.argmin(D_test, axis=1)] != y[300:])
    assert error <= nearest + 0.02, (error, nearest, model.best_params_)


def test_a_regressor_on_objects_at_low_rank():
    rng = np.random.default_rng(5)
    series = [np.sin(np.linspace(0, 3, 25) * f) for f in rng.uniform(1, 3, size=70)]
    y = np.array([s.sum() for s in series])
    model = KreinRegressorCV(metric="euclidean", n_components=25, cv=3, random_state=0).fit(series, y)
    assert model.score(series, y) > 0.9
    assert model.predict(series[:5]).shape == (5,)


def test_the_similarity_baseline_is_kept_unless_beaten_beyond_noise():
    folds = [(np.arange(80), np.arange(80, 100))] * 5
    results = SearchResults({"method": ["Kreĭn LS", "clip+SVC", "flip+SVC"], "kernel": ["k"] * 3})
    noisy = np.array([[0.9, 0.8, 0.95, 0.85, 0.9], [0.85, 0.85, 0.9, 0.85, 0.85], [0.8, 0.8, 0.8, 0.8, 0.8]])
    row, report = select_with_baseline(
        results, noisy, noisy.mean(axis=1), folds, baselines={"clip+SVC", "flip+SVC"}, margin=1.0
    )
    assert row == 1 and "clip+SVC kept" in report  # gain 0.02 ± 0.03: noise
    clear = noisy.copy()
    clear[0] = noisy[1] + 0.1
    row, report = select_with_baseline(
        results, clear, clear.mean(axis=1), folds, baselines={"clip+SVC", "flip+SVC"}, margin=1.0
    )
    assert row == 0 and "Kreĭn LS chosen" in report


def test_a_precomputed_similarity_keeps_clip_or_flip_within_noise():
    series, y = _series(60, seed=6)
    K = GaussianOfDistance().fit_transform(dtw_distances(series))
    model = KreinClassifierCV(kernel="precomputed", cv=3, random_state=0, baseline_margin=1e6).fit(K, y)
    assert model.best_params_["method"] in ("clip+SVC", "flip+SVC")


@pytest.mark.parametrize(
    ("params", "X", "message"),
    [
        ({"metric": "nope"}, None, "metric must be 'precomputed', a name of"),
        ({"metric": "dtw", "metric_params": {"widow": 3}}, None, "metric_params: metric 'dtw' takes no"),
        ({"metric": "dtw", "metric_params": {"window": 0}}, None, "window must be None"),
        ({"metric": "dtw"}, ["abc", "def", "ghi"] * 5, "X cannot be read by metric 'dtw'"),
        ({"metric": "dtw"}, [np.array([1.0, np.nan])] + [np.ones(3)] * 14, "NaN"),
        ({"metric": "dtw"}, [np.array([])] + [np.ones(3)] * 14, "X cannot be read"),
        ({"metric": lambda a, b: -1.0}, None, "a distance is finite and >= 0"),
        ({"metric": lambda a, b: float("nan")}, None, "a distance is finite and >= 0"),
        ({"metric": lambda a, b: 1 / 0}, None, "raised ZeroDivisionError"),
        ({"metric": lambda a, b: float(a[0] > b[0])}, None, "is not symmetric"),
        ({"metric": "precomputed", "metric_params": {"window": 2}}, None, "metric_params applies"),
    ],
)
def test_bad_input_is_one_clear_error_before_any_long_work(params, X, message):
    series, y = _series(15, seed=7)
    with pytest.raises((ValueError, TypeError), match=message):
        KreinClassifierCV(cv=3, **params).fit(series if X is None else X, y)


def test_test_objects_of_another_kind_and_too_many_landmarks():
    series, y = _series(30, seed=8)
    with pytest.warns(UserWarning, match="n_components=50 > n_samples=30"):
        model = KreinClassifierCV(metric="dtw", n_components=50, cv=3, random_state=0).fit(series, y)
    assert model.n_components_ == 30
    with pytest.raises((ValueError, TypeError), match="X cannot be read by metric 'dtw'"):
        model.predict(["a string"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert model.predict(series[:3]).shape == (3,)


def test_pairwise_registry_and_route_agree_on_a_callable():
    series, y = _series(24, seed=10)

    def l1(a, b):
        k = min(a.size, b.size)
        return float(np.abs(a[:k] - b[:k]).sum())

    model = KreinClassifierCV(metric=l1, cv=3, methods=["k-NN"], random_state=0).fit(series, y)
    D = pairwise_distances(series, metric=l1)
    reference = KreinClassifierCV(metric="precomputed", cv=3, methods=["k-NN"], random_state=0).fit(D, y)
    assert_allclose(model.cv_results_["mean_test_score"], reference.cv_results_["mean_test_score"])


@pytest.mark.slow
def test_on_a_local_cluster_the_route_equals_the_in_memory_fit():
    distributed = pytest.importorskip("dask.distributed")
    joblib = pytest.importorskip("joblib")
    X, y = make_cylinder_bell_funnel(160, length=32, random_state=11)
    series = list(X)
    common = dict(metric="dtw", n_components=30, cv=3, random_state=0, methods=["Kreĭn LS", "clip+SVC"])
    local = KreinClassifierCV(**common).fit(series[:120], y[:120])
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None)
    with distributed.Client(cluster) as client, joblib.parallel_config(backend="dask"):
        remote = KreinClassifierCV(**common).fit(series[:120], y[:120])
        assert len(client.scheduler_info()["workers"]) == 2
    cluster.close()
    assert remote.best_params_ == local.best_params_
    assert remote.n_distance_evaluations_ == local.n_distance_evaluations_
    assert_allclose(remote.decision_function(series[120:]), local.decision_function(series[120:]), atol=1e-10)


# -- several distances in one route -----------------------------------------------------------------


def _scores_by_kernel(model):
    r = model.cv_results_
    return {
        (r["kernel"][i], r["method"][i], str(r["params"][i])): r["mean_test_score"][i]
        for i in range(len(r["params"]))
    }


def test_several_distances_score_each_distance_as_its_own_route():
    series, y = _series(36, seed=12)
    metrics = [("dtw", {"window": 3}), "euclidean"]
    series = [s[:30] for s in series]  # one length: the Euclidean distance needs it
    common = dict(cv=3, random_state=0, methods=["Kreĭn LS", "clip+SVC", "k-NN"])
    several = KreinClassifierCV(metric=metrics, **common).fit(series, y)
    scores = _scores_by_kernel(several)
    for label, (metric, params) in (
        ("dtw(window=3)", ("dtw", {"window": 3})),
        ("euclidean", ("euclidean", None)),
    ):
        single = KreinClassifierCV(metric=metric, metric_params=params, **common).fit(series, y)
        for (kernel, method, params_), score in _scores_by_kernel(single).items():
            name = label if kernel == "distance" else f"{label}: {kernel}"
            assert scores[(name, method, params_)] == pytest.approx(score, abs=1e-12)
    assert several.n_distance_evaluations_ == 2 * 36 * 35 // 2
    kernels = set(several.cv_results_["kernel"])
    assert {"sum: Gaussian(γ=1·γ₀)", "sum: double-centred", "ensemble"} <= kernels
    assert several.predict(series[:5]).shape == (5,)


def test_the_kernel_sum_is_the_mean_of_the_normalized_kernels():
    from krein.model_selection._candidates import KernelSum, SelectDistance

    series, _ = _series(20, seed=13)
    S = np.stack([dtw_distances(series), dtw_distances(series, window=2)])
    total = KernelSum([GaussianOfDistance(), GaussianOfDistance()]).fit_transform(S)
    parts = [KernelNormalizer().fit_transform(GaussianOfDistance().fit_transform(D)) for D in S]
    assert_allclose(total, (parts[0] + parts[1]) / 2, atol=1e-14)
    assert_allclose(SelectDistance(1).fit_transform(S), S[1])


def test_the_vote_of_the_winners_weights_them_by_their_scores():
    from krein.model_selection._ensemble import VoteEnsemble, distance_winners, weighted_vote

    classes = np.array([0, 1, 2])
    votes = weighted_vote(
        [np.array([0, 1, 2]), np.array([1, 1, 2]), np.array([1, 0, 0])], [0.5, 0.3, 0.3], classes
    )
    assert_array_equal(votes, [1, 1, 2])  # 0.6 for 1 beats 0.5 for 0; 0.5 + 0.3 for 1; 0.8 for 2
    kernels = ["a", "a: g", "b: g", "b", "sum: g", "ensemble"]
    assert distance_winners(kernels, np.array([0.7, 0.8, 0.6, 0.9, 1.0, 1.0]), ["a", "b"]) == [1, 3]

    class Fixed:
        def __init__(self, labels):
            self.labels = labels

        def predict(self, S):
            return self.labels

    ensemble = VoteEnsemble([Fixed(np.array([2, 0])), Fixed(np.array([1, 0]))], [0.4, 0.6], classes)
    assert_array_equal(ensemble.predict(None), [1, 0])


@pytest.mark.parametrize(
    ("metric", "params", "message"),
    [
        (["dtw", "dtw"], {}, r"names \['dtw'\] more than once"),
        (["dtw"], {}, "at least two metrics"),
        (["dtw", "nope"], {}, "metric must be 'precomputed', a name of"),
        (["dtw", "precomputed"], {}, "not 'precomputed'"),
        (["dtw", "euclidean"], {"metric_params": {"window": 2}}, "give each metric's parameters in it"),
        (["dtw", "euclidean"], {"n_components": 10}, "several metrics are searched by the exact route only"),
    ],
)
def test_a_bad_metric_list_is_one_clear_error(metric, params, message):
    series, y = _series(15, seed=14)
    with pytest.raises(ValueError, match=message):
        KreinClassifierCV(metric=metric, cv=3, **params).fit([s[:30] for s in series], y)


def _fit_while_a_worker_dies(fit, delay, allowed_failures):
    """``(result or error, seconds)`` of ``fit()`` on a 2-worker ``LocalCluster`` (processes) whose first
    worker is killed (SIGKILL) ``delay`` seconds into the fit, and the cluster's scheduler address."""
    import os
    import signal
    import threading
    import time

    dask = pytest.importorskip("dask")
    distributed = pytest.importorskip("dask.distributed")
    config = {"distributed.scheduler.allowed-failures": allowed_failures}
    with (
        dask.config.set(config),
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        victim = sorted(client.scheduler_info()["workers"])[0]
        pid = client.run(os.getpid, workers=[victim])[victim]
        timer = threading.Timer(delay, os.kill, (pid, signal.SIGKILL))
        started = time.perf_counter()
        timer.start()
        try:
            outcome = fit(client)
        except Exception as error:  # the outcome under test
            outcome = error
        finally:
            timer.cancel()
        return outcome, time.perf_counter() - started, cluster.scheduler_address


def _streamed_ridge(client):
    import dask.array as da

    from krein.kernels import Sigmoid
    from krein.least_squares import KreinRidge

    rng = np.random.default_rng(0)
    X = rng.normal(size=(4000, 400))
    y = np.sin(X[:, 0])
    model = dict(kernel=Sigmoid(0.01), n_components=200, random_state=0)
    X_test = rng.normal(size=(30, 400))
    expected = KreinRidge(**model).fit(X, y).predict(X_test) if client is None else None
    if client is None:
        return expected
    fitted = KreinRidge(**model).fit(da.from_array(X, chunks=(100, 400)), y)
    return fitted.predict(X_test)


def _route_on_series(client):
    import joblib

    X, y = make_cylinder_bell_funnel(150, length=256, random_state=11)
    series = list(X)
    common = dict(metric="dtw", n_components=50, cv=3, random_state=0, methods=["Kreĭn LS", "clip+SVC"])
    if client is None:
        return KreinClassifierCV(**common).fit(series[:120], y[:120]).decision_function(series[120:])
    with joblib.parallel_config(backend="dask"):
        return KreinClassifierCV(**common).fit(series[:120], y[:120]).decision_function(series[120:])


@pytest.mark.slow
@pytest.mark.parametrize("allowed_failures", [0, 3], ids=["fails", "recomputes"])
@pytest.mark.parametrize("fit", [_streamed_ridge, _route_on_series], ids=["streamed-ridge", "route-dtw"])
def test_a_lost_worker_ends_the_fit_with_the_result_or_an_error_naming_the_cluster(fit, allowed_failures):
    """Issue 42: a worker killed during a fit on a cluster: Dask recomputes its tasks (the result then
    equals the in-memory fit), or, where it may not (``allowed-failures`` reached), the fit raises
    one error naming the cluster. Under joblib's dask backend the route waited for ever instead."""
    import time

    started = time.perf_counter()
    expected = fit(None)
    local_seconds = time.perf_counter() - started
    outcome, seconds, address = _fit_while_a_worker_dies(fit, 0.4 * local_seconds + 0.3, allowed_failures)
    assert seconds < 60
    if isinstance(outcome, Exception):
        assert address in str(outcome) and "lost" in str(outcome), outcome
    else:
        assert_allclose(outcome, expected, rtol=0, atol=1e-10 * np.abs(expected).max())

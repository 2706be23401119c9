"""A ``DistanceKernel`` without call-order state (issue 40, item 4): its scale and references are fixed
by an explicit fit (``fit``, ``fit_gram``), which every estimator, the Nyström producer and the
model-selection route call on their own copy; evaluating the kernel never changes it; and the outputs of
the estimators are those recorded before the change (``distance_kernel_cases.py``)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from distance_kernel_cases import RECORDED, cases
from numpy.testing import assert_allclose
from scipy.spatial.distance import cdist
from sklearn.exceptions import NotFittedError

import krein.kernels._distance  # where DistanceKernel looks its distances up: counted here
from krein.dissimilarity import pairwise_distances
from krein.kernels import DistanceKernel, pack_objects
from krein.least_squares import KreinRidge, SimilarityFeaturesRidge
from krein.model_selection._candidates import KernelRows
from krein.nystroem import nystroem_representation

#: (transform, relative) of every kind of DistanceKernel.
KINDS = [("gaussian", True), ("gaussian", False), ("double_centering", True), ("double_centering", False)]
RECORDED_OUTPUTS = json.loads(RECORDED.read_text())


def _points(seed=0, n=60):
    """Points with unequal spreads (so that no two statistics coincide by chance), and their packing."""
    rng = np.random.default_rng(seed)
    points = rng.normal(size=(n, 3)) * np.array([0.5, 1.0, 3.0])
    return points, pack_objects(list(points))


def _series(seed, n):
    rng = np.random.default_rng(seed)
    return [np.cumsum(rng.normal(size=k)) for k in rng.integers(12, 24, size=n)]


def _median_scale(gamma, D):
    """γ / median of the off-diagonal squared distances ``D`` (computed outside the kernel)."""
    return gamma / np.median(D[~np.eye(D.shape[0], dtype=bool)] ** 2)


@pytest.mark.filterwarnings("ignore")  # small problems: poor approximations, iteration limits
@pytest.mark.parametrize("name", sorted(RECORDED_OUTPUTS))
def test_estimators_reproduce_the_outputs_recorded_before_the_explicit_fit(name):
    """Every estimator that fits a DistanceKernel (exact; uniform, leverage and K-means++ landmarks;
    centred; double-centred; the route's exact and low-rank folds; kernel learning; similarity
    features) gives the outputs the code before the explicit fit gave, to 1e-12."""
    outputs = np.ravel(np.asarray(cases()[name](), dtype=float))
    expected = np.asarray(RECORDED_OUTPUTS[name])
    assert outputs.shape == expected.shape and np.ptp(expected) > 0
    assert_allclose(outputs, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("transform", "relative"), KINDS)
def test_a_value_does_not_depend_on_the_blocks_evaluated_before(transform, relative):
    """K(A, B), K(A) and diag(A) are the same, to the bit, before and after evaluating K(C), K(C, A)
    and diag(C) on other objects, symmetric blocks included (which used to fix the scale and the
    references when they came first); the fitted attributes stay the very objects fit set."""
    _, X = _points()
    kernel = DistanceKernel("euclidean", transform=transform, gamma=0.7, relative=relative).fit(X[:20])
    fitted = dict(vars(kernel))
    A, B, C = X[20:30], X[30:45], X[45:]
    before = kernel(A, B), kernel(A), kernel.diag(A), kernel(X[:20])
    kernel(C), kernel(C, A), kernel.diag(C), kernel(B)
    after = kernel(A, B), kernel(A), kernel.diag(A), kernel(X[:20])
    for first, second in zip(before, after, strict=True):
        assert np.array_equal(first, second)
    assert vars(kernel).keys() == fitted.keys()
    assert all(vars(kernel)[key] is value for key, value in fitted.items())
    assert not np.allclose(before[0], DistanceKernel("euclidean", transform=transform).fit(C)(A, B))


@pytest.mark.parametrize(("transform", "relative"), KINDS)
def test_the_fitted_statistics_are_those_of_the_reference_distances(transform, relative):
    """``gamma_`` is gamma over the median off-diagonal squared distance between the references
    (relative) or gamma; the double centring's ``reference_sq_means_`` and ``grand_sq_mean_`` are the
    column means and the mean of ``γ D²``; ``K(A, B)`` is then the independent formula: exp(−γ D²), or
    ``−½ (γ D² − μ(a) − μ(b) + μ̄)`` (for the Euclidean distance, also ``γ (a − z̄)ᵀ(b − z̄)``)."""
    points, X = _points(1)
    Z, A, B = slice(0, 25), slice(25, 40), slice(40, 60)
    kernel = DistanceKernel("euclidean", transform=transform, gamma=0.7, relative=relative).fit(X[Z])
    D_ZZ = cdist(points[Z], points[Z])
    gamma = _median_scale(0.7, D_ZZ) if relative else 0.7
    assert kernel.gamma_ == pytest.approx(gamma, rel=1e-14)
    S_AB = gamma * cdist(points[A], points[B]) ** 2
    if transform == "gaussian":
        assert not hasattr(kernel, "reference_")
        assert_allclose(kernel(X[A], X[B]), np.exp(-S_AB), rtol=1e-13)
        return
    means = np.mean(gamma * D_ZZ**2, axis=0)
    assert kernel.reference_ is not None and np.array_equal(kernel.reference_, X[Z])
    assert_allclose(kernel.reference_sq_means_, means, rtol=1e-13)
    assert kernel.grand_sq_mean_ == pytest.approx(means.mean(), rel=1e-13)
    mu_A = np.mean(gamma * cdist(points[A], points[Z]) ** 2, axis=1)
    mu_B = np.mean(gamma * cdist(points[B], points[Z]) ** 2, axis=1)
    expected = -0.5 * (S_AB - mu_A[:, None] - mu_B[None, :] + means.mean())
    centred = points - points[Z].mean(axis=0)
    assert_allclose(expected, gamma * centred[A] @ centred[B].T, atol=1e-11)
    assert_allclose(kernel(X[A], X[B]), expected, atol=1e-11 * np.abs(expected).max())


@pytest.mark.parametrize(("transform", "relative"), KINDS)
def test_fit_gram_is_fit_then_the_block_from_one_evaluation_of_the_distances(
    monkeypatch, transform, relative
):
    """``fit_gram(Z)`` returns ``fit(Z)(Z)`` to the bit and sets the same attributes, from one distance
    evaluation D(Z) (``fit`` then ``K(Z)`` takes two, or one for the Gaussian of a fixed scale, which
    learns nothing from Z)."""
    series = _series(3, 30)
    calls = []

    def counting(A, B=None, **kwargs):
        calls.append((len(A), None if B is None else len(B)))
        return pairwise_distances(A, B, **kwargs)

    monkeypatch.setattr(krein.kernels._distance, "pairwise_distances", counting)
    kernel = DistanceKernel("dtw", transform=transform, relative=relative)
    K = kernel.fit_gram(series)
    assert calls == [(30, None)]
    calls.clear()
    other = DistanceKernel("dtw", transform=transform, relative=relative).fit(series)
    assert len(calls) == (1 if relative or transform == "double_centering" else 0)
    assert np.array_equal(other(series), K)
    assert vars(kernel).keys() == vars(other).keys()
    assert kernel.gamma_ == other.gamma_
    assert np.ptp(K) > 0


def test_an_unfitted_kernel_needs_fit_unless_its_scale_is_fixed():
    """Before a fit, evaluating a kernel that needs reference objects (relative=True, or the double
    centring) is a NotFittedError naming ``fit``, raised before any distance is computed; the Gaussian
    with relative=False is defined without one and equals its fitted self."""
    series = _series(4, 12)
    for transform, relative in (("gaussian", True), ("double_centering", True), ("double_centering", False)):
        kernel = DistanceKernel("dtw", transform=transform, relative=relative)
        for evaluate in (kernel, lambda objects, k=kernel: k(objects[:3], objects), kernel.diag):
            with pytest.raises(
                NotFittedError, match=r"not fitted: call kernel\.fit\(Z\) \(or kernel\.fit_gram"
            ):
                evaluate(series)
        assert not hasattr(kernel, "gamma_")  # a failed evaluation fits nothing either
    fixed = DistanceKernel("dtw", gamma=0.05, relative=False)
    D = pairwise_distances(series[:3], series, metric="dtw")
    assert_allclose(fixed(series[:3], series), np.exp(-0.05 * D**2), rtol=1e-15)
    refitted = DistanceKernel("dtw", gamma=0.05, relative=False).fit(series[5:])
    assert np.array_equal(fixed(series[:3], series), refitted(series[:3], series))


def test_estimators_fit_their_own_copy_to_their_references():
    """An exact fit's kernel is fitted to the training objects; a low-rank fit's to the first uniform
    sample: the landmarks, or the sketch the leverage and K-means++ samplers draw first (with
    ``random_state=s`` the sorted ``RandomState(s).choice(n, m)``), whose objects are then the double
    centring's references. The estimator's ``kernel_`` is the representation's; the user's kernel
    stays unfitted."""
    series = _series(5, 50)
    X = pack_objects(series)
    y = np.array([s[-1] for s in series])
    D = pairwise_distances(series, metric="dtw")
    kernel = DistanceKernel("dtw", gamma=2.0)
    exact = KreinRidge(kernel=kernel).fit(series, y)
    assert exact.kernel_.gamma_ == pytest.approx(_median_scale(2.0, D), rel=1e-14)
    uniform = KreinRidge(kernel=kernel, n_components=12, random_state=0).fit(series, y)
    Z = uniform.landmark_indices_
    assert uniform.kernel_.gamma_ == pytest.approx(_median_scale(2.0, D[np.ix_(Z, Z)]), rel=1e-14)
    for method, seed in (("leverage", 1), ("kmeans++", 2)):
        centred = DistanceKernel("dtw", transform="double_centering")
        model = KreinRidge(kernel=centred, n_components=12, landmarks=method, random_state=seed).fit(X, y)
        sketch = np.sort(np.random.RandomState(seed).choice(50, 12, replace=False))
        assert not np.array_equal(sketch, model.landmark_indices_)
        assert model.kernel_.gamma_ == pytest.approx(_median_scale(1.0, D[np.ix_(sketch, sketch)]), rel=1e-14)
        assert np.array_equal(model.kernel_.reference_, X[sketch])
        assert model.representation_.kernel is model.kernel_
        assert not hasattr(centred, "gamma_") and not hasattr(centred, "reference_")
    assert not hasattr(kernel, "gamma_")


def test_representations_of_one_kernel_object_do_not_share_a_fit():
    """``nystroem_representation`` fits a copy: the kernel given stays unfitted, and a second
    representation made from the same kernel object on other data leaves the first one's kernel,
    and so its outputs, unchanged."""
    series = _series(6, 80)
    X = pack_objects(series)
    kernel = DistanceKernel("dtw", transform="double_centering")
    first, _ = nystroem_representation(kernel, X[:40], n_components=10, random_state=0, warn_poor=False)
    rows = first.rows(X[60:])
    second, _ = nystroem_representation(kernel, X[40:], n_components=10, random_state=0, warn_poor=False)
    assert not hasattr(kernel, "reference_")
    assert first.kernel is not second.kernel
    assert np.array_equal(first.rows(X[60:]), rows)
    assert not np.allclose(second.rows(X[60:]), rows)


def test_kernel_rows_fit_a_copy_of_their_kernel():
    """The route's kernel rows (a kernel object's candidate) fit ``kernel_`` to their training points,
    the landmarks on the low-rank route, and leave their ``kernel`` parameter unfitted."""
    points, X = _points(7)
    rows = KernelRows(DistanceKernel("euclidean", gamma=0.3))
    K = rows.fit_transform(X[:20])
    assert not hasattr(rows.kernel, "gamma_")
    assert rows.kernel_.gamma_ == pytest.approx(
        _median_scale(0.3, cdist(points[:20], points[:20])), rel=1e-14
    )
    assert_allclose(K, np.exp(-rows.kernel_.gamma_ * cdist(points[:20], points[:20]) ** 2), rtol=1e-13)
    expected = np.exp(-rows.kernel_.gamma_ * cdist(points[20:], points[:20]) ** 2)
    assert_allclose(rows.transform(X[20:]), expected, rtol=1e-13)


def test_similarity_features_fit_the_kernel_to_their_prototypes():
    """``SimilarityFeaturesRidge`` fits its kernel to its prototypes (before: a relative DistanceKernel
    was an error there): the scale is the prototypes' median, and the model is the one fitted on the
    precomputed kernel of that scale."""
    points, X = _points(8, 80)
    y = points @ np.array([1.0, -2.0, 0.5])
    model = SimilarityFeaturesRidge(
        kernel=DistanceKernel("euclidean", gamma=0.5), n_components=20, random_state=0
    )
    model.fit(X[:60], y[:60])
    prototypes = points[model.prototype_indices_]
    gamma = _median_scale(0.5, cdist(prototypes, prototypes))
    assert model.kernel_.gamma_ == pytest.approx(gamma, rel=1e-14)
    precomputed = SimilarityFeaturesRidge(kernel="precomputed", n_components=20, random_state=0)
    precomputed.fit(np.exp(-gamma * cdist(points[:60], points[:60]) ** 2), y[:60])
    expected = precomputed.predict(np.exp(-gamma * cdist(points[60:], points[:60]) ** 2))
    assert_allclose(model.predict(X[60:]), expected, rtol=1e-10, atol=1e-10 * np.abs(expected).max())


def test_a_sum_of_distance_kernels_fits_each_of_them():
    """``Kernel.fit`` fits the sub-kernels: a sum of two DistanceKernels fitted to Z is the sum of
    the two fitted to Z, on the references (``fit_gram``) and on other objects."""
    _, X = _points(9)
    gaussian = DistanceKernel("euclidean", gamma=0.5)
    centred = DistanceKernel("euclidean", transform="double_centering")
    total = gaussian + centred
    K = total.fit_gram(X[:20])
    assert gaussian.gamma_ > 0 and np.array_equal(centred.reference_, X[:20])
    assert_allclose(K, gaussian(X[:20]) + centred(X[:20]), atol=1e-13)
    assert_allclose(
        total(X[20:40], X[40:]), gaussian(X[20:40], X[40:]) + centred(X[20:40], X[40:]), atol=1e-13
    )

"""Spectral toolkit: eigendecomposition, ι, Kreĭn decomposition and spectrum transformations."""

import numpy as np
import pytest
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.svm import SVC

from krein.kernels import DeltaGaussian, Sigmoid
from krein.representation import SpectralRepresentation
from krein.spectral import (
    SpectrumTransformer,
    eigendecompose,
    indefiniteness,
    krein_decomposition,
    spectrum_summary,
)

RNG = np.random.default_rng(0)
DATA = RNG.normal(size=(60, 3))
KERNEL = Sigmoid(1.2)
K_ALL = KERNEL(DATA)
TRAIN, TEST = slice(0, 45), slice(45, 60)
K_TRAIN, K_TEST = K_ALL[TRAIN, TRAIN], K_ALL[TEST, TRAIN]


def reference_transform(K, f):
    """U f(Λ) Uᵀ by NumPy's own symmetric eigensolver (independent of krein)."""
    values, vectors = np.linalg.eigh(K)
    return (vectors * f(values)) @ vectors.T


def test_eigendecompose_reconstructs_and_orders():
    values, vectors = eigendecompose(K_TRAIN)
    assert np.all(np.diff(values) >= 0)
    np.testing.assert_allclose((vectors * values) @ vectors.T, K_TRAIN, atol=1e-12)
    np.testing.assert_allclose(vectors.T @ vectors, np.eye(len(values)), atol=1e-12)


def test_eigendecompose_rejects_asymmetric_and_non_square():
    with pytest.raises(ValueError, match="symmetric"):
        eigendecompose(K_TRAIN + np.triu(np.ones_like(K_TRAIN)) * 1e-3)
    with pytest.raises(ValueError, match="square"):
        eigendecompose(K_TEST)
    bad = K_TRAIN.copy()
    bad[0, 0] = np.inf
    with pytest.raises(ValueError, match="NaN or infinity"):
        eigendecompose(bad)


def test_indefiniteness_values():
    assert indefiniteness(np.array([3.0, -1.0, 0.0])) == pytest.approx(0.25)
    assert indefiniteness(np.diag([1.0, 2.0])) == 0.0
    assert indefiniteness(-np.eye(3)) == 1.0
    with pytest.raises(ValueError, match="zero"):
        indefiniteness(np.zeros((3, 3)))
    values = np.linalg.eigvalsh(K_TRAIN)
    assert indefiniteness(K_TRAIN) == pytest.approx(np.abs(values[values < 0]).sum() / np.abs(values).sum())


def test_spectrum_summary_counts():
    summary = spectrum_summary(np.array([-2.0, 0.0, 1.0, 3.0]))
    assert summary == {
        "n": 4,
        "min_eigenvalue": -2.0,
        "max_eigenvalue": 3.0,
        "n_positive": 2,
        "n_negative": 1,
        "indefiniteness": pytest.approx(2 / 6),
    }


def test_krein_decomposition():
    K_plus, K_minus = krein_decomposition(K_TRAIN)
    np.testing.assert_allclose(K_plus - K_minus, K_TRAIN, atol=1e-12)
    assert np.linalg.eigvalsh(K_plus).min() > -1e-10
    assert np.linalg.eigvalsh(K_minus).min() > -1e-10
    np.testing.assert_allclose(K_plus @ K_minus, 0.0, atol=1e-10)


SPECTRAL_MAPS = {
    "clip": lambda v: np.maximum(v, 0),
    "flip": np.abs,
    "shift": lambda v: v - min(v.min(), 0),
    "square": lambda v: v**2,
    "none": lambda v: v,
}


@pytest.mark.parametrize("method", sorted(SPECTRAL_MAPS))
def test_training_transform_equals_reference(method):
    transformed = SpectrumTransformer(method).fit_transform(K_TRAIN)
    np.testing.assert_allclose(transformed, reference_transform(K_TRAIN, SPECTRAL_MAPS[method]), atol=1e-10)
    if method != "none":
        assert indefiniteness(transformed) < 1e-12


@pytest.mark.parametrize("method", ["clip", "flip"])
def test_training_rows_as_test_rows_reproduce_training_transform(method):
    transformer = SpectrumTransformer(method).fit(K_TRAIN)
    np.testing.assert_allclose(transformer.transform(K_TRAIN), transformer.fit_transform(K_TRAIN), atol=1e-10)


def test_shift_and_square_follow_the_joint_matrix_heuristic():
    """Wu et al. (2005): transform the (n+1)×(n+1) matrix with the test point, keep its test row."""
    square = SpectrumTransformer("square").fit(K_TRAIN)
    shift = SpectrumTransformer("shift").fit(K_TRAIN)
    diagonal = KERNEL.diag(DATA[TEST])
    for i, row in enumerate(K_TEST):
        joint = np.block([[K_TRAIN, row[:, None]], [row[None, :], diagonal[i]]])
        np.testing.assert_allclose(
            square.transform(row[None], diagonal=diagonal[i : i + 1])[0], (joint @ joint)[-1, :-1], atol=1e-10
        )
        shifted = reference_transform(joint, SPECTRAL_MAPS["shift"])
        np.testing.assert_allclose(shift.transform(row[None])[0], shifted[-1, :-1], atol=1e-10)


def test_transform_validates_width():
    transformer = SpectrumTransformer("flip").fit(K_TRAIN)
    with pytest.raises(ValueError, match="one column per training sample"):
        transformer.transform(K_TEST[:, :10])


def test_pipeline_with_svc_under_cross_validation():
    y = (DATA[:, 0] + 0.3 * DATA[:, 1] > 0).astype(int)
    pipeline = make_pipeline(SpectrumTransformer("clip"), SVC(kernel="precomputed"))
    scores = cross_val_score(pipeline, K_ALL, y, cv=3)
    assert scores.shape == (3,) and scores.mean() > 0.7


def test_exact_spectral_representation_drops_null_space():
    low_rank = DeltaGaussian()(DATA[:5])  # rank ≤ 5 after embedding in a larger zero matrix
    K = np.zeros((8, 8))
    K[:5, :5] = low_rank
    representation = SpectralRepresentation.exact(K)
    assert representation.rank <= 5
    np.testing.assert_allclose(
        (representation.vectors * representation.values) @ representation.vectors.T, K, atol=1e-12
    )
    coef = RNG.normal(size=representation.rank)
    np.testing.assert_allclose(
        K @ representation.dual_coef(coef),
        representation.vectors @ (representation.values * coef),
        atol=1e-12,
    )
    np.testing.assert_allclose(representation.project(np.ones(8)), representation.vectors.T @ np.ones(8))

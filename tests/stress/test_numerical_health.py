"""Numerical-health warnings: where a model becomes ill-posed, krein warns with the offending quantity
instead of returning a quietly degraded fit.

* the optimal multiplier μ* of the secular equation at the end of its interval (variance-constrained
  Kreĭn least squares, Oglic & Gärtner 2018, Sec. 3.1 and Appendix B: the hard case);
* a singular or ill-conditioned Nyström landmark block K_ZZ (Oglic & Gärtner 2019, Eq. 3);
* a positive decomposition K = K₊ − K₋ whose K₊ vanishes (IKLR, Liu et al. 2019, Sec. III).
"""

import re
import warnings

import numpy as np
import pytest


def spectral_kernel(values, random_state=0):
    """``K = U diag(values) Uᵀ`` with a random orthogonal ``U``; returns ``(K, U)``."""
    rng = np.random.default_rng(random_state)
    U, _ = np.linalg.qr(rng.standard_normal((len(values), len(values))))
    K = (U * np.asarray(values, dtype=float)) @ U.T
    return 0.5 * (K + K.T), U


def no_warning(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return function(*args, **kwargs)


class TestSecularMultiplierAtTheEndOfItsInterval:
    """With λ₊ = λ₋ = λ the weights of (†) are w = nλ/|σ|, smallest for the eigenvalue of largest
    magnitude; targets orthogonal to its eigenvector and a radius too large for any interior root put
    μ* exactly at w_min = nλ/max|σ| (the hard case of Appendix B)."""

    values = [-3.0, -1.0, -0.5, 0.5, 1.0, 2.0, 3.0, 4.0]

    def fit(self, coordinates, radius):
        from krein.least_squares import VarianceConstrainedKrein

        K, U = spectral_kernel(self.values)
        model = VarianceConstrainedKrein(
            kernel="precomputed", center=False, radius=radius, lambda_plus=1e-2, lambda_minus=1e-2
        )
        return model, K, U @ coordinates

    def test_hard_case_warns_with_the_multiplier(self):
        coordinates = np.random.default_rng(1).standard_normal(8)
        coordinates[-1] = 0.0  # orthogonal to the eigenvector of σ = 4
        model, K, y = self.fit(coordinates, radius=100.0)
        with pytest.warns(UserWarning, match="Lagrange multiplier") as record:
            model.fit(K, y)
        message = str(record[0].message)
        expected = 8 * 1e-2 / 4.0  # w_min = nλ / max|σ|
        assert model.hard_case_ and model.multiplier_ == pytest.approx(expected, rel=1e-12)
        shown = float(re.search(r"μ\* = \[?([-0-9.e+]+)", message).group(1))
        assert shown == pytest.approx(model.multiplier_, rel=1e-6)
        # the fit itself is still the constrained optimum: finite and on the constraint
        predictions = model.predict(K)
        assert np.all(np.isfinite(predictions))
        assert np.sqrt(np.mean(predictions**2)) == pytest.approx(100.0, rel=1e-8)

    def test_interior_root_does_not_warn(self):
        coordinates = np.random.default_rng(1).standard_normal(8)
        model, K, y = self.fit(coordinates, radius=100.0)
        no_warning(model.fit, K, y)
        assert not model.hard_case_


class TestSingularLandmarkBlock:
    """Duplicated landmarks make K_ZZ exactly singular; the pseudo-inverse drops one eigenvalue per
    duplicate, and the warning says how many and how ill-conditioned the block was."""

    def test_duplicate_landmarks_warn_with_the_count_and_condition_number(self):
        from krein.kernels import Sigmoid
        from krein.nystroem import IndefiniteNystroem

        points = np.random.default_rng(0).standard_normal((6, 3))
        X = np.vstack([points, points])
        model = IndefiniteNystroem(kernel=Sigmoid(1.0), n_components=12, random_state=0)
        with pytest.warns(UserWarning, match="K_ZZ is singular") as record:
            model.fit(X)
        message = str(record[0].message)
        assert "6 of its 12 eigenvalues" in message and "rank 6" in message
        condition = float(re.search(r"condition number ([0-9.e+]+)", message).group(1))
        assert condition > 1e12
        # what is kept is exact: the six distinct points span the landmark functionals
        np.testing.assert_allclose(model.approximate_kernel(X), Sigmoid(1.0)(X), atol=1e-9)

    def test_distinct_landmarks_do_not_warn(self):
        from krein.kernels import Sigmoid
        from krein.nystroem import IndefiniteNystroem

        X = np.random.default_rng(0).standard_normal((12, 3))
        no_warning(IndefiniteNystroem(kernel=Sigmoid(1.0), n_components=6, random_state=0).fit, X)


class TestVanishingPositivePart:
    """A negative definite kernel has K₊ = τI in the positive decomposition of Liu et al. (Sec. III):
    nothing of the spectrum is positive, and IKLR's objective (6) is unbounded below."""

    def test_negative_definite_kernel_warns_with_the_largest_eigenvalue(self):
        from krein.logistic import IndefiniteLogisticRegression

        values = -np.linspace(0.5, 3.0, 10)
        K, _ = spectral_kernel(values)
        y = np.array([0, 1] * 5)
        model = IndefiniteLogisticRegression(
            kernel="precomputed", center=False, max_outer_iter=3, random_state=0
        )
        with pytest.warns(UserWarning, match="K₊ .* vanishes") as record:
            model.fit(K, y)
        message = str(record[0].message)
        largest = float(re.search(r"largest eigenvalue is ([-0-9.e+]+)", message).group(1))
        assert largest == pytest.approx(-0.5, rel=1e-3)
        assert "Σμ⁺/Σ|μ| is 0" in message
        assert np.all(np.isfinite(model.decision_function(K)))

    def test_indefinite_kernel_with_a_positive_part_does_not_warn(self):
        from krein.logistic import IndefiniteLogisticRegression

        K, _ = spectral_kernel(np.linspace(-1.0, 3.0, 10))
        y = np.array([0, 1] * 5)
        no_warning(IndefiniteLogisticRegression(kernel="precomputed", max_outer_iter=3).fit, K, y)

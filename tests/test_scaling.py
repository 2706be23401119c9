"""krein._scaling: powers of two near the data, and the scale of regression targets."""

import numpy as np
import pytest

from krein._scaling import power_of_two_unit, target_statistics


def test_power_of_two_unit_is_one_inside_the_range_and_exact_outside():
    assert power_of_two_unit(3.0, 2.0**-100, 2.0**100) == 1.0
    for largest in (1e160, 1e-170, 7.5e300):
        unit = power_of_two_unit(largest, 2.0**-100, 2.0**100)
        assert 0.5 <= largest / unit < 1.0 and np.frexp(unit)[0] == 0.5  # a power of two
    assert power_of_two_unit(0.0, 1.0, 2.0) == power_of_two_unit(np.inf, 1.0, 2.0) == 1.0


def test_target_statistics_are_the_mean_and_standard_deviation():
    y = np.random.default_rng(0).standard_normal(50) * 3.0 + 1.0
    mean, scale = target_statistics(y)
    assert mean == pytest.approx(np.mean(y), rel=1e-15) and scale == pytest.approx(np.std(y), rel=1e-15)
    assert target_statistics(y, center=False) == (0.0, pytest.approx(np.sqrt(np.mean(y**2)), rel=1e-15))
    Y = y.reshape(25, 2)  # one scale over all targets: the root mean square of Y less its column means
    means, scale = target_statistics(Y)
    np.testing.assert_allclose(means, Y.mean(axis=0), rtol=1e-15)
    assert scale == pytest.approx(np.sqrt(np.mean((Y - Y.mean(axis=0)) ** 2)), rel=1e-15)


@pytest.mark.parametrize("factor", [1e-170, 1e-3, -2.5, 1e3, 1e160, 1e300])
def test_target_statistics_are_proportional_to_the_targets_at_any_scale(factor):
    """Formed in units of powers of two: targets near 1e±160 (whose squares leave double precision)
    give the mean and standard deviation of the unscaled ones times the factor (|factor|)."""
    y = np.random.default_rng(1).standard_normal((40, 3))
    means, scale = target_statistics(y)
    scaled_means, scaled_scale = target_statistics(factor * y)
    np.testing.assert_allclose(scaled_means, factor * means, rtol=1e-14)
    assert scaled_scale == pytest.approx(abs(factor) * scale, rel=1e-14)


@pytest.mark.parametrize("value", [3.0, -0.1, 3e200, 1e-300])
def test_constant_targets_have_their_magnitude_as_scale(value):
    """A spread at rounding level of the mean (the mean of 7 copies of 0.1 is not 0.1) is no spread:
    the scale is the targets' magnitude, proportional to them, not rounding noise; zeros give 1."""
    mean, scale = target_statistics(np.full(7, value))
    assert mean == pytest.approx(value, rel=1e-15) and scale == pytest.approx(abs(value), rel=1e-15)
    assert target_statistics(np.zeros(5)) == (0.0, 1.0)

"""Exact rescaling by a power of two, and the scale of regression targets, for values near the ends
of the floating-point range.

Squares of values near 1e155 overflow and those of values near 1e-170 underflow. Dividing the data by
a power of two near its largest magnitude changes no digit (only the exponent), so a computation on
the rescaled data, scaled back, is the computation on the data whenever that one stays in range; the
kernels, distances, least-squares targets and proxy-SVM kernels call :func:`power_of_two_unit` before
forming squares. Inside the safe range the unit is 1 and nothing changes, bit for bit.

An iterative method whose steps or stopping rule see the size of its objective (a gradient step of
fixed length, an absolute gradient tolerance) does not give the same model for targets in other
units, even where nothing overflows. Those estimators solve in units of :func:`target_statistics`'
scale, which is proportional to the targets (not a power of two): targets ``s·y`` give the problem
of ``y`` to rounding, for every ``s`` double precision holds.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["SAFE_RANGE", "power_of_two_unit", "target_statistics"]

#: Magnitudes outside this range are divided by a power of two near them before squares are formed.
SAFE_RANGE = (2.0**-100, 2.0**100)


def power_of_two_unit(largest, low, high):
    """``2^e`` with ``largest = m·2^e``, ``½ ≤ m < 1`` (so ``largest / 2^e ∈ [½, 1)``) when the largest
    magnitude ``largest`` lies outside ``[low, high]``; 1.0 inside it, and for 0, NaN or infinity
    (nothing to rescale)."""
    largest = float(largest)
    if largest == 0.0 or not math.isfinite(largest) or low <= largest <= high:
        return 1.0
    return math.ldexp(1.0, math.frexp(largest)[1])


def _root_mean_square(values):
    """``√mean(values²)``, formed in units of a power of two near the largest magnitude (0 if empty)."""
    if not values.size:
        return 0.0
    unit = power_of_two_unit(np.max(np.abs(values)), *SAFE_RANGE)
    return unit * float(np.sqrt(np.mean(np.square(values / unit))))


def target_statistics(Y, *, center=True):
    """``(means, scale)`` of real targets ``Y`` of shape (n,) or (n, t), without over- or underflow.

    ``means`` are the column means (zeros with ``center=False``) and ``scale`` the root mean square of
    ``Y − means`` over all entries (the standard deviation for one target); for constant targets
    (a spread at the rounding level of the means, n·eps·max|means|, as scikit-learn's
    ``StandardScaler`` decides), the root mean square of ``Y`` itself, and 1 for targets that are all
    zero. Both are formed in units of powers of two (exact), so targets near 1e160 or 1e-170 give them
    in range, and they are proportional to the targets: ``s·Y`` gives ``(s·means, |s|·scale)`` to
    rounding.
    """
    Y = np.asarray(Y, dtype=np.float64)
    unit = power_of_two_unit(np.max(np.abs(Y), initial=0.0), *SAFE_RANGE)
    Z = Y / unit
    means = Z.mean(axis=0) if center and Z.size else np.zeros(Z.shape[1:])
    spread = _root_mean_square(Z - means)
    if spread <= len(Z) * np.finfo(float).eps * np.max(np.abs(means), initial=0.0):
        spread = _root_mean_square(Z) or 1.0
    return means * unit, spread * unit

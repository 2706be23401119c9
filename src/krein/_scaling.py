"""Exact rescaling by a power of two, for values near the ends of the floating-point range.

Squares of values near 1e155 overflow and those of values near 1e-170 underflow. Dividing the data by
a power of two near its largest magnitude changes no digit (only the exponent), so a computation on
the rescaled data, scaled back, is the computation on the data whenever that one stays in range; the
kernels, distances, least-squares targets and proxy-SVM kernels call :func:`power_of_two_unit` before
forming squares. Inside the safe range the unit is 1 and nothing changes, bit for bit.
"""

from __future__ import annotations

import math

__all__ = ["power_of_two_unit"]


def power_of_two_unit(largest, low, high):
    """``2^e`` with ``largest = m·2^e``, ``½ ≤ m < 1`` (so ``largest / 2^e ∈ [½, 1)``) when the largest
    magnitude ``largest`` lies outside ``[low, high]``; 1.0 inside it, and for 0, NaN or infinity
    (nothing to rescale)."""
    largest = float(largest)
    if largest == 0.0 or not math.isfinite(largest) or low <= largest <= high:
        return 1.0
    return math.ldexp(1.0, math.frexp(largest)[1])

"""Penalties relative to the kernel's scale: the ``"auto"`` default of every Kreĭn estimator.

Multiplying a kernel by ``c > 0`` multiplies its eigenvalues by ``c``; a model with penalty ``λ`` on
``K`` is the model with penalty ``cλ`` on ``cK`` (ridge-type penalties λ₊, λ₋ and α scale with the
kernel, an SVM cost C against it). A fixed number as a default therefore gives a different model on
the same data measured in other units. ``"auto"`` resolves the penalty at fit time as a default
multiple of the kernel's scale

    s = Σᵢ |σᵢ| / n,

the mean absolute eigenvalue of the kernel the model learns with — the (centred, if the estimator
centres) training kernel, or its Nyström approximation K̃ for a low-rank model (equal to it when every
point is a landmark) — its trace over n for a positive semidefinite kernel, 1 for a Gaussian; computed
from the eigendecomposition the fit does anyway. The same estimator then gives the same predictions
on ``K``, ``1e3·K`` and ``1e-3·K``. A number given by the user keeps its absolute meaning (the
papers' grids, scikit-learn's ``SVC(C=...)``). The naming table in ``docs/developer.md`` lists each
estimator's rule.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

__all__ = ["AUTO", "PENALTY_CONSTRAINT", "kernel_scale", "penalty", "start_value"]

AUTO = "auto"

#: The parameter constraint of a penalty: a positive number or ``"auto"``.
PENALTY_CONSTRAINT = [Interval(Real, 0, None, closed="neither"), StrOptions({AUTO})]


def kernel_scale(eigenvalues, n_samples):
    """``s = Σ|σᵢ| / n``: the mean absolute eigenvalue of an n × n kernel given its (retained)
    eigenvalues (a low-rank representation's approximate ones)."""
    return float(np.sum(np.abs(eigenvalues))) / float(n_samples)


def penalty(value, default, scale, *, inverse=False):
    """The penalty a fit uses: ``value`` if a number, else ``default · s`` (``default / s`` for an SVM
    cost, ``inverse=True``)."""
    if isinstance(value, str):
        if not (scale > 0 and np.isfinite(scale)):
            raise ValueError(f'The kernel\'s scale s = Σ|σ|/n is {scale!r}: an "auto" penalty needs s > 0.')
        return default / scale if inverse else default * scale
    return float(value)


def start_value(value, default):
    """A penalty as a number before any fit (the start of a hyperparameter search): ``default`` for
    ``"auto"``, where the kernel's scale is not known yet."""
    return default if isinstance(value, str) else float(value)

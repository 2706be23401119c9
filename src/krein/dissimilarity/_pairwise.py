"""One entry point over every distance: ``pairwise_distances(A, B, metric=...)``."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._memory import MemoryBudget
from ._blocks import Metric, evaluate
from ._elastic import ELASTIC_METRICS
from ._images import Tangent
from ._pointsets import Hausdorff
from ._spd import AffineInvariant, LogEuclidean
from ._strings import Edit
from ._timeseries import DTW
from ._vectors import Euclidean

__all__ = ["METRICS", "pairwise_distances"]

#: The shipped distances by name (pyRiemann-style registry); each entry is a :class:`Metric`.
METRICS: dict[str, Metric] = {
    **{
        m.name: m
        for m in (Euclidean(), DTW(), Edit(), Hausdorff(), Tangent(), AffineInvariant(), LogEuclidean())
    },
    **ELASTIC_METRICS,
}


class UserMetric(Metric):
    """A user's function ``metric(a, b) -> float`` evaluated on every pair of objects.

    With ``B=None`` the function is taken to be symmetric, evaluated once per unordered pair
    i < j, and on the diagonal.  Each value must be a finite non-negative real number.
    """

    def __init__(self, function: Callable, params: dict):
        self.function = function
        self.name = getattr(function, "__name__", repr(function))
        self.parameters = dict(params)  # passed through to the function, unchecked

    def check(self, X, name: str) -> list:
        if isinstance(X, str | bytes):
            raise TypeError(f"{name} must be a collection of objects, not a single string")
        try:
            return list(X)
        except TypeError:
            raise TypeError(f"{name} must be a collection of objects, got {type(X).__name__}") from None

    def tiles(self, a, b, symmetric, params, n_jobs, working_memory):
        function = self.function

        def value(i, j):
            d = function(a[i], b[j], **params)
            try:
                d = float(d)
            except (TypeError, ValueError):
                raise TypeError(
                    f"metric {self.name!r} returned {type(d).__name__} for A[{i}], B[{j}]; expected a float"
                ) from None
            if not (math.isfinite(d) and d >= 0):
                raise ValueError(
                    f"metric {self.name!r} returned {d!r} for A[{i}], B[{j}]; a distance is finite and >= 0"
                )
            return d

        def tile(r0, r1, c0, c1, diagonal):
            D = np.empty((r1 - r0, c1 - c0))
            for i in range(r0, r1):
                for j in range(c0 + (i - r0) if diagonal else c0, c1):
                    D[i - r0, j - c0] = value(i, j)
                    if diagonal:
                        D[j - c0, i - r0] = D[i - r0, j - c0]
            return D

        return tile, MemoryBudget(working_memory).tile(8.0), n_jobs


def pairwise_distances(
    A: Any,
    B: Any | None = None,
    metric: str | Callable[..., float] = "euclidean",
    *,
    n_jobs: int | None = None,
    working_memory: float | None = None,
    **params: Any,
) -> NDArray[np.float64]:
    """Pairwise distances between the objects of ``A`` and ``B``, by a shipped metric or a function.

    D[i, j] = d(A[i], B[j]) for the distance ``metric``:

    =======================  =====================================  ====================================
    ``metric``               objects                                function or definition
    =======================  =====================================  ====================================
    ``"euclidean"``          vectors, array (n, d)                  ‖a − b‖₂ from the differences
    ``"dtw"``                univariate series (lengths may vary)   :func:`dtw_distances` (not squared)
    ``"edit"``               strings                                :func:`edit_distances`
    ``"hausdorff"``          point sets (n_points_i, dim)           :func:`hausdorff_distances`
    ``"tangent"``            grey-level images (n, h, w)            :func:`tangent_distances`
    ``"affine_invariant"``   SPD matrices (n, d, d)                 :func:`spd_distances`
    ``"log_euclidean"``      SPD matrices (n, d, d)                 :func:`spd_distances`
    ``"squared_dtw"``        series, uni- or multivariate           aeon's DTW: Σ of squared differences
                                                                    on the best path: ``"dtw"`` squared
    ``"wdtw"``               series                                 weighted DTW (Jeong et al. 2011),
                                                                    squared; ``g``
    ``"ddtw"``               series of length >= 3                  derivative DTW (Keogh & Pazzani
                                                                    2001), squared
    ``"msm"``                series                                 move-split-merge (Stefan et al.
                                                                    2013); ``c``, ``independent``
    ``"twe"``                series                                 time warp edit (Marteau 2009);
                                                                    ``nu``, ``lmbda``
    ``"erp"``                series                                 edit distance with real penalty
                                                                    (Chen & Ng 2004); ``g``
    ``"lcss"``               series                                 1 − LCSS/min length (Vlachos et
                                                                    al. 2002); ``epsilon``
    ``"edr"``                series                                 edit distance on real sequences
                                                                    (Chen et al. 2005); ``epsilon``
    callable                 anything: ``metric(a, b, **params)``   must return a float >= 0
    =======================  =====================================  ====================================

    The elastic distances from ``"squared_dtw"`` to ``"edr"`` are computed by aeon
    (``aeon.distances``, the optional extra: ``pip install 'krein[timeseries]'``), with aeon's
    parameter names and defaults; every one also takes ``window``, aeon's Sakoe–Chiba band as a
    *fraction* in [0, 1] of the shorter series (``None``: no band), where krein's ``"dtw"`` takes an
    integer band.  aeon's DTW family (``"squared_dtw"``, ``"wdtw"``, ``"ddtw"``) is **squared**: the
    sum of squared differences along the path, no root, so ``"squared_dtw"`` is the square of krein's
    ``"dtw"`` (dtaidistance).  aeon's ERP and EDR start their dynamic programmes from other boundaries
    than the papers' (the total gap cost, and zeros: unmatched points before the first match are free
    in EDR).  Their series are univariate (a 1-d array) or multivariate (a 2-d array (n_channels,
    length), as in krein's ``"multiseries"`` datasets); a collection is an array (n, length) or (n,
    n_channels, length), or a list of series whose lengths may differ; A and B have the same number
    of channels.

    Every metric goes through the same validation (the keywords ``params`` against the metric's
    parameters, ``n_jobs``, ``working_memory``, each collection) and the same blocked, parallel
    evaluation: square tiles sized by ``working_memory`` run on ``n_jobs`` threads; with
    ``B=None`` the result is exactly symmetric and each unordered pair is evaluated once.
    Homogeneous distances (Euclidean, DTW, Hausdorff, tangent: d(s·a, s·b) = s·d(a, b)) of
    objects whose largest absolute value lies outside [2⁻²⁵⁵, 2²⁵⁵] are computed on the objects
    divided by a power of two and multiplied back, so that values near 1e155 or 1e-170 do not
    overflow or underflow when squared.  A non-finite distance is an error.

    Parameters
    ----------
    A : collection of n_a objects (an array with one object per row, or a list)
    B : collection of n_b objects, or None
        ``None`` computes ``A`` against itself.
    metric : str or callable, default="euclidean"
        A name of :data:`METRICS` or a function of two objects.
    n_jobs : int or None
        Number of threads (``None`` means 1, ``-1`` all cores).
    working_memory : float or None
        Memory budget of one tile in MiB (default: scikit-learn's ``working_memory``).
    **params
        The metric's parameters (``window`` for DTW, ``normalized`` for edit, ``variant`` for
        Hausdorff, ``symmetrize`` and ``sigma`` for tangent, ``window`` and aeon's parameters for the
        elastic distances: ``c`` and ``independent`` for MSM, ``nu`` and ``lmbda`` for TWE, ``g``
        for ERP and WDTW, ``epsilon`` for LCSS and EDR; for a callable, passed to it).

    Returns
    -------
    D : ndarray of shape (n_a, n_b), float64
    """
    spec: Metric
    if callable(metric):
        spec = UserMetric(metric, params)
    elif isinstance(metric, str) and metric in METRICS:
        spec = METRICS[metric]
    else:
        raise ValueError(f"metric must be one of {sorted(METRICS)} or a callable, got {metric!r}")
    return evaluate(spec, A, B, n_jobs=n_jobs, working_memory=working_memory, **params)

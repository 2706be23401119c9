"""Elastic distances between time series — MSM, TWE, ERP, LCSS, EDR, WDTW, DDTW, squared DTW — on aeon.

The time-series field's elastic distances, computed by aeon's numba routines (``aeon.distances``, the
optional extra ``krein[timeseries]``) and evaluated through krein's one path (:func:`evaluate`):
validation before any work, memory-bounded tiles, each unordered pair once for ``B=None``, one aeon
call per tile.  aeon is imported when one of these metrics is used, never when krein is imported.

**Objects.**  A univariate series is a 1-d array ``(length,)``; a multivariate series is a 2-d array
``(n_channels, length)``, the layout of krein's ``"multiseries"`` datasets (``n × c × T``) and of aeon.
A collection is an array ``(n, length)`` of univariate series, an array ``(n, n_channels, length)`` of
multivariate ones, or a list of 1-d or 2-d arrays whose lengths may differ (every metric here takes
unequal lengths); all series of ``A`` and ``B`` have the same number of channels.

**Conventions are aeon's** (checked against plain dynamic programmes in
``tests/test_elastic_distances.py``): the DTW family (``"squared_dtw"``, ``"wdtw"``, ``"ddtw"``) sums
*squared* differences along the path and takes no root, so ``"squared_dtw"`` is the square of krein's
``"dtw"`` (dtaidistance) where both run without a band; ``window`` is aeon's Sakoe–Chiba band, a
*fraction* in [0, 1] of the shorter series (krein's ``"dtw"`` takes an integer band).  Where aeon's
boundary conditions depart from the paper's recurrence (ERP, EDR) the docstring of the metric says so.
"""

from __future__ import annotations

import importlib
import math
import numbers
import warnings

import numpy as np

from .._memory import MemoryBudget
from ._blocks import Metric

__all__ = ["ELASTIC_METRICS"]

_COLLECTION = (
    "an array (n_series, length) or (n_series, n_channels, length), or a list of 1-d (length,) or "
    "2-d (n_channels, length) series"
)


def load_aeon_function(metric: str, function: str):
    """aeon's ``aeon.distances.<function>``, or an ImportError of one line naming the extra to install."""
    try:
        module = importlib.import_module("aeon.distances")
    except ImportError:
        raise ImportError(f"metric {metric!r} needs aeon: pip install 'krein[timeseries]'") from None
    return getattr(module, function)


def _real(name: str, value, *, low: float | None = None, strict: bool = False) -> float:
    """``value`` as a finite float (``>= low``, or ``> low`` when ``strict``), else a ValueError naming it."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    if low is not None and (value <= low if strict else value < low):
        raise ValueError(f"{name} must be {'>' if strict else '>='} {low}, got {value!r}")
    return float(value)


def _n_channels(series) -> int:
    return series.shape[1] if isinstance(series, np.ndarray) else series[0].shape[0]


def _unequal(series) -> bool:
    """Whether the series of a tile differ in length (always False for an array of equal-length series)."""
    return not isinstance(series, np.ndarray) and len({s.shape[1] for s in series}) > 1


class Elastic(Metric):
    """An elastic distance of aeon between series, evaluated tile by tile by ``aeon.distances.<function>``.

    Subclasses set ``name``, ``function`` (aeon's pairwise function), ``parameters`` (aeon's names
    and defaults, ``window`` first) and ``min_length``, and validate their own parameters in
    ``check_metric_params``.  Every one of them is symmetric, d(a, b) = d(b, a).
    """

    function: str = ""
    min_length: int = 1

    def check(self, X, name: str):
        """``(n, c, T)`` float64 array, or a list of ``(c, T)`` arrays when ``X`` is a list; validated."""
        if isinstance(X, np.ndarray) and X.dtype != object:
            if X.ndim not in (2, 3):
                raise ValueError(f"{name} must be {_COLLECTION}, got shape {X.shape}")
            try:
                arr = np.ascontiguousarray(X if X.ndim == 3 else X[:, None, :], dtype=np.float64)
            except (TypeError, ValueError):
                raise ValueError(f"{name} is not a numeric array") from None
            if len(arr) and arr.shape[1] == 0:
                raise ValueError(f"{name} has series of 0 channels")
            if len(arr):
                self._check_length(arr.shape[2], f"{name}[0]")
            bad = np.flatnonzero(~np.isfinite(arr).reshape(len(arr), -1).all(axis=1))
            if bad.size:
                raise ValueError(f"{name}[{bad[0]}] contains NaN or infinite values")
            return arr
        if isinstance(X, str | bytes):
            raise TypeError(f"{name} must be {_COLLECTION}, got {type(X).__name__}")
        try:
            items = list(X)
        except TypeError:
            raise TypeError(f"{name} must be {_COLLECTION}, got {type(X).__name__}") from None
        out: list[np.ndarray] = []
        for i, s in enumerate(items):
            try:
                arr = np.asarray(s, dtype=np.float64)
            except (TypeError, ValueError):
                raise ValueError(
                    f"{name}[{i}] is not a numeric series of shape (length,) or (n_channels, length)"
                ) from None
            if arr.ndim == 1:
                arr = arr[None, :]
            elif arr.ndim != 2 or arr.shape[0] == 0:
                raise ValueError(
                    f"{name}[{i}] must have shape (length,) or (n_channels >= 1, length), got {arr.shape}"
                )
            self._check_length(arr.shape[1], f"{name}[{i}]")
            if not np.all(np.isfinite(arr)):
                raise ValueError(f"{name}[{i}] contains NaN or infinite values")
            if out and arr.shape[0] != out[0].shape[0]:
                raise ValueError(
                    f"{name}[{i}] has {arr.shape[0]} channel(s) but {name}[0] has {out[0].shape[0]}; "
                    "all series must have the same number of channels"
                )
            out.append(np.ascontiguousarray(arr))
        return out

    def _check_length(self, length: int, where: str) -> None:
        if length < self.min_length:
            reason = " (its derivative drops the two end points)" if self.min_length == 3 else ""
            raise ValueError(
                f"{where} has length {length}; metric {self.name!r} needs series of length >= "
                f"{self.min_length}{reason}"
            )

    def check_pair(self, a, b) -> None:
        if len(a) and len(b) and _n_channels(a) != _n_channels(b):
            raise ValueError(
                f"A has series of {_n_channels(a)} channel(s) and B of {_n_channels(b)}; "
                "A and B must have the same number of channels"
            )

    def check_params(self, params: dict) -> dict:
        load_aeon_function(self.name, self.function)  # ImportError before any other work
        window = params["window"]
        if window is not None:
            window = _real("window", window, low=0.0)
            if window > 1.0:
                raise ValueError(
                    f"window must be None or a fraction in [0, 1] of the shorter series (aeon's Sakoe-Chiba "
                    f"band), got {params['window']!r}"
                )
        return {**params, "window": window, **self.check_metric_params(params)}

    def check_metric_params(self, params: dict) -> dict:
        return {}

    def tiles(self, a, b, symmetric, params, n_jobs, working_memory):
        function = load_aeon_function(self.name, self.function)
        from numba import config
        from numba.core.errors import NumbaTypeSafetyWarning

        threads = max(1, min(n_jobs, config.NUMBA_NUM_THREADS))
        if not isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
            b = list(b)  # one form for both operands: aeon infers the layout from the pair
        if isinstance(a, np.ndarray) and not isinstance(b, np.ndarray):
            a = list(a)

        # window=1.0 is aeon's full band, the same cells as None: one numba specialization for both
        params = {**params, "window": 1.0 if params["window"] is None else params["window"]}

        def call(x, y=None):
            with warnings.catch_warnings():  # a cast warning of aeon's compilation, not the user's concern
                warnings.simplefilter("ignore", NumbaTypeSafetyWarning)
                return function(x, y, n_jobs=threads, **params)

        def tile(r0, r1, c0, c1, diagonal):
            rows = a[r0:r1]
            if diagonal:  # aeon's self-pairwise evaluates each unordered pair once
                values = call(rows)
            else:
                cols = b[c0:c1]
                # aeon 1.6 reads the band of unequal-length X with the lengths of X[0] when y has equal
                # lengths; the metrics are symmetric, so such a tile is evaluated the other way round
                values = call(cols, rows).T if _unequal(rows) and not _unequal(cols) else call(rows, cols)
            values = np.asarray(values, dtype=np.float64)
            if values.size and not values.min() >= 0:  # NaN fails too; inf is reported by evaluate
                raise ValueError(f"metric {self.name!r} gave a negative or NaN distance; this is a bug")
            return values

        # the tile and its copy into the result: 16 bytes a pair (aeon's dynamic programmes use
        # O(length²) per thread, whatever the tile); one aeon call per tile on n_jobs numba threads
        return tile, MemoryBudget(working_memory).tile(16.0, max_tile=4096), 1


class MSM(Elastic):
    """Move-split-merge (Stefan, Athitsos & Das 2013), aeon's ``msm_distance``.

    The cheapest sequence of moves (change a value, cost |Δ|), splits (repeat a value) and merges
    (drop a repeated value), each split or merge costing ``c`` plus, when the new value does not lie
    between its neighbours, its distance to the nearer one.  Multivariate: the sum of the channels'
    MSM (``independent=True``) or aeon's dependent form on the channel vectors.  A metric.
    """

    name = "msm"
    function = "msm_pairwise_distance"
    parameters = {"window": None, "independent": True, "c": 1.0}

    def check_metric_params(self, params):
        if not isinstance(params["independent"], bool | np.bool_):
            raise ValueError(f"independent must be True or False, got {params['independent']!r}")
        return {"independent": bool(params["independent"]), "c": _real("c", params["c"], low=0.0)}


class TWE(Elastic):
    """Time warp edit distance (Marteau 2009), aeon's ``twe_distance``.

    Series padded with a 0 at time 0, time stamps their indices; a match of (aᵢ, bⱼ) costs
    ‖aᵢ − bⱼ‖ + ‖aᵢ₋₁ − bⱼ₋₁‖ + 2ν|i − j|, a deletion ‖aᵢ − aᵢ₋₁‖ + ν + λ (``nu`` the stiffness,
    ``lmbda`` the deletion penalty); the first row and column of the programme are infinite, as in
    Marteau's reference code.  A metric.
    """

    name = "twe"
    function = "twe_pairwise_distance"
    parameters = {"window": None, "nu": 0.001, "lmbda": 1.0}

    def check_metric_params(self, params):
        return {"nu": _real("nu", params["nu"], low=0.0), "lmbda": _real("lmbda", params["lmbda"], low=0.0)}


class ERP(Elastic):
    """Edit distance with real penalty (Chen & Ng 2004), aeon's ``erp_distance``.

    Matches cost ‖aᵢ − bⱼ‖, a gap costs the distance ‖aᵢ − g‖ of the skipped point to the constant
    ``g``.  aeon's boundary departs from the paper's: the first row and column of its programme hold
    the *total* gap cost of the whole series (the paper: the cumulative cost of the prefix), so a path
    that starts with gaps pays more than the paper's and aeon's value can exceed the paper's ERP.
    """

    name = "erp"
    function = "erp_pairwise_distance"
    parameters = {"window": None, "g": 0.0}

    def check_metric_params(self, params):
        return {"g": _real("g", params["g"])}


class LCSS(Elastic):
    """Longest common subsequence distance (Vlachos, Kollios & Gunopulos 2002), aeon's ``lcss_distance``.

    1 − LCSS(a, b)/min(p, q), LCSS counting the longest chain of pairs with ‖aᵢ − bⱼ‖ ≤ ``epsilon``
    (increasing in both indices); in [0, 1].
    """

    name = "lcss"
    function = "lcss_pairwise_distance"
    parameters = {"window": None, "epsilon": 1.0}

    def check_metric_params(self, params):
        return {"epsilon": _real("epsilon", params["epsilon"], low=0.0)}


class EDR(Elastic):
    """Edit distance on real sequences (Chen, Özsu & Oria 2005), aeon's ``edr_distance``.

    Edits, divided by the longer length: a substitution costs 0 when ‖aᵢ − bⱼ‖ < ``epsilon`` and 1
    otherwise, an insertion or deletion 1; ``epsilon=None`` takes a quarter of the larger standard
    deviation of the two series (over all their values).  aeon's boundary departs from the paper's:
    its programme starts from a first row and column of zeros (the paper: i and j), so unmatched
    points before the first match are free, and EDR(a, b) = 0 when b ends a.
    """

    name = "edr"
    function = "edr_pairwise_distance"
    parameters = {"window": None, "epsilon": None}

    def check_metric_params(self, params):
        epsilon = params["epsilon"]
        return {"epsilon": None if epsilon is None else _real("epsilon", epsilon, low=0.0, strict=True)}


class WDTW(Elastic):
    """Weighted DTW (Jeong, Jeong & Omitaomu 2011), aeon's ``wdtw_distance``; squared, as aeon's DTW.

    The cheapest warping path of the weighted squared differences w(|i − j|)‖aᵢ − bⱼ‖², with the
    logistic weight w(k) = 1/(1 + exp(−g(k − m/2))), m the longer length and ``g`` its steepness.
    """

    name = "wdtw"
    function = "wdtw_pairwise_distance"
    parameters = {"window": None, "g": 0.05}

    def check_metric_params(self, params):
        return {"g": _real("g", params["g"], low=0.0)}


class DDTW(Elastic):
    """Derivative DTW (Keogh & Pazzani 2001), aeon's ``ddtw_distance``: squared DTW of the derivatives.

    Each channel aᵢ (i = 2 … p − 1) becomes ((aᵢ − aᵢ₋₁) + (aᵢ₊₁ − aᵢ₋₁)/2)/2, a series of length
    p − 2, so every series needs length >= 3.
    """

    name = "ddtw"
    function = "ddtw_pairwise_distance"
    parameters = {"window": None}
    min_length = 3


class SquaredDTW(Elastic):
    """aeon's DTW, ``dtw_distance``: the *sum of squared differences* on the cheapest warping path.

    No root is taken: it is the square of krein's ``"dtw"`` (dtaidistance) without a band; ``window``
    is aeon's band, a fraction of the shorter series.
    """

    name = "squared_dtw"
    function = "dtw_pairwise_distance"
    parameters = {"window": None}


#: The elastic distances on aeon, by name (entries of the registry of :func:`pairwise_distances`).
ELASTIC_METRICS: dict[str, Elastic] = {
    m.name: m for m in (MSM(), TWE(), ERP(), LCSS(), EDR(), WDTW(), DDTW(), SquaredDTW())
}

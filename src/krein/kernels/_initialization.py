"""Data-dependent initial hyperparameters of the Appendix D kernels (Oglic & Gärtner 2018, App. E.1).

Each scheme draws ``u ~ U[0, 1]`` (per feature for the "RL" kernels) and sets the bandwidths from
simple statistics of the (standardized) data, so that random restarts of the hyperparameter search
start at sensible, different scales.

One deviation from the printed text: for GAUSS the appendix reads ``η ← median(p)/c`` with ``p`` the
*squared* distances, which for standardized data gives ``η ≈ 3d`` and a kernel that is constant to
within ``exp(−1/(10d))``; we use ``η² ← median(p)/c``, which puts GAUSS on the same scale as the
RL-GAUSS scheme of the same appendix (``η_j ≈ √d · c · range_j``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils import check_random_state

from ._base import Kernel, float_array
from ._vectorial import (
    ARDGaussian,
    ARDSigmoid,
    DeltaGaussian,
    Epanechnikov,
    Gaussian,
    Sigmoid,
    _squared_distances,
)

__all__ = ["APPENDIX_D_CLASSES", "APPENDIX_D_KERNELS", "initial_kernel", "initial_kernel_like"]

#: The six kernels of Appendix D, by the names of Table 3 of Oglic & Gärtner (2018).
APPENDIX_D_KERNELS = ("SIGMOID", "RL-SIGMOID", "DELTA-GAUSS", "EPANECHNIKOV", "GAUSS", "RL-GAUSS")

#: Pairwise distances for the GAUSS median are taken on at most this many rows.
_MEDIAN_SAMPLE = 1000


def _c(rng, size=None):
    return 0.4 * (rng.uniform(size=size) + 1.0)


def _gauss_eta(X, rng):
    sample = X if X.shape[0] <= _MEDIAN_SAMPLE else X[rng.choice(X.shape[0], _MEDIAN_SAMPLE, False)]
    p = _squared_distances(sample, sample)
    median = np.median(p[np.triu_indices(sample.shape[0], 1)])
    if median == 0:
        raise ValueError("X has (almost) no distinct rows: cannot initialise a bandwidth.")
    return float(np.sqrt(median / _c(rng)))


def _rl_sigmoid_eta(X, rng):
    scale = np.max(np.abs(X), axis=0)
    scale[scale == 0] = 1.0
    return np.sqrt(scale / _c(rng, X.shape[1]))


def initial_kernel(
    name: str, X: ArrayLike, random_state: int | np.random.RandomState | None = None
) -> Kernel:
    """A kernel of Appendix D with hyperparameters drawn by the scheme of Appendix E.1.

    Parameters
    ----------
    name : str
        One of :data:`APPENDIX_D_KERNELS` (case-insensitive; ``_`` and ``-`` are interchangeable).
    X : array-like of shape (n_samples, n_features)
        Training inputs (standardized, as in Appendix C).
    random_state : int, RandomState or None

    Returns
    -------
    Kernel
    """
    X = float_array(X, "X")
    rng = check_random_state(random_state)
    key = name.upper().replace("_", "-")
    if key == "GAUSS":
        return Gaussian(_gauss_eta(X, rng))
    if key == "RL-GAUSS":
        spread = np.ptp(X, axis=0)
        spread[spread == 0] = 1.0
        return ARDGaussian(np.sqrt(X.shape[1]) * _c(rng, X.shape[1]) * spread)
    if key == "SIGMOID":
        return Sigmoid(float(np.sqrt(np.max(np.linalg.norm(X, axis=1)) / _c(rng))))
    if key == "RL-SIGMOID":
        return ARDSigmoid(_rl_sigmoid_eta(X, rng))
    if key == "DELTA-GAUSS":
        c = 2.0 * rng.uniform() - 1.0
        eta = _gauss_eta(X, rng)
        return DeltaGaussian((1.0 - c) * eta, (1.0 + c) * eta)
    if key == "EPANECHNIKOV":
        return Epanechnikov(_rl_sigmoid_eta(X, rng) ** 2)
    raise ValueError(f"Unknown Appendix D kernel {name!r}; expected one of {APPENDIX_D_KERNELS}.")


#: Appendix D kernel classes and their Appendix E.1 initialisation names.
APPENDIX_D_CLASSES = {
    Gaussian: "GAUSS",
    ARDGaussian: "RL-GAUSS",
    Sigmoid: "SIGMOID",
    ARDSigmoid: "RL-SIGMOID",
    DeltaGaussian: "DELTA-GAUSS",
    Epanechnikov: "EPANECHNIKOV",
}


def initial_kernel_like(
    kernel: Kernel, X: ArrayLike, random_state: int | np.random.RandomState | None = None
) -> Kernel:
    """``kernel`` with its tunable hyperparameters drawn by Appendix E.1 (:func:`initial_kernel`).

    Only the draw replaces the user's kernel: hyperparameters with ``*_bounds="fixed"`` keep their
    value, the others keep their bounds and start clipped into them, and a scalar bandwidth of an
    "RL" kernel (one shared η) stays a scalar (the geometric mean of the per-feature draw).
    """
    drawn = initial_kernel(APPENDIX_D_CLASSES[type(kernel)], X, random_state)
    params = {}
    for h in kernel.hyperparameters:
        if h.fixed:
            continue
        value = np.asarray(getattr(drawn, h.name), dtype=float)
        if np.ndim(getattr(kernel, h.name)) == 0:
            value = np.exp(np.mean(np.log(value)))
        value = np.clip(value, h.bounds[:, 0], h.bounds[:, 1])
        params[h.name] = float(value[0]) if np.ndim(getattr(kernel, h.name)) == 0 else value
    return kernel.clone_with_theta(kernel.theta).set_params(**params)

"""Geodesic Gaussian kernels on symmetric positive definite matrices (Liu et al. 2019, Table I).

``k(S₁, S₂) = exp(−d(S₁, S₂)² / σ²)`` with ``d`` a distance on ``Sym⁺_d``. Under the log-Euclidean
distance ``‖log S₁ − log S₂‖_F`` the manifold is flat and the kernel is positive definite (a Gaussian
kernel of the matrix logarithms); under the affine-invariant distance ``‖log(S₁^{-1/2} S₂ S₁^{-1/2})‖_F``
it is not positive definite in general (Feragen, Lauze & Hauberg 2015), which is why the IKLR paper
uses it as its indefinite kernel on covariance descriptors (Sec. V-C, Table V).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_positive
from ._spd import spd_distances

__all__ = ["geodesic_gaussian_kernel"]


def geodesic_gaussian_kernel(
    A: ArrayLike,
    B: ArrayLike | None = None,
    *,
    metric: str = "affine_invariant",
    sigma: float = 1.0,
    n_jobs: int | None = None,
) -> NDArray[np.float64]:
    """Geodesic Gaussian kernel ``exp(−d²/σ²)`` between SPD matrices.

    Parameters
    ----------
    A : array of shape (n_a, d, d)
        Symmetric positive definite matrices (e.g. from :func:`covariance_descriptors`).
    B : array of shape (n_b, d, d) or None
        ``None`` evaluates ``A`` against itself (an exactly symmetric matrix with unit diagonal).
    metric : {"affine_invariant", "log_euclidean"}, default="affine_invariant"
        The distance of Table I: affine-invariant (indefinite kernel) or log-Euclidean (positive
        definite kernel).
    sigma : float, default=1.0
        Kernel width ``σ > 0`` (the paper's parametrization, without a factor ½).
    n_jobs : int or None
        Threads for the distance computation (see :func:`spd_distances`).

    Returns
    -------
    K : ndarray of shape (n_a, n_b)
    """
    sigma = check_positive(sigma, "sigma")
    distances = spd_distances(A, B, metric=metric, n_jobs=n_jobs)
    return np.exp(-((distances / sigma) ** 2))

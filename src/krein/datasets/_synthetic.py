"""Synthetic data: the regression with an indefinite kernel behind Table 1 of Oglic & Gärtner
(ICML 2018), Sec. 5, and the cylinder–bell–funnel series of Saito (1994)."""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import NDArray
from scipy.spatial.distance import pdist, squareform
from sklearn.utils import check_random_state

__all__ = ["make_cylinder_bell_funnel", "make_krein_regression"]


def make_krein_regression(
    n_samples: int = 100,
    n_features: int = 20,
    *,
    kernel: str = "gauss",
    noise: float = 0.05,
    bandwidth: float | None = None,
    return_kernel: bool = False,
    random_state: int | np.random.RandomState | None = None,
) -> (
    tuple[NDArray[np.float64], NDArray[np.float64]]
    | tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]
):
    """Regression data whose target is a Kreĭn hypothesis of the indefinite kernel K₀ − K₀⁻¹.

    Oglic & Gärtner (2018), Sec. 5 (Table 1): "sample hyperparameters of a kernel matrix and
    then define an indefinite matrix as the difference between the sampled kernel matrix and
    its inverse. [...] we pick a Kreĭn hypothesis by sampling coefficients of the kernel
    expansion from the standard normal distribution and dividing them with the square root of
    the size of the expansion. [...] we perturb it with a noise vector sampled from the standard
    normal distribution with zero mean and scale that corresponds to 5% of the hypothesis
    range."  Concretely:

    1. X ~ N(0, I_d), n × d (the paper does not state the input distribution; d = 20 gives
       spectra of the scale of its Table 1, e.g. λ ∈ [−290, 75] for GAUSS with n = 100).
    2. Hyperparameter as in Appendix E.1 with c = 0.4 (u + 1), u ~ U[0, 1]:
       ``"gauss"``: k(x, x') = exp(−‖x − x'‖² / (2η²)), η = median pairwise distance / c;
       ``"sigmoid"``: k(x, x') = tanh((x·x' − 0.5) / η²), η = (max row norm / c)^{1/2}.
       ``bandwidth`` sets η instead (c is still drawn, so the rest of the draw is unchanged).
    3. K = K₀ − K₀⁻¹ = V (Λ − Λ⁻¹) Vᵀ from the eigendecomposition K₀ = V Λ Vᵀ.
    4. f = K α, α ~ N(0, I_n) / √n;  y = f + ε, ε ~ N(0, σ²), σ = ``noise`` · (max f − min f).

    K₀ − K₀⁻¹ is not a kernel *function* — it has no closed form for new points — so K is built
    over all ``n_samples`` points at once.  Experiments draw train and test indices and slice
    ``K[train][:, train]`` (the training kernel) and ``K[test][:, train]`` (the test rows);
    this is the transductive use the paper makes of it.

    Parameters
    ----------
    n_samples : int, default=100
    n_features : int, default=20
    kernel : {"gauss", "sigmoid"}, default="gauss"
    noise : float, default=0.05
        Noise standard deviation as a fraction of the range of the noiseless target.
    bandwidth : float or None, default=None
        The kernel's η; None draws it as in Appendix E.1 (step 2). A large η puts the sigmoid in
        its nearly linear regime, where K₀ ≈ (XXᵀ − 0.5)/η² is close to singular when
        ``n_features`` is close to ``n_samples`` (the ``*Sigmoid`` rows of Table 1, see
        :func:`krein.experiments.oglic2018.starred_sigmoid_bandwidth`).
    return_kernel : bool, default=False
        Also return the n × n indefinite kernel matrix K.
    random_state : int, RandomState instance or None

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    K : ndarray of shape (n_samples, n_samples), only if ``return_kernel``
    """
    if not isinstance(n_samples, int | np.integer) or n_samples < 2:
        raise ValueError(f"n_samples must be an integer >= 2, got {n_samples!r}")
    if not isinstance(n_features, int | np.integer) or n_features < 1:
        raise ValueError(f"n_features must be a positive integer, got {n_features!r}")
    if not isinstance(kernel, str) or kernel.lower() not in ("gauss", "sigmoid"):
        raise ValueError(f"kernel must be 'gauss' or 'sigmoid', got {kernel!r}")
    if not (isinstance(noise, int | float) and noise >= 0):
        raise ValueError(f"noise must be a non-negative number, got {noise!r}")
    if bandwidth is not None and not (
        isinstance(bandwidth, int | float | np.floating) and np.isfinite(bandwidth) and bandwidth > 0
    ):
        raise ValueError(f"bandwidth must be a positive number or None, got {bandwidth!r}")
    rng = check_random_state(random_state)
    X = rng.standard_normal((n_samples, n_features))
    c = 0.4 * (rng.uniform() + 1.0)
    if kernel.lower() == "gauss":
        dist = pdist(X)
        eta = float(np.median(dist)) / c if bandwidth is None else float(bandwidth)
        K0 = np.exp(-(squareform(dist) ** 2) / (2.0 * eta**2))
    else:
        eta = float(np.sqrt(np.linalg.norm(X, axis=1).max() / c)) if bandwidth is None else float(bandwidth)
        K0 = np.tanh((X @ X.T - 0.5) / eta**2)
    K0 = 0.5 * (K0 + K0.T)
    lam, V = np.linalg.eigh(K0)
    tiny = np.finfo(np.float64).eps * n_samples * np.abs(lam).max()
    if np.abs(lam).min() <= tiny:
        raise ValueError(
            "the sampled kernel matrix is numerically singular, so K0 - inv(K0) is undefined; "
            "use more features or fewer samples, or another random_state"
        )
    K = (V * (lam - 1.0 / lam)) @ V.T
    K = 0.5 * (K + K.T)
    alpha = rng.standard_normal(n_samples) / np.sqrt(n_samples)
    f = K @ alpha
    y = f + rng.standard_normal(n_samples) * noise * float(f.max() - f.min())
    if return_kernel:
        return X, y, K
    return X, y


def make_cylinder_bell_funnel(
    n_samples: int = 300,
    *,
    length: int = 128,
    noise: float = 1.0,
    random_state: int | np.random.RandomState | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Cylinder–bell–funnel series (Saito 1994): three classes of shapes at random places and widths.

    Series ``t = 0 … length − 1`` of class 0 (cylinder), 1 (bell) or 2 (funnel), in equal numbers
    (as equal as ``n_samples`` allows), in random order::

        c(t) = (6 + η) χ(t) + ε(t),   b(t) = (6 + η) χ(t) (t − a)/(b − a) + ε(t),
        f(t) = (6 + η) χ(t) (b − t)/(b − a) + ε(t),

    with ``χ`` the indicator of ``[a, b]``, ``η ~ N(0, 1)`` and ``ε(t) ~ N(0, noise²)`` drawn per series,
    ``a`` uniform on ``[length/8, length/4]`` and ``b − a`` uniform on ``[length/4, 3·length/4]``: the
    event's random onset and duration warp the series in time, the classic test of elastic distances
    (at ``length = 128`` these are Saito's intervals a ∈ [16, 32], b − a ∈ [32, 96]).

    Parameters
    ----------
    n_samples : int, default=300
    length : int, default=128
        At least 8.
    noise : float, default=1.0
        Standard deviation of ε.
    random_state : int, RandomState or None

    Returns
    -------
    X : ndarray of shape (n_samples, length)
    y : ndarray of shape (n_samples,), int
    """
    if not isinstance(n_samples, numbers.Integral) or n_samples < 1:
        raise ValueError(f"n_samples must be a positive integer, got {n_samples!r}")
    if not isinstance(length, numbers.Integral) or length < 8:
        raise ValueError(f"length must be an integer of at least 8, got {length!r}")
    if not (np.isfinite(noise) and noise >= 0):
        raise ValueError(f"noise must be a finite non-negative number, got {noise!r}")
    rng = check_random_state(random_state)
    y = rng.permutation(np.arange(n_samples) % 3)
    t = np.arange(length)[None, :]
    a = rng.uniform(length / 8, length / 4, size=(n_samples, 1))
    b = a + rng.uniform(length / 4, 3 * length / 4, size=(n_samples, 1))
    height = 6.0 + rng.normal(size=(n_samples, 1))
    inside = ((t >= a) & (t <= b)).astype(float)
    shape = np.select(
        [y[:, None] == 0, y[:, None] == 1], [np.ones_like(t * a), (t - a) / (b - a)], (b - t) / (b - a)
    )
    X = height * inside * shape + noise * rng.normal(size=(n_samples, length))
    return X, y

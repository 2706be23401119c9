"""Distances made into kernels, scale-free by construction: the Gaussian of a distance.

A distance matrix ``D`` becomes a similarity by a transform fitted on the training block and applied
to test-versus-train distances with the training statistics, so that the test rows are consistent with
the training kernel. :class:`GaussianOfDistance` gives ``K = exp(−γ D∘D)`` with ``γ`` relative to the
median squared training distance, so that multiplying ``D`` by any constant leaves ``K`` unchanged.
It is positive definite for Euclidean (and, more generally, for negative-type) distances and
indefinite in general, e.g. under dynamic time warping or the edit distance (Haasdonk & Bahlmann 2004;
Chen et al. 2009, Sec. 2).
"""

from __future__ import annotations

from numbers import Real
from typing import Self

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from .._parameters import store_parameters
from .._threads import blas_for_data
from ._centering import (
    DistanceTransformer,
    check_test_distances,
    check_training_distances,
    median_off_diagonal,
)

__all__ = ["GaussianOfDistance"]


class GaussianOfDistance(DistanceTransformer):
    """The Gaussian of a precomputed distance, ``k(x, x') = exp(−γ d(x, x')²)``.

    ``fit(D)`` takes the n × n training distances and fixes ``γ``; ``transform(D_test)`` takes the
    t × n distances between test objects and the training objects (columns in training order) and
    returns the t × n test kernel rows ``exp(−γ D_test∘D_test)`` — consistent with the training kernel
    and needing only test-versus-train distances.

    With ``relative=True`` (the default) ``γ = gamma / s²`` with ``s² = median{d(xᵢ, xⱼ)² : i < j}``
    over the training block, so ``gamma=1`` gives a typical pair the similarity e⁻¹ and the kernel does
    not change when ``D`` is multiplied by a constant (``gamma`` is the multiplier of the median
    heuristic; Caputo et al. 2002, Chaudhuri et al. 2017). With ``relative=False`` ``γ = gamma``. The
    kernel is evaluated as ``exp(−(d/ℓ)²)`` with the length scale ``ℓ = γ^{-1/2}``, so that distances
    near the overflow threshold (1e155 and beyond) give the right kernel, not NaN.

    The transformer is pairwise (``__sklearn_tags__().input_tags.pairwise``), so that
    :func:`~sklearn.model_selection.cross_val_score` and :class:`~sklearn.model_selection.GridSearchCV`
    slice a precomputed ``D`` into train × train and test × train blocks, e.g.
    ``make_pipeline(GaussianOfDistance(), KreinSVC(kernel="precomputed"))``.

    Parameters
    ----------
    gamma : float, default=1.0
        Width of the Gaussian: a multiple of ``1/median(D²)`` (``relative=True``) or γ itself.
    relative : bool, default=True
        Whether ``gamma`` is relative to the median squared training distance.
    symmetry_tol : float, default=1e-8
        Relative tolerance of the symmetry check at ``fit`` (max |D − Dᵀ| ≤ tol · max |D|).

    Attributes
    ----------
    gamma_ : float
        The γ used: ``gamma / distance_scale_²`` or ``gamma`` (may round to 0 or inf for distances at
        the ends of the floating-point range; the kernel uses ``length_scale_``).
    length_scale_ : float
        ``ℓ = γ^{-1/2}``: the kernel is ``exp(−(D/ℓ)²)``.
    distance_scale_ : float
        ``s``: the square root of the median squared off-diagonal training distance (of the positive
        ones if more than half are zero).
    n_features_in_ : int
        Number of training objects n (the width ``D_test`` must have).

    See Also
    --------
    DoubleCentering : the classical-scaling kernel ``−½ H (D∘D) H`` of the same distances.

    Examples
    --------
    >>> from krein.dissimilarity import GaussianOfDistance
    >>> from scipy.spatial.distance import cdist
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(30, 2))
    >>> D = cdist(X, X)
    >>> K = GaussianOfDistance().fit_transform(D)
    >>> print(round(np.median(K[np.triu_indices(30, 1)]), 4))  # a typical pair: exp(-1)
    0.3679
    >>> bool(np.allclose(GaussianOfDistance().fit_transform(1000 * D), K))  # free of the scale of D
    True
    """

    _parameter_constraints = {
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "relative": ["boolean"],
        "symmetry_tol": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, gamma: float = 1.0, *, relative: bool = True, symmetry_tol: float = 1e-8) -> None:
        store_parameters(self, locals())

    def _fit(self, D):
        self._validate_params()
        D = check_training_distances(self, D, self.symmetry_tol)
        self.distance_scale_ = median_off_diagonal(D, "D")
        unit = self.distance_scale_ if self.relative else 1.0
        self.length_scale_ = unit / np.sqrt(float(self.gamma))
        with np.errstate(over="ignore", under="ignore"):
            self.gamma_ = float(self.length_scale_**-2.0)
        self._n_features_out = D.shape[0]
        return D

    def _kernel(self, D):
        with np.errstate(over="ignore", under="ignore"):
            return np.exp(-np.square(D / self.length_scale_))

    def fit(self, D: ArrayLike, y: object = None) -> Self:
        """Fix γ from the n × n training distances ``D``."""
        with blas_for_data(D):  # one BLAS thread for a small problem (krein._threads)
            self._fit(D)
            return self

    def fit_transform(self, D: ArrayLike, y: object = None) -> NDArray[np.float64]:
        """Fit and return the training kernel ``exp(−γ D∘D)`` (exactly symmetric, unit diagonal)."""
        return self._kernel(self._fit(D))

    def transform(self, D: ArrayLike) -> NDArray[np.float64]:
        """Kernel rows ``exp(−γ D∘D)`` of test objects against the training objects.

        Parameters
        ----------
        D : array-like of shape (n_test, n_train)
            Distances between test objects and the training objects, columns in training order.

        Returns
        -------
        K : ndarray of shape (n_test, n_train)
        """
        check_is_fitted(self, "length_scale_")
        return self._kernel(check_test_distances(self, D))

"""Double centering: from a dissimilarity matrix to a (generally indefinite) similarity matrix."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._parameters import store_parameters
from .._validation import check_precomputed_test_kernel

__all__ = ["DoubleCentering"]

_NEGATIVE = "Negative values in data passed to DoubleCentering: D must hold non-negative dissimilarities."


class DoubleCentering(TransformerMixin, BaseEstimator):
    """Negative double centering of squared dissimilarities (classical scaling).

    ``fit(D)`` with the n × n training dissimilarities D computes

    .. math::  K = -\\tfrac12 H (D \\circ D) H, \\qquad H = I_n - \\tfrac1n e e^\\top

    (Oglic & Gärtner 2018, Appendix C; Cox & Cox 2000; Pekalska & Haasdonk 2009).  K is the
    Gram matrix of a Euclidean embedding iff D is Euclidean; otherwise it is indefinite.

    ``transform(D_test)`` with the t × n dissimilarities between test and *training* objects
    gives the consistent test kernel rows (the out-of-sample formula of classical scaling,
    Gower 1968; Bengio et al. 2004):

    .. math::  k(x, x_j) = -\\tfrac12\\Big(d(x, x_j)^2 - \\tfrac1n\\sum_k d(x, x_k)^2
               - \\tfrac1n\\sum_k d(x_k, x_j)^2 + \\tfrac1{n^2}\\sum_{k,l} d(x_k, x_l)^2\\Big).

    Applied to the training rows it reproduces K exactly; for Euclidean distances between
    points it equals the linear kernel of the points centred at the training mean.

    The transformer is pairwise (``__sklearn_tags__().input_tags.pairwise``), so that
    ``cross_val_score`` slices a precomputed D into train × train and test × train blocks, e.g.
    ``make_pipeline(DoubleCentering(), SVC(kernel="precomputed"))``.

    Parameters
    ----------
    symmetry_tol : float, default=1e-8
        Relative tolerance of the symmetry check at ``fit`` (max |D − Dᵀ| ≤ tol · max |D|).

    Attributes
    ----------
    n_features_in_ : int
        Number of training objects n (the width D_test must have).
    train_sq_means_ : ndarray of shape (n,)
        Column means of D ∘ D over the training objects.
    grand_sq_mean_ : float
        Mean of all entries of D ∘ D.

    See Also
    --------
    krein.embedding.KreinPCA : The embedding of a dissimilarity (``dissimilarity=True``).
    edit_distances : A dissimilarity between strings.
    dtw_distances : A dissimilarity between time series.

    Examples
    --------
    >>> from krein.dissimilarity import DoubleCentering
    >>> from scipy.spatial.distance import cdist
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(30, 2))
    >>> G = DoubleCentering().fit_transform(cdist(X, X))
    >>> Xc = X - X.mean(axis=0)
    >>> bool(np.allclose(G, Xc @ Xc.T))  # Euclidean distances give the Gram matrix of the centred points
    True
    """

    def __init__(self, symmetry_tol: float = 1e-8):
        store_parameters(self, locals())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = True
        tags.input_tags.positive_only = True
        return tags

    def _check_train(self, D, reset: bool) -> np.ndarray:
        if not (isinstance(self.symmetry_tol, int | float) and self.symmetry_tol >= 0):
            raise ValueError(f"symmetry_tol must be a non-negative number, got {self.symmetry_tol!r}")
        D = validate_data(self, D, reset=reset, dtype=np.float64, ensure_all_finite=True)
        n, m = D.shape
        if n != m:
            raise ValueError(f"D must be a square matrix of training dissimilarities, got {D.shape}")
        scale = float(np.abs(D).max()) if D.size else 0.0
        if np.abs(D - D.T).max(initial=0.0) > self.symmetry_tol * max(scale, 1e-300):
            raise ValueError("D must be symmetric (max |D - D.T| exceeds symmetry_tol)")
        if (D < 0).any():
            raise ValueError(_NEGATIVE)
        return D

    def _fit_squares(self, D):
        """Check the training dissimilarities D, store their centring statistics and return D ∘ D."""
        D = self._check_train(D, reset=True)
        D2 = np.square(0.5 * (D + D.T))
        self.train_sq_means_ = D2.mean(axis=0)
        self.grand_sq_mean_ = float(self.train_sq_means_.mean())
        return D2

    def fit(self, D, y=None):
        """Store the centring statistics of the training dissimilarities D (n × n)."""
        self._fit_squares(D)
        return self

    def fit_transform(self, D, y=None):
        """Fit and return the training kernel K = −½ H (D ∘ D) H (exactly symmetric)."""
        D2 = self._fit_squares(D)
        r = self.train_sq_means_
        K = -0.5 * (D2 - r[:, None] - r[None, :] + self.grand_sq_mean_)
        return 0.5 * (K + K.T)

    def transform(self, D):
        """Kernel rows of the test objects against the training objects.

        Parameters
        ----------
        D : array-like of shape (n_test, n_train)
            Dissimilarities between test objects and the training objects, columns in training
            order.

        Returns
        -------
        K : ndarray of shape (n_test, n_train)
        """
        check_is_fitted(self, "train_sq_means_")
        D = check_precomputed_test_kernel(D, self)
        if (D < 0).any():
            raise ValueError(_NEGATIVE)
        D2 = np.square(D)
        row = D2.mean(axis=1)
        return -0.5 * (D2 - row[:, None] - self.train_sq_means_[None, :] + self.grand_sq_mean_)

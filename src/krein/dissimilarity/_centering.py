"""Double centering: from a dissimilarity matrix to a (generally indefinite) similarity matrix."""

from __future__ import annotations

from numbers import Real
from typing import Literal, Self

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .._parameters import store_parameters
from .._threads import blas_for_data
from .._validation import check_precomputed_test_kernel

__all__ = [
    "DistanceTransformer",
    "DoubleCentering",
    "check_test_distances",
    "check_training_distances",
    "double_center",
    "median_off_diagonal",
]


def _negative(owner):
    return (
        f"Negative values in data passed to {type(owner).__name__}: D must hold non-negative dissimilarities."
    )


def check_training_distances(owner, D, symmetry_tol):
    """Validate the n × n training dissimilarities of a pairwise transformer ``owner``.

    Square, finite, non-negative and symmetric up to ``symmetry_tol`` (relative to max |D|); returns
    the exactly symmetric float64 matrix ``½(D + Dᵀ)``.
    """
    D = validate_data(owner, D, reset=True, dtype=np.float64, ensure_all_finite=True)
    n, m = D.shape
    if n != m:
        raise ValueError(f"D must be a square matrix of training dissimilarities, got {D.shape}")
    if (D < 0).any():
        raise ValueError(_negative(owner))
    scale = float(D.max()) if D.size else 0.0
    # the difference of the scaled matrices: no overflow for distances near the largest float
    unit = scale if scale > 0 else 1.0
    if np.abs(D / unit - D.T / unit).max(initial=0.0) > symmetry_tol:
        raise ValueError("D must be symmetric (max |D - D.T| exceeds symmetry_tol)")
    return 0.5 * D + 0.5 * D.T


def check_test_distances(owner, D):
    """Validate the t × n test-versus-training dissimilarities of a fitted pairwise transformer."""
    D = check_precomputed_test_kernel(D, owner)
    if (D < 0).any():
        raise ValueError(_negative(owner))
    return D


def double_center(
    squares: NDArray[np.float64],
    grand_mean: float,
    row_means: NDArray[np.float64],
    column_means: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """The double centring of squared dissimilarities through n reference objects z₁ … zₙ.

    For objects x (rows) and y (columns) with squared dissimilarities ``S(x, y) = d(x, y)²``,

        k(x, y) = −½ (S(x, y) − μ(x) − μ(y) + μ̄),   μ(x) = (1/n) Σₖ S(x, zₖ),   μ̄ = (1/n²) Σₖₗ S(zₖ, zₗ)

    (Gower 1968; Cox & Cox 2000). On the references themselves it is classical scaling,
    ``K = −½ H S H`` with ``H = I − 11ᵀ/n``; a row of another object is centred with the references'
    column means (the out-of-sample formula of :class:`DoubleCentering`, and of landmark MDS when the
    references are landmarks, de Silva & Tenenbaum 2004).

    Parameters
    ----------
    squares : ndarray of shape (t, s)
        ``S(x, y)`` of the row and column objects.
    grand_mean : float
        ``μ̄``.
    row_means : ndarray of shape (t,)
        ``μ(x)`` of the row objects.
    column_means : ndarray of shape (s,) or None
        ``μ(y)`` of the column objects; None when ``squares`` is the symmetric block of the references
        themselves (``column_means = row_means``): the result is then symmetrized, ``½(K + Kᵀ)``, so
        that it is exactly symmetric.

    Returns
    -------
    K : ndarray of shape (t, s)
    """
    columns = row_means if column_means is None else column_means
    K = -0.5 * (squares - row_means[:, None] - columns[None, :] + grand_mean)
    return 0.5 * (K + K.T) if column_means is None else K


def median_off_diagonal(D, name):
    """``s = (median{Dᵢⱼ² : i < j})^½`` of a symmetric non-negative matrix, without overflow.

    If more than half of the off-diagonal entries are zero (duplicated objects), the median of the
    positive ones; a matrix with no positive off-diagonal entry is an error (no scale to learn).
    """
    n = D.shape[0]
    if n < 2:
        raise ValueError(f"{name} must hold at least 2 objects to define a distance scale, got {n} sample.")
    upper = D[np.triu_indices(n, k=1)]
    largest = float(upper.max())
    if not largest > 0:
        raise ValueError(f"{name} is all zero off the diagonal: the objects are indistinguishable.")
    scaled = upper / largest
    if np.median(scaled) == 0:
        scaled = scaled[scaled > 0]
    return largest * float(np.sqrt(np.median(np.square(scaled))))


class DistanceTransformer(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """A transformer from precomputed dissimilarities to kernel rows: pairwise and non-negative input
    (so that cross-validation slices D into train × train and test × train blocks), one output column
    per training object (``set_output``)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = True
        tags.input_tags.positive_only = True
        return tags


class DoubleCentering(DistanceTransformer):
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

    With ``scale="median"`` the dissimilarities are first divided by ``s``, the square root of the
    median squared off-diagonal training dissimilarity (test dissimilarities by the same ``s``), so
    that the kernel does not change when ``D`` is multiplied by a constant and its off-diagonal
    squared dissimilarities have median 1.

    Parameters
    ----------
    scale : {"none", "median"}, default="none"
        Use D as given, or divided by its training scale ``s`` (scale-free).
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
    distance_scale_ : float
        ``s`` (1.0 with ``scale="none"``); the statistics above are those of ``D / s``.

    See Also
    --------
    GaussianOfDistance : the Gaussian ``exp(−γ D∘D)`` of the same distances, scale-free.
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

    _parameter_constraints = {
        "scale": [StrOptions({"none", "median"})],
        "symmetry_tol": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, scale: Literal["none", "median"] = "none", *, symmetry_tol: float = 1e-8) -> None:
        store_parameters(self, locals())

    def _in_range(self, values, D):
        """``values`` (squares of D, their means or the kernel), or a clear error where they overflowed."""
        if not np.all(np.isfinite(values)):
            raise ValueError(
                f"D holds dissimilarities up to {float(D.max()):.3g}, whose squares (their sums, the kernel "
                "−½H(D∘D)H) are beyond double precision (squares overflow above 1.3e154); use "
                "scale='median' (the kernel of D divided by its median scale) or divide D by a constant."
            )
        return values

    def _squares(self, D):
        """``(D/s)∘(D/s)``."""
        with np.errstate(over="ignore"):
            return self._in_range(np.square(D / self.distance_scale_), D)

    def _fit_squares(self, D):
        """Check the training dissimilarities D, store their centring statistics; ``((D/s)∘(D/s), D)``."""
        self._validate_params()
        D = check_training_distances(self, D, self.symmetry_tol)
        self.distance_scale_ = median_off_diagonal(D, "D") if self.scale == "median" else 1.0
        D2 = self._squares(D)
        with np.errstate(over="ignore"):
            self.train_sq_means_ = D2.mean(axis=0)
            self.grand_sq_mean_ = float(self._in_range(self.train_sq_means_, D).mean())
        self._n_features_out = D.shape[0]
        return D2, D

    def fit(self, D: ArrayLike, y: object = None) -> Self:
        """Store the centring statistics of the training dissimilarities D (n × n)."""
        with blas_for_data(D):  # one BLAS thread for a small problem (krein._threads)
            self._fit_squares(D)
            return self

    def fit_transform(self, D: ArrayLike, y: object = None) -> NDArray[np.float64]:
        """Fit and return the training kernel K = −½ H (D ∘ D) H (exactly symmetric)."""
        D2, D = self._fit_squares(D)
        with np.errstate(over="ignore", invalid="ignore"):
            K = double_center(D2, self.grand_sq_mean_, self.train_sq_means_)
        return self._in_range(K, D)

    def transform(self, D: ArrayLike) -> NDArray[np.float64]:
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
        D = check_test_distances(self, D)
        D2 = self._squares(D)
        with np.errstate(over="ignore", invalid="ignore"):
            K = double_center(D2, self.grand_sq_mean_, D2.mean(axis=1), self.train_sq_means_)
        return self._in_range(K, D)

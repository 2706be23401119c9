"""The spectrum of a symmetric (possibly indefinite) kernel matrix.

A symmetric kernel matrix has a real eigendecomposition ``K = U Λ Uᵀ``. Splitting the eigenvalues by
sign gives the Kreĭn decomposition ``K = K₊ − K₋`` into two positive semidefinite matrices with
disjoint spectral support (Oglic & Gärtner 2018, Sec. 2), and the indefiniteness measure

    ι = Σ_{λᵢ < 0} |λᵢ| / Σᵢ |λᵢ|  ∈ [0, 1]

of Alabdulmohsin et al. (2015), used in Sec. 5 of that paper. :class:`SpectrumTransformer` implements
the classical ways of making an indefinite kernel positive semidefinite (clip, flip, shift, square)
with a consistent treatment of test points (Sec. 4 of the same paper).
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
from collections.abc import Iterator
from typing import Literal, NamedTuple, Self

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ._threads import blas_for_data, blas_for_rows
from ._validation import check_precomputed_test_kernel, check_square_kernel, reject_sparse

__all__ = [
    "Eigendecomposition",
    "SpectrumTransformer",
    "center_kernel",
    "eigendecompose",
    "indefiniteness",
    "krein_decomposition",
    "reuse_eigendecompositions",
    "spectrum_summary",
]


class Eigendecomposition(NamedTuple):
    """Eigenvalues in ascending order and the matching orthonormal eigenvectors (columns)."""

    values: np.ndarray
    vectors: np.ndarray


def center_kernel(K: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The centred kernel ``H K H`` (``H = I − 11ᵀ/n``) and the column means of ``K``."""
    column_means = K.mean(axis=0)
    centered = K - column_means[None, :]
    centered -= column_means[:, None]
    centered += column_means.mean()
    return centered, column_means


class EigendecompositionCache:
    """The eigendecompositions computed inside one :func:`reuse_eigendecompositions` block.

    Keyed by the matrix's shape and a hash of its bytes, so that every estimator fitted on the same
    kernel matrix (bitwise) inside the block shares one ``eigh``; the arrays handed out are read-only.

    Attributes
    ----------
    n_computed : int
        Eigendecompositions computed (cache misses).
    n_reused : int
        Calls answered from the cache.
    """

    def __init__(self):
        self._entries = {}
        self.n_computed = 0
        self.n_reused = 0

    @staticmethod
    def key(K):
        return K.shape, hashlib.blake2b(np.ascontiguousarray(K).view(np.uint8), digest_size=16).digest()


_ACTIVE_CACHE: contextvars.ContextVar[EigendecompositionCache | None] = contextvars.ContextVar(
    "krein_eigendecomposition_cache", default=None
)


@contextlib.contextmanager
def reuse_eigendecompositions() -> Iterator[EigendecompositionCache]:
    """Within the block, :func:`eigendecompose` computes each distinct matrix's eigendecomposition once.

    A search over estimators that all eigendecompose the same training kernel — spectrum treatments,
    Kreĭn least squares over (λ₊, λ₋), the squared-hinge SVM, IKLR, the proxy SVM — then costs one
    ``eigh`` per kernel matrix (:class:`~krein.model_selection.KreinClassifierCV` relies on it).
    Yields the :class:`EigendecompositionCache`, whose ``n_computed`` counts the ``eigh`` calls.
    Nested blocks share the outer cache.

    Examples
    --------
    >>> import numpy as np
    >>> from krein.spectral import SpectrumTransformer, reuse_eigendecompositions
    >>> K = np.array([[2.0, 1.0], [1.0, -1.0]])
    >>> with reuse_eigendecompositions() as cache:
    ...     _ = SpectrumTransformer("clip").fit(K), SpectrumTransformer("flip").fit(K)
    >>> cache.n_computed, cache.n_reused
    (1, 1)
    """
    outer = _ACTIVE_CACHE.get()
    if outer is not None:
        yield outer
        return
    cache = EigendecompositionCache()
    token = _ACTIVE_CACHE.set(cache)
    try:
        yield cache
    finally:
        _ACTIVE_CACHE.reset(token)


def eigendecompose(K: ArrayLike, *, name: str = "K", overwrite: bool = False) -> Eigendecomposition:
    """Eigendecomposition ``K = U diag(λ) Uᵀ`` of a symmetric matrix.

    Uses LAPACK's divide-and-conquer symmetric solver (``syevd``) through :func:`scipy.linalg.eigh`,
    falling back to the relatively robust representation driver (``syevr``) if it fails to converge.
    Inside a :func:`reuse_eigendecompositions` block a matrix seen before (bitwise) is not decomposed
    again: the same read-only arrays are returned.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Symmetric matrix; asymmetry beyond rounding is an error.
    name : str, default="K"
        Argument name for error messages.
    overwrite : bool, default=False
        Allow the solver to destroy ``K`` (saves one n×n copy when ``K`` is float64; ignored inside a
        :func:`reuse_eigendecompositions` block).

    Returns
    -------
    Eigendecomposition
        ``(values, vectors)`` with ``values`` ascending.
    """
    K = check_square_kernel(K, name)
    cache = _ACTIVE_CACHE.get()
    if cache is None:
        return _eigh(K, overwrite)
    key = cache.key(K)
    if key in cache._entries:
        cache.n_reused += 1
        return cache._entries[key]
    values, vectors = _eigh(K, overwrite=False)
    values.flags.writeable = vectors.flags.writeable = False
    cache._entries[key] = result = Eigendecomposition(values, vectors)
    cache.n_computed += 1
    return result


def _eigh(K, overwrite):
    with blas_for_rows(K.shape[0]):  # one BLAS thread for a small matrix (krein._threads)
        try:
            values, vectors = scipy.linalg.eigh(K, driver="evd", overwrite_a=overwrite, check_finite=False)
        except np.linalg.LinAlgError:  # pragma: no cover - LAPACK convergence failure is rare
            values, vectors = scipy.linalg.eigh(K, driver="evr", check_finite=False)
    return Eigendecomposition(values, vectors)


def _eigenvalues(K_or_eigenvalues, name):
    reject_sparse(K_or_eigenvalues, name)
    array = np.asarray(K_or_eigenvalues, dtype=float)
    if array.ndim == 1:
        if not np.all(np.isfinite(array)):
            raise ValueError(f"{name} contains NaN or infinity.")
        return array
    with blas_for_rows(array.shape[0]):
        return scipy.linalg.eigvalsh(check_square_kernel(array, name), check_finite=False)


def indefiniteness(K_or_eigenvalues: ArrayLike) -> float:
    """The indefiniteness ι = Σ_{λ<0} |λ| / Σ |λ| of a kernel matrix or of its eigenvalues.

    ι = 0 for a positive semidefinite matrix and ι = 1 for a negative semidefinite one (Oglic &
    Gärtner 2018, Sec. 5, after Alabdulmohsin et al. 2015).

    Parameters
    ----------
    K_or_eigenvalues : array-like of shape (n, n) or (n,)
        A symmetric matrix, or its eigenvalues.

    Returns
    -------
    float
    """
    values = _eigenvalues(K_or_eigenvalues, "K_or_eigenvalues")
    total = np.sum(np.abs(values))
    if total == 0:
        raise ValueError("The kernel matrix is zero: its indefiniteness is undefined.")
    return float(np.sum(np.abs(values[values < 0])) / total)


def spectrum_summary(K_or_eigenvalues: ArrayLike) -> dict[str, float]:
    """Spectrum statistics of a kernel: ``n``, min/max eigenvalue, #positive, #negative, ι.

    Eigenvalues whose magnitude is below ``n · eps · max|λ|`` count as zero (neither sign).
    """
    values = _eigenvalues(K_or_eigenvalues, "K_or_eigenvalues")
    tolerance = values.size * np.finfo(float).eps * np.max(np.abs(values), initial=0.0)
    return {
        "n": int(values.size),
        "min_eigenvalue": float(values.min()),
        "max_eigenvalue": float(values.max()),
        "n_positive": int(np.sum(values > tolerance)),
        "n_negative": int(np.sum(values < -tolerance)),
        "indefiniteness": indefiniteness(values),
    }


def krein_decomposition(K: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The Kreĭn decomposition ``K = K₊ − K₋`` of a symmetric matrix.

    ``K₊ = U₊ Λ₊ U₊ᵀ`` and ``K₋ = U₋ |Λ₋| U₋ᵀ`` collect the positive and negative parts of the
    spectrum: both are positive semidefinite and ``K₊ K₋ = 0`` (disjoint spectral support). Oglic &
    Gärtner (2018), Sec. 2; Definition of a reproducing kernel Kreĭn space.

    Parameters
    ----------
    K : array-like of shape (n, n)

    Returns
    -------
    K_plus, K_minus : ndarray of shape (n, n)
    """
    values, vectors = eigendecompose(K)
    positive = values > 0
    U_plus, U_minus = vectors[:, positive], vectors[:, ~positive]
    K_plus = (U_plus * values[positive]) @ U_plus.T
    K_minus = (U_minus * -values[~positive]) @ U_minus.T
    return K_plus, K_minus


class SpectrumTransformer(TransformerMixin, BaseEstimator):
    """Make an indefinite kernel positive semidefinite by transforming its spectrum.

    Fit on the ``n×n`` training kernel ``K = U Λ Uᵀ``; ``fit_transform`` returns ``U f(Λ) Uᵀ`` and
    ``transform`` maps a ``t×n`` test-versus-train kernel to consistent rows:

    ========  ======================  ====================================================
    method    f(λ)                    test rows ``k ↦``
    ========  ======================  ====================================================
    clip      max(λ, 0)               ``k U₊U₊ᵀ`` (linear map of Chen et al. 2009)
    flip      |λ|                     ``k U sign(Λ) Uᵀ`` (Chen et al. 2009)
    shift     λ − min(λ_min, 0)       ``k`` (Wu et al. 2005: shifting the joint matrix only
                                      changes its diagonal, so test-versus-train entries stay)
    square    λ²                      ``k K + k(x, x) k`` (Wu et al. 2005: the test block of the
                                      squared joint matrix); ``k K`` when no diagonal is given
    none      λ                       ``k``
    ========  ======================  ====================================================

    For clip and flip, transforming the training rows as if they were test rows reproduces the
    training transform exactly (``K P = U f(Λ) Uᵀ``); see Sec. 4 of Oglic & Gärtner (2018).

    Parameters
    ----------
    method : {"clip", "flip", "shift", "square", "none"}, default="clip"

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (n_train,)
        Eigenvalues of the training kernel (ascending).
    eigenvectors_ : ndarray of shape (n_train, n_train)
    transformed_eigenvalues_ : ndarray of shape (n_train,)
        ``f(eigenvalues_)``.
    shift_ : float
        Amount added to the spectrum by ``method="shift"`` (0 otherwise).
    indefiniteness_ : float
        ι of the training kernel.
    n_features_in_ : int
        Number of training samples (columns expected from test kernels).

    See Also
    --------
    krein.svm.KreinSVC : An SVM on the flip-spectrum kernel with its out-of-sample map.
    krein.spectral.krein_decomposition : The decomposition K = K₊ − K₋.

    Examples
    --------
    >>> from krein.spectral import SpectrumTransformer
    >>> from krein.kernels import Sigmoid
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3))
    >>> K = Sigmoid()(X)
    >>> print(round(np.linalg.eigvalsh(K).min(), 1))  # K is indefinite
    -14.9
    >>> K_clip = SpectrumTransformer(method="clip").fit_transform(K)
    >>> bool(np.linalg.eigvalsh(K_clip).min() > -1e-10)  # positive semidefinite
    True
    """

    _parameter_constraints = {"method": [StrOptions({"clip", "flip", "shift", "square", "none"})]}

    def __init__(self, method: Literal["clip", "flip", "shift", "square", "none"] = "clip") -> None:
        self.method = method

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = True
        return tags

    def fit(self, X: ArrayLike, y: object = None) -> Self:
        """Eigendecompose the training kernel ``X`` (shape ``(n, n)``)."""
        with blas_for_data(X):  # one BLAS thread for a small problem (krein._threads)
            self._validate_params()
            X = validate_data(self, X, reset=True)
            values, vectors = eigendecompose(X, name="X")
            self.eigenvalues_, self.eigenvectors_ = values, vectors
            self.shift_ = float(max(0.0, -values[0])) if self.method == "shift" else 0.0
            self.transformed_eigenvalues_ = self._spectral_map(values)
            if not np.any(values):
                raise ValueError("X is the zero matrix: there is no spectrum to transform.")
            self.indefiniteness_ = indefiniteness(values)
            return self

    def _spectral_map(self, values):
        method = self.method
        if method == "clip":
            return np.maximum(values, 0.0)
        if method == "flip":
            return np.abs(values)
        if method == "shift":
            return values + self.shift_
        if method == "square":
            return values**2
        return values.copy()

    def fit_transform(self, X: ArrayLike, y: object = None) -> NDArray[np.float64]:
        """Fit, then return the transformed training kernel ``U f(Λ) Uᵀ``."""
        self.fit(X, y)
        values = self.transformed_eigenvalues_  # non-negative but for "none"
        if self.method == "none":
            U = self.eigenvectors_
            return (U * values) @ U.T
        # A Aᵀ with A = U f(Λ)^½ over the non-zero f(λ): a symmetric rank-k update (half a product's
        # flops, fewer still for clip), exactly symmetric
        kept = values > 0
        A = self.eigenvectors_[:, kept] * np.sqrt(values[kept])
        with blas_for_data(A):
            return A @ A.T

    def transform(self, X: ArrayLike, diagonal: ArrayLike | None = None) -> NDArray[np.float64]:
        """Map test-versus-train kernel rows consistently with the training transform.

        Parameters
        ----------
        X : array-like of shape (n_test, n_train)
        diagonal : array-like of shape (n_test,), default=None
            Self-similarities ``k(x, x)`` of the test points; used only by ``method="square"``.

        Returns
        -------
        ndarray of shape (n_test, n_train)
        """
        check_is_fitted(self)
        X = check_precomputed_test_kernel(X, self)
        U, values = self.eigenvectors_, self.eigenvalues_
        if self.method == "clip":
            U_plus = U[:, values > 0]
            return (X @ U_plus) @ U_plus.T
        if self.method == "flip":
            return ((X @ U) * np.sign(values)) @ U.T
        if self.method == "square":
            result = ((X @ U) * values) @ U.T
            if diagonal is not None:
                diagonal = np.asarray(diagonal, dtype=float)
                if diagonal.shape != (X.shape[0],):
                    raise ValueError(f"diagonal must have shape ({X.shape[0]},), got {diagonal.shape}.")
                result += diagonal[:, None] * X
            return result
        return X.copy()

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
import warnings
from collections.abc import Iterator
from typing import NamedTuple

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ._validation import check_precomputed_test_kernel, check_square_kernel
from .kernels import block_rows

__all__ = [
    "Eigendecomposition",
    "SpectralRepresentation",
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


_ACTIVE_CACHE = contextvars.ContextVar("krein_eigendecomposition_cache", default=None)


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
    try:
        values, vectors = scipy.linalg.eigh(K, driver="evd", overwrite_a=overwrite, check_finite=False)
    except np.linalg.LinAlgError:  # pragma: no cover - LAPACK convergence failure is rare
        values, vectors = scipy.linalg.eigh(K, driver="evr", check_finite=False)
    return Eigendecomposition(values, vectors)


def _eigenvalues(K_or_eigenvalues, name):
    array = np.asarray(K_or_eigenvalues, dtype=float)
    if array.ndim == 1:
        if not np.all(np.isfinite(array)):
            raise ValueError(f"{name} contains NaN or infinity.")
        return array
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

    def __init__(self, method="clip"):
        self.method = method

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = True
        return tags

    def fit(self, X, y=None):
        """Eigendecompose the training kernel ``X`` (shape ``(n, n)``)."""
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

    def fit_transform(self, X, y=None):
        """Fit, then return the transformed training kernel ``U f(Λ) Uᵀ``."""
        self.fit(X, y)
        U = self.eigenvectors_
        return (U * self.transformed_eigenvalues_) @ U.T

    def transform(self, X, diagonal=None):
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


def is_dask_array(X):
    """Whether ``X`` is a ``dask.array.Array`` (without importing dask when it is not)."""
    return type(X).__module__.startswith("dask.") and hasattr(X, "to_delayed")


def warn_unrelated_rows(rows, owner, stacklevel=3):
    """Warn when test points have an all-zero kernel row (nothing in the data is similar to them).

    Such a point is unrelated to every training point or landmark under the kernel (a compact-support
    kernel such as TL1 or EPANECHNIKOV with too small a bandwidth, or a Gaussian that underflows far
    from the data), so its prediction is a constant of the model, not something learned from the data.
    """
    unrelated = np.count_nonzero(~np.any(rows, axis=1))
    if unrelated:
        warnings.warn(
            f"{owner}: {unrelated} of {rows.shape[0]} test points have an all-zero kernel "
            "row (no training point or landmark is similar to them), so their predictions carry no "
            "information from the data; widen the kernel (e.g. a larger bandwidth or rho) or check "
            "that the test data are scaled like the training data.",
            UserWarning,
            stacklevel=stacklevel + 1,
        )


def kernel_rows_times(X, kernel, points, weights, offset, working_memory=None, check_finite=False):
    """``K(X, P) @ weights + offset`` in row blocks of ``working_memory`` MiB (never the t×|P| matrix).

    With ``kernel="precomputed"``, ``X`` holds test-versus-train kernel rows and ``points`` the column
    indices of ``P`` (None: every column). ``check_finite`` rejects NaN or infinity (dask chunks are
    validated here, where they are computed). Module level, so that dask can ship it to workers.
    """
    X = np.asarray(X, dtype=np.float64)
    if check_finite and not np.isfinite(X).all():
        raise ValueError("Input X contains NaN or infinity (found in a row chunk of the dask array).")
    out = np.empty((X.shape[0],) + np.shape(weights)[1:])
    width = X.shape[1] if points is None else len(points)
    step = block_rows(width, working_memory, copies=2)
    for start in range(0, X.shape[0], step):
        rows = slice(start, start + step)
        if isinstance(kernel, str):
            block = X[rows] if points is None else X[rows][:, points]
        else:
            block = kernel(X[rows], points)
        out[rows] = block @ weights + offset
    return out


class SpectralRepresentation:
    """A kernel seen through its (approximate) eigendecomposition over the training points.

    Every Kreĭn estimator of this library is written against this object (see DESIGN.md): the
    training kernel is ``K ≈ U diag(λ) Uᵀ`` with ``U`` (n×r) orthonormal and ``λ`` signed, and a
    model ``f(x) = K(x, P) β + b`` is evaluated through kernel rows against a set of *points* ``P``.
    Two producers exist: the exact eigendecomposition (:meth:`exact`, r ≤ n, ``P`` the training
    points) and the one-shot Nyström eigendecomposition of Oglic & Gärtner (2019), Sec. 2.2
    (:mod:`krein.nystroem`, r ≤ m ≪ n, ``P`` the landmarks).

    The representation owns what defines it: the kernel and the points ``P`` (indices of kernel
    columns when precomputed), the centring (the column means ``k̄`` of ``K(X, P)`` when it represents
    the centred kernel ``HKH``) and the out-of-sample map. A model fitted in eigen-coordinates ``c``
    (the training predictions are ``U diag(λ) c``) has dual coefficients ``β = E diag(λ) c`` on ``P``,
    where the *extension* ``E`` (|P|×r) maps centred kernel rows to eigen-coordinates,
    ``(K(X, P) − 1k̄ᵀ) E = U``. For the exact representation ``E = U diag(λ)⁻¹`` and ``β = U c``,
    computed without dividing by small eigenvalues. :meth:`evaluate` gives ``K(x, P) β + b`` for new
    points in memory, in blocks of ``working_memory`` MiB, or lazily for a dask array.

    Parameters
    ----------
    values : ndarray of shape (r,)
        Signed eigenvalues (no zeros).
    vectors : ndarray of shape (n, r) or None
        Orthonormal eigenvectors over the training points; ``None`` for streamed representations
        that never hold an n×r array (then :meth:`project` must be given the projections).
    extension : ndarray of shape (n_points, r) or None
        ``E`` above; ``None`` for the exact representation (``E = U diag(λ)⁻¹``).
    kernel : Kernel or "precomputed", default=None
    points : ndarray or None, default=None
        ``P``: points (n_points, d), or column indices of the kernel matrix if precomputed (None: all).
    column_means : ndarray of shape (n_points,) or None, default=None
        ``k̄`` when the representation is that of the centred kernel.
    """

    def __init__(self, values, vectors, extension=None, *, kernel=None, points=None, column_means=None):
        self.values = np.asarray(values, dtype=float)
        self.vectors = vectors
        self.extension = extension
        self.kernel, self.points, self.column_means = kernel, points, column_means

    @classmethod
    def exact(cls, K, *, rtol=None, name="K", center=False, kernel=None, points=None):
        """Exact representation of a symmetric ``K``, dropping numerically zero eigenvalues.

        Eigenvalues with ``|λ| ≤ rtol · max|λ|`` are discarded (default ``rtol = n · eps``); they
        carry no information that the data determine and would only amplify rounding. With
        ``center=True`` it represents ``HKH`` (``H = I − 11ᵀ/n``) and keeps the column means of ``K``.
        """
        column_means = None
        if center:
            K, column_means = center_kernel(K)
        values, vectors = eigendecompose(K, name=name)
        if rtol is None:
            rtol = values.size * np.finfo(float).eps
        keep = np.abs(values) > rtol * np.max(np.abs(values), initial=0.0)
        if not np.any(keep):
            raise ValueError(f"{name} is numerically zero: it has no non-zero eigenvalue.")
        return cls(values[keep], vectors[:, keep], kernel=kernel, points=points, column_means=column_means)

    @property
    def rank(self):
        """Number of retained eigenpairs r."""
        return self.values.size

    def project(self, y):
        """Eigen-coordinates ``Uᵀ y`` of a training target vector (or matrix)."""
        if self.vectors is None:
            raise ValueError("This representation holds no eigenvectors; it cannot project targets.")
        return self.vectors.T @ y

    def dual_coef(self, coef):
        """Dual coefficients ``β`` on the points ``P`` of a model with eigen-coordinates ``coef``."""
        if self.extension is None:
            beta = self.vectors @ coef
            # on the training points of a centred kernel Σβ = 0 (U ⊥ 1) up to rounding
            return beta if self.column_means is None else beta - beta.mean(axis=0)
        scaled = coef * (self.values if coef.ndim == 1 else self.values[:, None])
        return self.extension @ scaled

    def offset(self, beta):
        """``−k̄ᵀβ``: the centring of a model ``f(x) = (k_x − k̄)ᵀβ`` folded into its intercept."""
        if self.column_means is None:
            return np.zeros(np.shape(beta)[1:]) if np.ndim(beta) > 1 else 0.0
        return -(self.column_means @ beta)

    def evaluate(self, X, beta, intercept=0.0, *, working_memory=None, owner=None):
        """``K(X, P) β + intercept`` for validated test points ``X`` (kernel rows if precomputed).

        In memory when ``working_memory`` is None, otherwise in row blocks of that many MiB; a dask
        ``X`` (row chunks, all columns in one chunk) gives a lazy dask array, one task per chunk (values
        checked there). ``owner`` (a name) warns about test points with an all-zero kernel row.
        """
        beta = np.asarray(beta, dtype=float)
        args = (self.kernel, self.points, beta, intercept, working_memory)
        if is_dask_array(X):
            shape = {"drop_axis": 1} if beta.ndim == 1 else {"chunks": (X.chunks[0], (beta.shape[1],))}
            return X.map_blocks(kernel_rows_times, *args, check_finite=True, dtype=np.float64, **shape)
        if working_memory is not None:
            return kernel_rows_times(X, *args)
        rows = self.rows(X)
        if owner is not None:
            warn_unrelated_rows(rows, owner, stacklevel=3)
        return rows @ beta + intercept

    def rows(self, X):
        """The kernel rows ``K(X, P)`` of validated test points (an in-memory t×|P| array)."""
        if isinstance(self.kernel, str):
            return X if self.points is None else X[:, self.points]
        return self.kernel(X, self.points)

    def reduce_rows(self, coef, function, data):
        """One pass over the training points: ``(Σ value, Uᵀ w)``, ``(value, w) = function(U coef, data)``.

        ``function`` maps the outputs ``U coef`` of a set of training rows and the matching rows of
        ``data`` to a value (summed over the rows) and a weight per row (a loss and its derivative with
        respect to the outputs, say). Streamed producers evaluate it block by block.
        """
        value, weights = function(self.vectors @ coef, data)
        return value, self.vectors.T @ weights

    def training_rows(self, indices):
        """Rows ``U[indices]`` of the eigenvectors (the coordinates of those training points)."""
        return self.vectors[indices]

    def coordinates(self, X, *, working_memory=None):
        """Eigen-coordinates ``(K(x, P) − k̄) E`` of new points (the out-of-sample map of ``U``)."""
        E = self.extension if self.extension is not None else self.vectors / self.values
        shift = 0.0 if self.column_means is None else -(self.column_means @ E)
        return self.evaluate(X, E, shift, working_memory=working_memory)

"""``KreinPCA``: the pseudo-Euclidean embedding of an indefinite kernel or a dissimilarity."""

from __future__ import annotations

import numbers
import warnings
from typing import Self

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils._available_if import available_if
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import _check_feature_names_in, check_is_fitted

from .._base import is_precomputed
from .._parameters import store_parameters
from .._threads import blas_for_data
from .._typing import LandmarkMethod, LandmarkRank, RandomStateLike
from ..dissimilarity import DoubleCentering
from ..kernels import Kernel
from ..representation import SPECTRAL_PARAMETERS, SpectralEstimatorMixin, clamp_n_components, is_dask_array
from ..spectral import indefiniteness

__all__ = ["KreinPCA"]


def _sign_convention(vectors):
    """Signs that make each column's entry of largest magnitude positive (a deterministic sign)."""
    rows = np.argmax(np.abs(vectors), axis=0)
    signs = np.sign(vectors[rows, np.arange(vectors.shape[1])])
    signs[signs == 0] = 1.0
    return signs


def _by_magnitude(values, rcond):
    """Indices of the eigenvalues with ``|λ| > rcond · max|λ|``, by decreasing magnitude."""
    magnitude = np.abs(values)
    keep = np.flatnonzero(magnitude > rcond * np.max(magnitude, initial=0.0))
    return keep[np.argsort(-magnitude[keep], kind="stable")]


class KreinPCA(SpectralEstimatorMixin, TransformerMixin, BaseEstimator):
    """Pseudo-Euclidean embedding (Kreĭn-space PCA) of an indefinite kernel or a dissimilarity.

    A symmetric kernel matrix ``K = U Λ Uᵀ`` (centred in feature space, ``H K H``, by default) is the
    Gram matrix of the coordinates ``Y = U |Λ|^{1/2}`` under the indefinite inner product
    ``⟨y, y'⟩ = y diag(s) y'ᵀ`` with signature ``s = sign(Λ)``: ``K = Y diag(s) Yᵀ``. The ``p``
    coordinates with ``λ > 0`` span the positive part of a pseudo-Euclidean space ℝ^(p, q), the ``q``
    with ``λ < 0`` the negative part (Goldfarb 1984; Pękalska & Duin 2005, Ch. 3; the Kreĭn
    decomposition ``K = K₊ − K₋`` of Oglic & Gärtner 2018, Sec. 2). Coordinates are ordered by |λ|, so
    a truncation to ``n_components`` coordinates keeps the best approximation of ``K`` of that rank in
    both signature parts, where scikit-learn's ``KernelPCA`` keeps only the positive part. For a positive
    semidefinite kernel the embedding equals ``KernelPCA`` with the same ``n_components`` (up to the
    sign of each coordinate): ``n_components`` counts coordinates, as in ``KernelPCA``, and the number
    of Nyström landmarks is ``n_landmarks`` (the one exception to the library's naming table).

    A dissimilarity matrix ``D`` is embedded through classical scaling (``dissimilarity=True``):
    ``K = −½ H (D ∘ D) H`` (:class:`~krein.dissimilarity.DoubleCentering`), and then
    ``‖yᵢ − yⱼ‖²_s = Dᵢⱼ²`` exactly when all coordinates are kept — the pseudo-Euclidean embedding of
    Pękalska & Duin (2005), Ch. 3. ``make_pipeline(DoubleCentering(), KreinPCA(kernel="precomputed"))``
    is equivalent.

    New rows get consistent coordinates through their kernel rows: ``y(x) = k_c(x, X) U Λ⁻¹ |Λ|^{1/2}``
    (the Nyström formula of kernel PCA with ``k_c`` the centred row), so the training rows passed to
    :meth:`transform` give back the fitted coordinates. With ``n_landmarks=m`` the spectrum is that of
    the one-shot Nyström eigendecomposition on ``m`` landmarks (Oglic & Gärtner 2019, Sec. 2.2; the
    shared :func:`~krein.representation.nystroem_representation`, which centres it as ``H K̃ H``),
    and the test coordinates need kernel rows against the landmarks
    only.

    Parameters
    ----------
    kernel : Kernel, str or "precomputed", default="gaussian"
        With "precomputed", ``fit`` takes the n×n training kernel (or dissimilarities) and
        ``transform`` the t×n test-versus-train rows.
    n_components : int, default=None
        Number of coordinates kept (largest |λ| first), as in scikit-learn's ``KernelPCA``; all
        non-zero eigenvalues when None. A number above n_samples, or above the non-zero eigenvalues
        available, is reduced with a warning.
    dissimilarity : bool, default=False
        ``X`` holds dissimilarities (requires ``kernel="precomputed"``); they are double centred.
    center : bool, default=True
        Centre the kernel in feature space (``H K H``; test rows consistently). A double-centred
        dissimilarity is already centred.
    n_landmarks : int, default=None
        Number of Nyström landmarks m for a low-rank embedding; None for the exact eigendecomposition
        (above n_samples: every sample, with a warning).
    landmarks : {"uniform", "leverage", "kmeans++"}, default="uniform"
        Landmark sampler of the low-rank embedding (Oglic & Gärtner 2019, Sec. 2.3).
    landmark_rank : {"validated", "full"}, default="validated"
        Only with ``n_landmarks``: eigenpairs of the landmark block ``K_ZZ`` kept — the number of leading
        ones that minimizes the error of ``K̃`` estimated on held-out columns, or all (the plain
        Eq. (3)). The embedding's product is ``K̃`` itself, so the default is the one of least estimated
        error, as :class:`~krein.nystroem.IndefiniteNystroem`'s (the developer guide's naming table);
        the estimated error above 0.3 draws a warning.
    rcond : float, default=None
        Eigenvalues with ``|λ| ≤ rcond · max|λ|`` are numerically zero and dropped (default ``n · ε``).
    random_state : int, RandomState or None, default=None
        Landmark sampling (only with ``n_landmarks``).
    working_memory : float or None, default=None
        Only with ``n_landmarks``: MiB per block of landmark kernel columns in the streamed fit (None:
        scikit-learn's ``working_memory``), and ``transform`` in blocks of that size. A dask ``X`` is
        reduced one task per row chunk (not with ``dissimilarity=True``); ``transform`` of a dask ``X``
        is lazy. ``embedding_`` holds the n training coordinates in memory.

    Attributes
    ----------
    embedding_ : ndarray of shape (n_samples, r)
        Coordinates of the training points, ``U |Λ|^{1/2}``.
    eigenvalues_ : ndarray of shape (r,)
        Signed eigenvalues of the kept coordinates, by decreasing magnitude.
    signature_ : ndarray of shape (r,)
        ``sign(eigenvalues_)``: the Gram matrix of ``embedding_`` is ``Y diag(signature_) Yᵀ``.
    n_positive_, n_negative_ : int
        The signature (p, q) of the kept coordinates.
    spectrum_ : ndarray of shape (n_nonzero,)
        Every non-zero eigenvalue of the (centred) kernel, by decreasing magnitude.
    explained_ratio_ : ndarray of shape (r,)
        ``|λᵢ| / Σ|λ|`` over the whole spectrum, per kept coordinate.
    explained_ : ndarray of shape (2,)
        Share of ``Σ|λ|`` carried by the kept positive and by the kept negative coordinates; with
        every coordinate kept it is ``(1 − ι, ι)``.
    indefiniteness_ : float
        ι of the (centred) kernel's spectrum.
    landmark_indices_ : ndarray of shape (m,) or None
        Landmarks of the low-rank embedding (None when exact).
    representation_ : krein.representation.SpectralRepresentation
        The (centred) kernel's exact or Nyström representation (eigenvalues ascending), through
        which ``transform`` maps new points.
    kernel_ : Kernel or "precomputed"
    n_features_in_ : int

    See Also
    --------
    KreinSpectralClustering : k-means on this embedding.
    krein.nystroem.IndefiniteNystroem : Low-rank features of an indefinite kernel.
    krein.dissimilarity.DoubleCentering : The Gram matrix of a dissimilarity (classical scaling).
    sklearn.decomposition.KernelPCA : Kernel PCA for positive definite kernels.

    Examples
    --------
    >>> from krein.embedding import KreinPCA
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 3))
    >>> pca = KreinPCA(kernel="sigmoid", n_components=4).fit(X[:60])
    >>> pca.transform(X[60:]).shape  # out-of-sample rows
    (20, 4)
    >>> pca.n_positive_, pca.n_negative_  # the signature (p, q) of the embedding
    (3, 1)
    """

    _parameter_constraints = {
        **SPECTRAL_PARAMETERS,
        "n_components": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "n_landmarks": SPECTRAL_PARAMETERS["n_components"],
        "dissimilarity": ["boolean"],
        "rcond": [Interval(numbers.Real, 0, 1, closed="left"), None],
    }

    _landmark_parameter = "n_landmarks"

    def __init__(
        self,
        kernel: Kernel | str = "gaussian",
        *,
        n_components: int | None = None,
        dissimilarity: bool = False,
        center: bool = True,
        n_landmarks: int | None = None,
        landmarks: LandmarkMethod = "uniform",
        landmark_rank: LandmarkRank = "validated",
        rcond: float | None = None,
        random_state: RandomStateLike = None,
        working_memory: float | None = None,
    ) -> None:
        store_parameters(self, locals())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = self.dissimilarity
        return tags

    # ------------------------------------------------------------------ fitting
    def fit(self, X: ArrayLike, y: object = None) -> Self:
        """Embed the training data ``X`` (points, an n×n kernel or an n×n dissimilarity matrix)."""
        with blas_for_data(X):  # one BLAS thread for a small problem (krein._threads)
            self.fit_transform(X)
            return self

    def fit_transform(self, X: ArrayLike, y: object = None) -> NDArray[np.float64]:
        """Fit and return the training coordinates ``embedding_``."""
        self._validate_params()
        if self.dissimilarity and not is_precomputed(self.kernel):
            raise ValueError('dissimilarity=True needs kernel="precomputed" (X is the dissimilarity matrix).')
        data, _ = self._training_data(X)
        if self.dissimilarity:
            if is_dask_array(data):
                raise ValueError(
                    "dissimilarity=True needs the dissimilarity matrix in memory, not a dask array."
                )
            self.centering_ = DoubleCentering()
            data = self.centering_.fit_transform(data)
        representation = self._fit_representation(data, producer={"warn_poor": True})
        values, vectors = representation.values, representation.training_vectors()
        order = _by_magnitude(values, values.size * np.finfo(float).eps if self.rcond is None else self.rcond)
        if order.size == 0:
            raise ValueError(
                f"The (centred) training kernel of X with {vectors.shape[0]} samples (n_samples="
                f"{vectors.shape[0]}) is numerically zero: it has no coordinates to embed."
            )
        self.spectrum_ = values[order]
        n_samples = vectors.shape[0]
        rank = order.size
        if self.n_components is not None:
            rank = clamp_n_components(
                self.n_components, n_samples, using="n_samples coordinates", stacklevel=3
            )
        if rank > order.size:
            warnings.warn(
                f"n_components={rank} exceeds the {order.size} non-zero eigenvalues of the training "
                f"kernel; using n_components={order.size}.",
                UserWarning,
                stacklevel=2,
            )
            rank = order.size
        kept = order[:rank]
        values, flips = values[kept], _sign_convention(vectors[:, kept])
        self.eigenvalues_ = values
        self.signature_ = np.where(values > 0, 1.0, -1.0)
        self.n_positive_ = int(np.sum(values > 0))
        self.n_negative_ = rank - self.n_positive_
        total = np.sum(np.abs(self.spectrum_))
        self.explained_ratio_ = np.abs(values) / total
        self.explained_ = np.array([np.sum(values[values > 0]), -np.sum(values[values < 0])]) / total
        self.indefiniteness_ = indefiniteness(self.spectrum_)
        root = np.sqrt(np.abs(values))
        self.embedding_ = vectors[:, kept] * (flips * root)
        # the coordinates y = U_kept |Λ|^{1/2} are the eigen-coordinates c = |Λ|^{1/2}/Λ of the kept
        # eigenpairs: out of sample y(x) = (k_x − k̄) β through the representation's map
        coef = np.zeros((representation.rank, rank))
        coef[kept, np.arange(rank)] = flips * root / values
        self._dual_coef = representation.dual_coef(coef)
        self._offset = representation.offset(self._dual_coef)
        return self.embedding_.copy()

    def _exact_rtol(self):
        """``rcond``: the eigenvalues dropped as numerically zero."""
        return self.rcond

    # ------------------------------------------------------------------ transforming
    def transform(self, X: ArrayLike) -> NDArray[np.float64]:
        """Coordinates of new points, consistent with ``embedding_`` (the training rows give it back).

        Parameters
        ----------
        X : array-like of shape (n_test, n_features), or (n_test, n_train) kernel rows or
            dissimilarities against the training points when ``kernel="precomputed"``.

        Returns
        -------
        ndarray of shape (n_test, r)
        """
        check_is_fitted(self, "embedding_")
        return self._embed(self._validate_test(X), type(self).__name__)

    def _embed(self, X, owner):
        """Coordinates of validated test points (kernel rows or dissimilarities if precomputed)."""
        if self.dissimilarity:
            X = self.centering_.transform(X)
        return self.representation_.evaluate(
            X, self._dual_coef, self._offset, working_memory=self.working_memory, owner=owner
        )

    @available_if(lambda self: is_precomputed(self.kernel))
    def inverse_transform(self, X: ArrayLike) -> NDArray[np.float64]:
        """Kernel rows (or dissimilarities) against the training points of coordinates ``X``.

        Defined for precomputed input, where the embedded objects are known through their rows: the
        rows of the (centred, if ``center``) kernel are ``X diag(s) Yᵀ`` with ``Y = embedding_``, and for
        ``dissimilarity=True`` the dissimilarities are the pseudo-Euclidean distances
        ``‖x − yⱼ‖²_s = (x − yⱼ) diag(s) (x − yⱼ)ᵀ``. With every coordinate kept, the training
        coordinates give back the training kernel (centred) or ``D`` exactly. A truncated embedding can
        give negative squared distances: they are set to zero with a warning.

        Parameters
        ----------
        X : array-like of shape (n_test, r)

        Returns
        -------
        ndarray of shape (n_test, n_train)
        """
        check_is_fitted(self, "embedding_")
        X = np.asarray(X, dtype=np.float64)
        r = self.eigenvalues_.size
        if X.ndim != 2 or X.shape[1] != r:
            raise ValueError(f"X must have shape (n_samples, {r}), one column per coordinate; got {X.shape}.")
        if not np.all(np.isfinite(X)):
            raise ValueError("X contains NaN or infinity.")
        gram = (X * self.signature_) @ self.embedding_.T
        if not self.dissimilarity:
            return gram
        norms = np.sum(X**2 * self.signature_, axis=1)
        train_norms = np.sum(self.embedding_**2 * self.signature_, axis=1)
        squares = norms[:, None] + train_norms[None, :] - 2.0 * gram
        scale = np.max(np.abs(squares), initial=0.0)
        negative = squares < -1e3 * np.finfo(float).eps * max(scale, np.finfo(float).tiny)
        if np.any(negative):
            warnings.warn(
                f"{int(negative.sum())} squared pseudo-Euclidean distances are negative (down to "
                f"{squares.min():.3g}): the kept coordinates do not embed these dissimilarities; they are "
                "set to 0. Keep more coordinates (n_components) to reconstruct D.",
                UserWarning,
                stacklevel=2,
            )
        return np.sqrt(np.maximum(squares, 0.0))

    def get_feature_names_out(self, input_features: ArrayLike | None = None) -> NDArray[np.object_]:
        """Names ``kreinpca_pos0, kreinpca_pos1, …, kreinpca_neg0, …`` in coordinate order.

        Positive-part coordinates are numbered ``pos0, pos1, …`` and negative ones ``neg0, …``, each
        by decreasing |λ|.
        """
        check_is_fitted(self, "embedding_")
        _check_feature_names_in(self, input_features, generate_names=False)
        positive = self.signature_ > 0
        index = np.where(positive, np.cumsum(positive) - 1, np.cumsum(~positive) - 1)
        names = [f"kreinpca_{'pos' if p else 'neg'}{i}" for p, i in zip(positive, index, strict=True)]
        return np.asarray(names, dtype=object)

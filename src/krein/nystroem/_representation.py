"""The Nyström producer of :class:`~krein.spectral.SpectralRepresentation`, in memory or streamed.

Every low-rank Kreĭn estimator (Oglic & Gärtner 2019, Sec. 2.4–2.5) needs the one-shot
eigendecomposition ``K̃ = Ũ Λ Ũᵀ`` with ``Ũ = K_XZ E`` and the projections ``Ũᵀ y``. Both are
functions of the Gram matrix ``Lᵀ L`` and the moment ``Lᵀ y`` with ``L = K_XZ U_Z |D|^{-1/2}``, which
are sums over row chunks. The streamed producer accumulates exactly these within a memory budget (or on
a Dask cluster) and never holds an n×m array: fit memory is ``O(m²)`` beyond the data.
"""

from __future__ import annotations

import numpy as np

from ..spectral import SpectralRepresentation
from ._approximation import eigen_from_gram, landmark_factor
from ._landmarks import select_landmarks
from ._source import KernelColumns

__all__ = ["NystroemRepresentation", "StreamedRepresentation", "nystroem_representation"]


class _LandmarkCoordinates(SpectralRepresentation):
    """What the Nyström representations share: ``Ũ = L W`` and the signature ``S`` of ``K_ZZ``.

    The paper's own low-rank models (Oglic & Gärtner 2019, Sec. 2.4–2.5) are written in the landmark
    coordinates ``z`` of the features ``Φ = L S`` (``L = K_XZ U_Z |D|^{-1/2}``): ``f = Φ z`` on the
    training points and ``f(x) = k_x U_Z |D|^{-1/2} S z`` out of sample, with the Kreĭn-space split
    ``‖f₊‖² = ‖z₊‖²``, ``‖f₋‖² = ‖z₋‖²`` by the signs ``S`` of the eigenvalues of ``K_ZZ``. A model with
    training predictions ``Ũ u`` has ``Φ z = L W u``, i.e. ``z = S W u`` (:attr:`landmark_coordinates`).
    """

    def __init__(self, values, extension, *, W, signature):
        self._W, self.landmark_signature = W, signature
        super().__init__(values, None, extension)

    @property
    def landmark_coordinates(self):
        """``C = S W`` (r₀×r): the landmark coordinates ``z = C u`` of eigen-coordinates ``u``."""
        return self.landmark_signature[:, None] * self._W


class NystroemRepresentation(_LandmarkCoordinates):
    """An in-memory Nyström representation holding ``L = K_XZ U_Z |D|^{-1/2}`` (n×r₀) and ``W``.

    The eigenvectors ``Ũ = L W`` are formed on first access of ``vectors`` (one n×r₀×r product);
    ``project(y) = Wᵀ (Lᵀ y)`` never forms them, so a fit that needs only projections costs
    ``2m²n`` flops for ``L`` and ``LᵀL`` instead of ``3m²n``.
    """

    def __init__(self, values, extension, *, features, W, signature):
        self._features = features
        super().__init__(values, extension, W=W, signature=signature)

    @property
    def vectors(self):
        """Orthonormal eigenvectors ``Ũ`` (n×r)."""
        if self._vectors is None:
            self._vectors = self._features @ self._W
        return self._vectors

    @vectors.setter
    def vectors(self, value):
        self._vectors = value

    def project(self, y):
        """Eigen-coordinates ``Ũᵀ y = Wᵀ (Lᵀ y)``."""
        return self._W.T @ (self._features.T @ np.asarray(y, dtype=np.float64))


class StreamedRepresentation(_LandmarkCoordinates):
    """A Nyström representation that holds no n×r eigenvectors.

    ``project(y)`` returns ``Ũᵀ y = Wᵀ Lᵀ y``: from the moment accumulated in the fitting pass when
    ``y`` equals the targets given then, otherwise by one more streamed pass over the data.

    Parameters
    ----------
    values : ndarray of shape (r,)
    extension : ndarray of shape (m, r)
    columns : KernelColumns
    landmark_indices : ndarray of shape (m,)
    W : ndarray of shape (r₀, r)
        ``Ũ = L W``.
    signature : ndarray of shape (r₀,)
        Signs of the kept eigenvalues of ``K_ZZ``.
    right : ndarray of shape (m, r₀)
        ``L = K_XZ right``.
    targets, projection : ndarray or None
        Targets of the fitting pass and their projections ``Ũᵀ y``.
    working_memory : float or None
    """

    def __init__(
        self,
        values,
        extension,
        *,
        columns,
        landmark_indices,
        W,
        signature,
        right,
        targets=None,
        projection=None,
        working_memory=None,
    ):
        super().__init__(values, extension, W=W, signature=signature)
        self._columns = columns
        self._landmark_indices = landmark_indices
        self._right = right
        self._targets, self._projection = targets, projection
        self._working_memory = working_memory

    def project(self, y):
        """Eigen-coordinates ``Ũᵀ y`` of a training target vector (or matrix)."""
        if self._projection is not None and y is self._targets:
            return self._projection.copy()
        if self._projection is not None and not hasattr(y, "dask") and not hasattr(self._targets, "dask"):
            y_array = np.asarray(y, dtype=np.float64)
            if y_array.shape == self._targets.shape and np.array_equal(y_array, self._targets):
                return self._projection.copy()
        _, moment = self._columns.moments(
            self._landmark_indices, self._right, y, gram=False, working_memory=self._working_memory
        )
        return self._W.T @ moment


def nystroem_representation(
    kernel,
    X,
    *,
    n_components,
    landmarks="uniform",
    rank=None,
    sketch_size=None,
    rcond=None,
    random_state=None,
    working_memory=None,
    y=None,
):
    """One-shot Nyström eigendecomposition of the kernel matrix of ``X`` (Oglic & Gärtner 2019, Sec. 2.2).

    Parameters
    ----------
    kernel : Kernel or "precomputed"
        With "precomputed", ``X`` is the n×n training kernel and the landmark columns are ``X[:, idx]``.
    X : ndarray or dask array of shape (n, d) (or (n, n) if precomputed)
        Validated training data. A dask array (chunked by rows) is reduced chunk by chunk where it
        lives; on a ``dask.distributed`` cluster when a client is active.
    n_components : int
        Number of landmarks m (≤ n).
    landmarks : {"uniform", "leverage", "kmeans++"}, default="uniform"
        Landmark sampler (Sec. 2.3; see :func:`select_landmarks`).
    rank : int, default=None
        Keep the ``rank`` eigenpairs of largest magnitude (all resolved ones, at most m, when None).
    sketch_size : int, default=None
        Size of the uniform sketch of the leverage and K-means++ samplers (default m).
    rcond : float, default=None
        Cutoff of the landmark block (default ``m · ε``; see :func:`landmark_factor`).
    random_state : int, RandomState or None
    working_memory : float, default=None
        If given (MiB), stream: the kernel columns are reduced in row blocks of this size and the
        returned representation holds no n×r array (``vectors is None``). Dask inputs always stream.
    y : array-like of shape (n,) or (n, t), default=None
        Targets whose projections ``Ũᵀ y`` a streamed fit accumulates in the same pass.

    Returns
    -------
    representation : SpectralRepresentation
        ``values`` Λ (by decreasing magnitude), ``vectors`` Ũ (n×r, orthonormal) or None when streamed,
        ``extension`` E (m×r) with ``K(X, Z) E = Ũ``.
    landmark_indices : ndarray of shape (m,)
        Sorted indices of the landmarks ``Z = X[landmark_indices]``.
    """
    columns = KernelColumns(kernel, X)
    indices = select_landmarks(
        columns,
        n_components,
        landmarks,
        sketch_size=sketch_size,
        rank=rank,
        random_state=random_state,
        working_memory=working_memory,
    )
    factor = landmark_factor(columns.landmark_block(indices), rcond=rcond)
    if working_memory is None and not columns.distributed:
        L = columns.columns(indices) @ factor.right
        values, W = eigen_from_gram(L.T @ L, factor.signature, rank=rank)
        return NystroemRepresentation(
            values, factor.right @ W, features=L, W=W, signature=factor.signature
        ), indices
    gram, moment = columns.moments(indices, factor.right, y, working_memory=working_memory)
    values, W = eigen_from_gram(gram, factor.signature, rank=rank)
    targets = y if y is None or hasattr(y, "dask") else np.asarray(y, dtype=np.float64)
    representation = StreamedRepresentation(
        values,
        factor.right @ W,
        columns=columns,
        landmark_indices=indices,
        W=W,
        signature=factor.signature,
        right=factor.right,
        targets=targets,
        projection=None if moment is None else W.T @ moment,
        working_memory=working_memory,
    )
    return representation, indices

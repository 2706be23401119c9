"""Clustering for indefinite similarities: Kreĭn-space kernel k-means and signed spectral clustering."""

from __future__ import annotations

import numbers
import warnings
from typing import Literal, Self

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import _num_samples, check_is_fitted

from .._parameters import store_parameters
from .._threads import blas_for_data
from .._typing import LandmarkMethod, LandmarkRank, RandomStateLike
from ..kernels import Kernel
from ..representation import (
    SPECTRAL_PARAMETERS,
    UNCENTRED_SPECTRAL_PARAMETERS,
    DeferredRepresentation,
    SpectralEstimatorMixin,
    clamp_n_components,
    is_dask_array,
)
from ._pca import KreinPCA

__all__ = ["KreinKMeans", "KreinSpectralClustering", "krein_kmeans_objective"]


def _check_n_clusters(n_clusters, n_samples):
    if n_samples < n_clusters:
        raise ValueError(
            f"X has {n_samples} samples (n_samples={n_samples}), fewer than n_clusters={n_clusters}: "
            "every cluster needs at least one sample."
        )


class _LowRankGram:
    """The n×n matrix ``Φ diag(s) Φᵀ`` of a low-rank embedding (features Φ, n×r, signature s), never
    formed: the diagonal, products ``K M``, columns ``K[:, j]`` and magnitude the k-means iterations
    read, in O(nr) per column and O(nrk) per product."""

    def __init__(self, features, signature):
        self.features, self.signature = features, signature
        self.shape = (features.shape[0], features.shape[0])

    def diagonal(self):
        return np.einsum("ir,ir,r->i", self.features, self.features, self.signature)

    def __matmul__(self, other):
        return self.features @ (self.signature[:, None] * (self.features.T @ other))

    def __getitem__(self, index):
        _, columns = index  # K[:, j]: the columns of the points j (every row)
        return self.features @ (self.signature * self.features[columns]).T

    def magnitude(self):
        """A bound on ``max |K_ij|``: ``max ‖Φᵢ‖²`` (Cauchy–Schwarz)."""
        return float(np.max(np.einsum("ir,ir->i", self.features, self.features)))


def _magnitude(K):
    """``max |K_ij|`` of a kernel matrix, or a bound on it for a :class:`_LowRankGram`."""
    return K.magnitude() if isinstance(K, _LowRankGram) else float(np.max(np.abs(K)))


def _cluster_statistics(K, labels, k):
    """``S[i, c] = Σ_{j∈c} K_ij``, cluster sizes and ``T_c = Σ_{i,j∈c} K_ij``."""
    onehot = np.zeros((labels.size, k))
    onehot[np.arange(labels.size), labels] = 1.0
    S = K @ onehot
    return S, onehot.sum(axis=0), np.einsum("ic,ic->c", onehot, S)


def _distances(diagonal, S, counts, T):
    """Squared pseudo-Euclidean distances ``‖φᵢ − μ_c‖²_K = K_ii − 2 S_ic/n_c + T_c/n_c²`` (n×k)."""
    return diagonal[:, None] - 2.0 * S / counts + T / counts**2


def krein_kmeans_objective(K: ArrayLike, labels: ArrayLike) -> float:
    """The k-means objective of a partition under a (possibly indefinite) kernel.

    ``J = Σ_c Σ_{i∈c} ‖φᵢ − μ_c‖²_K = Σᵢ K_ii − Σ_c T_c / n_c`` with ``T_c = Σ_{i,j∈c} K_ij``; equally
    ``Σ_c (1 / 2n_c) Σ_{i,j∈c} d²ᵢⱼ`` with the squared pseudo-Euclidean distances
    ``d²ᵢⱼ = K_ii + K_jj − 2 K_ij``. It may be negative for an indefinite kernel.

    Parameters
    ----------
    K : ndarray of shape (n, n)
    labels : array-like of shape (n,)
        Cluster labels ``0 … k−1``.

    Returns
    -------
    float
    """
    labels = np.asarray(labels)
    k = int(labels.max()) + 1
    K = K if isinstance(K, _LowRankGram) else np.asarray(K, dtype=float)
    _, counts, T = _cluster_statistics(K, labels, k)
    nonempty = counts > 0
    return float(K.diagonal().sum() - np.sum(T[nonempty] / counts[nonempty]))


def _kmeanspp_labels(K, k, rng):
    """Initial partition: k-means++ seeds under the pseudo-Euclidean distance, nearest-seed labels.

    Seeds are drawn with probability proportional to the squared distance to the nearest seed so far,
    negative squared distances (possible in a Kreĭn space) counting as zero; each seed keeps its own
    label, so no cluster starts empty.
    """
    n = K.shape[0]
    diagonal = K.diagonal()
    seeds = [int(rng.randint(n))]
    closest = diagonal + diagonal[seeds[0]] - 2.0 * K[:, seeds[0]]
    for _ in range(1, k):
        weights = np.maximum(closest, 0.0)
        weights[seeds] = 0.0
        if weights.sum() > 0:
            seed = int(rng.choice(n, p=weights / weights.sum()))
        else:
            seed = int(rng.choice(np.setdiff1d(np.arange(n), seeds)))
        seeds.append(seed)
        closest = np.minimum(closest, diagonal + diagonal[seed] - 2.0 * K[:, seed])
    seeds = np.asarray(seeds)
    distances = diagonal[:, None] + diagonal[seeds][None, :] - 2.0 * K[:, seeds]
    labels = np.argmin(distances, axis=1)
    labels[seeds] = np.arange(k)
    return labels


def _hartigan(K, labels, k, max_iter, tol):
    """Monotone k-means in a Kreĭn space: guarded batch steps, then Hartigan's single-point moves.

    A batch (Lloyd) reassignment is kept only if it lowers the objective J exactly; then every point is
    moved to the cluster that lowers J most, ``ΔJ = n_b/(n_b+1) d(i, b) − n_a/(n_a−1) d(i, a)``
    (Hartigan & Wong 1979; an algebraic identity, valid for an indefinite kernel), until no move lowers
    J by more than ``tol``. J strictly decreases over finitely many partitions: no cycle is possible.
    Returns the labels, the number of passes and whether the passes ran out.
    """
    diagonal = K.diagonal()
    S, counts, T = _cluster_statistics(K, labels, k)
    objective = diagonal.sum() - np.sum(T / counts)
    for iteration in range(1, max_iter + 1):
        candidate = np.argmin(_distances(diagonal, S, counts, T), axis=1)
        if np.unique(candidate).size == k and np.any(candidate != labels):
            S_new, counts_new, T_new = _cluster_statistics(K, candidate, k)
            new_objective = diagonal.sum() - np.sum(T_new / counts_new)
            if new_objective < objective - tol:
                labels, S, counts, T, objective = candidate, S_new, counts_new, T_new, new_objective
                continue
        moved = False
        for i in range(labels.size):
            a = labels[i]
            if counts[a] == 1:
                continue
            d = diagonal[i] - 2.0 * S[i] / counts + T / counts**2
            change = counts / (counts + 1.0) * d - counts[a] / (counts[a] - 1.0) * d[a]
            change[a] = 0.0
            b = int(np.argmin(change))
            if change[b] < -tol:
                column = K[:, i]
                T[a] += diagonal[i] - 2.0 * S[i, a]
                T[b] += diagonal[i] + 2.0 * S[i, b]
                S[:, a] -= column
                S[:, b] += column
                counts[a] -= 1.0
                counts[b] += 1.0
                labels[i] = b
                objective += change[b]
                moved = True
        if not moved:
            return labels, iteration, False
        S, counts, T = _cluster_statistics(K, labels, k)  # no drift from the incremental updates
        objective = diagonal.sum() - np.sum(T / counts)
    return labels, max_iter, True


def _lloyd(K, labels, k, max_iter):
    """The textbook kernel k-means iteration (batch nearest-mean assignment) on an indefinite kernel.

    Not a descent method here: the cluster mean is a saddle point, not a minimizer, of
    ``Σ_{i∈c} ‖φᵢ − μ‖²_K`` when the inner product is indefinite, so J can rise and the iteration can
    cycle. A repeated partition stops it (returned as cycling); an emptied cluster takes the point
    farthest from its own mean.
    """
    diagonal = K.diagonal()
    seen = {labels.tobytes()}
    for iteration in range(1, max_iter + 1):
        S, counts, T = _cluster_statistics(K, labels, k)
        distances = _distances(diagonal, S, counts, T)
        new = np.argmin(distances, axis=1)
        for c in np.setdiff1d(np.arange(k), new):
            own = distances[np.arange(new.size), new]
            own[np.isin(new, np.flatnonzero(np.bincount(new, minlength=k) == 1))] = -np.inf
            new[int(np.argmax(own))] = c
        if np.array_equal(new, labels):
            return labels, iteration, False
        if new.tobytes() in seen:
            return new, iteration, True
        seen.add(new.tobytes())
        labels = new
    return labels, max_iter, True


class KreinKMeans(SpectralEstimatorMixin, ClusterMixin, BaseEstimator):
    """Kernel k-means in the Kreĭn space of an indefinite kernel.

    Minimizes the k-means objective of a partition into ``n_clusters`` clusters under the indefinite
    inner product of the kernel,

        ``J = Σ_c Σ_{i∈c} ‖φᵢ − μ_c‖²_K = Σᵢ K_ii − Σ_c (1/n_c) Σ_{i,j∈c} K_ij``

    (:func:`krein_kmeans_objective`), i.e. k-means of the pseudo-Euclidean embedding
    (:class:`KreinPCA`) with its indefinite squared distances.

    **Convergence caveats.** With an indefinite inner product the centroid problem
    ``min_μ Σ_{i∈c} ‖φᵢ − μ‖²_K`` has no minimum (moving μ along a negative direction lowers it without
    bound): the mean is only a saddle point, so the textbook Lloyd iteration is not a descent method — J
    can increase and the assignments can cycle. Over *partitions* J is finite, and it changes by the
    constant ``σ (n − k)`` when ``σ I`` is added to K (Roth et al. 2003, "Optimal cluster preserving
    embedding of nonmetric proximity data", IEEE TPAMI 25(12)): the optimal partitions are those of any
    shift-embedded, positive semidefinite ``K + σ I``. ``algorithm="hartigan"`` (default) therefore
    descends on J over partitions: batch reassignments are accepted only when they lower J exactly,
    then single-point moves of Hartigan & Wong (1979) are made while they lower J. J strictly decreases,
    so the method stops after finitely many passes and never cycles; ``max_iter`` bounds the passes (a
    :class:`~sklearn.exceptions.ConvergenceWarning` if they run out). ``algorithm="lloyd"`` runs the
    textbook iteration and warns when it cycles. Each of ``n_init`` runs starts from k-means++ seeds
    under the pseudo-Euclidean distance; the run with the lowest J is kept.

    **Low rank.** With ``n_components=m`` the kernel is the Nyström one-shot eigendecomposition
    ``K̃ = ŨΛŨᵀ`` (Oglic & Gärtner 2019, Sec. 2.2), the Gram matrix of the pseudo-Euclidean features
    ``Φ = Ũ|Λ|^{1/2}`` with signature ``sign(Λ)`` (:class:`KreinPCA`'s embedding); the same iterations run on
    it without forming it (columns ``Φ diag(s) Φᵢᵀ``, O(nr) each), and ``predict`` evaluates the cluster
    means through the Nyström map.

    Parameters
    ----------
    n_clusters : int, default=8
    kernel : Kernel, str or "precomputed", default="gaussian"
        With "precomputed", ``X`` is the n×n training kernel (for dissimilarities, double centre them
        first: ``make_pipeline(DoubleCentering(), KreinKMeans(kernel="precomputed"))``, whose J is
        ``Σ_c (1/2n_c) Σ_{i,j∈c} Dᵢⱼ²``).
    algorithm : {"hartigan", "lloyd"}, default="hartigan"
    n_init : int, default=10
    max_iter : int, default=300
    tol : float, default=1e-10
        A move must lower J by more than ``tol · max|K|`` (rounding guard).
    random_state : int, RandomState or None, default=None
        Seeds of the runs (after the landmarks, with ``n_components``).
    n_components : int or None, default=None
        None: the exact n×n kernel. Otherwise the number of Nyström landmarks m (above n_samples:
        every sample, with a warning).
    landmarks : {"uniform", "leverage", "kmeans++"}, default="uniform"
        Landmark sampler of the low-rank model (Oglic & Gärtner 2019, Sec. 2.3).
    landmark_rank : {"validated", "full"}, default="validated"
        Only with ``n_components``: eigenpairs of ``K_ZZ`` kept, as in :class:`KreinPCA` (the partition
        is one of ``K̃``'s embedding, so the default is the ``K̃`` of least estimated error).
    working_memory : float or None, default=None
        Only with ``n_components``: MiB per block of landmark kernel columns in the streamed fit, and
        ``predict`` in blocks of that size; a dask ``X`` is reduced one task per row chunk (the n×r
        features are then held in memory) and ``predict`` of a dask ``X`` is lazy.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
    inertia_ : float
        J of ``labels_`` (may be negative for an indefinite kernel).
    n_iter_ : int
        Passes of the kept run.
    representation_ : krein.representation.SpectralRepresentation
        The training kernel's exact representation (eigendecomposed on first read), or its Nyström
        one, through which ``predict`` evaluates the cluster means.
    landmark_indices_ : ndarray of shape (m,) or None
        Landmarks of the low-rank model (None when exact).
    kernel_ : Kernel or "precomputed"
    n_features_in_ : int

    See Also
    --------
    KreinSpectralClustering : k-means on the signed embedding.
    krein.embedding.krein_kmeans_objective : The objective it decreases.
    sklearn.cluster.KMeans : k-means on vectors.

    Examples
    --------
    >>> from krein.embedding import KreinKMeans
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-2, 0.5, size=(20, 2)), rng.normal(2, 0.5, size=(20, 2))])
    >>> model = KreinKMeans(n_clusters=2, random_state=0).fit(X)
    >>> print(np.bincount(model.labels_))  # two clusters of 20 points
    [20 20]
    """

    _parameter_constraints = {
        **UNCENTRED_SPECTRAL_PARAMETERS,
        "n_clusters": [Interval(numbers.Integral, 1, None, closed="left")],
        "algorithm": [StrOptions({"hartigan", "lloyd"})],
        "n_init": [Interval(numbers.Integral, 1, None, closed="left")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
    }

    def __init__(
        self,
        n_clusters: int = 8,
        *,
        kernel: Kernel | str = "gaussian",
        algorithm: Literal["hartigan", "lloyd"] = "hartigan",
        n_init: int = 10,
        max_iter: int = 300,
        tol: float = 1e-10,
        random_state: RandomStateLike = None,
        n_components: int | None = None,
        landmarks: LandmarkMethod = "uniform",
        landmark_rank: LandmarkRank = "validated",
        working_memory: float | None = None,
    ) -> None:
        store_parameters(self, locals())

    def fit(self, X: ArrayLike, y: object = None) -> Self:
        """Cluster the training data (points, or the n×n kernel when precomputed)."""
        with blas_for_data(X):  # one BLAS thread for a small problem (krein._threads)
            self._validate_params()
            data, _ = self._training_data(X)
            k = self.n_clusters
            _check_n_clusters(k, data.shape[0])
            rng = check_random_state(self.random_state)
            if self.n_components is None:
                K = data
                representation = self._fit_representation(
                    K,
                    exact=DeferredRepresentation(
                        K, name="the training kernel", **self._representation_parts()
                    ),
                )
            else:  # K̃ = Φ diag(s) Φᵀ, Φ = Ũ|Λ|^{1/2}: never formed
                representation = self._fit_representation(data, random_state=rng)
                vectors = representation.training_vectors()
                values = representation.values
                K = _LowRankGram(vectors * np.sqrt(np.abs(values)), np.sign(values))
            tol = self.tol * _magnitude(K)
            best: tuple[float, NDArray[np.intp], int, bool] | None = None
            for _ in range(self.n_init):
                labels = _kmeanspp_labels(K, k, rng)
                if self.algorithm == "hartigan":
                    labels, n_iter, unfinished = _hartigan(K, labels, k, self.max_iter, tol)
                else:
                    labels, n_iter, unfinished = _lloyd(K, labels, k, self.max_iter)
                objective = krein_kmeans_objective(K, labels)
                if best is None or objective < best[0]:
                    best = (objective, labels, n_iter, unfinished)
            assert best is not None  # n_init ≥ 1
            self.inertia_, labels, self.n_iter_, unfinished = best
            if unfinished:
                reason = (
                    "the iteration cycles (the Kreĭn-space mean is not a minimizer); use algorithm='hartigan'"
                    if self.algorithm == "lloyd"
                    else f"max_iter={self.max_iter} passes were not enough; increase max_iter"
                )
                warnings.warn(f"KreinKMeans did not converge: {reason}.", ConvergenceWarning, stacklevel=2)
            S, counts, T = _cluster_statistics(K, labels, k)
            self.labels_ = labels
            weights = np.zeros((labels.size, k))  # the cluster means on the training points
            weights[np.arange(labels.size), labels] = 1.0 / counts[labels]
            # on the representation's points: K̃ W = Ũ Λ (ŨᵀW) through the Nyström map at low rank
            self._weights = (
                weights if self.n_components is None else representation.dual_coef(vectors.T @ weights)
            )
            self._mean_norms = T / counts**2
            return self

    def predict(self, X: ArrayLike) -> NDArray[np.integer]:
        """The cluster whose Kreĭn-space mean is nearest: ``argmin_c −2 k(x, X_c)/n_c + T_c/n_c²``.

        This is the Lloyd assignment step; at a Hartigan optimum with an indefinite kernel a training
        point can be nearer another cluster's mean than its own, so ``predict`` of the training data
        may differ from ``labels_`` on such points.
        """
        check_is_fitted(self, "labels_")
        distances = self.representation_.evaluate(
            self._validate_test(X),
            -2.0 * self._weights,
            self._mean_norms,
            working_memory=self.working_memory,
            owner=type(self).__name__,
        )
        if is_dask_array(distances):
            return distances.argmin(axis=1)
        return np.argmin(distances, axis=1)


class KreinSpectralClustering(SpectralEstimatorMixin, ClusterMixin, BaseEstimator):
    """Spectral clustering on the signed (pseudo-Euclidean) embedding of an indefinite kernel.

    The ``rank`` eigenvectors of the centred kernel with the largest |λ| — negative eigenvalues
    included, where clipping would drop them — scaled to coordinates ``U |Λ|^{1/2}`` (:class:`KreinPCA`),
    rows normalized to unit length (``normalize``, as in Ng, Jordan & Weiss 2001), then k-means in these
    coordinates (scikit-learn's :class:`~sklearn.cluster.KMeans`; the Euclidean metric of the
    coordinates is that of the flip-spectrum kernel restricted to them). Exact, or low rank on Nyström
    landmarks with ``n_components``; new points are assigned through their out-of-sample coordinates.

    Parameters
    ----------
    n_clusters : int, default=8
    kernel : Kernel, str or "precomputed", default="gaussian"
    rank : int, default=None
        Number of coordinates (default ``n_clusters``).
    normalize : bool, default=True
    center : bool, default=True
    n_components : int, default=None
        Nyström landmarks (None: exact).
    landmarks : {"uniform", "leverage", "kmeans++"}, default="uniform"
    n_init : int, default=10
        Restarts of k-means.
    random_state : int, RandomState or None, default=None

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
    pca_ : KreinPCA
        The fitted embedding (its ``signature_`` says which coordinates are negative).
    kmeans_ : sklearn.cluster.KMeans
    representation_ : krein.representation.SpectralRepresentation
        ``pca_.representation_``.
    kernel_ : Kernel or "precomputed"
    n_features_in_ : int

    See Also
    --------
    KreinKMeans : Kernel k-means in the Kreĭn space.
    KreinPCA : The signed embedding it clusters.
    sklearn.cluster.SpectralClustering : Spectral clustering of an affinity matrix.

    Examples
    --------
    >>> from krein.embedding import KreinSpectralClustering
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-2, 0.5, size=(20, 2)), rng.normal(2, 0.5, size=(20, 2))])
    >>> model = KreinSpectralClustering(n_clusters=2, random_state=0).fit(X)
    >>> print(np.bincount(model.labels_))  # two clusters of 20 points
    [20 20]
    """

    _parameter_constraints = {
        **SPECTRAL_PARAMETERS,
        "rank": KreinPCA._parameter_constraints["n_components"],  # KreinPCA's n_components
        "n_clusters": [Interval(numbers.Integral, 1, None, closed="left")],
        "normalize": ["boolean"],
        "n_init": [Interval(numbers.Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        n_clusters: int = 8,
        *,
        kernel: Kernel | str = "gaussian",
        rank: int | None = None,
        normalize: bool = True,
        center: bool = True,
        n_components: int | None = None,
        landmarks: LandmarkMethod = "uniform",
        landmark_rank: LandmarkRank = "validated",
        n_init: int = 10,
        random_state: RandomStateLike = None,
        working_memory: float | None = None,
    ) -> None:
        store_parameters(self, locals())

    def fit(self, X: ArrayLike, y: object = None) -> Self:
        """Embed the training data (through :class:`KreinPCA`, which fits the representation) and cluster
        the coordinates."""
        with blas_for_data(X):  # one BLAS thread for a small problem (krein._threads)
            self._validate_params()
            rng = check_random_state(self.random_state)
            n_samples = _num_samples(X)
            n_landmarks = self.n_components
            if n_landmarks is not None:  # clamped here, so that the warning names this estimator's argument
                n_landmarks = clamp_n_components(n_landmarks, n_samples, stacklevel=2)
            rank = self.n_clusters if self.rank is None else self.rank
            if self.rank is not None:  # clamped here, so that the warning names this estimator's argument
                rank = clamp_n_components(
                    rank, n_samples, name="rank", using="n_samples coordinates", stacklevel=2
                )
            self.pca_ = KreinPCA(
                self.kernel,
                n_components=rank,
                center=self.center,
                n_landmarks=n_landmarks,
                landmarks=self.landmarks,
                landmark_rank=self.landmark_rank,
                random_state=rng,
                working_memory=self.working_memory,
            )
            Y = self.pca_.fit_transform(X)
            _check_n_clusters(self.n_clusters, Y.shape[0])
            fitted = (
                "kernel_",
                "n_features_in_",
                "feature_names_in_",
                "X_fit_",
                "landmark_indices_",
                "representation_",
            )
            for name in fitted:  # the representation the embedding fitted through the mixin
                if hasattr(self.pca_, name):
                    setattr(self, name, getattr(self.pca_, name))
            self.kmeans_ = KMeans(self.n_clusters, n_init=self.n_init, random_state=rng).fit(
                _normalized(Y, self.normalize)
            )
            self.labels_ = self.kmeans_.labels_
            return self

    def predict(self, X: ArrayLike) -> NDArray[np.integer]:
        """The cluster of new points, from their out-of-sample coordinates (lazily for a dask ``X``)."""
        check_is_fitted(self, "labels_")
        coordinates = self.pca_._embed(self._validate_test(X), type(self).__name__)
        if is_dask_array(coordinates):
            return coordinates.map_blocks(_assign, self.kmeans_, self.normalize, drop_axis=1, dtype=np.int32)
        return _assign(coordinates, self.kmeans_, self.normalize)


def _normalized(Y, normalize):
    """The rows of the coordinates ``Y`` scaled to unit length (Ng, Jordan & Weiss) with ``normalize``."""
    if not normalize:
        return Y
    norms = np.linalg.norm(Y, axis=1, keepdims=True)
    return Y / np.where(norms > 0, norms, 1.0)


def _assign(coordinates, kmeans, normalize):
    """The k-means cluster of out-of-sample coordinates (rows normalized with ``normalize``)."""
    return kmeans.predict(_normalized(coordinates, normalize))

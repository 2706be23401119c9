"""The Nyström producer of :class:`~krein.representation.SpectralRepresentation`, streamed.

Every low-rank Kreĭn estimator (Oglic & Gärtner 2019, Sec. 2.4–2.5) needs the one-shot
eigendecomposition ``K̃ = Ũ Λ Ũᵀ`` with ``Ũ = K_XZ E`` and the projections ``Ũᵀ y``. Both are
functions of reductions of the landmark columns — the Gram matrix ``K_XZᵀ K_XZ``, the moment
``K_XZᵀ y`` and the column means — which are sums over row chunks. The producer accumulates exactly
these in one pass within a memory budget (``working_memory`` MiB, by default scikit-learn's
``working_memory`` setting) or on a Dask cluster, and never holds an n×m array: fit memory is ``O(m²)``
beyond the data. When the fit needs them, the same pass reduces ``m' = 64`` held-out probe columns,
from which the landmark block's rank is chosen and the approximation error estimated
(:mod:`krein.representation._error`).

**Deferred error estimate.** Only the validated rank of the landmark block and the warning on a poor
approximation need the probe columns during the fit. Without them (``landmark_rank="full"``,
``warn_poor=False``: the learning estimators' default) the fit evaluates the kernel on the n × m landmark
columns and the m × m landmark block only, and the estimate is made on the first read of
:attr:`NystroemRepresentation.approximation_error`: the probe columns are drawn from a copy of the
generator as it stood where the fit would have drawn them, and one more pass reduces the landmark and
probe columns (``n (m + m')`` kernel entries, and ``c m`` for the draw). It is the estimate the fit
would have made, to rounding. For a structured distance (``DistanceKernel``: DTW, edit, ...) the probe
columns and their draw cost as much as ``m' + c m / n`` more landmarks (0.8 of the fit at n = 5000,
m = 100), which a fit whose error nobody reads no longer pays.

**Centring.** With ``center=True`` the representation is that of ``H K̃ H`` (``H = I − 11ᵀ/n``), the
centred Nyström kernel: ``H K̃ H = (H K_XZ) K_ZZ⁺ (K_ZX H)``, so only the landmark columns are
centred, by their column means ``k̄`` (accumulated in the same pass; the Gram matrix of ``H K_XZ``
comes from the scatter accumulated about a reference row, without cancellation and without a centred
copy of a block: :func:`~krein.representation.chunk_moments`). Out of sample ``Ũ(x) = (k_x − k̄) E``.
With every point a landmark this is the exact centred kernel ``H K H``.
"""

from __future__ import annotations

import copy
import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils import check_random_state

from .._cluster import cluster_errors
from .._memory import CACHE_BUDGET, MemoryBudget
from .._typing import LandmarkMethod, LandmarkRank, RandomStateLike
from .._validation import check_centring_samples
from ..kernels import Kernel
from ._approximation import LandmarkFactor, eigen_from_gram, landmark_factor
from ._base import RowFunction, SpectralRepresentation
from ._columns import KernelColumns, check_finite_chunk, landmark_blocks
from ._error import (
    centred_probe_error,
    parsimonious_rank,
    probe_error,
    probe_pass,
    truncation_errors,
    validated_rank,
)
from ._landmarks import select_landmarks

__all__ = [
    "LANDMARK_RANKS",
    "POOR_APPROXIMATION",
    "NystroemRepresentation",
    "nystroem_representation",
]

#: Treatments of the landmark block: the validated truncation (default) or the plain Eq. (3).
LANDMARK_RANKS = ("validated", "full")
#: An estimated relative Frobenius error above this draws a warning.
POOR_APPROXIMATION = 0.3


class NystroemRepresentation(SpectralRepresentation):
    """The one-shot Nyström eigendecomposition, fitted in one streamed pass.

    ``vectors`` (``Ũ``, n×r) are formed by one more streamed pass on first access (``None`` for dask
    data); ``project(y)`` returns ``Ũᵀ y = Wᵀ Rᵀ (K_XZᵀ y − k̄ 1ᵀy)``, from the moment accumulated in
    the fitting pass when ``y`` equals the targets given then, otherwise by one more pass.

    The paper's own low-rank models (Oglic & Gärtner 2019, Sec. 2.4–2.5) are written in the landmark
    coordinates ``z`` of the features ``Φ = L S`` (``L = K_XZ R``, ``R = U_Z |D|^{-1/2}``): ``f = Φ z``
    on the training points and ``f(x) = k_x R S z`` out of sample, with the Kreĭn-space split
    ``‖f₊‖² = ‖z₊‖²``, ``‖f₋‖² = ‖z₋‖²`` by the signs ``S`` of the eigenvalues of ``K_ZZ``. A model with
    training predictions ``Ũ u`` has ``Φ z = L W u``, i.e. ``z = S W u`` (:attr:`landmark_coordinates`).

    Attributes
    ----------
    values, extension : see :class:`~krein.representation.SpectralRepresentation`
    landmark_factor : LandmarkFactor
        ``R``, ``S`` and the kept eigenvalues of ``K_ZZ`` (truncated to the validated rank).
    column_means : ndarray of shape (m,) or None
        Column means ``k̄`` of ``K_XZ`` when centred.
    gram, row_sum : ndarray of shape (m, m) and (m,)
        ``Σᵢ kᵢ kᵢᵀ`` and ``Σᵢ kᵢ`` over the (centred) landmark rows ``kᵢ = K(xᵢ, Z) − k̄``, so that
        ``ŨᵀŨ = Eᵀ gram E`` and ``Ũᵀ1 = Eᵀ row_sum`` without a pass.

    The estimated error of ``K̃`` is :attr:`approximation_error`, and :attr:`n_probes` the number of
    held-out columns behind it.
    """

    extension: NDArray[np.float64]  # always given: the out-of-sample map of a Nyström representation
    _vectors: NDArray[np.float64] | None

    def __init__(
        self,
        values: ArrayLike,
        extension: NDArray[np.float64],
        *,
        columns: KernelColumns,
        landmark_indices: NDArray[np.intp],
        factor: LandmarkFactor,
        W: NDArray[np.float64],
        column_means: NDArray[np.float64] | None = None,
        gram: NDArray[np.float64] | None = None,
        row_sum: NDArray[np.float64] | None = None,
        targets: ArrayLike | None = None,
        projection: NDArray[np.float64] | None = None,
        approximation_error: float | None = None,
        n_probes: int = 0,
        deferred_error: tuple[NDArray[np.float64], np.random.RandomState] | None = None,
        working_memory: float | None = None,
        centred_split: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None,
    ) -> None:
        self._W = W
        self._columns, self._landmark_indices = columns, landmark_indices
        self.landmark_factor = factor
        self.gram, self.row_sum = gram, row_sum
        self._targets, self._projection = targets, projection
        self._landmark_moment = None  # the fitting pass's Σ yᵢ kᵢ of ``targets`` (one_shot sets it)
        self._approximation_error, self._n_probes = approximation_error, n_probes
        self._deferred_error = deferred_error  # (K_ZZ, generator) of an estimate the fit did not make
        self._working_memory = working_memory
        self._centred_split = centred_split
        super().__init__(
            values,
            None,
            extension,
            kernel=columns.kernel,
            points=columns.points(landmark_indices),
            column_means=column_means,
        )

    @property
    def approximation_error(self) -> float | None:
        """Estimated ``‖K − K̃‖_F / ‖K‖_F`` (:func:`probe_error`), or ``‖H(K − K̃)H‖_F / ‖HKH‖_F`` when
        centred (:func:`~krein.representation._error.centred_probe_error`); when the fit deferred it, made on
        this first read by one more pass (module docstring)."""
        if self._deferred_error is not None:
            K_ZZ, rng = self._deferred_error
            center = self.column_means is not None
            sample, K_ZV, moments = probe_pass(
                self._columns,
                self._landmark_indices,
                self.landmark_factor,
                rng,
                center=center,
                working_memory=self._working_memory,
            )
            estimate = _estimate(self.values, self.extension, moments, K_ZZ, K_ZV, sample, center)
            self._approximation_error, self._n_probes = estimate["approximation_error"], estimate["n_probes"]
            self._deferred_error = None
        return self._approximation_error

    @property
    def n_probes(self) -> int:
        """Number of held-out columns behind :attr:`approximation_error` (0 before a deferred estimate is
        made)."""
        return self._n_probes

    @property
    def landmark_signature(self) -> NDArray[np.float64]:
        """Signs ``S`` of the kept eigenvalues of ``K_ZZ`` (of the centred ``K̃_ZZ`` when centred)."""
        if self._centred_split is not None:
            return self._centred_split[1]
        return self.landmark_factor.signature

    @property
    def landmark_coordinates(self) -> NDArray[np.float64]:
        """``C`` (r₀×r): the landmark coordinates ``z = C u`` of eigen-coordinates ``u``; ``C = S W``, or,
        centred, ``|Λ_c|^{-1/2} V_cᵀ Ũ_Z`` (:func:`centred_landmark_split`)."""
        if self._centred_split is not None:
            return self._centred_split[0]
        return self.landmark_signature[:, None] * self._W

    @property
    def vectors(self) -> NDArray[np.float64] | None:
        """Orthonormal eigenvectors ``Ũ`` (n×r), formed by a streamed pass; None for dask data."""
        if self._vectors is None and not self._columns.distributed:
            shift = 0.0 if self.column_means is None else self.column_means @ self.extension
            vectors = np.empty((self._columns.n, self.rank))
            blocks = self._columns.column_blocks(
                self._landmark_indices, self.extension, working_memory=self._working_memory
            )
            for rows, block in blocks:
                vectors[rows] = block - shift
            self._vectors = vectors
        return self._vectors

    @vectors.setter
    def vectors(self, value: NDArray[np.float64] | None) -> None:
        self._vectors = value

    @property
    def streams(self) -> bool:
        """Whether passes over the training points stream (dask data, or a ``working_memory`` budget)."""
        return self._columns.distributed or self._working_memory is not None

    def reduce_rows(
        self, coef: NDArray[np.float64], function: RowFunction, data: Any
    ) -> tuple[float | NDArray[np.float64], NDArray[np.float64]]:
        """As :meth:`SpectralRepresentation.reduce_rows`, streamed when :attr:`streams`.

        ``Ũ coef = (K_XZ − 1k̄ᵀ)(E coef)`` and ``Ũᵀ w = Eᵀ (K_XZᵀ w − k̄ 1ᵀw)``: one kernel evaluation
        and two products with ``K_XZ`` per row block, never an n×m or n×r array; a dask ``X`` is
        reduced one task per row chunk (``function`` must then be picklable).
        """
        if not self.streams:
            return super().reduce_rows(coef, function, data)
        weights = self.extension @ coef
        shift = 0.0 if self.column_means is None else -(self.column_means @ weights)
        value, back, total = reduce_rows(
            self._columns, self.points, weights, shift, function, data, self._working_memory
        )
        if self.column_means is not None:
            back = back - np.multiply.outer(self.column_means, total)
        return value, self.extension.T @ back

    def training_rows(self, indices: ArrayLike) -> NDArray[np.float64]:
        """``Ũ[indices] = (K(X[indices], Z) − k̄) E``, from kernel rows when the pass streams."""
        if not self.streams:
            return super().training_rows(indices)
        return self.landmark_rows(indices) @ self.extension

    def training_vectors(self) -> NDArray[np.float64]:
        """``Ũ`` (n×r) in memory: :attr:`vectors`, or for dask data one pass computed where the chunks
        live (:meth:`training_outputs` of the identity)."""
        vectors = self.vectors
        return self.training_outputs(np.eye(self.rank)) if vectors is None else vectors

    def landmark_rows(self, indices: ArrayLike) -> NDArray[np.float64]:
        """The (centred) landmark kernel rows ``K(X[indices], Z) − k̄`` of training points."""
        rows = self._columns.block(np.asarray(indices), self._landmark_indices)
        return rows if self.column_means is None else rows - self.column_means

    def landmark_sums(
        self, indices: ArrayLike, y: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """``(Σ kᵢkᵢᵀ, Σ kᵢ, Σ yᵢkᵢ)`` over the (centred) landmark rows of the training points
        ``indices``, in blocks of ``working_memory`` (never an |indices|×m array)."""
        indices = np.asarray(indices)
        m = self._landmark_indices.size
        gram, total, moment = np.zeros((m, m)), np.zeros(m), np.zeros(m)
        step = MemoryBudget(self._working_memory).rows(m, copies=2)
        for start in range(0, len(indices), step):
            block = indices[start : start + step]
            rows = self.landmark_rows(block)
            gram += rows.T @ rows
            total += rows.sum(axis=0)
            moment += rows.T @ y[block]
        return gram, total, moment

    def training_outputs(self, coef: NDArray[np.float64]) -> NDArray[np.float64]:
        """``Ũ coef`` over the training points (an n-vector), streamed when :attr:`streams`."""
        if not self.streams:
            return self._held_vectors() @ coef
        weights = self.extension @ coef
        shift = 0.0 if self.column_means is None else -(self.column_means @ weights)
        outputs = self.evaluate(self._columns.X, weights, shift, working_memory=self._working_memory)
        if not self._columns.distributed:
            return outputs
        with cluster_errors("the training outputs"):
            return outputs.compute()  # type: ignore[attr-defined]  # a dask array for dask X

    def project(self, y: ArrayLike) -> NDArray[np.float64]:
        """Eigen-coordinates ``Ũᵀ y`` of a training target vector (or matrix)."""
        if self._projection is not None and y is self._targets:
            return self._projection.copy()
        targets = self._targets
        if self._projection is not None and not hasattr(y, "dask") and not hasattr(targets, "dask"):
            y_array = np.asarray(y, dtype=np.float64)
            if targets is not None and y_array.shape == np.shape(targets):
                if np.array_equal(y_array, targets):
                    return self._projection.copy()
        return self._W.T @ (self.landmark_factor.right.T @ self.landmark_moment(y))

    def landmark_moment(self, y: ArrayLike) -> NDArray[np.float64]:
        """``Σᵢ yᵢ kᵢ = K_XZᵀ y − k̄ 1ᵀy`` over the (centred) landmark rows ``kᵢ``: one pass, or none
        when ``y`` is the targets given to the fit, or one of their columns (accumulated in the fitting
        pass)."""
        cached = self._cached_moment(y)
        if cached is not None:
            return cached
        moments = self._columns.moments(
            self._landmark_indices, y, gram=False, working_memory=self._working_memory
        )
        return self._centred_moment(moments.moment, y)

    def _cached_moment(self, y):
        """The fitting pass's ``Σ yᵢ kᵢ`` where ``y`` equals the targets or one of their columns, else
        None."""
        targets, moment = self._targets, self._landmark_moment
        if moment is None or hasattr(y, "dask") or hasattr(targets, "dask"):
            return None
        y = np.asarray(y, dtype=np.float64)
        if y.shape == targets.shape and np.array_equal(y, targets):
            return moment.copy()
        if y.ndim == 1 and targets.ndim == 2 and targets.shape[0] == y.size:
            for column in range(targets.shape[1]):
                if np.array_equal(y, targets[:, column]):
                    return moment[:, column].copy()
        return None

    def _centred_moment(self, moment, y):
        """``K_XZᵀ y − k̄ 1ᵀ y`` from the raw moment ``K_XZᵀ y`` of targets ``y``."""
        if self.column_means is not None:
            sums = y.sum(axis=0)
            with cluster_errors("the target sums"):
                sums = sums.compute() if hasattr(sums, "dask") else np.asarray(sums, dtype=np.float64)
            moment = moment - np.multiply.outer(self.column_means, sums)
        return moment


def _reduce_chunk(kernel, X_chunk, Z, weights, shift, function, data, working_memory, check_finite=False):
    """``(Σ value, K_chunkᵀ w, Σ w)`` over the row blocks of one chunk, ``(value, w) = function(o, data)``
    for the outputs ``o = K_chunk weights + shift`` of each block (``K_chunk = K(X_chunk, Z)``)."""
    X_chunk = np.asarray(X_chunk, dtype=np.float64)
    if check_finite:
        check_finite_chunk(X_chunk, "X")
    # a block of the cache budget stays in cache between the two products ``K w`` and ``Kᵀ w`` (larger
    # blocks made the pass 1.2× slower at m = 1000); every block is written into one reused buffer
    step = MemoryBudget(working_memory).rows(len(Z), copies=2, high=CACHE_BUDGET.rows(len(Z)))
    value, back, total = 0.0, 0.0, 0.0
    for rows, block in landmark_blocks(kernel, X_chunk, Z, step):
        part, w = function(block @ weights + shift, data[rows])
        value, back, total = value + part, back + block.T @ w, total + w.sum(axis=0)
    return value, back, total


def _sum_parts(parts):
    return tuple(sum(part[i] for part in parts) for i in range(3))


def reduce_rows(columns, Z, weights, shift, function, data, working_memory=None):
    """The streamed pass of :meth:`NystroemRepresentation.reduce_rows` over the rows of ``columns.X``.

    ``data`` (in memory, aligned with the rows) is sliced with them; a dask ``X`` is reduced one task
    per row chunk (on the cluster when a ``distributed`` client is active) and the parts summed.
    """
    if not columns.distributed:
        return _reduce_chunk(columns.kernel, columns.X, Z, weights, shift, function, data, working_memory)
    import dask

    X = columns.X.rechunk({1: -1})
    bounds = np.cumsum((0,) + X.chunks[0])
    task = dask.delayed(_reduce_chunk, pure=True)
    parts = [
        task(columns.kernel, block, Z, weights, shift, function, data[a:b], working_memory, True)
        for block, a, b in zip(X.to_delayed().ravel(), bounds[:-1], bounds[1:], strict=True)
    ]
    with cluster_errors("a streamed pass over the kernel columns"):
        (result,) = dask.compute(dask.delayed(_sum_parts)(parts))
    return result


def nystroem_representation(
    kernel: Kernel | str,
    X: ArrayLike,
    *,
    n_components: int,
    landmarks: LandmarkMethod = "uniform",
    rank: int | None = None,
    sketch_size: int | None = None,
    rcond: float | None = None,
    landmark_rank: LandmarkRank = "validated",
    center: bool = False,
    random_state: RandomStateLike = None,
    working_memory: float | None = None,
    y: ArrayLike | None = None,
    warn_poor: bool = True,
    error_controlled: bool = False,
) -> tuple[NystroemRepresentation, NDArray[np.intp]]:
    """One-shot Nyström eigendecomposition of the kernel matrix of ``X`` (Oglic & Gärtner 2019, Sec. 2.2).

    Parameters
    ----------
    kernel : Kernel or "precomputed"
        With "precomputed", ``X`` is the n×n training kernel and the landmark columns are ``X[:, idx]``.
        A kernel with parameters fitted to data (:meth:`~krein.kernels.Kernel.fit`: a
        ``DistanceKernel``'s scale and references) is fitted, on a copy (the representation's
        ``kernel``; the one given is left as it was), to the first uniform sample drawn: the
        landmarks, or the sketch of the informed samplers.
    X : ndarray or dask array of shape (n, d) (or (n, n) if precomputed)
        Validated training data. A dask array (chunked by rows) is reduced chunk by chunk where it
        lives; on a ``dask.distributed`` cluster when a client is active.
    n_components : int
        Number of landmarks m (≤ n).
    landmarks : {"uniform", "leverage", "kmeans++"}, default="uniform"
        Landmark sampler (Sec. 2.3; see :func:`select_landmarks`).
    rank : int, default=None
        Keep the ``rank`` eigenpairs of ``K̃`` of largest magnitude (all resolved ones when None).
    sketch_size : int, default=None
        Size of the uniform sketch of the leverage and K-means++ samplers (default m).
    rcond : float, default=None
        Cutoff of the landmark block (default ``m · ε``; see :func:`landmark_factor`).
    landmark_rank : {"validated", "full"}, default="validated"
        ``"validated"``: the pseudo-inverse of ``K_ZZ`` truncated to the number of leading eigenpairs
        that minimizes the error estimated on held-out columns (:func:`validated_rank`).
        ``"full"``: the plain Eq. (3), every eigenpair above the ``rcond`` cutoff.
    center : bool, default=False
        Represent the centred approximation ``H K̃ H`` (module docstring).
    random_state : int, RandomState or None
        Landmarks, then the probe columns.
    working_memory : float, default=None
        MiB per block of kernel rows (default: scikit-learn's ``working_memory``). Dask inputs are
        reduced per row chunk.
    y : array-like of shape (n,) or (n, t), default=None
        Targets whose projections ``Ũᵀ y`` are accumulated in the same pass.
    warn_poor : bool, default=True
        Warn when the estimated error exceeds ``POOR_APPROXIMATION``. Callers whose product is the
        approximation ``K̃`` itself (:class:`IndefiniteNystroem`, ``KreinPCA``) warn; the learning
        estimators do not, because their model is judged by its predictions, not by ``K̃``. Without the
        warning and with ``landmark_rank="full"`` the fit needs no probe columns and the estimate is
        deferred to the first read of ``approximation_error`` (module docstring).
    error_controlled : bool, default=False
        With ``landmark_rank="validated"``, ``rank=None`` and ``center=False``: truncate the one-shot
        eigendecomposition to the smallest rank of least estimated error
        (:func:`~krein.representation._error.parsimonious_rank`; :class:`IndefiniteNystroem`'s default; on a
        positive definite kernel every eigenpair). False keeps every resolved eigenpair.

    Returns
    -------
    representation : NystroemRepresentation
        ``values`` Λ (ascending; ``rank`` keeps those of largest magnitude), ``extension`` E (m×r)
        with ``(K(X, Z) − k̄) E = Ũ``,
        ``approximation_error`` (a warning is issued above ``POOR_APPROXIMATION``).
    landmark_indices : ndarray of shape (m,)
        Sorted indices of the landmarks ``Z = X[landmark_indices]``.
    """
    if landmark_rank not in LANDMARK_RANKS:
        raise ValueError(f"landmark_rank must be one of {LANDMARK_RANKS}, got {landmark_rank!r}.")
    rng = check_random_state(random_state)
    columns = KernelColumns(kernel, X)
    # the kernel (a copy) is fitted to the first uniform sample drawn: the informed samplers' sketch
    # (fitted by select_landmarks), else the landmarks themselves (Kernel.fit: a DistanceKernel's scale
    # and references)
    indices = select_landmarks(
        columns,
        n_components,
        landmarks,
        sketch_size=sketch_size,
        rank=rank,
        random_state=rng,
        working_memory=working_memory,
    )
    representation, full_rank = one_shot(
        columns,
        indices,
        rng,
        fit_kernel=landmarks == "uniform",
        y=y,
        rank=rank,
        rcond=rcond,
        landmark_rank=landmark_rank,
        center=center,
        working_memory=working_memory,
        error_controlled=error_controlled,
        estimate_error=warn_poor,
    )
    if warn_poor and representation.approximation_error > POOR_APPROXIMATION:
        _warn_poor(representation, n_components, full_rank, landmarks, landmark_rank, rank)
    return representation, indices


def _check_moment_range(K_ZZ, n):
    """A clear error where the Gram matrix of the landmark columns, sums of n products of kernel
    values, leaves double precision: it overflows for kernel values near 1e300 and underflows, losing
    every digit, near 1e-300 (the magnitude is that of the landmark block)."""
    largest = float(np.max(np.abs(K_ZZ), initial=0.0))
    square = largest * largest
    if largest > 0 and not (square >= np.finfo(float).tiny and np.isfinite(n * square)):
        raise ValueError(
            f"X gives kernel values of magnitude {largest:.3g} (the landmark block's largest): the Nyström "
            f"approximation sums products of {n} of them, which are beyond double precision. Rescale the "
            "kernel (e.g. divide a precomputed X by its largest entry; values between 1e-150 and 1e150 are "
            "safe), or use the exact model (n_components=None)."
        )


def one_shot(
    columns,
    indices,
    rng,
    *,
    fit_kernel=False,
    y=None,
    rank=None,
    rcond=None,
    landmark_rank,
    center,
    working_memory,
    error_controlled=False,
    estimate_error=True,
):
    """The representation of :func:`nystroem_representation` for given landmarks, without warnings.

    Draws the probe columns from ``rng`` when the fit needs them: with ``landmark_rank="validated"``
    or ``estimate_error``; otherwise the error estimate is deferred to its first read (module
    docstring) and the pass evaluates only the landmark columns. With ``landmark_rank="validated"``,
    ``rank=None``, no centring and probe columns, the one-shot eigendecomposition is truncated to the
    smallest rank of least estimated error when ``error_controlled`` (:func:`parsimonious_rank`).
    With ``fit_kernel`` the kernel of ``columns`` is first fitted to the landmarks
    (:meth:`~krein.representation.KernelColumns.landmark_block`). Returns the representation and
    the number of eigenpairs of ``K_ZZ`` above the ``rcond`` cutoff (before the validated truncation).
    """
    check_centring_samples(center, columns.n)
    K_ZZ, null_vector = columns.landmark_block(indices, fit=fit_kernel)
    _check_moment_range(K_ZZ, columns.n)
    factor = landmark_factor(K_ZZ, rcond=rcond, null_vector=null_vector)
    validated = landmark_rank == "validated"
    if validated or estimate_error:
        sample, K_ZV, moments = probe_pass(
            columns, indices, factor, rng, y=y, center=center, working_memory=working_memory
        )
    else:  # the generator as it stands here draws the probes of the deferred estimate
        sample, estimate = None, {"deferred_error": (K_ZZ, copy.deepcopy(rng))}
        moments = columns.moments(indices, y, working_memory=working_memory)
    full_rank = factor.values.size
    if validated:
        factor = factor.truncate(validated_rank(factor, moments, K_ZV, sample)[0])
    R = factor.right
    gram = moments.scatter if center else moments.gram
    values, W = eigen_from_gram(R.T @ gram @ R, factor.signature, rank=rank)
    extension = R @ W
    if error_controlled and validated and rank is None and not center and sample.indices.size:
        kept = parsimonious_rank(truncation_errors(values, extension, moments, K_ZZ, K_ZV, sample)[0])
        values, W, extension = values[:kept], W[:, :kept], extension[:, :kept]
    signs = _orientation(K_ZZ - moments.mean if center else K_ZZ, extension)
    ascending = np.argsort(values, kind="stable")  # the representation's one order
    values, W, extension = values[ascending], (W * signs)[:, ascending], (extension * signs)[:, ascending]
    centred_split = centred_landmark_split((K_ZZ - moments.mean) @ extension, values) if center else None
    if sample is not None:
        estimate = _estimate(values, extension, moments, K_ZZ, K_ZV, sample, center)
    representation = NystroemRepresentation(
        values,
        extension,
        columns=columns,
        landmark_indices=indices,
        factor=factor,
        W=W,
        column_means=moments.mean if center else None,
        gram=gram,
        row_sum=np.zeros(indices.size) if center else columns.n * moments.mean,
        targets=y if y is None or hasattr(y, "dask") else np.asarray(y, dtype=np.float64),
        **estimate,
        working_memory=working_memory,
        centred_split=centred_split,
    )
    if y is not None:
        moment = representation._centred_moment(moments.moment, representation._targets)
        representation._landmark_moment = moment  # Σ yᵢ kᵢ of the targets, for landmark_moment
        representation._projection = W.T @ (R.T @ moment)
    return representation, full_rank


def centred_landmark_split(landmark_vectors, values):
    """``(C, S)``: the landmark split of the centred kernel, in the coordinates ``z = C u``.

    The paper's landmark split (Oglic & Gärtner 2019, Sec. 2.4) divides the span of the landmark
    functions ``k(·, zⱼ)`` by the eigenvectors of their Kreĭn Gram matrix ``K_ZZ``. The centred model
    learns with the centred kernel, whose landmark functions ``k_c(·, zⱼ)`` have the Gram matrix
    ``K̃_ZZ = Ũ_Z diag(σ) Ũ_Zᵀ`` (the centred approximation on the landmarks, ``Ũ_Z = (K_ZZ − 1k̄ᵀ) E``,
    ``landmark_vectors``); splitting it by ``K_ZZ``'s eigenvectors instead (the uncentred split, what
    the centred model did before) is a different model even with every point a landmark. With
    ``K̃_ZZ = V Λ Vᵀ`` a function ``f = Σ βⱼ k_c(·, zⱼ)`` has ``z = |Λ|^{1/2} Vᵀ β`` and ``‖f±‖² =
    ‖z±‖²``; ``f = Ũ u`` on the training points gives ``z = |Λ|^{-1/2} Vᵀ Ũ_Z u`` (``C``), and ``S =
    sign Λ``. The kernel is unchanged (``Φ S Φᵀ = H K̃ H`` for features ``Φ`` of full rank); with every
    point a landmark ``K̃_ZZ = H K H`` and the split is the exact centred model's. Computed from a thin
    QR of ``Ũ_Z`` (m×r): ``O(m r²)``.
    """
    import scipy.linalg

    Q, R = np.linalg.qr(landmark_vectors)
    middle = (R * values) @ R.T
    eigenvalues, Y = scipy.linalg.eigh(0.5 * (middle + middle.T), check_finite=False)
    order = np.argsort(-np.abs(eigenvalues), kind="stable")
    eigenvalues, Y = eigenvalues[order], Y[:, order]
    keep = np.abs(eigenvalues) > np.sqrt(np.finfo(float).eps) * np.abs(eigenvalues[0])
    eigenvalues, Y = eigenvalues[keep], Y[:, keep]
    return (Y.T @ R) / np.sqrt(np.abs(eigenvalues))[:, None], np.sign(eigenvalues)


def _estimate(values, extension, moments, K_ZZ, K_ZV, sample, center):
    """The held-out error (:func:`centred_probe_error` with ``center``, else :func:`probe_error`) of the
    core ``E Λ Eᵀ`` of the one-shot eigendecomposition, and the number of probe columns behind it
    (keywords of :class:`NystroemRepresentation`)."""
    core = (extension * values) @ extension.T
    error = (centred_probe_error if center else probe_error)(core, moments, K_ZZ, K_ZV, sample)
    return {"approximation_error": error, "n_probes": sample.indices.size}


def _orientation(K_ZZ, extension):
    """Signs that make the largest landmark entry of each eigenvector ``Ũ_Z = K_ZZ E`` positive.

    An eigenvector is defined up to its sign, and which sign ``eigh`` returns can change with
    rounding (the same points shifted by 1e7 and back); ``Ũ_Z`` is the part of ``Ũ`` the fit has
    in hand, so fixing its sign makes ``transform`` a function of the data alone.
    """
    rows = K_ZZ @ extension
    largest = rows[np.argmax(np.abs(rows), axis=0), np.arange(rows.shape[1])]
    return np.where(largest < 0, -1.0, 1.0)


def _warn_poor(representation, n_components, full_rank, landmarks, landmark_rank, rank):
    kept = representation.landmark_factor.values.size
    advice = [f"more landmarks (n_components > {n_components})"]
    if landmarks == "uniform":
        advice.append("another sampler (landmarks='leverage' or 'kmeans++')")
    if landmark_rank == "full":
        advice.append("a lower rank of the landmark block (landmark_rank='validated')")
    if rank is not None:
        advice.append(f"another rank than rank={rank}")
    warnings.warn(
        "The Nyström approximation is poor: its relative Frobenius error ‖K − K̃‖/‖K‖ is estimated at "
        f"{representation.approximation_error:.3g} from {representation.n_probes} held-out kernel columns "
        f"(it keeps {kept} of the {full_rank} eigenpairs of K_ZZ; rank {representation.values.size}). "
        "Use " + ", ".join(advice) + ".",
        UserWarning,
        stacklevel=3,
    )

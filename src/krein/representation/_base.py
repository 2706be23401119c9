"""The spectral representation: a kernel seen through its (approximate) eigendecomposition.

:class:`SpectralRepresentation` is the object every Kreĭn estimator is written against (DESIGN.md): the
exact producer is :meth:`SpectralRepresentation.exact`, the one-shot Nyström producer
:func:`~krein.representation.nystroem_representation`. Test points are mapped in memory, in row
blocks of the memory budget, or lazily on dask (:func:`kernel_rows_times`, one task per row chunk).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Self, TypeGuard, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._memory import MemoryBudget
from .._validation import warn_unrelated_rows
from ..kernels import Kernel
from ..spectral import center_kernel, eigendecompose

#: ``function(outputs, data) -> (value, weights)`` of :meth:`SpectralRepresentation.reduce_rows`.
RowFunction = Callable[[NDArray[np.float64], Any], tuple[float | NDArray[np.float64], NDArray[np.float64]]]

__all__ = ["DeferredRepresentation", "SpectralRepresentation", "is_dask_array", "kernel_rows_times"]


def is_dask_array(X: object) -> TypeGuard[Any]:
    """Whether ``X`` is a ``dask.array.Array`` (without importing dask when it is not).

    A type guard to ``Any``: a dask array is not typed here (dask is an optional dependency)."""
    return type(X).__module__.startswith("dask.") and hasattr(X, "to_delayed")


def kernel_rows_times(
    X: ArrayLike,
    kernel: Kernel | str,
    points: NDArray | None,
    weights: NDArray[np.float64],
    offset: float | NDArray[np.float64],
    working_memory: float | None = None,
    check_finite: bool = False,
) -> NDArray[np.float64]:
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
    step = MemoryBudget(working_memory).rows(width, copies=2)
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
    (:func:`~krein.representation.nystroem_representation`, r ≤ m ≪ n, ``P`` the landmarks).

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
        Signed eigenvalues (no zeros), in ascending order (every producer's one order).
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

    def __init__(
        self,
        values: ArrayLike,
        vectors: NDArray[np.float64] | None,
        extension: NDArray[np.float64] | None = None,
        *,
        kernel: Kernel | str | None = None,
        points: NDArray | None = None,
        column_means: NDArray[np.float64] | None = None,
    ) -> None:
        self.values: NDArray[np.float64] = np.asarray(values, dtype=float)
        self.vectors: NDArray[np.float64] | None = vectors
        self.extension: NDArray[np.float64] | None = extension
        self.kernel, self.points, self.column_means = kernel, points, column_means

    def _held_vectors(self) -> NDArray[np.float64]:
        """``U``, which a streamed representation does not hold (then a ValueError)."""
        if self.vectors is None:
            raise ValueError("This representation holds no eigenvectors (it streams its training rows).")
        return self.vectors

    def _kernel(self) -> Kernel | str:
        """The kernel its rows are evaluated with (a ValueError for a representation made without one)."""
        if self.kernel is None:
            raise ValueError("This representation was made without a kernel: it cannot evaluate new points.")
        return self.kernel

    @classmethod
    def exact(
        cls,
        K: ArrayLike,
        *,
        rtol: float | None = None,
        name: str = "K",
        center: bool = False,
        kernel: Kernel | str | None = None,
        points: NDArray | None = None,
    ) -> Self:
        """Exact representation of a symmetric ``K``, dropping numerically zero eigenvalues.

        Eigenvalues with ``|λ| ≤ rtol · max|λ|`` are discarded (default ``rtol = n · eps``); they
        carry no information that the data determine and would only amplify rounding. With
        ``center=True`` it represents ``HKH`` (``H = I − 11ᵀ/n``) and keeps the column means of ``K``.
        """
        column_means = None
        if center:
            K, column_means = center_kernel(np.asarray(K, dtype=float))
        values, vectors = eigendecompose(K, name=name)
        return cls.from_eigendecomposition(
            values, vectors, rtol=rtol, name=name, kernel=kernel, points=points, column_means=column_means
        )

    @classmethod
    def from_eigendecomposition(
        cls,
        values: NDArray[np.float64],
        vectors: NDArray[np.float64],
        *,
        rtol: float | None = None,
        name: str = "K",
        **parts: Any,
    ) -> Self:
        """The exact representation of ``U diag(λ) Uᵀ`` from its eigendecomposition (``λ`` ascending),
        without the eigenpairs with ``|λ| ≤ rtol · max|λ|`` (default ``rtol = n · eps``); ``parts``
        are the constructor's keywords (``kernel``, ``points``, ``column_means``)."""
        if rtol is None:
            rtol = values.size * np.finfo(float).eps
        keep = np.abs(values) > rtol * np.max(np.abs(values), initial=0.0)
        if not np.any(keep):
            raise ValueError(f"{name} is numerically zero: it has no non-zero eigenvalue.")
        return cls(values[keep], vectors[:, keep], **parts)

    @property
    def rank(self) -> int:
        """Number of retained eigenpairs r."""
        return self.values.size

    def project(self, y: NDArray[np.float64]) -> NDArray[np.float64]:
        """Eigen-coordinates ``Uᵀ y`` of a training target vector (or matrix)."""
        if self.vectors is None:
            raise ValueError("This representation holds no eigenvectors; it cannot project targets.")
        return self.vectors.T @ y

    def dual_coef(self, coef: NDArray[np.float64]) -> NDArray[np.float64]:
        """Dual coefficients ``β`` on the points ``P`` of a model with eigen-coordinates ``coef``."""
        if self.extension is None:
            beta = self._held_vectors() @ coef
            # on the training points of a centred kernel Σβ = 0 (U ⊥ 1) up to rounding
            return beta if self.column_means is None else beta - beta.mean(axis=0)
        scaled = coef * (self.values if coef.ndim == 1 else self.values[:, None])
        return self.extension @ scaled

    def offset(self, beta: NDArray[np.float64]) -> float | NDArray[np.float64]:
        """``−k̄ᵀβ``: the centring of a model ``f(x) = (k_x − k̄)ᵀβ`` folded into its intercept."""
        if self.column_means is None:
            return np.zeros(np.shape(beta)[1:]) if np.ndim(beta) > 1 else 0.0
        return -(self.column_means @ beta)

    def evaluate(
        self,
        X: ArrayLike,
        beta: ArrayLike,
        intercept: float | NDArray[np.float64] = 0.0,
        *,
        working_memory: float | None = None,
        owner: str | None = None,
    ) -> NDArray[np.float64]:
        """``K(X, P) β + intercept`` for validated test points ``X`` (kernel rows if precomputed).

        In memory when ``working_memory`` is None, otherwise in row blocks of that many MiB; a dask
        ``X`` (row chunks, all columns in one chunk) gives a lazy dask array, one task per chunk (values
        checked there). ``owner`` (a name) warns about test points with an all-zero kernel row.
        """
        beta = np.asarray(beta, dtype=float)
        args = (self._kernel(), self.points, beta, intercept, working_memory)
        if is_dask_array(X):
            shape = {"drop_axis": 1} if beta.ndim == 1 else {"chunks": (X.chunks[0], (beta.shape[1],))}
            return X.map_blocks(kernel_rows_times, *args, check_finite=True, dtype=np.float64, **shape)
        if working_memory is not None:
            return kernel_rows_times(X, *args)
        rows = self.rows(cast(NDArray[np.float64], X))  # validated by the caller
        if owner is not None:
            warn_unrelated_rows(rows, owner, stacklevel=3)
        return rows @ beta + intercept

    def rows(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        """The kernel rows ``K(X, P)`` of validated test points (an in-memory t×|P| array)."""
        kernel = self._kernel()
        if isinstance(kernel, str):
            return X if self.points is None else X[:, self.points]
        return kernel(X, self.points)

    def reduce_rows(
        self, coef: NDArray[np.float64], function: RowFunction, data: Any
    ) -> tuple[float | NDArray[np.float64], NDArray[np.float64]]:
        """One pass over the training points: ``(Σ value, Uᵀ w)``, ``(value, w) = function(U coef, data)``.

        ``function`` maps the outputs ``U coef`` of a set of training rows and the matching rows of
        ``data`` to a value (summed over the rows) and a weight per row (a loss and its derivative with
        respect to the outputs, say). Streamed producers evaluate it block by block.
        """
        vectors = self._held_vectors()
        value, weights = function(vectors @ coef, data)
        return value, vectors.T @ weights

    def training_rows(self, indices: ArrayLike) -> NDArray[np.float64]:
        """Rows ``U[indices]`` of the eigenvectors (the coordinates of those training points)."""
        return self._held_vectors()[np.asarray(indices)]

    def training_vectors(self) -> NDArray[np.float64]:
        """``U`` (n×r) in memory, for a solver that needs every training point's coordinates at once."""
        return self._held_vectors()

    def coordinates(self, X: ArrayLike, *, working_memory: float | None = None) -> NDArray[np.float64]:
        """Eigen-coordinates ``(K(x, P) − k̄) E`` of new points (the out-of-sample map of ``U``)."""
        E = self.extension if self.extension is not None else self._held_vectors() / self.values
        shift = 0.0 if self.column_means is None else -(self.column_means @ E)
        return self.evaluate(X, E, shift, working_memory=working_memory)


class DeferredRepresentation(SpectralRepresentation):
    """The exact representation of a training kernel, eigendecomposed on the first read of ``values``
    or ``vectors``.

    For the estimators whose solver works on the kernel matrix itself (the proxy-kernel SVMs, kernel
    k-means): their model ``f(x) = K(x, P) β + b`` is evaluated through the representation's points
    and out-of-sample map, and its spectrum costs an eigendecomposition only when it is read. A
    precomputed ``K`` is held until then; for a kernel object it is evaluated again on the points.
    """

    def __init__(
        self,
        K: NDArray[np.float64] | None,
        *,
        name: str = "K",
        kernel: Kernel | str | None = None,
        points: NDArray | None = None,
    ) -> None:
        self._matrix = K if isinstance(kernel, str) or kernel is None else None
        self._name, self._exact = name, None
        self.extension, self.column_means = None, None
        self.kernel, self.points = kernel, points

    def _decomposition(self):
        if self._exact is None:
            K = self.kernel(self.points) if self._matrix is None else self._matrix
            self._exact = SpectralRepresentation.exact(K, name=self._name)
            self._matrix = None
        return self._exact

    @property
    def values(self) -> NDArray[np.float64]:  # type: ignore[override]  # read-only: made on first read
        """Signed eigenvalues, ascending (the eigendecomposition is made on the first read)."""
        return self._decomposition().values

    @property
    def vectors(self) -> NDArray[np.float64]:  # type: ignore[override]  # read-only: made on first read
        """Orthonormal eigenvectors (the eigendecomposition is made on the first read)."""
        return self._decomposition().vectors

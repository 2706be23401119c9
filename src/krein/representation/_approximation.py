"""The Nyström method for indefinite kernels and its one-shot eigendecomposition.

Oglic & Gärtner (2019), Sec. 2.2. With landmarks ``Z`` and the eigendecomposition
``K_ZZ = U_Z D U_Zᵀ`` of the landmark block, the Nyström approximation of Eq. (3) is

    K̃ = K_XZ K_ZZ⁻¹ K_ZX = L S Lᵀ,   L = K_XZ U_Z |D|^{-1/2},   S = sign(D).

**Cutoff.** When ``K_ZZ`` is singular (duplicate landmarks, a kernel of low rank) the projection of
Eq. (2) does not exist; we use the Moore–Penrose pseudo-inverse, i.e. drop the eigenpairs of
``K_ZZ`` with ``|d| ≤ rcond · max|d|`` (default ``rcond = m · ε``), which projects onto the span of the
numerically independent landmark functionals. On the landmarks this changes ``K̃`` by at most
``rcond · max|d|`` per dropped eigenvalue. A warning names the number of dropped eigenvalues and the
condition number of ``K_ZZ`` then. A null vector known by construction (a kernel double-centred through
the landmarks annihilates the constant vector) is projected out exactly instead.

**One-shot eigendecomposition.** With the SVD ``L = A Σ Bᵀ``, ``K̃ = A M Aᵀ`` with
``M = Σ Bᵀ S B Σ = P Λ Pᵀ``, so ``Ũ = A P`` is orthonormal and ``K̃ = Ũ Λ Ũᵀ``. We obtain ``B`` and
``Σ`` from the r×r Gram matrix ``G = Lᵀ L = B Σ² Bᵀ`` — which is what makes the method streamable, a
sum over row chunks — and never divide by Σ: from ``M P = P Λ`` it follows that
``Ũ = L S B Σ P Λ⁻¹``, so the map from kernel rows to eigenvectors is ``E = U_Z |D|^{-1/2} S B Σ P Λ⁻¹``
with ``Ũ = K_XZ E``. The cost is ``m²n`` for ``L``, ``m²n`` for ``G`` and ``m²n`` for ``Ũ`` plus
three ``m³`` eigendecompositions: ``3m²n + 3m³`` flops, as in the paper. The loss of orthogonality of
an eigenvector is about ``ε · max|λ| / |λ|``; eigenpairs with ``|λ| ≤ √ε · max|λ|`` are therefore not
resolved and are dropped (they change ``K̃`` by at most that much in the spectral norm).
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike, NDArray

from .._threads import blas_for_rows
from ..spectral import eigendecompose

__all__ = [
    "LandmarkFactor",
    "OneShotEigendecomposition",
    "gisbrecht_schleif_eigendecomposition",
    "landmark_factor",
    "one_shot_eigendecomposition",
]

#: Eigenpairs of K̃ with |λ| below this fraction of max|λ| are not resolved by the Gram-based SVD.
EIGENVALUE_RTOL = float(np.sqrt(np.finfo(float).eps))


def _small_eigh(matrix):
    """``scipy.linalg.eigh(matrix, driver="evd")``, with one BLAS thread when the matrix is small
    (:func:`krein._threads.blas_for_rows`: on a machine whose cores are busy a threaded ``syevd`` spun
    for 50× as long, m = 500, two threads, load 7 on 2 cores: 9.1 s against 0.18 s)."""
    with blas_for_rows(matrix.shape[0]):
        return scipy.linalg.eigh(matrix, driver="evd", check_finite=False)


class LandmarkFactor(NamedTuple):
    """``K_ZZ⁺ = R diag(S) Rᵀ`` with ``R = U_Z |D|^{-1/2}`` (m×r₀) and ``S = sign(D)`` (r₀,).

    Columns are ordered by decreasing ``|d|`` (``values``, the kept eigenvalues of ``K_ZZ``), so that
    the first ``k`` columns give the pseudo-inverse truncated to its ``k`` leading eigenpairs.
    """

    right: np.ndarray
    signature: np.ndarray
    values: np.ndarray

    def truncate(self, rank: int | None) -> LandmarkFactor:
        """The factor of the ``rank`` leading eigenpairs."""
        return LandmarkFactor(self.right[:, :rank], self.signature[:rank], self.values[:rank])


class OneShotEigendecomposition(NamedTuple):
    """``K̃ = Ũ diag(values) Ũᵀ`` with ``Ũ = K_XZ extension``.

    ``values`` are sorted by decreasing magnitude; ``vectors`` is ``None`` when not materialized.
    """

    values: np.ndarray
    extension: np.ndarray
    vectors: np.ndarray | None


def _complement(vector):
    """An orthonormal basis (m×(m − 1)) of the complement of ``vector``: the last m − 1 columns of the
    Householder reflection that maps the first unit vector to a multiple of ``vector``."""
    v = np.asarray(vector, dtype=np.float64) / np.linalg.norm(vector)
    v[0] += 1.0 if v[0] >= 0 else -1.0
    reflection = np.eye(v.size) - np.outer(v, v) * (2.0 / (v @ v))
    return reflection[:, 1:]


def landmark_factor(
    K_ZZ: ArrayLike, *, rcond: float | None = None, null_vector: ArrayLike | None = None
) -> LandmarkFactor:
    """Signed square-root factor of the pseudo-inverse of the landmark block (Sec. 2.2).

    Parameters
    ----------
    K_ZZ : array-like of shape (m, m)
        Symmetric kernel block of the landmarks.
    rcond : float, default=None
        Eigenvalues with ``|d| ≤ rcond · max|d|`` are treated as zero (default ``m · ε``).
    null_vector : array-like of shape (m,), default=None
        A vector that ``K_ZZ`` annihilates by construction (the constant vector of a block
        double-centred through its own objects, :meth:`~krein.kernels.Kernel.block_null_vector`).
        ``K_ZZ`` is then inverted on the complement of the vector, ``Qᵀ K_ZZ Q`` with ``Q`` an
        orthonormal basis of it: in floating point that direction has an eigenvalue of the size of the
        rounding error, which the ``rcond`` cutoff would invert (with noise-sized rows along it) if it
        came out above the cutoff, and which is no sign of dependent landmarks; the cutoff and its
        warning concern the other m − 1 eigenvalues.

    Returns
    -------
    LandmarkFactor
    """
    basis = None if null_vector is None else _complement(null_vector)
    K_ZZ = np.asarray(K_ZZ)
    block = K_ZZ if basis is None else basis.T @ K_ZZ @ basis
    block = 0.5 * (block + block.T)
    values, vectors = eigendecompose(block, name="K_ZZ")  # one BLAS thread when small (its own rule)
    if rcond is None:
        rcond = values.size * np.finfo(float).eps
    scale = np.max(np.abs(values), initial=0.0)
    keep = np.abs(values) > rcond * scale
    if not np.any(keep):
        raise ValueError(
            "The landmark kernel block K_ZZ is numerically zero; choose other landmarks or check the "
            "kernel hyperparameters."
        )
    if not np.all(keep):
        magnitudes = np.abs(values)
        warnings.warn(
            f"The landmark kernel block K_ZZ is singular: {np.sum(~keep)} of its {values.size} eigenvalues "
            f"are at most rcond·max|d| = {rcond * scale:.3g} (condition number "
            f"{scale / max(magnitudes.min(), np.finfo(float).tiny):.3g}); they are dropped (pseudo-inverse), "
            f"so the approximation has rank {np.sum(keep)}. Duplicate or nearly dependent landmarks: "
            "choose fewer or other landmarks.",
            UserWarning,
            stacklevel=3,
        )
    order = np.argsort(-np.abs(values), kind="stable")[: np.sum(keep)]
    values, vectors = values[order], vectors[:, order]
    if basis is not None:
        vectors = basis @ vectors
    return LandmarkFactor(vectors / np.sqrt(np.abs(values)), np.sign(values), values)


def eigen_from_gram(gram, signature, *, rank=None):
    """Eigenvalues and the right factor ``W`` with ``Ũ = L W`` from ``G = Lᵀ L`` (Sec. 2.2).

    ``K̃ = L diag(S) Lᵀ``; with ``G = B Σ² Bᵀ`` and ``M = Σ Bᵀ S B Σ = P Λ Pᵀ`` we return ``Λ`` and
    ``W = S B Σ P Λ⁻¹`` (no division by singular values). Eigenpairs are ordered by decreasing
    ``|λ|``; those with ``|λ| ≤ √ε · max|λ|`` are dropped, then the first ``rank`` are kept.

    Returns
    -------
    values : ndarray of shape (r,)
    W : ndarray of shape (r₀, r)
    """
    squared, B = _small_eigh(gram)
    sigma = np.sqrt(np.clip(squared, 0.0, None))
    SB_sigma = (signature[:, None] * B) * sigma
    M = B.T @ SB_sigma * sigma[:, None]
    M = 0.5 * (M + M.T)
    values, P = _small_eigh(M)
    order = np.argsort(-np.abs(values), kind="stable")
    values, P = values[order], P[:, order]
    keep = np.abs(values) > EIGENVALUE_RTOL * np.abs(values[0])
    if rank is not None:
        keep[rank:] = False
    values, P = values[keep], P[:, keep]
    if values.size == 0:
        raise ValueError("The Nyström approximation is numerically zero: it has no non-zero eigenvalue.")
    return values, (SB_sigma @ P) / values


def one_shot_eigendecomposition(
    K_XZ: NDArray[np.float64],
    K_ZZ: NDArray[np.float64],
    *,
    rank: int | None = None,
    rcond: float | None = None,
    return_vectors: bool = True,
) -> OneShotEigendecomposition:
    """One-shot approximate eigendecomposition of the Nyström approximation (Sec. 2.2).

    Parameters
    ----------
    K_XZ : ndarray of shape (n, m)
        Kernel between all points and the landmarks.
    K_ZZ : ndarray of shape (m, m)
        Landmark block.
    rank : int, default=None
        Keep the ``rank`` eigenpairs of largest magnitude (all resolved ones when None).
    rcond : float, default=None
        Cutoff of the landmark block (see :func:`landmark_factor`).
    return_vectors : bool, default=True
        Materialize ``Ũ`` (n×r).

    Returns
    -------
    OneShotEigendecomposition
    """
    factor = landmark_factor(K_ZZ, rcond=rcond)
    L = K_XZ @ factor.right
    values, W = eigen_from_gram(L.T @ L, factor.signature, rank=rank)
    vectors = L @ W if return_vectors else None
    return OneShotEigendecomposition(values, factor.right @ W, vectors)


def gisbrecht_schleif_eigendecomposition(
    K_XZ: NDArray[np.float64], K_ZZ: NDArray[np.float64], *, rcond: float | None = None
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The approximate eigendecomposition of Gisbrecht & Schleif (2015), reviewed in Appendix B.

    ``A = K_ZZ⁻¹ K_ZX K_XZ K_ZZ⁻¹ = V Γ Vᵀ``, ``B = K_XZ V Γ^{1/2}``, ``BᵀB = Q Δ Qᵀ``,
    ``Ũ = B Q Δ^{-1/2}`` (eigenvectors of ``K̃²``) and the signed eigenvalues ``diag(Ũᵀ K̃ Ũ)``.
    ``K_ZZ⁻¹`` is the pseudo-inverse with the cutoff of :func:`landmark_factor`, and eigenvalues of
    ``A`` and ``BᵀB`` below ``m · ε`` times the largest are dropped. A baseline for accuracy and
    time; :func:`one_shot_eigendecomposition` needs fewer n×m products.

    Returns
    -------
    values : ndarray of shape (r,)
        Signed eigenvalues, by decreasing magnitude.
    vectors : ndarray of shape (n, r)
    """
    factor = landmark_factor(K_ZZ, rcond=rcond)
    pinv = (factor.right * factor.signature) @ factor.right.T
    gram = K_XZ.T @ K_XZ
    A = pinv @ gram @ pinv
    gamma, V = scipy.linalg.eigh(0.5 * (A + A.T), driver="evd", check_finite=False)
    tolerance = gamma.size * np.finfo(float).eps * np.max(np.abs(gamma))
    keep = gamma > tolerance
    B = K_XZ @ (V[:, keep] * np.sqrt(gamma[keep]))
    delta, Q = scipy.linalg.eigh(B.T @ B, driver="evd", check_finite=False)
    keep = delta > delta.size * np.finfo(float).eps * np.max(delta)
    vectors = B @ (Q[:, keep] / np.sqrt(delta[keep]))
    projected = K_XZ.T @ vectors
    values = np.einsum("ij,ij->j", projected, pinv @ projected)
    order = np.argsort(-np.abs(values), kind="stable")
    return values[order], vectors[:, order]

"""Geodesic distances between symmetric positive definite matrices and covariance descriptors.

Liu, Huang, Gong, Yang & Suykens (IEEE TNNLS 2019), Sec. V-C and Table I:

* affine-invariant (Aff-I):  d(S₁, S₂) = ‖log(S₁^{-1/2} S₂ S₁^{-1/2})‖_F — a geodesic distance
  of the curved manifold Sym⁺_d; exp(−d²/σ²) is *not* positive definite (Feragen et al. 2015);
* log-Euclidean (Log-E):     d(S₁, S₂) = ‖log S₁ − log S₂‖_F — geodesic of a flat metric;
  exp(−d²/σ²) is positive definite.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg import solve_triangular

from .._memory import CACHE_BUDGET, MemoryBudget
from ._blocks import Metric, check_collection, evaluate, reject_sparse, tiling_doc
from ._vectors import Euclidean

__all__ = ["spd_distances", "covariance_descriptors"]


def _check_spd(A, name: str) -> np.ndarray:
    try:
        arr = np.asarray(A, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of shape (n, d, d) of SPD matrices") from None
    if arr.ndim != 3 or arr.shape[1] != arr.shape[2] or arr.shape[1] == 0:
        raise ValueError(f"{name} must have shape (n, d, d) with d >= 1, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    scale = np.maximum(np.abs(arr).max(axis=(1, 2), initial=0.0), np.finfo(np.float64).tiny)
    asym = np.abs(arr - arr.transpose(0, 2, 1)).max(axis=(1, 2), initial=0.0) / scale
    bad = np.flatnonzero(asym > 1e-8)
    if bad.size:
        raise ValueError(f"{name}[{bad[0]}] is not symmetric")
    arr = 0.5 * (arr + arr.transpose(0, 2, 1))
    w = np.linalg.eigvalsh(arr) if arr.shape[0] else np.ones((0, arr.shape[1]))
    bad = np.flatnonzero(w[:, 0] <= 0)
    if bad.size:
        raise ValueError(
            f"{name}[{bad[0]}] is not positive definite (smallest eigenvalue {w[bad[0], 0]:.3g})"
        )
    # eigenvalues below d·ε·λ_max are rounding, not data: their logarithms (and the distances) are
    # not determined in float64 (and the Cholesky factorization may fail)
    limit = 1.0 / (arr.shape[1] * np.finfo(np.float64).eps)
    bad = np.flatnonzero(w[:, -1] > limit * w[:, 0])
    if bad.size:
        raise ValueError(
            f"{name}[{bad[0]}] is numerically singular (condition number {w[bad[0], -1] / w[bad[0], 0]:.2g} "
            f"> 1/(d·ε) = {limit:.2g}): its geodesic distances are not determined in float64; add a "
            "ridge (covariance_descriptors(reg=...))"
        )
    return arr


def _spd_log(S: np.ndarray) -> np.ndarray:
    w, V = np.linalg.eigh(S)
    return np.einsum("nij,nj,nkj->nik", V, np.log(w), V)


def _inv_cholesky(S: np.ndarray) -> np.ndarray:
    """W with W S Wᵀ = I (W = L⁻¹ for S = L Lᵀ), by triangular solves."""
    L = np.linalg.cholesky(S)
    eye = np.eye(S.shape[1])
    return np.stack([solve_triangular(Li, eye, lower=True) for Li in L]) if len(S) else L


class _SPDMetric(Metric):
    def check(self, X, name: str) -> np.ndarray:
        return _check_spd(X, name)

    def check_pair(self, a, b) -> None:
        if a.shape[1] != b.shape[1]:
            raise ValueError(f"A holds {a.shape[1]}x{a.shape[1]} matrices but B {b.shape[1]}x{b.shape[1]}")


class AffineInvariant(_SPDMetric):
    """d(S₁, S₂) = ‖log(S₁^{-1/2} S₂ S₁^{-1/2})‖_F = 2 (Σᵢ log² σᵢ)^{1/2}, σᵢ the singular values of
    L₁⁻¹ L₂ (Sⱼ = Lⱼ Lⱼᵀ): the eigenvalues of the pencil (S₂, S₁) are σᵢ².

    The singular values of the triangular product keep their relative accuracy down to
    ε·σ_max/σ_min, the square root of the conditioning that the eigenvalues of L₁⁻¹ S₂ L₁⁻ᵀ have
    (with condition numbers 1e9 and 1e12 those come out negative, and log turned them into 709).
    """

    name = "affine_invariant"

    def tiles(self, a, b, symmetric, params, n_jobs, working_memory):
        wa = _inv_cholesky(a)
        lb = np.linalg.cholesky(b)
        d = a.shape[1]
        # pairs per batched SVD: the d×d product and LAPACK's work arrays, about 4 d² doubles a pair,
        # cache-sized batches within the budget
        chunk = MemoryBudget(working_memory).within(CACHE_BUDGET).count(32 * d * d)

        def tile(r0, r1, c0, c1, diagonal):
            if diagonal:  # strictly upper triangle only: each unordered pair once
                rows, cols = np.triu_indices(r1 - r0, k=1)
            else:
                rows, cols = np.divmod(np.arange((r1 - r0) * (c1 - c0)), c1 - c0)
            dist = np.empty(rows.shape[0])
            for s0 in range(0, rows.shape[0], chunk):
                sv = np.linalg.svd(
                    np.matmul(wa[r0 + rows[s0 : s0 + chunk]], lb[c0 + cols[s0 : s0 + chunk]]),
                    compute_uv=False,
                )
                log_sv = np.log(sv)
                dist[s0 : s0 + chunk] = 2.0 * np.sqrt(np.einsum("pk,pk->p", log_sv, log_sv))
            D = np.zeros((r1 - r0, c1 - c0))
            D[rows, cols] = dist
            if diagonal:
                D[cols, rows] = dist
            return D

        # the tile, the pair indices and the distances: 4 numbers of 8 bytes per pair
        return tile, MemoryBudget(working_memory).tile(32.0, max_tile=512), n_jobs


class LogEuclidean(_SPDMetric):
    """d(S₁, S₂) = ‖log S₁ − log S₂‖_F: the Euclidean distance between the matrix logarithms, taken
    once per matrix by a symmetric eigendecomposition and compared by their differences."""

    name = "log_euclidean"

    def tiles(self, a, b, symmetric, params, n_jobs, working_memory):
        la = _spd_log(a).reshape(len(a), -1)
        lb = la if symmetric else _spd_log(b).reshape(len(b), -1)
        return Euclidean().tiles(la, lb, symmetric, {}, n_jobs, working_memory)


_METRICS = {"affine_invariant": AffineInvariant, "log_euclidean": LogEuclidean}


@tiling_doc
def spd_distances(
    A: ArrayLike,
    B: ArrayLike | None = None,
    *,
    metric: str = "affine_invariant",
    n_jobs: int | None = None,
    working_memory: float | None = None,
) -> np.ndarray:
    """Pairwise geodesic distances between SPD matrices (IKLR paper, Table I).

    ``metric="affine_invariant"``: d(S₁, S₂) = ‖log(S₁^{-1/2} S₂ S₁^{-1/2})‖_F
    = (Σᵢ log² λᵢ)^{1/2}, λᵢ the eigenvalues of the pencil (S₂, S₁), computed as the squared
    singular values of L₁⁻¹ L₂ with Sⱼ = Lⱼ Lⱼᵀ.  Invariant under congruence S ↦ G S Gᵀ (G invertible).

    ``metric="log_euclidean"``: d(S₁, S₂) = ‖log S₁ − log S₂‖_F, with the matrix logarithms taken
    once per matrix by a symmetric eigendecomposition.

    The same as ``pairwise_distances(A, B, metric=metric)``.

    Parameters
    ----------
    A : array of shape (n_a, d, d), symmetric positive definite matrices
    B : array of shape (n_b, d, d) or None
        ``None`` computes ``A`` against itself (exactly symmetric, zero diagonal, each pair once).
    metric : {"affine_invariant", "log_euclidean"}
    {tiling_parameters}

    Returns
    -------
    D : ndarray of shape (n_a, n_b), float64
    """
    if metric not in _METRICS:
        raise ValueError(f"metric must be one of {tuple(_METRICS)}, got {metric!r}")
    return evaluate(_METRICS[metric](), A, B, n_jobs=n_jobs, working_memory=working_memory)


def _image_features(img: np.ndarray) -> np.ndarray:
    """Per-pixel features [x, y, I, |Gx|, |Gy|, √(Gx²+Gy²), |Gxx|, |Gyy|, arctan(|Gx|/|Gy|)]."""
    h, w = img.shape
    gy, gx = np.gradient(img)  # central differences, axis 0 = y (rows), axis 1 = x (columns)
    gyy = np.gradient(gy, axis=0)
    gxx = np.gradient(gx, axis=1)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    ax, ay = np.abs(gx), np.abs(gy)
    feats = [
        xx,
        yy,
        img,
        ax,
        ay,
        np.hypot(gx, gy),
        np.abs(gxx),
        np.abs(gyy),
        np.arctan2(ax, ay),  # arctan(|Gx| / |Gy|), = π/2 where Gy = 0 < |Gx|, 0 where both vanish
    ]
    return np.stack([f.ravel() for f in feats])  # (9, h*w)


def _regularized_cov(F: np.ndarray, reg: float) -> np.ndarray:
    C = np.cov(F, bias=False)
    C = np.atleast_2d(C)
    d = C.shape[0]
    return C + reg * max(np.trace(C) / d, np.finfo(np.float64).tiny) * np.eye(d)


def covariance_descriptors(X: ArrayLike, *, kind: str = "series", reg: float = 1e-6) -> np.ndarray:
    """Covariance descriptors: SPD matrices for :func:`spd_distances`.

    ``kind="image"``: the region covariance descriptor (Tuzel, Porikli & Meer 2006) used in
    Sec. V-C of the IKLR paper — the 9 × 9 covariance over all pixels of the feature vector
    [x, y, I_xy, |G_x|, |G_y|, (G_x² + G_y²)^{1/2}, |G_xx|, |G_yy|, arctan(|G_x|/|G_y|)], with
    first and second derivatives by central differences (``numpy.gradient``).

    ``kind="series"``: the c × c covariance over time of each multichannel series.

    Either way ``reg · tr(C)/d · I`` is added (d the size of C) so that the descriptors are
    strictly positive definite.

    Parameters
    ----------
    X : for ``"image"``: array of shape (n, h, w) or a list of 2-d grey-level images (sizes may
        differ, h, w >= 2);
        for ``"series"``: array of shape (n, c, T) or a list of (c, Tᵢ) arrays (lengths may
        differ, Tᵢ >= 2).
    kind : {"series", "image"}
    reg : float, default=1e-6
        Relative ridge added to the diagonal.

    Returns
    -------
    C : ndarray of shape (n, 9, 9) for images, (n, c, c) for series
    """
    if kind not in ("series", "image"):
        raise ValueError(f"kind must be 'series' or 'image', got {kind!r}")
    if isinstance(reg, bool) or not (isinstance(reg, int | float) and 0 <= reg < np.inf):
        raise ValueError(f"reg must be a finite non-negative number, got {reg!r}")
    reject_sparse(X, "X")
    if kind == "image":
        images = check_collection(
            X,
            "X",
            item_ndim=2,
            collection="an array (n, h, w) or a list of 2-d images (sizes may differ)",
            item_shape="(h >= 2, w >= 2)",
        )
        for i, img in enumerate(images):
            if min(img.shape) < 2:
                raise ValueError(f"X[{i}] must be an image of at least 2 x 2 pixels, got shape {img.shape}")
        covs = [_regularized_cov(_image_features(img), reg) for img in images]
    else:
        series = check_collection(
            X,
            "X",
            item_ndim=2,
            collection="an array (n, channels, length) or a list of (channels, length) arrays",
            item_shape="(channels, length >= 2)",
        )
        for i, arr in enumerate(series):
            if arr.shape[1] < 2:
                raise ValueError(f"X[{i}] must have shape (channels, length >= 2), got {arr.shape}")
            if arr.shape[0] != series[0].shape[0]:
                raise ValueError(f"X[{i}] has {arr.shape[0]} channels, X[0] has {series[0].shape[0]}")
        for i, arr in enumerate(series):
            if np.all(arr == arr[:, :1]):
                raise ValueError(
                    f"X[{i}] is constant over time: its covariance is zero, and no ridge relative to its "
                    "trace makes it positive definite; drop the series or add a constant ridge yourself"
                )
        covs = [_regularized_cov(arr, reg) for arr in series]
    if not covs:
        raise ValueError("X is empty")
    return np.stack(covs)

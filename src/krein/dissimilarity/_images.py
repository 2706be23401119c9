"""Image similarities of Luss & d'Aspremont (2009), Sec. 5.1: Simpson score, tangent distance."""

from __future__ import annotations

import functools

import numpy as np
from numpy.typing import ArrayLike
from scipy.ndimage import gaussian_filter

from .._memory import MemoryBudget
from ._blocks import Metric, check_n_jobs, check_operands, evaluate, pairwise_tiles, tiling_doc

__all__ = ["simpson_similarity", "tangent_distances"]


def _check_images(A, name: str, *, binary: bool = False) -> np.ndarray:
    try:
        arr = np.asarray(A)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of equally sized images (ragged input)") from None
    if arr.dtype == object:
        raise ValueError(f"{name} must be an array of equally sized images (ragged input)")
    if arr.ndim not in (2, 3):
        raise ValueError(f"{name} must have shape (n, h, w) or (n, pixels), got {arr.shape}")
    if binary:
        if arr.dtype != bool:
            if not np.issubdtype(arr.dtype, np.number) or not np.all((arr == 0) | (arr == 1)):
                raise ValueError(
                    f"{name} must hold binary images (bool or 0/1); see krein.datasets.binarize_images"
                )
        return arr.reshape(arr.shape[0], -1).astype(np.float64)
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


@tiling_doc
def simpson_similarity(
    A: ArrayLike,
    B: ArrayLike | None = None,
    *,
    n_jobs: int | None = None,
    working_memory: float | None = None,
) -> np.ndarray:
    """Pairwise Simpson scores between binary images.

    With a and b the sets of foreground pixels, S(a, b) = |a ∩ b| / min(|a|, |b|) (the
    overlap coefficient; Luss & d'Aspremont 2009, Sec. 5.1, "a ratio comparing binary
    pixels").  It is a similarity in [0, 1], equal to 1 on the diagonal, and the matrix is in
    general indefinite (Table 1 of that paper: λ_min = −70 on USPS 3-vs-5).

    Parameters
    ----------
    A : array of shape (n_a, h, w) or (n_a, pixels), bool or 0/1
    B : same, or None
        ``None`` computes ``A`` against itself (symmetric, each pair once).
    {tiling_parameters}

    Returns
    -------
    S : ndarray of shape (n_a, n_b), float64
    """
    a, b, symmetric = check_operands(A, B, functools.partial(_check_images, binary=True))
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"A has {a.shape[1]} pixels per image but B has {b.shape[1]}")
    for arr, name in ((a, "A"), (b, "B")):
        empty = np.flatnonzero(arr.sum(axis=1) == 0)
        if empty.size:
            raise ValueError(f"{name}[{empty[0]}] has no foreground pixel: Simpson score undefined")
    check_n_jobs(n_jobs)
    na, nb = a.sum(axis=1), b.sum(axis=1)

    def tile(r0, r1, c0, c1, diagonal):
        inter = a[r0:r1] @ b[c0:c1].T
        S = inter / np.minimum(na[r0:r1, None], nb[None, c0:c1])
        if diagonal:
            S = 0.5 * (S + S.T)
        return S

    t = MemoryBudget(working_memory).tile(16.0)
    return pairwise_tiles(tile, len(a), len(b), symmetric=symmetric, tile=t, n_jobs=n_jobs)


def _tangent_basis(images: np.ndarray, sigma: float, tol: float = 1e-8) -> np.ndarray:
    """Orthonormal bases (n, p, 7) of the tangent spaces of the images.

    Tangent vectors of Simard et al. (1998): x- and y-translation, rotation, scaling, parallel
    and diagonal hyperbolic transformations, thickening; computed from the derivatives of the
    Gaussian-smoothed image, each scaled to unit norm.  Directions with singular value below ``tol``
    times the largest are dropped (set to zero).
    """
    n, h, w = images.shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    yy -= (h - 1) / 2.0
    xx -= (w - 1) / 2.0
    T = np.empty((n, h * w, 7))
    for i, img in enumerate(images):
        sm = gaussian_filter(img, sigma=sigma, mode="constant") if sigma > 0 else img
        gy, gx = np.gradient(sm)
        vecs = (
            gx,
            gy,
            yy * gx - xx * gy,
            xx * gx + yy * gy,
            xx * gx - yy * gy,
            yy * gx + xx * gy,
            gx * gx + gy * gy,
        )
        T[i] = np.stack([v.ravel() for v in vecs], axis=1)
    # unit columns: the thickening vector is quadratic in the image, the others linear; normalized,
    # the rank decision below does not depend on the scale of the image (tangent distances are then
    # homogeneous, d(s·x, s·y) = s·d(x, y))
    norms = np.linalg.norm(T, axis=1, keepdims=True)
    T = np.divide(T, norms, out=np.zeros_like(T), where=norms > 0)
    U, s, _ = np.linalg.svd(T, full_matrices=False)
    keep = s > tol * np.maximum(s[:, :1], np.finfo(np.float64).tiny)
    return U * keep[:, None, :]


class Tangent(Metric):
    """(Mean) tangent distance between grey-level images; see :func:`tangent_distances`."""

    name = "tangent"
    parameters = {"symmetrize": "mean", "sigma": 1.0}
    homogeneous = True

    def check(self, X, name: str) -> np.ndarray:
        arr = _check_images(X, name)
        if arr.ndim != 3 or min(arr.shape[1:]) < 2:
            raise ValueError(
                f"{name} must have shape (n, h, w) with images of at least 2 x 2 pixels "
                f"(the tangent vectors are derivatives), got shape {arr.shape}"
            )
        return arr

    def check_params(self, params: dict) -> dict:
        if params["symmetrize"] not in ("mean", None):
            raise ValueError(f"symmetrize must be 'mean' or None, got {params['symmetrize']!r}")
        sigma = params["sigma"]
        if isinstance(sigma, bool) or not (isinstance(sigma, int | float) and 0 <= sigma < np.inf):
            raise ValueError(f"sigma must be a finite non-negative number, got {sigma!r}")
        return params

    def check_pair(self, a, b) -> None:
        if b.shape[1:] != a.shape[1:]:
            raise ValueError(
                f"B must hold images of A's size {a.shape[1]} x {a.shape[2]}, got {b.shape[1]} x {b.shape[2]}"
            )

    def is_symmetric(self, params: dict) -> bool:
        return params["symmetrize"] == "mean"

    def tiles(self, a, b, symmetric, params, n_jobs, working_memory):
        symmetrize, sigma = params["symmetrize"], float(params["sigma"])
        Qb = _tangent_basis(b, sigma)
        Qa = Qb if b is a else _tangent_basis(a, sigma)
        fa = a.reshape(len(a), -1)
        fb = b.reshape(len(b), -1)
        sqa = np.einsum("ij,ij->i", fa, fa)
        sqb = np.einsum("ij,ij->i", fb, fb)
        pb_self = np.einsum("jpk,jp->jk", Qb, fb)  # Q_bᵀ b
        pa_self = np.einsum("ipk,ip->ik", Qa, fa)  # Q_aᵀ a

        def exact(x, y, Q):
            """‖(I − Q Qᵀ)(x − y)‖ from the difference itself."""
            diff = x - y
            return float(np.linalg.norm(diff - Q @ (Q.T @ diff)))

        def refined(d2, rows, cols, x, y, Q, at):
            """√d2, except where the expansion ‖x‖² + ‖y‖² − 2x·y − ‖Qᵀ(x − y)‖² kept fewer than
            about 8 digits (d² < 1e-7 (‖x‖² + ‖y‖²): near-duplicate images): those from the
            differences.  ``at(i, j)`` says at which image the tangents are taken."""
            d = np.sqrt(d2)
            for i, j in zip(*np.nonzero(d2 < 1e-7 * (sqa[rows, None] + sqb[None, cols])), strict=True):
                d[i, j] = exact(x[rows[i]], y[cols[j]], Q[at(rows[i], cols[j])])
            return d

        def one_sided(r0, r1, c0, c1):
            """d₁(a_i, b_j): tangents at b_j."""
            diff2 = sqa[r0:r1, None] + sqb[None, c0:c1] - 2.0 * fa[r0:r1] @ fb[c0:c1].T
            proj = np.einsum("jpk,ip->ijk", Qb[c0:c1], fa[r0:r1]) - pb_self[None, c0:c1]
            d2 = np.maximum(diff2 - np.einsum("ijk,ijk->ij", proj, proj), 0.0)
            return refined(d2, np.arange(r0, r1), np.arange(c0, c1), fa, fb, Qb, lambda i, j: j)

        def reverse(r0, r1, c0, c1):
            """d₁(b_j, a_i): tangents at a_i."""
            diff2 = sqa[r0:r1, None] + sqb[None, c0:c1] - 2.0 * fa[r0:r1] @ fb[c0:c1].T
            proj = np.einsum("ipk,jp->ijk", Qa[r0:r1], fb[c0:c1]) - pa_self[r0:r1, None]
            d2 = np.maximum(diff2 - np.einsum("ijk,ijk->ij", proj, proj), 0.0)
            return refined(d2, np.arange(r0, r1), np.arange(c0, c1), fa, fb, Qa, lambda i, j: i)

        def tile(r0, r1, c0, c1, diagonal):
            d1 = one_sided(r0, r1, c0, c1)
            if symmetrize is None:
                return d1
            D = 0.5 * (d1 + reverse(r0, r1, c0, c1))
            if diagonal:
                D = 0.5 * (D + D.T)
                np.fill_diagonal(D, 0.0)
            return D

        return tile, MemoryBudget(working_memory).tile(8.0 * (2 * 7 + 6), max_tile=2048), n_jobs


@tiling_doc
def tangent_distances(
    A: ArrayLike,
    B: ArrayLike | None = None,
    *,
    symmetrize: str | None = "mean",
    sigma: float = 1.0,
    n_jobs: int | None = None,
    working_memory: float | None = None,
) -> np.ndarray:
    """Pairwise tangent distances between grey-level images.

    The one-sided tangent distance from x to y is the distance from x to the tangent plane of
    the transformation manifold at y (Simard et al. 1998; Haasdonk & Keysers 2002):

    .. math::  d_1(x, y) = \\min_{\\alpha} \\lVert x - (y + T_y \\alpha) \\rVert_2
                = \\lVert (I - Q_y Q_y^\\top)(x - y) \\rVert_2 ,

    with Q_y an orthonormal basis of the 7 tangent vectors at y (see ``_tangent_basis``).  It is
    not symmetric; Luss & d'Aspremont (2009, Sec. 5.1) symmetrize it by the *mean* tangent
    distance of Haasdonk & Keysers, d(x, y) = ½ (d₁(x, y) + d₁(y, x)), and use
    exp(−γ d(x, y)²) as kernel.  The same as ``pairwise_distances(A, B, metric="tangent")``.

    Parameters
    ----------
    A : array of shape (n_a, h, w), grey-level images
    B : array of shape (n_b, h, w) or None
        ``None`` computes ``A`` against itself.
    symmetrize : {"mean", None}, default="mean"
        ``"mean"``: ½ (d₁(a, b) + d₁(b, a)) (symmetric, each pair once when ``B`` is None);
        ``None``: the one-sided d₁(a, b), tangents taken at the images of ``B``.
    sigma : float, default=1.0
        Width (pixels) of the Gaussian smoothing before differentiation.
    {tiling_parameters}

    Returns
    -------
    D : ndarray of shape (n_a, n_b), float64
    """
    return evaluate(
        Tangent(), A, B, symmetrize=symmetrize, sigma=sigma, n_jobs=n_jobs, working_memory=working_memory
    )

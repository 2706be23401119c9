"""Eigendecomposition of a diagonal plus rank-one matrix ``diag(d) + ρ u uᵀ`` in O(n²).

Sec. 3.1 of Luss & d'Aspremont (2009): the proxy kernel ``(K₀ + (Yα)(Yα)ᵀ/4ρ)₊`` needs, for every
α, the eigendecomposition of a rank-one update of the fixed ``K₀ = V diag(d) Vᵀ``; in the basis ``V``
this is ``diag(d) + ρ u uᵀ`` with ``u = Vᵀ(Yα)``. Its eigenvalues are the roots of the secular
equation ``1 + ρ Σⱼ uⱼ² / (dⱼ − λ) = 0``, one in each interval between consecutive poles (Golub 1973;
Demmel 1997, Sec. 5.3.3).

The steps (Bunch, Nielsen & Sorensen 1978; Gu & Eisenstat 1994; Demmel 1997, Sec. 5.3.3):

1. *Deflation.* A component with ``ρ|uⱼ|`` at rounding level leaves ``(dⱼ, eⱼ)`` an eigenpair; two
   poles closer than rounding allows are merged by a Givens rotation that zeroes one component of
   ``u``. The remaining poles are strictly separated and the remaining components non-zero.
2. *Secular equation.* Each root is found by LAPACK's ``dlaed4`` (Li's "middle way" rational
   iteration, with the differences ``dⱼ − λᵢ`` computed in shifted coordinates to full relative
   accuracy), called through ``dlaed9``.
3. *Stable eigenvectors* (Gu & Eisenstat). The computed roots are the exact eigenvalues of
   ``diag(d) + ρ ûûᵀ`` with ``ûⱼ² = Πᵢ(λᵢ − dⱼ) / (ρ Π_{i≠j}(dᵢ − dⱼ))`` (Löwner's formula); the
   eigenvectors ``(diag(d) − λᵢ)⁻¹ û`` of this nearby matrix are numerically orthogonal. ``dlaed9``
   forms them from the differences of step 2.

Everything is O(n²): no n×n matrix product is formed. LAPACK's ``dlaed4``/``dlaed9`` are reached
through the function pointers that :mod:`scipy.linalg.cython_lapack` exports.
"""

from __future__ import annotations

import ctypes
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "RankOneEigen",
    "rank_one_eigh",
    "rank_one_positive_part",
    "rank_one_smoothed_part",
    "smoothed_positive_part",
    "smoothed_square",
]

_c_int_p = ctypes.POINTER(ctypes.c_int)
_c_double_p = ctypes.POINTER(ctypes.c_double)


def _lapack_function(name, argtypes):
    """A ctypes function for the LAPACK routine ``name`` exported by scipy's Cython LAPACK module."""
    from scipy.linalg import cython_lapack

    capsule = cython_lapack.__pyx_capi__[name]
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype, get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    address = get_pointer(capsule, get_name(capsule))
    return ctypes.CFUNCTYPE(None, *argtypes)(address)


_DLAED9 = None
_DLAED4 = None


def _dlaed4():
    global _DLAED4
    if _DLAED4 is None:
        ints, doubles = _c_int_p, _c_double_p
        pointer = ctypes.c_void_p  # raw addresses: building ndarray.ctypes objects per call is slow
        _DLAED4 = _lapack_function("dlaed4", [ints, ints, pointer, pointer, pointer, doubles, doubles, ints])
    return _DLAED4


def _dlaed9():
    global _DLAED9
    if _DLAED9 is None:
        ints, doubles = _c_int_p, _c_double_p
        _DLAED9 = _lapack_function(
            "dlaed9",
            [ints, ints, ints, ints, doubles, doubles, ints, doubles, doubles, doubles, doubles, ints, ints],
        )
    return _DLAED9


class RankOneEigen(NamedTuple):
    """Eigenvalues (ascending) and orthonormal eigenvectors (columns) of ``diag(d) + ρ u uᵀ``."""

    values: NDArray[np.float64]
    vectors: NDArray[np.float64]


def _secular_solve(poles, z, weight):
    """Roots and eigenvectors of ``diag(poles) + weight z zᵀ`` (poles strictly increasing, ‖z‖ = 1)."""
    k = poles.size
    values = np.empty(k)
    workspace = np.empty((k, k), order="F")
    vectors = np.empty((k, k), order="F")
    poles = np.array(poles, dtype=float)
    z = np.array(z, dtype=float)
    k_ = ctypes.c_int(k)
    one = ctypes.c_int(1)
    rho = ctypes.c_double(weight)
    info = ctypes.c_int(0)

    def ptr(array):
        return array.ctypes.data_as(_c_double_p)

    _dlaed9()(
        ctypes.byref(k_), ctypes.byref(one), ctypes.byref(k_), ctypes.byref(k_), ptr(values),
        ptr(workspace), ctypes.byref(k_), ctypes.byref(rho), ptr(poles), ptr(z), ptr(vectors),
        ctypes.byref(k_), ctypes.byref(info),
    )  # fmt: skip
    if info.value != 0:  # pragma: no cover - dlaed4 failing to converge is not expected
        raise np.linalg.LinAlgError(f"LAPACK dlaed9 failed on the secular equation (info={info.value}).")
    return values, np.asarray(vectors)


def _check_inputs(d: ArrayLike, u: ArrayLike, rho: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    d = np.asarray(d, dtype=float)
    u = np.asarray(u, dtype=float)
    if d.ndim != 1 or u.shape != d.shape:
        raise ValueError(f"d and u must be vectors of equal length, got shapes {d.shape} and {u.shape}.")
    if d.size > 1 and np.any(np.diff(d) < 0):
        raise ValueError("d must be sorted in ascending order.")
    if not (np.all(np.isfinite(d)) and np.all(np.isfinite(u)) and np.isfinite(rho)):
        raise ValueError("d, u and rho must be finite.")
    return d, u


def _deflate(d, z, weight):
    """Deflation of ``diag(d) + weight z zᵀ`` (‖z‖ = 1, weight > 0), as in LAPACK's ``dlaed2``.

    Returns ``(diag, z, weight, kept, rotations)``: the (slightly modified) diagonal, the rotated
    update vector (zero outside ``kept``), the boolean mask of the components left to the secular
    equation, and the Givens rotations ``(p, j, c, s)`` applied to coordinate pairs, in order.
    """
    diag = d.copy()
    z = z.copy()
    tolerance = 8.0 * np.finfo(float).eps * max(np.max(np.abs(diag)), weight)
    kept = weight * np.abs(z) > tolerance
    z[~kept] = 0.0
    rotations = []
    kept_index = np.flatnonzero(kept)
    if kept_index.size > 1:
        a, b = z[kept_index[:-1]], z[kept_index[1:]]
        if np.any(np.diff(diag[kept_index]) * np.abs(a * b) / (a**2 + b**2) <= tolerance):
            previous = kept_index[0]
            for j in kept_index[1:]:
                radius = np.hypot(z[previous], z[j])
                c, s = z[j] / radius, -z[previous] / radius
                if abs((diag[j] - diag[previous]) * c * s) <= tolerance:
                    z[j], z[previous] = radius, 0.0
                    kept[previous] = False
                    d_prev, d_j = diag[previous], diag[j]
                    diag[previous] = d_prev * c**2 + d_j * s**2
                    diag[j] = d_prev * s**2 + d_j * c**2
                    rotations.append((previous, j, c, s))
                previous = j
    return diag, z, weight, kept, rotations


def rank_one_eigh(d: ArrayLike, u: ArrayLike, rho: float) -> RankOneEigen:
    """Eigendecomposition of ``diag(d) + ρ u uᵀ`` by deflation and secular equations, in O(n²).

    Parameters
    ----------
    d : ndarray of shape (n,)
        Diagonal, in ascending order (the eigenvalues of the matrix being updated).
    u : ndarray of shape (n,)
        Update direction.
    rho : float
        Update weight (either sign).

    Returns
    -------
    RankOneEigen
        ``values`` ascending and ``vectors`` (n×n, orthonormal columns) with
        ``diag(d) + ρ u uᵀ = vectors diag(values) vectorsᵀ`` to rounding.
    """
    d, u = _check_inputs(d, u, rho)
    n = d.size
    if rho < 0:  # diag(d) + ρuuᵀ = −(diag(−d) + |ρ| uuᵀ); −d reversed is ascending
        values, vectors = rank_one_eigh(-d[::-1], u[::-1], -rho)
        return RankOneEigen(-values[::-1], vectors[::-1, ::-1])
    norm = np.linalg.norm(u)
    if rho == 0 or norm == 0:
        return RankOneEigen(d.copy(), np.eye(n))
    diag, z, weight, kept, rotations = _deflate(d, u / norm, rho * norm**2)
    kept_index = np.flatnonzero(kept)

    # 2.–3. Secular equation on the kept poles, with Gu–Eisenstat eigenvectors.
    values = diag.copy()
    vectors = np.zeros((n, n))
    deflated = np.flatnonzero(~kept)
    vectors[deflated, deflated] = 1.0
    if kept_index.size:
        z_kept = z[kept_index]
        z_norm = np.linalg.norm(z_kept)
        roots, small_vectors = _secular_solve(diag[kept_index], z_kept / z_norm, weight * z_norm**2)
        values[kept_index] = roots
        vectors[np.ix_(kept_index, kept_index)] = small_vectors

    # Undo the Givens rotations (row operations, last rotation first).
    for p, j, c, s in reversed(rotations):
        row_p, row_j = vectors[p].copy(), vectors[j]
        vectors[p] = c * row_p - s * row_j
        vectors[j] = s * row_p + c * row_j
    order = np.argsort(values, kind="stable")
    return RankOneEigen(values[order], vectors[:, order])


def _secular_roots(poles, z, weight, which):
    """Selected roots of ``diag(poles) + weight z zᵀ`` and the differences ``poles − λᵢ`` (columns).

    ``which`` holds 0-based root indices (root i lies in ``(poles[i], poles[i+1])``). Each root costs
    one call of LAPACK's ``dlaed4`` (O(k) per iteration of its rational iteration).
    """
    k = poles.size
    poles = np.ascontiguousarray(poles, dtype=float)
    z = np.ascontiguousarray(z, dtype=float)
    roots = np.empty(len(which))
    deltas = np.empty((len(which), k))
    dlaed4 = _dlaed4()
    k_ = ctypes.c_int(k)
    index = ctypes.c_int(0)
    rho = ctypes.c_double(weight)
    root = ctypes.c_double(0.0)
    info = ctypes.c_int(0)
    poles_p, z_p, deltas_p = poles.ctypes.data, z.ctypes.data, deltas.ctypes.data
    k_p, index_p, rho_p, root_p, info_p = map(ctypes.byref, (k_, index, rho, root, info))
    row_bytes = 8 * k
    for position, i in enumerate(which):
        index.value = int(i) + 1
        dlaed4(k_p, index_p, poles_p, z_p, deltas_p + position * row_bytes, rho_p, root_p, info_p)
        if info.value != 0:  # pragma: no cover
            raise np.linalg.LinAlgError(f"LAPACK dlaed4 failed on root {i} (info={info.value}).")
        roots[position] = root.value
    if k <= 2:  # dlaed4 returns normalized eigenvectors rather than differences for k ≤ 2
        deltas = poles[None, :] - roots[:, None]
    return roots, deltas


def rank_one_positive_part(d: ArrayLike, u: ArrayLike, rho: float) -> tuple[float, NDArray[np.float64]]:
    """``Σ λ₊² − Σ d₊²`` and ``X₊ u`` for ``X = diag(d) + ρ u uᵀ`` (ρ ≥ 0), without the full eigenbasis.

    This is what one iteration of the proxy-kernel SVM needs (Luss & d'Aspremont 2009, Sec. 3.1):
    the objective of (7) is ``αᵀe + ρ(‖K₀‖² − ‖X₊‖²_F) = ρ‖(K₀)₋‖² + αᵀe − ρ(‖X₊‖² − ‖(K₀)₊‖²)`` and
    its gradient involves ``X₊ (Yα)``. The change of ``‖X₊‖²`` is returned rather than ``‖X₊‖²``
    itself: it is O(ρ‖u‖²) and is summed root by root from the differences ``λᵢ − dᵢ`` that the
    secular solver returns to full relative accuracy, so ``ρ`` times it keeps its digits for any ρ
    (``ρ(‖K₀‖² − ‖X₊‖²)`` computed by subtraction loses them all as ρ grows). With ``ρ ≥ 0`` the
    eigenvalues interlace the poles, so only roots with a pole below zero can be negative and only
    roots with a pole above zero can be positive. The cheaper side is solved: either the positive
    roots directly, or the negative ones and the rest through ``X₊ = X − X₋``, ``tr X`` and ``‖X‖²``
    (whose changes are O(n)). The cost is O(n·min(n₊, n₋)).

    Parameters
    ----------
    d, u, rho
        The ascending diagonal (shape (n,)), the direction (shape (n,)) and the non-negative weight
        of the update, as in :func:`rank_one_smoothed_part` with ``smoothing=0``.

    Returns
    -------
    square_change : float
        ``Σᵢ max(λᵢ(X), 0)² − Σᵢ max(dᵢ, 0)²`` (≥ 0).
    action : ndarray of shape (n,)
        ``X₊ u``.
    """
    square_change, _, action = rank_one_smoothed_part(d, u, rho, 0.0)  # φ₀ = max(0, ·)
    return square_change, action


def smoothed_positive_part(t: ArrayLike, smoothing: float) -> NDArray[np.float64]:
    """``φ_ε(t) = max_{0≤v≤1} (v t − ε v²/2)``: the Moreau–Yosida smoothing of ``max(0, t)`` (Sec. 3).

    ``φ_ε(t) = 0`` for ``t ≤ 0``, ``t²/(2ε)`` for ``0 ≤ t ≤ ε`` and ``t − ε/2`` for ``t ≥ ε``: convex,
    nondecreasing, 1-Lipschitz and C¹, with ``max(0, t) − ε/2 ≤ φ_ε(t) ≤ max(0, t)``. ``ε = 0`` gives
    ``max(0, t)``.
    """
    t = np.asarray(t, dtype=float)
    if smoothing == 0:
        return np.maximum(t, 0.0)
    return np.where(t <= 0, 0.0, np.where(t >= smoothing, t - smoothing / 2, t * t / (2 * smoothing)))


def smoothed_square(t: ArrayLike, smoothing: float) -> NDArray[np.float64]:
    """``g_ε(t) = 2∫₀ᵗ φ_ε``, the smoothed ``max(0, t)²`` whose derivative is ``2φ_ε``.

    ``g_ε(t) = 0`` for ``t ≤ 0``, ``t³/(3ε)`` for ``0 ≤ t ≤ ε`` and ``t² − εt + ε²/3`` for ``t ≥ ε``:
    convex, nondecreasing and C², with ``0 ≤ max(0, t)² − g_ε(t) ≤ ε max(0, t)``. ``ε = 0`` gives
    ``max(0, t)²``.
    """
    t = np.asarray(t, dtype=float)
    if smoothing == 0:
        return np.maximum(t, 0.0) ** 2
    eps = smoothing
    return np.where(t <= 0, 0.0, np.where(t >= eps, t * t - eps * t + eps**2 / 3, t**3 / (3 * eps)))


def _square_increase(poles, roots, shifts, smoothing):
    """``g_ε(λ) − g_ε(p)`` for roots ``λ = p + δ`` above their poles (δ = ``shifts`` ≥ 0, accurate).

    Where ``p ≥ ε`` both lie on the quadratic piece and the difference is ``δ(λ + p − ε)``, with no
    cancellation; below, ``g_ε(p) ≤ ε²/3`` is small and the difference is taken directly.
    """
    quadratic = poles >= smoothing
    direct = smoothed_square(roots, smoothing) - smoothed_square(np.minimum(poles, smoothing), smoothing)
    return float(np.sum(np.where(quadratic, shifts * (roots + poles - smoothing), direct)))


def rank_one_smoothed_part(
    d: ArrayLike, u: ArrayLike, rho: float, smoothing: float
) -> tuple[float, float, NDArray[np.float64]]:
    """Changes of ``Σ λ₊²`` and ``Σ g_ε(λ)``, and ``φ_ε(X) u``, for ``X = diag(d) + ρ u uᵀ`` (ρ ≥ 0).

    The smoothed counterpart of :func:`rank_one_positive_part` (Luss & d'Aspremont 2009, Sec. 3,
    "Smoothing"): ``φ_ε`` and ``g_ε`` are :func:`smoothed_positive_part` and :func:`smoothed_square`,
    and ``φ_ε(X) = Σᵢ φ_ε(λᵢ) vᵢvᵢᵀ``. As there, only one side of the spectrum is solved. A root
    whose pole lies at or above ε is itself ≥ ε (roots lie above their poles when ρ ≥ 0), where
    ``φ_ε(λ) = λ − ε/2`` and ``g_ε(λ) = λ² − ελ + ε²/3`` are polynomials; so either the roots that can
    be positive are solved, or those that can lie below ε (poles < ε) and the rest is recovered from
    ``X − (ε/2)I`` and the changes of ``‖X‖²_F`` (``2ρ uᵀdiag(d)u + ρ²‖u‖⁴``) and ``tr X`` (``ρ‖u‖²``).
    The sums are returned as changes from ``diag(d)``, accumulated root by root from the accurate
    differences ``λᵢ − dᵢ`` (see :func:`rank_one_positive_part`). The cost is
    ``O(n·min(#{λ > 0}, #{poles < ε}))``.

    Parameters
    ----------
    d : ndarray of shape (n,)
        Ascending diagonal.
    u : ndarray of shape (n,)
    rho : float
        Non-negative update weight.
    smoothing : float
        ε ≥ 0 (ε = 0 gives the values of :func:`rank_one_positive_part`).

    Returns
    -------
    square_change : float
        ``Σᵢ max(λᵢ(X), 0)² − Σᵢ max(dᵢ, 0)²`` (unsmoothed, from the same eigenvalues; ≥ 0).
    smoothed_change : float
        ``Σᵢ g_ε(λᵢ(X)) − Σᵢ g_ε(dᵢ)`` (≥ 0).
    action : ndarray of shape (n,)
        ``φ_ε(X) u``.
    """
    d, u = _check_inputs(d, u, rho)
    if rho < 0:
        raise ValueError(f"rho must be non-negative, got {rho}.")
    if not (np.isfinite(smoothing) and smoothing >= 0):
        raise ValueError(f"smoothing must be a finite non-negative number, got {smoothing}.")
    eps = float(smoothing)
    norm = np.linalg.norm(u)
    if rho == 0 or norm == 0:
        return 0.0, 0.0, smoothed_positive_part(d, eps) * u
    diag, z, weight, kept, rotations = _deflate(d, u / norm, rho * norm**2)
    # The deflation rotates pairs of (nearly) equal poles; their diagonal moves at rounding level.
    moved = diag != d
    square_change = float(np.sum(smoothed_square(diag[moved], 0.0) - smoothed_square(d[moved], 0.0)))
    smoothed_change = float(np.sum(smoothed_square(diag[moved], eps) - smoothed_square(d[moved], eps)))
    negligible = ~kept & (u != 0) & ~np.isin(np.arange(d.size), [r[0] for r in rotations])
    action = np.where(negligible, smoothed_positive_part(diag, eps) * u, 0.0)
    kept_index = np.flatnonzero(kept)
    if kept_index.size:
        poles = diag[kept_index]
        z_norm = np.linalg.norm(z[kept_index])
        zk = z[kept_index] / z_norm
        rk = weight * z_norm**2
        u_kept = norm * z_norm * zk
        lower = np.flatnonzero(poles < eps)  # every root below ε has its pole below ε
        upper = np.flatnonzero(np.append(poles[1:] > 0, True))  # every positive root
        use_lower = lower.size <= upper.size
        which = lower if use_lower else upper
        roots, deltas = _secular_roots(poles, zk, rk, which)
        shifts = -deltas[np.arange(which.size), which]  # λᵢ − pᵢ ≥ 0, to full relative accuracy
        if not use_lower:  # the roots not kept here are ≤ 0, as are their poles: no change
            select = roots > 0
            roots, deltas, which, shifts = roots[select], deltas[select], which[select], shifts[select]
        vectors = zk[None, :] / deltas  # rows: unnormalized eigenvectors (diag − λ)⁻¹ z
        vectors /= np.sqrt(np.einsum("ij,ij->i", vectors, vectors))[:, None]
        coordinates = vectors @ u_kept
        phi = smoothed_positive_part(roots, eps)
        solved_poles = poles[which]
        square_change += _square_increase(solved_poles, roots, shifts, 0.0)
        smoothed_change += _square_increase(solved_poles, roots, shifts, eps)
        if use_lower:
            # The roots not solved and their poles are all ≥ ε (≥ 0), where g_ε(t) = t² − εt + ε²/3:
            # their changes of Σλ² and Σλ are the block's totals minus the solved ones.
            rest_squares = 2 * rk * (poles @ zk**2) + rk**2 - float(shifts @ (roots + solved_poles))
            rest_shift = rk - float(shifts.sum())
            square_change += rest_squares
            smoothed_change += rest_squares - eps * rest_shift
            # φ_ε(X)u = (X − (ε/2)I)u + Σ_solved (φ_ε(λ) − λ + ε/2) v vᵀu
            action[kept_index] = (
                (poles - eps / 2) * u_kept
                + rk * zk * (zk @ u_kept)
                + ((phi - roots + eps / 2) * coordinates) @ vectors
            )
        else:
            action[kept_index] = (phi * coordinates) @ vectors
    for p, j, c, s in reversed(rotations):
        a_p, a_j = action[p], action[j]
        action[p] = c * a_p - s * a_j
        action[j] = s * a_p + c * a_j
    return square_change, smoothed_change, action

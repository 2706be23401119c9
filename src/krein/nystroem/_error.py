"""A-posteriori error of a Nyström approximation from held-out kernel columns, and the rank it chooses.

**Why.** For an indefinite kernel the landmark block ``K_ZZ`` has eigenvalues near zero that are not
rounding noise, and the pseudo-inverse of Eq. (3) of Oglic & Gärtner (2019) amplifies them: for
``Sigmoid(1)`` on 1500 points of N(0, I₆) with 100 uniform landmarks ``‖K − K̃‖_F / ‖K‖_F`` is about 3
(worse than ``K̃ = 0``), while the best rank-100 approximation has 0.19 (``benchmarks/bench_nystroem.py``,
section 4, measures this on the kernels of Appendix D of the 2018 paper and on structured kernels).

**Estimate.** Every approximation here has the form ``K̃ = K_XZ F K_ZX`` with a symmetric m×m core
``F`` (``F = K_ZZ⁺`` for Eq. (3), ``F = E Λ Eᵀ`` after the one-shot truncation of Sec. 2.2). Its error
on the landmark columns and on ``m'`` *probe* columns ``V``, drawn uniformly from the other points,
needs only the reductions of one streamed pass (:class:`~krein.nystroem.ChunkMoments`): with
``G = K_XZᵀ K_XZ``, ``T = K_XVᵀ K_XZ`` and ``q = ‖K_XV‖²_F``

    ‖K_XZ − K̃_XZ‖² = tr G − 2 tr(G F K_ZZ) + tr(K_ZZ F G F K_ZZ),
    ‖K_XV − K̃_XV‖² = q − 2 tr(T F K_ZV) + tr(K_VZ F G F K_ZV).

The landmark columns are counted exactly and the probe columns stand for the ``n − m`` others, so

    ‖K − K̃‖²_F ≈ ‖K_XZ − K̃_XZ‖² + (n − m)/m' · ‖K_XV − K̃_XV‖²

(unbiased over the draw of ``V``), and likewise ``‖K‖²_F``. The cost is ``n m m'`` flops in the pass
and ``O(m³)`` after it: with ``m' = 64`` a few percent of the ``n m²`` of the Gram matrix.

**Validated rank.** Keeping only the ``k`` eigenpairs of ``K_ZZ`` of largest ``|d|`` gives
``F_k = R_k S_k R_kᵀ``; the estimate above is available for every k at once (cumulative sums in
the basis ``R``, ``O(m³)`` after the pass), and the default keeps the k that minimizes it — the
spectral cutoff of the landmark block chosen by held-out error instead of a constant. With every
point a landmark there are no probe columns, the landmark error decreases in k and all eigenpairs
are kept (the exact kernel).

**Error-controlled truncation.** The one-shot eigendecomposition ``K̃ = Ũ Λ Ũᵀ`` (Sec. 2.2) of that
approximation, ``Ũ = K_XZ E`` orthonormal, truncated to its ``k`` eigenpairs of largest ``|λ|`` has the
core ``F_k = E_k Λ_k E_kᵀ``, and by ``ŨᵀŨ = I`` (``Ũᵀ K_XZ = Eᵀ G``) its estimate is again a cumulative
sum over k, now of diagonal terms only (:func:`truncation_errors`):

    ‖K_XZ − K̃_k(:, Z)‖² = tr G − 2 Σ_{j≤k} λⱼ (Eᵀ G)ⱼ (K_ZZ E)ⱼ + Σ_{j≤k} λⱼ² ‖(K_ZZ E)ⱼ‖²,

and likewise for the probe columns with ``T`` and ``K_ZV``, one term per probe column. When the rank is
not given, :class:`~krein.nystroem.IndefiniteNystroem` keeps the smallest k whose estimated squared
error is within one standard error of the least one, the standard error being the spread of the estimate
over the probe columns (:func:`parsimonious_rank`; the one-standard-error rule of model selection,
Breiman et al. 1984, Hastie, Tibshirani & Friedman 2009, Sec. 7.10): the smallest rank that the held-out
columns cannot tell from the best. The best directions of a Nyström approximation are its own leading
eigenvectors, not those of ``K_ZZ``: with a fast-decaying spectrum (GAUSS, RL-GAUSS, DELTA-GAUSS on
MAGIC, m = 400) the validated ``K̃`` is nearly as accurate with a fifth to a seventh of its rank, and
its error at full rank is 10²–10⁴ times the Eckart–Young optimum of that rank.
``benchmarks/bench_nystroem.py``, case 4 (n = 1000, m = 50 … 400, median of 5 seeds; docs/nystroem.md),
measures the trade: the error over the Eckart–Young optimum at the delivered rank falls from up to
9.4·10³ (the minimum alone) to at most 2 in 40 of 42 cells and 3.8 in the worst (RL-GAUSS, m = 400,
error 2·10⁻⁵), at an error at most 1.31 times that of the validated ``K̃``.

**Heavy tails.** The probe columns are drawn uniformly. When a few points are far from every landmark
(outliers of MAGIC under a Gaussian kernel) their columns carry most of the error, and 64 probes often
miss them: the estimate is unbiased but its median underestimates, by up to 2.3× on RL-GAUSS with
m ≥ 200 where the relative error is below 10⁻⁴ (case 4). In every other cell of case 4 it is within
0.70–1.11 of the true error.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "PROBE_COLUMNS",
    "parsimonious_rank",
    "probe_error",
    "truncation_errors",
    "validated_rank",
]

#: Number of held-out (probe) columns of the error estimate (fewer when n − m is smaller).
PROBE_COLUMNS = 64


def _weight(n_samples, n_landmarks, n_probes):
    return (n_samples - n_landmarks) / n_probes if n_probes else 0.0


def _relative(landmark, probe, moments, n_samples, n_probes):
    """``sqrt(total / norm)`` from squared errors on the landmark and the probe columns."""
    G = moments.gram
    weight = _weight(n_samples, G.shape[0], n_probes)
    total, norm = landmark, np.trace(G)
    if weight:
        total, norm = total + weight * probe, norm + weight * moments.probe_square.sum()
    return np.sqrt(np.maximum(total, 0.0) / norm)


def probe_error(core, moments, K_ZZ, K_ZV, n_samples):
    """Estimated relative Frobenius error ``‖K − K_XZ F K_ZX‖_F / ‖K‖_F`` (module docstring).

    Parameters
    ----------
    core : ndarray of shape (m, m)
        The symmetric core ``F``.
    moments : ChunkMoments
        Of the uncentred landmark columns, with the probe columns.
    K_ZZ : ndarray of shape (m, m)
    K_ZV : ndarray of shape (m, m')
    n_samples : int
    """
    G = moments.gram
    FZ = core @ K_ZZ
    landmark = np.trace(G) - 2.0 * np.sum(G * FZ.T) + np.sum(FZ * (G @ FZ))
    probe = 0.0
    if K_ZV.shape[1]:
        FV = core @ K_ZV
        probe = moments.probe_square.sum() - 2.0 * np.sum(moments.probe_cross * FV.T) + np.sum(FV * (G @ FV))
    return float(_relative(landmark, probe, moments, n_samples, K_ZV.shape[1]))


def validated_rank(factor, moments, K_ZV, n_samples):
    """The number k of leading eigenpairs of ``K_ZZ`` that minimizes the estimated error of ``F_k``.

    Returns
    -------
    rank : int
    errors : ndarray of shape (r₀,)
        Estimated relative Frobenius error of ``F_k`` for k = 1, …, r₀.
    """
    R, S = factor.right, factor.signature
    G = moments.gram
    GR = G @ R
    diagonal = np.einsum("ij,ij->j", R, GR)  # ‖K_XZ Rⱼ‖²
    # landmark columns: K̃_k(:, Z) = K_XZ U_k U_kᵀ, so the error is tr G − Σ_{j≤k} |dⱼ| ‖K_XZ Rⱼ‖²
    landmark = np.trace(G) - np.cumsum(np.abs(factor.values) * diagonal)
    probe = 0.0
    if K_ZV.shape[1]:
        B = S[:, None] * (R.T @ K_ZV)  # K̃_k(:, V) = L_k B_k with L = K_XZ R
        cross = np.einsum("ij,ij->i", R.T @ moments.probe_cross.T, B)
        H = (R.T @ GR) * (B @ B.T)  # Σ_{j,l≤k} H_jl = ‖L_k B_k‖²
        lower = np.tril(H, -1).sum(axis=1)
        quadratic = np.cumsum(np.diag(H) + 2.0 * lower)
        probe = moments.probe_square.sum() - 2.0 * np.cumsum(cross) + quadratic
    errors = _relative(landmark, probe, moments, n_samples, K_ZV.shape[1])
    return int(np.argmin(errors)) + 1, errors


def truncation_errors(values, extension, moments, K_ZZ, K_ZV, n_samples):
    """Estimated relative error of the one-shot eigendecomposition truncated to k = 1, …, r eigenpairs,
    and the standard error of its square.

    ``values`` (Λ, by decreasing ``|λ|``) and ``extension`` (E, m×r) of ``K̃ = Ũ Λ Ũᵀ``,
    ``Ũ = K_XZ E`` orthonormal, uncentred (module docstring). Entry ``k − 1`` of ``errors`` equals
    :func:`probe_error` of the core ``E_k Λ_k E_kᵀ``. ``spread[k − 1]`` is the standard error of
    ``errors[k − 1]²`` over the draw of the probe columns, ``(n − m) √m' · std_v(e_v) / ‖K‖²`` from the
    squared errors ``e_v`` of the single probe columns (zero with fewer than two).

    Returns
    -------
    errors, spread : ndarray of shape (r,)
    """
    G = moments.gram
    A = K_ZZ @ extension  # Ũᵀ K_XZ = Eᵀ G, K̃_k(:, Z) = Ũ_k Λ_k A_kᵀ
    cross = np.einsum("ij,ij->j", G @ extension, A)
    landmark = np.trace(G) - 2.0 * np.cumsum(values * cross) + np.cumsum(values**2 * np.sum(A * A, axis=0))
    n_probes = K_ZV.shape[1]
    if n_probes == 0:
        errors = _relative(landmark, 0.0, moments, n_samples, 0)
        return errors, np.zeros_like(errors)
    B = K_ZV.T @ extension  # K̃_k(:, V) = Ũ_k Λ_k B_kᵀ, one row per probe column
    C = moments.probe_cross @ extension  # K_XVᵀ Ũ
    columns = moments.probe_square + np.cumsum((values * B * (values * B - 2.0 * C)).T, axis=0)  # r×m'
    errors = _relative(landmark, columns.sum(axis=1), moments, n_samples, n_probes)
    weight = _weight(n_samples, K_ZZ.shape[0], n_probes)
    norm = np.trace(G) + weight * moments.probe_square.sum()
    spread = np.zeros_like(errors)
    if n_probes > 1:
        spread = weight * np.sqrt(n_probes) * np.std(columns, axis=1, ddof=1) / norm
    return errors, spread


def parsimonious_rank(errors, spread):
    """The smallest k whose estimated squared error is within one standard error of the least one
    (the one-standard-error rule of Breiman et al. 1984, Hastie, Tibshirani & Friedman 2009, Sec. 7.10):
    the smallest rank that the held-out columns cannot tell from the best."""
    squares = np.asarray(errors) ** 2
    best = int(np.argmin(squares))
    return int(np.flatnonzero(squares <= squares[best] + spread[best])[0]) + 1

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
"""

from __future__ import annotations

import numpy as np

__all__ = ["PROBE_COLUMNS", "probe_error", "validated_rank"]

#: Number of held-out (probe) columns of the error estimate (fewer when n − m is smaller).
PROBE_COLUMNS = 64


def _weight(n_samples, n_landmarks, n_probes):
    return (n_samples - n_landmarks) / n_probes if n_probes else 0.0


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
    weight = _weight(n_samples, K_ZZ.shape[0], K_ZV.shape[1])
    FZ = core @ K_ZZ
    landmark = np.trace(G) - 2.0 * np.sum(G * FZ.T) + np.sum(FZ * (G @ FZ))
    total, norm = landmark, np.trace(G)
    if weight:
        FV = core @ K_ZV
        probe = moments.probe_square - 2.0 * np.sum(moments.probe_cross * FV.T) + np.sum(FV * (G @ FV))
        total, norm = total + weight * probe, norm + weight * moments.probe_square
    return float(np.sqrt(max(total, 0.0) / norm))


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
    norm = np.trace(G)
    weight = _weight(n_samples, R.shape[0], K_ZV.shape[1])
    total = landmark
    if weight:
        B = S[:, None] * (R.T @ K_ZV)  # K̃_k(:, V) = L_k B_k with L = K_XZ R
        cross = np.einsum("ij,ij->i", R.T @ moments.probe_cross.T, B)
        H = (R.T @ GR) * (B @ B.T)  # Σ_{j,l≤k} H_jl = ‖L_k B_k‖²
        lower = np.tril(H, -1).sum(axis=1)
        quadratic = np.cumsum(np.diag(H) + 2.0 * lower)
        probe = moments.probe_square - 2.0 * np.cumsum(cross) + quadratic
        total = total + weight * probe
        norm = norm + weight * moments.probe_square
    errors = np.sqrt(np.maximum(total, 0.0) / norm)
    return int(np.argmin(errors)) + 1, errors

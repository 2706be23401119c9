"""A-posteriori error of a Nyström approximation from held-out kernel columns, and the rank it chooses.

**Why.** For an indefinite kernel the landmark block ``K_ZZ`` has eigenvalues near zero that are not
rounding noise, and the pseudo-inverse of Eq. (3) of Oglic & Gärtner (2019) amplifies them: for
``Sigmoid(1)`` on 1500 points of N(0, I₆) with 100 uniform landmarks ``‖K − K̃‖_F / ‖K‖_F`` is about 3
(worse than ``K̃ = 0``), while the best rank-100 approximation has 0.19 (``benchmarks/bench_nystroem.py``,
section 4, measures this on the kernels of Appendix D of the 2018 paper and on structured kernels).

**Estimate.** Every approximation here has the form ``K̃ = K_XZ F K_ZX`` with a symmetric m×m core
``F`` (``F = K_ZZ⁺`` for Eq. (3), ``F = E Λ Eᵀ`` after the one-shot truncation of Sec. 2.2). Its error
on the landmark columns and on ``m'`` *probe* columns ``V`` (held out of the landmarks) needs only the
reductions of one streamed pass (:class:`~krein.representation.ChunkMoments`): with ``G = K_XZᵀ K_XZ``,
``T = K_XVᵀ K_XZ`` and ``q_v = ‖K_Xv‖²``

    ‖K_XZ − K̃_XZ‖² = tr G − 2 tr(G F K_ZZ) + tr(K_ZZ F G F K_ZZ),
    e_v = ‖K_Xv − K̃_Xv‖² = q_v − 2 (T F K_ZV)_vv + (K_VZ F G F K_ZV)_vv.

The landmark columns are counted exactly and the probe columns stand for the ``n − m`` others.

**Probe columns (importance sampling).** The column errors ``e_j`` are heavy-tailed: a few points far
from every landmark (outliers of MAGIC under a Gaussian kernel) carry 100–500 times the mean, and 64
uniform probes miss them (the estimate, unbiased, had a median of 0.44–0.52 of the true error on
RL-GAUSS with m ≥ 200). The probes must be known before the pass, so they are drawn from a proxy of
``e_j`` computed before it (:func:`draw_probes`): the *diagonal residual*
``r_j = |k(x_j, x_j) − K_jZ K_ZZ⁺ K_Zj|``, large for points far from every landmark, on a uniform pool
of ``c = min(n − m, PROBE_POOL)`` non-landmark points (``c m`` kernel entries and ``c m²`` flops: 1 % of
the pass at m = 1000). ``m'`` columns are drawn with replacement with the defensive mixture
``p_j = ½ / c + ½ r_j / Σ r`` (Hesterberg 1995: the weights ``1/p_j`` stay below ``2c`` whatever the
proxy), and the Hansen–Hurwitz estimator (Hansen & Hurwitz 1943)

    ‖K − K̃‖²_F ≈ ‖K_XZ − K̃_XZ‖² + (1/m') Σ_draws (n − m)/(c p_v) · e_v,

with ``‖K‖²_F`` likewise, is unbiased over the pool and the draws; its standard error is the spread of
the per-draw terms over √m' (:class:`ProbeSample`). Per draw, the relative standard error of the total
falls from 6–15 to 0.9–1.3 on RL-GAUSS (m = 50 … 400) and from 5–14 to 1.4–2.3 on SIGMOID; on flat
spectra (splice, N(0, I₆)) it rises from 0.13–0.51 to 0.44–0.57, still a few percent with 64 draws. The
cost is ``n m m'`` flops in the pass and ``O(m³)`` after it: with ``m' = 64`` a few percent of the
``n m²`` of the Gram matrix. With at most ``m'`` other points all are taken (the estimate is exact).

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

and likewise for the probe columns with ``T`` and ``K_ZV``, one term per probe column. When the rank is not
given, :class:`~krein.nystroem.IndefiniteNystroem` keeps the smallest k of least estimated error
(:func:`parsimonious_rank`): a default never worse than the plain formula. On a positive definite kernel
``K − K̃_k = (K − K̃) + (K̃ − K̃_k)`` is a sum of two positive semidefinite matrices whose second term shrinks
with k, so the error decreases in k and the default is the plain Eq. (3) — scikit-learn's ``Nystroem`` on the
same landmarks (issue 31: the one-standard-error rule with a 2× Eckart–Young certificate, used before, kept
rank 10–13 of 100 on a Gaussian kernel at error 0.52 where the plain formula has 0.37). On an indefinite
kernel the eigenpairs of ``K̃`` whose removal lowers the held-out error are dropped (Sigmoid: 0.45 where
Eq. (3) has 2.6–5). ``benchmarks/bench_nystroem.py``, case 4, prints the default's error against Eq. (3)
and the truncations to ``m/8, m/4, m/2, m``.

**Centred approximations.** With ``center=True`` the approximation is ``H K̃ H`` of ``H K H``
(``H = I − 11ᵀ/n``), and its error is ``‖H M H‖_F / ‖H K H‖_F`` with ``M = K − K_XZ F K_ZX``. For the
columns ``c_j`` of ``M`` and their mean ``μ``, ``‖H M H‖² = Σ_j ‖H (c_j − μ)‖²``
(:func:`centred_probe_error`): the landmark columns count once and the probe columns with their
Hansen–Hurwitz weights ``W_j``, and ``μ`` is their weighted mean ``Σ_j W_j c_j / Σ_j W_j``, so that
``Σ_j W_j ‖H(c_j − μ)‖² = Σ_j W_j ‖H c_j‖² − ‖H Σ_j W_j c_j‖² / Σ_j W_j``. Removing the weighted mean
(self-normalized, not divided by n) takes out the part that every column shares — the large mean of
the kernel, which the centred core does not model — before the sum is estimated; dividing by n instead
left the estimate at the mercy of the draw's total weight (0 against a true 0.009, DELTA-GAUSS, m = 400,
``rank=100``). It needs the probe columns' Gram matrix ``K_XVᵀ K_XV`` and sums (``n m'²`` more flops in
the pass). The uncentred estimate of the same core is not a substitute: a kernel with a large mean has
``‖K‖ ≫ ‖H K H‖`` (issue 31: 0.107 reported against a true 0.224 at m = 100, and 0 against 0.20 at
m = n with ``rank=``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from ._approximation import LandmarkFactor
from ._columns import ChunkMoments

__all__ = [
    "PROBE_COLUMNS",
    "PROBE_POOL",
    "ProbeSample",
    "centred_probe_error",
    "draw_probes",
    "parsimonious_rank",
    "probe_error",
    "probe_pass",
    "truncation_errors",
    "validated_rank",
]

#: Number of draws of held-out (probe) columns of the error estimate (all others when n − m is smaller).
PROBE_COLUMNS = 64
#: Size of the uniform pool of non-landmark points whose diagonal residual guides the draw of the probes.
PROBE_POOL = 16 * PROBE_COLUMNS


class ProbeSample(NamedTuple):
    """Held-out columns of an error estimate and their Hansen–Hurwitz weights (module docstring).

    ``indices`` (sorted, distinct), ``counts`` (draws of each), ``scale`` (``1 / π_v``: the total over
    the non-landmark columns is estimated by ``scale_v · e_v`` from one draw of column v), ``census``
    (every non-landmark column once, ``scale = 1``: the estimate is exact).
    """

    indices: np.ndarray
    counts: np.ndarray
    scale: np.ndarray
    census: bool

    @classmethod
    def uniform(cls, indices, n_others):
        """Columns ``indices`` drawn uniformly without replacement from ``n_others`` (the weights of
        the plain average, ``(n − m)/m'`` each)."""
        indices = np.asarray(indices)
        census = indices.size == n_others
        return cls(indices, np.ones(indices.size), np.full(indices.size, float(n_others)), census)

    @property
    def weights(self):
        """Weight of each column in the estimated total, ``counts · scale / draws``."""
        if self.census:
            return np.ones(self.indices.size)
        return self.counts * self.scale / max(self.counts.sum(), 1.0)

    def standard_error(self, per_column):
        """Standard error of the estimated total ``per_column @ weights`` (last axis: the columns) over
        the draw: the spread of ``scale_v · e_v`` over the draws, divided by √draws (zero for a census
        or fewer than two draws)."""
        draws = self.counts.sum()
        if self.census or draws < 2:
            return np.zeros(np.shape(per_column)[:-1])
        values = per_column * self.scale
        mean = values @ self.counts / draws
        variance = ((values - mean[..., None]) ** 2) @ self.counts / (draws - 1)
        return np.sqrt(variance / draws)


def draw_probes(columns, indices, factor, rng, n_draws=PROBE_COLUMNS, pool_size=PROBE_POOL):
    """Probe columns by defensive importance sampling from the diagonal residual (module docstring).

    A uniform pool of ``pool_size`` non-landmark points (all when fewer) gets the proxy
    ``r_j = |k(x_j, x_j) − K_jZ K_ZZ⁺ K_Zj|`` from ``factor`` (``c m`` kernel entries, ``c m²`` flops);
    ``n_draws`` columns are drawn with replacement with ``p_j = ½ / c + ½ r_j / Σ r``. With at most
    ``n_draws`` non-landmark points every one is taken once (a census).

    Parameters
    ----------
    columns : KernelColumns
    indices : ndarray of shape (m,)
        The landmarks.
    factor : LandmarkFactor
        Of ``K_ZZ`` (before any validated truncation).
    rng : RandomState

    Returns
    -------
    ProbeSample
    """
    others = np.setdiff1d(np.arange(columns.n), indices)
    if others.size <= n_draws:
        return ProbeSample(others, np.ones(others.size), np.ones(others.size), True)
    pool = others if others.size <= pool_size else np.sort(rng.choice(others, size=pool_size, replace=False))
    features = columns.block(pool, indices) @ factor.right
    residual = np.abs(columns.diagonal(pool) - (features**2) @ factor.signature)
    total = residual.sum()
    proxy = residual / total if np.isfinite(total) and total > 0 else np.full(pool.size, 1.0 / pool.size)
    probability = 0.5 / pool.size + 0.5 * proxy
    probability /= probability.sum()
    drawn = rng.choice(pool.size, size=n_draws, replace=True, p=probability)
    chosen, counts = np.unique(drawn, return_counts=True)
    scale = others.size / (pool.size * probability[chosen])
    return ProbeSample(pool[chosen], counts.astype(float), scale, False)


def probe_pass(columns, indices, factor, rng, *, y=None, center=False, working_memory=None):
    """Probe columns drawn by :func:`draw_probes`, their block ``K_ZV`` against the landmarks, and the
    :class:`~krein.representation.ChunkMoments` of one pass over the landmark and probe columns.

    ``y``: targets whose moment the same pass accumulates; ``center``: with the probe columns' Gram
    matrix (for :func:`centred_probe_error`). The pass evaluates ``n (m + m')`` kernel entries.

    Returns
    -------
    sample : ProbeSample
    K_ZV : ndarray of shape (m, m')
    moments : ChunkMoments
    """
    sample = draw_probes(columns, indices, factor, rng)
    probes = sample.indices if sample.indices.size else None
    K_ZV = np.zeros((indices.size, 0)) if probes is None else columns.block(indices, probes)
    moments = columns.moments(indices, y, probes=probes, probe_gram=center, working_memory=working_memory)
    return sample, K_ZV, moments


def _sample(probes, n_landmarks, n_probes):
    """The :class:`ProbeSample` behind an estimate: given, or uniform when only n is given."""
    if isinstance(probes, ProbeSample):
        return probes
    return ProbeSample.uniform(np.arange(n_probes), probes - n_landmarks)


def _relative(total, moments, weights):
    """``sqrt(total / norm)``: an estimated squared error (landmark columns + weighted probe columns)
    over the estimated ``‖K‖²_F``."""
    norm = np.trace(moments.gram) + (moments.probe_square @ weights if weights.size else 0.0)
    return np.sqrt(np.maximum(total, 0.0) / norm)


def probe_error(
    core: NDArray[np.float64],
    moments: ChunkMoments,
    K_ZZ: NDArray[np.float64],
    K_ZV: NDArray[np.float64],
    probes: ProbeSample | int,
) -> float:
    """Estimated relative Frobenius error ``‖K − K_XZ F K_ZX‖_F / ‖K‖_F`` (module docstring).

    Parameters
    ----------
    core : ndarray of shape (m, m)
        The symmetric core ``F``.
    moments : ChunkMoments
        Of the uncentred landmark columns, with the probe columns.
    K_ZZ : ndarray of shape (m, m)
    K_ZV : ndarray of shape (m, m')
    probes : ProbeSample or int
        The probe columns' weights (:func:`draw_probes`), or the number of samples n when the
        probes were drawn uniformly without replacement.
    """
    G = moments.gram
    sample = _sample(probes, *K_ZV.shape)
    FZ = core @ K_ZZ
    total = np.trace(G) - 2.0 * np.sum(G * FZ.T) + np.sum(FZ * (G @ FZ))  # the landmark columns
    if K_ZV.shape[1]:
        FV = core @ K_ZV
        assert moments.probe_cross is not None and moments.probe_square is not None  # asked with the probes
        cross = np.einsum("vj,jv->v", moments.probe_cross, FV)
        per_column = moments.probe_square - 2.0 * cross + np.einsum("jv,jv->v", FV, G @ FV)
        total = total + per_column @ sample.weights
    return float(_relative(total, moments, sample.weights))


def _centred_square(core, moments, K_ZZ, K_ZV, sample):
    """Estimated ``‖H (K − K_XZ F K_ZX) H‖²_F`` (module docstring, centred approximations)."""
    scatter = moments.scatter  # (H K_XZ)ᵀ (H K_XZ)
    landmark = np.eye(K_ZZ.shape[0]) - core @ K_ZZ  # c_Z = K_XZ (I − F K_ZZ)
    landmark_sum = landmark.sum(axis=1)
    total = np.sum(landmark * (scatter @ landmark))
    column_sum = landmark_sum @ scatter @ landmark_sum
    count = float(K_ZZ.shape[0])
    if K_ZV.shape[1]:
        n = moments.count
        probe_mean = moments.probe_sum / n
        cross = moments.probe_cross - n * np.outer(probe_mean, moments.mean)  # (H K_XV)ᵀ (H K_XZ)
        B = core @ K_ZV
        crossB = cross @ B
        Q = moments.probe_gram - n * np.outer(probe_mean, probe_mean) - crossB - crossB.T + B.T @ scatter @ B
        weights = sample.weights
        total += np.diag(Q) @ weights
        column_sum += 2.0 * (landmark_sum @ (cross.T - scatter @ B)) @ weights + weights @ Q @ weights
        count += weights.sum()
    return total - column_sum / count


def centred_probe_error(core, moments, K_ZZ, K_ZV, probes):
    """Estimated relative error ``‖H (K − K_XZ F K_ZX) H‖_F / ‖H K H‖_F`` of a centred approximation.

    The approximation ``H K_XZ F K_ZX H`` of the centred kernel (module docstring); arguments as for
    :func:`probe_error`, with ``moments`` holding the probe columns' sums and Gram matrix.
    """
    sample = _sample(probes, *K_ZV.shape)
    error = _centred_square(core, moments, K_ZZ, K_ZV, sample)
    norm = _centred_square(np.zeros_like(core), moments, K_ZZ, K_ZV, sample)
    return float(np.sqrt(max(error, 0.0) / norm))


def validated_rank(
    factor: LandmarkFactor, moments: ChunkMoments, K_ZV: NDArray[np.float64], probes: ProbeSample | int
) -> tuple[int, NDArray[np.float64]]:
    """The number k of leading eigenpairs of ``K_ZZ`` that minimizes the estimated error of ``F_k``.

    ``probes`` as for :func:`probe_error`.

    Returns
    -------
    rank : int
    errors : ndarray of shape (r₀,)
        Estimated relative Frobenius error of ``F_k`` for k = 1, …, r₀.
    """
    R, S = factor.right, factor.signature
    G = moments.gram
    weights = _sample(probes, *K_ZV.shape).weights
    GR = G @ R
    diagonal = np.einsum("ij,ij->j", R, GR)  # ‖K_XZ Rⱼ‖²
    # landmark columns: K̃_k(:, Z) = K_XZ U_k U_kᵀ, so the error is tr G − Σ_{j≤k} |dⱼ| ‖K_XZ Rⱼ‖²
    landmark = np.trace(G) - np.cumsum(np.abs(factor.values) * diagonal)
    probe = 0.0
    if K_ZV.shape[1]:
        B = S[:, None] * (R.T @ K_ZV)  # K̃_k(:, V) = L_k B_k with L = K_XZ R
        assert moments.probe_cross is not None  # asked with the probes
        cross = np.einsum("ij,ij->i", R.T @ moments.probe_cross.T, B * weights)
        H = (R.T @ GR) * ((B * weights) @ B.T)  # Σ_{j,l≤k} H_jl = Σ_v w_v ‖L_k B_k(:, v)‖²
        lower = np.tril(H, -1).sum(axis=1)
        quadratic = np.cumsum(np.diag(H) + 2.0 * lower)
        probe = moments.probe_square @ weights - 2.0 * np.cumsum(cross) + quadratic
    errors = _relative(landmark + probe, moments, weights)
    return int(np.argmin(errors)) + 1, errors


def truncation_errors(values, extension, moments, K_ZZ, K_ZV, probes):
    """Estimated relative error of the one-shot eigendecomposition truncated to k = 1, …, r eigenpairs,
    and the standard error of its square.

    ``values`` (Λ, by decreasing ``|λ|``) and ``extension`` (E, m×r) of ``K̃ = Ũ Λ Ũᵀ``,
    ``Ũ = K_XZ E`` orthonormal, uncentred (module docstring); ``probes`` as for :func:`probe_error`.
    Entry ``k − 1`` of ``errors`` equals :func:`probe_error` of the core ``E_k Λ_k E_kᵀ``.
    ``spread[k − 1]`` is the standard error of ``errors[k − 1]²`` over the draw of the probe columns,
    :meth:`ProbeSample.standard_error` of the squared errors ``e_v`` of the single probe columns over
    ``‖K‖²`` (zero for a census or fewer than two draws). ``tail[k − 1] = Σ_{j>k} λⱼ² / ‖K‖²``
    (estimated ``‖K‖²``), the squared relative Eckart–Young error of ``K̃`` itself at rank k.

    Returns
    -------
    errors, spread, tail : ndarray of shape (r,)
    """
    G = moments.gram
    sample = _sample(probes, *K_ZV.shape)
    weights = sample.weights
    A = K_ZZ @ extension  # Ũᵀ K_XZ = Eᵀ G, K̃_k(:, Z) = Ũ_k Λ_k A_kᵀ
    cross = np.einsum("ij,ij->j", G @ extension, A)
    landmark = np.trace(G) - 2.0 * np.cumsum(values * cross) + np.cumsum(values**2 * np.sum(A * A, axis=0))
    norm = np.trace(G) + (moments.probe_square @ weights if weights.size else 0.0)
    tail = (np.sum(values**2) - np.cumsum(values**2)) / norm
    if K_ZV.shape[1] == 0:
        return _relative(landmark, moments, weights), np.zeros_like(landmark), tail
    B = K_ZV.T @ extension  # K̃_k(:, V) = Ũ_k Λ_k B_kᵀ, one row per probe column
    C = moments.probe_cross @ extension  # K_XVᵀ Ũ
    columns = moments.probe_square + np.cumsum((values * B * (values * B - 2.0 * C)).T, axis=0)  # r×m'
    errors = _relative(landmark + columns @ weights, moments, weights)
    return errors, sample.standard_error(columns) / norm, tail


def parsimonious_rank(errors):
    """The rank of the error-controlled truncation: the smallest k of least estimated error (module
    docstring; on a positive definite kernel the full rank, the plain Eq. (3)).

    Parameters
    ----------
    errors : ndarray of shape (r,)
        Estimated relative error of the truncation to k = 1, …, r (:func:`truncation_errors`).
    """
    return int(np.argmin(errors)) + 1

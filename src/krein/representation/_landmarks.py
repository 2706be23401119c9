"""Landmark selection for the Nyström method with indefinite kernels (Oglic & Gärtner 2019, Sec. 2.3).

Both informed strategies start from a *sketch*: ``s`` landmarks drawn uniformly at random give the
one-shot eigendecomposition ``K̃ = Ũ Λ Ũᵀ`` of Sec. 2.2. Then

* approximate leverage scores ``ℓ(xᵢ) = ‖Ũ(i)‖²`` define the sampling distribution ``p_ℓ ∝ ℓ``;
* approximate kernel K-means++ seeds (Arthur & Vassilvitskii 2007) are drawn in the feature space of
  the flip-spectrum factor ``L̃ = Ũ |Λ|^{1/2}``: the first uniformly, each next one with probability
  proportional to its squared distance to the closest landmark chosen so far.

Landmarks are distinct: leverage-score landmarks are drawn without replacement (a repeated landmark
would only make ``K_ZZ`` singular), and K-means++ never redraws a chosen point (its distance is zero).

The sketch is krein's default one-shot approximation, with the rank of its landmark block validated
on held-out columns (:mod:`krein.representation._error`): with the plain Eq. (3) the sketch of an indefinite
kernel can be worse than the zero matrix, and scores computed from it are noise — the cause of
leverage sampling losing to uniform sampling on ``DeltaGaussian`` before issue 17. Measured with the
validated sketch (``benchmarks/bench_nystroem.py``, case 4; ``tests/test_nystroem.py``): on data with
structure (MAGIC, the structured kernels) both informed samplers are as good as uniform sampling or
better, often by an order of magnitude for smooth kernels. Where the paper's claim does not hold is
isotropic data without structure (points drawn from N(0, I)): all leverage scores are then nearly
equal, sampling by them is uniform sampling plus the sketch's estimation noise, and the median error
can exceed uniform sampling's by a few tens of percent at small m.
"""

from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import NDArray
from sklearn.utils import check_random_state

from .._typing import LandmarkMethod, RandomStateLike
from ._columns import KernelColumns

__all__ = [
    "LANDMARK_METHODS",
    "kmeanspp_landmarks",
    "leverage_landmarks",
    "select_landmarks",
    "uniform_landmarks",
]

LANDMARK_METHODS = ("uniform", "leverage", "kmeans++")


def uniform_landmarks(
    n_samples: int, n_components: int, random_state: RandomStateLike = None
) -> NDArray[np.intp]:
    """``n_components`` distinct indices drawn uniformly from ``range(n_samples)``."""
    rng = check_random_state(random_state)
    return np.sort(rng.choice(n_samples, size=n_components, replace=False))


def _sketch_features(columns, sketch_size, rank, rng, working_memory):
    """Landmarks, eigenvalues and extension of a uniform sketch (Sec. 2.3), ``Ũ = K_XS E``.

    The sketch is the default one-shot approximation (validated rank of its landmark block): with the
    plain Eq. (3) the sketch of an indefinite kernel can be worse than zero and its leverage scores
    and distances are then noise. It is the first sample drawn, so the kernel of ``columns`` is fitted
    to it (:meth:`~krein.kernels.Kernel.fit`).
    """
    from ._nystroem import one_shot  # the producer imports the samplers

    sketch = uniform_landmarks(columns.n, sketch_size, rng)
    representation, _ = one_shot(
        columns,
        sketch,
        rng,
        fit_kernel=True,
        rank=rank,
        landmark_rank="validated",
        center=False,
        working_memory=working_memory,
    )
    return sketch, representation.values, representation.extension


def _check_sampler_input(columns, method):
    if columns.distributed:
        raise ValueError(
            f"landmarks={method!r} is not available for dask arrays; use landmarks='uniform' or pass an "
            "in-memory array."
        )


def leverage_landmarks(
    columns: KernelColumns,
    n_components: int,
    *,
    sketch_size: int,
    rank: int | None = None,
    random_state: RandomStateLike = None,
    working_memory: float | None = None,
) -> NDArray[np.intp]:
    """Landmarks sampled by approximate leverage scores ``‖Ũ(i)‖²`` of a uniform sketch (Sec. 2.3).

    Parameters
    ----------
    columns : KernelColumns
    n_components : int
        Number of landmarks m.
    sketch_size : int
        Number of uniformly drawn sketch landmarks s.
    rank : int, default=None
        Use the ``rank`` leading eigenvectors of the sketch (all resolved ones when None).
    random_state : int, RandomState or None
    working_memory : float, default=None
        MiB per block of kernel rows.

    Returns
    -------
    ndarray of shape (n_components,)
        Sorted distinct indices.
    """
    _check_sampler_input(columns, "leverage")
    rng = check_random_state(random_state)
    sketch, _, extension = _sketch_features(columns, sketch_size, rank, rng, working_memory)
    scores = np.empty(columns.n)
    for rows, features in columns.column_blocks(sketch, extension, working_memory=working_memory):
        scores[rows] = np.einsum("ij,ij->i", features, features)
    return _sample_distinct(scores, n_components, rng)


def kmeanspp_landmarks(
    columns: KernelColumns,
    n_components: int,
    *,
    sketch_size: int,
    rank: int | None = None,
    random_state: RandomStateLike = None,
    working_memory: float | None = None,
) -> NDArray[np.intp]:
    """Landmarks by approximate kernel K-means++ seeding in the space of ``Ũ |Λ|^{1/2}`` (Sec. 2.3).

    Parameters are those of :func:`leverage_landmarks`. Holds the n×r sketch features in memory
    (r ≤ ``sketch_size``); each seed costs one pass ``O(n r)``.
    """
    _check_sampler_input(columns, "kmeans++")
    rng = check_random_state(random_state)
    sketch, values, extension = _sketch_features(columns, sketch_size, rank, rng, working_memory)
    features = np.empty((columns.n, values.size))
    scaled = extension * np.sqrt(np.abs(values))
    for rows, block in columns.column_blocks(sketch, scaled, working_memory=working_memory):
        features[rows] = block
    norms = np.einsum("ij,ij->i", features, features)
    chosen = [int(rng.randint(columns.n))]
    distances = np.full(columns.n, np.inf)
    for _ in range(1, n_components):
        center = features[chosen[-1]]
        new = norms - 2.0 * (features @ center) + norms[chosen[-1]]
        np.minimum(distances, np.maximum(new, 0.0), out=distances)
        distances[chosen] = 0.0
        chosen.append(int(_sample_distinct(distances, 1, rng, exclude=chosen)[0]))
    return np.sort(np.asarray(chosen))


def _sample_distinct(weights, size, rng, exclude=()):
    """``size`` distinct indices drawn with probability ∝ ``weights`` (uniform over the rest if the
    weights run out, e.g. all remaining points coincide with chosen ones)."""
    weights = np.where(np.isfinite(weights), np.maximum(weights, 0.0), 0.0)
    positive = np.flatnonzero(weights > 0)
    if positive.size >= size:
        p = weights[positive] / weights[positive].sum()
        return np.sort(positive[rng.choice(positive.size, size=size, replace=False, p=p)])
    rest = np.setdiff1d(np.arange(weights.size), np.concatenate([positive, np.asarray(exclude, dtype=int)]))
    extra = rng.choice(rest, size=size - positive.size, replace=False)
    return np.sort(np.concatenate([positive, extra]))


def clamp_n_components(
    n_components: int,
    n_samples: int,
    *,
    name: str = "n_components",
    using: str = "every sample as a landmark",
    stacklevel: int = 2,
) -> int:
    """The library's rule for more landmarks than samples: warn and use every sample as a landmark.

    ``name`` is the user's argument and ``using`` what n_samples means for it (``KreinPCA`` clamps its
    coordinates and its ``n_landmarks`` by the same rule). ``stacklevel`` counts from the caller of
    this function (as in :func:`warnings.warn`).
    """
    if n_components <= n_samples:
        return n_components
    warnings.warn(
        f"{name}={n_components} > n_samples={n_samples}: using {using}.",
        UserWarning,
        stacklevel=stacklevel + 1,
    )
    return n_samples


def select_landmarks(
    columns: KernelColumns,
    n_components: int,
    method: LandmarkMethod = "uniform",
    *,
    sketch_size: int | None = None,
    rank: int | None = None,
    random_state: RandomStateLike = None,
    working_memory: float | None = None,
) -> NDArray[np.intp]:
    """Indices of ``n_components`` landmarks chosen by ``method`` (see the module docstring).

    ``sketch_size`` defaults to ``n_components`` (capped at n). The informed samplers fit the kernel
    of ``columns`` (a copy, :meth:`~krein.representation.KernelColumns.landmark_block`) to their
    uniform sketch.
    """
    if method not in LANDMARK_METHODS:
        raise ValueError(f"landmarks must be one of {LANDMARK_METHODS}, got {method!r}.")
    if not 1 <= n_components <= columns.n:
        raise ValueError(f"n_components must be in [1, n_samples={columns.n}], got {n_components}.")
    if method == "uniform":
        return uniform_landmarks(columns.n, n_components, random_state)
    sketch_size = min(columns.n, n_components if sketch_size is None else sketch_size)
    if sketch_size < 1:
        raise ValueError(f"sketch_size must be a positive integer, got {sketch_size}.")
    sampler = leverage_landmarks if method == "leverage" else kmeanspp_landmarks
    return sampler(
        columns,
        n_components,
        sketch_size=sketch_size,
        rank=rank,
        random_state=random_state,
        working_memory=working_memory,
    )

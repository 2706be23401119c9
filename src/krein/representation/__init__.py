"""The spectral representation every Kreĭn estimator is written against (DESIGN.md).

A kernel is seen through its (approximate) eigendecomposition over the training points: orthonormal
directions ``U`` (n×r), signed eigenvalues ``λ`` in **ascending** order, and an out-of-sample map from a
test point's kernel row to coordinates in that basis. This package owns it:

* :class:`SpectralRepresentation` — the base class, and its exact producer
  :meth:`SpectralRepresentation.exact` (r ≤ n); :class:`DeferredRepresentation` makes the exact
  eigendecomposition on first read, for estimators whose solver needs only the kernel matrix;
* :func:`nystroem_representation` — the one-shot Nyström producer of Oglic & Gärtner (2019), Sec. 2.2
  (:class:`NystroemRepresentation`, r ≤ m ≪ n), with what it is made of: the landmark block's factor
  (:func:`landmark_factor`), the landmark samplers (Sec. 2.3) and the error estimates on held-out
  columns (:func:`probe_error`, :func:`validated_rank`). The samplers draw from a sketch that is itself
  a one-shot representation, and the producer draws its landmarks with them, so the two live in one
  layer; :mod:`krein.nystroem` exposes them to users beside :class:`~krein.nystroem.IndefiniteNystroem`;
* :class:`KernelColumns` — the landmark columns ``K(X, Z)`` and their streamed moments, in memory, in
  blocks of ``working_memory`` MiB, or one task per row chunk of a dask array;
* :class:`SpectralEstimatorMixin` — the shared parameters (``kernel``, ``center``, ``n_components``,
  ``landmarks``, ``landmark_rank``, ``random_state``, ``working_memory``) and the plumbing of every
  Kreĭn estimator: it fits ``representation_`` and evaluates models through it.
"""

from ._approximation import (
    LandmarkFactor,
    OneShotEigendecomposition,
    gisbrecht_schleif_eigendecomposition,
    landmark_factor,
    one_shot_eigendecomposition,
)
from ._approximation import eigen_from_gram as eigen_from_gram  # for krein.model_selection
from ._base import DeferredRepresentation, SpectralRepresentation, is_dask_array, kernel_rows_times
from ._columns import ChunkMoments, KernelColumns, check_finite_chunk, chunk_moments, combine_moments
from ._error import PROBE_COLUMNS, probe_error, validated_rank
from ._estimator import (
    LOW_RANK_PARAMETERS_DOC,
    SPECTRAL_PARAMETERS,
    SPECTRAL_PARAMETERS_DOC,
    UNCENTRED_SPECTRAL_PARAMETERS,
    SpectralEstimatorMixin,
    check_dask_data,
)
from ._landmarks import (
    LANDMARK_METHODS,
    clamp_n_components,
    kmeanspp_landmarks,
    leverage_landmarks,
    select_landmarks,
    uniform_landmarks,
)
from ._nystroem import LANDMARK_RANKS, POOR_APPROXIMATION, NystroemRepresentation, nystroem_representation

__all__ = [
    "ChunkMoments",
    "DeferredRepresentation",
    "KernelColumns",
    "LANDMARK_METHODS",
    "LANDMARK_RANKS",
    "LOW_RANK_PARAMETERS_DOC",
    "LandmarkFactor",
    "NystroemRepresentation",
    "OneShotEigendecomposition",
    "POOR_APPROXIMATION",
    "PROBE_COLUMNS",
    "SPECTRAL_PARAMETERS",
    "SPECTRAL_PARAMETERS_DOC",
    "SpectralEstimatorMixin",
    "SpectralRepresentation",
    "UNCENTRED_SPECTRAL_PARAMETERS",
    "check_dask_data",
    "check_finite_chunk",
    "chunk_moments",
    "clamp_n_components",
    "combine_moments",
    "gisbrecht_schleif_eigendecomposition",
    "is_dask_array",
    "kernel_rows_times",
    "kmeanspp_landmarks",
    "landmark_factor",
    "leverage_landmarks",
    "nystroem_representation",
    "one_shot_eigendecomposition",
    "probe_error",
    "select_landmarks",
    "uniform_landmarks",
    "validated_rank",
]

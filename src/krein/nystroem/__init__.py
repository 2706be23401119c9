"""Scalable learning with indefinite kernels: the Nyström method in Kreĭn spaces (Oglic & Gärtner 2019).

* :class:`IndefiniteNystroem` — signed Nyström features ``K̃ = Φ diag(s) Φᵀ`` (Eq. 3), optionally of
  a given rank through the one-shot eigendecomposition (Sec. 2.2).
* :func:`nystroem_representation` — the one-shot eigendecomposition as a
  :class:`~krein.spectral.SpectralRepresentation` for the low-rank Kreĭn estimators (Sec. 2.4–2.5),
  in memory or streamed over row chunks / a Dask cluster (:class:`StreamedRepresentation`).
* Landmark samplers (Sec. 2.3): :func:`uniform_landmarks`, :func:`leverage_landmarks`,
  :func:`kmeanspp_landmarks`, :func:`select_landmarks`.
* :func:`one_shot_eigendecomposition` and the Gisbrecht–Schleif baseline
  :func:`gisbrecht_schleif_eigendecomposition` (Appendix B).
* :class:`SpectralEstimatorMixin` — the shared parameters (``kernel``, ``center``, ``n_components``,
  ``landmarks``, ``landmark_rank``, ``random_state``, ``working_memory``) and plumbing of every Kreĭn
  estimator: exact or Nyström representation, streamed or on Dask, test points through the
  representation's out-of-sample map.
* :func:`probe_error` and :func:`validated_rank` — the a-posteriori error of an approximation from
  held-out kernel columns, and the rank of the landmark block it chooses (``landmark_rank``).
"""

from ._approximation import (
    LandmarkFactor,
    OneShotEigendecomposition,
    gisbrecht_schleif_eigendecomposition,
    landmark_factor,
    one_shot_eigendecomposition,
)
from ._error import PROBE_COLUMNS, probe_error, validated_rank
from ._estimator import SPECTRAL_PARAMETERS, SPECTRAL_PARAMETERS_DOC, SpectralEstimatorMixin
from ._landmarks import (
    LANDMARK_METHODS,
    clamp_n_components,
    kmeanspp_landmarks,
    leverage_landmarks,
    select_landmarks,
    uniform_landmarks,
)
from ._representation import (
    LANDMARK_RANKS,
    POOR_APPROXIMATION,
    NystroemRepresentation,
    StreamedRepresentation,
    nystroem_representation,
)
from ._source import (
    ChunkMoments,
    KernelColumns,
    check_finite_chunk,
    chunk_moments,
    combine_moments,
    is_dask_array,
)
from ._transformer import IndefiniteNystroem

__all__ = [
    "ChunkMoments",
    "IndefiniteNystroem",
    "KernelColumns",
    "LANDMARK_METHODS",
    "LANDMARK_RANKS",
    "POOR_APPROXIMATION",
    "PROBE_COLUMNS",
    "SPECTRAL_PARAMETERS",
    "SPECTRAL_PARAMETERS_DOC",
    "SpectralEstimatorMixin",
    "LandmarkFactor",
    "NystroemRepresentation",
    "OneShotEigendecomposition",
    "StreamedRepresentation",
    "check_finite_chunk",
    "chunk_moments",
    "clamp_n_components",
    "combine_moments",
    "gisbrecht_schleif_eigendecomposition",
    "is_dask_array",
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

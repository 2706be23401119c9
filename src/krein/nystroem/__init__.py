"""Scalable learning with indefinite kernels: the Nyström method in Kreĭn spaces (Oglic & Gärtner 2019).

* :class:`IndefiniteNystroem` — signed Nyström features ``K̃ = Φ diag(s) Φᵀ`` (Eq. 3), optionally of
  a given rank through the one-shot eigendecomposition (Sec. 2.2).
* Landmark samplers (Sec. 2.3): :func:`uniform_landmarks`, :func:`leverage_landmarks`,
  :func:`kmeanspp_landmarks`, :func:`select_landmarks`.
* :func:`probe_error` and :func:`validated_rank` — the a-posteriori error of an approximation from
  held-out kernel columns, and the rank of the landmark block it chooses (``landmark_rank``).
* :func:`one_shot_eigendecomposition` and the Gisbrecht–Schleif baseline
  :func:`gisbrecht_schleif_eigendecomposition` (Appendix B), in memory.
* :func:`nystroem_representation` — the one-shot eigendecomposition as a
  :class:`~krein.representation.SpectralRepresentation`, streamed.

The samplers, the error estimates and the one-shot producer are defined in
:mod:`krein.representation`, the layer below this one, because the producer draws its landmarks with
the samplers and validates the landmark block with the error estimates (and the informed samplers
draw from a one-shot sketch); this package is where users find them.
"""

from ..representation import (
    LANDMARK_METHODS,
    PROBE_COLUMNS,
    LandmarkFactor,
    OneShotEigendecomposition,
    gisbrecht_schleif_eigendecomposition,
    kmeanspp_landmarks,
    landmark_factor,
    leverage_landmarks,
    nystroem_representation,
    one_shot_eigendecomposition,
    probe_error,
    select_landmarks,
    uniform_landmarks,
    validated_rank,
)
from ._transformer import IndefiniteNystroem

__all__ = [
    "IndefiniteNystroem",
    "LANDMARK_METHODS",
    "LandmarkFactor",
    "OneShotEigendecomposition",
    "PROBE_COLUMNS",
    "gisbrecht_schleif_eigendecomposition",
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

"""Structured dissimilarities and the double-centering transformer.

:func:`pairwise_distances` is the one entry point: ``pairwise_distances(A, B, metric=...)`` with
a name (``"euclidean"``, ``"dtw"``, ``"edit"``, ``"hausdorff"``, ``"tangent"``,
``"affine_invariant"``, ``"log_euclidean"``, and the elastic distances of aeon — ``"msm"``, ``"twe"``,
``"erp"``, ``"lcss"``, ``"edr"``, ``"wdtw"``, ``"ddtw"``, ``"squared_dtw"`` — with the extra
``krein[timeseries]``) or a function ``metric(a, b) -> float``.  The
pairwise functions below are names over it (all take ``A`` against ``B`` or, with ``B=None``,
``A`` against itself — then the result is exactly symmetric and each unordered pair is evaluated once — plus
``n_jobs`` and a ``working_memory`` budget for their memory-bounded tiles):

* :func:`edit_distances` — Levenshtein distances between strings (rapidfuzz);
* :func:`dtw_distances` — dynamic time warping between univariate series (dtaidistance),
  not squared: (min over warping paths of the summed squared differences)^½;
* :func:`hausdorff_distances` — Hausdorff (or modified Hausdorff) distances between point sets;
* :func:`spd_distances` — affine-invariant or log-Euclidean geodesic distances between SPD
  matrices (Liu et al., IKLR, Table I);
* :func:`simpson_similarity` — Simpson overlap scores between binary images;
* :func:`tangent_distances` — (mean) tangent distances between grey-level images.

:func:`covariance_descriptors` turns images (9-feature region covariance, IKLR Sec. V-C) or
multichannel series into SPD matrices; :class:`DoubleCentering` turns a dissimilarity matrix
into a kernel, K = −½ H (D∘D) H (through :func:`double_center`, which
:class:`~krein.kernels.DistanceKernel` shares), and :class:`GaussianOfDistance` into the kernel
exp(−γ D∘D), both with consistent out-of-sample rows and, with ``scale="median"`` / by default, free of
the scale of D;
:func:`geodesic_gaussian_kernel` gives the geodesic Gaussian kernels exp(−d²/σ²) on SPD matrices
(positive definite for the log-Euclidean distance, indefinite in general for the affine-invariant one).
"""

from ._blocks import Metric as Metric  # the registry's entries' type, for krein.model_selection
from ._centering import DoubleCentering, double_center
from ._distance_kernels import GaussianOfDistance
from ._geodesic_kernel import geodesic_gaussian_kernel
from ._images import simpson_similarity, tangent_distances
from ._pairwise import METRICS as METRICS  # the registry, for krein.model_selection
from ._pairwise import UserMetric as UserMetric
from ._pairwise import pairwise_distances
from ._pointsets import hausdorff_distances
from ._spd import covariance_descriptors, spd_distances
from ._strings import edit_distances
from ._timeseries import dtw_distances

__all__ = [
    "DoubleCentering",
    "GaussianOfDistance",
    "covariance_descriptors",
    "double_center",
    "dtw_distances",
    "edit_distances",
    "geodesic_gaussian_kernel",
    "hausdorff_distances",
    "pairwise_distances",
    "simpson_similarity",
    "spd_distances",
    "tangent_distances",
]

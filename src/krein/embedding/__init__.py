"""Kreĭn embeddings and clustering for indefinite similarities and dissimilarities.

* :class:`KreinPCA` — the pseudo-Euclidean embedding (coordinates ``U |Λ|^{1/2}`` with their signature
  (p, q)) of a kernel or, through double centring, of a dissimilarity; exact or Nyström low rank.
* :class:`KreinKMeans` — kernel k-means in the Kreĭn space (monotone on the objective over partitions).
* :class:`KreinSpectralClustering` — k-means on the signed embedding's leading coordinates.
"""

from ._clustering import KreinKMeans, KreinSpectralClustering, krein_kmeans_objective
from ._pca import KreinPCA

__all__ = ["KreinKMeans", "KreinPCA", "KreinSpectralClustering", "krein_kmeans_objective"]

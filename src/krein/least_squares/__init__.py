"""Least squares learning in reproducing kernel Kreĭn spaces.

* :class:`KreinRidge`, :class:`KreinRidgeClassifier`: Kreĭn kernel ridge regression (Kreĭn LSM,
  Oglic & Gärtner 2019, Sec. 2.4), regularized via the decomposition components H₊ and H₋.
* :class:`VarianceConstrainedKrein`, :class:`VarianceConstrainedKreinClassifier`: the variance-
  constrained KREĬN problem of Oglic & Gärtner (2018), solved to global optimality by a secular
  equation; ``regularization="krein"`` gives OMCS-KREĬN.

All four work on a spectral representation of the training kernel (exact or Nyström), expose the
validation-loss gradient used by :class:`krein.model_selection.HypergradientSearchCV`, and fit many
(λ₊, λ₋, r) settings from one eigendecomposition with ``fit_path``.
"""

from ._estimators import (
    KreinRidge,
    KreinRidgeClassifier,
    VarianceConstrainedKrein,
    VarianceConstrainedKreinClassifier,
)
from ._similarity_features import SimilarityFeaturesClassifier, SimilarityFeaturesRidge
from ._spectral import SpectralProblem as SpectralProblem  # (†) in eigen-coordinates, for model_selection
from ._targets import encode_labels as encode_labels

__all__ = [
    "KreinRidge",
    "KreinRidgeClassifier",
    "SimilarityFeaturesClassifier",
    "SimilarityFeaturesRidge",
    "VarianceConstrainedKrein",
    "VarianceConstrainedKreinClassifier",
]

"""Support vector machines for indefinite kernels.

- :class:`IndefiniteSVC`, :class:`IndefiniteSVR`, :class:`IndefiniteOneClassSVM`: the proxy-kernel SVMs
  of Luss & d'Aspremont (2009) (PerturbSVM for positive semidefinite kernels).
- :class:`KreinSquaredHingeSVC`: the squared-hinge Kreĭn SVM of Oglic & Gärtner (2019, Sec. 2.5),
  exact or low rank (``n_components``), solved by a finite Newton method.
- Baselines: :class:`KreinSVC` (Loosli et al. 2016), :class:`ModifiedSVC` (Lin & Lin 2003),
  :class:`DCASVC` (DC programming, Akoa 2008). Spectrum clipping/flipping/shifting is
  :class:`krein.spectral.SpectrumTransformer` in a pipeline with ``sklearn.svm.SVC``.
"""

from ._baselines import DCASVC, KreinSVC, ModifiedSVC
from ._indefinite import IndefiniteOneClassSVM, IndefiniteSVC, IndefiniteSVR
from ._squared_hinge import KreinSquaredHingeSVC

__all__ = [
    "DCASVC",
    "IndefiniteOneClassSVM",
    "IndefiniteSVC",
    "IndefiniteSVR",
    "KreinSVC",
    "KreinSquaredHingeSVC",
    "ModifiedSVC",
]

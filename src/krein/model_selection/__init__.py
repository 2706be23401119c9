"""Model selection for Kreĭn-space learning.

* :class:`HypergradientSearchCV` — gradient-based tuning of the regularization and kernel
  hyperparameters over inner folds (Oglic & Gärtner 2018, Sec. 3.3, Appendices C and E).
* :class:`KreinClassifierCV`, :class:`KreinRegressorCV` — one cross-validated choice across the
  family: spectrum treatments (clip, flip, shift, square) with an SVM, Kreĭn least squares over
  (λ₊, λ₋), the variance-constrained model, the squared-hinge SVM, IKLR, the proxy-kernel SVM, and
  nearest neighbours on a distance, together with the kernel's scale; each training fold's kernel is
  eigendecomposed once for all of them; :func:`auto_cv` gives their default inner folds.
"""

from ._family import KreinClassifierCV, KreinRegressorCV
from ._hypergradient_search import HypergradientSearchCV, cross_validation_loss
from ._selection import auto_cv

__all__ = [
    "HypergradientSearchCV",
    "KreinClassifierCV",
    "KreinRegressorCV",
    "auto_cv",
    "cross_validation_loss",
]

"""Learning the kernel: linear and polynomial combinations of base kernels (Li, Venturi & Xu).

:class:`KernelLearningRidge` learns ``K_μ = (Σ_k μ_k K_k)^∘d`` for kernel ridge regression by
projected gradient descent (PGD, Algorithms 2 and 5), the interpolated iterative algorithms IIA and
rIIA (Algorithms 3 and 4), regularized PGD (Algorithm 6) or a Riemannian trust-region method on the
sphere (Appendix A.3, Algorithm 8); :class:`KernelLearningSVC` does the same for the 2-norm soft-margin
SVM (Algorithm 7). :class:`KernelCombination` (the combined kernel and its derivatives) and the
objectives :class:`RidgeObjective` and :class:`SVMObjective` (value, gradient and dual at given
weights) are the building blocks of both, for a custom solver or for evaluating fixed weights.
"""

from ._combination import KernelCombination
from ._estimators import KernelLearningRidge, KernelLearningSVC
from ._objectives import RidgeObjective, SVMObjective

__all__ = ["KernelCombination", "KernelLearningRidge", "KernelLearningSVC", "RidgeObjective", "SVMObjective"]

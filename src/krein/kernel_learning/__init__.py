"""Learning the kernel: linear and polynomial combinations of base kernels (Li, Venturi & Xu).

:class:`KernelLearningRidge` learns ``K_μ = (Σ_k μ_k K_k)^∘d`` for kernel ridge regression by
projected gradient descent (PGD, Algorithms 2 and 5), the interpolated iterative algorithms IIA and
rIIA (Algorithms 3 and 4), regularized PGD (Algorithm 6) or a Riemannian trust-region method on the
sphere (Appendix A.3, Algorithm 8); :class:`KernelLearningSVC` does the same for the 2-norm soft-margin
SVM (Algorithm 7).
"""

from ._estimators import KernelLearningRidge, KernelLearningSVC

__all__ = ["KernelLearningRidge", "KernelLearningSVC"]

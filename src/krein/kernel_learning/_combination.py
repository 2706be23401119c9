"""Polynomial combinations ``K_μ = (Σ_k μ_k K_k)^∘d`` of base kernel matrices and their derivatives.

Li, Venturi & Xu, Sec. 2.2: linear combinations (d = 1, Eq. 5) and polynomial combinations with
product coefficients μ_{k₁…k_p} = μ₁^{k₁}⋯μ_p^{k_p}, which for degree ``d`` are the Hadamard powers
``K_μ = S_μ^∘d`` of the linear combination ``S_μ = Σ_k μ_k K_k`` (Sec. 2.2.2; d = 2 in the paper, any
d here). With ``G_k = ∂K_μ/∂μ_k = d S_μ^∘(d−1) ∘ K_k`` (for d = 2, ``G_k = 2 U_k`` with
``U_k = S_μ ∘ K_k``) every quantity the solvers need reduces to inner products of the base kernels with
one n×n weight matrix, i.e. one pass over the stored base kernels (p·n² flops).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["KernelCombination"]


class KernelCombination:
    """``p`` base kernel matrices on the training sample and their degree-``d`` combination.

    Parameters
    ----------
    stack : ndarray of shape (p, n, n)
        Symmetric base kernel matrices, C-contiguous (kept by reference).
    degree : int
        The Hadamard power ``d ≥ 1``.
    """

    def __init__(self, stack: NDArray[np.float64], degree: int) -> None:
        self.stack = stack
        self.degree = int(degree)
        self.n_kernels, self.n_samples = stack.shape[0], stack.shape[1]
        self._flat = stack.reshape(self.n_kernels, -1)

    def linear(self, mu: NDArray[np.float64]) -> NDArray[np.float64]:
        """``S_μ = Σ_k μ_k K_k`` (one matrix–vector product over the stored base kernels)."""
        return (mu @ self._flat).reshape(self.n_samples, self.n_samples)

    def power(self, S: NDArray[np.float64], *, overwrite: bool = False) -> NDArray[np.float64]:
        """``K_μ = S^∘d`` (also for test rows of ``S``); for d = 1 with ``overwrite``, S itself."""
        if self.degree == 1:
            return S if overwrite else S.copy()
        return S**self.degree

    def derivative_forms(
        self, S: NDArray[np.float64] | None, a: NDArray[np.float64], b: NDArray[np.float64] | None = None
    ) -> NDArray[np.float64]:
        """``aᵀ G_k b`` for every k, with ``G_k = ∂K_μ/∂μ_k = d S^∘(d−1) ∘ K_k``.

        For d = 1 this is ``aᵀ K_k b`` (Theorem 2.1's ``v_k`` when a = b = α); for d = 2 it is
        ``2 aᵀ U_k b`` (Sec. 2.2.2). ``S`` is not used when d = 1.
        """
        b = a if b is None else b
        if self.degree == 1:
            return np.matmul(self.stack, b) @ a
        assert S is not None  # given for d > 1
        W = np.outer(a, b)
        W *= self.degree * S ** (self.degree - 1)
        return self._flat @ W.ravel()

    def derivative_products(
        self, S: NDArray[np.float64] | None, a: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """The columns ``G_k a`` (shape (n, p)), used for second derivatives."""
        if self.degree == 1:
            return np.matmul(self.stack, a).T
        assert S is not None  # given for d > 1
        M = (self.degree * S ** (self.degree - 1)) * a[None, :]
        return np.einsum("kij,ij->ik", self.stack, M, optimize=True)

    def second_derivative_forms(
        self, S: NDArray[np.float64] | None, a: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """The p×p matrix ``aᵀ (∂²K_μ/∂μ_j∂μ_k) a = d(d−1) aᵀ (S^∘(d−2) ∘ K_j ∘ K_k) a`` (0 for d = 1)."""
        p = self.n_kernels
        if self.degree == 1:
            return np.zeros((p, p))
        W = np.outer(a, a) * (self.degree * (self.degree - 1))
        if self.degree > 2:
            assert S is not None  # given for d > 1
            W *= S ** (self.degree - 2)
        w = W.ravel()
        out = np.empty((p, p))
        for k in range(p):
            out[:, k] = self._flat @ (self._flat[k] * w)
        return out

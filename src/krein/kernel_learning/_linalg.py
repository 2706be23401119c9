"""Solves with the regularized kernel ``A = K_μ + λI``: Cholesky while it is positive definite, LDLᵀ after.

For positive semidefinite base kernels ``A`` is positive definite and one Cholesky factorization
(n³/3 flops) per objective evaluation is all the algorithms of Li, Venturi & Xu need. When a base
kernel is indefinite, ``A`` may be indefinite: the objective ``yᵀA⁻¹y`` and its gradient
``−αᵀ(∂A/∂μ_k)α`` stay valid for any non-singular symmetric ``A``, and the solve goes through the
Bunch–Kaufman factorization ``A = LDLᵀ`` (LAPACK ``sytrf``, the same n³/3 flops) instead of failing.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve
from scipy.linalg.lapack import dsytrf, dsytrs

__all__ = ["SymmetricSolver"]


class SymmetricSolver:
    """A factorization of the symmetric matrix ``A`` (overwritten) with ``solve(B)``.

    ``rebuild()`` must return a fresh copy of ``A``: a failed Cholesky leaves ``A`` partly overwritten,
    and the LDLᵀ fallback needs the original.

    Attributes
    ----------
    positive_definite : bool
        Whether the Cholesky factorization succeeded (otherwise LDLᵀ was used).
    """

    def __init__(self, A, rebuild, name="K_mu + lam * I"):
        try:
            self._cholesky = cho_factor(A, lower=True, overwrite_a=True, check_finite=False)
            self.positive_definite = True
            return
        except LinAlgError:
            self._cholesky = None
            self.positive_definite = False
        A = rebuild()
        factor, pivots, info = dsytrf(A, lower=1, overwrite_a=1)
        if info > 0:
            raise ValueError(
                f"{name} is singular (zero pivot {info} of its LDLᵀ factorization): the combination of "
                "indefinite base kernels cancels the ridge; increase lam or change the base kernels."
            )
        self._ldl = (factor, pivots)

    def solve(self, B):
        """``A⁻¹ B`` for a vector or a matrix of right-hand sides."""
        if self._cholesky is not None:
            return cho_solve(self._cholesky, B, check_finite=False)
        factor, pivots = self._ldl
        B2 = np.asarray(B, dtype=float).reshape(len(B), -1)
        X, info = dsytrs(factor, pivots, B2, lower=1)
        if info != 0:  # pragma: no cover - LAPACK argument error
            raise RuntimeError(f"LAPACK dsytrs failed with info={info}.")
        return X.reshape(np.shape(B))

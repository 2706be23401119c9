"""Kernel arithmetic: sums, differences, elementwise products, scalings and powers of kernels.

Each composite evaluates its operands and combines them elementwise; gradients follow from the sum
and product rules, with ``theta`` the concatenation of the operands' ``theta`` (the scale of
:class:`Scaled` first). A difference of two kernels is the canonical indefinite kernel: by the Kreĭn
decomposition every indefinite kernel is one (Oglic & Gärtner 2018, Sec. 2).
"""

from __future__ import annotations

import numbers

import numpy as np

from .._parameters import store_parameters
from ._base import DEFAULT_BOUNDS, Bounds, Kernel

__all__ = ["Constant", "Difference", "Power", "Product", "Scaled", "Sum"]


class Constant(Kernel):
    """Constant kernel ``k(x, x') = c`` (what ``kernel + c`` adds).

    Parameters
    ----------
    value : float, default=1.0
    value_bounds : pair of float or "fixed", default="fixed"
        When tuned, ``value`` must be strictly positive.
    """

    _hyperparameters = ("value",)
    value: float
    value_bounds: Bounds

    def __init__(self, value: float = 1.0, value_bounds: Bounds = "fixed") -> None:
        store_parameters(self, locals())

    @property
    def is_positive_definite(self) -> bool:
        return float(self.value) >= 0

    def _check_hyperparameters(self, n_features):
        _check_real_scalar(self.value, "value", positive=not _is_fixed(self.value_bounds))

    def _compute(self, X, Y, eval_gradient):
        K = np.full((X.shape[0], Y.shape[0]), float(self.value))
        return (K, K[:, :, None].copy()) if eval_gradient else K

    def _diag(self, X):
        return np.full(X.shape[0], float(self.value))


class _Binary(Kernel):
    """A kernel combining two kernels ``k1`` and ``k2`` elementwise by the ufunc ``_operator``
    (written ``_symbol``); subclasses give the gradient and the contraction of their rule."""

    _operator: np.ufunc
    _symbol: str
    k1: Kernel
    k2: Kernel

    def __init__(self, k1: Kernel, k2: Kernel) -> None:
        store_parameters(self, locals())

    @property
    def is_positive_definite(self) -> bool:
        # Sums and Schur products of positive semidefinite kernels are positive semidefinite.
        return self.k1.is_positive_definite and self.k2.is_positive_definite

    def _children(self):
        return (("k1", self.k1), ("k2", self.k2))

    def _visible_params(self):
        return ["k1", "k2"]

    def _compute(self, X, Y, eval_gradient):
        return self._operator(self.k1._block(X, Y), self.k2._block(X, Y))

    def _diag(self, X):
        return self._operator(self.k1._diag(X), self.k2._diag(X))

    def __repr__(self):
        return f"({self.k1!r} {self._symbol} {self.k2!r})"


class _SignedSum(_Binary):
    """``k1 ± k2``: the derivatives of the second operand enter with its sign."""

    def _signed(self, A):
        return -A if self._operator is np.subtract else A

    def _value_and_gradient(self, X, Y):
        K1, G1 = self.k1._value_and_gradient(X, Y)
        K2, G2 = self.k2._value_and_gradient(X, Y)
        return self._operator(K1, K2), np.concatenate([G1, self._signed(G2)], axis=2)

    def _value_and_contraction(self, X, Y):
        (K1, c1), (K2, c2) = self.k1._value_and_contraction(X, Y), self.k2._value_and_contraction(X, Y)
        return self._operator(K1, K2), lambda M: np.concatenate([c1(M), self._signed(c2(M))])


class Sum(_SignedSum):
    """``k(x, x') = k1(x, x') + k2(x, x')``."""

    _operator, _symbol = np.add, "+"


class Difference(_SignedSum):
    """``k(x, x') = k1(x, x') − k2(x, x')``, in general indefinite even for Mercer k1, k2."""

    _operator, _symbol = np.subtract, "-"
    is_positive_definite = False


class Product(_Binary):
    """Elementwise (Schur) product ``k(x, x') = k1(x, x') · k2(x, x')``."""

    _operator, _symbol = np.multiply, "*"

    def _value_and_gradient(self, X, Y):
        K1, G1 = self.k1._value_and_gradient(X, Y)
        K2, G2 = self.k2._value_and_gradient(X, Y)
        gradient = np.concatenate([G1 * K2[:, :, None], G2 * K1[:, :, None]], axis=2)
        return K1 * K2, gradient

    def _value_and_contraction(self, X, Y):
        # ∂(K1 ∘ K2) = ∂K1 ∘ K2 + K1 ∘ ∂K2, and ⟨M, ∂K1 ∘ K2⟩ = ⟨M ∘ K2, ∂K1⟩.
        (K1, c1), (K2, c2) = self.k1._value_and_contraction(X, Y), self.k2._value_and_contraction(X, Y)
        return K1 * K2, lambda M: np.concatenate([c1(M * K2), c2(M * K1)])


class Scaled(Kernel):
    """``k(x, x') = c · kernel(x, x')`` (what ``c * kernel`` builds).

    Parameters
    ----------
    kernel : Kernel
    scale : float, default=1.0
        A non-zero real. Tunable (in log space) when positive and ``scale_bounds`` is a pair; a
        negative scale is always fixed.
    scale_bounds : pair of float or "fixed", default=(1e-5, 1e5)
    """

    _hyperparameters = ("scale",)
    kernel: Kernel
    scale: float
    scale_bounds: Bounds

    def __init__(self, kernel: Kernel, scale: float = 1.0, scale_bounds: Bounds = DEFAULT_BOUNDS) -> None:
        store_parameters(self, locals())

    @property
    def is_positive_definite(self) -> bool:
        return float(self.scale) > 0 and self.kernel.is_positive_definite

    def _own_hyperparameters(self):
        (h,) = super()._own_hyperparameters()
        if not h.fixed and float(self.scale) < 0:
            h = type(h)(h.name, h.n_elements, np.full((1, 2), np.nan), True)
        return [h]

    def _children(self):
        return (("kernel", self.kernel),)

    def _check_hyperparameters(self, n_features):
        _check_real_scalar(self.scale, "scale", positive=False)
        if float(self.scale) == 0:
            raise ValueError("scale must be non-zero.")

    def _compute(self, X, Y, eval_gradient):
        return float(self.scale) * self.kernel._block(X, Y)

    def _value_and_gradient(self, X, Y):
        K1, G1 = self.kernel._value_and_gradient(X, Y)
        K = float(self.scale) * K1
        parts = [K[:, :, None]] if not self._own_hyperparameters()[0].fixed else []
        return K, np.concatenate(parts + [float(self.scale) * G1], axis=2)

    def _value_and_contraction(self, X, Y):
        K1, c1 = self.kernel._value_and_contraction(X, Y)
        scale, fixed = float(self.scale), self._own_hyperparameters()[0].fixed

        def contract(M):
            return np.concatenate([[] if fixed else [scale * np.sum(M * K1)], scale * c1(M)])

        return scale * K1, contract

    def _diag(self, X):
        return float(self.scale) * self.kernel._diag(X)

    def __repr__(self):
        return f"{self.scale!r} * {self.kernel!r}"


class Power(Kernel):
    """Elementwise power ``k(x, x') = kernel(x, x')^exponent`` for a positive integer exponent.

    The Hadamard power of a Mercer kernel is a Mercer kernel (Schur product theorem); the
    polynomial kernel combinations of Li, Venturi and Xu are such powers of a sum.
    """

    kernel: Kernel
    exponent: int

    def __init__(self, kernel: Kernel, exponent: int = 2) -> None:
        store_parameters(self, locals())

    @property
    def is_positive_definite(self) -> bool:
        return self.kernel.is_positive_definite

    def _children(self):
        return (("kernel", self.kernel),)

    def _check_hyperparameters(self, n_features):
        exponent = self.exponent
        if isinstance(exponent, bool) or not isinstance(exponent, numbers.Integral) or exponent < 1:
            raise ValueError(f"exponent must be a positive integer, got {exponent!r}.")

    def _compute(self, X, Y, eval_gradient):
        return self.kernel._block(X, Y) ** int(self.exponent)

    def _value_and_gradient(self, X, Y):
        K1, G1 = self.kernel._value_and_gradient(X, Y)
        p = int(self.exponent)
        return K1**p, (p * K1 ** (p - 1))[:, :, None] * G1

    def _value_and_contraction(self, X, Y):
        K1, c1 = self.kernel._value_and_contraction(X, Y)
        p = int(self.exponent)
        derivative = p * K1 ** (p - 1)  # ∂(K1^p) = p K1^(p−1) ∘ ∂K1
        return K1**p, lambda M: c1(M * derivative)

    def _diag(self, X):
        return self.kernel._diag(X) ** int(self.exponent)

    def __repr__(self):
        return f"{self.kernel!r} ** {self.exponent!r}"


def _is_fixed(bounds):
    return isinstance(bounds, str) and bounds == "fixed"


def _check_real_scalar(value, name, *, positive):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite real number, got {value!r}.")
    if positive and value <= 0:
        raise ValueError(f"{name} must be strictly positive when it is tuned, got {value!r}.")

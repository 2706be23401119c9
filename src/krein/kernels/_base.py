"""The :class:`Kernel` base class: hyperparameters in log space, gradients and kernel arithmetic.

A kernel is an object with named, strictly positive hyperparameters (bandwidths, scales, radii).
Optimizers see them as ``theta``, the vector of their logarithms, with box constraints ``bounds``
(also in log space); ``kernel(X, Y, eval_gradient=True)`` returns the matrix and its derivatives
with respect to ``theta``. This is the convention of scikit-learn's Gaussian-process kernels, with
two differences that the indefinite-kernel methods of this library need: gradients are available for
rectangular blocks ``K(X, Y)`` (validation rows against training rows, Oglic & Gärtner 2018,
Appendix E.2), and kernels may be subtracted (a difference of kernels is in general indefinite).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal, Self, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils import check_array

from .._memory import CACHE_BUDGET
from .._parameters import parameter_names
from .._threads import n_threads, parallel_loop

__all__ = ["Hyperparameter", "Kernel"]

#: Default box constraint of a tunable hyperparameter (in its natural, not log, scale).
DEFAULT_BOUNDS = (1e-5, 1e5)

#: The type of a ``*_bounds`` argument: a pair ``(low, high)``, one pair per element, or ``"fixed"``.
Bounds = tuple[float, float] | NDArray[np.float64] | str


def float_array(X: ArrayLike, name: str) -> NDArray[np.float64]:
    """scikit-learn's ``check_array`` to a float64 array, with its messages (``name`` is the argument's).

    The one validation of a kernel's inputs; typed, where scikit-learn's is not.
    """
    return check_array(X, dtype=np.float64, input_name=name)


#: Kernel matrices with fewer entries than this are evaluated in one piece, without threads.
_PARALLEL_MIN_ENTRIES = 1 << 18


def _average_with_transpose(K, rows=256):
    """``K ← (K + Kᵀ)/2`` in place, a block of rows at a time (no n×n temporary); each pair ``(i, j)``
    is averaged once, by the block holding ``max(i, j)``, to the same value as ``0.5 * (K + K.T)``."""
    for start in range(0, K.shape[0], rows):
        stop = min(start + rows, K.shape[0])
        mean = 0.5 * (K[start:stop, :stop] + K[:stop, start:stop].T)
        K[start:stop, :stop] = mean
        K[:stop, start:stop] = mean.T
    return K


@dataclass(frozen=True)
class Hyperparameter:
    """A named hyperparameter of a kernel.

    Attributes
    ----------
    name : str
        Name of the constructor argument holding the value.
    n_elements : int
        Number of scalar values (``d`` for a per-feature bandwidth, else 1).
    bounds : ndarray of shape (n_elements, 2)
        Lower and upper bounds in the natural scale.
    fixed : bool
        Whether the hyperparameter is excluded from ``theta``.
    """

    name: str
    n_elements: int
    bounds: NDArray[np.float64]
    fixed: bool


class Kernel:
    """Base class of all kernels.

    Subclasses list their tunable hyperparameters in ``_hyperparameters`` (each a constructor
    argument ``name`` with a companion ``name_bounds`` argument that is a pair ``(low, high)`` or the
    string ``"fixed"``) and implement ``_compute(X, Y, eval_gradient)`` on validated float64 arrays.
    Elementwise kernels may override ``_fill(out, X, Y)`` to evaluate in place.

    Calling a kernel validates its inputs and hyperparameters, then evaluates ``K(X, Y)``; large
    matrices are filled by row chunks in parallel threads (NumPy's BLAS and ufuncs release the GIL).
    """

    #: Names of the tunable, strictly positive hyperparameters of this kernel.
    _hyperparameters: tuple[str, ...] = ()
    #: The hyperparameters that may hold one value per feature (the others are scalars).
    _per_feature_hyperparameters: tuple[str, ...] = ()
    #: Appended to the error for an array given to a scalar hyperparameter (names the per-feature kernel).
    _per_feature_hint = ""
    #: Whether the inputs are collections of objects (series, strings, matrices) rather than feature
    #: rows: estimators then pass ``X`` through :meth:`rows` before their validation and leave the
    #: validation of test objects to the kernel (``DistanceKernel``).
    takes_objects: bool = False

    @property
    def is_positive_definite(self) -> bool:
        """Whether every Gram matrix of this kernel is positive semidefinite (a Mercer kernel).

        False unless a kernel knows better: a class attribute of the Mercer kernels, a property of
        the composite ones."""
        return False

    def rows(self, X: ArrayLike) -> ArrayLike:
        """``X`` as the 2-D float rows estimators validate and slice (identity for feature kernels)."""
        return X

    def block_null_vector(self, Z: ArrayLike) -> NDArray[np.float64] | None:
        """A vector that the symmetric block ``K(Z)`` annihilates by construction, or None (the default).

        A kernel double-centred through the objects ``Z`` (``DistanceKernel(transform="double_centering")``)
        has ``K(Z) 1 = 0``; the Nyström factor inverts such a landmark block on the complement of the
        vector (:func:`krein.nystroem.landmark_factor`) instead of on a rounding-level eigenvalue.
        """
        return None

    # ------------------------------------------------------------------ fitting
    def fit(self, Z: ArrayLike) -> Self:
        """Fix the parameters that are statistics of data from the reference points ``Z``; returns self.

        A kernel's value is a function of its constructor arguments and of what its last ``fit`` set,
        never of the blocks evaluated before. Most kernels have no such parameter, and their fit only
        fits their sub-kernels; a :class:`DistanceKernel` fixes its scale and its reference objects.
        Estimators fit their own copy of the kernel to the training points of an exact model, or to the
        first uniform sample of a low-rank one (the landmarks, or the sketch of the informed samplers),
        through :meth:`fit_gram`, which gives that block as well.

        Parameters
        ----------
        Z : array-like of shape (n_references, n_features), or a collection of objects
            The reference points.

        Returns
        -------
        self : Kernel
        """
        for _, child in self._children():
            child.fit(Z)
        return self

    def fit_gram(self, Z: ArrayLike) -> NDArray[np.float64]:
        """:meth:`fit` to ``Z`` and return ``K(Z)``, the block an estimator evaluates first.

        Equal to ``kernel.fit(Z)(Z)``; a kernel that fits from the block's own values (a
        :class:`DistanceKernel`'s distances) computes them once.

        Parameters
        ----------
        Z : array-like of shape (n_references, n_features), or a collection of objects

        Returns
        -------
        K : ndarray of shape (n_references, n_references)
        """
        return self.fit(Z)(Z)

    # ------------------------------------------------------------------ parameters
    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Constructor arguments of this kernel (and, if ``deep``, of its sub-kernels)."""
        params = {}
        for name in parameter_names(type(self)):
            value = getattr(self, name)
            params[name] = value
            if deep and isinstance(value, Kernel):
                for sub_name, sub_value in value.get_params(deep=True).items():
                    params[f"{name}__{sub_name}"] = sub_value
        return params

    def set_params(self, **params: Any) -> Self:
        """Set constructor arguments; ``k1__eta=...`` reaches into sub-kernels."""
        valid = parameter_names(type(self))
        nested: dict[str, dict[str, Any]] = {}
        for key, value in params.items():
            name, _, sub = key.partition("__")
            if name not in valid:
                raise ValueError(
                    f"Invalid parameter {name!r} for kernel {type(self).__name__}; valid: {valid}."
                )
            if sub:
                nested.setdefault(name, {})[sub] = value
            else:
                setattr(self, name, value)
        for name, sub_params in nested.items():
            getattr(self, name).set_params(**sub_params)
        return self

    def clone_with_theta(self, theta: ArrayLike) -> Self:
        """A copy of this kernel whose hyperparameters are ``exp(theta)``."""
        clone = _deep_copy(self)
        clone.theta = theta
        return clone

    def __repr__(self):
        args = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._visible_params())
        return f"{type(self).__name__}({args})"

    def _visible_params(self):
        return [n for n in parameter_names(type(self)) if not n.endswith("_bounds")]

    def __eq__(self, other):
        if type(self) is not type(other):
            return False
        mine, theirs = self.get_params(deep=False), other.get_params(deep=False)
        return all(_param_equal(mine[k], theirs[k]) for k in mine)

    def __hash__(self):
        return hash((type(self).__name__, repr(self)))

    # ------------------------------------------------------------------ hyperparameters
    def _own_hyperparameters(self):
        result = []
        for name in self._hyperparameters:
            value = getattr(self, name)
            bounds = getattr(self, f"{name}_bounds", DEFAULT_BOUNDS)
            fixed = value is None or (isinstance(bounds, str) and bounds == "fixed")
            n_elements = 1 if value is None else np.size(value)
            if fixed:
                bounds_array = np.full((n_elements, 2), np.nan)
            else:
                bounds_array = np.atleast_2d(np.asarray(bounds, dtype=float))
                if bounds_array.shape == (1, 2):
                    bounds_array = np.repeat(bounds_array, n_elements, axis=0)
                if bounds_array.shape != (n_elements, 2):
                    raise ValueError(
                        f"{name}_bounds must be 'fixed', a pair (low, high) or an array of shape "
                        f"({n_elements}, 2); got {bounds!r}."
                    )
            result.append(Hyperparameter(name, int(n_elements), bounds_array, bool(fixed)))
        return result

    def _children(self):
        """Sub-kernels whose hyperparameters follow this kernel's own in ``theta``."""
        return ()

    @property
    def hyperparameters(self) -> list[Hyperparameter]:
        """All hyperparameters, own first, then those of the sub-kernels (prefixed ``k1__``...)."""
        result = list(self._own_hyperparameters())
        for prefix, child in self._children():
            for h in child.hyperparameters:
                result.append(Hyperparameter(f"{prefix}__{h.name}", h.n_elements, h.bounds, h.fixed))
        return result

    @property
    def n_dims(self) -> int:
        """Length of ``theta``."""
        return sum(h.n_elements for h in self.hyperparameters if not h.fixed)

    @property
    def theta(self) -> NDArray[np.float64]:
        """Log of the tunable hyperparameters, flattened (own first, then sub-kernels)."""
        parts = [
            np.log(np.atleast_1d(np.asarray(getattr(self, h.name), dtype=float)))
            for h in self._own_hyperparameters()
            if not h.fixed
        ]
        parts += [child.theta for _, child in self._children()]
        return np.concatenate(parts) if parts else np.empty(0)

    @theta.setter
    def theta(self, theta: ArrayLike) -> None:
        theta = np.asarray(theta, dtype=float).ravel()
        if theta.shape[0] != self.n_dims:
            raise ValueError(f"theta must have {self.n_dims} elements, got {theta.shape[0]}.")
        start = 0
        for h in self._own_hyperparameters():
            if h.fixed:
                continue
            values = np.exp(theta[start : start + h.n_elements])
            current = getattr(self, h.name)
            setattr(self, h.name, float(values[0]) if np.ndim(current) == 0 else values)
            start += h.n_elements
        for _, child in self._children():
            child.theta = theta[start : start + child.n_dims]
            start += child.n_dims

    @property
    def bounds(self) -> NDArray[np.float64]:
        """Log-space bounds of ``theta``, an array of shape ``(n_dims, 2)``."""
        parts = [np.log(h.bounds) for h in self._own_hyperparameters() if not h.fixed]
        parts += [child.bounds for _, child in self._children()]
        parts = [p for p in parts if p.size]
        return np.vstack(parts) if parts else np.empty((0, 2))

    def _check_hyperparameters(self, n_features):
        """Raise a clear error for a non-positive or wrongly sized hyperparameter (the size against
        the data's ``n_features`` only when it is given)."""
        for name in self._hyperparameters:
            value = getattr(self, name)
            if value is None:
                continue
            per_feature = name in self._per_feature_hyperparameters
            kind = "a positive number or a 1-D array of them" if per_feature else "a positive number"
            try:
                array = np.asarray(value, dtype=float)
            except (TypeError, ValueError):
                raise TypeError(f"{name} must be {kind}, got {value!r}.") from None
            if array.ndim > 1 or array.size == 0 or (not per_feature and array.ndim != 0):
                hint = "" if per_feature else self._per_feature_hint
                raise ValueError(f"{name} of {type(self).__name__} must be {kind}, got {value!r}{hint}.")
            if not np.all(np.isfinite(array)) or np.any(array <= 0):
                raise ValueError(f"{name} must be finite and strictly positive, got {value!r}.")
            if n_features is not None and array.ndim == 1 and array.size not in (1, n_features):
                raise ValueError(f"{name} has {array.size} elements but the data have {n_features} features.")

    # ------------------------------------------------------------------ evaluation
    def _validate(self, X: ArrayLike, Y: ArrayLike | None) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        X = float_array(X, "X")
        if Y is None:
            Y = X
        else:
            Y = float_array(Y, "Y")
            if Y.shape[1] != X.shape[1]:
                raise ValueError(
                    f"Y has {Y.shape[1]} features but X has {X.shape[1]}; both must have the same."
                )
        self._check_all(X.shape[1])
        return X, Y

    def _check_all(self, n_features):
        self._check_hyperparameters(n_features)
        for _, child in self._children():
            child._check_all(n_features)

    @overload
    def __call__(
        self, X: ArrayLike, Y: ArrayLike | None = None, eval_gradient: Literal[False] = False
    ) -> NDArray[np.float64]: ...

    @overload
    def __call__(
        self, X: ArrayLike, Y: ArrayLike | None, eval_gradient: Literal[True]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]: ...

    @overload
    def __call__(
        self, X: ArrayLike, Y: ArrayLike | None = None, *, eval_gradient: Literal[True]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]: ...

    @overload
    def __call__(
        self, X: ArrayLike, Y: ArrayLike | None = None, eval_gradient: bool = False
    ) -> NDArray[np.float64] | tuple[NDArray[np.float64], NDArray[np.float64]]: ...

    def __call__(
        self, X: ArrayLike, Y: ArrayLike | None = None, eval_gradient: bool = False
    ) -> NDArray[np.float64] | tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Evaluate the kernel matrix ``K(X, Y)`` (``Y = X`` when omitted).

        Parameters
        ----------
        X : array-like of shape (n_samples_X, n_features)
        Y : array-like of shape (n_samples_Y, n_features), default=None
        eval_gradient : bool, default=False
            Also return the derivatives with respect to ``theta`` (the log hyperparameters).

        Returns
        -------
        K : ndarray of shape (n_samples_X, n_samples_Y)
        K_gradient : ndarray of shape (n_samples_X, n_samples_Y, n_dims), only if ``eval_gradient``
        """
        symmetric = Y is None
        X, Y = self._validate(X, Y)
        if eval_gradient:
            return self._value_and_gradient(X, Y)
        K = self._evaluate(X, Y)
        if symmetric:
            # One GEMM rounds K_ij and K_ji differently (by ε times the exponent's scale, 1e-7 for a
            # Gaussian whose bandwidth is 1e-5 of the spread), and the diagonal is not exactly the
            # known k(x, x): K(X) is symmetric by definition, so it is made so.
            _average_with_transpose(K)
            np.fill_diagonal(K, self._diag(X))
        return K

    def _value_and_gradient(self, X, Y):
        """K and ∂K/∂θ; ``_compute`` differentiates every own hyperparameter, fixed ones are dropped."""
        K, gradient = self._compute(X, Y, True)
        tunable = self._own_tunable()
        return K, gradient if tunable.all() else gradient[:, :, tunable]

    def _own_tunable(self):
        """Mask over the elements of the own hyperparameters: which are in ``theta``."""
        return np.concatenate(
            [np.full(h.n_elements, not h.fixed) for h in self._own_hyperparameters()] or [[]]
        ).astype(bool)

    def value_and_contraction(
        self, X: ArrayLike, Y: ArrayLike | None = None
    ) -> tuple[NDArray[np.float64], Callable[[ArrayLike], NDArray[np.float64]]]:
        """``K(X, Y)`` and the map ``M ↦ (⟨M, ∂K(X, Y)/∂θₖ⟩)ₖ = (Σ_ab M_ab ∂K_ab/∂θₖ)ₖ`` over ``theta``.

        Hypergradients need ∂K/∂θ only through such inner products (Oglic & Gärtner 2018, Eq. 8 and
        Appendix E.2). The map keeps what the kernel evaluation already computed (no second pass
        over the data), and per-feature kernels apply it by one GEMM in O(n m d) time and O(n m)
        memory, instead of forming the (n, m, d) tensor that ``eval_gradient=True`` returns.

        Parameters
        ----------
        X : array-like of shape (n_samples_X, n_features)
        Y : array-like of shape (n_samples_Y, n_features), default=None

        Returns
        -------
        K : ndarray of shape (n_samples_X, n_samples_Y)
        contract : callable
            ``contract(M)`` for ``M`` of the shape of ``K`` returns an ndarray of shape (n_dims,).
        """
        X, Y = self._validate(X, Y)
        K, contract = self._value_and_contraction(X, Y)

        def checked_contract(M):
            M = float_array(M, "M")
            if M.shape != K.shape:
                raise ValueError(f"M has shape {M.shape} but K(X, Y) has shape {K.shape}.")
            return contract(M)

        return K, checked_contract

    def _value_and_contraction(self, X, Y):
        """K and ``M ↦ ⟨M, ∂K/∂θₖ⟩`` on validated inputs (composite kernels override this)."""
        tunable = self._own_tunable()
        if not tunable.any():
            return self._block(X, Y), lambda M: np.empty(0)
        K, contract_own = self._value_and_own_contraction(X, Y)
        return K, (contract_own if tunable.all() else lambda M: contract_own(M)[tunable])

    def _value_and_own_contraction(self, X, Y):
        """K and ``M ↦ ⟨M, ∂K/∂log h⟩`` for every element of every own hyperparameter, fixed included.

        By default through the gradient tensor of ``_compute``; kernels override it where the inner
        products need less.
        """
        K, gradient = self._compute(X, Y, True)
        return K, lambda M: np.einsum("ab,abk->k", M, gradient)

    def _evaluate(self, X, Y):
        """K(X, Y) on validated inputs, in parallel threads when the matrix is large."""
        out = np.empty((X.shape[0], Y.shape[0]))
        self._fill_parallel(out, X, Y)
        return out

    def _fill_parallel(self, out, X, Y):
        """Write K(X, Y) into ``out`` by row chunks, in parallel threads when the matrix is large."""
        n, m = X.shape[0], Y.shape[0]
        threads = n_threads()
        if n * m < _PARALLEL_MIN_ENTRIES or threads == 1 or n < 2 * threads:
            self._fill(out, X, Y)
            return
        rows = CACHE_BUDGET.rows(m, high=-(-n // threads))  # a thread's chunk stays in cache
        starts = range(0, n, rows)
        with parallel_loop(threads):
            with ThreadPoolExecutor(max_workers=threads) as pool:
                jobs = [pool.submit(self._fill, out[s : s + rows], X[s : s + rows], Y) for s in starts]
                for job in jobs:
                    job.result()

    def _fill(self, out, X, Y):
        """Write K(X, Y) into ``out``; override for in-place evaluation."""
        out[...] = self._compute(X, Y, False)

    def _block(self, X, Y):
        """K(X, Y) on validated inputs, in the calling thread."""
        out = np.empty((X.shape[0], Y.shape[0]))
        self._fill(out, X, Y)
        return out

    def _compute(self, X, Y, eval_gradient):
        """K(X, Y) and, if asked, ∂K/∂log h for every element of every own hyperparameter."""
        raise NotImplementedError

    def diag(self, X: ArrayLike) -> NDArray[np.float64]:
        """The diagonal ``k(x, x)`` for every row of ``X`` without forming the matrix."""
        X = float_array(X, "X")
        self._check_all(X.shape[1])
        return self._diag(X)

    def _diag(self, X):
        return np.array([self._compute(x[None, :], x[None, :], False)[0, 0] for x in X])

    # ------------------------------------------------------------------ arithmetic
    def __add__(self, other: Kernel | float) -> Kernel:
        from ._composite import Sum

        return Sum(self, _as_kernel(other, "+"))

    def __radd__(self, other: Kernel | float) -> Kernel:
        from ._composite import Sum

        return Sum(_as_kernel(other, "+"), self)

    def __sub__(self, other: Kernel | float) -> Kernel:
        from ._composite import Difference

        return Difference(self, _as_kernel(other, "-"))

    def __rsub__(self, other: Kernel | float) -> Kernel:
        from ._composite import Difference

        return Difference(_as_kernel(other, "-"), self)

    def __mul__(self, other: Kernel | float) -> Kernel:
        from ._composite import Product, Scaled

        if isinstance(other, numbers.Real) and not isinstance(other, bool):
            return Scaled(self, float(other))
        return Product(self, _as_kernel(other, "*"))

    def __rmul__(self, other: Kernel | float) -> Kernel:
        return self.__mul__(other)

    def __neg__(self) -> Kernel:
        return self.__mul__(-1.0)

    def __pow__(self, exponent: int) -> Kernel:
        from ._composite import Power

        return Power(self, exponent)


def _as_kernel(other, operator):
    from ._composite import Constant

    if isinstance(other, Kernel):
        return other
    if isinstance(other, numbers.Real) and not isinstance(other, bool):
        return Constant(float(other))
    raise TypeError(f"unsupported operand for {operator}: Kernel and {type(other).__name__}.")


def _param_equal(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.shape(a) == np.shape(b) and bool(np.all(np.asarray(a) == np.asarray(b)))
    return a == b


def _deep_copy(kernel):
    params = {}
    for name, value in kernel.get_params(deep=False).items():
        if isinstance(value, Kernel):
            value = _deep_copy(value)
        elif isinstance(value, np.ndarray):
            value = value.copy()
        params[name] = value
    return type(kernel)(**params)

"""Input validation shared by every layer of :mod:`krein`.

Each check raises a ``ValueError`` (or ``TypeError``) whose message names the offending argument, so
that a user who passes a wrong matrix learns which one and why, instead of receiving silently wrong
numbers.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any, TypeGuard

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "check_centring_samples",
    "class_sample_weight",
    "check_kernel_magnitude",
    "check_positive",
    "check_square_kernel",
    "check_test_kernel",
    "check_precomputed_test_kernel",
    "reject_sparse",
    "symmetry_error",
    "warn_unrelated_rows",
]

#: Relative asymmetry ``max|K - Kᵀ| / max|K|`` tolerated in a "symmetric" matrix (rounding only).
SYMMETRY_RTOL = 1e-8


def check_positive(value, name, *, strict=True, allow_none=False):
    """Return ``value`` as a float after checking it is a finite (strictly) positive number."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r} of type {type(value).__name__}.")
    value = float(value)
    if not np.isfinite(value) or value < 0 or (strict and value == 0):
        kind = "strictly positive" if strict else "non-negative"
        raise ValueError(f"{name} must be a finite {kind} number, got {value!r}.")
    return value


def class_sample_weight(class_weight, y):
    """Per-sample weights of ``class_weight`` (a dict, ``"balanced"`` or None) for the labels ``y``.

    A dict's weights scale the cost C of each class's samples, so each must be a finite positive
    number; a wrong one is reported by its class here (instead of a solver's message about bounds or
    "all samples with positive weights belong to the same class").
    """
    from sklearn.utils.class_weight import compute_sample_weight

    if isinstance(class_weight, dict):
        for label, weight in class_weight.items():
            if isinstance(weight, bool) or not isinstance(weight, numbers.Real):
                raise TypeError(
                    f"class_weight[{label!r}] must be a real number, got {weight!r} of type "
                    f"{type(weight).__name__}."
                )
            if not (np.isfinite(weight) and weight > 0):
                raise ValueError(
                    f"class_weight[{label!r}] = {weight!r}: class weights must be finite and strictly "
                    f"positive (each multiplies C for the samples of its class); got class_weight="
                    f"{class_weight!r}. Drop the class's samples instead of giving it a weight <= 0."
                )
    return compute_sample_weight(class_weight, y)


def check_centring_samples(center, n_samples):
    """``center=True`` needs two samples: the centred kernel ``H K H`` of one sample is zero."""
    if center and n_samples < 2:
        raise ValueError(
            f"center=True needs at least 2 samples, got n_samples={n_samples} (the centred kernel of one "
            "sample is zero); pass more samples or center=False."
        )


def reject_sparse(X, name="X"):
    """Refuse a scipy sparse matrix with a message that says what to pass instead.

    Every method of this library works on dense kernel matrices (a kernel matrix of n objects is
    dense whatever the sparsity of their features), so sparse input is not supported anywhere; the
    message names the argument and the conversion (``.toarray()``).
    """
    import scipy.sparse

    if scipy.sparse.issparse(X):
        raise TypeError(
            f"{name} is a scipy sparse {type(X).__name__}: krein does not support sparse input (kernel "
            f"matrices are dense); pass a dense array instead, e.g. {name.split()[-1]}.toarray()."
        )


def symmetry_error(K):
    """Relative asymmetry ``max|K − Kᵀ| / max|K|`` of a square matrix (0 for the zero matrix)."""
    scale = np.max(np.abs(K)) if K.size else 0.0
    if scale == 0:
        return 0.0
    return float(np.max(np.abs(K - K.T)) / scale)


def _real_finite_kernel(K, name):
    """A precomputed kernel as a C-contiguous float64 array, once it is known real and finite."""
    if not np.issubdtype(K.dtype, np.number) or np.iscomplexobj(K):
        raise TypeError(f"{name} must be a real numeric matrix, got dtype {K.dtype}.")
    K = np.ascontiguousarray(K, dtype=np.float64)
    if not np.all(np.isfinite(K)):
        if name.startswith("X"):  # the user's precomputed matrix
            raise ValueError(f"{name} contains NaN or infinity; a precomputed kernel must be finite.")
        raise ValueError(
            f"{name} contains NaN or infinity: the kernel overflows or is undefined on this data (X "
            "holds values far beyond the kernel's scale, or a hyperparameter is extreme); rescale X "
            "(e.g. sklearn.preprocessing.StandardScaler) or change the kernel's hyperparameters."
        )
    return K


def check_square_kernel(K, name="X", *, symmetrize=True, rtol=SYMMETRY_RTOL, copy=False):
    """Validate a training kernel: 2-D, square, finite, not subnormal (a largest magnitude below the
    smallest normal double) and symmetric.

    Asymmetry up to ``rtol`` (relative to ``max|K|``) is rounding and is removed by averaging with
    the transpose when ``symmetrize`` is true; anything larger is an error, because every method of
    this library assumes a symmetric kernel (its spectrum must be real).

    Returns a C-contiguous float64 array (a copy when it had to be symmetrized or ``copy`` is true).
    """
    reject_sparse(K, name)
    K = np.asarray(K)
    if K.ndim != 2:
        raise ValueError(f"{name} must be a 2-D precomputed kernel matrix, got an array of shape {K.shape}.")
    if K.shape[0] != K.shape[1]:
        raise ValueError(
            f"{name} must be a square (n_samples, n_samples) precomputed kernel matrix at fit time, "
            f"got shape {K.shape}."
        )
    K = _real_finite_kernel(K, name)
    largest = float(np.max(np.abs(K), initial=0.0))
    if 0 < largest < np.finfo(float).tiny:
        raise ValueError(
            f"{name} holds no value larger than {largest:.3g} in magnitude, below the smallest normal double "
            "(2.2e-308): such values carry fewer than 53 bits, too few to learn from. Rescale X (or the "
            "kernel's hyperparameters), or multiply a precomputed kernel by a constant."
        )
    error = symmetry_error(K)
    if error > rtol:
        raise ValueError(
            f"{name} must be a symmetric precomputed kernel matrix: max|K - K.T| / max|K| = {error:.3g} "
            f"exceeds {rtol:g}. A measure that is asymmetric by nature (graph matching, one-sided tangent "
            "distances) is usually symmetrized first, e.g. 0.5 * (K + K.T)."
        )
    if error > 0 and symmetrize:
        K = 0.5 * (K + K.T)
    elif copy:
        K = K.copy()
    return K


#: Largest kernel magnitude handed to libsvm: its dual updates square kernel values, which
#: overflows double precision near 1e150.
LIBSVM_MAX_KERNEL = 1e100


def check_kernel_magnitude(K, limit, name="X"):
    """Raise a clear error when kernel values exceed what a solver can represent."""
    largest = float(np.max(np.abs(K))) if K.size else 0.0
    if largest > limit:
        raise ValueError(
            f"{name} gives kernel values up to {largest:.3g}, beyond {limit:.0e}, where the solver's "
            "arithmetic overflows; rescale the kernel (e.g. divide it by its largest entry)."
        )


def _is_clean_float_matrix(X: object) -> TypeGuard[NDArray[np.float64]]:
    """A non-empty 2-D float64 ndarray of finite values: what ``check_array`` would return unchanged."""
    return (
        type(X) is np.ndarray
        and X.ndim == 2
        and X.dtype == np.float64
        and X.size > 0
        and bool(np.isfinite(X).all())
    )


def check_precomputed_test_kernel(X: ArrayLike, owner: Any) -> NDArray[np.float64]:
    """Validate the ``(n_test, n_train)`` precomputed test kernel passed to a fitted estimator.

    NaN and infinity are reported first; a wrong width gets scikit-learn's wording ("X has ...
    features, but ... is expecting ...") followed by the explanation that a precomputed test kernel
    needs one column per training sample. ``owner`` is the fitted estimator (``n_features_in_`` is
    the number of training samples).
    """
    from sklearn.utils import check_array
    from sklearn.utils.validation import validate_data

    if _is_clean_float_matrix(X):  # the common case, without check_array's per-call overhead
        values = X
    else:  # everything else gets scikit-learn's conversion and messages
        reject_sparse(X, "X")
        values = check_array(X, dtype=np.float64, input_name="X")
    n_train = owner.n_features_in_
    if values.shape[1] != n_train:
        raise ValueError(
            f"X has {values.shape[1]} features, but {type(owner).__name__} is expecting {n_train} "
            "features as input: a precomputed test kernel needs one column per training sample."
        )
    validate_data(owner, X, reset=False, skip_check_array=True)  # feature names; values checked above
    return np.ascontiguousarray(values)


def check_test_kernel(K, n_train, name="X"):
    """Validate a precomputed test-versus-train kernel of shape ``(n_test, n_train)``."""
    reject_sparse(K, name)
    K = np.asarray(K)
    if K.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D (n_test, n_train) precomputed kernel matrix, got shape {K.shape}."
        )
    if K.shape[1] != n_train:
        raise ValueError(
            f"{name} must have one column per training sample: expected {n_train} columns, "
            f"got {K.shape[1]} (shape {K.shape})."
        )
    return _real_finite_kernel(K, name)


def warn_unrelated_rows(rows, owner, stacklevel=3):
    """Warn when test points have an all-zero kernel row (nothing in the data is similar to them).

    Such a point is unrelated to every training point or landmark under the kernel (a compact-support
    kernel such as TL1 or EPANECHNIKOV with too small a bandwidth, or a Gaussian that underflows far
    from the data), so its prediction is a constant of the model, not something learned from the data.
    """
    unrelated = np.count_nonzero(~np.any(rows, axis=1))
    if unrelated:
        warnings.warn(
            f"{owner}: {unrelated} of {rows.shape[0]} test points have an all-zero kernel "
            "row (no training point or landmark is similar to them), so their predictions carry no "
            "information from the data; widen the kernel (e.g. a larger bandwidth or rho) or check "
            "that the test data are scaled like the training data.",
            UserWarning,
            stacklevel=stacklevel + 1,
        )

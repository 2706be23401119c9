"""The parameters and plumbing shared by every Kreĭn estimator: exact, low rank, streamed, on Dask.

:class:`SpectralEstimatorMixin` carries the parameters that choose the spectral representation
(``kernel``, ``center``, ``n_components``, ``landmarks``, ``landmark_rank``, ``random_state``,
``working_memory``; see ``SPECTRAL_PARAMETERS_DOC``), fits the representation (the exact
eigendecomposition, or the streamed Nyström one of Oglic & Gärtner 2019, Sec. 2.2 and 2.4, from NumPy or
dask arrays) and evaluates a fitted model ``f(x) = K(x, P) β + b`` on test points through the
representation (:meth:`~krein.representation.SpectralRepresentation.evaluate`). The estimators differ only
in the problem they solve in the representation's eigen-coordinates.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .._base import KernelEstimatorMixin, decision_to_labels, is_precomputed
from .._validation import (
    check_centring_samples,
    check_precomputed_test_kernel,
    check_square_kernel,
    reject_sparse,
)
from ..kernels import Kernel, make_kernel
from ._base import SpectralRepresentation, is_dask_array
from ._landmarks import LANDMARK_METHODS, clamp_n_components
from ._nystroem import LANDMARK_RANKS, nystroem_representation

__all__ = [
    "LOW_RANK_PARAMETERS_DOC",
    "SPECTRAL_PARAMETERS",
    "SPECTRAL_PARAMETERS_DOC",
    "UNCENTRED_SPECTRAL_PARAMETERS",
    "SpectralEstimatorMixin",
    "check_dask_data",
]

#: Constraints of the shared parameters (merged into each estimator's ``_parameter_constraints``).
SPECTRAL_PARAMETERS: dict[str, list[Any]] = {
    "kernel": [Kernel, str],
    "center": ["boolean"],
    "n_components": [Interval(Integral, 1, None, closed="left"), None],
    "landmarks": [StrOptions(set(LANDMARK_METHODS))],
    "landmark_rank": [StrOptions(set(LANDMARK_RANKS))],
    "random_state": ["random_state"],
    "working_memory": [Interval(Real, 0, None, closed="neither"), None],
}

#: The shared parameters of the estimators that learn on the kernel as it is, without ``center``.
UNCENTRED_SPECTRAL_PARAMETERS: dict[str, list[Any]] = {
    name: constraint for name, constraint in SPECTRAL_PARAMETERS.items() if name != "center"
}

_CENTER_DOC = """center : bool
        Centre the kernel (``HKH``, ``H = I − 11ᵀ/n``; test rows consistently, folded into
        ``dual_coef_`` and ``intercept_``). With ``n_components`` the Nyström approximation is centred
        (``H K̃ H``, column means of ``K_XZ`` from the same streamed pass).
    """

#: The shared low-rank parameters (all but ``center``), in the estimators' docstrings.
LOW_RANK_PARAMETERS_DOC = """n_components : int or None, default=None
        None: exact eigendecomposition of the n×n training kernel. Otherwise the number of landmarks m
        of the Nyström one-shot eigendecomposition (Oglic & Gärtner 2019, Sec. 2.2; a value above
        n_samples is clamped to n_samples with a warning).
    landmarks : {"uniform", "leverage", "kmeans++"}, default="uniform"
        Landmark sampler of the Nyström model (Sec. 2.3; see :mod:`krein.representation`).
    landmark_rank : {"full", "validated"}, default="full"
        Only with ``n_components``: eigenpairs of the landmark block ``K_ZZ`` kept — all (the paper's
        plain Eq. (3)), or the number of leading ones that minimizes the kernel approximation error
        estimated on held-out columns. The model lives in the span of the m landmark functions, so
        dropping eigenpairs of ``K_ZZ`` shrinks the hypothesis space: on
        ``examples/million_points_low_rank.py`` (n = 10⁵, m = 100) "full" has test RMSE 0.61 and
        "validated" 0.94 although K̃'s error is 1.8 against 0.11. The estimated relative error of K̃
        is ``representation_.approximation_error`` (no warning). With "full" the fit evaluates the
        kernel only on the n × m landmark columns and the landmarks' block, and the estimate is made on
        its first read, by one more pass over 64 held-out columns (``n (m + 64)`` kernel entries).
    random_state : int, RandomState or None, default=None
        Seed of the landmark sampler (then of any other draw of the estimator).
    working_memory : float or None, default=None
        Only with ``n_components`` (Oglic & Gärtner 2019, Sec. 2.4). The fit reduces the landmark
        kernel columns in row blocks of at most this many MiB (None: scikit-learn's ``working_memory``
        setting) and never holds an n×m array; with a value, predictions are computed in blocks of the
        same size (and estimators that iterate over the training data stream it in every pass). A
        dask array ``X`` (and ``y``) always streams: each row chunk is reduced by a task, on a
        ``dask.distributed`` cluster when a client is active; shapes and dtypes are checked lazily,
        NaN and infinity per chunk, and ``predict``/``decision_function`` return lazy dask arrays
        (call ``.compute()``)."""

#: The shared parameters, ``center`` first, in the estimators' docstrings.
SPECTRAL_PARAMETERS_DOC = _CENTER_DOC + LOW_RANK_PARAMETERS_DOC


def check_dask_data(X: Any, n_columns: int | None, what: str) -> Any:
    """Lazy validation of a dask array ``X`` (returned as float64, all columns in one chunk; typed
    ``Any``, dask being optional): 2-D, numeric, known row chunks (values are checked per chunk)."""
    if X.ndim != 2:
        raise ValueError(f"Expected a 2D dask array for X, got {X.ndim} dimensions.")
    if X.dtype.kind not in "biuf":
        raise ValueError(f"X must be a numeric dask array, got dtype {X.dtype}.")
    if np.isnan(X.shape[0]):
        raise ValueError("X has unknown row chunk sizes; call X.compute_chunk_sizes() first.")
    if X.shape[0] < 1:
        raise ValueError(f"Found array with 0 sample(s) (shape={X.shape}) while a minimum of 1 is required.")
    if n_columns is not None and X.shape[1] != n_columns:
        raise ValueError(
            f"X has {X.shape[1]} features, but {what} is expecting {n_columns} features as input."
        )
    return X.astype(np.float64).rechunk({1: -1})


class SpectralEstimatorMixin(KernelEstimatorMixin):
    """Fit the spectral representation chosen by the shared parameters; evaluate models through it.

    The one fitting path of every estimator and transformer that learns from a kernel's spectrum
    (``tests/test_representation.py`` checks that none fits its own): after :meth:`_training_data` and
    :meth:`_fit_representation` the estimator has ``representation_``, ``kernel_``, ``n_features_in_``,
    ``landmark_indices_`` (None when exact) and, for a kernel object, ``X_fit_`` (the points ``P`` test
    points are compared with: the training inputs, or the landmarks). ``kernel_`` is a copy of the
    kernel fitted (:meth:`~krein.kernels.Kernel.fit`) to the training inputs, or, at low rank, to the
    first uniform sample the producer draws (:func:`nystroem_representation`). An estimator without a
    ``center`` parameter learns on the kernel as it is (the SVMs on ``K₀``; kernel k-means, whose
    objective centring does not change).
    """

    #: The parameter that holds the number of Nyström landmarks (``n_landmarks`` in ``KreinPCA``, whose
    #: ``n_components`` counts coordinates as scikit-learn's ``KernelPCA``'s does).
    _landmark_parameter = "n_components"

    def _n_landmarks(self):
        """The number of landmarks asked for (None: the exact eigendecomposition)."""
        return getattr(self, self._landmark_parameter)

    def _center(self):
        """Whether the representation is that of the centred kernel (``center``; False without one)."""
        return bool(getattr(self, "center", False))

    def _exact_rtol(self):
        """Relative cutoff of the exact producer's eigenvalues (None: ``n · eps``; see
        :meth:`~krein.representation.SpectralRepresentation.exact`)."""
        return None

    def _representation_parts(self):
        """The kernel and points of the exact representation (after :meth:`_training_data`)."""
        points = None if is_precomputed(self.kernel) else getattr(self, "X_fit_", None)
        return {"kernel": self.kernel_, "points": points}

    def _training_data(self, X, y=None, **validate):
        """Validate the training data; returns ``(data, y)`` for :meth:`_fit_representation`.

        ``data`` is the n×n training kernel for the exact model (no landmarks) and the validated points
        (kernel rows of objects, a precomputed kernel, or a lazily checked dask array) for the low-rank
        one; ``validate`` goes to ``validate_data`` (for ``y``).
        """
        if self._n_landmarks() is None:
            if is_dask_array(X) or is_dask_array(y):
                raise ValueError(
                    "Dask arrays are fitted by the streamed low-rank model only: "
                    f"set {self._landmark_parameter}."
                )
            return self._fit_kernel(X, y, **validate)
        self.kernel_ = make_kernel(self.kernel)
        if getattr(self.kernel_, "takes_objects", False) and not is_dask_array(X):
            X = self.kernel_.rows(X)
        reject_sparse(X, "X")
        if is_dask_array(X):
            X, y = self._validate_dask_fit(X, y)
        elif y is None:
            X = validate_data(self, X, reset=True, dtype=np.float64)
        else:
            X, y = validate_data(self, X, y, reset=True, dtype=np.float64, **validate)
        if is_precomputed(self.kernel) and not is_dask_array(X):
            X = check_square_kernel(X, "X")
        return X, y

    def _fit_representation(self, data, targets=None, *, random_state=None, producer=None, exact=None):
        """Fit ``representation_`` on the ``data`` of :meth:`_training_data` and return it.

        ``targets`` is the real matrix ``Y`` (n × t, NumPy or dask) whose projections ``ŨᵀY`` the
        streamed Nyström pass accumulates with the kernel columns (None: none); ``random_state``
        overrides the estimator's (a shared generator); ``producer`` holds further arguments of
        :func:`nystroem_representation` (``rank``, ``warn_poor``, ...); ``exact`` is the exact
        representation of the training kernel ``data`` where the estimator's solver has already
        eigendecomposed it (the proxy-kernel SVMs), None for :meth:`_exact_representation`.
        """
        random_state = self.random_state if random_state is None else random_state
        n_landmarks = self._n_landmarks()
        if n_landmarks is None:
            representation = self._exact_representation(data) if exact is None else exact
            self.landmark_indices_ = None
        else:
            representation, self.landmark_indices_ = nystroem_representation(
                self.kernel_,
                data,
                n_components=clamp_n_components(
                    n_landmarks, data.shape[0], name=self._landmark_parameter, stacklevel=4
                ),
                landmarks=self.landmarks,
                landmark_rank=self.landmark_rank,
                center=self._center(),
                random_state=random_state,
                working_memory=self.working_memory,
                y=targets,
                **{"warn_poor": False, **(producer or {})},
            )
            if not is_precomputed(self.kernel):
                self.X_fit_ = representation.points
                self.kernel_ = representation.kernel  # the copy fitted to the first sample drawn
        self.representation_ = representation
        return representation

    def _exact_representation(self, K):
        """The exact representation of the training kernel ``K`` (centred with ``center``)."""
        check_centring_samples(self._center(), K.shape[0])
        return SpectralRepresentation.exact(
            K,
            rtol=self._exact_rtol(),
            name="the training kernel",
            center=self._center(),
            **self._representation_parts(),
        )

    def _validate_dask_fit(self, X, y):
        """Validate dask training data lazily (shapes and dtypes; values per chunk in the streamed pass)."""
        X = check_dask_data(X, None, type(self).__name__)
        n = X.shape[0]
        if is_precomputed(self.kernel) and X.shape[1] != n:
            raise ValueError(f"X should be a square kernel matrix, got shape {X.shape}.")
        if y is not None:
            y = y if is_dask_array(y) else np.asarray(y)
            if y.shape[0] != n:
                raise ValueError(
                    f"Found input variables with inconsistent numbers of samples: [{n}, {y.shape[0]}]."
                )
        if hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self.n_features_in_ = X.shape[1]
        return X, y

    def _validate_test(self, X):
        """Validated test points: a lazily checked dask array, kernel rows if precomputed, or points."""
        check_is_fitted(self, "representation_")
        if is_dask_array(X):
            return check_dask_data(X, self.n_features_in_, type(self).__name__)
        if self.kernel_ == "precomputed":
            return check_precomputed_test_kernel(X, self)
        if getattr(self.kernel_, "takes_objects", False):  # objects of any size: the kernel checks them
            return self.kernel_.rows(X)
        return validate_data(self, X, reset=False, dtype=np.float64)

    def _evaluate(self, X):
        """``K(X, P) dual_coef_ᵀ + intercept_``: in memory, in blocks of ``working_memory``, or lazily."""
        X = self._validate_test(X)
        return self.representation_.evaluate(
            X,
            self.dual_coef_.T,
            self.intercept_,
            working_memory=self.working_memory,
            owner=type(self).__name__,
        )

    def _labels(self, scores):
        """Class labels of decision values (one-vs-rest), lazily for a dask array of scores."""
        if is_dask_array(scores):
            drop = {} if scores.ndim == 1 else {"drop_axis": 1}
            return scores.map_blocks(decision_to_labels, self.classes_, dtype=self.classes_.dtype, **drop)
        return decision_to_labels(scores, self.classes_)

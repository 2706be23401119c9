"""``IndefiniteNystroem``: signed Nyström features of an indefinite kernel (Oglic & Gärtner 2019)."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .._base import KernelEstimatorMixin
from .._validation import check_test_kernel
from ..kernels import Kernel, make_kernel
from ._landmarks import LANDMARK_METHODS, clamp_n_components
from ._representation import LANDMARK_RANKS, nystroem_representation

__all__ = ["IndefiniteNystroem"]


class IndefiniteNystroem(
    KernelEstimatorMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator
):
    """Signed Nyström approximation of an indefinite kernel: features Φ and a signature s.

    The kernel matrix is approximated by Eq. (3) of Oglic & Gärtner (2019),
    ``K̃ = K_XZ K_ZZ⁻¹ K_ZX = Φ diag(s) Φᵀ``, and ``transform`` maps any point ``x`` (training or
    unseen) to ``φ(x) = k_x N`` with the same fitted map ``N``, so that ``k̃(x, x') = φ(x) diag(s) φ(x')ᵀ``
    — the Kreĭn-space projection onto the span of the landmark functionals, out of sample included.

    * ``rank=None``: ``N = U_Z |D|^{-1/2}`` and ``s = sign(D)`` from ``K_ZZ = U_Z D U_Zᵀ`` (Eq. 3;
      r ≤ m features), over the eigenpairs of ``K_ZZ`` kept by ``landmark_rank``: by default the
      number of leading ones (largest ``|d|``) that minimizes the error estimated on held-out kernel
      columns (:mod:`krein.nystroem._error`: the near-zero eigenvalues of the landmark block of an
      indefinite kernel are not noise, and inverting them can make ``K̃`` worse than zero);
      ``landmark_rank="full"`` is the paper's plain Eq. (3), dropping only ``|d| ≤ rcond · max|d|``.
    * ``rank=k``: the one-shot eigendecomposition ``K̃ = Ũ Λ Ũᵀ`` of Sec. 2.2 on the training data,
      truncated to the k eigenvalues of largest magnitude (the best rank-k approximation of ``K̃``);
      ``N = E |Λ|^{1/2}`` with ``Ũ = K_XZ E`` and ``s = sign(Λ)``.

    Unlike :class:`sklearn.kernel_approximation.Nystroem`, which uses ``|K_ZZ|^{-1/2}`` and therefore
    approximates the flip-spectrum kernel ``|K|``, the signature keeps the negative part of the spectrum.

    Parameters
    ----------
    kernel : Kernel, str or "precomputed", default="sigmoid"
        With "precomputed", ``fit`` takes the n×n training kernel and ``transform`` the t×n
        test-versus-train kernel.
    n_components : int, default=100
        Number of landmarks m (reduced to n_samples, with a warning, if larger).
    rank : int, default=None
        Rank of the approximation (one-shot eigendecomposition); None for plain Eq. (3).
    landmarks : {"uniform", "leverage", "kmeans++"}, default="uniform"
        Landmark sampler (Sec. 2.3).
    sketch_size : int, default=None
        Size of the uniform sketch for the leverage and K-means++ samplers (default m).
    rcond : float, default=None
        Relative cutoff of the landmark block's eigenvalues (default ``m · ε``).
    landmark_rank : {"validated", "full"}, default="validated"
        Eigenpairs of ``K_ZZ`` kept: the validated truncation, or all above ``rcond`` (Eq. 3).
    random_state : int, RandomState or None, default=None

    Attributes
    ----------
    components_ : ndarray of shape (m, n_features) or (m,)
        Landmark points (landmark indices when precomputed).
    component_indices_ : ndarray of shape (m,)
        Indices of the landmarks among the training samples.
    normalization_ : ndarray of shape (m, r)
        The map ``N`` from kernel rows against the landmarks to features.
    signature_ : ndarray of shape (r,)
        ±1 per feature: ``K̃ = Φ diag(signature_) Φᵀ``.
    eigenvalues_ : ndarray of shape (r,)
        Signed eigenvalues Λ of the one-shot eigendecomposition (``rank`` given), else the kept
        eigenvalues of ``K_ZZ``.
    approximation_error_ : float
        Estimated ``‖K − K̃‖_F / ‖K‖_F`` on the training data, from the landmark columns and 64
        held-out kernel columns (:func:`krein.nystroem.probe_error`; O(n m) beyond the fit). Above
        0.3 a warning names what to change.
    kernel_ : Kernel or "precomputed"
    n_features_in_ : int
    """

    _parameter_constraints = {
        "kernel": [Kernel, str],
        "n_components": [Interval(numbers.Integral, 1, None, closed="left")],
        "rank": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "landmarks": [StrOptions(set(LANDMARK_METHODS))],
        "sketch_size": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "rcond": [Interval(numbers.Real, 0, None, closed="left"), None],
        "landmark_rank": [StrOptions(set(LANDMARK_RANKS))],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        kernel="sigmoid",
        *,
        n_components=100,
        rank=None,
        landmarks="uniform",
        sketch_size=None,
        rcond=None,
        landmark_rank="validated",
        random_state=None,
    ):
        self.kernel = kernel
        self.n_components = n_components
        self.rank = rank
        self.landmarks = landmarks
        self.sketch_size = sketch_size
        self.rcond = rcond
        self.landmark_rank = landmark_rank
        self.random_state = random_state

    def fit(self, X, y=None):
        """Choose landmarks and compute the feature map from the training data ``X``."""
        self._validate_params()
        self.kernel_ = make_kernel(self.kernel)
        X = validate_data(self, X, reset=True, dtype=np.float64)
        n_components = clamp_n_components(self.n_components, X.shape[0], stacklevel=2)
        representation, indices = nystroem_representation(
            self.kernel_,
            X,
            n_components=n_components,
            landmarks=self.landmarks,
            rank=self.rank,
            sketch_size=self.sketch_size,
            rcond=self.rcond,
            landmark_rank=self.landmark_rank,
            random_state=self.random_state,
        )
        if self.rank is None:
            factor = representation.landmark_factor
            self.normalization_ = factor.right
            self.signature_ = factor.signature
            self.eigenvalues_ = factor.values
        else:
            values = representation.values
            self.normalization_ = representation.extension * np.sqrt(np.abs(values))
            self.signature_ = np.sign(values)
            self.eigenvalues_ = values
        self.approximation_error_ = representation.approximation_error
        self.component_indices_ = indices
        self.components_ = indices if self.kernel_ == "precomputed" else X[indices]
        if self.kernel_ != "precomputed":
            self.X_fit_ = self.components_
        return self

    @property
    def _n_features_out(self):
        return self.normalization_.shape[1]

    def transform(self, X):
        """Features ``Φ = K(X, Z) N`` with ``K̃(X, X') = Φ diag(signature_) Φ'ᵀ``.

        Parameters
        ----------
        X : array-like of shape (t, n_features), or (t, n_train) test-versus-train kernel if
            precomputed.

        Returns
        -------
        ndarray of shape (t, r)
        """
        check_is_fitted(self)
        if self.kernel_ == "precomputed":
            X = validate_data(self, X, reset=False, dtype=np.float64)
            rows = check_test_kernel(X, self.n_features_in_, name="X")[:, self.components_]
        else:
            rows = self._test_kernel(X)
        return rows @ self.normalization_

    def approximate_kernel(self, X, Y=None):
        """The approximation ``K̃(X, Y) = Φ_X diag(s) Φ_Yᵀ`` (``Y = X`` when None)."""
        features = self.transform(X)
        other = features if Y is None else self.transform(Y)
        return (features * self.signature_) @ other.T

"""``IndefiniteNystroem``: signed Nyström features of an indefinite kernel (Oglic & Gärtner 2019)."""

from __future__ import annotations

import numbers
import warnings
from typing import Self

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from .._parameters import store_parameters
from .._threads import blas_for_data
from .._typing import LandmarkMethod, LandmarkRank, RandomStateLike
from ..kernels import Kernel
from ..representation import SPECTRAL_PARAMETERS, SpectralEstimatorMixin

__all__ = ["IndefiniteNystroem"]


class IndefiniteNystroem(
    SpectralEstimatorMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator
):
    """Signed Nyström approximation of an indefinite kernel: features Φ and a signature s.

    The kernel matrix is approximated by Eq. (3) of Oglic & Gärtner (2019),
    ``K̃ = K_XZ K_ZZ⁻¹ K_ZX = Φ diag(s) Φᵀ``, and ``transform`` maps any point ``x`` (training or
    unseen) to ``φ(x) = k_x N`` with the same fitted map ``N``, so that ``k̃(x, x') = φ(x) diag(s) φ(x')ᵀ``
    — the Kreĭn-space projection onto the span of the landmark functionals, out of sample included.

    * ``rank=None``, ``landmark_rank="full"``: the paper's plain Eq. (3), ``N = U_Z |D|^{-1/2}`` and
      ``s = sign(D)`` from ``K_ZZ = U_Z D U_Zᵀ`` over the eigenpairs with ``|d| > rcond · max|d|``.
    * ``rank=None``, ``landmark_rank="validated"`` (default): the pseudo-inverse of ``K_ZZ`` truncated to
      the number of leading eigenpairs that minimizes the error estimated on held-out kernel columns
      (the near-zero eigenvalues of the landmark block of an indefinite kernel are not noise, and
      inverting them can make ``K̃`` worse than zero), then its one-shot eigendecomposition truncated
      to the smallest rank of least estimated error (:mod:`krein.representation._error`; features as for
      ``rank=k``). On a positive definite kernel both keep everything: the default is then the plain
      Eq. (3), i.e. scikit-learn's ``Nystroem`` on the same landmarks.
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
        Rank of the approximation (one-shot eigendecomposition); None: chosen by ``landmark_rank``.
    landmarks : {"uniform", "leverage", "kmeans++"}, default="uniform"
        Landmark sampler (Sec. 2.3).
    sketch_size : int, default=None
        Size of the uniform sketch for the leverage and K-means++ samplers (default m).
    rcond : float in [0, 1), default=None
        Relative cutoff of the landmark block's eigenvalues (default ``m · ε``; 1 or more would drop
        every eigenvalue).
    landmark_rank : {"validated", "full"}, default="validated"
        Eigenpairs of ``K_ZZ`` kept: the validated truncation, or all above ``rcond`` (Eq. 3).
    center : bool, default=False
        Approximate the centred kernel ``H K̃ H`` (``H = I − 11ᵀ/n``): features ``(k_x − k̄) N`` with the
        column means ``k̄`` of ``K_XZ`` from the streamed pass.
    random_state : int, RandomState or None, default=None
    working_memory : float or None, default=None
        MiB per block of landmark kernel columns in the streamed fit (None: scikit-learn's
        ``working_memory``); with a value, ``transform`` works in blocks of that size. A dask ``X`` is
        reduced one task per row chunk at fit, and ``transform`` of a dask ``X`` is lazy.

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
        Signed eigenvalues Λ of the one-shot eigendecomposition, or the kept eigenvalues of ``K_ZZ``
        (``rank=None`` with ``landmark_rank="full"``), in the order of the output features (decreasing
        magnitude, as scikit-learn's ``KernelPCA``); ``representation_.values`` holds Λ ascending.
    approximation_error_ : float
        Estimated ``‖K − K̃‖_F / ‖K‖_F`` on the training data (``‖H(K − K̃)H‖_F / ‖HKH‖_F`` with
        ``center=True``), from the landmark columns and 64 held-out kernel columns
        (:func:`krein.nystroem.probe_error`; O(n m) beyond the fit). Above 0.3 a warning names what
        to change.
    kernel_ : Kernel or "precomputed"
    n_features_in_ : int

    See Also
    --------
    krein.least_squares.KreinRidge : Kreĭn least squares, low rank with ``n_components``.
    krein.embedding.KreinPCA : The pseudo-Euclidean embedding, exact or by Nyström.
    sklearn.kernel_approximation.Nystroem : The Nyström method for positive definite kernels.

    Examples
    --------
    >>> from krein.nystroem import IndefiniteNystroem
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3))
    >>> nystroem = IndefiniteNystroem(kernel="delta_gaussian", n_components=50, random_state=0).fit(X)
    >>> features = nystroem.transform(X)
    >>> features.shape
    (200, 50)
    >>> print(round(nystroem.approximation_error_, 3))  # estimated ‖K − K̃‖_F / ‖K‖_F
    0.048
    """

    _parameter_constraints = {
        **SPECTRAL_PARAMETERS,
        "n_components": [Interval(numbers.Integral, 1, None, closed="left")],
        "rank": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "sketch_size": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "rcond": [Interval(numbers.Real, 0, 1, closed="left"), None],
    }

    def __init__(
        self,
        kernel: Kernel | str = "sigmoid",
        *,
        n_components: int = 100,
        rank: int | None = None,
        landmarks: LandmarkMethod = "uniform",
        sketch_size: int | None = None,
        rcond: float | None = None,
        landmark_rank: LandmarkRank = "validated",
        center: bool = False,
        random_state: RandomStateLike = None,
        working_memory: float | None = None,
    ) -> None:
        store_parameters(self, locals())

    def fit(self, X: ArrayLike, y: object = None) -> Self:
        """Choose landmarks and compute the feature map from the training data ``X``."""
        with blas_for_data(X):  # one BLAS thread for a small problem (krein._threads)
            self._validate_params()
            producer = {
                "rank": self.rank,
                "sketch_size": self.sketch_size,
                "rcond": self.rcond,
                "warn_poor": True,
                "error_controlled": True,
            }
            representation = self._fit_representation(self._training_data(X)[0], producer=producer)
            if self.rank is not None and representation.values.size < self.rank:
                warnings.warn(
                    f"rank={self.rank} exceeds the {representation.values.size} eigenpairs the Nyström "
                    f"approximation resolves with n_components={self.n_components} landmarks; using "
                    f"rank={representation.values.size}.",
                    UserWarning,
                    stacklevel=2,
                )
            indices = self.landmark_indices_
            if self.rank is None and self.landmark_rank == "full":
                factor = representation.landmark_factor
                self.normalization_ = factor.right
                self.signature_ = factor.signature
                self.eigenvalues_ = factor.values
            else:
                # output columns by decreasing |λ|, as KernelPCA's; the representation's order is ascending
                order = np.argsort(-np.abs(representation.values), kind="stable")
                values = representation.values[order]
                self.normalization_ = representation.extension[:, order] * np.sqrt(np.abs(values))
                self.signature_ = np.sign(values)
                self.eigenvalues_ = values
            self.approximation_error_ = representation.approximation_error
            self.component_indices_ = indices
            self.components_ = representation.points
            return self

    @property
    def _n_features_out(self):
        return self.normalization_.shape[1]

    def transform(self, X: ArrayLike) -> NDArray[np.float64]:
        """Features ``Φ = (K(X, Z) − k̄) N``, ``K̃(X, X') = Φ diag(signature_) Φ'ᵀ`` (``k̄ = 0`` uncentred).

        Parameters
        ----------
        X : array-like or dask array of shape (t, n_features), or (t, n_train) test-versus-train
            kernel if precomputed.

        Returns
        -------
        ndarray of shape (t, r)
        """
        check_is_fitted(self)
        N = self.normalization_
        offset = self.representation_.offset(N)
        return self.representation_.evaluate(
            self._validate_test(X), N, offset, working_memory=self.working_memory, owner=type(self).__name__
        )

    def approximate_kernel(self, X: ArrayLike, Y: ArrayLike | None = None) -> NDArray[np.float64]:
        """The approximation ``K̃(X, Y) = Φ_X diag(s) Φ_Yᵀ`` (``Y = X`` when None)."""
        features = self.transform(X)
        other = features if Y is None else self.transform(Y)
        return (features * self.signature_) @ other.T

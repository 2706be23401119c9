"""Kernels on vectors: those of Appendix D of Oglic & Gärtner (2018), TL1, polynomial and linear.

Formulas (η > 0 are bandwidths; ``D = diag(η⁻²)`` for the per-feature "RL" variants):

=================  ==========================================================  ================
name               k(x, x')                                                    Mercer?
=================  ==========================================================  ================
GAUSS              exp(−‖x − x'‖² / (2η²))                                     yes
RL-GAUSS           exp(−(x − x')ᵀ D (x − x'))                                  yes
SIGMOID            tanh((xᵀx' − 0.5) / η²)                                     no
RL-SIGMOID         tanh(xᵀ D x')                                               no
DELTA-GAUSS        exp(−‖x − x'‖² / (2η₁²)) − exp(−‖x − x'‖² / (2η₂²))         no
EPANECHNIKOV       max(0, 1 − (x − x')ᵀ D (x − x'))²                           no
TL1                max(ρ − ‖x − x'‖₁, 0)   (Huang et al. 2018; ρ = 0.7·d)      no
polynomial         (γ xᵀx' + c₀)^degree                                        yes
linear             xᵀx'                                                        yes
=================  ==========================================================  ================

Gradients are with respect to the logarithms of the hyperparameters, so ``∂K/∂log η = η ∂K/∂η``.

Precision of the distance-based kernels (GAUSS, RL-GAUSS, DELTA-GAUSS, EPANECHNIKOV): squared distances
come from one GEMM, ‖x − y‖² = ‖x − c‖² + ‖y − c‖² − 2(x − c)ᵀ(y − c), with c the mean of the second
argument. The rounding error is about 1e-16·(‖x − c‖² + ‖y − c‖²), so it scales with the spread of the
data around its mean, not with its offset from the origin: points at 1e7 + N(0, 1) keep their
distances to ~1e-15 (expanding about the origin loses them to ~1e-2 there). The gradient contractions
(:meth:`Kernel.value_and_contraction`) expand their squared differences about the same centre.
"""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike
from scipy.spatial.distance import cdist

from .._parameters import store_parameters
from .._scaling import power_of_two_unit
from ._base import DEFAULT_BOUNDS, Bounds, Kernel

__all__ = [
    "ARDGaussian",
    "ARDSigmoid",
    "DeltaGaussian",
    "Epanechnikov",
    "Gaussian",
    "Linear",
    "Polynomial",
    "Sigmoid",
    "TruncatedL1",
]


def _centred(X, Y):
    """``X − c`` and ``Y − c`` for c the mean of ``Y`` (keeping ``Y is X``): differences are shift
    invariant, and expanding them about the data's centre instead of the origin limits cancellation.

    Row chunks of ``X`` evaluated against the same ``Y`` share the centre, so a matrix filled by
    chunks equals the matrix filled at once.
    """
    centre = Y.mean(axis=0)
    Xc = X - centre
    return Xc, (Xc if Y is X else Y - centre)


#: Centred data beyond this magnitude are scaled by a power of two before their squares are formed
#: (squares of 1e155 overflow); below it nothing changes, bit for bit.
LARGE_SPREAD = 2.0**480
#: Bandwidths outside this range are applied to the data before any square is formed (η² of 1e-170
#: underflows to 0, of 1e160 overflows); inside it the kernels keep their one-GEMM form.
SAFE_BANDWIDTH = (1e-100, 1e100)


def _extreme_bandwidth(eta):
    """Whether a bandwidth (scalar or per feature) lies outside :data:`SAFE_BANDWIDTH`."""
    eta = np.asarray(eta, dtype=float)
    return bool(np.any(eta < SAFE_BANDWIDTH[0]) or np.any(eta > SAFE_BANDWIDTH[1]))


def _spread_scale(Xc, Yc):
    """``(Xc / s, Yc / s, s)`` with ``s`` a power of two that brings the centred data below
    :data:`LARGE_SPREAD` (exact: only the exponent changes); ``s = 1`` and the inputs as they are
    otherwise."""
    s = power_of_two_unit(
        max(np.max(np.abs(Xc), initial=0.0), np.max(np.abs(Yc), initial=0.0)), 0.0, LARGE_SPREAD
    )
    if s == 1.0:
        return Xc, Yc, 1.0
    Xs = Xc / s
    return Xs, (Xs if Yc is Xc else Yc / s), s


def _times_square(out, s):
    """``out *= s²`` in two steps (``s²`` itself may overflow); zeros stay zero, the rest may
    overflow to ±inf, which is the value of a squared distance beyond the floating-point range."""
    if s != 1.0:
        with np.errstate(over="ignore"):
            out *= s
            out *= s
    return out


def _squared_distances(X, Y, out=None):
    """Squared Euclidean distances ‖x − y‖² by one GEMM on centred data, clipped at zero.

    See the module notes on precision: the error scales with the spread of the data about its
    mean, not with its distance from the origin. Data spread beyond :data:`LARGE_SPREAD` are
    scaled by a power of two first, so that distances near 1e155 give ``inf`` beyond the range of
    their squares and 0 between coincident points, never NaN.
    """
    Xc, Yc, s = _spread_scale(*_centred(X, Y))
    out = np.dot(Xc, Yc.T, out=out)
    out *= -2.0
    out += np.einsum("ij,ij->i", Xc, Xc)[:, None]
    out += np.einsum("ij,ij->i", Yc, Yc)[None, :]
    np.maximum(out, 0.0, out=out)
    if X is Y:
        np.fill_diagonal(out, 0.0)
    return _times_square(out, s)


def _gaussian_exponent(X, Y, scale, out):
    """``−scale·‖x − y‖²`` into ``out`` (``scale > 0``) by one GEMM, for the exponent of a Gaussian.

    The centred data of :func:`_squared_distances` are augmented by their scaled squared norms,
    ``[x − c, −s‖x − c‖², 1] · [2s(y − c), 1, −s‖y − c‖²]ᵀ``, so that the GEMM writes the exponent
    itself (same rounding as the distances, relative to the spread) and one clip at zero, where
    rounding made an entry positive, is the only other pass over ``out``: the kernel costs one GEMM
    and one ``exp`` (the five in-place passes of ``_squared_distances`` followed by a scaling made a
    Gaussian block 1.6× slower, and an unconditional clip made a streamed IKLR pass 1.1× slower).
    """
    Xc, Yc, s = _spread_scale(*_centred(X, Y))
    left = np.empty((Xc.shape[0], Xc.shape[1] + 2))
    left[:, :-2], left[:, -2], left[:, -1] = Xc, -scale * np.einsum("ij,ij->i", Xc, Xc), 1.0
    right = np.empty((Yc.shape[0], Yc.shape[1] + 2))
    right[:, :-2], right[:, -2], right[:, -1] = 2.0 * scale * Yc, 1.0, -scale * np.einsum("ij,ij->i", Yc, Yc)
    np.dot(left, right.T, out=out)
    if out.max(initial=0.0) > 0.0:  # rounding near coincident points; the read costs a fifth of the clip
        np.minimum(out, 0.0, out=out)
    if X is Y:
        np.fill_diagonal(out, 0.0)
    return _times_square(out, s)


def _scale_columns(X, Y, eta):
    """``X / η`` and ``Y / η``, keeping ``Y is X`` (so distances know the diagonal is zero)."""
    Xs = X / eta
    return Xs, (Xs if Y is X else Y / eta)


def _centred_scaled(X, Y, eta):
    """``(X − c) / η`` and ``(Y − c) / η`` (c as in :func:`_centred`), for kernels of scaled
    differences: centring before scaling keeps the rounding of the scaling relative to the spread."""
    Xc, Yc = _centred(X, Y)
    return _scale_columns(Xc, Yc, eta)


def _per_feature_squared_differences(X, Y):
    """Array of shape (n, m, d) with entries (x_j − y_j)², for per-feature gradients."""
    return (X[:, None, :] - Y[None, :, :]) ** 2


def _contract_squared_differences(Q, Xs, Ys):
    """``Σ_ab Q_ab (x_aj − y_bj)²`` for every feature j, by one GEMM instead of an (n, m, d) tensor.

    Expands the square as ``(Q1)ᵀx_j² + (Qᵀ1)ᵀy_j² − 2 Σ_a x_aj (Q Y)_aj`` on data centred as in
    :func:`_squared_distances` (differences are shift invariant; the centring limits cancellation).
    On a Gram matrix (``Xs is Ys``) the diagonal, where the differences are exactly zero, is left
    out.
    """
    if Xs is Ys:
        Q = Q.copy()
        np.fill_diagonal(Q, 0.0)
    Xc, Yc = _centred(Xs, Ys)
    return Q.sum(axis=1) @ Xc**2 + Q.sum(axis=0) @ Yc**2 - 2.0 * np.einsum("aj,aj->j", Xc, Q @ Yc)


def _contract_products(Q, Xs, Ys):
    """``Σ_ab Q_ab x_aj y_bj`` for every feature j, by one GEMM."""
    return np.einsum("aj,aj->j", Xs, Q @ Ys)


def _per_feature_bandwidth_gradient(kernel, per_feature):
    """Inner products for ``eta`` from those of every feature: summed for a shared bandwidth."""
    return per_feature if np.ndim(kernel.eta) else np.array([per_feature.sum()])


class _BandwidthKernel(Kernel):
    """A kernel whose one tunable hyperparameter is the bandwidth ``η`` (scalar, or per feature).

    Shared by the kernels of Appendix D of Oglic & Gärtner (2018) that take ``eta`` and ``eta_bounds``.
    """

    _hyperparameters = ("eta",)

    def __init__(self, eta: float | ArrayLike = 1.0, eta_bounds: Bounds = DEFAULT_BOUNDS) -> None:
        store_parameters(self, locals())


class Gaussian(_BandwidthKernel):
    """GAUSS kernel ``k(x, x') = exp(−‖x − x'‖² / (2η²))`` (Oglic & Gärtner 2018, Appendix D).

    Parameters
    ----------
    eta : float, default=1.0
        Bandwidth η > 0.
    eta_bounds : pair of float or "fixed", default=(1e-5, 1e5)
        Box constraint of η for hyperparameter optimization.
    """

    _per_feature_hint = " (one bandwidth per feature: ARDGaussian)"

    is_positive_definite = True

    def _fill(self, out, X, Y):
        # In place: one GEMM on augmented centred data writes the exponent into `out`, then exp.
        if _extreme_bandwidth(self.eta):
            _gaussian_exponent(*_centred_scaled(X, Y, float(self.eta)), 0.5, out)
        else:
            _gaussian_exponent(X, Y, 0.5 / float(self.eta) ** 2, out)
        np.exp(out, out=out)

    def _compute(self, X, Y, eval_gradient):
        if _extreme_bandwidth(self.eta):  # ‖x − x'‖² / η² from the scaled data
            D2, eta2 = _squared_distances(*_centred_scaled(X, Y, float(self.eta))), 1.0
        else:
            D2, eta2 = _squared_distances(X, Y), float(self.eta) ** 2
        K = np.exp(-0.5 * D2 / eta2)
        if not eval_gradient:
            return K
        return K, (K * D2 / eta2)[:, :, None]

    def _diag(self, X):
        return np.ones(X.shape[0])


class _ScaledDistanceKernel(_BandwidthKernel):
    """A kernel ``k(x, x') = φ(q)`` of the scaled squared distance ``q = (x − x')ᵀ D (x − x')``,
    ``D = diag(η⁻²)`` (RL-GAUSS, EPANECHNIKOV), with ``φ(0) = 1``.

    Subclasses give ``_profile(q)``: ``φ(q)`` and the weight ``w = −2φ′(q)``. Since
    ``∂q/∂log η_j = −2 (x_j − x'_j)² / η_j²``, the gradient is ``∂K/∂log η_j = w (x_j − x'_j)² / η_j²``
    (``w q`` for a shared bandwidth).
    """

    def _profile(self, q):
        """``(φ(q), −2φ′(q))`` elementwise for the matrix ``q`` of scaled squared distances."""
        raise NotImplementedError

    def _compute(self, X, Y, eval_gradient):
        Xs, Ys = _centred_scaled(X, Y, np.asarray(self.eta, dtype=float))
        q = _squared_distances(Xs, Ys)
        K, weight = self._profile(q)
        if not eval_gradient:
            return K
        if np.ndim(self.eta) == 0:
            return K, (weight * q)[:, :, None]
        return K, weight[:, :, None] * _per_feature_squared_differences(Xs, Ys)

    def _value_and_own_contraction(self, X, Y):
        Xs, Ys = _centred_scaled(X, Y, np.asarray(self.eta, dtype=float))
        K, weight = self._profile(_squared_distances(Xs, Ys))
        return K, lambda M: _per_feature_bandwidth_gradient(
            self, _contract_squared_differences(M * weight, Xs, Ys)
        )

    def _diag(self, X):
        return np.ones(X.shape[0])


class ARDGaussian(_ScaledDistanceKernel):
    """RL-GAUSS kernel ``k(x, x') = exp(−(x − x')ᵀ D (x − x'))``, ``D = diag(η⁻²)`` (Appendix D).

    Note the absence of the factor ½ of :class:`Gaussian`, as in the paper.

    Parameters
    ----------
    eta : float or array-like of shape (n_features,), default=1.0
        Per-feature bandwidths; a scalar is shared by all features (one hyperparameter).
    eta_bounds : pair of float or "fixed", default=(1e-5, 1e5)
    """

    _per_feature_hyperparameters = ("eta",)

    is_positive_definite = True

    def _fill(self, out, X, Y):
        Xs, Ys = _centred_scaled(X, Y, np.asarray(self.eta, dtype=float))
        _gaussian_exponent(Xs, Ys, 1.0, out)
        np.exp(out, out=out)

    def _profile(self, q):
        # φ(q) = exp(−q), so −2φ′(q) = 2K.
        K = np.exp(-q)
        return K, 2.0 * K


class Sigmoid(_BandwidthKernel):
    """SIGMOID kernel ``k(x, x') = tanh((xᵀx' − 0.5) / η²)`` (Oglic & Gärtner 2018, Appendix D).

    Parameters
    ----------
    eta : float, default=1.0
    eta_bounds : pair of float or "fixed", default=(1e-5, 1e5)
    """

    _per_feature_hint = " (one bandwidth per feature: ARDSigmoid)"

    def _argument(self, X, Y, out=None):
        """``(xᵀx' − 0.5) / η²``; with an extreme η the data are divided by η first (``xᵀx'`` of
        points near 1e155 overflows, ``η²`` of 1e-170 underflows)."""
        eta = float(self.eta)
        if _extreme_bandwidth(eta):
            out = np.dot(X / eta, (Y / eta).T, out=out)
            out -= 0.5 / eta / eta
            return out
        out = np.dot(X, Y.T, out=out)
        out -= 0.5
        out /= eta**2
        return out

    def _fill(self, out, X, Y):
        self._argument(X, Y, out)
        np.tanh(out, out=out)

    def _compute(self, X, Y, eval_gradient):
        S = self._argument(X, Y)
        K = np.tanh(S)
        if not eval_gradient:
            return K
        return K, (-2.0 * (1.0 - K**2) * S)[:, :, None]

    def _diag(self, X):
        eta = float(self.eta)
        if _extreme_bandwidth(eta):
            scaled = X / eta
            return np.tanh(np.einsum("ij,ij->i", scaled, scaled) - 0.5 / eta / eta)
        return np.tanh((np.einsum("ij,ij->i", X, X) - 0.5) / eta**2)


class ARDSigmoid(_BandwidthKernel):
    """RL-SIGMOID kernel ``k(x, x') = tanh(xᵀ D x')``, ``D = diag(η⁻²)`` (Appendix D).

    Parameters
    ----------
    eta : float or array-like of shape (n_features,), default=1.0
    eta_bounds : pair of float or "fixed", default=(1e-5, 1e5)
    """

    _per_feature_hyperparameters = ("eta",)

    def _weighted(self, X):
        """``X D`` with ``D = diag(η⁻²)`` (divided twice by η where η² would leave the range)."""
        eta = np.asarray(self.eta, dtype=float)
        return X / eta / eta if _extreme_bandwidth(eta) else X * (1.0 / eta**2)

    def _fill(self, out, X, Y):
        np.dot(self._weighted(X), Y.T, out=out)
        np.tanh(out, out=out)

    def _compute(self, X, Y, eval_gradient):
        w = 1.0 / np.asarray(self.eta, dtype=float) ** 2
        S = self._weighted(X) @ Y.T
        K = np.tanh(S)
        if not eval_gradient:
            return K
        sech2 = 1.0 - K**2
        if np.ndim(self.eta) == 0:
            return K, (-2.0 * sech2 * S)[:, :, None]
        if _extreme_bandwidth(self.eta):  # w = η⁻² leaves the range: divide the data by η twice
            products = self._weighted(X)[:, None, :] * Y[None, :, :]
        else:
            products = X[:, None, :] * Y[None, :, :] * w
        return K, -2.0 * sech2[:, :, None] * products

    def _value_and_own_contraction(self, X, Y):
        # ∂K/∂log η_j = −2 (1 − K²) x_j y_j / η_j².
        eta = np.asarray(self.eta, dtype=float)
        K = np.tanh((X / eta**2) @ Y.T)
        Xs, Ys = _scale_columns(X, Y, eta)
        return K, lambda M: _per_feature_bandwidth_gradient(
            self, _contract_products(-2.0 * M * (1.0 - K**2), Xs, Ys)
        )

    def _diag(self, X):
        return np.tanh(np.einsum("ij,ij->i", self._weighted(X), X))


class DeltaGaussian(Kernel):
    """DELTA-GAUSS kernel, a difference of two Gaussians (Appendix D):

    ``k(x, x') = exp(−‖x − x'‖² / (2η₁²)) − exp(−‖x − x'‖² / (2η₂²))``.

    Parameters
    ----------
    eta1, eta2 : float, default=1.0 and 2.0
    eta1_bounds, eta2_bounds : pair of float or "fixed", default=(1e-5, 1e5)
    """

    _hyperparameters = ("eta1", "eta2")

    def __init__(
        self,
        eta1: float = 1.0,
        eta2: float = 2.0,
        eta1_bounds: Bounds = DEFAULT_BOUNDS,
        eta2_bounds: Bounds = DEFAULT_BOUNDS,
    ) -> None:
        store_parameters(self, locals())

    def _fill(self, out, X, Y):
        if _extreme_bandwidth([self.eta1, self.eta2]):
            out[...] = self._compute(X, Y, False)
            return
        _squared_distances(X, Y, out=out)
        second = np.exp(out * (-0.5 / float(self.eta2) ** 2))
        out *= -0.5 / float(self.eta1) ** 2
        np.exp(out, out=out)
        out -= second

    def _compute(self, X, Y, eval_gradient):
        if _extreme_bandwidth([self.eta1, self.eta2]):  # ‖x − x'‖² / ηᵢ² from the scaled data
            D1 = _squared_distances(*_centred_scaled(X, Y, float(self.eta1)))
            D2 = _squared_distances(*_centred_scaled(X, Y, float(self.eta2)))
            e1 = e2 = 1.0
        else:
            D1 = D2 = _squared_distances(X, Y)
            e1, e2 = float(self.eta1) ** 2, float(self.eta2) ** 2
        G1, G2 = np.exp(-0.5 * D1 / e1), np.exp(-0.5 * D2 / e2)
        K = G1 - G2
        if not eval_gradient:
            return K
        return K, np.stack([G1 * D1 / e1, -G2 * D2 / e2], axis=2)

    def _diag(self, X):
        return np.zeros(X.shape[0])


class Epanechnikov(_ScaledDistanceKernel):
    """EPANECHNIKOV kernel ``k(x, x') = max(0, 1 − (x − x')ᵀ D (x − x'))²``, ``D = diag(η⁻²)``.

    Appendix D of Oglic & Gärtner (2018). Compactly supported; its Gram matrices are indefinite in
    general (ι of a few percent on the paper's data sets).

    Parameters
    ----------
    eta : float or array-like of shape (n_features,), default=1.0
    eta_bounds : pair of float or "fixed", default=(1e-5, 1e5)
    """

    _per_feature_hyperparameters = ("eta",)

    def _fill(self, out, X, Y):
        eta = np.asarray(self.eta, dtype=float)
        _squared_distances(*_centred_scaled(X, Y, eta), out=out)
        np.subtract(1.0, out, out=out)
        np.maximum(out, 0.0, out=out)
        np.square(out, out=out)

    def _profile(self, q):
        # φ(q) = (1 − q)₊², so −2φ′(q) = 4 (1 − q)₊.
        slack = np.maximum(1.0 - q, 0.0)
        return slack**2, 4.0 * slack


class TruncatedL1(Kernel):
    """Truncated ℓ₁ (TL1) kernel ``k(x, x') = max(ρ − ‖x − x'‖₁, 0)`` (Huang et al. 2018).

    Used by Liu et al. (2019) for indefinite kernel logistic regression with ρ = 0.7·d.

    Parameters
    ----------
    rho : float or None, default=None
        Truncation radius ρ > 0. ``None`` means ρ = 0.7·d for ``d`` features, fixed at that value
        (not part of ``theta``).
    rho_bounds : pair of float or "fixed", default=(1e-5, 1e5)
    """

    _hyperparameters = ("rho",)

    def __init__(self, rho: float | None = None, rho_bounds: Bounds = DEFAULT_BOUNDS) -> None:
        store_parameters(self, locals())

    def _radius(self, n_features):
        return 0.7 * n_features if self.rho is None else float(self.rho)

    def _check_hyperparameters(self, n_features):
        super()._check_hyperparameters(n_features)
        if np.ndim(self.rho) != 0:
            raise ValueError(f"rho must be a positive scalar or None, got {self.rho!r}.")

    def _compute(self, X, Y, eval_gradient):
        rho = self._radius(X.shape[1])
        K = np.maximum(rho - cdist(X, Y, metric="cityblock"), 0.0)
        if not eval_gradient:
            return K
        return K, (rho * (K > 0))[:, :, None]

    def _diag(self, X):
        return np.full(X.shape[0], self._radius(X.shape[1]))


class Polynomial(Kernel):
    """Polynomial kernel ``k(x, x') = (γ xᵀx' + c₀)^degree``.

    Parameters
    ----------
    degree : int, default=2
        Positive integer degree (fixed).
    gamma : float, default=1.0
    coef0 : float, default=1.0
        Non-negative offset c₀; fixed unless ``coef0_bounds`` is a pair (then it must be > 0).
    gamma_bounds : pair of float or "fixed", default=(1e-5, 1e5)
    coef0_bounds : pair of float or "fixed", default="fixed"
    """

    _hyperparameters = ("gamma", "coef0")
    is_positive_definite = True

    def __init__(
        self,
        degree: int = 2,
        gamma: float = 1.0,
        coef0: float = 1.0,
        gamma_bounds: Bounds = DEFAULT_BOUNDS,
        coef0_bounds: Bounds = "fixed",
    ) -> None:
        store_parameters(self, locals())

    def _check_hyperparameters(self, n_features):
        for name in ("gamma", "coef0"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise TypeError(f"{name} must be a real number, got {value!r}.")
        if isinstance(self.degree, bool) or not isinstance(self.degree, numbers.Integral):
            raise TypeError(f"degree must be a positive integer, got {self.degree!r}.")
        if self.degree < 1:
            raise ValueError(f"degree must be a positive integer, got {self.degree!r}.")
        if np.ndim(self.gamma) != 0 or not np.isfinite(self.gamma) or self.gamma <= 0:
            raise ValueError(f"gamma must be a finite strictly positive scalar, got {self.gamma!r}.")
        fixed = isinstance(self.coef0_bounds, str) and self.coef0_bounds == "fixed"
        if np.ndim(self.coef0) != 0 or not np.isfinite(self.coef0) or self.coef0 < 0:
            raise ValueError(f"coef0 must be a finite non-negative scalar, got {self.coef0!r}.")
        if not fixed and self.coef0 == 0:
            raise ValueError("coef0 must be strictly positive when it is tuned (coef0_bounds given).")

    def _compute(self, X, Y, eval_gradient):
        base = float(self.gamma) * (X @ Y.T) + float(self.coef0)
        K = base**self.degree
        if not eval_gradient:
            return K
        d_base = self.degree * base ** (self.degree - 1)
        coef0 = float(self.coef0)
        return K, np.stack([d_base * (base - coef0), d_base * coef0], axis=2)

    def _diag(self, X):
        return (float(self.gamma) * np.einsum("ij,ij->i", X, X) + float(self.coef0)) ** self.degree


class Linear(Kernel):
    """Linear kernel ``k(x, x') = xᵀx'`` (no hyperparameters)."""

    is_positive_definite = True

    def __init__(self) -> None:
        pass

    def _fill(self, out, X, Y):
        np.dot(X, Y.T, out=out)

    def _compute(self, X, Y, eval_gradient):
        K = X @ Y.T
        return (K, np.empty(K.shape + (0,))) if eval_gradient else K

    def _diag(self, X):
        return np.einsum("ij,ij->i", X, X)

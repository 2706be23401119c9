"""The Kreĭn squared-hinge support vector machine (KREĬN SH-SVM; Oglic & Gärtner 2019, Sec. 2.5).

With a spectral representation ``K ≈ Ũ Λ Ũᵀ`` (exact, or the Nyström one-shot eigendecomposition of
Sec. 2.2) a hypothesis on the training points is ``f = Φ z`` with ``Φ = Ũ |Λ|^{1/2} sign(Λ)``, and
the Kreĭn-space regularizer ``λ₊‖f₊‖² + λ₋‖f₋‖²`` becomes ``λ₊‖z₊‖² + λ₋‖z₋‖²`` (``z±`` the
coordinates with positive/negative eigenvalues). The primal problem

    min_{z, b}  Σᵢ max(0, 1 − yᵢ(Φᵢ z + b))² + n λ₊ ‖z₊‖² + n λ₋ ‖z₋‖²

is strictly convex in ``z`` and piecewise quadratic; we solve it by the modified finite Newton method
of Keerthi & DeCoste (2005): on the active set ``I = {i : yᵢ f(xᵢ) < 1}`` solve the regularized least
squares problem ``(Φ̂_Iᵀ Φ̂_I + n R) w̄ = Φ̂_Iᵀ y_I`` (``Φ̂ = [Φ, 1]``, ``R = diag(λ±, 0)``), then take
the exact line search along ``w̄ − w`` (the derivative of the objective along the ray is monotone and
piecewise linear, so its root is found by sorting breakpoints). It terminates finitely, at the
global minimum, when the active set no longer changes.

On a Nyström representation, ``nystroem_split="landmarks"`` is the paper's own Sec. 2.5 formulation:
features ``Φ = K_XZ U_Z |D|^{-1/2} S`` and the penalty ``nλ₊‖z₊‖² + nλ₋‖z₋‖²`` split by the signs ``S``
of the eigenvalues of ``K_ZZ``. With ``z = C u`` (``u`` the coordinates of the training predictions in
``Ũ``; :attr:`~krein.nystroem.NystroemRepresentation.landmark_coordinates`) the penalty is
``uᵀ Q u``, ``Q = Cᵀ diag(λ_{Sⱼ}) C = V diag(ω) Vᵀ``, and the same Newton method runs on the features
``Ũ V ω^{-1/2}`` with unit penalties.
"""

from __future__ import annotations

import numbers
from functools import partial

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions

from .._base import one_vs_rest_targets
from ..nystroem import SPECTRAL_PARAMETERS, SpectralEstimatorMixin
from ..spectral import is_dask_array

__all__ = ["KreinSquaredHingeSVC", "squared_hinge_newton"]


def _line_search(a, c, wRd, dRd, n):
    """Root in ``t ≥ 0`` of ``g(t) = −Σᵢ max(0, aᵢ − t cᵢ) cᵢ + n (wRd + t dRd)`` (monotone, piecewise
    linear), with ``aᵢ = 1 − yᵢ oᵢ`` and ``cᵢ = yᵢ δᵢ`` along the direction ``d``."""
    active = a > 0
    alpha = -np.sum(a[active] * c[active]) + n * wRd
    beta = np.sum(c[active] ** 2) + n * dRd
    moving = c != 0
    times = a[moving] / c[moving]
    leaving = (c[moving] > 0) & active[moving]
    entering = (c[moving] < 0) & ~active[moving]
    events = np.flatnonzero((leaving | entering) & (times >= 0))
    order = events[np.argsort(times[events], kind="stable")]
    a_m, c_m = a[moving], c[moving]
    for k in order:
        t = times[k]
        if beta > 0 and -alpha / beta <= t:
            break
        sign = -1.0 if leaving[k] else 1.0
        alpha += sign * (-a_m[k] * c_m[k])
        beta += sign * c_m[k] ** 2
    if beta <= 0:
        return 1.0
    return max(0.0, -alpha / beta)


def squared_hinge_newton(features, y, penalties, *, fit_intercept=True, tol=1e-10, max_iter=100):
    """Minimize ``Σ max(0, 1 − yᵢ(Φᵢ w + b))² + n Σⱼ ρⱼ wⱼ²`` by the finite Newton method.

    Parameters
    ----------
    features : ndarray of shape (n, r)
        ``Φ``.
    y : ndarray of shape (n,)
        Labels ±1.
    penalties : ndarray of shape (r,)
        ``ρ`` (strictly positive).
    fit_intercept : bool, default=True
        Add an unregularized bias ``b``.
    tol : float, default=1e-10
        Stop when the relative decrease of the objective is below ``tol`` or the active set repeats.
    max_iter : int, default=100

    Returns
    -------
    w : ndarray of shape (r,)
    b : float
    n_iter : int
    """
    n = features.shape[0]
    design = np.hstack([features, np.ones((n, 1))]) if fit_intercept else features
    R = np.append(penalties, 0.0) if fit_intercept else penalties
    w = np.zeros(design.shape[1])
    outputs = np.zeros(n)

    def objective(out, weights):
        return np.sum(np.maximum(0.0, 1.0 - y * out) ** 2) + n * np.dot(R * weights, weights)

    value = objective(outputs, w)
    n_iter = 0
    while n_iter < max_iter:
        n_iter += 1
        active = y * outputs < 1
        D = design[active]
        system = D.T @ D
        system[np.diag_indices_from(system)] += n * R
        try:
            target = scipy.linalg.solve(system, D.T @ y[active], assume_a="pos", check_finite=False)
        except (np.linalg.LinAlgError, scipy.linalg.LinAlgError):
            target = scipy.linalg.lstsq(system, D.T @ y[active], check_finite=False)[0]
        direction = target - w
        delta = design @ direction
        step = _line_search(
            1.0 - y * outputs, y * delta, np.dot(R * w, direction), np.dot(R * direction, direction), n
        )
        w = w + step * direction
        outputs = outputs + step * delta
        new_value = objective(outputs, w)
        converged = value - new_value <= tol * max(new_value, 1e-300) or np.array_equal(
            active, y * outputs < 1
        )
        value = new_value
        if converged:
            break
    if fit_intercept:
        return w[:-1], float(w[-1]), n_iter
    return w, 0.0, n_iter


class KreinSquaredHingeSVC(SpectralEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Kreĭn squared-hinge SVM (KREĬN SH-SVM), exact or low-rank (Oglic & Gärtner 2019, Sec. 2.5).

    Parameters
    ----------
    kernel : Kernel, str or "precomputed", default="gaussian"
    lambda_plus, lambda_minus : float, default=1e-3
        Regularization of the positive and negative decomposition components ``λ₊``, ``λ₋``.
    center : bool, default=False
        Fit on the centred kernel ``HKH`` (``H K̃ H`` with ``n_components``); test rows are centred
        consistently, the correction folded into ``intercept_``. False is the paper's model.
    n_components : int, default=None
        Number of Nyström landmarks m; None uses the exact eigendecomposition of the training kernel.
    landmarks : {"uniform", "leverage", "kmeans++"}, default="uniform"
        Landmark sampler (Sec. 2.3).
    nystroem_split : {"approximation", "landmarks"}, default="approximation"
        Only with ``n_components``: the Kreĭn decomposition of the low-rank model. ``"approximation"``:
        H± spanned by the eigenvectors of ``K̃`` with positive/negative eigenvalues. ``"landmarks"``:
        the paper's Sec. 2.5, features ``Φ = K_XZ U_Z |D|^{-1/2} S`` split by the signs ``S`` of the
        eigenvalues of ``K_ZZ``. They agree for positive definite kernels and m = n, and differ
        otherwise (see :class:`krein.least_squares.KreinRidge`).
    landmark_rank : {"full", "validated"}, default="full"
        Eigenpairs of ``K_ZZ`` kept: all (the paper's plain Eq. (3)), or those validated on held-out
        kernel columns; see ``landmark_rank`` of :class:`krein.least_squares.KreinRidge` for why the
        learning estimators keep all by default.
    rank : int, default=None
        Rank of the one-shot eigendecomposition (at most m; all resolved eigenpairs when None).
    fit_intercept : bool, default=True
        Learn an unregularized bias.
    tol : float, default=1e-10
    max_iter : int, default=100
        Newton iterations per one-vs-rest task.
    random_state : int, RandomState or None, default=None
        Landmark sampling.
    working_memory : float or None, default=None
        Only with ``n_components``: MiB per block of landmark kernel columns in the streamed one-shot
        eigendecomposition (None: scikit-learn's ``working_memory``); with a value, predictions are
        computed in blocks of that size. A dask ``X`` is reduced one task per row chunk.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    representation_ : SpectralRepresentation
    landmark_indices_ : ndarray of shape (m,) or None
    dual_coef_ : ndarray of shape (n_points, n_tasks)
        ``β`` with ``f(x) = K(x, P) β + b`` (``P`` the training points, or the landmarks).
    coef_ : ndarray of shape (r, n_tasks)
        ``z`` in the features ``Φ`` (``Ũ |Λ|^{1/2} sign(Λ)``, or ``K_XZ U_Z |D|^{-1/2} S`` with
        ``nystroem_split="landmarks"``; then of shape (r₀, n_tasks)).
    intercept_ : ndarray of shape (n_tasks,)
    n_iter_ : ndarray of shape (n_tasks,)
    """

    _parameter_constraints = {
        **SPECTRAL_PARAMETERS,
        "lambda_plus": [Interval(numbers.Real, 0, None, closed="neither")],
        "lambda_minus": [Interval(numbers.Real, 0, None, closed="neither")],
        "nystroem_split": [StrOptions({"approximation", "landmarks"})],
        "rank": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "fit_intercept": ["boolean"],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        kernel="gaussian",
        *,
        lambda_plus=1e-3,
        lambda_minus=1e-3,
        center=False,
        n_components=None,
        landmarks="uniform",
        nystroem_split="approximation",
        landmark_rank="full",
        rank=None,
        fit_intercept=True,
        tol=1e-10,
        max_iter=100,
        random_state=None,
        working_memory=None,
    ):
        self.kernel = kernel
        self.lambda_plus = lambda_plus
        self.lambda_minus = lambda_minus
        self.center = center
        self.n_components = n_components
        self.landmarks = landmarks
        self.nystroem_split = nystroem_split
        self.landmark_rank = landmark_rank
        self.rank = rank
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.working_memory = working_memory

    def fit(self, X, y):
        """Fit one squared-hinge problem per one-vs-rest task.

        Parameters
        ----------
        X : array-like of shape (n, d), or (n, n) if precomputed
        y : array-like of shape (n,)
        """
        self._validate_params()
        representation, y = self._fit_representation(X, y, producer={"rank": self.rank})
        self.classes_, Y = one_vs_rest_targets(y.compute() if is_dask_array(y) else y)
        streams = getattr(representation, "streams", False)  # Ũ is never formed: streamed Newton
        values = representation.values
        landmark_split = self.n_components is not None and self.nystroem_split == "landmarks"
        if landmark_split:  # features Ũ V ω^{-1/2} with unit penalties (module docstring)
            C = representation.landmark_coordinates
            signature = representation.landmark_signature
            Q = C.T @ (np.where(signature > 0, self.lambda_plus, self.lambda_minus)[:, None] * C)
            omega, V = scipy.linalg.eigh(0.5 * (Q + Q.T), driver="evd", check_finite=False)
            to_eigen = V / np.sqrt(omega)  # u = to_eigen @ coef
            features = None if streams else representation.vectors @ to_eigen
            penalties = np.ones(values.size)
        else:
            scale = np.sqrt(np.abs(values))
            to_eigen = scale * np.sign(values)  # diagonal
            features = None if streams else representation.vectors * to_eigen
            penalties = np.where(values > 0, self.lambda_plus, self.lambda_minus)
        coef = np.empty((values.size, Y.shape[1]))
        self.intercept_ = np.empty(Y.shape[1])
        self.n_iter_ = np.empty(Y.shape[1], dtype=int)
        solver = squared_hinge_newton
        if streams:
            from ._streamed_newton import streamed_squared_hinge_newton  # it imports _line_search from here

            T = to_eigen if landmark_split else np.diag(to_eigen)
            solver = partial(streamed_squared_hinge_newton, representation, T)
        for task in range(Y.shape[1]):
            coef[:, task], self.intercept_[task], self.n_iter_[task] = solver(
                *(() if streams else (features,)),
                Y[:, task],
                penalties,
                fit_intercept=self.fit_intercept,
                tol=self.tol,
                max_iter=self.max_iter,
            )
        u = to_eigen @ coef if landmark_split else to_eigen[:, None] * coef
        self.coef_ = C @ u if landmark_split else coef
        self.dual_coef_ = representation.dual_coef(u / values[:, None])
        self.intercept_ += representation.offset(self.dual_coef_)
        return self

    def decision_function(self, X):
        """``f(x) = K(x, P) β + b``; one column per task (a vector for binary problems)."""
        scores = self._evaluate(X)
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict(self, X):
        """Class labels (one-vs-rest)."""
        return self._labels(self.decision_function(X))

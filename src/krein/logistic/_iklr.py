"""Indefinite kernel logistic regression (IKLR) by CCCP / CCICP (Liu, Huang, Gong, Yang & Suykens 2019)."""

from __future__ import annotations

import math
import numbers
import warnings
from functools import partial
from typing import Literal, Self

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit, log_expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._base import one_vs_rest_targets
from .._parameters import store_parameters
from .._penalties import PENALTY_CONSTRAINT, kernel_scale, penalty
from .._scaling import SAFE_RANGE, power_of_two_unit
from .._threads import blas_for_data
from .._typing import FloatOrAuto, LandmarkMethod, LandmarkRank, RandomStateLike
from ..kernels import Kernel
from ..optimize import DCObjective, concave_convex_procedure
from ..representation import SPECTRAL_PARAMETERS, SpectralEstimatorMixin, is_dask_array

__all__ = ["IndefiniteLogisticRegression"]

#: λ = AUTO_ALPHA_TIMES_N · s / n for ``alpha="auto"`` (s = Σ|σᵢ|/n; :mod:`krein._penalties`): in
#: ``(1/n) Σ loss + (λ/2) αᵀKα`` the penalty of scikit-learn's ``LogisticRegression(C=1)`` (and of
#: ``SVC(C=1)`` for the hinge loss), ``λ = 1/(Cn)``, on a kernel of unit scale.
AUTO_ALPHA_TIMES_N = 1.0

#: Default ``ε`` of the inexact rule per solver: CCCP (tight), CCICP-GD (Sec. V-A2), CCICP-SGD (Sec. V-A2).
_DEFAULT_INEXACT_TOL = {"cccp": 1e-10, "ccicp": 1.0, "ccicp-sgd": 1e-4}
#: ``ε`` of CCICP-SGD-I (Sec. V-G).
_SGD_INEXACT_TOL = 1.0
#: Default learning rate per step rule: the majorization-minimization step, and the paper's ``η = 0.02``.
DEFAULT_LEARNING_RATE = {"majorizer": 1.0, "plain": 0.02, "paper": 0.02}
#: Objective (6) at α = 0, ``ln 2`` (every output 0), with a margin for rounding.
_ZERO_MODEL_OBJECTIVE = math.log(2.0) * (1.0 + 1e-12)
#: Share Σμ⁺/Σ|μ| of the spectrum below which the positive part K₊ of the decomposition counts as vanished.
_VANISHING_POSITIVE_SHARE = 1e-8


class _LogisticDC(DCObjective):
    """Objective (6) of one binary task in the eigen-coordinates ``c = Vᵀα`` of ``K = V diag(μ) Vᵀ``,
    with an unpenalized intercept ``b`` when ``fit_intercept``: the variable is ``x = (c, b)``.

    With ``μ⁺ = max(μ, 0)``, ``μ⁻ = max(−μ, 0)`` and the shift ``τ`` of Sec. III, the positive
    decomposition is ``K₊ = V diag(μ⁺ + τ) Vᵀ`` and ``K₋ = V diag(μ⁻ + τ) Vᵀ`` (so ``K = K₊ − K₋``),
    and (7) reads ``g(c, b) = (1/n) Σᵢ ln(1 + exp(−yᵢ ((V(μ⊙c))ᵢ + b))) + (λ/2) Σ (μ⁺+τ) c²`` and
    ``h(c) = (λ/2) Σ (μ⁻+τ) c²`` (``b`` enters only the loss, so ``g`` stays convex and ``h`` does not
    see it). All the matrices of Algorithm 1 are diagonal in these coordinates, so one
    eigendecomposition serves every class and every iteration. Böhning's bound ``σ'(t) ≤ 1/4`` gives
    the diagonal majorizer ``P = λ(μ⁺+τ) + μ²/(4n)`` (and ``1/4`` for ``b``) ``⪰ ∇²g``: the loss's
    Hessian is ``(1/n) Aᵀ D A`` with ``A = [V diag(μ), 1]`` and ``D ⪯ I/4``, and ``AᵀA = diag(μ², n)``
    when ``V ⊥ 1`` (a centred kernel); otherwise ``AᵀA ⪯ 2 diag(μ², n)`` and the loss terms of ``P``
    are doubled.

    ``unit``: the problem is posed on ``μ/u`` with ``λ/u``, ``τ/u`` in the coordinates ``ĉ = u c`` (the
    same outputs ``V(μ ⊙ c)`` and the same objective), so that ``μ²`` and the steps stay in range for a
    kernel near 1e±300; ``λ``, ``τ`` and ``c`` are then in those units (``b`` is in the outputs' units).
    """

    def __init__(self, representation, y, lam, tau, projection=None, unit=1.0, fit_intercept=False):
        self.representation, self.y = representation, y
        self.values = representation.values / unit
        self.projection = projection
        self.n_samples = y.size
        self.fit_intercept = fit_intercept
        values = self.values
        extra = [0.0] if fit_intercept else []  # b is not penalized
        self.convex_weight = np.append(lam * (np.maximum(values, 0.0) + tau), extra)
        self.concave_weight = np.append(lam * (np.maximum(-values, 0.0) + tau), extra)
        loss_bound = 2.0 if fit_intercept and representation.column_means is None else 1.0
        curvature = np.append(values**2 / self.n_samples, [1.0] if fit_intercept else [])
        self.metric = self.convex_weight + loss_bound * curvature / 4.0

    def split(self, x):
        """``(c, b)`` of a variable ``x``."""
        return (x[:-1], float(x[-1])) if self.fit_intercept else (x, 0.0)

    def _loss_and_back(self, x):
        """Mean logistic loss and ``(Vᵀw, Σw)/n`` (``wᵢ = yᵢ σ(−yᵢ fᵢ)``, ``f = V(μ⊙c) + b``): one pass over
        the data, except at ``x = 0`` when the ``projection`` ``Vᵀy`` is known (then ``w = y/2``)."""
        c, b = self.split(x)
        n = self.n_samples
        if self.projection is not None and not np.any(x):
            return math.log(2.0), 0.5 * self.projection / n, 0.5 * float(np.sum(self.y)) / n
        (loss, total), back = self.representation.reduce_rows(
            self.values * c, partial(_logistic_rows, intercept=b), self.y
        )
        return loss / n, back / n, total / n

    def _with_intercept(self, gradient_c, total):
        return np.append(gradient_c, -total) if self.fit_intercept else gradient_c

    def convex(self, x):
        loss, back, total = self._loss_and_back(x)
        c, _ = self.split(x)
        value = loss + 0.5 * np.sum(self.convex_weight * x**2)
        return value, self._with_intercept(self.convex_weight[: c.size] * c - self.values * back, total)

    def concave(self, x):
        return 0.5 * np.sum(self.concave_weight * x**2), self.concave_weight * x

    def convex_batch_gradient(self, x, batch):
        c, b = self.split(x)
        rows = self.representation.training_rows(batch)
        _, weights = _logistic_rows(rows @ (self.values * c), self.y[batch], b)
        c_gradient = self.convex_weight[: c.size] * c - self.values * (rows.T @ weights) / batch.size
        return self._with_intercept(c_gradient, float(np.sum(weights)) / batch.size)

    # linear-model form of g (DCObjective): aᵢ = (μ ⊙ uᵢ, 1), φ(o, y) = ln(1 + exp(−y o)), ω = (λ(μ⁺ + τ), 0)
    @property
    def quadratic_weight(self):
        return self.convex_weight

    def sample_rows(self, indices):
        rows = self.representation.training_rows(indices) * self.values
        if self.fit_intercept:
            rows = np.hstack([rows, np.ones((rows.shape[0], 1))])
        return rows, self.y[indices]

    @staticmethod
    def negative_slope(output, label):
        """``y σ(−y o)``, the weight of ``_logistic_rows`` for one sample, without overflow."""
        margin = label * output
        if margin > 0.0:
            tail = math.exp(-margin)
            return label * tail / (1.0 + tail)
        return label / (1.0 + math.exp(margin))


def _logistic_rows(outputs, y, intercept=0.0):
    """``([summed logistic loss, Σ w], w)`` of outputs ``Kα + intercept`` on labels ``y``, with the weights
    ``w = y ⊙ β`` (module level: dask ships it to the workers)."""
    margins = y * (outputs + intercept)
    weights = y * expit(-margins)
    return np.array([-np.sum(log_expit(margins)), np.sum(weights)]), weights


def _rows_of(outputs, data):
    """The weights ``data`` themselves: with :meth:`reduce_rows`, the projection ``Vᵀ data``."""
    return 0.0, data


class IndefiniteLogisticRegression(SpectralEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Kernel logistic regression with an indefinite kernel (IKLR), solved by CCCP or CCICP.

    Minimizes the IKLR objective of Liu et al. (2019), Eq. (5)/(6),

        F(α) = (1/n) Σᵢ ln(1 + exp(−yᵢ (Kα)ᵢ)) + (λ/2) αᵀKα,

    over the coefficients of ``f = Σᵢ αᵢ k(xᵢ, ·)`` — by default on the centred kernel ``K = HK₀H``
    and with an unpenalized intercept, ``f = Kα + b`` in the loss (scikit-learn's kernel logistic
    regression; ``fit_intercept=False, center=False`` is the paper's model) — by writing it as the
    difference of the convex functions ``g`` and ``h`` of Eq. (7) (positive decomposition
    ``K = K₊ − K₋`` with the shift ``τ``, Sec. III) and running Algorithm 1: the concave part is
    linearized at the current iterate and the convex subproblem (9) is solved exactly
    (``solver="cccp"``), inexactly by gradient descent with early termination (``"ccicp"``, CCICP-GD)
    or by stochastic gradients (``"ccicp-sgd"``, Eq. 12; with ``sgd_inexact=True`` the paper's
    CCICP-SGD-I of Sec. V-G). Classes beyond two are handled one-vs-rest, all sharing one
    eigendecomposition of the training kernel.

    The gradient of the logistic term is ``−(1/n) K (y ⊙ β)`` with ``βᵢ = σ(−yᵢ (Kα)ᵢ) =
    1 / (1 + exp(yᵢ (Kα)ᵢ))``. The paper's Eqs. (10)–(11) write ``β`` in terms of itself
    (``βᵢ = 1/(1 + exp(yᵢ Σⱼ βⱼ Kᵢⱼ))``) and put ``y`` outside the product with ``K``; both are typos.
    Eq. (12) also drops the linearized term ``−λK₋α_k`` of the subproblem gradient; it is kept here.

    When ``K`` has a negative eigenvalue, objective (6) is unbounded below (along a negative
    eigendirection the penalty falls quadratically while the loss grows at most linearly), and a
    direction with ``|μ| < 4nλ`` has negative curvature everywhere. CCCP then decreases ``F``
    monotonically without converging; like the paper, the model is what ``max_outer_iter``
    iterations from a small start reach. With a positive semidefinite kernel the shift is ``0``,
    ``K₋ = 0`` and the model is ordinary kernel logistic regression (1).

    **Low rank** (``n_components=m``). The kernel matrix is replaced by the one-shot Nyström
    eigendecomposition ``K̃ = Ũ Λ Ũᵀ`` (Oglic & Gärtner 2019, Sec. 2.2; ``Ũ = K_XZ E`` n×r orthonormal,
    ``r ≤ m`` landmarks ``Z``, :func:`krein.nystroem.nystroem_representation`) and objective (6) is
    minimized over ``α = Ũ c``:

        F̃(c) = (1/n) Σᵢ ln(1 + exp(−yᵢ (Ũ Λ c)ᵢ)) + (λ/2) cᵀ Λ c,

    with the positive decomposition ``K̃₊ = Ũ diag(Λ⁺ + τ) Ũᵀ``, ``K̃₋ = Ũ diag(Λ⁻ + τ) Ũᵀ`` (``τ`` by the
    same rule as the exact path, from the eigenvalues of ``K̃``; the shift acts on the span of ``Ũ``,
    the only directions ``α`` moves in). This is the exact model's algorithm in r coordinates instead of
    n: a CCCP/CCICP step costs ``O(n r)`` and the fit holds ``O(n r)`` memory, never an n×n array (the
    landmark columns are reduced in blocks of ``working_memory`` MiB). A new point is mapped by the
    representation's out-of-sample extension, ``f(x) = k_Z(x) E Λ c = k_Z(x) β`` with the dual
    coefficients ``β`` on the landmarks. With every point a landmark (``n_components = n``,
    ``landmark_rank="full"``), ``K̃ = K`` and the model is the exact one.

    Parameters
    ----------
    kernel : Kernel, str or "precomputed", default="tl1"
        The kernel; the default is the truncated ℓ₁ kernel ``max(ρ − ‖x − x'‖₁, 0)`` with
        ``ρ = 0.7·d`` (Huang et al. 2018), the indefinite kernel of the paper's experiments.
    alpha : float or "auto", default="auto"
        Regularization ``λ > 0``. ``"auto"``: ``s / n`` with the kernel's scale ``s = Σ|σᵢ|/n`` (the mean
        absolute eigenvalue of the training kernel): on a kernel of unit scale (a Gaussian's) the
        penalty of scikit-learn's ``LogisticRegression(C=1)``, and the same model when the kernel is
        multiplied by a constant; a number is used as it is (the paper's grids). The value used is
        ``alpha_``.
    fit_intercept : bool, default=True
        Add an unpenalized intercept, ``f = Kα + b`` (as scikit-learn's ``LogisticRegression``), so that
        the model can follow the class ratio. False is the paper's model (6), ``f = Kα``.
    center : bool, default=True
        Fit on the centred kernel ``HKH`` (``H K̃ H`` with ``n_components``); test rows are centred
        consistently, the correction folded into ``intercept_``. With ``fit_intercept`` the centred
        eigenvectors are orthogonal to the intercept's direction, which decouples the two in the
        majorizer (an uncentred kernel's top eigenvector is near the constant, and CCICP's few steps
        per subproblem then trade the two slowly: on ionosphere with a Gaussian kernel, over 5
        stratified 70/30 splits, 12.6 % test error uncentred against 8.7 % centred). False (with
        ``fit_intercept=False``) is the paper's model.
    n_components : int or None, default=None
        None: the exact eigendecomposition of the n×n training kernel. Otherwise the number of Nyström
        landmarks m of the low-rank model above (a value above n_samples is clamped to n_samples with a
        warning).
    landmarks : {"uniform", "leverage", "kmeans++"}, default="uniform"
        Only with ``n_components``: landmark sampler (see :mod:`krein.nystroem`).
    landmark_rank : {"full", "validated"}, default="full"
        Only with ``n_components``: eigenpairs of the landmark block ``K_ZZ`` kept, all (the plain
        Nyström Eq. (3)) or those validated on held-out kernel columns; as in
        :class:`krein.least_squares.KreinRidge`.
    working_memory : float or None, default=None
        Only with ``n_components``: MiB per block of landmark kernel columns. None: the one-shot
        eigendecomposition is computed in blocks of scikit-learn's ``working_memory`` and ``Ũ`` (n×r) is
        held for the CCCP iterations. A value streams every pass: each evaluation of objective (6) and
        its gradient recomputes the landmark columns block by block (``Ũ c = (K_XZ − k̄)(E c)``), so the
        fit holds no n×m or n×r array (O(n) beyond the data), and predictions are computed in blocks.
        The start ``α⁽⁰⁾ = 0`` costs no pass: (6) and its gradient there come from ``Ũᵀy``, which the
        Nyström pass accumulates, so a fit is that pass and one pass per tried gradient step.
        A dask ``X`` always streams, one task per row chunk (on a ``dask.distributed`` cluster when a
        client is active); ``decision_function`` then returns a lazy dask array.
    solver : {"cccp", "ccicp", "ccicp-sgd"}, default="ccicp"
        Algorithm 1 with exact subproblems (CCCP-GD), early termination (CCICP-GD) or stochastic
        gradients (CCICP-SGD).
    inexact_tol : float or None, default=None
        ``ε`` of the termination rule ``|F_k(α⁽ᵗ⁺¹⁾) − F_k(α⁽ᵗ⁾)| ≤ ε`` (per gradient step, per epoch
        for SGD). ``None``: 1e-10 for "cccp", 1 for "ccicp" and 1e-4 for "ccicp-sgd" (Sec. V-A2;
        1 with ``sgd_inexact=True``).
    max_outer_iter : int, default=20
        Outer iterations ``k_max`` of Algorithm 1.
    max_inner_iter : int, default=1000
        Cap on gradient steps (SGD epochs) per subproblem.
    tol : float, default=0.0
        Stop early once an outer iteration changes ``F`` by at most ``tol`` (``0``: always run
        ``max_outer_iter`` iterations, as Algorithm 1).
    step : {"majorizer", "plain", "paper"}, default="majorizer"
        Rule of the inner gradient steps on the subproblem ``F_k`` (9), in the coordinates of the
        eigenvectors of ``K`` (plain steps there are plain steps in ``α``, since ``V`` is orthonormal):

        - ``"majorizer"``: preconditioned by the diagonal majorizer ``P = λ(μ⁺+τ) + μ²/(4n) ⪰ ∇²F_k``
          (see :mod:`krein.optimize`), ``α ← α − η P⁻¹ ∇F_k(α)`` with a relative ``η``; scale
          free, and one step nearly solves a subproblem, so CCCP and CCICP cost about the same.
        - ``"plain"``: the paper's step, Algorithm 1 line 9 (GD) ``α ← α − η ∇F_k(α)`` with the
          gradient (10) and an absolute ``η``, and Eq. (12) (SGD) ``α ← α − η_e ĝ`` on each mini-batch.
          A tight ``ε`` then needs many steps per subproblem, which is what CCICP-GD (``ε = 1``,
          Algorithm 1 lines 7–13) saves (Table IV). Not scale free: ``η`` must suit the kernel's size,
          and since the rule ``|ΔF_k| ≤ ε`` also stops on short steps, a small ``η`` can end a
          subproblem far from its minimizer even with ``ε = 1e-4``.

        - ``"paper"``: Algorithm 1 as printed, for reproductions: the plain step ``α ← α − η_t ∇F_k(α)``
          (line 9, gradient (10)) with ``η_0 = learning_rate`` and ``η_{t+1} = ρ η_t`` after every step
          (line 11, ``ρ = decay``; restarted at each subproblem, whose counter ``t`` line 6 resets), no
          safeguard, and the inner loop stops once ``|F_k(α⁽ᵗ⁺¹⁾) − F_k(α⁽ᵗ⁾)| ≤ ε`` (line 7). The
          total step ``η/(1 − ρ)`` per subproblem is finite, so a subproblem is not solved to ``ε``
          unless it is solved within it; and when ``η`` exceeds ``2/L`` (``L ≈ λμ_max + μ_max²/(4n)``,
          the curvature of ``F_k``; large kernels), the first steps overshoot and ``F`` rises, which
          the rule then reads as progress. SGD as ``"plain"``.

        With ``"majorizer"`` and ``"plain"`` a gradient-descent step that would increase ``F_k`` is
        halved until it does not, so CCCP stays monotone (Algorithm 1 has no such safeguard; SGD steps
        are not safeguarded), and gradient-descent steps do not decay: the paper's ``η := ρη`` per
        step (line 11) sums to the finite total step ``η/(1 − ρ)``, with which a subproblem cannot be
        solved. SGD decays per epoch in all three rules (Eq. 12).
    learning_rate : float or None, default=None
        Step ``η``. With ``step="majorizer"``, relative to ``P``: ``1`` is the majorization-minimization
        step of gradient descent (monotone for any value in (0, 1]); for SGD, roughly the progress of
        one such step per epoch. With ``step="plain"`` or ``"paper"``, absolute. ``None``: 1 for
        ``"majorizer"``, 0.02 (the paper's Algorithm 1, line 1) for ``"plain"`` and ``"paper"``.
    decay : float, default=0.8
        Per-epoch decay ``ρ`` of the SGD step (Algorithm 1, line 11); gradient descent decays per step
        with ``step="paper"`` only.
    tau : float or None, default=None
        Shift ``τ`` of the positive decomposition (Sec. III); must be positive when ``K`` has a negative
        eigenvalue (the subproblems are otherwise not strongly convex). One outer iteration multiplies
        the component of ``α`` along an eigendirection with ``μ < 0`` by at most ``1 + |μ|/τ``, so
        ``τ`` sets how fast the iterates escape along the directions in which (6) is unbounded below.
        ``None`` uses ``τ = max_outer_iter · max(−μ_min, 0)``, which satisfies the paper's ``τ > −μ_min``
        and bounds that amplification over the whole run by ``(1 + 1/k_max)^k_max < e``; ``τ = 0`` for a
        positive semidefinite kernel (then ``K₋ = 0`` and one exact subproblem is KLR).
    sgd_inexact : bool, default=False
        With ``solver="ccicp-sgd"``, use the inexact ``ε = 1`` (CCICP-SGD-I) unless ``inexact_tol``
        is given.
    batch_size : int, default=1
        Mini-batch size of the SGD solver (1 as in Eq. 12).
    init : {"zeros", "ones", "minus_ones", "random"}, default="zeros"
        ``α⁽⁰⁾`` (Table VI): 0, 1, −1 or uniform on (0, 1). Start at zero with ``step="majorizer"``:
        a start whose outputs ``Kα⁽⁰⁾`` saturate every margin leaves the true curvature along the top
        eigenvector near ``λμ``, far below the majorizer's ``λμ + μ²/(4n)``, so each step removes only
        about ``4nλ/μ_max`` of the start there and ``max_outer_iter`` iterations end near it (Table VI
        on guide1-t: accuracy 0.5–0.58 from 1, −1 and U(0, 1) against 0.97 from 0;
        ``docs/results/liu2019-table6``). ``step="paper"`` recovers from such starts. A fit that
        ends above ``F(0) = ln 2``, the objective of the zero model, warns.
    random_state : int, RandomState instance or None, default=None
        Landmark sampling (low rank), then the random initialization and SGD sampling.
    verbose : int, default=0
        Print the objective after each outer iteration.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    alpha_ : float
        The regularization λ used (``alpha``, or its ``"auto"`` value).
    intercept_ : ndarray of shape (n_tasks,)
        The fitted intercept ``b`` (zeros without ``fit_intercept``) plus ``−k̄ᵀβ``, the centring folded
        into the model (zero without ``center``).
    dual_coef_ : ndarray of shape (n_tasks, n_points)
        ``β`` with ``f(x) = K(x, P) β + b`` per one-vs-rest task (one task for binary problems); ``P`` the
        training points (exact, ``β = α``) or the landmarks ``landmark_indices_`` (low rank).
    objective_history_ : list of ndarray
        Per task, objective (6) at ``α⁽⁰⁾`` and after each outer iteration.
    n_iter_ : ndarray of shape (n_tasks,)
        Outer iterations run per task.
    n_inner_iter_ : ndarray of shape (n_tasks,)
        Total inner steps (SGD epochs) per task.
    tau_ : float
        Shift used in the positive decomposition.
    eigenvalues_ : ndarray of shape (rank,)
        Non-zero eigenvalues of the training kernel, or of its Nyström approximation ``K̃`` (ascending).
    representation_ : SpectralRepresentation
        The (exact or Nyström) spectral representation the model was fitted in.
    landmark_indices_ : ndarray of shape (m,) or None
        Training indices of the landmarks (low rank); None for the exact model.
    kernel_ : Kernel or "precomputed"
    X_fit_ : ndarray of shape (n_points, n_features)
        The points ``P``: training inputs, or the landmarks (not for precomputed kernels).
    n_features_in_ : int

    See Also
    --------
    krein.optimize.concave_convex_procedure : The CCCP / CCICP driver it runs.
    krein.svm.KreinSquaredHingeSVC : The Kreĭn squared-hinge SVM.
    sklearn.linear_model.LogisticRegression : Logistic regression on explicit features.

    References
    ----------
    F. Liu, X. Huang, C. Gong, J. Yang, J. A. K. Suykens. Indefinite kernel logistic regression with
    concave-inexact-convex procedure. IEEE TNNLS 30(3), 2019.

    Examples
    --------
    >>> from krein.logistic import IndefiniteLogisticRegression
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 3))
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> model = IndefiniteLogisticRegression(kernel="sigmoid").fit(X[:60], y[:60])
    >>> print(round(model.score(X[60:], y[60:]), 2))  # accuracy on the held-out points
    0.9
    >>> model.predict_proba(X[60:]).shape
    (20, 2)
    """

    _parameter_constraints = {
        **SPECTRAL_PARAMETERS,
        "alpha": PENALTY_CONSTRAINT,
        "fit_intercept": ["boolean"],
        "solver": [StrOptions({"cccp", "ccicp", "ccicp-sgd"})],
        "inexact_tol": [Interval(numbers.Real, 0, None, closed="left"), None],
        "max_outer_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "max_inner_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "step": [StrOptions({"majorizer", "plain", "paper"})],
        "learning_rate": [Interval(numbers.Real, 0, None, closed="neither"), None],
        "decay": [Interval(numbers.Real, 0, 1, closed="right")],
        "tau": [Interval(numbers.Real, 0, None, closed="left"), None],
        "sgd_inexact": ["boolean"],
        "batch_size": [Interval(numbers.Integral, 1, None, closed="left")],
        "init": [StrOptions({"zeros", "ones", "minus_ones", "random"})],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        kernel: Kernel | str = "tl1",
        *,
        alpha: FloatOrAuto = "auto",
        fit_intercept: bool = True,
        center: bool = True,
        n_components: int | None = None,
        landmarks: LandmarkMethod = "uniform",
        landmark_rank: LandmarkRank = "full",
        solver: Literal["cccp", "ccicp", "ccicp-sgd"] = "ccicp",
        inexact_tol: float | None = None,
        max_outer_iter: int = 20,
        max_inner_iter: int = 1000,
        tol: float = 0.0,
        step: Literal["majorizer", "plain", "paper"] = "majorizer",
        learning_rate: float | None = None,
        decay: float = 0.8,
        tau: float | None = None,
        sgd_inexact: bool = False,
        batch_size: int = 1,
        init: Literal["zeros", "ones", "minus_ones", "random"] = "zeros",
        random_state: RandomStateLike = None,
        working_memory: float | None = None,
        verbose: int = 0,
    ) -> None:
        store_parameters(self, locals())

    def _inexact_tol(self):
        if self.inexact_tol is not None:
            return float(self.inexact_tol)
        if self.solver == "ccicp-sgd" and self.sgd_inexact:
            return _SGD_INEXACT_TOL
        return _DEFAULT_INEXACT_TOL[self.solver]

    def _initial_alpha(self, n, rng):
        """``α⁽⁰⁾`` of a non-zero ``init``."""
        if self.init == "ones":
            return np.ones(n)
        if self.init == "minus_ones":
            return -np.ones(n)
        return rng.uniform(0.0, 1.0, size=n)

    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Fit the model on training data ``X`` (or an n×n kernel) and labels ``y``."""
        with blas_for_data(X):  # one BLAS thread for a small problem (krein._threads)
            self._validate_params()
            rng = check_random_state(self.random_state)
            data, y = self._training_data(X, y)
            if y is None:
                raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None.")
            # ±1 targets per task; the Nyström pass accumulates their projections Ũᵀ Y
            self.classes_, Y = one_vs_rest_targets(y.compute() if is_dask_array(y) else y)
            spectrum = self._fit_representation(data, targets=Y, random_state=rng)
            # Ũᵀ Y gives objective (6) and its gradient at α = 0 without a pass over the data
            projections = spectrum.project(Y) if self.init == "zeros" else None
            values = spectrum.values
            self.eigenvalues_ = np.sort(values)
            smallest, largest = self.eigenvalues_[0], self.eigenvalues_[-1]
            if self.tau is None:
                self.tau_ = self.max_outer_iter * max(-float(smallest), 0.0)
            else:
                self.tau_ = float(self.tau)
            if smallest < 0 and self.tau_ == 0:
                raise ValueError(
                    "tau must be positive for an indefinite kernel (the training kernel has the eigenvalue "
                    f"{smallest:.3g}): with tau = 0 the CCCP subproblems are not strongly convex."
                )
            positive_share = float(np.sum(np.maximum(values, 0.0)) / np.sum(np.abs(values)))
            if positive_share < _VANISHING_POSITIVE_SHARE:
                warnings.warn(
                    "The positive part K₊ of the positive decomposition K = K₊ − K₋ vanishes: the training "
                    f"kernel's largest eigenvalue is {largest:.3g} and its positive share Σμ⁺/Σ|μ| is "
                    f"{positive_share:.3g}, so K₊ is only the shift τI and objective (6) decreases without "
                    "bound along every eigendirection; the fit is wherever max_outer_iter iterations stop. "
                    "Check the kernel's sign (a dissimilarity passed as a similarity?).",
                    UserWarning,
                    stacklevel=2,
                )
            self.alpha_ = penalty(
                self.alpha, AUTO_ALPHA_TIMES_N / Y.shape[0], kernel_scale(values, Y.shape[0])
            )
            unit = power_of_two_unit(np.max(np.abs(values), initial=0.0), *SAFE_RANGE)  # 1 inside 2^±100
            lam, tau = (
                self._in_kernel_units(name, value, unit)
                for name, value in (("alpha", self.alpha_), ("tau", self.tau_))
            )
            inner = "sgd" if self.solver == "ccicp-sgd" else "gd"
            if inner == "sgd" and self.n_components is None:  # SGD gathers rows of V: store them contiguous
                spectrum.vectors = np.ascontiguousarray(spectrum.vectors)
            learning_rate = self.learning_rate
            if learning_rate is None:
                learning_rate = DEFAULT_LEARNING_RATE[self.step]
            eigen_coef, intercepts, histories, n_iter, n_inner = [], [], [], [], []
            for task in range(Y.shape[1]):
                projection = None if projections is None else projections[:, task]
                problem = _LogisticDC(spectrum, Y[:, task], lam, tau, projection, unit, self.fit_intercept)
                start = np.zeros(values.size)  # u Vᵀα⁽⁰⁾, one pass over the data unless α⁽⁰⁾ = 0
                if self.init != "zeros":
                    start = (
                        unit * spectrum.reduce_rows(start, _rows_of, self._initial_alpha(Y.shape[0], rng))[1]
                    )
                if self.fit_intercept:
                    start = np.append(start, 0.0)
                result = concave_convex_procedure(
                    problem,
                    start,
                    inner=inner,
                    step=self.step,
                    inexact_tol=self._inexact_tol(),
                    max_outer_iter=self.max_outer_iter,
                    max_inner_iter=self.max_inner_iter,
                    tol=self.tol,
                    learning_rate=learning_rate,
                    decay=self.decay,
                    batch_size=self.batch_size,
                    random_state=rng,
                    callback=self._progress_printer(task, problem),
                )
                coef, intercept = problem.split(result.x)
                eigen_coef.append(coef)
                intercepts.append(intercept)
                histories.append(result.history)
                n_iter.append(result.n_iter)
                n_inner.append(result.n_inner_iter)
            self._warn_above_zero_model(histories)
            self._eigen_coef = np.column_stack(eigen_coef) / unit
            self.dual_coef_ = spectrum.dual_coef(self._eigen_coef).T
            self.intercept_ = spectrum.offset(self.dual_coef_.T) + np.asarray(intercepts)
            self.objective_history_ = histories
            self.n_iter_ = np.asarray(n_iter)
            self.n_inner_iter_ = np.asarray(n_inner)
            return self

    @staticmethod
    def _in_kernel_units(name, value, unit):
        """``value / unit`` (the penalty or shift of the problem posed on ``K/u``, see :class:`_LogisticDC`),
        with a clear error where that leaves double precision."""
        with np.errstate(over="ignore"):
            scaled = value / unit
        if not np.isfinite(scaled):
            raise ValueError(
                f"{name}={value:g} is beyond double precision in units of the kernel's magnitude {unit:.3g}; "
                f"rescale the kernel or use a smaller {name}."
            )
        return scaled

    def _warn_above_zero_model(self, histories):
        """Warn when a task's fit ends above ``F(0) = ln 2``, the objective (6) of the zero model."""
        above = {
            task: history[-1] for task, history in enumerate(histories) if history[-1] > _ZERO_MODEL_OBJECTIVE
        }
        if not above:
            return
        ends = ", ".join(f"task {task}: {value:.4g}" for task, value in above.items())
        warnings.warn(
            f"The fit ends above the objective (6) of the zero model, F(0) = ln 2 ≈ 0.693 ({ends}), after "
            f"{self.max_outer_iter} outer iterations from init={self.init!r}: its predictions are worse "
            "than the start it should have left (a start whose outputs Kα⁽⁰⁾ saturate every margin moves "
            "slowly). Start at zero (init='zeros'), use step='paper', or raise max_outer_iter.",
            UserWarning,
            stacklevel=3,
        )

    def _progress_printer(self, task, problem):
        if not self.verbose:
            return None

        def report(k, c):
            print(f"[IKLR] task {task} iteration {k + 1}: objective {problem.objective(c):.10g}")

        return report

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """``f(x) = K(x, P) β + b`` per task (``P`` training points or landmarks; ``b`` the intercept and
        the centring's offset): shape (n_samples,) for binary problems; lazy for a dask ``X``."""
        scores = self._evaluate(X)
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict(self, X: ArrayLike) -> NDArray:
        """Class labels: the sign of ``f`` (binary) or the largest one-vs-rest score."""
        return self._labels(self.decision_function(X))

    def predict_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """Class probabilities ``p = σ(f(x))`` (end of Sec. IV-A); one-vs-rest scores normalized."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            positive = expit(scores)
            return np.column_stack([1.0 - positive, positive])
        probabilities = expit(scores)
        return probabilities / probabilities.sum(axis=1, keepdims=True)

    def predict_log_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """Logarithm of :meth:`predict_proba`."""
        return np.log(self.predict_proba(X))

    def objective_gradient_norm(self, X: ArrayLike, y: ArrayLike) -> NDArray[np.float64]:
        """Norm of the gradient of objective (6) at the fitted ``(α, b)`` for each task, on the training
        data.

        ``X`` and ``y`` must be the training data the model was fitted on. In the representation's
        coordinates ``Ũ`` (exact or Nyström): ``‖K̃(λα − (y ⊙ β)/n)‖ = ‖Λ(λc − Ũᵀ(y ⊙ β)/n)‖`` (for the
        exact model ``K̃ = K`` up to its numerically zero eigenvalues), and with ``fit_intercept`` the
        intercept's component ``−Σ(y ⊙ β)/n`` besides.
        """
        check_is_fitted(self)
        _, Y = one_vs_rest_targets(np.asarray(y))
        representation = self.representation_
        vectors = representation.coordinates(self._validate_test(X), working_memory=self.working_memory)
        scores = self.decision_function(X).reshape(Y.shape[0], -1)
        norms = []
        for task in range(Y.shape[1]):
            weights = Y[:, task] * expit(-Y[:, task] * scores[:, task])
            step = self.alpha_ * self._eigen_coef[:, task] - vectors.T @ weights / Y.shape[0]
            intercept = np.sum(weights) / Y.shape[0] if self.fit_intercept else 0.0
            norms.append(np.hypot(np.linalg.norm(representation.values * step), intercept))
        return np.asarray(norms)

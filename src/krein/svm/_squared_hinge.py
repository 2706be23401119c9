"""The Kreĭn squared-hinge support vector machine (KREĬN SH-SVM; Oglic & Gärtner 2019, Sec. 2.5).

With a spectral representation ``K ≈ Ũ Λ Ũᵀ`` (exact, or the Nyström one-shot eigendecomposition of
Sec. 2.2) a hypothesis on the training points is ``f = Φ z`` with ``Φ = Ũ |Λ|^{1/2} sign(Λ)``, and
the Kreĭn-space regularizer ``λ₊‖f₊‖² + λ₋‖f₋‖²`` becomes ``λ₊‖z₊‖² + λ₋‖z₋‖²`` (``z±`` the
coordinates with positive/negative eigenvalues). The primal problem

    min_{z, b}  Σᵢ max(0, 1 − yᵢ(Φᵢ z + b))² + n λ₊ ‖z₊‖² + n λ₋ ‖z₋‖²

is strictly convex in ``z`` and piecewise quadratic; :func:`krein.optimize.squared_hinge_newton`
solves it by the modified finite Newton method of Keerthi & DeCoste (2005): on the active set
``I = {i : yᵢ f(xᵢ) < 1}`` solve the regularized least squares problem
``(Φ̂_Iᵀ Φ̂_I + n R) w̄ = Φ̂_Iᵀ y_I`` (``Φ̂ = [Φ, 1]``, ``R = diag(λ±, 0)``), then take the exact line
search along ``w̄ − w``. It terminates finitely, at the global minimum, when the active set no longer
changes.

On a Nyström representation, ``nystroem_split="landmarks"`` is the paper's own Sec. 2.5 formulation:
features ``Φ = K_XZ U_Z |D|^{-1/2} S`` and the penalty ``nλ₊‖z₊‖² + nλ₋‖z₋‖²`` split by the signs ``S``
of the eigenvalues of ``K_ZZ``. With ``z = C u`` (``u`` the coordinates of the training predictions in
``Ũ``; :attr:`~krein.representation.NystroemRepresentation.landmark_coordinates`) the penalty is
``uᵀ Q u``, ``Q = Cᵀ diag(λ_{Sⱼ}) C = V diag(ω) Vᵀ``, and the same Newton method runs on the features
``Ũ V ω^{-1/2}`` with unit penalties.

**Tuning** (Sec. 2.5: "follow the procedure described in Chapelle et al. (2002) and use implicit
derivation"): the estimator implements the protocol of
:class:`krein.model_selection.HypergradientSearchCV` for ``log λ₊, log λ₋`` (kernel hyperparameters
are held fixed). The validation loss is the mean squared error of the decision values against the
±1 targets (as for the least-squares models); its gradient differentiates the normal equations of
the Newton solution's active set, ``∂ŵ/∂θ = −n A⁻¹ (∂R/∂θ) ŵ``
(:func:`krein.optimize.squared_hinge_validation_gradient`), with the representation of each inner
training fold computed once. The loss is piecewise smooth in λ±: the gradient is exact between the
values where a training point crosses the margin, and one-sided there.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping
from functools import partial
from typing import Any, Literal, NamedTuple, Self

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from .._base import LAMBDA_BOUNDS, fit_path_clones, one_vs_rest_targets
from .._parameters import store_parameters
from .._penalties import PENALTY_CONSTRAINT, kernel_scale, penalty, start_value
from .._threads import blas_for_data
from .._typing import FloatOrAuto, LandmarkMethod, LandmarkRank, RandomStateLike
from ..kernels import Kernel
from ..optimize import squared_hinge_newton, squared_hinge_validation_gradient, streamed_squared_hinge_newton
from ..representation import SPECTRAL_PARAMETERS, SpectralEstimatorMixin, is_dask_array

__all__ = ["KreinSquaredHingeSVC"]

#: λ₊ = λ₋ = DEFAULT_LAMBDA · s for ``"auto"`` (s = Σ|σᵢ|/n; :mod:`krein._penalties`).
DEFAULT_LAMBDA = 1e-3


def _signs(lambdas, signs):
    """``(λ₊, signs > 0)`` and ``(λ₋, signs < 0)``."""
    return (lambdas[0], signs > 0), (lambdas[1], signs < 0)


class _Problem(NamedTuple):
    """The squared-hinge problem in the coordinates of the features ``Φ = Ũ T`` (``T = to_eigen``)."""

    to_eigen: np.ndarray  # T: a diagonal (vector), or an r×r matrix with landmark_split
    penalties: np.ndarray  # ρ (r,)
    derivatives: list  # ∂ diag(ρ) / ∂ log λ₊ and / ∂ log λ₋: vectors, or r×r matrices
    landmark_split: bool

    def features(self, coordinates):
        """``Φ = Ũ T`` of eigen-coordinates ``Ũ`` (training rows or out-of-sample ones)."""
        return coordinates @ self.to_eigen if self.landmark_split else coordinates * self.to_eigen


class KreinSquaredHingeSVC(SpectralEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Kreĭn squared-hinge SVM (KREĬN SH-SVM), exact or low-rank (Oglic & Gärtner 2019, Sec. 2.5).

    Parameters
    ----------
    kernel : Kernel, str or "precomputed", default="gaussian"
    lambda_plus, lambda_minus : float or "auto", default="auto"
        Regularization of the positive and negative decomposition components ``λ₊``, ``λ₋``.
        ``"auto"``: 1e-3 · s with the kernel's scale ``s = Σ|σᵢ|/n`` (the mean absolute eigenvalue of
        the training kernel), so that the model does not change when the kernel is multiplied by a
        constant; a number is used as it is. A hyperparameter search started from the estimator's own
        values starts "auto" at 1e-3.
    center : bool, default=False
        Fit on the centred kernel ``HKH`` (``H K̃ H`` with ``n_components``); test rows are centred
        consistently, the correction folded into ``intercept_``. False is the paper's model.
    n_components : int, default=None
        Number of Nyström landmarks m; None uses the exact eigendecomposition of the training kernel.
        More than the training points warns and uses every point as a landmark.
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
        Passes over the data: one fitting pass (the Gram matrix of the landmark columns, their sums
        and the moments of the ±1 targets), then per Newton iteration one pass for the outputs along
        the step (the n × r eigenvectors are not held: at n = 2·10⁵, r = 500 they would take 800 MB)
        and the landmark rows of the points that enter or leave the active set;
        ``benchmarks/bench_floor.py`` counts them.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    representation_ : SpectralRepresentation
    landmark_indices_ : ndarray of shape (m,) or None
    dual_coef_ : ndarray of shape (n_tasks, n_points)
        ``β`` with ``f(x) = K(x, P) β + b`` (``P`` the training points, or the landmarks).
    coef_ : ndarray of shape (r, n_tasks)
        ``z`` in the features ``Φ`` (``Ũ |Λ|^{1/2} sign(Λ)``, or ``K_XZ U_Z |D|^{-1/2} S`` with
        ``nystroem_split="landmarks"``; then of shape (r₀, n_tasks)).
    intercept_ : ndarray of shape (n_tasks,)
    n_iter_ : ndarray of shape (n_tasks,)

    See Also
    --------
    krein.least_squares.KreinRidgeClassifier : Kreĭn least squares classification.
    IndefiniteSVC : The proxy-kernel SVM.
    krein.model_selection.HypergradientSearchCV : Tunes λ₊, λ₋ and the kernel by hypergradients.

    Examples
    --------
    >>> from krein.svm import KreinSquaredHingeSVC
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 3))
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> model = KreinSquaredHingeSVC(kernel="sigmoid").fit(X[:60], y[:60])
    >>> print(round(model.score(X[60:], y[60:]), 2))  # accuracy on the held-out points
    0.75
    """

    _parameter_constraints = {
        **SPECTRAL_PARAMETERS,
        "lambda_plus": PENALTY_CONSTRAINT,
        "lambda_minus": PENALTY_CONSTRAINT,
        "nystroem_split": [StrOptions({"approximation", "landmarks"})],
        "rank": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "fit_intercept": ["boolean"],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        kernel: Kernel | str = "gaussian",
        *,
        lambda_plus: FloatOrAuto = "auto",
        lambda_minus: FloatOrAuto = "auto",
        center: bool = False,
        n_components: int | None = None,
        landmarks: LandmarkMethod = "uniform",
        nystroem_split: Literal["approximation", "landmarks"] = "approximation",
        landmark_rank: LandmarkRank = "full",
        rank: int | None = None,
        fit_intercept: bool = True,
        tol: float = 1e-10,
        max_iter: int = 100,
        random_state: RandomStateLike = None,
        working_memory: float | None = None,
    ) -> None:
        store_parameters(self, locals())

    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Fit one squared-hinge problem per one-vs-rest task.

        Parameters
        ----------
        X : array-like of shape (n, d), or (n, n) if precomputed
        y : array-like of shape (n,)
        """
        with blas_for_data(X):  # one BLAS thread for a small problem (krein._threads)
            self._validate_params()
            self._fit_prepared(self._prepare(X, y), None)
            return self

    def fit_path(self, X: ArrayLike, y: ArrayLike, params: Iterable[Mapping[str, Any]]) -> list[Self]:
        """Fit one model per setting of ``lambda_plus`` and ``lambda_minus``, sharing one spectral
        representation of the kernel and warm starts.

        The representation (the eigendecomposition, or the Nyström one) is computed once; with the
        exact or ``nystroem_split="approximation"`` features (which λ± do not change) each setting's
        Newton iterations start from the previous setting's solution, in the order given.

        Parameters
        ----------
        X, y : as in :meth:`fit`
        params : iterable of dict
            Settings of ``lambda_plus`` and/or ``lambda_minus``, e.g. a
            :class:`sklearn.model_selection.ParameterGrid`.

        Returns
        -------
        list of fitted estimators
            Clones of this estimator with the settings applied, in the order of ``params``; the
            estimator itself is left as it was (fitted or not).
        """
        with blas_for_data(X):  # one BLAS thread for a small problem (krein._threads)
            return fit_path_clones(
                self,
                params,
                {"lambda_plus", "lambda_minus"},
                lambda base: base._prepare(X, y),
                lambda model, prepared, previous: model._fit_prepared(prepared, previous),
            )

    def _prepare(self, X, y):
        """The spectral representation and the ±1 targets of the one-vs-rest tasks (λ± do not change
        them)."""
        data, y = self._training_data(X, y)
        classes, Y = one_vs_rest_targets(y.compute() if is_dask_array(y) else y)
        # the targets' moments Σ yᵢ kᵢ come with the Gram matrix from the one fitting pass (the streamed
        # Newton iterations read them from the representation instead of making a pass of their own)
        representation = self._fit_representation(
            data, targets=Y.astype(np.float64), producer={"rank": self.rank}
        )
        self.classes_ = classes
        return representation, Y

    def _fit_prepared(self, prepared, previous):
        """Solve the tasks on a prepared representation, from ``previous`` (the ``(coef, intercepts)``
        of nearby penalties on the same features, or None), and set the fitted attributes; returns
        this solution for the next warm start."""
        representation, Y = prepared
        problem = self._problem(representation, Y.shape[0])
        streams = getattr(representation, "streams", False)  # Ũ is never formed: streamed Newton
        features = None if streams else problem.features(representation.vectors)
        start = None if streams or problem.landmark_split else previous  # λ± change those features
        coef, intercepts, self.n_iter_ = self._solve(representation, problem, features, Y, start)
        u = problem.to_eigen @ coef if problem.landmark_split else problem.to_eigen[:, None] * coef
        self.coef_ = representation.landmark_coordinates @ u if problem.landmark_split else coef
        self.dual_coef_ = representation.dual_coef(u / representation.values[:, None]).T
        self.intercept_ = intercepts + representation.offset(self.dual_coef_.T)
        return coef, intercepts

    def _penalties(self, representation, n_samples):
        """λ₊, λ₋ of the fit: the numbers given, or ``"auto"``: :data:`DEFAULT_LAMBDA` · s."""
        scale = kernel_scale(representation.values, n_samples)
        return tuple(penalty(value, DEFAULT_LAMBDA, scale) for value in (self.lambda_plus, self.lambda_minus))

    def _problem(self, representation, n_samples):
        """The problem :func:`~krein.optimize.squared_hinge_newton` solves on ``representation``.

        The features are ``Φ = Ũ T`` with ``T = to_eigen`` (a diagonal as a vector, or a matrix), the
        penalties ``ρ`` and their derivatives with respect to ``log λ₊, log λ₋`` in the same
        coordinates (vectors for diagonal penalties, matrices otherwise).
        """
        values = representation.values
        lambdas = self._penalties(representation, n_samples)
        landmark_split = self.n_components is not None and self.nystroem_split == "landmarks"
        if landmark_split:  # features Ũ V ω^{-1/2} with unit penalties (module docstring)
            C = representation.landmark_coordinates
            signature = representation.landmark_signature
            Q = C.T @ (np.where(signature > 0, *lambdas)[:, None] * C)
            omega, V = scipy.linalg.eigh(0.5 * (Q + Q.T), driver="evd", check_finite=False)
            to_eigen = V / np.sqrt(omega)  # u = to_eigen @ coef
            B = C @ to_eigen  # z = B coef: the penalty is Σⱼ λ_{Sⱼ} zⱼ² = ‖coef‖²
            derivatives = [lam * B[mask].T @ B[mask] for lam, mask in _signs(lambdas, signature)]
            return _Problem(to_eigen, np.ones(values.size), derivatives, True)
        to_eigen = np.sqrt(np.abs(values)) * np.sign(values)  # diagonal
        derivatives = [lam * mask for lam, mask in _signs(lambdas, values)]
        penalties = np.where(values > 0, *lambdas)
        return _Problem(to_eigen, penalties, derivatives, False)

    def _solve(self, representation, problem, features, Y, start=None):
        """``(coef, intercepts, n_iter)`` of the one-vs-rest tasks, columns of the ±1 targets ``Y``,
        on the training ``features`` (None: streamed from ``representation``), each task's Newton
        iterations starting from its column of ``start = (coef, intercepts)`` (None: from 0)."""
        streams = features is None
        coef = np.empty((problem.penalties.size, Y.shape[1]))
        intercepts = np.empty(Y.shape[1])
        n_iter = np.empty(Y.shape[1], dtype=int)
        solver = squared_hinge_newton
        if streams:
            T = problem.to_eigen if problem.landmark_split else np.diag(problem.to_eigen)
            solver = partial(streamed_squared_hinge_newton, representation, T)
        for task in range(Y.shape[1]):
            warm = {} if start is None else {"start": (start[0][:, task], start[1][task])}
            result = solver(
                *(() if streams else (features,)),
                Y[:, task],
                problem.penalties,
                fit_intercept=self.fit_intercept,
                tol=self.tol,
                max_iter=self.max_iter,
                **warm,
            )
            coef[:, task], intercepts[task], n_iter[task] = result.x, result.intercept, result.n_iter
        return coef, intercepts, n_iter

    # The protocol of krein.model_selection.HypergradientSearchCV (Chapelle et al. 2002).

    def _hyperparameter_vector(self):
        """Log-space vector ``(log λ₊, log λ₋)`` and its bounds (the kernel is not tuned)."""
        start = [start_value(value, DEFAULT_LAMBDA) for value in (self.lambda_plus, self.lambda_minus)]
        theta = np.log(start)
        return theta, np.log(np.array([LAMBDA_BOUNDS, LAMBDA_BOUNDS], dtype=float))

    def _params_from_vector(self, theta):
        """``set_params`` arguments for a vector laid out as :meth:`_hyperparameter_vector`."""
        return {"lambda_plus": float(np.exp(theta[0])), "lambda_minus": float(np.exp(theta[1]))}

    def _target_unit_hyperparameters(self):
        """None: a classifier's hyperparameters do not depend on the units of targets."""
        return ()

    def _initial_params(self, X, y, random_state=None):
        """Random initial ``λ± = S[u]/n``, ``S = logspace(−1, 2, 5)`` (Oglic & Gärtner 2018, App. E.1)."""
        rng = check_random_state(random_state)
        grid = np.logspace(-1, 2, 5) / len(y)
        return {"lambda_plus": float(grid[rng.randint(5)]), "lambda_minus": float(grid[rng.randint(5)])}

    def _validation_loss_and_gradient(self, X_train, y_train, X_val, y_val, cache=None):
        """Validation mean squared error of the decision values against the ±1 targets, and its
        gradient with respect to ``(log λ₊, log λ₋)``.

        The model is the one :meth:`fit` builds on the training part; the gradient is the implicit
        derivative of its Newton solution on the active set (Chapelle et al. 2002; Keerthi & DeCoste
        2005; :func:`krein.optimize.squared_hinge_validation_gradient`), exact wherever no training
        point sits on the margin ``yᵢ f(xᵢ) = 1``. The mean is over the validation points and the
        one-vs-rest tasks, as in the least-squares models. ``cache`` (a dict kept by the caller for
        this fold) holds the spectral representation of the training part (exact or Nyström, which
        λ± do not change) and the eigen-coordinates of the validation points. For
        ``kernel="precomputed"``, ``X_train`` is the training block and ``X_val`` the
        validation-versus-training block of the kernel matrix.
        """
        self._validate_params()
        if self.working_memory is not None:
            raise NotImplementedError("Hypergradients need the in-memory model (working_memory=None).")
        cache = {} if cache is None else cache
        if "representation" not in cache:
            data, y_fit = self._training_data(X_train, y_train)
            representation = self._fit_representation(data, producer={"rank": self.rank})
            classes, Y = one_vs_rest_targets(y_fit)
            positives = classes[1:] if classes.size == 2 else classes
            Y_val = np.where(np.asarray(y_val)[:, None] == positives[None, :], 1.0, -1.0)
            coordinates_val = representation.coordinates(self._validate_test(X_val))
            cache.update(representation=representation, Y=Y, Y_val=Y_val, coordinates_val=coordinates_val)
        representation, Y, Y_val = cache["representation"], cache["Y"], cache["Y_val"]
        problem = self._problem(representation, Y.shape[0])
        features = problem.features(representation.vectors)
        features_val = problem.features(cache["coordinates_val"])
        coef, intercepts, _ = self._solve(representation, problem, features, Y)
        loss, gradient = 0.0, np.zeros(2)
        for task in range(Y.shape[1]):
            task_loss, task_gradient = squared_hinge_validation_gradient(
                features,
                Y[:, task],
                coef[:, task],
                intercepts[task],
                problem.penalties,
                problem.derivatives,
                features_val,
                Y_val[:, task],
                fit_intercept=self.fit_intercept,
            )
            loss += task_loss
            gradient += task_gradient
        return loss / Y.shape[1], gradient / Y.shape[1]

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """``f(x) = K(x, P) β + b``; one column per task (a vector for binary problems)."""
        scores = self._evaluate(X)
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict(self, X: ArrayLike) -> NDArray:
        """Class labels (one-vs-rest)."""
        return self._labels(self.decision_function(X))

"""Support vector machines with indefinite kernels through a learned proxy kernel.

Luss & d'Aspremont (2009): :class:`IndefiniteSVC` (problem (4)/(7); PerturbSVM (22) when the kernel is
positive semidefinite; componentwise penalties of Theorem 3 through ``penalty_weights``),
:class:`IndefiniteSVR` (Sec. 4.1, problem (15)/(17)) and :class:`IndefiniteOneClassSVM` (Sec. 4.2,
problem (19)/(20)). The mathematics and the solvers live in :mod:`krein.svm._proxy`.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from numbers import Integral, Real
from typing import Any, Literal, Self

import numpy as np
from joblib import Parallel, delayed
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, OutlierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC, SVR, OneClassSVM
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._base import fit_path_clones, one_vs_rest_targets
from .._parameters import store_parameters
from .._scaling import target_statistics
from .._threads import blas_for_data, parallel_loop
from .._typing import FloatOrAuto, LandmarkMethod, LandmarkRank, RandomStateLike
from .._validation import class_sample_weight
from ..kernels import Kernel
from ..representation import (
    LOW_RANK_PARAMETERS_DOC,
    UNCENTRED_SPECTRAL_PARAMETERS,
    SpectralEstimatorMixin,
    is_dask_array,
)
from ._proxy import KernelSpectrum, ProxyKernelProblem, default_cost, solve_proxy_problem

__all__ = ["IndefiniteOneClassSVM", "IndefiniteSVC", "IndefiniteSVR"]

#: ``epsilon="auto"`` of :class:`IndefiniteSVR`: this multiple of the targets' standard deviation.
AUTO_EPSILON = 0.1

_COMMON_CONSTRAINTS = {
    **UNCENTRED_SPECTRAL_PARAMETERS,
    "rho": [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither")],
    "solver": [StrOptions({"projected_gradient", "accpm", "exchange"})],
    "max_iter": [Interval(Integral, 1, None, closed="left")],
    "tol": [Interval(Real, 0, None, closed="neither")],
    "learning_rate": [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither")],
    "smoothing": [Interval(Real, 0, None, closed="left")],
    "verbose": ["verbose"],
}
_COST_CONSTRAINT = [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither")]


class _ProxyKernelEstimator(SpectralEstimatorMixin, BaseEstimator):
    """Shared fitting loop: one proxy-kernel problem per task, one eigendecomposition for all (or one
    Nyström representation, with ``n_components``: the low-rank problem of :mod:`krein.svm._proxy`)."""

    # No limit on the kernel's magnitude: the fit works in units of the kernel scale (``_units``), so
    # libsvm (the ρ → ∞ start) and the proxy problem see a kernel of unit scale.

    def _validate_params(self):
        super()._validate_params()
        if self.smoothing > 0 and self.solver == "exchange":
            raise ValueError(
                f"smoothing={self.smoothing} does not apply to solver='exchange': the exchange method "
                "(Sec. 3.4) solves (8) by quadratically constrained LPs on cutting kernels and uses no "
                "gradient of (7) to smooth. Use smoothing=0, or solver='projected_gradient' or 'accpm'."
            )
        if self.n_components is not None and self.solver == "exchange":
            raise ValueError(
                "solver='exchange' needs the exact model (n_components=None): its cutting kernels are "
                "n×n matrices. Use solver='projected_gradient' or 'accpm' at low rank."
            )

    def _spectrum(self, data, penalty_weights=None):
        """The :class:`~krein.svm._proxy.KernelSpectrum` of the problem, with ``representation_`` fitted
        through the mixin: the training kernel's own eigendecomposition (exact), or the Nyström
        representation of the low-rank problem (``n_components``)."""
        if self.n_components is None:
            spectrum = KernelSpectrum(data, penalty_weights, normalize=True, **self._representation_parts())
            self._fit_representation(data, exact=spectrum.representation)
            return spectrum
        if penalty_weights is not None:
            raise ValueError(
                "penalty_weights need the exact model (n_components=None): the low-rank problem penalizes "
                "‖M − Λ‖ in the span of the Nyström features, where per-sample weights have no meaning."
            )
        return KernelSpectrum.low_rank(self._fit_representation(data))

    def fit_path(self, X: ArrayLike, y: ArrayLike, params: Iterable[Mapping[str, Any]]) -> list[Self]:
        """Fit one model per setting of the path parameters, sharing one eigendecomposition and warm
        starts.

        The kernel's eigendecomposition (the one O(n³) step) is computed once; each setting is
        then solved from the previous setting's solution projected on its feasible set (in the
        order given: e.g. increasing ``C`` or ``rho``, a continuation), or from the ρ → ∞ solution
        where that has the larger objective (see ``learning_rate``), which usually leaves a few
        iterations per setting.

        Parameters
        ----------
        X, y : as in :meth:`fit`
        params : iterable of dict
            Settings of the parameters that leave the kernel matrix unchanged (``C``, ``rho`` and
            the estimator's own: ``epsilon`` for SVR, ``nu`` for the one-class SVM), e.g. a
            :class:`sklearn.model_selection.ParameterGrid`.

        Returns
        -------
        list of fitted estimators
            Clones of this estimator with the settings applied, in the order of ``params``; the
            estimator itself is left unchanged.
        """
        with blas_for_data(X):  # one BLAS thread for a small problem (krein._threads)
            return fit_path_clones(
                self,
                params,
                self._path_parameters,
                lambda base: base._prepare(X, y),
                lambda model, prepared, starts: model._fit_prepared(prepared, starts),
            )

    def _dual_unit(self, spectrum):
        """``t``: the dual variables of the normalized problem are ``β̂ = tβ`` (:meth:`_units`)."""
        return spectrum.unit

    def _units(self, spectrum):
        """``(κ, t)``: the problem is solved on ``K̂₀ = K₀/κ`` (``spectrum`` is normalized) for ``β̂ = tβ``.

        Substituting ``K = κK̂``, ``β = β̂/t`` in ``pᵀβ − ½zᵀKz + ρ‖K − K₀‖²`` (feasible set
        ``sᵀβ = r, 0 ≤ β ≤ u``) gives ``(κ/t²)`` times the same problem in ``β̂`` with ``p̂ = (t/κ)p``,
        ``û = tu``, ``r̂ = tr`` and ``ρ̂ = ρκt²``. SVC takes ``t = κ`` (``p̂ = p``, ``Ĉ = Cκ``: 1 for
        ``C="auto"``), SVR ``t = κ/s`` with ``s`` the targets' standard deviation (``p̂ = p/s``: targets
        and ε in units of s; ``Ĉ = Cκ/s``), the one-class SVM ``t = 1`` (``p = 0``, ``eᵀα = 1``). Back in
        the units of the kernel (and targets): the decision function's coefficients are ``ĉ/t``, its
        intercept ``(κ/t)ν̂``, the proxy kernel ``κK̂*``, the objective ``(κ/t²)f̂`` and ρ ``ρ̂/(κt²)``;
        the predictions are those of the kernel of unit scale (and targets of unit spread), at any κ
        (and s) that double precision holds.
        """
        return spectrum.unit, self._dual_unit(spectrum)

    def _in_units(self, spectrum, name, value):
        """A user's ``C`` (``Ct``) or ``rho`` (``ρκt²``) in the normalized problem (:meth:`_units`), with a
        clear error where that leaves double precision."""
        kappa, t = self._units(spectrum)
        with np.errstate(over="ignore", under="ignore"):
            converted = (
                float(np.float64(value) * t) if name == "C" else float(np.float64(value) * kappa * t * t)
            )
        if not (np.isfinite(converted) and converted > 0):
            raise ValueError(
                f"{name}={value} is {converted:.3g} in the units the problem is solved in (the kernel scale "
                f"κ = mean|λ(K)| = {kappa:.3g}; dual variables times {t:.3g}), beyond double precision; "
                f"rescale the kernel (or the targets) or use {name}='auto'."
            )
        return converted

    def _cost(self, spectrum):
        """The ``C`` in force in the normalized problem (:meth:`_units`): ``1`` for ``"auto"``
        (:func:`~krein.svm._proxy.default_cost`; ``1/t`` in the user's units: ``1/κ`` for SVC, ``s/κ``
        for SVR), ``Ct`` otherwise."""
        if self.C == "auto":
            return default_cost(spectrum)
        return self._in_units(spectrum, "C", float(self.C))

    def _rho(self, spectrum):
        """The ρ of the normalized problem: ``"auto"`` (:func:`~krein.svm._proxy.default_rho` on it)
        or ``ρκt²`` (:meth:`_units`)."""
        return "auto" if self.rho == "auto" else self._in_units(spectrum, "rho", float(self.rho))

    def _fit_prepared(self, prepared, starts):
        """Solve every task of ``prepared`` (warm-started from ``starts``); store; return the solutions.

        The one-vs-rest tasks share ``prepared``'s spectrum (one eigendecomposition of K₀) and run on
        ``n_jobs`` threads (the rank-one updates and matrix products release the GIL).
        """
        spectrum, tasks = prepared
        problems = [self._problem(spectrum, task) for task in tasks]
        n_jobs = 1 if len(tasks) == 1 else self.n_jobs  # several tasks: IndefiniteSVC only
        with parallel_loop(n_jobs):
            results = Parallel(n_jobs=n_jobs, prefer="threads")(
                delayed(self._solve)(problem, None if starts is None else starts[i])
                for i, problem in enumerate(problems)
            )
        for result in results:  # warned here: a worker thread's warning would not point at the caller
            if result["warning"] is not None:
                warnings.warn(result["warning"], ConvergenceWarning, stacklevel=3)
        if "C" in self._path_parameters:
            self.C_ = float(self.C) if self.C != "auto" else self._cost(spectrum) / self._dual_unit(spectrum)
        self._store(problems, results, single=len(tasks) == 1)
        return [r["solution"].beta for r in results]

    def _solve(self, problem, start):
        # In the normalized problem (:meth:`_units`) the paper's step (η/k)∇f is (κη/k)∇f̂ for β̂, and
        # the smoothing ε of the eigenvalues of K₀ + zzᵀ/4ρ (which are κ times those of K̂₀ + ẑẑᵀ/4ρ̂)
        # is ε/κ; the price of smoothing f_ε − f is (κ/t²) times that of f̂.
        kappa, t = self._units(problem.spectrum)
        learning_rate = self.learning_rate
        if learning_rate != "auto":
            learning_rate = float(learning_rate) * kappa
        with np.errstate(over="ignore"):
            smoothing = float(np.float64(self.smoothing) / kappa)
        if not np.isfinite(smoothing):
            raise ValueError(
                f"smoothing={self.smoothing} is beyond double precision in units of the kernel scale "
                f"κ = {kappa:.3g}; rescale the kernel or use a smaller smoothing."
            )

        def solve(start, max_iter=self.max_iter):
            return solve_proxy_problem(
                problem,
                solver=self.solver,
                max_iter=max_iter,
                tol=self.tol,
                learning_rate=learning_rate,
                smoothing=smoothing,
                start=start,
                verbose=self.verbose,
            )

        # From the ρ → ∞ solution with a tenth of max_iter where the proxy kernel stays within κ of
        # (K̃₀)₊ (and it beats fit_path's warm start), then from the given start (β = 0, the paper's,
        # without one): at a ρ far from "auto" (1e12, where steps from a near-optimal start drown in
        # rounding, or one so small that the limit is far) the second start serves.
        limit = None
        if (
            self.solver == "projected_gradient"
            and self.learning_rate == "auto"
            and problem.spectrum.K is not None  # the start is libsvm's on the n×n kernel: exact only
            and problem.relative_perturbation() <= 1.0
        ):
            limit = problem.project(self._large_rho_start(problem))
            value = problem.evaluate(limit)[0]
            if start is not None and problem.evaluate(problem.project(start))[0] >= value:
                limit = None
        if limit is not None:
            solution = solve(limit, max(self.max_iter // 10, 1))
        if limit is None or not solution.converged:
            spent = 0 if limit is None else solution.n_iter
            solution = solve(start)
            solution.n_iter += spent
        message = None
        if not solution.converged:
            note = ""
            if solution.smoothing_excess > 0:
                note = (
                    f" With smoothing={self.smoothing} the smoothed objective exceeds (7) by "
                    f"{solution.smoothing_excess * (kappa / t) / t:.3g} at the returned point, which bounds "
                    "how close the smoothed maximizer gets to the optimum of (7); a smaller smoothing may be "
                    "needed."
                )
            if solution.n_iter < self.max_iter:
                note += (
                    " The iterates stopped moving at rounding level before max_iter: tol is below what "
                    "double precision certifies on this problem."
                )
            else:
                note += (
                    f" Raise max_iter, or leave rho='auto' (here rho={self._rho_in_force(problem):.3g}): the "
                    "large-rho regime converges in a few iterations."
                )
            message = (
                f"{type(self).__name__} ({self.solver}) stopped after {solution.n_iter} iterations "
                f"(max_iter={self.max_iter}) "
                f"with relative duality gap {solution.gap_history[-1]:.3g} > tol={self.tol}.{note}"
            )
        K_scaled, basis = problem.proxy(solution.beta)
        spectrum = problem.spectrum
        omega = spectrum.omega
        with np.errstate(over="ignore", under="ignore"):  # (κ/t²)f̂: s²/κ for SVR targets of spread s
            objective = solution.value * (kappa / t) / t
        return {
            "solution": solution,
            "dual_coef": spectrum.dual_coef(problem.dual_coef(solution.beta, basis)) / t,
            "intercept": problem.intercept(solution.beta) * (kappa / t),
            "proxy_kernel": None if K_scaled is None else K_scaled * kappa / omega[:, None] / omega[None, :],
            "objective": objective,
            "warning": message,
        }

    def _rho_in_force(self, problem):
        """ρ in the kernel's units: ``ρ̂/(κt²)`` (:meth:`_units`; ``inf`` or 0 where it is beyond double
        precision, as for ``rho="auto"`` on a kernel of scale 1e-150)."""
        if self.rho != "auto":
            return float(self.rho)
        kappa, t = self._units(problem.spectrum)
        with np.errstate(over="ignore", under="ignore"):
            return float(np.float64(problem.rho) / kappa / t / t)

    def _large_rho_start(self, problem):
        """The solution of the ρ → ∞ limit of (7) as a start for projected gradient.

        As ρ → ∞ the proxy kernel tends to ``(K̃₀)₊`` and the problem to the plain SVM dual on the
        clipped kernel ``Ω⁻¹(K̃₀)₊Ω⁻¹`` (Sec. 2.3), which libsvm solves in a fraction of an
        eigendecomposition; at ``rho="auto"`` it is within the gap of the optimum of (7), so a few
        iterations are left (against some 40 from β = 0 on DTW kernels).
        """
        spectrum = problem.spectrum
        if spectrum.psd:
            clipped = spectrum.K
        else:
            positive = spectrum.values > 0
            basis = spectrum.vectors[:, positive]
            clipped = (basis * spectrum.values[positive]) @ basis.T
        inverse = 1.0 / spectrum.omega
        # in units of κ, so that libsvm's absolute tolerance means the same at every kernel scale
        kernel = clipped * (inverse[:, None] / spectrum.scale) * inverse[None, :]
        return self._limit_solution(kernel, problem, spectrum.scale)

    def _store(self, problems, results, single):
        pick = (lambda values: values[0]) if single else np.asarray
        self.rho_ = pick([self._rho_in_force(problem) for problem in problems])
        self.dual_coef_ = np.array([r["dual_coef"] for r in results])
        self.intercept_ = np.array([r["intercept"] for r in results])
        low_rank = results[0]["proxy_kernel"] is None  # the proxy kernel ŨM*Ũᵀ is not formed
        self.proxy_kernel_ = None if low_rank else pick([r["proxy_kernel"] for r in results])
        histories = [r["solution"].gap_history for r in results]
        self.gap_history_ = histories[0] if single else histories
        self.objective_ = pick([r["objective"] for r in results])
        self.n_iter_ = pick([r["solution"].n_iter for r in results])

    def _raw_decision(self, X):
        check_is_fitted(self)
        return self._evaluate(X)


_ATTRIBUTES_DOC = """
    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_tasks, n_points)
        Coefficients ``c`` of the decision function ``f(x) = k(x, P) c + b`` on the points ``P`` of
        ``representation_`` (the training points, or the landmarks with ``n_components``; test rows
        mapped by the heuristic of Sec. 2.3; see :meth:`ProxyKernelProblem.dual_coef`).
    intercept_ : ndarray of shape (n_tasks,)
    proxy_kernel_ : ndarray of shape (n_train, n_train) or (n_tasks, n_train, n_train), or None
        The learned proxy kernel ``K*`` of Theorem 1 (Theorem 3 with penalty weights); None with
        ``n_components`` (the low-rank proxy ``ŨM*Ũᵀ`` is not formed).
    gap_history_ : ndarray (or list of ndarrays, one per task)
        Relative duality gaps ``(upper − f)/max(|f − f₀|, |upper − f₀|, m)`` of the unsmoothed
        problem (7) at each iterate (``f₀ = ρ‖(K₀)₋‖²_F``, the value of ``f`` at α = 0; ``upper`` the
        best certified upper bound ``f(β) + max_{β′}∇f(β)ᵀ(β′ − β)`` so far; ``m`` the size of the
        objective, ``eᵀα`` for SVC, ``½αᵀ|K₀|α`` for the one-class SVM; see :mod:`krein.svm._proxy`);
        ≥ 0.
    objective_ : float or ndarray
        Objective value of (7) at the solution (the unsmoothed one, also with ``smoothing > 0``),
        evaluated without cancellation for any ρ (:mod:`krein.svm._proxy`); ``inf`` or 0 where it is
        beyond double precision (it scales as s²/κ with the spread s of SVR targets).
    n_iter_ : int or ndarray
        Iterations of the solver.
    rho_ : float or ndarray of shape (n_tasks,)
        The ρ in force (``rho`` resolved, see ``rho="auto"``), in the kernel's units. The fit works in
        units of the kernel scale κ (``K₀/κ``, ``ρκ³``; ``ρκ`` for the one-class SVM), so
        ``rho="auto"`` on a kernel of scale 1e∓150 fits as on one of scale 1, while ``rho_`` itself
        (∝ 1/κ³) is then beyond double precision and reads ``inf`` or ``0``.
    C_ : float
        The ``C`` in force (``IndefiniteSVC``, ``IndefiniteSVR``; ``C`` resolved, see ``C="auto"``).
    representation_ : krein.representation.SpectralRepresentation
        The training kernel's exact representation (eigenvalues ascending; deferred to the first read
        when the fit needs no eigendecomposition of it), or its Nyström one with ``n_components``,
        through which test points are evaluated.
    landmark_indices_ : ndarray of shape (m,) or None
        Landmarks of the low-rank problem (None when exact).
    kernel_ : Kernel or "precomputed"
    n_features_in_ : int
"""


class IndefiniteSVC(ClassifierMixin, _ProxyKernelEstimator):
    __doc__ = f"""SVM classification with an indefinite kernel via a proxy kernel (Luss & d'Aspremont 2009).

    Solves problem (4): the SVM dual jointly with a PSD proxy kernel penalized by ``ρ‖K − K₀‖²_F``; the
    optimal proxy is ``K* = (K₀ + (Yα)(Yα)ᵀ/4ρ)₊`` (Theorem 1). As ρ → ∞ this is the SVM on the
    clipped ("denoised") kernel (Sec. 2.3). With a positive semidefinite kernel it is PerturbSVM
    (problem (22), Sec. 4.3). Multiclass problems are solved one-vs-rest, sharing one
    eigendecomposition of the kernel.

    Parameters
    ----------
    kernel : Kernel, str or "precomputed", default="gaussian"
    C : float or "auto", default="auto"
        Misclassification penalty. ``"auto"``: ``C = 1/κ``, ``κ = mean |λᵢ(K₀)|`` the kernel scale
        (``tr K₀/n`` for a PSD kernel: scikit-learn's ``C = 1`` on a kernel with unit diagonal), so
        the model is the same for the kernel multiplied by any ``s > 0`` (the fitted ``C_``). A float
        is absolute, as in scikit-learn (then scaling the kernel by ``s`` calls for ``C/s``).
    rho : float or "auto", default="auto"
        Penalty on ``‖K − K₀‖²_F``. ``"auto"``: ``ρ = Σⱼ(yⱼCⱼ)²/(4·10⁻³·κ)``, which keeps the rank-one
        label term ``(Yα)(Yα)ᵀ/4ρ`` of the proxy kernel below 10⁻³κ for every feasible α (the fitted
        ``rho_``): the large-ρ regime, where the test rows (which lack that term, Sec. 2.3) see the
        trained model; it follows the kernel's scale as ``C`` does. A float is absolute (scaling
        the kernel by ``s`` and ``C`` by ``1/s`` calls for ``ρ/s³``).
    solver : {{"projected_gradient", "accpm", "exchange"}}, default="projected_gradient"
        Algorithm 1 (O(n²) per iteration by rank-one eigen-updates), Algorithm 2 (ACCPM) or
        Algorithm 3 (exchange method of Chen & Ye: a sequence of QCLPs (13) on cutting kernels, each
        solved by an interior-point method, see :func:`krein.optimize.exchange_maximize`; each cut
        made at a level-method projection, which needs far fewer cuts than the paper's plain
        Algorithm 3 at small ρ; ``exchange_maximize(..., stabilization=None)`` is the plain one).
    max_iter : int, default=1000
    tol : float, default=1e-3
        Relative duality-gap tolerance (Sec. 2.4; the gap is certified at every iterate).
    learning_rate : "auto" or float, default="auto"
        Projected-gradient steps (Algorithm 1). ``"auto"``: spectral projected gradient, the
        Barzilai–Borwein step ``t = sᵀs/sᵀ(∇f_k − ∇f_{{k+1}})`` with a nonmonotone line search (each
        trial one O(n²) eigen-update). A float ``t``: the paper's rule (Sec. 3.2),
        ``α_{{k+1}} = P_A(α_k + (t/k) ∇f(α_k))`` with ``k`` the iteration number, from ``α₀ = 0`` and
        without line search; the paper's experiments use ``t = 5`` (IndefiniteSVM) and ``t = 10``
        (PerturbSVM), "chosen separately for each data set". With ``"auto"`` (and no warm start of
        :meth:`fit_path`) the iteration starts from the solution of the ρ → ∞ limit, the SVM on the
        clipped kernel (Sec. 2.3, solved by libsvm), for at most ``max_iter // 10`` iterations, and
        from ``α₀ = 0`` if that does not reach ``tol``; where ρ is so small that the rank-one term can
        exceed the kernel scale κ, from ``α₀ = 0`` at once.
    smoothing : float, default=0.0
        ε ≥ 0 of the Moreau–Yosida smoothing of Sec. 3 ("Smoothing"), applied to the eigenvalue
        clipping: ``max(0, t)`` becomes ``φ_ε(t) = max_{{0≤v≤1}}(vt − εv²/2)`` (0, t²/2ε, t − ε/2 for
        t ≤ 0, 0 ≤ t ≤ ε, t ≥ ε), so projected gradient and ACCPM follow
        ``f_ε(α) = eᵀα + ρ(‖K₀‖²_F − Σ g_ε(λᵢ))``, ``g_ε(λ) = 2∫₀^λ φ_ε``, with gradient
        ``e − Y(Σ φ_ε(λᵢ)vᵢvᵢᵀ)Yα``, where λᵢ, vᵢ are the eigenpairs of ``K₀ + (Yα)(Yα)ᵀ/4ρ`` (ε = 0:
        problem (7) and ``K*``). Then ``f ≤ f_ε ≤ f + ρε Σ max(λᵢ, 0)``. The stopping rule,
        ``gap_history_`` and ``objective_`` stay those of the unsmoothed problem (7), so ε must be
        small enough for the smoothed maximizer to be within ``tol`` of the optimum. ``0`` (default)
        is the unsmoothed method. Not applied to a positive semidefinite kernel (PerturbSVM (22) has
        no ``max{{0, ·}}`` term); with ``solver="exchange"`` (which uses no gradient) any ε > 0 raises a
        ``ValueError``. Each iteration stays O(n²).
    class_weight : dict, "balanced" or None, default=None
        Per-class multipliers of ``C`` (per-sample upper bounds of α).
    verbose : int, default=0
    n_jobs : int or None, default=None
        Threads for the one-vs-rest tasks of a multiclass problem (joblib's convention), which
        share one eigendecomposition of ``K₀``.
    {LOW_RANK_PARAMETERS_DOC}
    {_ATTRIBUTES_DOC}
    See Also
    --------
    IndefiniteSVR : The proxy-kernel SVM for regression.
    IndefiniteOneClassSVM : The proxy-kernel one-class SVM.
    KreinSVC : The SVM on the flip-spectrum kernel.
    KreinSquaredHingeSVC : The Kreĭn squared-hinge SVM.
    sklearn.svm.SVC : The SVM for positive definite kernels.

    Notes
    -----
    With ``n_components=m`` the kernel is the Nyström one-shot eigendecomposition ``K̃₀ = ŨΛŨᵀ`` of
    rank r ≤ m and the proxy kernel is sought in the span of the Nyström features, ``K = ŨMŨᵀ``,
    ``M ⪰ 0``: problem (7) becomes that of the r×r kernel Λ with ``w = ŨᵀYα`` for ``Yα``, whose proxy
    is ``M* = (Λ + wwᵀ/4ρ)₊`` (:mod:`krein.svm._proxy`, "The low-rank problem"). An iteration costs a
    rank-one update of an r×r diagonal and two products with ``Ũ`` (O(nr)); no n×n matrix is formed,
    the duality gap certified at every iterate (``gap_history_``) is that of this low-rank problem, and
    the iteration starts from α = 0 (the ρ → ∞ start needs libsvm on the n×n kernel). ``proxy_kernel_``
    is then None (``ŨM*Ũᵀ`` is not formed); ``penalty_weights`` and ``solver="exchange"`` need the
    exact model.

    Examples
    --------
    >>> from krein.svm import IndefiniteSVC
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 3))
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> model = IndefiniteSVC(kernel="sigmoid").fit(X[:60], y[:60])
    >>> print(round(model.score(X[60:], y[60:]), 2))  # accuracy on the held-out points
    0.9
    >>> model.proxy_kernel_.shape  # the learned positive semidefinite proxy of K
    (60, 60)
    """

    _parameter_constraints = {
        **_COMMON_CONSTRAINTS,
        "C": _COST_CONSTRAINT,
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "n_jobs": [Integral, None],
    }

    def __init__(
        self,
        kernel: Kernel | str = "gaussian",
        *,
        C: FloatOrAuto = "auto",
        rho: FloatOrAuto = "auto",
        solver: Literal["projected_gradient", "accpm", "exchange"] = "projected_gradient",
        max_iter: int = 1000,
        tol: float = 1e-3,
        learning_rate: FloatOrAuto = "auto",
        smoothing: float = 0.0,
        class_weight: dict | Literal["balanced"] | None = None,
        verbose: int = 0,
        n_jobs: int | None = None,
        n_components: int | None = None,
        landmarks: LandmarkMethod = "uniform",
        landmark_rank: LandmarkRank = "full",
        random_state: RandomStateLike = None,
        working_memory: float | None = None,
    ) -> None:
        store_parameters(self, locals())

    _path_parameters = frozenset({"C", "rho"})

    def fit(self, X: ArrayLike, y: ArrayLike, penalty_weights: ArrayLike | None = None) -> Self:
        """Fit on ``X`` (samples, or the n×n kernel if precomputed) and labels ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
        y : array-like of shape (n_samples,)
        penalty_weights : array-like of shape (n_samples,), optional
            Per-sample weights ``h`` of the componentwise penalty ``Σ hᵢhⱼ(Kᵢⱼ − K₀ᵢⱼ)²``
            (Theorem 3).
        """
        with blas_for_data(X):  # one BLAS thread for a small problem (krein._threads)
            self._validate_params()
            self._fit_prepared(self._prepare(X, y, penalty_weights), None)
            return self

    def _prepare(self, X, y, penalty_weights=None):
        data, y = self._training_data(X, y)
        y = y.compute() if is_dask_array(y) else y
        self.classes_, Y = one_vs_rest_targets(y)
        weights = class_sample_weight(self.class_weight, y)
        return self._spectrum(data, penalty_weights), [(labels, weights) for labels in Y.T]

    def _problem(self, spectrum, task):
        labels, weights = task
        n = labels.size
        return ProxyKernelProblem(
            spectrum, self._rho(spectrum), np.ones(n), np.arange(n), labels, labels,
            self._cost(spectrum) * weights, 0.0,
        )  # fmt: skip

    def _limit_solution(self, kernel, problem, scale):
        """α: libsvm's SVC on the limit kernel over ``scale`` with the bounds ``scale·u``, over ``scale``."""
        labels = problem.signs
        limit = SVC(kernel="precomputed", C=scale).fit(kernel, labels, sample_weight=problem.upper)
        alpha = np.zeros(labels.size)
        alpha[limit.support_] = np.abs(limit.dual_coef_[0]) / scale
        return alpha

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """Signed distances ``k(x, X) c + b`` (one column per class for multiclass)."""
        scores = self._raw_decision(X)
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict(self, X: ArrayLike) -> NDArray:
        return self._labels(self.decision_function(X))


class IndefiniteSVR(RegressorMixin, _ProxyKernelEstimator):
    __doc__ = f"""ε-insensitive SV regression with an indefinite kernel (Luss & d'Aspremont, Sec. 4.1).

    Problem (15): the SVR dual (14) jointly with a PSD proxy kernel ``K* = (K₀ + ααᵀ/4ρ)₊``
    (Corollary 2), solved over ``β = (a, b)`` with ``α = a − b`` (libsvm's form of the dual).

    Parameters
    ----------
    kernel : Kernel, str or "precomputed", default="gaussian"
    C : float or "auto", default="auto"
        As in :class:`IndefiniteSVC`; ``"auto"``: ``C = s/κ``, ``s`` the standard deviation of the
        training targets (:func:`krein._scaling.target_statistics`; their magnitude if they are
        constant): a kernel times any factor gives the same model, and targets times any factor the
        predictions times that factor. A float is absolute.
    epsilon : float or "auto", default="auto"
        Width of the insensitive tube. ``"auto"``: ``0.1·s`` (scikit-learn's ``epsilon=0.1`` on
        standardized targets); a float is in the units of ``y``.
    rho : float or "auto", default="auto"
        As in :class:`IndefiniteSVC`, with ``‖a − b‖² ≤ 2nC²`` (``"auto"``: ``ρ = 2nC²/(4·10⁻³·κ)``).
    solver, max_iter, tol, learning_rate, smoothing, verbose
        As in :class:`IndefiniteSVC`.
    n_components, landmarks, landmark_rank, random_state, working_memory
        As in :class:`IndefiniteSVC` (the low-rank problem of its Notes).
    {_ATTRIBUTES_DOC}    epsilon_ : float
        The ε in force (``epsilon`` resolved).

    See Also
    --------
    IndefiniteSVC : The proxy-kernel SVM for classification.
    krein.least_squares.KreinRidge : Kreĭn least squares regression.
    sklearn.svm.SVR : The ε-insensitive SVR for positive definite kernels.

    Notes
    -----
    The problem is solved in units of the kernel scale κ and of the targets' standard deviation ``s``
    (``y/s``, ``ε/s``, ``Cκ/s``): the same problem, whose solvers' tolerances (libsvm's, for the start)
    then mean the same for targets in any unit.

    Examples
    --------
    >>> from krein.svm import IndefiniteSVR
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 3))
    >>> y = np.sin(X[:, 0]) + 0.5 * X[:, 1]
    >>> model = IndefiniteSVR(kernel="sigmoid").fit(X[:60], y[:60])
    >>> print(round(model.score(X[60:], y[60:]), 2))  # R² on the held-out points
    0.82
    >>> print(round(model.epsilon_ / np.std(y[:60]), 2))  # epsilon="auto": 0.1 standard deviations
    0.1
    >>> scaled = IndefiniteSVR(kernel="sigmoid").fit(X[:60], 1e3 * y[:60])  # targets in other units
    >>> print(np.allclose(scaled.predict(X[60:]) / 1e3, model.predict(X[60:]), atol=1e-3))  # to tol
    True
    """

    _parameter_constraints = {
        **_COMMON_CONSTRAINTS,
        "C": _COST_CONSTRAINT,
        "epsilon": [StrOptions({"auto"}), Interval(Real, 0, None, closed="left")],
    }

    def __init__(
        self,
        kernel: Kernel | str = "gaussian",
        *,
        C: FloatOrAuto = "auto",
        epsilon: FloatOrAuto = "auto",
        rho: FloatOrAuto = "auto",
        solver: Literal["projected_gradient", "accpm", "exchange"] = "projected_gradient",
        max_iter: int = 1000,
        tol: float = 1e-3,
        learning_rate: FloatOrAuto = "auto",
        smoothing: float = 0.0,
        verbose: int = 0,
        n_components: int | None = None,
        landmarks: LandmarkMethod = "uniform",
        landmark_rank: LandmarkRank = "full",
        random_state: RandomStateLike = None,
        working_memory: float | None = None,
    ) -> None:
        store_parameters(self, locals())

    _path_parameters = frozenset({"C", "epsilon", "rho"})

    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        with blas_for_data(X):  # one BLAS thread for a small problem (krein._threads)
            self._validate_params()
            self._fit_prepared(self._prepare(X, y), None)
            return self

    def _prepare(self, X, y):
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None.")
        data, y = self._training_data(X, y, y_numeric=True)
        y = np.asarray(y.compute(), dtype=np.float64) if is_dask_array(y) else y
        self._target_scale = target_statistics(y)[1]
        return self._spectrum(data), [y / self._target_scale]

    def _dual_unit(self, spectrum):
        """``t = κ/s``: targets and ε in units of their standard deviation s (:meth:`_units`)."""
        return spectrum.unit / self._target_scale

    def _epsilon(self):
        """ε in units of the targets' standard deviation s: ``AUTO_EPSILON`` for ``"auto"``, else ε/s."""
        if self.epsilon == "auto":
            return AUTO_EPSILON
        with np.errstate(over="ignore"):
            epsilon = float(np.float64(self.epsilon) / self._target_scale)
        if not np.isfinite(epsilon):
            raise ValueError(
                f"epsilon={self.epsilon} is beyond double precision in units of the targets' standard "
                f"deviation {self._target_scale:.3g}; rescale y or use epsilon='auto'."
            )
        return epsilon

    def _fit_prepared(self, prepared, starts):
        solutions = super()._fit_prepared(prepared, starts)
        self.epsilon_ = AUTO_EPSILON * self._target_scale if self.epsilon == "auto" else float(self.epsilon)
        return solutions

    def _problem(self, spectrum, y):
        n, epsilon = y.size, self._epsilon()
        index = np.concatenate([np.arange(n), np.arange(n)])
        coef = np.concatenate([np.ones(n), -np.ones(n)])
        linear = np.concatenate([y - epsilon, -y - epsilon])
        return ProxyKernelProblem(
            spectrum,
            self._rho(spectrum),
            linear,
            index,
            coef,
            coef,
            np.full(2 * n, self._cost(spectrum)),
            0.0,
        )

    def _limit_solution(self, kernel, problem, scale):
        """``(a, b)`` from libsvm's SVR on the limit kernel over ``scale`` with the bounds ``scale·u``
        (its ``dual_coef_`` over ``scale`` is ``a − b``, and ``ab = 0``)."""
        n, epsilon = kernel.shape[0], self._epsilon()
        targets = problem.linear[:n] + epsilon  # linear = (y − ε, −y − ε), in units of the targets
        limit = SVR(kernel="precomputed", C=scale, epsilon=epsilon).fit(
            kernel, targets, sample_weight=problem.upper[:n]
        )
        difference = np.zeros(n)
        difference[limit.support_] = limit.dual_coef_[0] / scale
        return np.concatenate([np.maximum(difference, 0.0), np.maximum(-difference, 0.0)])

    def predict(self, X: ArrayLike) -> NDArray[np.float64]:
        return self._raw_decision(X)[:, 0]


class IndefiniteOneClassSVM(OutlierMixin, _ProxyKernelEstimator):
    __doc__ = f"""One-class SVM with an indefinite kernel (Luss & d'Aspremont, Sec. 4.2, problem (19)/(20)).

    ``α`` satisfies ``eᵀα = 1, 0 ≤ α ≤ 1/(νn)``; the decision function is ``k(x, X)c − offset``,
    positive for inliers.

    Parameters
    ----------
    kernel : Kernel, str or "precomputed", default="gaussian"
    nu : float in (0, 1], default=0.5
        Upper bound on the fraction of training errors.
    rho : float or "auto", default="auto"
        As in :class:`IndefiniteSVC`, with ``‖α‖² ≤ n(1/νn)²`` (``"auto"``: ``ρ = 1/(ν²n·4·10⁻³·κ)``,
        which scales as ``1/s`` with the kernel, as the one-class problem does).
    solver, max_iter, tol, learning_rate, smoothing, verbose
        As in :class:`IndefiniteSVC`.
    n_components, landmarks, landmark_rank, random_state, working_memory
        As in :class:`IndefiniteSVC` (the low-rank problem of its Notes).
    {_ATTRIBUTES_DOC}
    See Also
    --------
    IndefiniteSVC : The proxy-kernel SVM for classification.
    sklearn.svm.OneClassSVM : The one-class SVM for positive definite kernels.

    Examples
    --------
    >>> from krein.svm import IndefiniteOneClassSVM
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2))
    >>> model = IndefiniteOneClassSVM(kernel="gaussian", nu=0.1).fit(X)
    >>> print(round(np.mean(model.predict(X) == 1), 2))  # the share of training points taken as inliers
    0.88
    """

    _parameter_constraints = {
        **_COMMON_CONSTRAINTS,
        "nu": [Interval(Real, 0, 1, closed="right")],
    }

    def __init__(
        self,
        kernel: Kernel | str = "gaussian",
        *,
        nu: float = 0.5,
        rho: FloatOrAuto = "auto",
        solver: Literal["projected_gradient", "accpm", "exchange"] = "projected_gradient",
        max_iter: int = 1000,
        tol: float = 1e-3,
        learning_rate: FloatOrAuto = "auto",
        smoothing: float = 0.0,
        verbose: int = 0,
        n_components: int | None = None,
        landmarks: LandmarkMethod = "uniform",
        landmark_rank: LandmarkRank = "full",
        random_state: RandomStateLike = None,
        working_memory: float | None = None,
    ) -> None:
        store_parameters(self, locals())

    _path_parameters = frozenset({"nu", "rho"})

    def fit(self, X: ArrayLike, y: object = None) -> Self:
        with blas_for_data(X):  # one BLAS thread for a small problem (krein._threads)
            self._validate_params()
            self._fit_prepared(self._prepare(X, y), None)
            return self

    def _prepare(self, X, y=None):
        data, _ = self._training_data(X)
        return self._spectrum(data), [None]

    def _problem(self, spectrum, task):
        n = spectrum.n
        ones = np.ones(n)
        return ProxyKernelProblem(
            spectrum,
            self._rho(spectrum),
            np.zeros(n),
            np.arange(n),
            ones,
            ones,
            np.full(n, 1.0 / (self.nu * n)),
            1.0,
        )

    def _dual_unit(self, spectrum):
        """``t = 1``: α keeps ``eᵀα = 1`` (:meth:`_ProxyKernelEstimator._units`)."""
        return 1.0

    def _limit_solution(self, kernel, problem, scale):
        """α of libsvm's one-class SVM on the limit kernel (bounds 1, sum νn: divided by νn; the
        kernel's ``scale`` does not change α)."""
        limit = OneClassSVM(kernel="precomputed", nu=self.nu).fit(kernel)
        alpha = np.zeros(kernel.shape[0])
        alpha[limit.support_] = limit.dual_coef_[0] / limit.dual_coef_[0].sum()
        return alpha

    def _fit_prepared(self, prepared, starts):
        solutions = super()._fit_prepared(prepared, starts)
        self.offset_ = -float(self.intercept_[0])
        return solutions

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """Positive for inliers, negative for outliers."""
        return self._raw_decision(X)[:, 0]

    def score_samples(self, X: ArrayLike) -> NDArray[np.float64]:
        """``k(x, X) c``: the decision function without the offset."""
        return self.decision_function(X) + self.offset_

    def predict(self, X: ArrayLike) -> NDArray:
        return np.where(self.decision_function(X) >= 0, 1, -1)

"""The hyperparameter-search protocol of the least squares models (Oglic & Gärtner 2018, Sec. 3.3).

:class:`krein.model_selection.HypergradientSearchCV` drives an estimator through four methods: the
log-space vector of its hyperparameters and its bounds, the parameters of a vector, the random
initialization of Appendix E.1, and the validation loss of the model the fit path builds (exact or
Nyström, either split) with its exact gradient, :func:`validation_loss_and_gradient` (Eq. (8),
Appendix E.2; for the kernel hyperparameters of the exact model only, :meth:`_tuned_kernel`).
"""

from __future__ import annotations

import numpy as np
from numpy.linalg import multi_dot
from sklearn.utils import check_random_state

from .._base import LAMBDA_BOUNDS
from .._penalties import start_value
from ..kernels import APPENDIX_D_CLASSES, initial_kernel_like, make_kernel
from ._spectral import SEARCH_START_LAMBDA

__all__ = ["RADIUS_BOUNDS", "HypergradientMixin", "validation_loss_and_gradient"]

#: Box constraints (natural scale) of r in hyperparameter search (λ±: LAMBDA_BOUNDS of krein._base).
RADIUS_BOUNDS = (1e-6, 1e4)


def validation_loss_and_gradient(problem, solution, rows, y_val, contractions=None):
    """Validation mean squared error and its gradient (Sec. 3.3, Eq. (8), Appendix E.2).

    The model is (†) of :mod:`~krein.least_squares._spectral`: ``(Q − μI) u = b`` in the coordinates
    ``u`` of the training predictions, ``Q = Q₊ + Q₋`` with ``Q± = Cᵀ diag(p on s = ±1) C`` (exact
    or low rank, either split). With ``g`` the gradient of the loss with respect to ``u``,
    ``h = (Q − μI)⁻¹ g`` and ``v = (Q − μI)⁻¹ u``, implicit differentiation gives

        ∂L/∂log λ± = −hᵀQ±u + (∂μ/∂log λ±) hᵀu = −h̃ᵀQ±u,     ∂μ/∂log λ± = vᵀQ±u / uᵀv,
        ∂L/∂log r = hᵀu · n r² / uᵀv,     h̃ = h − (hᵀu / uᵀv) v,

    with ∂μ = 0 for ridge (μ = −1, h̃ = h); the second is the derivative of ``‖u‖² = n r²``. ``g`` is
    the adjoint of ``α̂ ↦ β`` (:meth:`~krein.representation.SpectralRepresentation.dual_coef`) applied to
    ``τ = (2/m) (K_val − 1k̄ᵀ)ᵀ e``, divided by σ (``u = σ α̂``).

    Kernel hyperparameters (exact model): ``α̂ = f(σ) ŷ`` with ``f(σ) = 1/(c(σ) − μσ)``, ``c = pσ``
    constant on each sign class, so by the Daleckiĭ–Kreĭn formula they enter through ``⟨G, ∂K_c⟩``,
    ``G = W (Γ ∘ τ̂ŷᵀ) Wᵀ`` over the full eigenbasis ``W = [U, U⊥]``, with the divided differences
    ``Γ = fᵢfⱼ (μ + Δᵢⱼ/(σᵢ − σⱼ))``, ``Δᵢⱼ = cⱼ − cᵢ`` (for the constrained models, μ through r, minus
    ``T/D`` times those of ``σf(σ)``, ``fᵢfⱼ (cᵢ + σᵢΔᵢⱼ/(σᵢ − σⱼ))``, on ``û``; ``T = hᵀu``, ``D = uᵀv``):
    a rank-one matrix plus a Cauchy matrix that vanishes within a sign class, ``U (Γ ∘ τ̂ŷᵀ) Uᵀ =
    (Uw)(Uα̂)ᵀ + U diag(h̃) Cauchy diag(α̂) Uᵀ`` with ``w = μh − (T/D) Qv``, in O(n² min(n₊, n₋)) rather
    than O(n³). The blocks between U and U⊥ are ``Γ = f/σ``, applied to the parts ``τ⊥``, ``y⊥`` of τ
    and y outside U.

    ``problem`` is the fit path's and ``solution`` its :meth:`SpectralProblem.solve`; ``rows`` (m, |P|)
    are the uncentred validation kernel rows against the representation's points
    (:meth:`~krein.representation.SpectralRepresentation.rows`) and ``y_val`` (m, t) the encoded targets;
    ``contractions`` (exact representation only) are the maps ``G ↦ ⟨G, ∂K/∂θ⟩`` and ``G_val ↦ ⟨G_val,
    ∂K_val/∂θ⟩`` for the log kernel hyperparameters θ, K the uncentred training kernel (from
    :meth:`krein.kernels.Kernel.value_and_contraction`; linear in ∂K, so one call serves all targets).
    Returns the validation mean squared error (mean over targets) and its gradient with respect to
    ``log λ₊, log λ₋``, then ``log r`` (variance-constrained models), then ``θ``.
    """
    if np.any(solution.hard_case):
        raise ValueError(
            "The validation loss is not differentiable in the hard case (μ* at the end of its "
            "interval): the solution is not unique. The training kernel (X) gives the targets no part "
            "along the eigenvector bounding the interval, as a degenerate kernel does (constant or rank "
            "one after centring, or tiny against the penalties lambda_plus, lambda_minus); rescale the "
            "kernel, or choose another radius or penalties."
        )
    rep = problem.representation
    sigma, column_means = rep.values[:, None], rep.column_means
    alphas, intercepts = problem.dual_coef(solution)
    errors = rows @ alphas + intercepts - y_val
    m = errors.shape[0]
    tau = (2.0 / m) * (rows.T @ errors)
    if column_means is not None:  # the rows less k̄ᵀ; the exact β less its mean
        tau -= np.multiply.outer(column_means, (2.0 / m) * errors.sum(axis=0))
        tau -= tau.mean(axis=0) if rep.extension is None else 0.0
    # the adjoint of β = Uα̂ (exact) or β = E diag(σ) α̂
    t_hat = rep.vectors.T @ tau if rep.extension is None else sigma * (rep.extension.T @ tau)
    u = sigma * solution.alpha_hat
    h, v = solution.resolve(t_hat / sigma), solution.resolve(u)
    T, D = np.sum(h * u, axis=0), np.sum(u * v, axis=0)
    ratio = T / D if solution.radius is not None else np.zeros_like(T)
    h_tilde = h - ratio * v
    p, signs, C = solution.penalty
    weighted = p[:, None] * (h_tilde * u if C is None else (C @ h_tilde) * (C @ u))
    gradient = [-weighted[signs == sign].sum(axis=0) for sign in (1, -1)]
    if solution.radius is not None:
        gradient.append(ratio * problem.n_samples * solution.radius**2)
    gradient = np.mean(gradient, axis=1)
    if contractions is not None:
        U, alpha_hat, c = rep.vectors, solution.alpha_hat, p * rep.values
        w = solution.multiplier * h - ratio * p[:, None] * v
        tau_perp, y_perp = tau - U @ t_hat, problem.targets - U @ problem.projections
        G = (U @ w) @ (U @ alpha_hat).T  # the rank-one part, then the blocks between U and U⊥
        G += (U @ (h_tilde / sigma)) @ y_perp.T + tau_perp @ (U @ (alpha_hat / sigma)).T
        pos, neg = rep.values > 0, rep.values < 0
        cauchy = (c[neg] - c[pos][:, None]) / (rep.values[pos][:, None] - rep.values[neg])  # on σ₊ × σ₋
        G += multi_dot([U[:, pos], cauchy * (h_tilde[pos] @ alpha_hat[neg].T), U[:, neg].T])
        G += multi_dot([U[:, neg], cauchy.T * (h_tilde[neg] @ alpha_hat[pos].T), U[:, pos].T])
        G_val = (2.0 / m) * errors @ alphas.T  # the explicit K_val in the predictions
        if column_means is not None:  # ⟨G, H dK H⟩ = ⟨H G H, dK⟩; the column means in the intercepts
            G -= G.mean(axis=0)[None, :] + G.mean(axis=1)[:, None] - G.mean()
            G -= (2.0 / (m * problem.n_samples)) * (errors.sum(axis=0) @ alphas.T)[None, :]
        contract, contract_val = contractions
        gradient = np.concatenate([gradient, (contract(G) + contract_val(G_val)) / y_val.shape[1]])
    return float(np.mean(np.sum(errors**2, axis=0) / m)), gradient


class HypergradientMixin:
    """Part of the protocol of :class:`krein.model_selection.HypergradientSearchCV`."""

    def _scalar_hyperparameters(self):
        """The tuned hyperparameters besides the kernel's, with their box constraints."""
        bounds = {"lambda_plus": LAMBDA_BOUNDS, "lambda_minus": LAMBDA_BOUNDS}
        return {**bounds, "radius": RADIUS_BOUNDS} if self._constrained else bounds

    def _target_unit_hyperparameters(self):
        """The radius r, the spread of the training predictions, is in the units of the targets."""
        return ("radius",) if self._constrained else ()

    def _tuned_kernel(self):
        """Whether the kernel has free hyperparameters (tuned with λ±, r); the low-rank model has no
        derivative through its Nyström features (the eigendecompositions of ``K_ZZ`` and of the
        features) and says so."""
        kernel = make_kernel(self.kernel)
        if kernel == "precomputed" or not kernel.n_dims:
            return False
        if self.n_components is not None:
            names = [h.name for h in kernel.hyperparameters if not h.fixed]
            raise NotImplementedError(
                f"{type(self).__name__}(n_components={self.n_components}): the low-rank model has "
                f"hypergradients for {', '.join(self._scalar_hyperparameters())} only, not through the "
                f"Nyström features for the kernel hyperparameters {names} of {kernel!r}. Fix them (e.g. "
                "eta_bounds='fixed'), pass kernel='precomputed', or use the exact model (n_components=None)."
            )
        return True

    def _hyperparameter_vector(self):
        """Log-space vector ``(log λ₊, log λ₋, [log r], kernel θ)`` and its bounds."""
        if self._constrained and self.radius is None:
            raise ValueError(
                "Set radius before searching hyperparameters from the estimator's own ones (n_restarts=0); "
                "random restarts draw it (Appendix E.1)."
            )
        scalars = self._scalar_hyperparameters()
        start = [
            self.radius if name == "radius" else start_value(getattr(self, name), SEARCH_START_LAMBDA)
            for name in scalars
        ]
        theta, bounds = np.log(start), np.log(list(scalars.values()))
        if self._tuned_kernel():
            kernel = make_kernel(self.kernel)
            theta, bounds = np.concatenate([theta, kernel.theta]), np.vstack([bounds, kernel.bounds])
        return theta, bounds

    def _params_from_vector(self, theta):
        """``set_params`` arguments for a vector laid out as :meth:`_hyperparameter_vector`."""
        scalars = list(self._scalar_hyperparameters())
        params = {name: float(np.exp(value)) for name, value in zip(scalars, theta, strict=False)}
        if self._tuned_kernel():
            params["kernel"] = make_kernel(self.kernel).clone_with_theta(np.asarray(theta)[len(scalars) :])
        return params

    def _initial_params(self, X, y, random_state=None):
        """Random initial hyperparameters of Appendix E.1 (Oglic & Gärtner 2018).

        λ± = S[u]/n with S = logspace(−1, 2, 5) (the paper's λ±² = S[u]/n in its parametrization of
        problem (4)); r from the spread of the squared targets; the Appendix D kernels through
        :func:`krein.kernels.initial_kernel`, other kernels keep their hyperparameters. The user's
        kernel settings are honoured (see ``initial_kernel_like``): a fixed hyperparameter keeps
        its value, a bounded one starts inside its bounds (and the search keeps it there).
        """
        rng = check_random_state(random_state)
        Y, _ = self._encode(np.asarray(y))
        grid = np.logspace(-1, 2, 5) / len(Y)
        params = {name: float(grid[rng.randint(5)]) for name in ("lambda_plus", "lambda_minus")}
        if self._constrained:
            centered = Y - Y.mean(axis=0) if self.center else Y
            squares = np.mean(centered**2, axis=1)
            variance, spread = float(np.mean(squares)), float(np.std(squares))
            low, high = max(1e-4, variance - 2.5 * spread), variance + 2.5 * spread
            params["radius"] = float(np.sqrt((high - low) * rng.uniform() + low))
        kernel = make_kernel(self.kernel)
        if kernel != "precomputed" and type(kernel) in APPENDIX_D_CLASSES:
            params["kernel"] = initial_kernel_like(kernel, X, rng)
        return params

    def _validation_loss_and_gradient(self, X_train, y_train, X_val, y_val, cache=None):
        """Validation MSE of the model fitted by the fit path (:meth:`_fit_problem`) on the training part
        and its gradient with respect to :meth:`_hyperparameter_vector` (the protocol of
        :mod:`krein.model_selection`). ``cache`` keeps the fitted problem when the kernel matrix does
        not depend on the tuned hyperparameters (precomputed kernels, kernels without free
        hyperparameters): only the solution and its gradient are recomputed, and a Nyström model keeps
        its landmarks."""
        self._validate_params()
        tuned = self._tuned_kernel()
        cache = {} if cache is None or tuned else cache  # the fitted problem of a fixed kernel matrix
        if not cache:
            problem = self._fit_problem(X_train, y_train)
            X_val, contractions = self._validate_test(X_val), None
            if tuned:  # ∂K enters through ⟨G, ∂K⟩ only
                rows, contract_val = self.kernel_.value_and_contraction(X_val, self.X_fit_)
                contractions = (self.kernel_.value_and_contraction(self.X_fit_)[1], contract_val)
            else:
                rows = problem.representation.rows(X_val)
            cache.update(problem=problem, encoding=self._encoding, rows=rows, contractions=contractions)
        problem, self._encoding = cache["problem"], cache["encoding"]
        # in the problem's target units (a power of two, 1 unless the targets are near 1e±160), which
        # differ between folds: the loss and its gradient are returned in the units of y² (inf beyond
        # double precision)
        unit = problem.target_unit
        solution, Y_val = self._solve(problem, warn=False), self._encoding.encode(y_val) / unit
        loss, gradient = validation_loss_and_gradient(
            problem, solution, cache["rows"], Y_val, cache["contractions"]
        )
        with np.errstate(over="ignore"):
            return loss * unit * unit, gradient * unit * unit

"""The hyperparameter-search protocol of the least squares models (Oglic & Gärtner 2018, Sec. 3.3).

:class:`krein.model_selection.HypergradientSearchCV` drives an estimator through four methods:
the log-space vector of its hyperparameters and its bounds, the parameters of a vector, the random
initialization of Appendix E.1, and the validation loss with its exact gradient (Eq. (8),
Appendix E.2). The loss is that of the model the fit path builds (the same target encoding, centring
and exact representation, :class:`~krein.least_squares._model._KreinLeastSquares`); the gradient is
:func:`validation_loss_and_gradient`, derived exactly, including the derivative of the eigenvectors of K
with respect to kernel hyperparameters (the Daleckiĭ–Kreĭn formula for the matrix function
α = F(K) y with divided differences of ``f(σ) = 1/(c(σ) − μσ)``), and the implicit derivative of μ
through the constraint.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from .._validation import check_square_kernel
from ..kernels import APPENDIX_D_CLASSES, initial_kernel_like, make_kernel
from ._spectral import SpectralProblem

__all__ = ["LAMBDA_BOUNDS", "RADIUS_BOUNDS", "HypergradientMixin", "validation_loss_and_gradient"]

#: Box constraints (natural scale) of λ± and r in hyperparameter search.
LAMBDA_BOUNDS = (1e-10, 1e4)
RADIUS_BOUNDS = (1e-6, 1e4)


def validation_loss_and_gradient(problem, solution, K_val, y_val, kernel_gradient=None):
    """Validation mean squared error and its gradient (Sec. 3.3, Eq. (8), Appendix E.2).

    Parameters
    ----------
    problem : SpectralProblem
        The fit path's problem on the exact representation of the training kernel.
    solution : SpectralSolution
        From :meth:`SpectralProblem.solve` on ``problem``.
    K_val : ndarray of shape (m, n)
        Uncentred validation-versus-training kernel rows.
    y_val : ndarray of shape (m, t)
    kernel_gradient : callable, optional
        ``kernel_gradient(G, G_val)`` returns ``⟨G, ∂K/∂θ⟩ + ⟨G_val, ∂K_val/∂θ⟩`` for the ``p``
        log kernel hyperparameters θ, with K the uncentred training kernel (for example
        through :meth:`krein.kernels.Kernel.value_and_contraction`). The gradient is linear in
        ∂K, so one call serves all targets.

    Returns
    -------
    loss : float
        Mean over targets of the validation mean squared error.
    gradient : ndarray
        With respect to ``log λ₊, log λ₋``, then ``log r`` (variance-constrained models), then
        the ``p`` log kernel hyperparameters.
    """
    rep = problem.representation
    if rep.extension is not None or rep.vectors is None or solution.denominator is None:
        raise NotImplementedError("Hypergradients need the exact spectral representation.")
    if np.any(solution.hard_case):
        raise ValueError(
            "The validation loss is not differentiable in the hard case (μ* at the end of its "
            "interval): the solution is not unique."
        )
    U, sigma, c = rep.vectors, rep.values, solution.weights
    column_means = rep.column_means
    constrained = solution.radius is not None
    n_targets = y_val.shape[1]
    total_loss, total_gradient = 0.0, np.zeros(2 + constrained)
    if kernel_gradient is not None:
        G_train, G_val = np.zeros((problem.n_samples, problem.n_samples)), np.zeros(K_val.shape)
    alphas, intercepts = problem.dual_coef(solution)
    for j in range(n_targets):
        alpha, a, b = alphas[:, j], solution.alpha_hat[:, j], problem.projections[:, j]
        f = 1.0 / solution.denominator[:, j]
        mu = solution.multiplier[j]
        u = sigma * a
        error = K_val @ alpha + intercepts[j] - y_val[:, j]
        m = error.size
        total_loss += float(error @ error) / m
        tau = (2.0 / m) * (K_val.T @ error)
        if column_means is not None:
            tau -= (2.0 / m) * error.sum() * column_means
            tau -= tau.mean()
        t_hat = U.T @ tau
        gradient = []
        # λ₊, λ₋: ∂cᵢ/∂log λ± = cᵢ on the eigenvalues of that sign.
        D = float(np.sum(u * u * sigma * f)) if constrained else None
        for mask in (sigma > 0, sigma < 0):
            dc = c * mask
            dmu = float(np.sum(u * u * dc * f)) / D if constrained else 0.0
            gradient.append(-float(np.sum(t_hat * a * f * (dc - sigma * dmu))))
        T = float(np.sum(t_hat * a * sigma * f))  # τᵀ ∂α/∂μ
        if constrained:
            R2 = problem.n_samples * solution.radius[j] ** 2
            gradient.append(T * R2 / D)
        total_gradient += np.asarray(gradient)
        if kernel_gradient is not None:
            G_train += _implicit_gradient_matrix(
                column_means, U, sigma, c, f, mu, b, u, tau, t_hat, T, D, problem.targets[:, j]
            )
            G_val += (2.0 / m) * np.outer(error, alpha)  # the explicit K_val in the predictions
            if column_means is not None:  # the training column means in the intercept
                G_train -= ((2.0 / m) * error.sum() / problem.n_samples) * alpha[None, :]
    if kernel_gradient is not None:
        total_gradient = np.concatenate([total_gradient, kernel_gradient(G_train, G_val)])
    return total_loss / n_targets, total_gradient / n_targets


def _implicit_gradient_matrix(column_means, U, sigma, c, f, mu, b, u, tau, t_hat, T, D, y):
    """The ``G`` with ``⟨G, ∂K/∂θ⟩`` the implicit part of the gradient (α through K_c, μ through r).

    ``G = V (Γ ∘ (τ̂ ŷᵀ)) Vᵀ`` with Γ the divided differences of ``f(σ) = 1/(c(σ) − μσ)`` over the
    full eigenbasis V = [U, W] of K_c, eigenvalues outside U treated as zero (the model has no
    component there); for the constrained models, minus ``(T/D)`` times the same construction
    for ``h(σ) = σ f(σ)`` and ``û`` (the implicit derivative of μ).

    ``c`` is constant on each sign class (``c₊`` on σ > 0, ``c₋`` on σ ≤ 0), so with
    ``Δᵢⱼ = cⱼ − cᵢ`` the divided differences are ``Γ_f = fᵢfⱼ (μ + Δᵢⱼ/(σᵢ − σⱼ))`` and
    ``Γ_h = fᵢfⱼ (cᵢ + σᵢΔᵢⱼ/(σᵢ − σⱼ))``: a rank-one matrix plus a Cauchy matrix that vanishes
    within a sign class. Hence ``U (Γ ∘ τ̂ŷᵀ) Uᵀ = (Up)(Uq)ᵀ + U diag(s) C diag(q) Uᵀ`` with ``C``
    supported on the n₊ × n₋ off-diagonal blocks, formed in O(n² min(n₊, n₋) + n n₊ n₋) instead of
    the O(n³) of two dense products (O(n²) for a definite kernel).
    """
    q = b * f
    p = mu * t_hat * f
    s = t_hat * f
    left = f / sigma * t_hat  # kept–dropped block: Γ = f/σ
    if D is not None:
        p -= (T / D) * u * c * f
        s -= (T / D) * u * sigma * f
        left -= (T / D) * f * u
    G = np.outer(U @ p, U @ q)
    positive = sigma > 0
    if 0 < positive.sum() < sigma.size:
        negative = ~positive
        cauchy = (c[negative][None, :] - c[positive][:, None]) / (
            sigma[positive][:, None] - sigma[negative][None, :]
        )  # C₊₋; C₋₊ = C₊₋ᵀ
        A_pos, A_neg = U[:, positive] * s[positive], U[:, negative] * s[negative]
        B_pos, B_neg = U[:, positive] * q[positive], U[:, negative] * q[negative]
        if positive.sum() <= negative.sum():  # every product of rank n₊
            G += A_pos @ (cauchy @ B_neg.T) + (A_neg @ cauchy.T) @ B_pos.T
        else:  # rank n₋
            G += (A_pos @ cauchy) @ B_neg.T + A_neg @ (cauchy.T @ B_pos.T)
    y_perp = y - U @ b
    tau_perp = tau - U @ t_hat
    G += np.outer(U @ left, y_perp)
    G += np.outer(tau_perp, U @ (f / sigma * b))
    if column_means is not None:  # ⟨G, H dK H⟩ = ⟨H G H, dK⟩
        G -= G.mean(axis=0)[None, :]
        G -= G.mean(axis=1)[:, None]
    return G


class HypergradientMixin:
    """Part of the protocol of :class:`krein.model_selection.HypergradientSearchCV`."""

    def _hyperparameter_vector(self):
        """Log-space vector ``(log λ₊, log λ₋, [log r], kernel θ)`` and its bounds."""
        theta = [np.log(self.lambda_plus), np.log(self.lambda_minus)]
        bounds = [np.log(LAMBDA_BOUNDS)] * 2
        if self._constrained:
            if self.radius is None:
                raise ValueError("Set radius before searching hyperparameters (see _initial_params).")
            theta.append(np.log(self.radius))
            bounds.append(np.log(RADIUS_BOUNDS))
        kernel = make_kernel(self.kernel)
        if kernel != "precomputed" and kernel.n_dims:
            theta = np.concatenate([theta, kernel.theta])
            bounds = np.vstack([bounds, kernel.bounds])
        return np.asarray(theta, dtype=float), np.asarray(bounds, dtype=float)

    def _params_from_vector(self, theta):
        """``set_params`` arguments for a vector laid out as :meth:`_hyperparameter_vector`."""
        theta = np.asarray(theta, dtype=float)
        params = {"lambda_plus": float(np.exp(theta[0])), "lambda_minus": float(np.exp(theta[1]))}
        start = 2
        if self._constrained:
            params["radius"] = float(np.exp(theta[2]))
            start = 3
        kernel = make_kernel(self.kernel)
        if kernel != "precomputed" and kernel.n_dims:
            params["kernel"] = kernel.clone_with_theta(theta[start:])
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
        n = Y.shape[0]
        grid = np.logspace(-1, 2, 5)
        params = {
            "lambda_plus": float(grid[rng.randint(5)] / n),
            "lambda_minus": float(grid[rng.randint(5)] / n),
        }
        if self._constrained:
            centered = Y - Y.mean(axis=0) if self.center else Y
            squares = np.mean(centered**2, axis=1)
            variance = float(np.mean(squares))
            spread = float(np.sqrt(np.mean((squares - variance) ** 2)))
            low, high = max(1e-4, variance - 2.5 * spread), variance + 2.5 * spread
            params["radius"] = float(np.sqrt((high - low) * rng.uniform() + low))
        kernel = make_kernel(self.kernel)
        if kernel != "precomputed" and type(kernel) in APPENDIX_D_CLASSES:
            params["kernel"] = initial_kernel_like(kernel, X, rng)
        return params

    def _validation_loss_and_gradient(self, X_train, y_train, X_val, y_val, cache=None):
        """Validation MSE of the model fitted on the training part and its gradient.

        The gradient is with respect to :meth:`_hyperparameter_vector` (Sec. 3.3 and Appendix E.2
        of Oglic & Gärtner 2018). For ``kernel="precomputed"``, ``X_train`` is the training block and
        ``X_val`` the validation-versus-training block of the kernel matrix. ``cache`` (a dict kept
        by the caller for this fold) holds the eigendecomposition when the kernel matrix does not
        depend on the tuned hyperparameters (precomputed kernels, kernels without hyperparameters),
        so that only the O(n²) solution and gradient are recomputed.
        """
        self._validate_params()
        if self.n_components is not None:
            raise NotImplementedError(
                "Hypergradients are implemented for the exact model (n_components=None)."
            )
        self.kernel_ = kernel = make_kernel(self.kernel)
        Y, means = self._centred_targets(np.asarray(y_train))  # the fit path's targets
        fixed_kernel = kernel == "precomputed" or not kernel.n_dims
        if fixed_kernel and cache is not None and "problem" in cache:
            problem, K_val = cache["problem"], cache["K_val"]
        else:
            if kernel == "precomputed":
                K, K_val = check_square_kernel(X_train, "X_train"), np.asarray(X_val, dtype=float)
            elif fixed_kernel:
                K, K_val = kernel(X_train), kernel(X_val, X_train)
            else:
                K, contract = kernel.value_and_contraction(X_train)
                K_val, contract_val = kernel.value_and_contraction(X_val, X_train)
            problem = SpectralProblem(self._exact_representation(K), Y, means)
            if fixed_kernel and cache is not None:
                cache.update(problem=problem, K_val=K_val)
        Y_val = self._encoding.encode(y_val)
        solution = self._solve(problem, warn=False)
        if fixed_kernel:
            return validation_loss_and_gradient(problem, solution, K_val, Y_val)

        def kernel_gradient(G, G_val):  # ∂K and ∂K_val enter only through inner products
            return contract(G) + contract_val(G_val)

        return validation_loss_and_gradient(problem, solution, K_val, Y_val, kernel_gradient)

"""The hyperparameter-search protocol of the least squares models (Oglic & Gärtner 2018, Sec. 3.3).

:class:`krein.model_selection.HypergradientSearchCV` drives an estimator through four methods:
the log-space vector of its hyperparameters and its bounds, the parameters of a vector, the random
initialization of Appendix E.1, and the validation loss with its exact gradient (Eq. (8),
Appendix E.2). The loss is that of the model the fit path builds (the same target encoding, centring
and exact representation, :class:`~krein.least_squares._model._KreinLeastSquares`); the gradient is
:meth:`SpectralProblem.validation_loss_and_gradient`.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from .._validation import check_square_kernel
from ..kernels import APPENDIX_D_CLASSES, initial_kernel_like, make_kernel
from ._spectral import SpectralProblem

__all__ = ["LAMBDA_BOUNDS", "RADIUS_BOUNDS", "HypergradientMixin"]

#: Box constraints (natural scale) of λ± and r in hyperparameter search.
LAMBDA_BOUNDS = (1e-10, 1e4)
RADIUS_BOUNDS = (1e-6, 1e4)


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
            return problem.validation_loss_and_gradient(solution, K_val, Y_val)

        def kernel_gradient(G, G_val):  # ∂K and ∂K_val enter only through inner products
            return contract(G) + contract_val(G_val)

        return problem.validation_loss_and_gradient(solution, K_val, Y_val, kernel_gradient)

"""The iterations of Li, Venturi & Xu: PGD (Alg. 1, 2, 5, 6, 7), IIA / rIIA (Alg. 3, 4) and the
Riemannian trust-region method on the sphere (Appendix A.3, Alg. 8).

Each solver works on an objective with ``evaluate(μ) → state`` (``state.value``, ``state.gradient``)
and returns a :class:`krein.optimize.SolverResult` (``x`` the weights μ, ``fun`` the objective F(μ),
``history`` F at every accepted iterate, and ``state``, the objective's state at μ). An objective
may be +∞ (the ridge objective where ``K_μ + λI`` is not positive definite): a start there is an
error (``objective.outside_domain(μ)``), and the descent solvers reject steps that lead there, so
they stay where the objective is finite. Every evaluation is one factorization of ``K_μ + λI``, so
one iteration costs about one Cholesky (plus p·n² for the gradient).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import eigh, null_space
from scipy.optimize import brentq

from .. import optimize

__all__ = [
    "interpolated_iteration",
    "projected_gradient",
    "riemannian_trust_region",
    "trust_region_step",
]

#: Factor applied to the PGD step when the objective would increase (Sec. 2.3.2).
STEP_DECREASE = 0.8


def _result(state, history, n_iter, converged, message):
    """The :class:`krein.optimize.SolverResult` of a solver that stopped at the objective's ``state``."""
    return optimize.SolverResult(
        state.mu, state.value, n_iter=n_iter, converged=converged, message=message, history=history,
        state=state,
    )  # fmt: skip


def _small(change, reference, tol):
    return change <= tol * (1.0 + reference)


#: Bisection steps of :func:`_finite_start` along the segment to the fallback point.
_START_BISECTIONS = 12


def _finite_start(objective, state, fallbacks=()):
    """``state`` where the objective is finite; else, for the first of ``fallbacks`` where it is
    finite, the state at the point of the segment from it to ``state.mu`` nearest ``state.mu`` that
    bisection finds finite; else the objective's error (``objective.outside_domain``)."""
    if np.isfinite(state.value):
        return state
    for fallback in fallbacks:
        best = objective.evaluate(fallback)
        if np.isfinite(best.value):
            low, high, direction = 0.0, 1.0, state.mu - fallback
            for _ in range(_START_BISECTIONS):
                middle = 0.5 * (low + high)
                trial = objective.evaluate(fallback + middle * direction)
                if np.isfinite(trial.value):
                    low, best = middle, trial
                else:
                    high = middle
            return best
    raise objective.outside_domain(state.mu)


def _log(verbose, name, iteration, value, extra=""):
    if verbose:
        print(f"[{name}] iteration {iteration:4d}  objective {value:.10g}{extra}")


def projected_gradient(
    objective, mu, project, *, learning_rate, tol, max_iter, verbose=0, name="pgd", fallbacks=()
):
    """Projected gradient descent ``μ' = P_M(μ − η∇F(μ))`` with the step rule of Sec. 2.3.2.

    Where F = +∞ at the start, the first of the ``fallbacks`` (points of M) where F is finite moves the
    start along the segment towards it (M is convex: the segment stays in M); without one it is an
    error. The iteration is :func:`krein.optimize.projected_gradient` with ``rule="backtracking"``: a
    step that would increase the objective is rejected and η multiplied by 0.8 until the objective
    does not increase, so the accepted iterates decrease F monotonically; η carries over to the next
    iteration; a step to where F = +∞ is rejected the same way. Stops when
    ``‖μ' − μ‖ ≤ tol (1 + ‖μ‖)`` (Algorithm 2, line 3) or after ``max_iter``.
    """
    state = _finite_start(objective, objective.evaluate(project(mu)), fallbacks)

    def oracle(mu):
        state = objective.evaluate(mu)
        return state.value, state.gradient, state

    def log(iteration, mu, current, step):
        _log(verbose, name, iteration, current[0], f"  step size {step:.3g}" if iteration else "")
        return False

    found = optimize.projected_gradient(
        oracle, state.mu, project, learning_rate=learning_rate, rule="backtracking", max_iter=max_iter,
        tol=tol, callback=log, initial=(state.value, state.gradient, state), decrease=STEP_DECREASE,
    )  # fmt: skip
    return _result(found.state[2], found.history, found.n_iter, found.converged, found.message)


def interpolated_iteration(
    objective, mu, weights_from_forms, *, interpolation, tol, max_iter, verbose=0, name="iia"
):
    """IIA / rIIA (Algorithms 3 and 4): ``μ = T(v(α))``, ``α' = ηα + (1 − η)(K_μ + λI)⁻¹y``.

    ``weights_from_forms`` maps ``v_k = αᵀK_kα`` to the weights of Theorem 2.1 (IIA) or 2.2 (rIIA).
    Stops when ``‖α' − α‖ ≤ tol (1 + ‖α‖)``. The returned state is the exact dual at the final μ. The
    fixed point has no step control: a ``μ`` where F = +∞ is an error naming it.
    """
    state = _finite_start(objective, objective.evaluate(mu))
    history = [state.value]
    alpha = state.alpha
    _log(verbose, name, 0, state.value)
    iteration = 0
    for iteration in range(1, max_iter + 1):
        state = objective.evaluate(weights_from_forms(objective.forms(state, alpha)))
        if not np.isfinite(state.value):
            raise objective.outside_domain(
                state.mu, f"the {name} fixed point left the domain of the objective (use solver='pgd')"
            )
        history.append(state.value)
        _log(verbose, name, iteration, state.value)
        new_alpha = interpolation * alpha + (1.0 - interpolation) * state.alpha
        change = np.linalg.norm(new_alpha - alpha)
        alpha = new_alpha
        if _small(change, np.linalg.norm(alpha), tol):
            return _result(state, history, iteration, True, "the dual iterate moved by at most tol")
    return _result(state, history, iteration, False, "max_iter reached")


def trust_region_step(gradient, hessian, radius):
    """Exact minimizer of ``gᵀs + ½sᵀHs`` subject to ``‖s‖ ≤ radius`` (Moré & Sorensen, 1983).

    Small dense problems only (one eigendecomposition of H). Handles an indefinite H and the hard
    case (g orthogonal to the eigenvectors of the smallest eigenvalue).
    """
    w, V = eigh(hessian)
    c = V.T @ gradient
    scale = max(1.0, np.max(np.abs(w)))
    if w[0] > 1e-14 * scale:
        s = -(c / w)
        if np.linalg.norm(s) <= radius:
            return V @ s
    low = max(0.0, -w[0])
    bottom = w + low <= 1e-12 * scale
    if np.all(np.abs(c[bottom]) <= 1e-12 * max(1.0, np.linalg.norm(c))):
        s = np.zeros_like(c)
        s[~bottom] = -c[~bottom] / (w[~bottom] + low)
        gap = radius**2 - s @ s
        if gap >= 0:  # hard case: move along the bottom eigenvector to the boundary
            s[np.flatnonzero(bottom)[0]] = np.sqrt(gap)
            return V @ s

    def excess(sigma):
        return np.linalg.norm(c / (w + sigma)) - radius

    lower = low + 1e-14 * scale
    high = low + np.linalg.norm(gradient) / radius + scale
    sigma = lower
    if excess(lower) > 0:
        sigma = brentq(excess, lower, high, xtol=1e-14 * scale, rtol=1e-14, maxiter=500)
    return V @ (-(c / (w + sigma)))


def riemannian_trust_region(
    objective,
    mu,
    center,
    radius,
    *,
    initial_radius,
    tol,
    max_iter,
    verbose=0,
    accept=0.1,
    name="trust_region",
):
    """Riemannian trust region on the sphere ``‖μ − μ₀‖ = Λ`` (Appendix A.3, Algorithm 8).

    Riemannian gradient ``P_μ∇F`` (Eq. 32) with ``P_μ = I − uuᵀ``, ``u = (μ − μ₀)/Λ``; Riemannian
    Hessian ``P_μ∇²F P_μ − (uᵀ∇F/Λ) P_μ`` (Eq. 35–36 with the curvature term of the sphere); the
    model is minimized exactly in an orthonormal basis of the tangent space; retraction
    ``R_μ(ξ) = μ₀ + Λ(μ + ξ − μ₀)/‖μ + ξ − μ₀‖`` (Eq. 37). Radius updates of Algorithm 8 with
    ``Δ̂ = πΛ`` (the sphere's geodesic diameter). Stops when ``‖grad F‖ ≤ tol (1 + |F|)``.
    """

    def retract(x):
        offset = x - center
        return center + radius * offset / np.linalg.norm(offset)

    state = _finite_start(objective, objective.evaluate(retract(mu)))
    history = [state.value]
    max_radius = np.pi * radius
    delta = min(float(initial_radius), max_radius)
    _log(verbose, name, 0, state.value)
    iteration = 0
    for iteration in range(1, max_iter + 1):
        u = (state.mu - center) / radius
        g = state.gradient
        riemannian_gradient = g - u * (u @ g)
        if _small(np.linalg.norm(riemannian_gradient), abs(state.value), tol):
            return _result(state, history, iteration, True, "the Riemannian gradient is below tol")
        basis = null_space(u[None, :])
        tangent_hessian = basis.T @ objective.hessian(state) @ basis
        tangent_hessian[np.diag_indices_from(tangent_hessian)] -= (u @ g) / radius
        reduced_gradient = basis.T @ g
        s = trust_region_step(reduced_gradient, tangent_hessian, delta)
        predicted = -(reduced_gradient @ s + 0.5 * s @ tangent_hessian @ s)
        trial = objective.evaluate(retract(state.mu + basis @ s))
        rho = (state.value - trial.value) / predicted if predicted > 0 else -np.inf
        if rho < 0.25:
            delta *= 0.25
        elif rho > 0.75 and np.linalg.norm(s) >= 0.999 * delta:
            delta = min(2.0 * delta, max_radius)
        if rho > accept:
            state = trial
            history.append(state.value)
        _log(verbose, name, iteration, state.value, f"  radius {delta:.3g}  rho {rho:.3g}")
        if delta <= 1e-14 * radius:
            return _result(state, history, iteration, True, "the trust region shrank to rounding level")
    return _result(state, history, iteration, False, "max_iter reached")

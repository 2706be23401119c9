"""Every solver of :mod:`krein.optimize` returns a :class:`~krein.optimize.SolverResult` (issue 32).

The test walks ``krein.optimize.__all__``: each name is either a solver, run here on a small problem
whose optimum is known in closed form, or listed among the names that are not solvers; a new export
must be put in one of the two."""

import numpy as np
import pytest

import krein.optimize as optimize
from krein.optimize import DCObjective, SolverResult

#: Exports that are not solvers: classes, constants and closed-form functions returning arrays.
NOT_SOLVERS = {
    "DCObjective",
    "RankOneEigen",
    "STEP_RULES",
    "SolverResult",
    "project_box_hyperplane",
    "project_onto_ball_orthant",
    "rank_one_eigh",
    "rank_one_positive_part",
    "rank_one_smoothed_part",
    "smoothed_positive_part",
    "smoothed_square",
    "squared_hinge_validation_gradient",
}


def _sphere():
    # −u₁² + 2u₂² − 2u₁ on the unit circle is 2 − 3c² − 2c with c = u₁: least at c = 1
    result = optimize.solve_sphere_quadratic(np.array([-1.0, 2.0]), np.array([1.0, 0.0]), 1.0)
    return result, np.array([1.0, 0.0]), -3.0, None


A = np.array([2.0, -1.0, 0.5])


def _box_quadratic(x):
    return 0.5 * (x - A) @ (x - A), x - A


def _projected_gradient(rule):
    # ½‖x − a‖² over [0, 1]³: the projection of a, (1, 0, 0.5), where the value is ½(1 + 1) = 1
    def stop(iteration, x, state, step):
        return np.allclose(x, [1.0, 0.0, 0.5], rtol=0, atol=1e-12)

    result = optimize.projected_gradient(
        _box_quadratic, np.full(3, 0.5), lambda x: np.clip(x, 0.0, 1.0), learning_rate=0.5, rule=rule,
        max_iter=200, callback=stop,
    )  # fmt: skip
    return result, np.array([1.0, 0.0, 0.5]), (None if rule == "accelerated" else 1.0), rule != "accelerated"


def _newton_problem():
    # Φ = (1, −1)ᵀ, y = (1, −1), ρ = 1: 2 max(0, 1 − w − b)… is symmetric in b, so b = 0 and
    # 2(1 − w)² + 2w² is least at w = 1/2, where it is 1
    return np.array([[1.0], [-1.0]]), np.array([1.0, -1.0]), np.array([1.0])


def _newton():
    features, y, penalties = _newton_problem()
    result = optimize.squared_hinge_newton(features, y, penalties)
    assert result.intercept == pytest.approx(0.0, abs=1e-15)
    return result, np.array([0.5]), 1.0, True


class _Rows:
    """A representation whose centred landmark rows ``kᵢ`` are given (m = r, extension I): the
    interface :func:`streamed_squared_hinge_newton` reads, with ``Ũ = K``."""

    def __init__(self, rows):
        self.rows = rows
        self.extension = np.eye(rows.shape[1])
        self.gram, self.row_sum = rows.T @ rows, rows.sum(axis=0)

    def landmark_moment(self, y):
        return self.rows.T @ y

    def landmark_sums(self, indices, y):
        rows = self.rows[indices]
        return rows.T @ rows, rows.sum(axis=0), rows.T @ y[indices]

    def training_outputs(self, coef):
        return self.rows @ coef


def _streamed_newton():
    features, y, penalties = _newton_problem()
    result = optimize.streamed_squared_hinge_newton(_Rows(features), np.eye(1), y, penalties)
    assert result.intercept == pytest.approx(0.0, abs=1e-15)
    return result, np.array([0.5]), 1.0, True


class _ShiftedQuadratic(DCObjective):
    """``F(x) = ‖x − a‖² − ½‖x‖²``, least at ``x = 2a`` where it is ``−‖a‖²``."""

    metric = np.full(3, 2.0)
    n_samples = 1

    def convex(self, x):
        return float((x - A) @ (x - A)), 2.0 * (x - A)

    def concave(self, x):
        return 0.5 * float(x @ x), x


def _cccp():
    result = optimize.concave_convex_procedure(
        _ShiftedQuadratic(), np.zeros(3), max_outer_iter=200, tol=1e-15
    )
    return result, 2.0 * A, -float(A @ A), True


B = np.array([0.5, 0.3, 0.2])  # a point of {Σx = 1, 0 ≤ x ≤ 1}


def _accpm():
    # max −½‖x − b‖² on {Σx = 1, 0 ≤ x ≤ 1}: b itself, value 0
    result = optimize.accpm_maximize(
        lambda x: (-0.5 * (x - B) @ (x - B), B - x), np.ones(3), np.ones(3), 1.0, max_iter=200,
        callback=lambda iteration, x, value: value > -1e-18,
    )  # fmt: skip
    return result, B, 0.0, True


def _exchange():
    # one kernel (L = I, c = 0): f(β) = pᵀβ − ½‖β‖² with p = b + 1 on {Σβ = 1, 0 ≤ β ≤ 1} is
    # greatest at β = p − 1 = b (the multiplier of Σβ = 1 is 1), where f = pᵀb − ½‖b‖²
    linear = B + 1.0

    def gap(beta, g):  # max over the feasible set of gᵀ(β′ − β): put all weight on the largest gᵢ
        return float(g.max() - g @ beta)

    result = optimize.exchange_maximize(
        linear, np.eye(3), np.ones(3), np.ones(3), 1.0, lambda beta: (np.eye(3), 0.0), gap, max_iter=20,
        tol=1e-12, callback=lambda *args: False,
    )  # fmt: skip
    assert result.upper_bound >= result.fun
    return result, B, float(linear @ B - 0.5 * B @ B), True


#: Each solver's problems: a label and a function returning ``(result, x*, f*, keeps_history)``.
SOLVERS = {
    "solve_sphere_quadratic": {"": _sphere},
    "projected_gradient": {rule: lambda rule=rule: _projected_gradient(rule) for rule in optimize.STEP_RULES},
    "squared_hinge_newton": {"": _newton},
    "streamed_squared_hinge_newton": {"": _streamed_newton},
    "concave_convex_procedure": {"": _cccp},
    "accpm_maximize": {"": _accpm},
    "exchange_maximize": {"": _exchange},
}

CASES = [
    pytest.param(problem, id=f"{name}-{label}" if label else name)
    for name, problems in SOLVERS.items()
    for label, problem in problems.items()
]


def test_every_export_is_a_solver_or_listed_as_not_one():
    exported = set(optimize.__all__)
    assert not set(SOLVERS) & NOT_SOLVERS
    assert exported == set(SOLVERS) | NOT_SOLVERS


@pytest.mark.parametrize("problem", CASES)
def test_solver_returns_a_solver_result_at_the_known_optimum(problem):
    result, x, fun, has_history = problem()
    assert type(result) is SolverResult
    np.testing.assert_allclose(result.x, x, rtol=0, atol=1e-7)
    if fun is None:  # projected_gradient(rule="accelerated") does not evaluate f
        assert result.fun is None
    else:
        assert isinstance(result.fun, float) and result.fun == pytest.approx(fun, rel=1e-12, abs=1e-12)
    assert type(result.n_iter) is int and result.n_iter >= 0
    assert result.converged is True
    assert isinstance(result.message, str) and result.message
    if has_history:
        assert isinstance(result.history, np.ndarray) and result.history.ndim == 1
        assert np.any(result.history == result.fun)  # the value at x is one of those recorded
    else:
        assert result.history is None
    for name in result.extra:
        assert hasattr(result, name)
    assert repr(result).startswith("SolverResult(x=")

"""Solvers shared by the estimators: the numerical layer under :mod:`krein.least_squares`,
:mod:`krein.svm`, :mod:`krein.logistic` and :mod:`krein.kernel_learning`.

- :func:`solve_sphere_quadratic` — a quadratic on a sphere through its secular equation, hard case
  included (the variance-constrained Kreĭn least squares of Oglic & Gärtner 2018, Eq. 7).
- :func:`rank_one_eigh`, :func:`rank_one_positive_part`, :func:`rank_one_smoothed_part` — the
  eigendecomposition of ``diag(d) + ρuuᵀ`` and the functions of it the proxy-kernel SVM needs
  (Luss & d'Aspremont 2009, Sec. 3.1), by the secular equation in O(n²).
- :func:`project_box_hyperplane` (the SVM dual set) and :func:`project_onto_ball_orthant` (the kernel
  weights of Li, Venturi & Xu) — Euclidean projections.
- :func:`projected_gradient` — the one projected-gradient loop, with the step rules the papers use
  (backtracking, diminishing, spectral / Barzilai–Borwein, accelerated).
- :func:`squared_hinge_newton` — the finite Newton method of Keerthi & DeCoste for the squared hinge
  loss with per-coordinate ridge penalties (the Kreĭn squared-hinge SVM, Oglic & Gärtner 2019), and
  :func:`streamed_squared_hinge_newton`, the same on a streamed Nyström representation;
  :func:`squared_hinge_validation_gradient`, the hypergradient of a validation loss (Chapelle et al. 2002).
- :func:`concave_convex_procedure` with :class:`DCObjective` — CCCP and CCICP (Liu et al. 2019).
- :func:`accpm_maximize` — the analytic-center cutting-plane method (Luss & d'Aspremont, Sec. 3.3).
- :func:`exchange_maximize` — the exchange method for the semi-infinite QCLP (Sec. 3.4).

Every solver above that iterates or optimizes (:func:`solve_sphere_quadratic`, :func:`projected_gradient`,
:func:`squared_hinge_newton`, :func:`streamed_squared_hinge_newton`, :func:`concave_convex_procedure`,
:func:`accpm_maximize`, :func:`exchange_maximize`) returns a :class:`SolverResult`: the solution
``x``, the objective ``fun`` there in the solver's own sign convention (:func:`accpm_maximize` and
:func:`exchange_maximize` maximize, the others minimize), ``n_iter``, ``converged``, ``message`` and
``history``, plus attributes of its own that its docstring lists. The other functions are not
solvers and return arrays: the projections and the rank-one eigen-updates are closed-form (a
bisection or a secular equation solved to machine precision inside, no iterate, objective or
convergence to report), :func:`smoothed_positive_part` and :func:`smoothed_square` are elementwise
functions, and :func:`squared_hinge_validation_gradient` evaluates a loss and its gradient at a
given solution.

Estimator packages import these names from ``krein.optimize``, never from its private modules.
"""

from ._accpm import accpm_maximize
from ._cccp import DCObjective, concave_convex_procedure
from ._exchange import exchange_maximize
from ._projected_gradient import STEP_RULES, projected_gradient
from ._projection import project_box_hyperplane, project_onto_ball_orthant
from ._rank_one import (
    RankOneEigen,
    rank_one_eigh,
    rank_one_positive_part,
    rank_one_smoothed_part,
    smoothed_positive_part,
    smoothed_square,
)
from ._result import SolverResult
from ._secular import solve_sphere_quadratic
from ._squared_hinge import (
    squared_hinge_newton,
    squared_hinge_validation_gradient,
    streamed_squared_hinge_newton,
)

__all__ = [
    "DCObjective",
    "RankOneEigen",
    "STEP_RULES",
    "SolverResult",
    "accpm_maximize",
    "concave_convex_procedure",
    "exchange_maximize",
    "project_box_hyperplane",
    "project_onto_ball_orthant",
    "projected_gradient",
    "rank_one_eigh",
    "rank_one_positive_part",
    "rank_one_smoothed_part",
    "smoothed_positive_part",
    "smoothed_square",
    "solve_sphere_quadratic",
    "squared_hinge_newton",
    "squared_hinge_validation_gradient",
    "streamed_squared_hinge_newton",
]

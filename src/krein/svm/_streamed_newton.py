"""The finite Newton method of :func:`squared_hinge_newton` on a streamed Nyström representation.

The squared-hinge problem of the KREĬN SH-SVM (Oglic & Gärtner 2019, Sec. 2.5) on the features
``Φ = Ũ T`` (``Ũ`` the n×r one-shot eigenvectors, never formed) is solved by the same iterations as
:func:`~krein.svm._squared_hinge.squared_hinge_newton` (Keerthi & DeCoste 2005): on the active set
``I = {i : yᵢ f(xᵢ) < 1}`` solve ``(Φ̂_Iᵀ Φ̂_I + n R) w̄ = Φ̂_Iᵀ y_I`` (``Φ̂ = [Φ, 1]``), then the exact line
search along ``w̄ − w``. What it needs from the data is reduced in landmark space:

* ``Φ_Iᵀ Φ_I = Tᵀ Eᵀ (G − G_out) E T`` with ``G = Σᵢ kᵢkᵢᵀ`` over all centred landmark rows
  ``kᵢ = K(xᵢ, Z) − k̄`` (kept by the representation from its fitting pass) and ``G_out`` the same sum
  over the points outside ``I``; ``Φ_Iᵀ1`` and ``Φ_Iᵀy_I`` likewise. ``G_out`` is updated by the rows
  of the points that leave or enter ``I`` (at the start every point is active and ``G_out = 0``), so an
  iteration costs the kernel rows of the points whose status changed, not a pass over all of them;
* the outputs ``Φ d`` along a direction: one streamed pass (kernel rows in blocks of
  ``working_memory``, or one task per row chunk of a dask array) per iteration.

Memory beyond the data is O(n + m²): no n×m or n×r array.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from ._squared_hinge import _line_search

__all__ = ["streamed_squared_hinge_newton"]


def _objective(y, outputs, R, w, n):
    return np.sum(np.maximum(0.0, 1.0 - y * outputs) ** 2) + n * np.dot(R * w, w)


def streamed_squared_hinge_newton(
    representation, T, y, penalties, *, fit_intercept=True, tol=1e-10, max_iter=100
):
    """Minimize ``Σ max(0, 1 − yᵢ(Φᵢ w + b))² + n Σⱼ ρⱼ wⱼ²`` for ``Φ = Ũ T`` without forming ``Φ``.

    Parameters
    ----------
    representation : krein.nystroem.NystroemRepresentation
        With ``gram``, ``row_sum``, ``landmark_sums``, ``landmark_moment`` and ``training_outputs``.
    T : ndarray of shape (r, r)
    y : ndarray of shape (n,)
        Labels ±1.
    penalties, fit_intercept, tol, max_iter : as :func:`squared_hinge_newton`.

    Returns
    -------
    w : ndarray of shape (r,)
    b : float
    n_iter : int
    """
    n = y.size
    E = representation.extension @ T  # landmark space → features: Φᵢ = kᵢ E T
    # over all points: Σ kᵢkᵢᵀ, Σ kᵢ, Σ yᵢ kᵢ (the last by one pass, as Ũᵀy = Eᵀ Σ yᵢ kᵢ)
    gram, row_sum = representation.gram, representation.row_sum
    moment = representation.landmark_moment(y)
    gram_out, sum_out, moment_out = np.zeros_like(gram), np.zeros_like(row_sum), np.zeros_like(row_sum)
    count_out, y_out = 0, 0.0
    R = np.append(penalties, 0.0) if fit_intercept else penalties
    w = np.zeros(R.size)
    outputs = np.zeros(n)
    active = np.ones(n, dtype=bool)
    value = _objective(y, outputs, R, w, n)
    n_iter = 0
    while n_iter < max_iter:
        n_iter += 1
        new_active = y * outputs < 1
        left, entered = np.flatnonzero(active & ~new_active), np.flatnonzero(~active & new_active)
        for indices, sign in ((left, 1.0), (entered, -1.0)):
            if indices.size:
                gram_change, sum_change, moment_change = representation.landmark_sums(indices, y)
                gram_out += sign * gram_change
                sum_out += sign * sum_change
                moment_out += sign * moment_change
                count_out += int(sign) * indices.size
                y_out += sign * y[indices].sum()
        active = new_active
        system = E.T @ (gram - gram_out) @ E
        rhs = E.T @ (moment - moment_out)
        if fit_intercept:
            column = E.T @ (row_sum - sum_out)
            system = np.block([[system, column[:, None]], [column[None, :], np.array([[n - count_out]])]])
            rhs = np.append(rhs, y.sum() - y_out)
        system[np.diag_indices_from(system)] += n * R
        try:
            target = scipy.linalg.solve(system, rhs, assume_a="pos", check_finite=False)
        except (np.linalg.LinAlgError, scipy.linalg.LinAlgError):
            target = scipy.linalg.lstsq(system, rhs, check_finite=False)[0]
        direction = target - w
        delta = representation.training_outputs(T @ direction[: T.shape[1]])
        if fit_intercept:
            delta = delta + direction[-1]
        step = _line_search(
            1.0 - y * outputs, y * delta, np.dot(R * w, direction), np.dot(R * direction, direction), n
        )
        w = w + step * direction
        outputs = outputs + step * delta
        new_value = _objective(y, outputs, R, w, n)
        converged = value - new_value <= tol * max(new_value, 1e-300) or np.array_equal(
            active, y * outputs < 1
        )
        value = new_value
        if converged:
            break
    if fit_intercept:
        return w[:-1], float(w[-1]), n_iter
    return w, 0.0, n_iter

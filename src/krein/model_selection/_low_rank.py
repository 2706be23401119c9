"""The route at low rank: one n × m block of distances to landmarks serves every fold and candidate.

With ``n_components=m`` (or ``"auto"`` above :data:`AUTO_EXACT_MAX_SAMPLES` training objects) the
route draws m landmarks ``Z`` uniformly from the training objects once and computes the distances
``D(X, Z)`` (n × m; the m × m block between the landmarks is its rows at ``Z``). Every kernel choice
is a transformer of distances fitted on the landmarks' block (the Gaussian ``exp(−γ D²)`` with γ
relative to the landmarks' median, or the double centring through the landmarks, i.e. landmark MDS),
so its kernel columns ``C = K(X, Z)`` come from the block without another distance.

Each inner fold's representation is the one-shot eigendecomposition of its own rows of ``C``
(Oglic & Gärtner 2019, Sec. 2.2; :func:`nystroem_fold`): ``K̃ = (C − 1c̄ᵀ) K_ZZ⁺ (C − 1c̄ᵀ)ᵀ`` centred
by the fold's column means ``c̄`` and divided by its scale, as :class:`KernelNormalizer` treats an
exact kernel; its eigen-coordinates ``Ũ(x) = (k_x − c̄) E`` serve every candidate of the fold:

* the Kreĭn least squares and the variance-constrained model solve (†) of
  :mod:`krein.least_squares._spectral` on it, as the exact estimators do;
* the spectrum treatments clip, flip and square are the features ``Ũ |λ|^{1/2}`` of the treated
  eigenvalues (``λ₊^{1/2}``, ``|λ|^{1/2}``, ``|λ|``), and their SVM is a linear one on those features
  (squared hinge by krein's finite Newton method; squared ε-insensitive ``LinearSVR``), never an
  n × n kernel. The shift
  treatment adds ``|λ_min| I`` (full rank) to a rank-m kernel, which no n × m feature map carries: it
  has no low-rank form. The squared-hinge SVM with λ₊ = λ₋ is flip + squared-hinge SVM at C = 1/(2nλ),
  so it adds no candidate; IKLR and the proxy SVM have no low-rank fit here.
* k nearest neighbours are scored on the held-out **landmarks** of each fold: a landmark's distances to
  every training object are a column of the block, so k-NN with the fold's whole training set costs no
  distance beyond the n × m. Every candidate is scored on the same held-out landmarks too, and the
  rule that keeps k-NN unless beaten beyond the folds' noise compares them there, pair by pair.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVR

from .._base import decision_to_labels
from ..dissimilarity import DoubleCentering
from ..least_squares import SpectralProblem, encode_labels
from ..optimize import squared_hinge_newton
from ..representation import LandmarkFactor, SpectralRepresentation, eigen_from_gram, landmark_factor

__all__ = [
    "AUTO_EXACT_MAX_SAMPLES",
    "AUTO_LANDMARKS",
    "LandmarkKernel",
    "NeighborModel",
    "fit_least_squares",
    "fit_linear_svm",
    "landmark_kernel",
    "nystroem_fold",
]

#: ``n_components="auto"``: the exact route up to this many training objects (its n × n distances, and
#: per fold and kernel an eigendecomposition and the SVMs on n × n kernels: about a hundred times one
#: ``eigh`` of the whole matrix at n = 2000, minutes on one core), the landmarks above it.
AUTO_EXACT_MAX_SAMPLES = 2000
#: ``n_components="auto"`` above :data:`AUTO_EXACT_MAX_SAMPLES`: this many landmarks.
AUTO_LANDMARKS = 500


#: Entries of a fold's kernel columns formed at a time (8 MiB): the fold's representation holds its
#: n × r coordinates, not a copy of its n × m columns.
FOLD_BLOCK_ENTRIES = 1 << 20


@dataclass
class LandmarkKernel:
    """One kernel choice on the landmark block: its ``label``, the distance ``transformer`` fitted on the
    landmarks' distances, the route's ``inputs`` (the n × m distances to the landmarks, or the data
    points of a kernel object) and the signed factor of the pseudo-inverse of ``K_ZZ``
    (:func:`krein.representation.landmark_factor`).

    The kernel columns ``K(X, Z)`` are not stored: :meth:`rows` forms those of a block of objects from
    their inputs when a fold needs them (the transformers act row by row), so that the route holds one
    n × m block, its inputs, however many kernels it searches."""

    label: str
    transformer: Any  # None: the inputs are the kernel's columns (a precomputed similarity)
    inputs: np.ndarray
    factor: LandmarkFactor

    def rows(self, index: np.ndarray) -> np.ndarray:
        """The kernel columns ``K(x, Z)`` of the objects at ``index`` (rows of the inputs)."""
        block = self.inputs[index]
        return block if self.transformer is None else self.transformer.transform(block)


def landmark_kernel(choice, inputs: np.ndarray, landmarks: np.ndarray) -> LandmarkKernel:
    """The :class:`LandmarkKernel` of a kernel choice from the route's ``inputs``: the n × m distances
    (or similarities) to the landmarks at rows ``landmarks``, or the n data points (a kernel object's
    choice, whose transformer evaluates ``K(X, Z)``)."""
    transformer = None if choice.make is None else choice.make()
    block = inputs[landmarks]
    if block.shape[0] == block.shape[1] == inputs.shape[1]:  # a square block of a distance or similarity
        block = 0.5 * (block + block.T)
    K_ZZ = block if transformer is None else transformer.fit_transform(block)
    # a block double-centred through its own objects annihilates the constant vector (landmark MDS)
    null_vector = np.ones(landmarks.size) if isinstance(transformer, DoubleCentering) else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # duplicate landmarks: dropped by the pseudo-inverse
        factor = landmark_factor(K_ZZ, null_vector=null_vector)
    return LandmarkKernel(choice.label, transformer, inputs, factor)


def nystroem_fold(kernel: LandmarkKernel, rows: np.ndarray) -> SpectralRepresentation:
    """The one-shot eigendecomposition of the training ``rows`` of ``kernel``, centred and scaled.

    With ``C`` the rows' kernel columns, ``c̄`` their means and ``L = (C − 1c̄ᵀ) R`` (``R`` the landmark
    factor, ``K_ZZ⁺ = R S Rᵀ``), ``K̃ = L S Lᵀ = Ũ Λ Ũᵀ`` from the m × m Gram ``LᵀL``
    (:func:`~krein.representation._approximation.eigen_from_gram`); the eigenvalues are divided by the
    scale ``s`` = mean |diag K̃| (:class:`KernelNormalizer`'s). Test rows map to ``Ũ(x) = (k_x − c̄) E``
    (:meth:`~krein.representation.SpectralRepresentation.coordinates` of raw kernel rows).

    The eigenpairs come positive first, then negative (each by decreasing ``|λ|``), so that the
    coordinates of the positive part are a block of columns (:func:`fit_linear_svm` reads them without
    a copy). The kernel columns are formed block by block (:meth:`LandmarkKernel.rows`, about
    :data:`FOLD_BLOCK_ENTRIES` entries each) and the fold holds only its n × r coordinates.
    """
    R = kernel.factor.right
    blocks = np.array_split(rows, max(1, -(-rows.size * R.shape[0] // FOLD_BLOCK_ENTRIES)))
    means = sum(kernel.rows(block).sum(axis=0) for block in blocks) / rows.size
    L = np.empty((rows.size, R.shape[1]))  # in row blocks: no copy of the fold's n × m columns
    start = 0
    for block in blocks:
        L[start : start + block.size] = (kernel.rows(block) - means) @ R
        start += block.size
    values, W = eigen_from_gram(L.T @ L, kernel.factor.signature)
    order = np.argsort(values < 0, kind="stable")  # positive first, each sign by decreasing |λ|
    values, W = values[order], W[:, order]
    step = max(1, FOLD_BLOCK_ENTRIES // max(R.shape[1], 1))
    diagonal_sum = 0.0
    for start in range(0, rows.size, step):  # Ũ = L W, formed in L's memory block by block
        L[start : start + step, : W.shape[1]] = L[start : start + step] @ W
        diagonal_sum += float(np.sum(np.abs(np.square(L[start : start + step, : W.shape[1]]) @ values)))
    vectors = L[:, : W.shape[1]]
    scale = diagonal_sum / rows.size
    if not (scale > 0 and np.isfinite(scale)):
        raise ValueError("The training kernel is constant: after centring it is zero, nothing to learn.")
    return SpectralRepresentation(
        values / scale,
        vectors,
        kernel.factor.right @ W,
        kernel="precomputed",
        column_means=means,
    )


class CoordinateModel:
    """A fitted model on eigen-coordinates ``Ũ(x)``: ``decision = (Ũ(x)[:, keep] · scaling) @ coef +
    intercept`` (or a scikit-learn linear ``model`` on those features); labels by one-vs-rest."""

    def __init__(self, scaling, keep, *, coef=None, intercept=0.0, model=None, classes=None):
        self.scaling, self.keep = scaling, keep
        self.coef, self.intercept, self.model, self.classes = coef, intercept, model, classes

    def _features(self, U):
        return U[:, self.keep] * self.scaling

    def decision_function(self, U):
        if self.model is not None:
            features = self._features(U)
            return (
                self.model.predict(features)
                if self.classes is None
                else self.model.decision_function(features)
            )
        scores = self._features(U) @ self.coef + self.intercept
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict(self, U):
        if self.model is not None:
            return self.model.predict(self._features(U))
        scores = self.decision_function(U)
        return scores if self.classes is None else decision_to_labels(scores, self.classes)


def fit_least_squares(representation, y, settings, classes, *, constrained=False):
    """Kreĭn least squares (or, ``constrained``, the variance-constrained model) on a fold's
    representation, one :class:`CoordinateModel` per setting of ``lambda_plus``, ``lambda_minus``: the
    solution (†) of :class:`~krein.least_squares._spectral.SpectralProblem`, the exact estimators' own
    (``center=False``: the kernel is centred already; labels ±1 one-vs-rest, targets standardized)."""
    if classes is None:
        Y = np.asarray(y, dtype=float)[:, None]
    else:
        Y, _ = encode_labels(y, "plain")
    problem = SpectralProblem(representation, Y, np.zeros(Y.shape[1]))
    radius = np.sqrt(np.mean(np.square(Y), axis=0)) if constrained else None
    values = representation.values
    keep = np.ones(values.size, dtype=bool)
    models = []
    for setting in settings:
        solution = problem.solve(setting["lambda_plus"], setting["lambda_minus"], radius=radius)
        coef = values[:, None] * solution.alpha_hat  # training predictions Ũ diag(λ) α̂
        models.append(CoordinateModel(np.ones(values.size), keep, coef=coef, classes=classes))
    return models


#: The eigenvalue map of each spectrum treatment at low rank (shift has none: see the module docstring).
TREATMENTS = {
    "clip": lambda values: np.sqrt(np.clip(values, 0.0, None)),
    "flip": lambda values: np.sqrt(np.abs(values)),
    "square": np.abs,
}


def fit_linear_svm(representation, y, settings, classes, *, spectrum):
    """The SVM of a spectrum treatment on a fold's representation, one :class:`CoordinateModel` per
    setting of ``C``: on the treated features ``Φ = Ũ g(λ)``, the squared-hinge SVM
    ``½‖w‖² + C Σᵢ max(0, 1 − yᵢ(Φᵢw + b))²`` with an unpenalized intercept, one-vs-rest, by the finite
    Newton method (:func:`krein.optimize.squared_hinge_newton`, ``ρ = 1/(2Cn)``), warm-started from the
    previous ``C``; for a regressor the squared ε-insensitive SVR (ε = 0.1 on standardized targets,
    scikit-learn's ``LinearSVR``).

    The classifier is solved on the coordinates ``Ũ`` themselves, not on a scaled copy: with
    ``v = g(λ) ∘ w`` the penalty ``ρ‖w‖²`` is ``Σⱼ (ρ / g(λⱼ)²) vⱼ²`` and ``Φw = Ũv``, the same
    problem (a diagonal change of variables, which leaves Newton's iterates and the Cholesky factor's
    accuracy unchanged), so a fold of n rows holds no second n × r array."""
    if spectrum not in TREATMENTS:
        raise ValueError(f"the {spectrum} treatment has no low-rank form (a full-rank shift of the kernel)")
    scaling = TREATMENTS[spectrum](representation.values)
    keep = scaling > 0
    if not keep.any():
        raise ValueError(f"the {spectrum} treatment leaves no eigenvalue: the kernel has no positive part")
    n = representation.vectors.shape[0]
    models = []
    if classes is None:
        features = representation.vectors[:, keep] * scaling[keep]
        for setting in settings:
            model = LinearSVR(
                C=setting["C"], epsilon=0.1, loss="squared_epsilon_insensitive", dual=False, max_iter=2000
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                model.fit(features, y)
            models.append(CoordinateModel(scaling[keep], keep, model=model, classes=classes))
        return models
    k = np.count_nonzero(keep)  # nystroem_fold orders the positive part first: a view, not a copy
    coordinates = representation.vectors[:, :k] if keep[:k].all() else representation.vectors[:, keep]
    unit = np.ones(k)
    Y, _ = encode_labels(y, "plain")
    starts = [None] * Y.shape[1]
    workspaces = [{} for _ in range(Y.shape[1])]  # each task's normal equations, carried along the path
    for setting in settings:
        penalties = 1.0 / (2.0 * setting["C"] * n * np.square(scaling[keep]))
        solutions = [
            squared_hinge_newton(coordinates, Y[:, t], penalties, start=starts[t], workspace=workspaces[t])
            for t in range(Y.shape[1])
        ]
        starts = [(solution.x, solution.intercept) for solution in solutions]
        coef = np.column_stack([solution.x for solution in solutions])
        intercept = np.array([solution.intercept for solution in solutions])
        models.append(CoordinateModel(unit, keep, coef=coef, intercept=intercept, classes=classes))
    return models


class NeighborModel:
    """k nearest neighbours on rows of distances to the training objects (uniform weights): the
    majority label among the ``k`` nearest (ties: the smallest class index, as scikit-learn's
    ``KNeighborsClassifier``), or their mean target (``classes`` None)."""

    def __init__(self, y, k, classes=None):
        self.y, self.k, self.classes = np.asarray(y), int(k), classes

    def predict(self, D):
        D = np.asarray(D, dtype=float)
        k = min(self.k, D.shape[1])
        nearest = np.argpartition(D, k - 1, axis=1)[:, :k] if k < D.shape[1] else np.argsort(D, axis=1)
        labels = self.y[nearest]
        if self.classes is None:
            return labels.mean(axis=1)
        codes = np.searchsorted(self.classes, labels)
        counts = np.zeros((D.shape[0], self.classes.size))
        np.add.at(counts, (np.arange(D.shape[0])[:, None], codes), 1.0)
        return self.classes[np.argmax(counts, axis=1)]


class LowRankModel:
    """The winner of the low-rank route refitted on every training row of the block: distances of new
    objects to the landmarks → kernel rows (the kernel's distance transformer) → eigen-coordinates of
    the training representation → the model; a regressor's predictions in the targets' units
    (``scaler``: the :class:`~krein.model_selection._candidates.TargetScaler` of the training targets)."""

    def __init__(self, transformer, representation, model, scaler=None):
        self.transformer, self.representation = transformer, representation
        self.model, self.scaler = model, scaler

    @classmethod
    def fit(cls, kernel, family, params, y, classes, scaler=None):
        """Fit ``family`` with ``params`` on the one-shot eigendecomposition of all rows of ``kernel``."""
        representation = nystroem_fold(kernel, np.arange(kernel.inputs.shape[0]))
        targets = y if scaler is None else scaler.transform(y)
        model = family.low_rank(representation, targets, [params], classes)[0]
        return cls(kernel.transformer, representation, model, scaler)

    def _coordinates(self, D):
        rows = D if self.transformer is None else self.transformer.transform(D)
        return self.representation.coordinates(rows)

    def decision_function(self, D):
        """Decision values of test objects from their distances ``D`` to the landmarks."""
        return self.model.decision_function(self._coordinates(D))

    def predict(self, D):
        """Predictions of test objects from their distances ``D`` to the landmarks."""
        predictions = self.model.predict(self._coordinates(D))
        return predictions if self.scaler is None else self.scaler.inverse_transform(predictions)

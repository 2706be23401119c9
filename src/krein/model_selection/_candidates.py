"""The route's candidates: the kernels a distance or a similarity gives, and the methods with their grids.

:class:`KernelNormalizer` centres and scales every candidate kernel, :class:`TargetScaler` standardizes
real targets; a :class:`KernelChoice` turns the input into kernel rows, a :class:`Family` is one method
with its grid, exact (an estimator on a precomputed kernel) and, where it has one, at low rank (a fit on
a fold's Nyström representation, :mod:`krein.model_selection._low_rank`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.model_selection import ParameterGrid
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor
from sklearn.svm import SVC, SVR
from sklearn.utils.validation import check_is_fitted

from .._scaling import target_statistics
from .._validation import check_precomputed_test_kernel, check_square_kernel
from ..least_squares import (
    KreinRidge,
    KreinRidgeClassifier,
    VarianceConstrainedKrein,
    VarianceConstrainedKreinClassifier,
)
from ..logistic import IndefiniteLogisticRegression
from ..spectral import SpectrumTransformer, center_kernel
from ..svm import IndefiniteSVC, IndefiniteSVR, KreinSquaredHingeSVC
from . import _low_rank


class KernelNormalizer(TransformerMixin, BaseEstimator):
    """Centre a precomputed kernel and divide it by its scale, with consistent test rows.

    ``fit(K)`` on the n × n training kernel stores its column means ``k̄`` and grand mean ``k̿`` and the
    scale ``s`` = mean |diagonal| of the centred kernel ``HKH`` (its root mean square entry if the
    diagonal vanishes); ``transform(K_test)`` maps t × n test-versus-train rows to
    ``(k(x, xⱼ) − mean_l k(x, x_l) − k̄ⱼ + k̿) / s``, the rows of the centred, scaled joint kernel.
    The result does not change when ``K`` is multiplied by a constant, so penalties chosen on it are
    relative to the kernel's scale. With ``center=False`` it only divides by the scale (of ``K``).
    """

    def __init__(self, center=True):
        self.center = center

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = True
        return tags

    def fit(self, K, y=None):
        self.fit_transform(K)
        return self

    def fit_transform(self, K, y=None):
        K = check_square_kernel(K, "K")
        self.n_features_in_ = K.shape[0]
        if self.center:
            centred, self.column_means_ = center_kernel(K)
            centred = 0.5 * (centred + centred.T)
        else:
            centred, self.column_means_ = K, np.zeros(K.shape[0])
        self.grand_mean_ = float(self.column_means_.mean())
        scale = float(np.abs(np.diag(centred)).mean())
        if not scale > 0:
            scale = float(np.sqrt(np.mean(np.square(centred))))
        if not (scale > 0 and np.isfinite(scale)):
            raise ValueError("The training kernel is constant: after centring it is zero, nothing to learn.")
        self.scale_ = scale
        return centred / scale

    def transform(self, K):
        check_is_fitted(self, "scale_")
        K = check_precomputed_test_kernel(K, self)
        if self.center:
            K = K - K.mean(axis=1, keepdims=True) - self.column_means_[None, :] + self.grand_mean_
        return K / self.scale_


class TargetScaler(TransformerMixin, BaseEstimator):
    """Standardize real targets, ``(y − ȳ) / s``, without overflow for targets near the float limits.

    ``ȳ`` and ``s`` are the mean and standard deviation of the training targets
    (:func:`krein._scaling.target_statistics`: formed in units of a power of two, since targets of
    size 1e160 have squares beyond the float range; for constant targets ``s`` is their magnitude,
    and 1 for zeros). 1-D or (n, 1) arrays.
    """

    def fit(self, y, X=None):
        mean, scale = target_statistics(np.asarray(y, dtype=np.float64).ravel())
        self.mean_, self.scale_ = float(mean), float(scale)
        return self

    def transform(self, y):
        return (np.asarray(y, dtype=np.float64) - self.mean_) / self.scale_

    def inverse_transform(self, y):
        return np.asarray(y, dtype=np.float64) * self.scale_ + self.mean_


class KernelRows(TransformerMixin, BaseEstimator):
    """Points to kernel rows against the training points: ``K(X, X_fit)`` (``K(X)`` at fit), with
    ``kernel_`` a copy of the kernel fitted to the training points (:meth:`~krein.kernels.Kernel.fit`;
    on the low-rank route, the landmarks)."""

    def __init__(self, kernel=None):
        self.kernel = kernel

    def fit(self, X, y=None):
        self.fit_transform(X)
        return self

    def fit_transform(self, X, y=None):
        self.X_fit_ = np.asarray(X, dtype=np.float64)
        self.kernel_ = clone(self.kernel)
        return self.kernel_.fit_gram(self.X_fit_)

    def transform(self, X):
        check_is_fitted(self, "X_fit_")
        return self.kernel_(np.asarray(X, dtype=np.float64), self.X_fit_)


class SelectDistance(TransformerMixin, BaseEstimator):
    """One distance of a stack ``(k, n, n)`` of distance matrices (several metrics on the same objects),
    passed through ``transformer`` (None: the distance itself, for nearest neighbours)."""

    def __init__(self, index=0, transformer=None):
        self.index, self.transformer = index, transformer

    def fit(self, S, y=None):
        self.fit_transform(S)
        return self

    def fit_transform(self, S, y=None):
        D = np.asarray(S)[self.index]
        return D if self.transformer is None else self.transformer.fit_transform(D)

    def transform(self, S):
        D = np.asarray(S)[self.index]
        return D if self.transformer is None else self.transformer.transform(D)


class KernelSum(TransformerMixin, BaseEstimator):
    """The uniform combination of the kernels of several distances: ``Σᵢ K̂ᵢ / k``, each ``K̂ᵢ`` the kernel
    of distance ``i`` of a stack ``(k, n, n)`` (by ``transformers[i]``) centred and divided by its scale
    (:class:`KernelNormalizer`), so that no distance dominates by its unit.

    The equal-weight sum of normalized base kernels is the standard baseline of multiple kernel learning,
    rarely beaten by learned weights (Cortes, Mohri & Rostamizadeh, "Algorithms for learning kernels
    based on centered alignment", JMLR 13, 2012; Gönen & Alpaydın, JMLR 12, 2011); with indefinite base
    kernels their sum is indefinite too, and the Kreĭn-space methods of the route take it as it is.
    """

    def __init__(self, transformers=()):
        self.transformers = transformers

    def fit(self, S, y=None):
        self.fit_transform(S)
        return self

    def fit_transform(self, S, y=None):
        S = np.asarray(S)
        self.normalizers_ = [KernelNormalizer() for _ in self.transformers]
        parts = [
            normalizer.fit_transform(transformer.fit_transform(D))
            for transformer, normalizer, D in zip(self.transformers, self.normalizers_, S, strict=True)
        ]
        return np.mean(parts, axis=0)

    def transform(self, S):
        S = np.asarray(S)
        parts = [
            normalizer.transform(transformer.transform(D))
            for transformer, normalizer, D in zip(self.transformers, self.normalizers_, S, strict=True)
        ]
        return np.mean(parts, axis=0)


@dataclass(frozen=True)
class KernelChoice:
    """One candidate kernel: a label, and the transformer from the input to kernel rows."""

    label: str
    make: object  # () -> transformer or None (the input is the kernel)


@dataclass(frozen=True)
class Family:
    """Candidates of one method: an estimator on a normalized precomputed kernel and its grid.

    ``path``: the estimator's ``fit_path`` fits the whole grid on one preparation. ``spectrum``: the
    estimator is an SVM on the spectrum treatment ``spectrum`` (transformed once per fold).
    ``on_distance``: the estimator learns from the distances themselves (nearest neighbours).
    """

    name: str
    make: object  # (**params) -> a new estimator with those parameters
    grid: dict | list  # a ParameterGrid
    path: bool = False
    spectrum: str | None = None
    on_distance: bool = False
    low_rank: object = None  # (representation, y, settings, classes) -> models, or None

    def settings(self):
        return list(ParameterGrid(self.grid)) if self.grid else [{}]


_C = [0.1, 1.0, 10.0, 100.0]
#: Grids run from the most to the least regularized setting: ties go to the earlier one.
_LAMBDAS = [1.0, 1e-1, 1e-2, 1e-3]
#: The regressor's grid goes on to 1e-6: a penalty nλ relative to the kernel's scale, so λ = 1e-3 on
#: 200 points is 0.2 times the mean diagonal, more than a smooth, nearly noise-free target takes
#: (``KernelRidge(alpha=1e-3)`` on a kernel of unit diagonal is λ = 1e-3/n). On yacht (Gaussian kernel)
#: the inner R² rose from 0.976 to 0.994 and the test RMSE fell from 2.0 to 0.84 (``KernelRidge`` and
#: ``SVR`` tuned by ``GridSearchCV``: 1.5 and 1.3; ``benchmarks/bench_practice.py --regression``).
_REGRESSION_LAMBDAS = _LAMBDAS + [1e-4, 1e-5, 1e-6]
#: λ₋ so large that the negative part is switched off: the clip treatment's ridge.
_CLIP = 1e4
_NEIGHBORS = [15, 9, 7, 5, 3, 1]


def families_of(classifier):
    """The candidate methods of :class:`KreinClassifierCV` (``classifier``) or :class:`KreinRegressorCV`,
    in the order of the tie-break: the Kreĭn-space methods, the spectrum treatments, k-NN."""
    least_squares, variance, proxy, svm, neighbors = (
        (KreinRidgeClassifier, VarianceConstrainedKreinClassifier, IndefiniteSVC, SVC, KNeighborsClassifier)
        if classifier
        else (KreinRidge, VarianceConstrainedKrein, IndefiniteSVR, SVR, KNeighborsRegressor)
    )
    lambdas = _LAMBDAS if classifier else _REGRESSION_LAMBDAS
    families = [
        Family(
            "Kreĭn LS",
            lambda **p: least_squares(kernel="precomputed", center=False, **p),
            {"lambda_plus": lambdas, "lambda_minus": [_CLIP] + lambdas},
            path=True,
            low_rank=_low_rank.fit_least_squares,
        ),
        Family(
            "KREĬN (VC)",
            lambda **p: variance(kernel="precomputed", center=False, **p),
            {"lambda_plus": [1e-1, 1e-3], "lambda_minus": [1e-1, 1e-3]},
            path=True,
            low_rank=partial(_low_rank.fit_least_squares, constrained=True),
        ),
    ]
    if classifier:
        families += [
            Family(
                "SH-SVM",  # a Newton solve per task and setting (O(r³) a step): two settings, λ₊ = λ₋
                lambda **p: KreinSquaredHingeSVC(kernel="precomputed", **p),
                [{"lambda_plus": [lam], "lambda_minus": [lam]} for lam in (1e-2, 1e-4)],
                path=True,  # one representation, the second setting warm-started from the first
            ),
            Family(
                "IKLR",  # the kernel is centred already: an intercept on it, not a second centring
                lambda **p: IndefiniteLogisticRegression(kernel="precomputed", center=False, **p),
                {"alpha": [1e-2, 1e-4]},
            ),
        ]
    families.append(
        Family(
            proxy.__name__,
            lambda **p: proxy(kernel="precomputed", **p),
            {"C": [1.0, 10.0, 100.0], "rho": ["auto"]},
            path=True,
        )
    )
    for method in ("clip", "flip", "shift", "square"):
        families.append(
            Family(
                f"{method}+{svm.__name__}",
                lambda **p: svm(kernel="precomputed", **p),
                {"C": _C},
                spectrum=method,
                low_rank=partial(_low_rank.fit_linear_svm, spectrum=method) if method != "shift" else None,
            )
        )
    families.append(
        Family(
            "k-NN",
            lambda **p: neighbors(metric="precomputed", **p),
            {"n_neighbors": _NEIGHBORS},
            on_distance=True,
        )
    )
    return families


#: Method names of each meta-estimator, in the order of the tie-break (earlier wins a tie).
CLASSIFIER_METHODS = tuple(f.name for f in families_of(classifier=True))
REGRESSOR_METHODS = tuple(f.name for f in families_of(classifier=False))
#: ``methods="auto"`` leaves out the proxy-kernel SVMs above this many training samples and, for
#: classification, above two classes (one proxy problem per one-vs-rest task: on japanesevowels, 9
#: classes, they took more than every other candidate together; at n = 2000, two classes, a third of
#: the exact route's time, as much as all the other candidates' fits); ``methods="all"`` includes them.
PROXY_SVM_AUTO_MAX_SAMPLES = 1000


def kernel_pipeline(choice):
    """The steps from the input to the normalized kernel rows of one kernel choice."""
    steps = [] if choice.make is None else [("kernel", choice.make())]
    return steps + [("normalize", KernelNormalizer())]


def spectrum_steps(family):
    """A spectrum treatment and the rescaling of its result (square changes the scale to λ²)."""
    if family.spectrum is None:
        return []
    return [("spectrum", SpectrumTransformer(family.spectrum)), ("rescale", KernelNormalizer(center=False))]

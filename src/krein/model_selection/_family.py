"""One cross-validated choice across the Kreĭn family: :class:`KreinClassifierCV`, :class:`KreinRegressorCV`.

A practitioner with a similarity or a distance does not know in advance whether clipping the spectrum,
flipping it, learning in the Kreĭn space, or plain nearest neighbours will work best on their data, nor
at what scale the kernel should see the distances. These meta-estimators answer by inner
cross-validation over the whole family and refit the winner on all the training data:

* the input: data with a kernel object, a precomputed similarity, a precomputed distance, or the
  objects themselves (series, strings, SPD matrices) with a distance of
  :func:`krein.dissimilarity.pairwise_distances` or a user's function (:mod:`._objects`);
* the kernel (:mod:`._candidates`): a precomputed similarity, a kernel object (with its
  hyperparameters scaled by ``scales``), or, for a distance,
  :class:`~krein.dissimilarity.GaussianOfDistance` at each relative ``γ`` of ``scales`` and
  :class:`~krein.dissimilarity.DoubleCentering` (``scale="median"``); every kernel is centred and
  divided by its scale (:class:`KernelNormalizer`), so that one grid of penalties serves every data set;
* the methods (``methods``): spectrum treatments with an SVM, the Kreĭn least squares on a (λ₊, λ₋)
  grid (Oglic & Gärtner 2018, Eq. (2)), the variance-constrained model (ibid., problem (4)), the
  squared-hinge SVM (Oglic & Gärtner 2019, Sec. 2.5), IKLR (Liu et al. 2019), the proxy-kernel SVM
  (Luss & d'Aspremont 2009), and, for a distance, k nearest neighbours on it;
* the representation: exact (each inner fold's kernel eigendecomposed once for every method, module
  :mod:`._folds`), or, for a distance with ``n_components``, the landmarks: one n × m block of
  distances serves every fold and candidate (:mod:`._low_rank`).

The choice (:func:`._selection.select_with_baseline`): the best mean inner score, except that the
practitioners' baseline (k-NN on a distance, clip or flip + SVM on a precomputed similarity) is kept
unless the winner's paired per-fold gain over it exceeds ``baseline_margin`` standard errors corrected
for the overlap of the training folds (Nadeau & Bengio 2003): 1 for the classifier, 0 (the best mean
R² wins) for the regressor; the default inner folds (:func:`auto_cv`) repeat 5-fold cross-validation
on small sets.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from numbers import Integral, Real
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MetaEstimatorMixin,
    RegressorMixin,
)
from sklearn.model_selection import BaseCrossValidator
from sklearn.utils._param_validation import Interval, StrOptions

from .._parameters import store_parameters
from .._typing import RandomStateLike
from ..kernels import Kernel
from ._search import RouteSearch

__all__ = ["KreinClassifierCV", "KreinRegressorCV"]


class _KreinFamilyCV(RouteSearch, MetaEstimatorMixin, BaseEstimator):
    """The search shared by :class:`KreinClassifierCV` and :class:`KreinRegressorCV`."""

    _parameter_constraints = {
        "kernel": [Kernel, str, None],
        "metric": [str, callable, list, tuple, None],
        "metric_params": [dict, None],
        "n_components": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left"), None],
        "methods": [StrOptions({"auto", "all"}), list, tuple],
        "scales": [StrOptions({"auto"}), list, tuple],
        "cv": [StrOptions({"auto"}), "cv_object"],
        "baseline_margin": [Interval(Real, 0, None, closed="left")],
        "scoring": [str, callable, None],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        kernel: Kernel | str | None = None,
        *,
        metric: str | Callable[..., float] | None = None,
        metric_params: dict[str, Any] | None = None,
        n_components: Literal["auto"] | int | None = "auto",
        methods: Literal["auto", "all"] | Sequence[str] = "auto",
        scales: Literal["auto"] | Sequence[float] = "auto",
        cv: Literal["auto"] | int | BaseCrossValidator | Iterable = "auto",
        baseline_margin: float = 1.0,
        scoring: str | Callable | None = None,
        random_state: RandomStateLike = None,
        n_jobs: int | None = None,
        verbose: int = 0,
    ) -> None:
        store_parameters(self, locals())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.metric == "precomputed" or (
            isinstance(self.kernel, str) and self.kernel == "precomputed"
        )
        return tags


class KreinClassifierCV(ClassifierMixin, _KreinFamilyCV):
    """The best classifier of the Kreĭn family for a similarity or a distance, by inner cross-validation.

    Give the data one way: ``kernel=`` a :class:`~krein.kernels.Kernel` (or a kernel name) and ``X``
    the data; ``kernel="precomputed"`` and ``X`` the n × n similarity matrix (at predict: the t × n
    test-versus-train similarities); or ``metric="precomputed"`` and ``X`` the n × n **distance**
    matrix (at predict: the t × n test-versus-train distances), as in scikit-learn's
    ``KNeighborsClassifier(metric="precomputed")``; or ``metric=`` a distance of
    :func:`krein.dissimilarity.pairwise_distances` (``"dtw"``, ``"edit"``, ``"affine_invariant"``, ...)
    or a function ``d(a, b)``, and ``X`` the objects themselves (a list of series of any lengths, of
    strings, an array of SPD matrices; at predict: new objects of the same kind). Only the distances
    the representation needs are computed (``n_distance_evaluations_``).

    **At any size** (``n_components``): up to 2000 training objects the route is exact; above, it draws
    m = 500 landmarks once and computes the n × m distances to them: each inner fold's kernel is the
    one-shot Nyström eigendecomposition of its own rows of that block (Oglic & Gärtner 2019, Sec. 2.2),
    shared by every candidate of the fold; the SVMs run as linear (squared-hinge) models on the fold's
    Nyström features, and k-NN is scored on the held-out landmarks, whose distances to every training
    object are in the block (:mod:`krein.model_selection._low_rank`). No n × n matrix is formed.

    The search (module :mod:`krein.model_selection`, see the guide's "Which method?"): for each kernel
    (a distance gives the Gaussians ``exp(−γ D²)`` at ``γ = s/median(D²)`` for ``s`` in ``scales``, and
    the double-centred kernel; a kernel object gives its hyperparameters multiplied by each of
    ``scales``), centred and divided by its scale (:class:`KernelNormalizer`), every method of
    ``methods`` on its grid is trained on each inner training fold and scored on the held-out fold;
    the best mean score wins (ties: the earlier method in :data:`CLASSIFIER_METHODS`) and is refitted
    on all of ``(X, y)``. Each fold's kernel is eigendecomposed once for every method and penalty.

    On a distance, nearest neighbours (the practitioners' baseline) are kept unless the winner beats
    the best k-NN by more than ``baseline_margin`` standard errors of their paired per-fold score
    difference, corrected for the overlap of the training folds (Nadeau & Bengio 2003, the corrected
    resampled t-test): a gain within the noise of the folds does not replace the simpler model. On a
    precomputed similarity the baseline is the better of clip + SVC and flip + SVC, by the same rule.
    ``cv="auto"`` repeats 5-fold cross-validation on small sets (:func:`auto_cv`), so that the
    selection does not follow one partition's noise.

    Parameters
    ----------
    kernel : Kernel, str or None, default=None
        A kernel object or name (``X`` is data), or ``"precomputed"`` (``X`` is a similarity matrix);
        None: the Gaussian kernel on the data, unless ``metric`` is given.
    metric : str, callable or None, default=None
        ``"precomputed"``: ``X`` is a distance matrix; a name of
        :data:`krein.dissimilarity.METRICS` or a function ``d(a, b) -> float`` (symmetric, finite,
        non-negative): ``X`` holds the objects. Then ``kernel`` must be None.
    metric_params : dict or None, default=None
        Keywords of the metric (``{"window": 10}`` for DTW, ...).
    n_components : "auto", int or None, default="auto"
        Landmarks of the low-rank route (distance input or a kernel object); None: always exact;
        ``"auto"``: exact up to 2000 training samples, 500 landmarks above (an integer larger than the
        training set is clamped to it, with a warning). At low rank the methods without a low-rank
        form (shift + SVC, SH-SVM, IKLR, the proxy SVM) are left out.
    methods : "auto", "all" or list of str, default="auto"
        Methods compared, from ``CLASSIFIER_METHODS``: ``"Kreĭn LS"``, ``"KREĬN (VC)"``, ``"SH-SVM"``,
        ``"IKLR"``, ``"IndefiniteSVC"``, ``"clip+SVC"``, ``"flip+SVC"``, ``"shift+SVC"``,
        ``"square+SVC"``, ``"k-NN"`` (distance input only). ``"auto"``: all of them, without the
        proxy-kernel SVM above 1000 training samples or two classes (one proxy problem per
        one-vs-rest task; at n = 2000 it took a third of the route's time); ``"all"``: all of them.
    scales : "auto" or list of float, default="auto"
        Relative kernel scales: ``γ`` multipliers of :class:`~krein.dissimilarity.GaussianOfDistance`
        (auto: 0.3, 1, 3, 10, plus the double-centred kernel), or factors of a kernel object's
        hyperparameters (auto: 0.5, 1, 2).
    cv : "auto", int, cross-validation generator or iterable, default="auto"
        Inner folds. ``"auto"``: stratified 5-fold (3-fold above 1000 samples, fewer if a class has
        fewer members), repeated ``min(5, ⌈2000/n⌉)`` times (:func:`auto_cv`); an integer: stratified
        k-fold, not repeated.
    baseline_margin : float, default=1.0
        Corrected standard errors by which a candidate's mean paired gain over the best k-NN must
        exceed zero for it to replace k-NN (distance input only); 0: the best mean score wins.
    scoring : str, callable or None, default=None
        Selection score (None: accuracy).
    random_state : int, RandomState instance or None, default=None
        Shuffles of ``cv="auto"``'s folds.
    n_jobs : int or None, default=None
        Folds evaluated in parallel (joblib threads), and threads of the distance evaluation.
    verbose : int, default=0
        1: print the plan, the progress of the distances (objects per second, time left), a line per
        finished inner task, the baseline comparison and, at the end of the search, the table of the
        best setting of each method.

    Attributes
    ----------
    best_estimator_ : estimator
        The winner refitted on all the training data: a pipeline (kernel transform, normalizer,
        spectrum treatment if any, model), or a nearest-neighbour classifier on the distance.
    best_params_ : dict
        ``kernel``, ``method`` and the method's parameters of the winner.
    best_score_ : float
        Its mean inner cross-validated score.
    best_index_ : int
        Its row in ``cv_results_``.
    cv_results_ : SearchResults
        One row per candidate (kernel, method, params, per-fold and mean scores, rank); a dict
        ``pandas.DataFrame`` reads, printing as the table of each method's best setting.
    n_eigendecompositions_ : int
        Eigendecompositions of kernel matrices computed by the search and the refit (at low rank:
        one of each kernel's m × m landmark block, and one one-shot eigendecomposition per fold and
        kernel and for the refit).
    n_distance_evaluations_ : int
        Distances computed from objects by the fit (0 for a precomputed matrix): n(n − 1)/2 exact,
        (n − m)·m + m(m − 1)/2 at low rank.
    distance_seconds_ : float
        Wall time the fit spent computing those distances.
    n_components_ : int or None
        Landmarks used (None: exact).
    landmark_indices_ : ndarray of shape (m,) or None
        Their rows in the training data.
    classes_ : ndarray
    n_features_in_ : int

    See Also
    --------
    KreinRegressorCV : The same search for real targets.
    HypergradientSearchCV : Gradient-based tuning of one estimator's penalties and kernel.
    sklearn.model_selection.GridSearchCV : Exhaustive search over one estimator's grid.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.spatial.distance import cdist
    >>> from krein.model_selection import KreinClassifierCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2)); y = (X[:, 0] * X[:, 1] > 0).astype(int)
    >>> D = cdist(X, X, "cityblock")  # any distance
    >>> model = KreinClassifierCV(metric="precomputed", cv=3).fit(D, y)
    >>> model.n_eigendecompositions_ <= 5 * 3 + 1  # one per inner fold and kernel, one for the refit
    True
    >>> model.predict(cdist(X[:3], X, "cityblock")).shape
    (3,)
    """

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """Decision values of the refitted best model, where it has them."""
        X = self._test_input(X)
        return self.best_estimator_.decision_function(X)


class KreinRegressorCV(RegressorMixin, _KreinFamilyCV):
    """The best regressor of the Kreĭn family for a similarity or a distance, by inner cross-validation.

    As :class:`KreinClassifierCV`, for real targets: the methods are ``"Kreĭn LS"``, ``"KREĬN (VC)"``,
    ``"IndefiniteSVR"``, ``"clip+SVR"``, ``"flip+SVR"``, ``"shift+SVR"``, ``"square+SVR"`` and
    ``"k-NN"`` (distance input only), scored by R² (``scoring=None``). The targets are standardized
    by their training mean and standard deviation (:class:`TargetScaler`; the kernel is centred, so
    the models have no other intercept).

    On a distance, k-NN is one candidate among the others: the best mean inner R² wins
    (``baseline_margin=0``), so a neighbour regressor that the inner folds show to be worse is not
    kept. The classifier's rule, which keeps k-NN unless the winner's paired gain exceeds a corrected
    standard error, does not carry over to real targets: a fold's R² is divided by that fold's target
    variance, so a few folds with a small spread of targets swing the paired differences by more than
    the whole gap between the candidates, and the corrected standard error (which multiplies the
    spread by about ``sqrt(1/J + 1/4)`` however many folds ``J`` are repeated) then protects a k-NN that
    is worse on average; on the shipped regression series sets it kept 9- and 15-NN whose inner R²
    were below the Kreĭn least squares' and the shifted SVR's (``benchmarks/bench_practice.py
    --regression``). ``baseline_margin=1`` restores the rule.

    Parameters
    ----------
    kernel, metric, metric_params, n_components, methods, scales, cv, scoring, random_state, n_jobs, \
    verbose
        As in :class:`KreinClassifierCV` (folds not stratified: ``cv="auto"`` repeats plain 5-fold,
        3-fold above 1000 samples; an integer is plain k-fold).
    baseline_margin : float, default=0.0
        Corrected standard errors by which a candidate's mean paired gain in R² over the best k-NN
        must exceed zero for it to replace k-NN (distance input only); 0: the best mean R² wins.

    Attributes
    ----------
    best_estimator_, best_params_, best_score_, best_index_, cv_results_, n_eigendecompositions_, \
    n_distance_evaluations_, distance_seconds_, n_components_, landmark_indices_, n_features_in_
        As in :class:`KreinClassifierCV`.

    See Also
    --------
    KreinClassifierCV : The same search for class labels.
    HypergradientSearchCV : Gradient-based tuning of one estimator's penalties and kernel.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.spatial.distance import cdist
    >>> from krein.model_selection import KreinRegressorCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-2, 2, size=(60, 1)); y = np.sin(2 * X[:, 0])
    >>> model = KreinRegressorCV(metric="precomputed", cv=3).fit(cdist(X, X), y)
    >>> bool(model.score(cdist(X, X), y) > 0.9)
    True
    """

    def __init__(
        self,
        kernel: Kernel | str | None = None,
        *,
        metric: str | Callable[..., float] | None = None,
        metric_params: dict[str, Any] | None = None,
        n_components: Literal["auto"] | int | None = "auto",
        methods: Literal["auto", "all"] | Sequence[str] = "auto",
        scales: Literal["auto"] | Sequence[float] = "auto",
        cv: Literal["auto"] | int | BaseCrossValidator | Iterable = "auto",
        baseline_margin: float = 0.0,
        scoring: str | Callable | None = None,
        random_state: RandomStateLike = None,
        n_jobs: int | None = None,
        verbose: int = 0,
    ) -> None:
        store_parameters(self, locals())

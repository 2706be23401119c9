"""The public Kreĭn least squares estimators: a target encoding (:class:`_Regressor` or :class:`_Classifier`)
over a model (:class:`~krein.least_squares._model._KreinLeastSquares`: ridge, the fit path and the
hyperparameter-search protocol; or :class:`~krein.least_squares._model._VarianceConstrained`)."""

from __future__ import annotations

from typing import Literal

from .._parameters import store_parameters
from .._typing import FloatOrAuto, LandmarkMethod, LandmarkRank, RandomStateLike
from ..kernels import Kernel
from ..representation import SPECTRAL_PARAMETERS_DOC
from ._model import _Classifier, _KreinLeastSquares, _Regressor, _VarianceConstrained

__all__ = [
    "KreinRidge",
    "KreinRidgeClassifier",
    "VarianceConstrainedKrein",
    "VarianceConstrainedKreinClassifier",
]

_COMMON_PARAMETERS_DOC = f"""kernel : Kernel, str or "precomputed", default="gaussian"
        A :class:`krein.kernels.Kernel`, a kernel name (e.g. ``"gaussian"``, ``"sigmoid"``,
        ``"delta_gaussian"``) or ``"precomputed"`` (then ``X`` is the n×n training kernel at fit and the
        t×n test-versus-train kernel at predict time).
    lambda_plus, lambda_minus : float or "auto", default="auto"
        λ₊, λ₋ > 0: weights of ‖f₊‖² and ‖f₋‖² in the risk ``(1/n) Σ (f(xᵢ) − yᵢ)² + λ₊‖f₊‖² + …``.
        ``"auto"``: ``s / n`` with the kernel's scale ``s = Σ|σᵢ|/n`` (the mean absolute eigenvalue of the
        centred training kernel): on a kernel of unit scale (a Gaussian's) the penalty ``nλ = 1`` of
        scikit-learn's ``KernelRidge(alpha=1)``, and the same model when the kernel is multiplied by a
        constant; a number is used as it is (the papers' grids). A hyperparameter search started from
        the estimator's own values (``HypergradientSearchCV(n_restarts=0)``) starts "auto" at 1e-2.
    {SPECTRAL_PARAMETERS_DOC.replace("center : bool", "center : bool, default=True", 1)}
        The targets are centred with the kernel, as the paper assumes.
    nystroem_split : {{"approximation", "landmarks"}}, default="approximation"
        Only with ``n_components``: the Kreĭn decomposition ``H₊ ⊕ H₋`` of the low-rank model.
        ``"approximation"``: H± spanned by the eigenvectors of ``K̃`` with positive/negative eigenvalues
        (a diagonal penalty in the one-shot eigenbasis). ``"landmarks"``: the paper's Sec. 2.4, features
        ``Φ = K_XZ U_Z |D|^{{-1/2}} S`` split by the signs ``S`` of the eigenvalues of ``K_ZZ``, i.e.
        ``z* = (ΦᵀΦ + nΛ±)⁻¹ Φᵀy`` and ``f(x) = k_x U_Z |D|^{{-1/2}} S z*`` (O(m³) more per fit); with
        ``center=True`` the split of the centred kernel's landmark functions, by the eigenvectors of the
        centred ``K̃_ZZ`` (the same kernel ``H K̃ H``). The two agree for a positive definite kernel and
        for m = n (centred or not), and differ on an indefinite kernel with m < n (see
        :mod:`krein.least_squares._spectral`): the decomposition of a Kreĭn space is not unique, and
        ``H₊`` of ``K_ZZ`` is not orthogonal to ``H₋`` over the training points."""

_COMMON_ATTRIBUTES_DOC = """dual_coef_ : ndarray of shape (n_points,) or (n_tasks, n_points)
        α with ``f(x) = Σᵢ αᵢ k(x, pᵢ) + intercept_``; the points are the training points (exact) or
        the landmarks ``landmark_indices_`` (Nyström).
    intercept_ : float or ndarray of shape (n_targets,)
    representation_ : krein.representation.SpectralRepresentation
        Spectral representation of the (centred) training kernel; reused by :meth:`fit_path`.
    eigenvalues_ : ndarray of shape (r,)
        Its retained signed eigenvalues.
    indefiniteness_ : float
        ι of the training kernel (Sec. 5 of the 2018 paper).
    landmark_indices_ : ndarray or None
    kernel_ : Kernel or "precomputed"
    X_fit_ : ndarray of shape (n_points, n_features)
        The points test points are compared with (kernel objects only): the training inputs (exact) or
        the landmarks (Nyström; also ``representation_.points``).
    n_features_in_ : int"""


_CLASSES_DOC = "classes_ : ndarray of shape (n_classes,)"

_LABEL_ENCODING_DOC = """label_encoding : {"plain", "balanced"}, default="plain"
        The real labels fitted per one-vs-rest task. ``"plain"``: ``+1`` / ``−1``, as scikit-learn's
        ``RidgeClassifier`` (the intercept carries the class ratio; for the misclassification rate).
        ``"balanced"``: the class-balanced labels ``y₊ = √(n₋/n₊)``, ``y₋ = −√(n₊/n₋)`` of Appendix C
        of Oglic & Gärtner (2018), the papers' protocol (both classes weigh equally, as for the
        balanced error rate; on imbalanced data it predicts the small class more often)."""


class KreinRidge(_Regressor, _KreinLeastSquares):
    __doc__ = f"""Kreĭn kernel ridge regression (Kreĭn LSM; Oglic & Gärtner 2019, Sec. 2.4).

    Minimizes ``(1/n) Σ (f(xᵢ) − yᵢ)² + λ₊‖f₊‖² + λ₋‖f₋‖²`` over a reproducing kernel Kreĭn space
    ``K = H₊ ⊕ H₋`` (``f = f₊ + f₋``). With ``K = U D Uᵀ``, ``S = sign(D)`` the solution is
    ``α = (H + nΛ±)⁻¹ P y`` with ``H = U|D|Uᵀ`` (the flip-spectrum matrix), ``P = U S Uᵀ`` and
    ``Λ± = λ₊S₊ + λ₋|S₋|``. For ``λ₊ = λ₋`` it equals kernel ridge regression on the flip-spectrum
    matrix with the out-of-sample map ``k_xᵀ P`` (Proposition 2 of that paper). One eigendecomposition
    serves every (λ₊, λ₋) (:meth:`fit_path`).

    Parameters
    ----------
    {_COMMON_PARAMETERS_DOC}

    Attributes
    ----------
    {_COMMON_ATTRIBUTES_DOC}

    See Also
    --------
    KreinRidgeClassifier : The same model on class labels.
    VarianceConstrainedKrein : Kreĭn least squares under a variance constraint, globally optimal.
    krein.model_selection.HypergradientSearchCV : Tunes λ₊, λ₋ and the kernel by hypergradients.
    sklearn.kernel_ridge.KernelRidge : The positive definite special case (λ₊ = λ₋, K ⪰ 0).

    Examples
    --------
    >>> from krein.least_squares import KreinRidge
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 3))
    >>> y = np.sin(X[:, 0]) + 0.5 * X[:, 1]
    >>> model = KreinRidge(kernel="sigmoid").fit(X[:60], y[:60])
    >>> print(round(model.score(X[60:], y[60:]), 2))  # R² on the held-out points
    0.83
    >>> print(round(model.indefiniteness_, 2))  # the sigmoid kernel is indefinite
    0.25
    >>> low_rank = KreinRidge(kernel="sigmoid", n_components=30, random_state=0).fit(X[:60], y[:60])
    >>> low_rank.dual_coef_.shape  # one coefficient per landmark
    (30,)
    """


class KreinRidgeClassifier(_Classifier, _KreinLeastSquares):
    __doc__ = f"""Kreĭn kernel ridge classifier (Kreĭn LSM of Oglic & Gärtner 2019 on real labels).

    :class:`KreinRidge` fitted on the labels ``+1`` / ``−1`` (or, ``label_encoding="balanced"``, the
    class-balanced labels of Appendix C of Oglic & Gärtner 2018); the predicted class is the sign of
    the prediction. Multiclass problems are solved one-vs-rest (one target per class, sharing the
    eigendecomposition) and predict the class of the largest decision value.

    Parameters
    ----------
    {_COMMON_PARAMETERS_DOC}
    {_LABEL_ENCODING_DOC}

    Attributes
    ----------
    {_CLASSES_DOC}
    {_COMMON_ATTRIBUTES_DOC}

    See Also
    --------
    KreinRidge : The regression model it fits on real labels.
    VarianceConstrainedKreinClassifier : The variance-constrained classifier.
    krein.svm.KreinSquaredHingeSVC : The Kreĭn squared-hinge SVM.

    Examples
    --------
    >>> from krein.least_squares import KreinRidgeClassifier
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 3))
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> model = KreinRidgeClassifier(kernel="sigmoid").fit(X[:60], y[:60])
    >>> print(round(model.score(X[60:], y[60:]), 2))  # accuracy on the held-out points
    0.9
    >>> model.classes_
    array([0, 1])
    """

    _parameter_constraints = {
        **_KreinLeastSquares._parameter_constraints,
        **_Classifier._label_encoding_constraint,
    }

    def __init__(
        self,
        kernel: Kernel | str = "gaussian",
        *,
        lambda_plus: FloatOrAuto = "auto",
        lambda_minus: FloatOrAuto = "auto",
        label_encoding: Literal["plain", "balanced"] = "plain",
        center: bool = True,
        n_components: int | None = None,
        landmarks: LandmarkMethod = "uniform",
        landmark_rank: LandmarkRank = "full",
        nystroem_split: Literal["approximation", "landmarks"] = "approximation",
        random_state: RandomStateLike = None,
        working_memory: float | None = None,
    ) -> None:
        store_parameters(self, locals())


_VC_PARAMETERS_DOC = f"""{_COMMON_PARAMETERS_DOC}
    radius : float or None, default=None
        r > 0: the standard deviation of the training predictions, ``(1/n) Σ f(xᵢ)² = r²`` (centred).
        None: the standard deviation of the training targets.
    regularization : {{"decomposition", "krein"}}, default="decomposition"
        ``"decomposition"``: λ₊‖f₊‖² + λ₋‖f₋‖² (the KREĬN problem (3); λ₊ = λ₋ is FLIP, the strong
        topology). ``"krein"``: λ₊‖f₊‖² − λ₋‖f₋‖², i.e. λ⟨f, f⟩_K for λ₊ = λ₋ (OMCS-KREĬN, problem (1))."""

_VC_ATTRIBUTES_DOC = """multiplier_ : float or ndarray of shape (n_targets,)
        The optimal Lagrange multiplier μ* of the variance constraint (Proposition 3: the smallest).
    hard_case_ : bool or ndarray of shape (n_targets,)
        Whether μ* sits at the end of its interval (the targets are orthogonal to the eigenvector
        bounding it); a warning is issued then.
    radius_ : float or ndarray of shape (n_targets,)
        The radius r used."""


class VarianceConstrainedKrein(_Regressor, _VarianceConstrained):
    __doc__ = f"""Variance-constrained Kreĭn least squares, globally optimal (Oglic & Gärtner 2018).

    The KREĬN problem (3): minimize ``(1/n) Σ (f(xᵢ) − yᵢ)² + λ₊‖f₊‖² + λ₋‖f₋‖²`` subject to
    ``(1/n) Σ (f(xᵢ) − f̄)² = r²``. By the representer theorem (Theorem 2) it becomes problem (4), a
    quadratic over a hyperellipsoid; its global minimum is the stationary point with the smallest
    multiplier μ* (Proposition 3), the smallest root of the secular equation (7) in the interval of
    Sec. 3.1, found to machine precision by the monotone root finder of Appendix B; the hard case
    (targets orthogonal to the eigenvector bounding the interval) is solved explicitly. Then
    ``α = (λ₊P₊ − λ₋P₋ − μ*K/n)⁻¹ y / n`` (Eq. (6) in this parametrization). With
    ``regularization="krein"`` it solves OMCS-KREĬN (problem (1)/(2)). Cost: one eigendecomposition;
    :meth:`fit_path` reuses it across (λ₊, λ₋, r).

    Parameters
    ----------
    {_VC_PARAMETERS_DOC}

    Attributes
    ----------
    {_VC_ATTRIBUTES_DOC}
    {_COMMON_ATTRIBUTES_DOC}

    See Also
    --------
    VarianceConstrainedKreinClassifier : The same model on class labels.
    KreinRidge : Kreĭn least squares without the variance constraint.
    krein.optimize.solve_sphere_quadratic : The secular-equation solver behind the global optimum.

    Examples
    --------
    >>> from krein.least_squares import VarianceConstrainedKrein
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 3))
    >>> y = np.sin(X[:, 0]) + 0.5 * X[:, 1]
    >>> model = VarianceConstrainedKrein(kernel="sigmoid").fit(X[:60], y[:60])
    >>> print(round(model.score(X[60:], y[60:]), 2))  # R² on the held-out points
    0.84
    >>> print(round(model.radius_, 2))  # the standard deviation of the training targets
    0.85
    """


class VarianceConstrainedKreinClassifier(_Classifier, _VarianceConstrained):
    __doc__ = f"""Variance-constrained Kreĭn least squares classifier (Oglic & Gärtner 2018, Appendix C).

    :class:`VarianceConstrainedKrein` (problem (3)/(4), global optimum through the secular equation)
    fitted on the labels ``+1`` / ``−1`` (or, ``label_encoding="balanced"``, the class-balanced labels
    of Appendix C, the paper's protocol); the predicted class is the sign of the prediction,
    multiclass problems are solved one-vs-rest (each class its own multiplier μ*, one shared
    eigendecomposition).

    Parameters
    ----------
    {_VC_PARAMETERS_DOC}
    {_LABEL_ENCODING_DOC}

    Attributes
    ----------
    {_CLASSES_DOC}
    {_VC_ATTRIBUTES_DOC}
    {_COMMON_ATTRIBUTES_DOC}

    See Also
    --------
    VarianceConstrainedKrein : The regression model it fits on real labels.
    KreinRidgeClassifier : The classifier without the variance constraint.

    Examples
    --------
    >>> from krein.least_squares import VarianceConstrainedKreinClassifier
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 3))
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> model = VarianceConstrainedKreinClassifier(kernel="sigmoid").fit(X[:60], y[:60])
    >>> print(round(model.score(X[60:], y[60:]), 2))  # accuracy on the held-out points
    0.9
    """

    _parameter_constraints = {
        **_VarianceConstrained._parameter_constraints,
        **_Classifier._label_encoding_constraint,
    }

    def __init__(
        self,
        kernel: Kernel | str = "gaussian",
        *,
        lambda_plus: FloatOrAuto = "auto",
        lambda_minus: FloatOrAuto = "auto",
        radius: float | None = None,
        regularization: Literal["decomposition", "krein"] = "decomposition",
        label_encoding: Literal["plain", "balanced"] = "plain",
        center: bool = True,
        n_components: int | None = None,
        landmarks: LandmarkMethod = "uniform",
        landmark_rank: LandmarkRank = "full",
        nystroem_split: Literal["approximation", "landmarks"] = "approximation",
        random_state: RandomStateLike = None,
        working_memory: float | None = None,
    ) -> None:
        store_parameters(self, locals())

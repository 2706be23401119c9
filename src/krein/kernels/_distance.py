"""A distance between structured objects as a kernel object: ``DistanceKernel`` and its row packing.

Estimators validate their inputs as 2-D float arrays and slice them by rows (landmarks, row blocks,
dask chunks), so a collection of objects (series of different lengths, strings, SPD matrices) travels
through them packed one object per row by :func:`pack_objects`; :class:`DistanceKernel` unpacks the
rows and evaluates its metric (:func:`krein.dissimilarity.pairwise_distances`) only on the pairs
asked for: a low-rank fit with ``n_components=m`` computes the n × m distances to the landmarks and
the m × m distances between them, never the n × n matrix. The distances become a kernel by their
Gaussian or by their double centring through the landmarks (landmark MDS), with the scale and the
reference objects fixed by an explicit fit (:meth:`DistanceKernel.fit`). The distances come from
:mod:`krein.dissimilarity`, the layer below this one (``docs/developer.md``).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable
from typing import Any, Literal, NoReturn, Self, TypeGuard, cast, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.exceptions import NotFittedError

from ..dissimilarity import double_center, pairwise_distances
from ._base import Kernel

__all__ = ["DISTANCE_TRANSFORMS", "DistanceKernel", "pack_objects", "unpack_objects"]

#: The kernels of a distance: its Gaussian, or its double centring through reference objects.
DISTANCE_TRANSFORMS = ("gaussian", "double_centering")

#: First entry of every packed row (a value no data set holds in its first column by chance).
_PACKED = -1.2345678901234567e307
_ARRAY, _STRING = 0.0, 1.0


def _pack_one(obj, i: int, name: str) -> np.ndarray:
    if isinstance(obj, str):
        return np.concatenate([[_PACKED, _STRING, len(obj)], [float(ord(c)) for c in obj]])
    try:
        arr = np.asarray(obj, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"{name}[{i}] is a {type(obj).__name__}: only strings and numeric arrays are packed"
        ) from None
    return np.concatenate([[_PACKED, _ARRAY, arr.ndim], arr.shape, arr.ravel()])


def pack_objects(objects: Any, *, width: int | None = None, name: str = "objects") -> NDArray[np.float64]:
    """Pack a collection of objects into a 2-D float array, one object per row.

    Row ``i`` is ``[marker, kind, ndim or length, shape..., values..., 0...]`` (a string is stored
    by its code points, an array by its shape and its values in C order), padded with zeros to
    ``width`` columns.  :func:`unpack_objects` inverts it exactly; estimators slice and validate the
    packed rows like any feature matrix, and :class:`DistanceKernel` unpacks them.

    Parameters
    ----------
    objects : list of str or of numeric arrays (shapes may differ), or an array with one object per row
    width : int or None
        Number of columns (default: the longest packed object).
    name : str, default="objects"
        The argument's name in error messages.

    Returns
    -------
    X : ndarray of shape (n_objects, width)
    """
    if isinstance(objects, str | bytes):
        raise TypeError(f"{name} must be a collection of objects, not a single string")
    try:
        items = list(objects)
    except TypeError:
        raise TypeError(f"{name} must be a collection of objects, got {type(objects).__name__}") from None
    rows = [_pack_one(obj, i, name) for i, obj in enumerate(items)]
    if not rows:
        raise ValueError(f"{name} is empty")
    longest = max(len(r) for r in rows)
    if width is None:
        width = longest
    elif not isinstance(width, numbers.Integral) or width < longest:
        raise ValueError(
            f"width must be an integer of at least {longest} (the longest packed object), got {width!r}"
        )
    X = np.zeros((len(rows), int(width)))
    for i, r in enumerate(rows):
        X[i, : len(r)] = r
    return X


def is_packed(X: Any) -> TypeGuard[NDArray[np.float64]]:
    """Whether ``X`` is a 2-D float array whose rows all come from :func:`pack_objects`."""
    return (
        isinstance(X, np.ndarray)
        and X.ndim == 2
        and X.dtype == np.float64
        and X.shape[1] >= 3
        and bool(np.all(X[:, 0] == _PACKED))
    )


def unpack_objects(X: NDArray[np.float64], name: str = "X") -> list:
    """The objects packed in the rows of ``X`` by :func:`pack_objects` (strings or float arrays)."""
    out = []
    for i, row in enumerate(X):
        kind = row[1]
        if kind == _STRING:
            length = int(row[2])
            out.append("".join(map(chr, row[3 : 3 + length].astype(np.int64))))
            continue
        ndim = int(row[2])
        shape = tuple(int(s) for s in row[3 : 3 + ndim])
        size = int(np.prod(shape))
        if kind != _ARRAY or 3 + ndim + size > row.shape[0]:
            raise ValueError(f"{name}[{i}] is not a row packed by pack_objects")
        out.append(row[3 + ndim : 3 + ndim + size].reshape(shape))
    return out


class DistanceKernel(Kernel):
    """A kernel of a distance between objects — its Gaussian, or its double centring (landmark MDS).

    ``D`` is ``pairwise_distances(X, Y, metric=metric, **metric_params)`` (DTW on series of any
    lengths, edit distances on strings, affine-invariant or log-Euclidean distances on SPD
    matrices, a user's function, ...; see :func:`krein.dissimilarity.pairwise_distances`), and
    ``S = γ D∘D`` its scaled squares.

    * ``transform="gaussian"``: ``K = exp(−S) = exp(−γ D²)``; indefinite in general (DTW, edit,
      affine-invariant; positive definite for the Euclidean and log-Euclidean distances).
    * ``transform="double_centering"``: the double centring of ``S`` through the *reference objects*
      ``z₁ … z_r`` given to :meth:`fit` (:func:`~krein.dissimilarity.double_center`)::

          k(x, y) = −½ (S(x, y) − μ(x) − μ(y) + μ̄),  μ(x) = (1/r) Σₖ S(x, zₖ),  μ̄ = (1/r²) Σₖₗ S(zₖ, zₗ).

      On the references it is classical scaling, ``K(Z) = −½ J S_ZZ J`` (``J = I − 11ᵀ/r``), and a
      row of another object is centred with the references' column means of ``S``: the formula of
      :class:`~krein.dissimilarity.DoubleCentering` with the references as its training objects.
      With the m landmarks of a low-rank fit (``n_components=m``) as references the fit computes only
      the n × m distances to the landmarks and the m × m between them — landmark MDS (de Silva &
      Tenenbaum 2004), whose coordinates are the Nyström features of this kernel (Platt 2005).
      ``K(X, Y)`` costs the distances ``D(X, Y)``, plus those of ``X`` and of ``Y`` to the references
      unless they are the references themselves. The kernel annihilates the constant vector on the
      references (:meth:`block_null_vector`), and is indefinite unless D is Euclidean.

    With ``relative=True`` the scale is free of the distance's unit: γ = gamma / median(D²), the
    median over the off-diagonal entries of the reference objects' distances
    (``transform="double_centering"`` with ``gamma=1`` is ``DoubleCentering(scale="median")``).

    **Fitting.** The scale (``relative=True``) and the references (``transform="double_centering"``)
    are statistics of data, so the kernel has a fit: :meth:`fit` fixes them from the reference objects
    ``Z`` (``gamma_``, ``reference_``, ...), and :meth:`fit_gram` does so and returns ``K(Z)`` from the
    one evaluation of the distances ``D(Z)`` it needs anyway. Evaluating the kernel never changes
    it, so ``K(A, B)`` is the same whatever was evaluated before; before a fit it is a
    :class:`~sklearn.exceptions.NotFittedError` naming ``fit``, except for the Gaussian with
    ``relative=False``, a function of its arguments alone (γ = ``gamma``). Every estimator fits its own
    copy of the kernel (the one given is left unfitted): to the training objects in an exact fit,
    and in a low-rank fit to the first uniform sample it draws — the m landmarks
    (``landmarks="uniform"``), or the uniform sketch that ``landmarks="leverage"`` and
    ``"kmeans++"`` start from (double-centred, every landmark row then pays its distances to the
    sketch as well). Why a fit of the kernel rather than a scale that each estimator computes and
    passes in: the kernel's value is defined by these statistics (the double centring needs the
    reference objects themselves and their mean squared distances, which no number passed in
    carries), and the estimators, the Nyström producer and the model-selection route all hold the
    kernel object, so one method serves them all.

    Estimators fitted with this kernel take the objects themselves (a list of series of different
    lengths, a list of strings, an array of SPD matrices): they pack them into rows
    (:func:`pack_objects`, ``takes_objects``) that they validate and slice like feature rows, and the
    kernel unpacks them.  Estimators that validate ``X`` on their own take packed rows (training and
    test objects packed to one width).

    Parameters
    ----------
    metric : str or callable, default="dtw"
        A name accepted by :func:`~krein.dissimilarity.pairwise_distances`, or ``metric(a, b)``.
    transform : {"gaussian", "double_centering"}, default="gaussian"
        ``exp(−γ D²)``, or the double centring of ``γ D²`` through the references (above).
    gamma : float, default=1.0
        γ (``relative=False``) or γ times the median of the squared distances between the reference
        objects.
    relative : bool, default=True
    metric_params : dict or None
        Keywords of the metric (``{"window": 10}`` for DTW, ...).
    n_jobs : int or None
        Threads of the distance evaluation.

    Attributes
    ----------
    gamma_ : float
        The γ in use, set by :meth:`fit`: ``gamma`` over the references' median squared distance
        (``relative=True``), or ``gamma``.
    reference_ : ndarray of shape (r, width) or list
        ``transform="double_centering"``: the reference objects (packed rows, or the objects as given).
    reference_sq_means_ : ndarray of shape (r,)
        Their column means ``μ(zₖ)`` of ``S``.
    grand_sq_mean_ : float
        ``μ̄``.

    References
    ----------
    V. de Silva and J. B. Tenenbaum, "Sparse multidimensional scaling using landmark points",
    Stanford University technical report, 2004.
    J. C. Platt, "FastMap, MetricMap, and Landmark MDS are all Nyström algorithms", AISTATS 2005.

    Examples
    --------
    >>> import numpy as np
    >>> from krein.dissimilarity import DoubleCentering, pairwise_distances
    >>> from krein.kernels import DistanceKernel
    >>> words = ["kernel", "kernels", "krein", "space", "spaces", "pace", "pacer"]
    >>> kernel = DistanceKernel("edit", transform="double_centering").fit(words)  # the references
    >>> K = kernel(words)
    >>> centering = DoubleCentering(scale="median")
    >>> bool(np.allclose(K, centering.fit_transform(pairwise_distances(words, metric="edit"))))
    True
    >>> rows = kernel(["spade"], words)  # a new word, centred with the references' means
    >>> bool(np.allclose(rows, centering.transform(pairwise_distances(["spade"], words, metric="edit"))))
    True
    >>> print(round(float(np.sum(K)), 10))  # K 1 = 0 on the references
    0.0
    >>> bool(np.allclose(kernel(["space", "spaces"]), K[3:5, 3:5]))  # evaluating never refits
    True
    """

    is_positive_definite = False
    takes_objects = True

    def __init__(
        self,
        metric: str | Callable[..., float] = "dtw",
        transform: str = "gaussian",
        gamma: float = 1.0,
        relative: bool = True,
        metric_params: dict[str, Any] | None = None,
        n_jobs: int | None = None,
    ) -> None:
        self.metric = metric
        self.transform = transform
        self.gamma = gamma
        self.relative = relative
        self.metric_params = metric_params
        self.n_jobs = n_jobs

    def rows(self, X: Any) -> NDArray[np.float64]:
        """The objects of ``X`` packed into rows (:func:`pack_objects`); packed rows pass unchanged."""
        return X if is_packed(X) else pack_objects(X, name="X")

    def _check_parameters(self):
        if self.transform not in DISTANCE_TRANSFORMS:
            raise ValueError(f"transform must be one of {DISTANCE_TRANSFORMS}, got {self.transform!r}")
        if (
            isinstance(self.gamma, bool)
            or not isinstance(self.gamma, numbers.Real)
            or not (0 < self.gamma < np.inf)
        ):
            raise ValueError(f"gamma must be a finite positive number, got {self.gamma!r}")
        if not isinstance(self.relative, bool):
            raise TypeError(f"relative must be True or False, got {self.relative!r}")
        if self.metric_params is not None and not isinstance(self.metric_params, dict):
            raise TypeError(f"metric_params must be a dict or None, got {type(self.metric_params).__name__}")

    def _distances(self, X, Y=None):
        a = unpack_objects(X, "X") if is_packed(X) else X
        b = None if Y is None else (unpack_objects(Y, "Y") if is_packed(Y) else Y)
        return pairwise_distances(a, b, metric=self.metric, n_jobs=self.n_jobs, **(self.metric_params or {}))

    # ------------------------------------------------------------------ fitting
    def fit(self, Z: ArrayLike) -> Self:
        """Fix γ and, for the double centring, the reference objects from the objects ``Z``.

        The Gaussian with ``relative=False`` learns nothing from ``Z`` (no distance is computed).

        Parameters
        ----------
        Z : collection of objects, or their packed rows
            The reference objects: the training objects, or the landmarks of a low-rank model.

        Returns
        -------
        self : DistanceKernel
        """
        self._check_parameters()
        if self.relative or self.transform == "double_centering":
            self._fit_distances(Z, self._distances(Z))
        else:
            self.gamma_ = float(self.gamma)
        return self

    def fit_gram(self, Z: ArrayLike) -> NDArray[np.float64]:
        """:meth:`fit` to the objects ``Z`` and return ``K(Z)``, from one evaluation of ``D(Z)``.

        Parameters
        ----------
        Z : collection of objects, or their packed rows

        Returns
        -------
        K : ndarray of shape (n_objects, n_objects)
        """
        self._check_parameters()
        return self._kernel_of(Z, None, self._fit_distances(Z, self._distances(Z)))

    def _fit_distances(self, Z, D):
        """Set the fitted attributes from the distances ``D = D(Z)`` of the references ``Z``; returns
        their scaled squares ``S`` (written over ``D``)."""
        self.gamma_ = self._resolve_scale(D)
        S = self._scaled_squares(D, self.gamma_)
        if self.transform == "double_centering":
            self.reference_ = Z
            self.reference_sq_means_ = S.mean(axis=0)
            self.grand_sq_mean_ = float(self.reference_sq_means_.mean())
        return S

    def _resolve_scale(self, D):
        """γ from the references' distances ``D`` (symmetric): gamma / median of its off-diagonal D²."""
        if not self.relative:
            return float(self.gamma)
        n = D.shape[0]
        if n < 2:
            raise ValueError(
                "relative=True needs at least 2 reference objects (the median of their distances)"
            )
        squared = D[~np.eye(n, dtype=bool)] ** 2
        median = float(np.median(squared))
        if not median > 0:
            raise ValueError(
                "the median squared distance between the reference objects is 0 (more than half of the "
                "pairs coincide): relative=True has no scale; pass relative=False and gamma"
            )
        return float(self.gamma) / median

    def _check_fitted(self):
        """A :class:`~sklearn.exceptions.NotFittedError` naming :meth:`fit` where the kernel needs a
        statistic of reference objects that no fit has given it."""
        if self.transform == "double_centering" and getattr(self, "reference_", None) is None:
            needs = "centres through reference objects (transform='double_centering')"
        elif self.relative and getattr(self, "gamma_", None) is None:
            needs = "takes its scale from the distances between reference objects (relative=True)"
        else:
            return
        raise NotFittedError(
            f"This DistanceKernel {needs} and is not fitted: call kernel.fit(Z) (or kernel.fit_gram(Z)) "
            "with the training objects or the landmarks first. Estimators fit their own copy."
        )

    def _gamma(self):
        """The γ in use: ``gamma_`` (fitted) when ``relative=True``, else ``gamma``."""
        self._check_fitted()
        return self.gamma_ if self.relative else float(self.gamma)

    @staticmethod
    def _scaled_squares(D, gamma):
        """``S = γ D∘D``, written over ``D`` where this call owns it: at n × m = 10⁵ × 500 each copy
        is 400 MB."""
        S = np.square(D, out=D if D.flags.owndata and D.flags.writeable else None)
        S *= gamma
        return S

    def _kernel_of(self, X, Y, S):
        """``K(X, Y)`` of the transform from the scaled squares ``S = γ D(X, Y)²`` (``Y`` None: ``K(X)``),
        written over ``S``."""
        if self.transform == "gaussian":
            return np.exp(np.negative(S, out=S), out=S)
        return self._double_centred(X, Y, S)

    def _is_reference(self, X):
        """Whether ``X`` holds the reference objects (equal packed rows, or the very object given)."""
        reference = self.reference_
        if isinstance(reference, np.ndarray) and is_packed(X):
            return X.shape == reference.shape and bool(np.array_equal(X, reference))
        return X is reference

    def _reference_means(self, X):
        """``μ(x) = (1/r) Σₖ S(x, zₖ)`` of the objects ``X``: stored for the references themselves, from
        the distances of ``X`` to the references otherwise."""
        if self._is_reference(X):
            return self.reference_sq_means_
        return self._gamma() * np.mean(self._distances(X, self.reference_) ** 2, axis=1)

    def block_null_vector(self, Z: ArrayLike) -> NDArray[np.float64] | None:
        """The constant vector when double-centred through the objects ``Z`` themselves (``K(Z) 1 = 0``:
        the references' rows of ``S`` are centred by their own means), otherwise None."""
        if self.transform == "double_centering" and getattr(self, "reference_", None) is not None:
            if self._is_reference(Z):
                return np.ones(len(cast(NDArray[np.float64], Z)))  # Z holds the references
        return None

    def _double_centred(self, X, Y, S):
        """``double_center`` of ``S = γ D(X, Y)²`` through the references (class docstring). The means
        of ``X`` against the references are the row means of ``S`` when ``Y`` holds the references (the
        landmark columns of a low-rank fit), and likewise for ``Y``."""
        if Y is None:
            return double_center(S, self.grand_sq_mean_, self._reference_means(X))
        x_reference, y_reference = self._is_reference(X), self._is_reference(Y)
        rows = S.mean(axis=1) if y_reference and not x_reference else self._reference_means(X)
        columns = S.mean(axis=0) if x_reference and not y_reference else self._reference_means(Y)
        return double_center(S, self.grand_sq_mean_, rows, columns)

    @overload
    def __call__(
        self, X: ArrayLike, Y: ArrayLike | None = None, eval_gradient: Literal[False] = False
    ) -> NDArray[np.float64]: ...

    @overload
    def __call__(self, X: ArrayLike, Y: ArrayLike | None, eval_gradient: Literal[True]) -> NoReturn: ...

    @overload
    def __call__(
        self, X: ArrayLike, Y: ArrayLike | None = None, *, eval_gradient: Literal[True]
    ) -> NoReturn: ...

    @overload
    def __call__(
        self, X: ArrayLike, Y: ArrayLike | None = None, eval_gradient: bool = False
    ) -> NDArray[np.float64]: ...

    def __call__(
        self, X: ArrayLike, Y: ArrayLike | None = None, eval_gradient: bool = False
    ) -> NDArray[np.float64]:
        """K(X, Y) of the transform (class docstring), with the scale and references of :meth:`fit`."""
        if eval_gradient:
            raise ValueError("DistanceKernel has no tunable hyperparameter: eval_gradient is not available")
        self._check_parameters()
        gamma = self._gamma()  # not fitted: the error before any distance
        return self._kernel_of(X, Y, self._scaled_squares(self._distances(X, Y), gamma))

    # the hooks of Kernel's block evaluation (``kernel_blocks(..., reuse=True)``, ``_block``): the
    # rows are objects, not features, and the distance evaluation parallelizes itself
    def _validate(self, X, Y):
        self._check_parameters()
        return X, Y

    def _fill(self, out, X, Y):
        out[...] = self(X, Y)

    def _fill_parallel(self, out, X, Y):
        self._fill(out, X, Y)

    def diag(self, X: ArrayLike) -> NDArray[np.float64]:
        """k(x, x): ``exp(−S(x, x))`` (1 where d(x, x) = 0), or ``−½ (S(x, x) − 2μ(x) + μ̄)`` when
        double centred (``μ(x)`` from the distances of ``X`` to the references)."""
        self._check_parameters()
        return self._diag(X)

    def _diag(self, X):
        """:meth:`diag` once the parameters are checked (the diagonal of a sum or product of kernels)."""
        gamma = self._gamma()
        # X is a collection of objects (series, strings, SPD matrices), packed or not.
        objects = unpack_objects(X, "X") if is_packed(X) else list(cast(Iterable[Any], X))
        if isinstance(self.metric, str):  # every shipped distance vanishes on the diagonal
            d = np.zeros(len(objects))
        else:
            d = np.array([self._distances([x], [x])[0, 0] for x in objects])
        S = gamma * d**2 if np.any(d) else d
        if self.transform == "gaussian":
            return np.exp(-S)
        return -0.5 * (S - 2.0 * self._reference_means(X) + self.grand_sq_mean_)

"""Machinery shared by the estimators: the ``kernel`` argument, one-vs-rest classification and the
``fit_path`` loop.

Every estimator of :mod:`krein` takes ``kernel=`` as a :class:`~krein.kernels.Kernel`, a kernel name
or ``"precomputed"``. :class:`KernelEstimatorMixin` turns that argument and the input ``X`` into a
validated training kernel at fit time and into test-versus-train rows at predict time, and sets the
scikit-learn ``pairwise`` tag for precomputed kernels, so that cross-validation slices kernel matrices
correctly.
"""

from __future__ import annotations

import os

import numpy as np
from sklearn.base import clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from ._validation import (
    check_kernel_magnitude,
    check_precomputed_test_kernel,
    check_square_kernel,
    reject_sparse,
    warn_unrelated_rows,
)
from .kernels import make_kernel

__all__ = [
    "LAMBDA_BOUNDS",
    "KernelEstimatorMixin",
    "available_memory",
    "cgroup_available_memory",
    "check_kernel_memory",
    "rlimit_available_memory",
    "decision_to_labels",
    "fit_path_clones",
    "one_vs_rest_targets",
]

#: Box constraints (natural scale) of λ± in every hypergradient search (least squares and SH-SVM).
LAMBDA_BOUNDS = (1e-10, 1e4)

#: n×n float64 arrays an exact kernel method holds at once (kernel, eigenvectors, solver workspace).
EXACT_METHOD_COPIES = 3


#: A limit at or above this many bytes means "no limit" (cgroup v1 writes 2⁶³ rounded to a page).
UNLIMITED_BYTES = 2**60


def _read_bytes(path):
    """The integer in a cgroup or proc file, None when it is missing, unreadable or "max"."""
    try:
        with open(path) as file:
            text = file.read().split()
    except OSError:
        return None
    if not text or not text[0].isdigit():
        return None
    value = int(text[0])
    return value if value < UNLIMITED_BYTES else None


def _meminfo_available(meminfo="/proc/meminfo"):
    """``MemAvailable`` of the machine, or None."""
    try:
        with open(meminfo) as file:
            for line in file:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _cgroup_directories(root, relative):
    """The cgroup of this process and its ancestors under the mount ``root``, then ``root`` itself (in a
    container the namespace's root is the process's own cgroup)."""
    parts = [part for part in relative.strip("/").split("/") if part]
    directories = [os.path.join(root, *parts[:depth]) for depth in range(len(parts), 0, -1)]
    return directories + [root]


def cgroup_available_memory(proc_cgroup="/proc/self/cgroup", root="/sys/fs/cgroup"):
    """Bytes this process's memory cgroup can still take (v2 ``memory.max − memory.current``, v1
    ``memory.limit_in_bytes − memory.usage_in_bytes``, the least over the cgroup and its ancestors), or
    None without a limit."""
    try:
        with open(proc_cgroup) as file:
            lines = [line.rstrip("\n").split(":", 2) for line in file]
    except OSError:
        return None
    candidates = []
    for fields in lines:
        if len(fields) != 3:
            continue
        _, controllers, relative = fields
        if controllers == "":  # cgroup v2, the unified hierarchy
            directories, files = _cgroup_directories(root, relative), ("memory.max", "memory.current")
        elif "memory" in controllers.split(","):  # cgroup v1, the memory controller
            mount = os.path.join(root, "memory")
            directories = _cgroup_directories(mount, relative)
            files = ("memory.limit_in_bytes", "memory.usage_in_bytes")
        else:
            continue
        for directory in directories:
            limit = _read_bytes(os.path.join(directory, files[0]))
            if limit is not None:
                usage = _read_bytes(os.path.join(directory, files[1])) or 0
                candidates.append(max(limit - usage, 0))
    return min(candidates, default=None)


def _process_status(field, status="/proc/self/status"):
    """A ``kB`` field of /proc/self/status (``VmSize``, ``VmData``) in bytes, or None."""
    try:
        with open(status) as file:
            for line in file:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def rlimit_available_memory():
    """Bytes this process may still map under ``RLIMIT_AS`` (and ``RLIMIT_DATA``), or None."""
    try:
        import resource
    except ImportError:  # not on POSIX
        return None
    candidates = []
    for limit_name, field in (("RLIMIT_AS", "VmSize"), ("RLIMIT_DATA", "VmData")):
        limit = getattr(resource, limit_name, None)
        if limit is None:
            continue
        soft, _ = resource.getrlimit(limit)
        if soft == resource.RLIM_INFINITY or soft >= UNLIMITED_BYTES:
            continue
        candidates.append(max(soft - (_process_status(field) or 0), 0))
    return min(candidates, default=None)


def available_memory():
    """Bytes of memory available to this process, or None when nothing is known.

    The least of the machine's ``MemAvailable`` (/proc/meminfo), what the process's memory cgroup can
    still take (a container's limit, v2 or v1) and what ``RLIMIT_AS``/``RLIMIT_DATA`` still allow: a
    process limited to 1.2 GiB on a machine with 100 GiB free has 1.2 GiB (issue 31).
    """
    known = [
        value
        for value in (_meminfo_available(), cgroup_available_memory(), rlimit_available_memory())
        if value is not None
    ]
    return min(known, default=None)


def check_kernel_memory(n_samples, owner, copies=EXACT_METHOD_COPIES, n_columns=None):
    """Fail at once, naming the low-rank alternative, when an n×n kernel method cannot fit in memory.

    Better a clear ``MemoryError`` before allocating than a process killed by the operating system
    half-way through an eigendecomposition. ``n_columns`` (default ``n_samples``) is the width of
    the kernel block the method holds.
    """
    width = n_samples if n_columns is None else n_columns
    needed = 8.0 * n_samples * width * copies
    available = available_memory()
    if available is not None and needed > available:
        example = "KreinRidge(n_components=1000)"
        if "n_landmarks" in getattr(owner, "get_params", dict)():  # KreinPCA's name for the landmarks
            example = f"{type(owner).__name__}(n_landmarks=1000)"
        raise MemoryError(
            f"{type(owner).__name__} would need about {needed / 2**30:.1f} GiB for the "
            f"{n_samples}×{width} kernel matrix and its factorization, but only "
            f"{available / 2**30:.1f} GiB of memory is available. Use a low-rank model instead, "
            f"e.g. {example} (Nyström landmarks, krein.nystroem), which never forms the n×n matrix."
        )


def is_precomputed(kernel):
    """Whether an estimator's ``kernel`` argument means a precomputed kernel matrix."""
    return isinstance(kernel, str) and kernel.lower() == "precomputed"


class KernelEstimatorMixin:
    """Kernel handling for estimators with a ``kernel`` parameter (put it first in the bases).

    After :meth:`_fit_kernel`, the estimator has ``kernel_`` (a copy of the kernel object, fitted to
    the training inputs, or ``"precomputed"``), ``n_features_in_`` and, for a kernel object, ``X_fit_``
    (the training inputs that test points are compared with).
    """

    #: Largest training-kernel magnitude the estimator's solver accepts (None: no limit).
    _max_kernel_magnitude: float | None = None

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = is_precomputed(self.kernel)
        return tags

    def _fit_kernel(self, X, y=None, **validate_kwargs):
        """Validate the training data and return ``(K, y)`` with ``K`` the n×n training kernel.

        ``validate_kwargs`` go to :func:`sklearn.utils.validation.validate_data` (for ``y``,
        e.g. ``y_numeric=True`` or ``multi_output=True``).
        """
        self.kernel_ = make_kernel(self.kernel)
        precomputed = self.kernel_ == "precomputed"
        if getattr(self.kernel_, "takes_objects", False):
            X = self.kernel_.rows(X)
        reject_sparse(X, "X")
        if y is None:
            X = validate_data(self, X, reset=True, dtype=np.float64)
        else:
            X, y = validate_data(self, X, y, reset=True, dtype=np.float64, **validate_kwargs)
        if precomputed:
            K = check_square_kernel(X, "X")
        else:
            check_kernel_memory(X.shape[0], self)
            self.X_fit_ = X
            # the estimator's copy of the kernel, fitted to the training points (Kernel.fit_gram)
            K = check_square_kernel(self.kernel_.fit_gram(X), "the training kernel", symmetrize=False)
        if self._max_kernel_magnitude is not None:
            check_kernel_magnitude(K, self._max_kernel_magnitude, "X")
        if not np.any(K):
            raise ValueError(
                "The training kernel matrix is all zero: there is nothing to learn from "
                "(check the kernel hyperparameters, e.g. a bandwidth that is far too small)."
            )
        return K, y

    def _test_kernel(self, X):
        """Validate test data and return the t×n test-versus-train kernel rows.

        Warns when some rows are all zero: such a point is unrelated to every training point under
        the kernel (a compact-support kernel such as TL1 or EPANECHNIKOV with too small a bandwidth,
        or a Gaussian that underflows far from the data), so its prediction is a constant of the
        model (the intercept, or the centring's correction), not something learned from the data.
        """
        X = self._test_points(X)
        K = X if self.kernel_ == "precomputed" else self.kernel_(X, self.X_fit_)
        warn_unrelated_rows(K, type(self).__name__)
        return K

    def _test_points(self, X):
        """Validated test points: kernel rows against the training points when precomputed."""
        if self.kernel_ == "precomputed":
            return check_precomputed_test_kernel(X, self)
        if getattr(self.kernel_, "takes_objects", False):  # objects of any size: the kernel checks them
            return self.kernel_.rows(X)
        return validate_data(self, X, reset=False, dtype=np.float64)


def one_vs_rest_targets(y):
    """Classes and ±1 targets for one-vs-rest learning.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels (any hashable, sortable type).

    Returns
    -------
    classes : ndarray of shape (n_classes,)
    Y : ndarray of shape (n_samples, n_tasks)
        ``+1`` for the positive class of each task and ``−1`` otherwise; a single task (positive
        class ``classes[1]``) for binary problems, one task per class otherwise.
    """
    check_classification_targets(y)
    classes, encoded = np.unique(y, return_inverse=True)
    if classes.size < 2:
        raise ValueError(
            f"Classifier can't train when only one class is present: y contains only {classes!r}."
        )
    if classes.size == 2:
        return classes, np.where(encoded == 1, 1.0, -1.0)[:, None]
    Y = -np.ones((encoded.size, classes.size))
    Y[np.arange(encoded.size), encoded] = 1.0
    return classes, Y


def decision_to_labels(scores, classes):
    """Predicted labels from one-vs-rest decision values (a column per task, or a vector)."""
    scores = np.asarray(scores)
    if scores.ndim == 1 or scores.shape[1] == 1:
        return classes[(scores.ravel() > 0).astype(int)]
    return classes[np.argmax(scores, axis=1)]


def fit_path_clones(estimator, params, path_parameters, prepare, fit_prepared):
    """Clones of ``estimator``, one per setting of ``params``, fitted from one shared preparation.

    The work of an estimator's ``fit_path``: the settings may only vary ``path_parameters`` (those
    that leave the kernel matrix unchanged; anything else is a ``ValueError``). ``prepare(base)``
    does the shared work (the kernel and its eigendecomposition, the O(n³) step) once, on a
    validated clone ``base``, and returns it; each setting's clone is validated, gets ``base``'s
    fitted attributes, and ``fit_prepared(model, prepared, previous)`` finishes its fit, where
    ``previous`` is what the call for the previous setting returned (None for the first: a warm
    start along the path). The estimator itself is left as it was, fitted or not.
    """
    params = [dict(p) for p in params]
    for setting in params:
        unknown = set(setting) - path_parameters
        if unknown:
            raise ValueError(
                f"fit_path can only vary {sorted(path_parameters)} (the kernel matrix must stay the "
                f"same); got {sorted(unknown)}."
            )
    base = clone(estimator)
    base._validate_params()
    prepared = prepare(base)
    parameters = base.get_params(deep=False)
    fitted_state = {k: v for k, v in vars(base).items() if k not in parameters}
    models, previous = [], None
    for setting in params:
        model = clone(estimator).set_params(**setting)
        model._validate_params()
        model.__dict__.update(fitted_state)
        previous = fit_prepared(model, prepared, previous)
        models.append(model)
    return models

"""The route's inputs and candidates: what :class:`KreinClassifierCV` and :class:`KreinRegressorCV`
read (data, a precomputed matrix, objects with one or several metrics), the kernels they make of it and
the methods they compare (:mod:`._candidates`), the number of landmarks, and the practitioners' baseline."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, is_classifier
from sklearn.utils.validation import check_array, column_or_1d, validate_data

from .._validation import check_square_kernel
from ..dissimilarity import DoubleCentering, GaussianOfDistance
from ..kernels import make_kernel
from ..representation import clamp_n_components
from ._candidates import (
    _NEIGHBORS,
    PROXY_SVM_AUTO_MAX_SAMPLES,
    Family,
    KernelChoice,
    KernelRows,
    KernelSum,
    SelectDistance,
    families_of,
)
from ._low_rank import AUTO_EXACT_MAX_SAMPLES, AUTO_LANDMARKS
from ._objects import ObjectDistances, metric_label

__all__ = ["RouteInputs"]


class RouteInputs(BaseEstimator):
    """The input side of :class:`~._family._KreinFamilyCV`: validation, kernel choices, methods."""

    # the meta-estimator's parameters (its ``__init__`` stores them)
    kernel: Any
    metric: Any
    metric_params: Any
    n_components: Any
    methods: Any
    scales: Any
    cv: Any
    baseline_margin: float
    scoring: Any
    random_state: Any
    n_jobs: int | None
    verbose: int

    # -- the input ------------------------------------------------------------------------------

    def _is_distance(self):
        if self.kernel is not None and self.metric is not None:
            raise ValueError(
                "Give one of kernel= (X is data or a precomputed similarity) and metric= (X is a distance "
                f"matrix, or objects), not both; got kernel={self.kernel!r}, metric={self.metric!r}."
            )
        return self.metric is not None

    def _takes_objects(self):
        return self._is_distance() and not (isinstance(self.metric, str) and self.metric == "precomputed")

    def _object_distances(self):
        """The metrics on objects, ``[(label, ObjectDistances)]`` (validated before any distance is
        computed; the label ``"distance"`` for one metric), or None for a precomputed matrix or data."""
        if not self._takes_objects():
            if self.metric_params is not None:
                raise ValueError(
                    "metric_params applies to a metric on objects (metric=a name or a callable)."
                )
            return None
        owner = dict(n_jobs=self.n_jobs, verbose=self.verbose, owner=type(self).__name__)
        if not isinstance(self.metric, list | tuple):
            return [("distance", ObjectDistances(self.metric, self.metric_params, **owner))]
        if self.metric_params is not None:
            raise ValueError(
                "metric_params applies to one metric; with a list give each metric's parameters in it: "
                "metric=[('dtw', {'window': 5}), 'msm', ...]."
            )
        if len(self.metric) < 2:
            raise ValueError(f"metric: a list needs at least two metrics, got {self.metric!r}.")
        sources = []
        for entry in self.metric:
            metric, params = entry if isinstance(entry, tuple) and len(entry) == 2 else (entry, None)
            if isinstance(metric, str) and metric == "precomputed":
                raise ValueError(
                    "metric: a list takes metrics on objects (names or callables), not 'precomputed'."
                )
            sources.append((metric_label(metric, params), ObjectDistances(metric, params, **owner)))
        labels = [label for label, _ in sources]
        duplicates = sorted({label for label in labels if labels.count(label) > 1})
        if duplicates:
            raise ValueError(f"metric: the list names {duplicates} more than once.")
        return sources

    def _validate_targets(self, y, n_samples):
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None.")
        y = column_or_1d(check_array(y, ensure_2d=False, dtype=None if is_classifier(self) else np.float64))
        if y.shape[0] != n_samples:
            raise ValueError(f"X holds {n_samples} objects but y has {y.shape[0]} targets.")
        return y

    def _validate_input(self, X, y):
        """``(X, y)``: objects (validated by the metric), or a validated array (square when pairwise)."""
        if self._takes_objects():
            if len(self._sources) == 1:
                X = self._sources[0][1].check(X, "X")
            else:  # every metric reads the objects as given (each validates them first)
                for _, source in self._sources:
                    source.check(X, "X")
                X = X if isinstance(X, np.ndarray) else list(X)
            return X, self._validate_targets(y, len(X))
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None.")
        distance = self._is_distance()
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=not is_classifier(self))
        if self.__sklearn_tags__().input_tags.pairwise:
            name = "X (the precomputed distance matrix)" if distance else "X (the precomputed kernel)"
            X = check_square_kernel(X, name)
            if distance and (X < 0).any():
                raise ValueError(
                    "X holds negative values: a precomputed distance matrix must be non-negative."
                )
        return X, y

    def _landmark_count(self, n_samples):
        """m, or None for the exact route (``n_components="auto"``: exact up to
        :data:`~._low_rank.AUTO_EXACT_MAX_SAMPLES` training objects, then
        :data:`~._low_rank.AUTO_LANDMARKS` landmarks)."""
        if self.n_components is None:
            return None
        if self._sources is not None and len(self._sources) > 1:
            if self.n_components == "auto" and n_samples <= AUTO_EXACT_MAX_SAMPLES:
                return None
            raise ValueError(
                f"n_components={self.n_components!r}: several metrics are searched by the exact route only, "
                f"up to {AUTO_EXACT_MAX_SAMPLES} training objects (n_components=None or 'auto'); got "
                f"{n_samples} objects."
            )
        if self.n_components == "auto":
            return None if n_samples <= AUTO_EXACT_MAX_SAMPLES else min(AUTO_LANDMARKS, n_samples)
        return clamp_n_components(self.n_components, n_samples, stacklevel=4)

    # -- the candidates -------------------------------------------------------------------------

    def _scales(self, default):
        if isinstance(self.scales, str):
            return default
        scales = [float(s) for s in self.scales]
        if not scales or not all(np.isfinite(s) and s > 0 for s in scales):
            raise ValueError(f"scales must be a non-empty list of positive numbers, got {self.scales!r}.")
        return scales

    def _kernel_choices(self):
        if self._is_distance():
            transforms = [
                (f"Gaussian(γ={g:g}·γ₀)", lambda g=g: GaussianOfDistance(gamma=g))
                for g in self._scales([0.3, 1.0, 3.0, 10.0])
            ]
            if isinstance(self.scales, str):
                transforms.append(("double-centred", lambda: DoubleCentering(scale="median")))
            if self._sources is None or len(self._sources) == 1:
                return [KernelChoice(label, make) for label, make in transforms]
            # several metrics: each metric's kernels, and their uniform combination (KernelSum)
            k = len(self._sources)
            choices = [
                KernelChoice(f"{source}: {label}", lambda i=i, make=make: SelectDistance(i, make()))
                for i, (source, _) in enumerate(self._sources)
                for label, make in transforms
            ]
            choices += [
                KernelChoice(f"sum: {label}", lambda make=make: KernelSum([make() for _ in range(k)]))
                for label, make in transforms
            ]
            return choices
        if isinstance(self.kernel, str) and self.kernel == "precomputed":
            if not isinstance(self.scales, str):
                raise ValueError(
                    "scales applies to a distance (metric=) or a kernel object; a precomputed similarity "
                    "has no scale to search."
                )
            return [KernelChoice("precomputed", None)]
        kernel = make_kernel("gaussian" if self.kernel is None else self.kernel)
        factors = self._scales([0.5, 1.0, 2.0] if kernel.n_dims else [1.0])
        if factors != [1.0] and not kernel.n_dims:
            raise ValueError(f"scales: the kernel {kernel!r} has no tunable hyperparameter to scale.")
        return [
            KernelChoice(
                repr(kernel) if f == 1.0 else f"{kernel!r}×{f:g}",
                lambda f=f: KernelRows(kernel.clone_with_theta(kernel.theta + np.log(f))),
            )
            for f in factors
        ]

    def _families(self, n_samples, n_train_min, n_classes, low_rank):
        families = [
            f
            if not f.on_distance
            else Family(
                f.name, f.make, {"n_neighbors": [k for k in _NEIGHBORS if k <= n_train_min]}, on_distance=True
            )
            for f in families_of(is_classifier(self))
        ]
        names = [f.name for f in families]
        if isinstance(self.methods, str):
            costly = n_samples > PROXY_SVM_AUTO_MAX_SAMPLES or n_classes > 2
            chosen = [
                f
                for f in families
                if self.methods == "all" or not (f.name.startswith("Indefinite") and costly)
            ]
        else:
            unknown = sorted(set(self.methods) - set(names))
            if unknown or not self.methods:
                raise ValueError(
                    f"methods must be 'auto', 'all' or a list from {names}; got {self.methods!r}."
                )
            chosen = [f for f in families if f.name in self.methods]
        if not self._is_distance():
            distance_only = [f.name for f in chosen if f.on_distance]
            if distance_only and not isinstance(self.methods, str):
                raise ValueError(f"methods {distance_only} need a distance: pass metric=.")
            chosen = [f for f in chosen if not f.on_distance]
        if low_rank:
            exact_only = [f.name for f in chosen if f.low_rank is None and not f.on_distance]
            if exact_only and not isinstance(self.methods, str):
                raise ValueError(
                    f"methods {exact_only} have no low-rank form (see krein.model_selection._low_rank): "
                    "pass n_components=None for the exact route, or leave them out."
                )
            chosen = [f for f in chosen if f.low_rank is not None or f.on_distance]
        return chosen

    def _baselines(self, families):
        """The practitioners' baseline methods of this input (:func:`select_with_baseline`)."""
        if self._is_distance():
            return {f.name for f in families if f.on_distance}
        if isinstance(self.kernel, str) and self.kernel == "precomputed":
            return {f.name for f in families if f.spectrum in ("clip", "flip")}
        return set()

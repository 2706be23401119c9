"""Inner grid search through ``fit_path``: one warm-started path per inner fold instead of one fit per cell.

:class:`sklearn.model_selection.GridSearchCV` fits every grid point from scratch. The proxy-kernel SVMs
(:meth:`krein.svm.IndefiniteSVC.fit_path`) share one eigendecomposition of the fold's kernel across
the grid and warm-start each (C, ρ) from the previous solution, which is most of the saving. The
selection is the same as GridSearchCV's: the grid point with the best mean validation score (first
one on ties), refitted on all the data (along the same path, up to that point).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.metrics import check_scoring
from sklearn.model_selection import ParameterGrid, check_cv
from sklearn.pipeline import Pipeline
from sklearn.utils.metaestimators import _safe_split

__all__ = ["PathGridSearchCV"]


class PathGridSearchCV(MetaEstimatorMixin, BaseEstimator):
    """Grid search over the path parameters of an estimator with ``fit_path`` (or a pipeline ending in one).

    Parameters
    ----------
    estimator : estimator or Pipeline
        Its final step implements ``fit_path(X, y, params)``; earlier pipeline steps are fitted once
        per fold.
    param_grid : dict
        As for GridSearchCV (pipeline keys ``step__name``; only the final step's parameters).
    cv : int or splitter
    scoring : str or callable, default="accuracy"
    """

    def __init__(self, estimator, param_grid, cv=3, scoring="accuracy"):
        self.estimator = estimator
        self.param_grid = param_grid
        self.cv = cv
        self.scoring = scoring

    def _path(self, X, y, grid):
        """Fitted models (pipelines if the estimator is one) for every point of ``grid``, in order."""
        if not isinstance(self.estimator, Pipeline):
            return clone(self.estimator).fit_path(X, y, grid)
        steps = clone(self.estimator).steps
        head = Pipeline(steps[:-1])
        Xt = head.fit_transform(X, y)
        name, final = steps[-1]
        prefix = f"{name}__"
        stripped = [{key.removeprefix(prefix): value for key, value in point.items()} for point in grid]
        return [Pipeline([*head.steps, (name, model)]) for model in final.fit_path(Xt, y, stripped)]

    def fit(self, X, y):
        grid = list(ParameterGrid(self.param_grid))
        cv = check_cv(self.cv, y, classifier=True)
        scorer = check_scoring(self.estimator, scoring=self.scoring)
        scores = []
        for train, val in cv.split(X, y):
            X_train, y_train = _safe_split(self.estimator, X, y, train)
            X_val, y_val = _safe_split(self.estimator, X, y, val, train)
            scores.append([scorer(model, X_val, y_val) for model in self._path(X_train, y_train, grid)])
        mean = np.mean(scores, axis=0)
        best = int(np.argmax(mean))
        self.cv_results_ = {"params": grid, "mean_test_score": mean}
        self.best_params_, self.best_score_ = grid[best], float(mean[best])
        # the refit follows the same path up to the chosen point (warm starts, one eigendecomposition)
        self.best_estimator_ = self._path(X, y, grid[: best + 1])[-1]
        self.classes_ = getattr(self.best_estimator_, "classes_", None)
        return self

    def predict(self, X):
        return self.best_estimator_.predict(X)

    def decision_function(self, X):
        return self.best_estimator_.decision_function(X)

    def score(self, X, y):
        return check_scoring(self.estimator, scoring=self.scoring)(self.best_estimator_, X, y)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        estimator_tags = self.estimator.__sklearn_tags__()
        tags.estimator_type = estimator_tags.estimator_type
        tags.input_tags.pairwise = estimator_tags.input_tags.pairwise
        return tags

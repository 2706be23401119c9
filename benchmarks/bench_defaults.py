"""The Kreĭn estimators' defaults against the plain scikit-learn estimator, same data, same kernel.

On shipped data (airfoil and yacht regression; pima and ionosphere classification), standardized, 70/30
split with seed 0, a positive definite Gaussian kernel (η = √d) precomputed and multiplied by 1, 1e3 and
1e-3: test RMSE of ``KreinRidge()`` and ``IndefiniteSVR()`` against ``KernelRidge()`` and ``SVR()``
(airfoil with standardized targets, yacht with its targets as shipped), and test error of the Kreĭn
classifiers with their defaults against ``SVC()``. The Kreĭn defaults are ``"auto"`` (relative to the kernel's
scale), so their rows do not move with the scale; scikit-learn's absolute defaults do.

Then, at the natural scale (K×1), the mean test error over 5 stratified 70/30 splits on twelve UCI sets,
several of them imbalanced, of each Kreĭn classifier's defaults against ``SVC()`` (and ``KernelRidge()``
thresholded at 0 on ±1 labels, for the least squares).

Run: ``python benchmarks/bench_defaults.py`` (about a minute; ``--skip-sets`` leaves out the second part).
"""

import warnings

import numpy as np
from sklearn.kernel_ridge import KernelRidge
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC, SVR

from krein.datasets import load_dataset, standardize
from krein.kernels import Gaussian
from krein.least_squares import KreinRidge, KreinRidgeClassifier
from krein.logistic import IndefiniteLogisticRegression
from krein.svm import IndefiniteSVC, IndefiniteSVR, KreinSquaredHingeSVC, KreinSVC


def split(name, seed=0):
    b = load_dataset(name)
    X = standardize(np.asarray(b.data, float))
    y = np.asarray(b.target)
    tr, te = train_test_split(
        np.arange(len(y)),
        test_size=0.3,
        random_state=seed,
        stratify=y if name not in ("airfoil", "yacht") else None,
    )
    K = Gaussian(eta=np.sqrt(X.shape[1]))(X)
    return K, y, tr, te


SCALES = (1.0, 1e3, 1e-3)


def _table(title, rows):
    print(f"{title}\n  {'estimator (defaults)':<32}" + "".join(f"{'K×' + format(c, 'g'):>9}" for c in SCALES))
    for name, values in rows.items():
        print(f"  {name:<32}" + "".join(f"{v:>9.3g}" for v in values))


REGRESSORS = [
    ("KreinRidge()", lambda: KreinRidge(kernel="precomputed")),
    ("KernelRidge() (scikit-learn)", lambda: KernelRidge(kernel="precomputed")),
    ("IndefiniteSVR()", lambda: IndefiniteSVR(kernel="precomputed")),
    ("SVR() (scikit-learn)", lambda: SVR(kernel="precomputed")),
]


def _regression_table(data, standardized):
    K, y, tr, te = split(data)
    if standardized:
        y = (y - y[tr].mean()) / y[tr].std()
    rows = {}
    for name, make in REGRESSORS:
        for c in SCALES:
            est = make().fit(c * K[np.ix_(tr, tr)], y[tr])
            rmse = np.sqrt(np.mean((est.predict(c * K[np.ix_(te, tr)]) - y[te]) ** 2))
            rows.setdefault(name, []).append(rmse)
    targets = "standardized targets" if standardized else f"targets as shipped, sd {y[tr].std():.3g}"
    _table(f"{data}: test RMSE ({targets}), Gaussian η = √d", rows)


def main():
    warnings.simplefilter("ignore")  # the indefinite-kernel and convergence notes are not the point here
    _regression_table("airfoil", standardized=True)
    _regression_table("yacht", standardized=False)  # IndefiniteSVR's epsilon="auto" is 0.1 sd(y)
    classifiers = [
        ("KreinRidgeClassifier()", lambda: KreinRidgeClassifier(kernel="precomputed")),
        ("KreinSVC()", lambda: KreinSVC(kernel="precomputed")),
        ("KreinSquaredHingeSVC()", lambda: KreinSquaredHingeSVC(kernel="precomputed")),
        ("IndefiniteLogisticRegression()", lambda: IndefiniteLogisticRegression(kernel="precomputed")),
        ("IndefiniteSVC()", lambda: IndefiniteSVC(kernel="precomputed")),
        ("SVC() (scikit-learn)", lambda: SVC(kernel="precomputed")),
    ]
    for data in ("pima", "ionosphere"):
        K, y, tr, te = split(data)
        rows = {}
        for name, make in classifiers:
            for c in SCALES:
                est = make().fit(c * K[np.ix_(tr, tr)], y[tr])
                rows.setdefault(name, []).append(100 * (1 - est.score(c * K[np.ix_(te, tr)], y[te])))
        _table(f"{data}: test error (%), Gaussian η = √d", rows)


SETS = (
    "ionosphere", "pima", "sonar", "heart", "australian", "wisconsin",
    "german", "breast-cancer", "parkinsons", "haberman", "transfusion", "climate",
)  # fmt: skip


def _errors_over_sets(classifiers, n_splits=5):
    """Mean test error (%) per set and estimator over ``n_splits`` stratified 70/30 splits, K×1."""
    short = {name: name.split("(")[0].replace("Classifier", "C").replace("IndefiniteLogisticRegression", "IKLR")
             for name, _ in classifiers}  # fmt: skip
    print(f"Mean test error (%) over {n_splits} stratified 70/30 splits, Gaussian η = √d, K×1")
    print(f"  {'data (n, % minority)':<26}" + "".join(f"{short[name][:9]:>10}" for name, _ in classifiers))
    for data in SETS:
        b = load_dataset(data)
        X, y = standardize(np.asarray(b.data, float)), np.asarray(b.target)
        K = Gaussian(eta=np.sqrt(X.shape[1]))(X)
        errors = {name: [] for name, _ in classifiers}
        for seed in range(n_splits):
            tr, te = train_test_split(np.arange(len(y)), test_size=0.3, random_state=seed, stratify=y)
            for name, make in classifiers:
                est = make().fit(K[np.ix_(tr, tr)], y[tr])
                errors[name].append(100 * (1 - est.score(K[np.ix_(te, tr)], y[te])))
        minority = 100 * np.min(np.unique(y, return_counts=True)[1]) / y.size
        label = f"{data} ({y.size}, {minority:.0f} %)"
        print(f"  {label:<26}" + "".join(f"{np.mean(errors[name]):>10.1f}" for name, _ in classifiers))


class _ThresholdedKernelRidge(KernelRidge):
    """scikit-learn's ``KernelRidge()`` on ±1 labels, the sign as the class: the plain least squares."""

    def fit(self, K, y):
        self.classes_ = np.unique(y)
        return super().fit(K, np.where(y == self.classes_[1], 1.0, -1.0))

    def score(self, K, y):
        return np.mean(self.classes_[(self.predict(K) > 0).astype(int)] == y)


if __name__ == "__main__":
    import sys

    main()
    if "--skip-sets" not in sys.argv:
        _errors_over_sets(
            [
                ("KreinRidgeClassifier()", lambda: KreinRidgeClassifier(kernel="precomputed")),
                ("KernelRidge() ±1", lambda: _ThresholdedKernelRidge(kernel="precomputed")),
                ("KreinSVC()", lambda: KreinSVC(kernel="precomputed")),
                ("KreinSquaredHingeSVC()", lambda: KreinSquaredHingeSVC(kernel="precomputed")),
                (
                    "IndefiniteLogisticRegression()",
                    lambda: IndefiniteLogisticRegression(kernel="precomputed"),
                ),
                ("SVC()", lambda: SVC(kernel="precomputed")),
            ]
        )

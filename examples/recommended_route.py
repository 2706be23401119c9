"""The recommended route: a distance or a similarity in, the best model of the Kreĭn family out.

With a **distance** (here DTW between the GunPoint series, UCR's official 50/150 split), three lines:

    D = dtw_distances(series)                                   # all pairs once
    model = KreinClassifierCV(metric="precomputed", random_state=0).fit(D[np.ix_(train, train)], y[train])
    error = 1 - model.score(D[np.ix_(test, train)], y[test])    # test-versus-train distances

With a **similarity** (here the aural-sonar human similarity, 38 negative eigenvalues), the same with
``kernel="precomputed"``. ``KreinClassifierCV`` turns a distance into the scale-free kernels
``GaussianOfDistance`` (exp(−γ D²), γ relative to the median) and ``DoubleCentering(scale="median")``,
and chooses the kernel, the method (Kreĭn least squares, the squared-hinge SVM, IKLR, the proxy SVM,
clip / flip / shift / square + SVC, k-NN on the distance) and its penalty by inner cross-validation, one
eigendecomposition per fold. The script prints the choice, the table of the best setting of each method,
and the test error next to 1-NN on the same distance — what practitioners use today.

The same two steps written out, for a user who has settled on one method:
``make_pipeline(GaussianOfDistance(gamma=3.0), KreinSVC(kernel="precomputed"))`` on ``D``.

Run: ``python examples/recommended_route.py`` (offline, under a minute).
"""

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline

from krein.datasets import load_dataset
from krein.dissimilarity import GaussianOfDistance, dtw_distances
from krein.model_selection import KreinClassifierCV
from krein.svm import KreinSVC


def distance_route():
    data = load_dataset("gunpoint")
    series, y = np.asarray(data.data, dtype=float), np.asarray(data.target)
    train, test = data.train_idx, data.test_idx

    D = dtw_distances(series)
    model = KreinClassifierCV(metric="precomputed", random_state=0).fit(D[np.ix_(train, train)], y[train])
    error = 1 - model.score(D[np.ix_(test, train)], y[test])

    nearest = KNeighborsClassifier(1, metric="precomputed").fit(D[np.ix_(train, train)], y[train])
    error_1nn = 1 - nearest.score(D[np.ix_(test, train)], y[test])
    written_out = make_pipeline(GaussianOfDistance(gamma=3.0), KreinSVC(kernel="precomputed", C=10.0))
    written_out.fit(D[np.ix_(train, train)], y[train])
    error_pipeline = 1 - written_out.score(D[np.ix_(test, train)], y[test])
    print(f"GunPoint / DTW, official split ({train.size} train, {test.size} test series)")
    print(f"chosen: {model.best_params_}  ({model.n_eigendecompositions_} eigendecompositions)")
    print(model.cv_results_)
    print(
        f"test error: KreinClassifierCV {100 * error:.1f} %, 1-NN DTW {100 * error_1nn:.1f} %, "
        f"GaussianOfDistance + KreinSVC {100 * error_pipeline:.1f} %\n"
    )
    return error, error_1nn, error_pipeline


def similarity_route(seed=0):
    data = load_dataset("aural-sonar")
    S, y = np.asarray(data.data, dtype=float), np.asarray(data.target)
    train, test = train_test_split(np.arange(y.size), test_size=0.3, stratify=y, random_state=seed)

    model = KreinClassifierCV(kernel="precomputed", random_state=0).fit(S[np.ix_(train, train)], y[train])
    error = 1 - model.score(S[np.ix_(test, train)], y[test])

    # 1-NN on a similarity: the most similar training object (S.max() - S orders each row the same way)
    nearest = KNeighborsClassifier(1, metric="precomputed").fit(S.max() - S[np.ix_(train, train)], y[train])
    error_1nn = 1 - nearest.score(S.max() - S[np.ix_(test, train)], y[test])
    print(f"aural sonar / human similarity, a 70/30 split ({train.size} train, {test.size} test)")
    print(f"chosen: {model.best_params_}")
    print(f"test error: KreinClassifierCV {100 * error:.1f} %, 1-NN {100 * error_1nn:.1f} %")
    return error, error_1nn


def main():
    return distance_route(), similarity_route()


if __name__ == "__main__":
    main()

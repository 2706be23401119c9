"""Classify multichannel signals through their covariance matrices with a geodesic Gaussian kernel.

Each JapaneseVowels utterance (UEA: 12 LPC cepstrum channels of variable length, 9 speakers) is
summarized by its 12×12 channel covariance matrix, a point on the manifold of symmetric positive
definite (SPD) matrices. The Gaussian of the affine-invariant geodesic distance, exp(−d²/σ²), is
*not* positive definite (Liu et al. 2019, Table I); indefinite kernel logistic regression (IKLR, solved by the
concave–inexact–convex procedure) learns with it and gives class probabilities.

Run: ``python examples/spd_affine_invariant.py`` (offline, a few seconds).
"""

import numpy as np
from sklearn.model_selection import train_test_split

from krein.datasets import load_dataset
from krein.dissimilarity import covariance_descriptors, spd_distances
from krein.logistic import IndefiniteLogisticRegression
from krein.spectral import spectrum_summary


def geodesic_gaussian(distances, sigma2):
    return np.exp(-(distances**2) / sigma2)


def main(seed=0):
    data = load_dataset("japanesevowels")
    labels = np.asarray(data.target)
    covariances = covariance_descriptors(list(data.data), kind="series")  # (n, 6, 6) SPD matrices
    train, test = train_test_split(np.arange(len(labels)), test_size=0.5, stratify=labels, random_state=seed)

    D_train = spd_distances(covariances[train], metric="affine_invariant")
    D_test = spd_distances(covariances[test], covariances[train], metric="affine_invariant")
    sigma2 = np.median(D_train[np.triu_indices_from(D_train, k=1)] ** 2)  # bandwidth from training data
    K_train, K_test = geodesic_gaussian(D_train, sigma2), geodesic_gaussian(D_test, sigma2)
    summary = spectrum_summary(K_train)
    print(
        f"japanesevowels: {covariances.shape[1]}×{covariances.shape[2]} covariances, {len(train)} train; "
        f"affine-invariant Gaussian kernel: {summary['n_negative']} negative eigenvalues "
        f"(smallest {summary['min_eigenvalue']:.3g}), ι = {summary['indefiniteness']:.1e}"
    )

    model = IndefiniteLogisticRegression(kernel="precomputed", alpha=1e-2, random_state=seed)
    model.fit(K_train, labels[train])
    probabilities = model.predict_proba(K_test)  # one column per class, rows sum to 1
    true_class = np.searchsorted(model.classes_, labels[test])
    accuracy = model.score(K_test, labels[test])
    print(
        f"IKLR test accuracy {accuracy:.3f}; mean probability of the true "
        f"class {probabilities[np.arange(len(test)), true_class].mean():.3f}"
    )
    return accuracy, probabilities


if __name__ == "__main__":
    main()

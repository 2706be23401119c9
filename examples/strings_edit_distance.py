"""Classify DNA strings with the edit distance, an indefinite similarity.

Splice-junction sequences (60 nucleotides, 3 classes: exon/intron boundary, intron/exon boundary,
neither) are compared by their Levenshtein distance. Double centering turns the distances into a
similarity, K = −½ H (D∘D) H, which is *not* positive definite. The Kreĭn kernel ridge classifier
learns with it directly, with separate regularization λ₊ and λ₋ of the positive and negative parts
(Oglic & Gärtner 2019, Sec. 2.4); the usual practice clips the negative eigenvalues and trains an SVC.
Both tune their regularization by an inner cross-validation on the training strings.

Run: ``python examples/strings_edit_distance.py`` (offline, a few seconds).
"""

import numpy as np
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.svm import SVC

from krein.datasets import load_dataset
from krein.dissimilarity import DoubleCentering, edit_distances
from krein.least_squares import KreinRidgeClassifier
from krein.spectral import SpectrumTransformer, indefiniteness


def main(n_samples=600, seed=0):
    data = load_dataset("splice-strings")
    strings, labels = np.asarray(data.data, dtype=object), np.asarray(data.target)
    keep, _ = train_test_split(
        np.arange(len(labels)), train_size=n_samples, stratify=labels, random_state=seed
    )
    train, test = train_test_split(keep, test_size=0.3, stratify=labels[keep], random_state=seed)

    # Dissimilarities: train × train for fitting, test × train for predicting, in units of the
    # median training distance (a constant factor, so that one regularization grid fits any data).
    D_train = edit_distances(list(strings[train]))
    scale = np.median(D_train[np.triu_indices_from(D_train, k=1)])
    D_train /= scale
    D_test = edit_distances(list(strings[test]), list(strings[train])) / scale
    K_train = DoubleCentering().fit_transform(D_train)
    print(
        f"splice strings: {len(train)} train, {len(test)} test; ι of the training kernel = "
        f"{indefiniteness(K_train):.3f}"
    )

    krein = make_pipeline(DoubleCentering(), KreinRidgeClassifier(kernel="precomputed"))
    krein_grid = {
        "kreinridgeclassifier__lambda_plus": [1e-3, 1e-2, 1e-1],
        "kreinridgeclassifier__lambda_minus": [1e-3, 1e-2, 1e-1],
    }
    clip = make_pipeline(DoubleCentering(), SpectrumTransformer("clip"), SVC(kernel="precomputed"))
    models = {
        "Kreĭn ridge classifier": GridSearchCV(krein, krein_grid, cv=3),
        "clip + SVC (usual practice)": GridSearchCV(clip, {"svc__C": [0.1, 1.0, 10.0]}, cv=3),
    }
    accuracies = {}
    for name, model in models.items():
        model.fit(D_train, labels[train])
        accuracies[name] = model.score(D_test, labels[test])
        print(f"{name:30s} test accuracy {accuracies[name]:.3f}  (chosen {model.best_params_})")
    return accuracies


if __name__ == "__main__":
    main()

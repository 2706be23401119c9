"""Classify time series with dynamic time warping (DTW), an indefinite similarity.

GunPoint (UCR) holds hand trajectories of actors drawing a gun or pointing a finger. DTW aligns two
series before comparing them; it is the field's distance of choice, but the similarity it induces
(double centering, K = −½ H (D∘D) H) has negative eigenvalues. The variance-constrained Kreĭn model
(Oglic & Gärtner 2018) and the Kreĭn SVM (Loosli et al. 2016) learn with it as it is; a plain SVC
on the same indefinite kernel is what scikit-learn would do without complaint.

Run: ``python examples/time_series_dtw.py`` (offline, a few seconds).
"""

import numpy as np
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.svm import SVC

from krein.datasets import load_dataset
from krein.dissimilarity import DoubleCentering, dtw_distances
from krein.least_squares import VarianceConstrainedKreinClassifier
from krein.spectral import spectrum_summary
from krein.svm import KreinSVC


def main(seed=0):
    data = load_dataset("gunpoint")
    series, labels = np.asarray(data.data, dtype=float), np.asarray(data.target)
    D = dtw_distances(series)  # all pairs once; cross-validation slices train × train and test × train
    summary = spectrum_summary(DoubleCentering().fit_transform(D))
    print(
        f"gunpoint: {len(labels)} series of length {series.shape[1]}; {summary['n_negative']} negative "
        f"eigenvalues, ι = {summary['indefiniteness']:.3f}"
    )

    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=seed)
    models = {
        "variance-constrained Kreĭn": VarianceConstrainedKreinClassifier(
            kernel="precomputed", lambda_plus=1e-3, lambda_minus=1e-3
        ),
        "Kreĭn SVM": KreinSVC(kernel="precomputed", C=10.0),
        "SVC on the indefinite kernel": SVC(kernel="precomputed", C=10.0),
    }
    accuracies = {}
    for name, model in models.items():
        # DoubleCentering is fitted inside each training fold (a pairwise transformer).
        scores = cross_val_score(make_pipeline(DoubleCentering(), model), D, labels, cv=folds)
        accuracies[name] = scores.mean()
        print(f"{name:30s} accuracy {scores.mean():.3f} ± {scores.std():.3f} (5-fold CV)")
    return accuracies


if __name__ == "__main__":
    main()

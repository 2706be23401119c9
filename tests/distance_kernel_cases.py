"""Outputs of every estimator that fits a ``DistanceKernel``, recorded before the kernel's explicit fit.

Until issue 40 (item 4) a ``DistanceKernel`` fixed its scale and references in its first symmetric
evaluation; since then every estimator fits it explicitly (``Kernel.fit_gram``, the Nyström producer's
first uniform sample, ``KernelRows``). ``distance_kernel_outputs.json`` holds the outputs of the
configurations below as the code before that change computed them; ``test_distance_kernel_state.py``
recomputes them and asserts agreement to 1e-12. Regenerate (only when a change of these outputs is
intended) with ``python tests/distance_kernel_cases.py``.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np

from krein.embedding import KreinKMeans, KreinPCA, KreinSpectralClustering
from krein.kernel_learning import KernelLearningRidge
from krein.kernels import DistanceKernel, pack_objects
from krein.least_squares import KreinRidge, KreinRidgeClassifier, SimilarityFeaturesRidge
from krein.logistic import IndefiniteLogisticRegression
from krein.model_selection import KreinClassifierCV
from krein.nystroem import IndefiniteNystroem
from krein.svm import DCASVC, IndefiniteSVC, KreinSquaredHingeSVC, KreinSVC, ModifiedSVC

RECORDED = Path(__file__).with_name("distance_kernel_outputs.json")


def _data():
    """Series of different lengths, strings and SPD matrices: 40 training and 10 test objects each."""
    rng = np.random.default_rng(40)
    series = [np.cumsum(rng.normal(size=k)) for k in rng.integers(12, 24, size=50)]
    strings = ["".join(rng.choice(list("ACGT"), size=k)) for k in rng.integers(20, 30, size=50)]
    M = rng.normal(size=(50, 4, 4))
    spd = list(M @ M.transpose(0, 2, 1) + 0.1 * np.eye(4))
    y = np.array([s[-1] for s in series])
    labels = (y > np.median(y)).astype(int)
    return series, strings, spd, y, labels


def cases():
    series, strings, spd, y, labels = _data()
    train, test = slice(0, 40), slice(40, 50)
    dtw = DistanceKernel("dtw", gamma=2.0)
    edit_centred = DistanceKernel("edit", transform="double_centering")
    spd_centred = DistanceKernel("affine_invariant", transform="double_centering")
    fixed = DistanceKernel("dtw", gamma=0.05, relative=False)

    def regressor(model, objects=series):
        return model.fit(objects[train], y[train]).predict(objects[test])

    def classifier(model, objects=series):
        return model.fit(objects[train], labels[train]).decision_function(objects[test])

    packed, packed_spd = pack_objects(series), pack_objects(spd)
    cases = {
        "KreinRidge exact": lambda: regressor(KreinRidge(kernel=dtw)),
        "KreinRidge uniform centred": lambda: regressor(
            KreinRidge(kernel=dtw, n_components=15, center=True, random_state=0)
        ),
        "KreinRidge leverage": lambda: regressor(
            KreinRidge(kernel=dtw, n_components=15, landmarks="leverage", random_state=1)
        ),
        "KreinRidge kmeans++ double-centred": lambda: regressor(
            KreinRidge(kernel=edit_centred, n_components=15, landmarks="kmeans++", random_state=2), strings
        ),
        "KreinRidge fixed scale": lambda: regressor(
            KreinRidge(kernel=fixed, n_components=15, random_state=0)
        ),
        "KreinRidgeClassifier exact double-centred": lambda: classifier(
            KreinRidgeClassifier(kernel=edit_centred), strings
        ),
        "KreinRidgeClassifier landmark MDS": lambda: classifier(
            KreinRidgeClassifier(kernel=edit_centred, n_components=15, random_state=0), strings
        ),
        "KreinSVC": lambda: classifier(KreinSVC(kernel=dtw)),
        "KreinSquaredHingeSVC low rank": lambda: classifier(
            KreinSquaredHingeSVC(kernel=dtw, n_components=15, random_state=0)
        ),
        "IndefiniteLogisticRegression": lambda: classifier(IndefiniteLogisticRegression(kernel=dtw)),
        "IndefiniteSVC": lambda: classifier(IndefiniteSVC(kernel=dtw, max_iter=50)),
        "ModifiedSVC": lambda: classifier(ModifiedSVC(kernel=dtw)),
        "DCASVC": lambda: classifier(DCASVC(kernel=dtw, max_iter=20)),
        "KreinPCA exact": lambda: KreinPCA(spd_centred, n_components=3).fit(spd[train]).transform(spd[test]),
        "KreinPCA landmarks": lambda: (
            KreinPCA(spd_centred, n_components=3, n_landmarks=12, random_state=0)
            .fit(packed_spd[train])  # KreinPCA's low-rank fit validates X itself: packed rows
            .transform(packed_spd[test])
        ),
        "IndefiniteNystroem": lambda: (
            IndefiniteNystroem(dtw, n_components=12, random_state=0)
            .fit(series[train])
            .transform(series[test])
        ),
        "KreinKMeans": lambda: (
            KreinKMeans(3, kernel=dtw, n_init=2, random_state=0).fit(series[train]).predict(series[test])
        ),
        "KreinSpectralClustering": lambda: (
            KreinSpectralClustering(3, kernel=dtw, n_init=2, random_state=0)
            .fit(packed[train])  # validates X itself: packed rows
            .labels_
        ),
        "KernelLearningRidge": lambda: (
            KernelLearningRidge(
                [DistanceKernel("dtw", gamma=1.0), DistanceKernel("dtw", gamma=4.0)], max_iter=20
            )
            .fit(packed[train], y[train])
            .predict(packed[test])
        ),
        "SimilarityFeaturesRidge fixed scale": lambda: (
            SimilarityFeaturesRidge(kernel=fixed, n_components=15, random_state=0)
            .fit(packed[train], y[train])
            .predict(packed[test])
        ),
        "KreinClassifierCV exact": lambda: (
            KreinClassifierCV(kernel=dtw, n_components=None, methods=["Kreĭn LS"], random_state=0)
            .fit(packed[train], labels[train])
            .decision_function(packed[test])
        ),
        "KreinClassifierCV low rank": lambda: (
            KreinClassifierCV(kernel=dtw, n_components=15, methods=["Kreĭn LS"], random_state=0)
            .fit(packed[train], labels[train])
            .decision_function(packed[test])
        ),
    }
    return cases


def outputs():
    """``{configuration: its outputs as a list of floats}`` (warnings of the small problems silenced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {name: np.ravel(np.asarray(case(), dtype=float)).tolist() for name, case in cases().items()}


if __name__ == "__main__":
    RECORDED.write_text(json.dumps(outputs(), indent=1) + "\n")

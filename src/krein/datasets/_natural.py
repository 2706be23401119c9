"""Each shipped dataset with its natural (dis)similarity, as a kernel matrix.

This is what ``krein spectrum`` reports on: the analogue of Table 1 of Luss & d'Aspremont (2009)
and Table II of Liu et al. (IKLR, 2019).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.spatial.distance import cdist
from sklearn.utils import check_random_state

from ..dissimilarity import (
    DoubleCentering,
    covariance_descriptors,
    dtw_distances,
    edit_distances,
    simpson_similarity,
    spd_distances,
    tangent_distances,
)
from ._base import binarize_images, load_dataset
from ._registry import get_info

__all__ = ["natural_kernel"]

_METHODS_BY_KIND = {
    "vector": ("tl1",),
    "strings": ("edit",),
    "series": ("dtw",),
    "multiseries": ("spd",),
    "images": ("simpson", "tangent", "spd"),
    "dissimilarity": ("centering",),
    "similarity": ("similarity",),
}


def _subsample(n: int, y, max_samples: int | None, random_state, classification: bool):
    if max_samples is None or n <= max_samples:
        return np.arange(n)
    rng = check_random_state(random_state)
    if not classification:
        return np.sort(rng.choice(n, size=max_samples, replace=False))
    # stratified: each class keeps its share (largest remainders get the rounding)
    classes, counts = np.unique(y, return_counts=True)
    quota = counts * max_samples / n
    take = np.floor(quota).astype(int)
    order = np.argsort(-(quota - take), kind="stable")
    take[order[: max_samples - take.sum()]] += 1
    idx = [
        rng.choice(np.flatnonzero(y == c), size=k, replace=False) for c, k in zip(classes, take, strict=True)
    ]
    return np.sort(np.concatenate(idx))


def natural_kernel(
    name: str,
    *,
    method: str | None = None,
    max_samples: int | None = 2000,
    n_jobs: int | None = None,
    random_state: int | np.random.RandomState | None = 0,
) -> tuple[NDArray[np.float64], np.ndarray, str]:
    """Kernel matrix of a shipped dataset under its natural (dis)similarity.

    ======================  ==========================================================
    data                    natural kernel (``method``)
    ======================  ==========================================================
    vector sets             ``"tl1"``: truncated ℓ₁ kernel max(τ − ‖x − x'‖₁, 0) on
                            features min–max scaled to [0, 1], τ = 0.7 d (IKLR, Sec. V-A,
                            Table II)
    splice-strings          ``"edit"``: Levenshtein distances → :class:`DoubleCentering`
    univariate series       ``"dtw"``: DTW distances → :class:`DoubleCentering`
    multichannel series     ``"spd"``: channel covariances, affine-invariant geodesic
                            Gaussian exp(−d²/σ²), σ² = median of the off-diagonal d²
                            (IKLR, Table I)
    digit images            ``"simpson"``: Simpson scores of the binarized images (a
                            similarity, used as is) or ``"tangent"``: mean tangent
                            distances → :class:`DoubleCentering` (Luss & d'Aspremont,
                            Sec. 5.1); digits, digits-3v5, usps, usps-3v5, usps-4v6
    yaleb                   ``"spd"``: 9 × 9 region covariance descriptors of the images,
                            affine-invariant geodesic Gaussian as above (IKLR, Sec. V-C)
    dissimilarity sets      ``"centering"``: K = −½ H (D∘D) H by :class:`DoubleCentering`
                            (Oglic & Gärtner 2018, Appendix C: the *squared*
                            dissimilarities are double-centred); protein, coilyork.
                            coilyork's graph-matching D is asymmetric and is
                            symmetrized as (D + Dᵀ)/2 first (Pekalska & Haasdonk 2009);
                            only its 144 training objects have a full matrix
    similarity sets         ``"similarity"``: the shipped S itself (symmetric);
                            aural-sonar, chen-protein
    ======================  ==========================================================

    For estimators, the same matrices go in through ``kernel="precomputed"``: a similarity
    directly, a dissimilarity through ``make_pipeline(DoubleCentering(), estimator)``, which
    centres each training fold and maps its test rows consistently.

    Parameters
    ----------
    name : str
        A dataset name from :func:`krein.datasets.list_datasets`.
    method : str or None
        Override the default for the dataset (only the alternatives in the table apply).
    max_samples : int or None, default=2000
        Larger datasets are subsampled (stratified for classification) to this many objects,
        since the kernel is dense n × n; ``None`` keeps every object.
    n_jobs : int or None
        Threads for the pairwise computation.
    random_state : int, RandomState or None, default=0
        Seed of the subsample.

    Returns
    -------
    K : ndarray of shape (m, m)
        Symmetric kernel matrix (m = min(n, max_samples)).
    y : ndarray of shape (m,)
        Targets of the same objects.
    description : str
        One line saying which data and which (dis)similarity produced K.
    """
    info = get_info(name)
    allowed = _METHODS_BY_KIND[info.kind]
    if method is None:
        method = info.natural if info.natural in allowed else allowed[0]
    if method not in allowed:
        raise ValueError(
            f"method={method!r} does not apply to {info.name} ({info.kind}); choose one of {allowed}"
        )
    if max_samples is not None and (not isinstance(max_samples, int | np.integer) or max_samples < 2):
        raise ValueError(f"max_samples must be None or an integer >= 2, got {max_samples!r}")
    bunch = load_dataset(info.name)
    y_all = np.asarray(bunch.target)
    n = len(y_all)
    idx = _subsample(n, y_all, max_samples, random_state, info.task == "classification")
    y = y_all[idx]
    size = f"n={len(idx)}" + (f" of {n}" if len(idx) < n else "")
    if method == "tl1":
        X = bunch.data[idx]
        span = X.max(axis=0) - X.min(axis=0)
        Xs = (X - X.min(axis=0)) / np.where(span > 0, span, 1.0)
        tau = 0.7 * X.shape[1]
        K = np.maximum(tau - cdist(Xs, Xs, metric="cityblock"), 0.0)
        desc = f"{info.name} ({size}): TL1 kernel, tau = 0.7 d = {tau:g}, features in [0, 1]"
    elif method == "edit":
        D = edit_distances(bunch.data[idx], n_jobs=n_jobs)
        K = DoubleCentering().fit_transform(D)
        desc = f"{info.name} ({size}): -1/2 H (D*D) H of Levenshtein distances"
    elif method == "dtw":
        D = dtw_distances(bunch.data[idx], n_jobs=n_jobs)
        K = DoubleCentering().fit_transform(D)
        desc = f"{info.name} ({size}): -1/2 H (D*D) H of DTW distances"
    elif method == "centering":
        D = bunch.data[np.ix_(idx, idx)]
        symmetrized = not np.array_equal(D, D.T)
        K = DoubleCentering().fit_transform(0.5 * (D + D.T) if symmetrized else D)
        what = ", D symmetrized as (D + D^T)/2" if symmetrized else ""
        desc = f"{info.name} ({size}): -1/2 H (D*D) H of the shipped dissimilarities{what}"
    elif method == "similarity":
        K = bunch.data[np.ix_(idx, idx)]
        desc = f"{info.name} ({size}): the shipped similarity matrix S"
    elif method == "spd":
        if info.kind == "images":
            C = covariance_descriptors(bunch.data[idx], kind="image")
        else:
            C = covariance_descriptors([bunch.data[i] for i in idx], kind="series")
        D = spd_distances(C, metric="affine_invariant", n_jobs=n_jobs)
        sq = D**2
        sigma2 = float(np.median(sq[np.triu_indices_from(sq, k=1)]))
        K = np.exp(-sq / sigma2)
        desc = (
            f"{info.name} ({size}): affine-invariant geodesic Gaussian exp(-d^2/s^2) on "
            f"{C.shape[1]}x{C.shape[1]} {'region' if info.kind == 'images' else 'channel'} covariances, "
            f"s^2 = median d^2 = {sigma2:.4g}"
        )
    elif method == "simpson":
        S = simpson_similarity(binarize_images(bunch.data[idx]), n_jobs=n_jobs)
        K = S
        desc = f"{info.name} ({size}): Simpson scores of images binarized at half the top grey level"
    else:  # tangent
        D = tangent_distances(bunch.data[idx], n_jobs=n_jobs)
        K = DoubleCentering().fit_transform(D)
        desc = f"{info.name} ({size}): -1/2 H (D*D) H of mean tangent distances"
    return 0.5 * (K + K.T), y, desc

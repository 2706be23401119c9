"""``embeddings``: clustering indefinite similarity data in the Kreĭn space against clip/flip baselines.

Not a paper's table: the comparison asked for by issue #20. On shipped datasets under their natural,
indefinite (dis)similarity (:func:`krein.datasets.natural_kernel`: DTW and edit distances and tangent
distances, double centred; Simpson scores; an affine-invariant geodesic Gaussian; the shipped aural-sonar
and chen-protein similarities and protein and coilyork dissimilarities, double centred), the clusterings of
:mod:`krein.embedding` are scored by the adjusted Rand index (ARI) against the class labels, next to
what a practitioner does today — make the kernel positive semidefinite by clipping or flipping its
spectrum, then run scikit-learn:

================  =====================================================================================
method            clustering
================  =====================================================================================
Kreĭn k-means     :class:`~krein.embedding.KreinKMeans` on K (Hartigan moves, 10 k-means++ starts)
Kreĭn spectral    :class:`~krein.embedding.KreinSpectralClustering` on K: k leading coordinates by |λ|
clip spectral     the same on the clipped kernel (negative part dropped: the ablation)
clip+KMeans       :class:`~sklearn.cluster.KMeans` on the clipped kernel's coordinates ``U₊ Λ₊^{1/2}``
flip+KMeans       KMeans on the flipped kernel's coordinates ``U |Λ|^{1/2}``
clip+SC, flip+SC  :class:`~sklearn.cluster.SpectralClustering` (``affinity="precomputed"``) on the
                  Gaussian affinity ``exp(−d²/median d²)`` of the clipped / flipped kernel's distances
================  =====================================================================================

Every kernel is centred in feature space. Protocol: for each of the seeds, a stratified 80 % subsample
of the objects (the seed also seeds every clustering's restarts); k is the number of classes. The
table reports the ARI as mean ± std over the seeds, bold where Welch's t-test does not find a method
worse than the best, and the n, k, signature (p, q) and ι of each task's full kernel. One PNG per task
shows its embedding (:func:`krein.plotting.plot_embedding`), one more the ARIs.

A second table asks where the class information lies: the accuracy of a logistic regression on the
``PARTS_RANK`` leading positive coordinates, on the ``PARTS_RANK`` leading negative ones, and on both,
out of sample (:class:`~krein.embedding.KreinPCA` fitted on each training fold of a stratified 5-fold
cross-validation, the test rows mapped by ``transform``), beside the majority-class rate.
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.cluster import KMeans, SpectralClustering
from sklearn.metrics import adjusted_rand_score
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.model_selection import train_test_split

from ..embedding import KreinKMeans, KreinPCA, KreinSpectralClustering
from ._framework import ResultTable, experiment

__all__ = ["METHODS", "TASKS", "cluster_scores"]

#: Task name → (dataset, method of :func:`krein.datasets.natural_kernel`).
TASKS = {
    "gunpoint": ("gunpoint", "dtw"),
    "arrowhead": ("arrowhead", "dtw"),
    "italypowerdemand": ("italypowerdemand", "dtw"),
    "splice-strings": ("splice-strings", "edit"),
    "digits-3v5": ("digits-3v5", "simpson"),
    "digits-tangent": ("digits", "tangent"),
    "japanesevowels": ("japanesevowels", "spd"),
    "aural-sonar": ("aural-sonar", "similarity"),
    "chen-protein": ("chen-protein", "similarity"),
    "protein": ("protein", "centering"),
    "coilyork": ("coilyork", "centering"),
}

#: The tasks of the quick form.
QUICK_TASKS = ("aural-sonar", "digits-3v5", "splice-strings")

METHODS = (
    "Kreĭn k-means",
    "Kreĭn spectral",
    "clip spectral",
    "clip+KMeans",
    "flip+KMeans",
    "clip+SC",
    "flip+SC",
)


def _gaussian_affinity(coordinates):
    squares = euclidean_distances(coordinates, squared=True)
    scale = np.median(squares[np.triu_indices_from(squares, k=1)])
    return np.exp(-squares / (scale if scale > 0 else 1.0))


def cluster_scores(K, y, seed):
    """ARI and fit seconds of every method of :data:`METHODS` on the kernel ``K`` with labels ``y``.

    Returns ``{method: (ari, seconds)}``.
    """
    k = np.unique(y).size
    pca = KreinPCA("precomputed").fit(K)
    positive = pca.signature_ > 0
    clip, flip = pca.embedding_[:, positive], pca.embedding_
    runs = {
        "Kreĭn k-means": lambda: KreinKMeans(k, kernel="precomputed", random_state=seed).fit(K).labels_,
        "Kreĭn spectral": lambda: (
            KreinSpectralClustering(k, kernel="precomputed", random_state=seed).fit(K).labels_
        ),
        "clip spectral": lambda: (
            KreinSpectralClustering(k, kernel="precomputed", random_state=seed).fit(clip @ clip.T).labels_
        ),
        "clip+KMeans": lambda: KMeans(k, n_init=10, random_state=seed).fit(clip).labels_,
        "flip+KMeans": lambda: KMeans(k, n_init=10, random_state=seed).fit(flip).labels_,
        "clip+SC": lambda: (
            SpectralClustering(k, affinity="precomputed", random_state=seed)
            .fit(_gaussian_affinity(clip))
            .labels_
        ),
        "flip+SC": lambda: (
            SpectralClustering(k, affinity="precomputed", random_state=seed)
            .fit(_gaussian_affinity(flip))
            .labels_
        ),
    }
    scores = {}
    for method in METHODS:
        start = time.perf_counter()
        labels = runs[method]()
        scores[method] = (float(adjusted_rand_score(y, labels)), time.perf_counter() - start)
    return scores


def _task_cell(task, *, max_samples, n_seeds, seed):
    """Kernel facts and per-seed scores of one task (a JSON-able dict)."""
    from ..datasets import natural_kernel

    dataset, method = TASKS[task]
    K, y, description = natural_kernel(dataset, method=method, max_samples=max_samples, random_state=seed)
    pca = KreinPCA("precomputed").fit(K)
    scores = {m: [] for m in METHODS}
    seconds = {m: [] for m in METHODS}
    for repetition in range(n_seeds):
        state = seed * 1000 + repetition
        index, _ = train_test_split(np.arange(y.size), train_size=0.8, stratify=y, random_state=state)
        index = np.sort(index)
        for m, (ari, elapsed) in cluster_scores(K[np.ix_(index, index)], y[index], state).items():
            scores[m].append(ari)
            seconds[m].append(elapsed)
    return {
        "description": description,
        "n": int(y.size),
        "k": int(np.unique(y).size),
        "p": pca.n_positive_,
        "q": pca.n_negative_,
        "iota": float(pca.indefiniteness_),
        "ari": scores,
        "seconds": seconds,
    }


#: Coordinates of each signature part given to the classifier of the second table.
PARTS_RANK = 20

PARTS = ("majority", "positive part", "negative part", "both parts")


def part_accuracies(K, y, seed):
    """Per-fold accuracies of a logistic regression on each signature part (``{part: [accuracy, ...]}``)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    scores = {part: [] for part in PARTS}
    for train, test in StratifiedKFold(5, shuffle=True, random_state=seed).split(K, y):
        pca = KreinPCA("precomputed").fit(K[np.ix_(train, train)])
        Z_train, Z_test = pca.embedding_, pca.transform(K[np.ix_(test, train)])
        positive = np.flatnonzero(pca.signature_ > 0)[:PARTS_RANK]
        negative = np.flatnonzero(pca.signature_ < 0)[:PARTS_RANK]
        classes, counts = np.unique(y[train], return_counts=True)
        scores["majority"].append(float(np.mean(y[test] == classes[np.argmax(counts)])))
        for part, columns in (
            ("positive part", positive),
            ("negative part", negative),
            ("both parts", np.concatenate([positive, negative])),
        ):
            model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000))
            model.fit(Z_train[:, columns], y[train])
            scores[part].append(float(model.score(Z_test[:, columns], y[test])))
    return scores


def _parts_cell(task, *, max_samples, seed):
    from ..datasets import natural_kernel

    dataset, method = TASKS[task]
    K, y, _ = natural_kernel(dataset, method=method, max_samples=max_samples, random_state=seed)
    return part_accuracies(K, y, seed)


def _ari_figure(table, tasks):
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots(figsize=(max(7.0, 1.6 * len(tasks)), 3.8))
    width = 0.8 / len(METHODS)
    colors = plt.get_cmap("tab10").colors
    for j, method in enumerate(METHODS):
        values = [table.cells[(task, method)].values for task in tasks]
        ax.bar(
            np.arange(len(tasks)) + (j - (len(METHODS) - 1) / 2) * width,
            [np.mean(v) for v in values],
            width,
            yerr=[np.std(v, ddof=1) if len(v) > 1 else 0.0 for v in values],
            color=colors[j],
            label=method,
            error_kw={"linewidth": 0.6},
        )
    ax.set_xticks(np.arange(len(tasks)), tasks, fontsize=8)
    ax.axhline(0.0, color="grey", linewidth=0.6)
    ax.set_ylabel("adjusted Rand index")
    ax.legend(fontsize=7, ncols=4, frameon=False, loc="upper left")
    ax.set_title("clustering indefinite similarity data (mean ± std over seeds)", fontsize=10)
    return figure


@experiment(
    "embeddings",
    description="ARI of Kreĭn k-means / signed spectral clustering vs clip/flip + scikit-learn",
    paper="issue #20 (not a paper's table): Kreĭn embeddings and clustering",
    quick_minutes=0.5,
    full_minutes=15,
    selectable=True,
)
def run(ctx):
    tasks = ctx.select(QUICK_TASKS if ctx.quick else tuple(TASKS))
    max_samples, n_seeds = (150, 3) if ctx.quick else (1000, 10)
    table = ResultTable("Clustering indefinite similarity data", "ARI", lower_is_better=False)
    with ctx.progress(len(tasks), "embeddings") as advance:
        for task in tasks:

            def compute(task=task):
                value = _task_cell(task, max_samples=max_samples, n_seeds=n_seeds, seed=ctx.random_state)
                advance()
                return value

            cell = ctx.cell(task, compute, advance=advance, units=1)
            table.set_task_info(task, n=cell["n"], k=cell["k"], p=cell["p"], q=cell["q"], iota=cell["iota"])
            for method in METHODS:
                table.add(task, method, cell["ari"][method], cell["seconds"][method])
    ctx.report(table, "embeddings")
    ctx.save_figure(_ari_figure(table, tasks), "embeddings_ari")
    parts = ResultTable(
        f"Class information in each signature part ({PARTS_RANK} leading coordinates, 5-fold CV)",
        "accuracy",
        lower_is_better=False,
    )
    with ctx.progress(len(tasks), "embeddings: signature parts") as advance:
        for task in tasks:

            def compute(task=task):
                value = _parts_cell(task, max_samples=max_samples, seed=ctx.random_state)
                advance()
                return value

            cell = ctx.cell(f"{task}-parts", compute, advance=advance, units=1)
            for part in PARTS:
                parts.add(task, part, cell[part])
    ctx.report(parts, "embeddings_parts")
    _embedding_figures(ctx, tasks, max_samples)


def _embedding_figures(ctx, tasks, max_samples):
    from ..datasets import natural_kernel
    from ..plotting import plot_embedding

    for task in tasks:
        dataset, method = TASKS[task]
        K, y, description = natural_kernel(
            dataset, method=method, max_samples=max_samples, random_state=ctx.random_state
        )
        ctx.save_figure(
            plot_embedding(KreinPCA("precomputed").fit(K), y, title=description), f"embedding_{task}"
        )

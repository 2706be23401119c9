"""Kreĭn embedding of DTW distances: look at the data, find its groups, see where the classes lie.

GunPoint (UCR): hand trajectories of an actor drawing a gun or pointing a finger. Dynamic time warping
is not a Euclidean distance, so the double-centred matrix ``K = −½ H (D∘D) H`` is indefinite.
:class:`krein.embedding.KreinPCA` gives every curve coordinates in a pseudo-Euclidean space ℝ^(p, q)
that reproduce K exactly, the negative part kept. The script

1. prints the signature (p, q) and the indefiniteness ι;
2. fits the embedding on a training part and maps the held-out curves with ``transform`` (their
   DTW distances to the training curves only), then trains a logistic regression on the leading
   positive coordinates, on the leading negative ones (what clipping the spectrum throws away) and
   on both: on this data the negative part alone predicts the gesture far above the majority rate,
   and both parts together beat either one;
3. clusters the 213 globins of the chen-protein similarity (four families; a negative coordinate is
   among the four leading ones) with Kreĭn k-means and with spectral clustering on the signed
   embedding, scored by the adjusted Rand index against the families (the two gestures are not
   clusters of the DTW geometry: every method scores about 0 there, see docs/results/embeddings);
4. with ``--plot FILE``, writes the picture of :func:`krein.plotting.plot_embedding`.

Run: ``python examples/krein_embedding.py [--plot embedding.png]``.
"""

import argparse

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import adjusted_rand_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from krein.datasets import natural_kernel
from krein.embedding import KreinKMeans, KreinPCA, KreinSpectralClustering


def main(n_coordinates=20, plot=None):
    K, y, description = natural_kernel("gunpoint")
    pca = KreinPCA("precomputed").fit(K)
    print(description)
    print(f"signature (p, q) = ({pca.n_positive_}, {pca.n_negative_}), ι = {pca.indefiniteness_:.3f}")

    train, test = train_test_split(np.arange(y.size), test_size=0.3, stratify=y, random_state=0)
    embedding = KreinPCA("precomputed").fit(K[np.ix_(train, train)])
    Z_train, Z_test = embedding.embedding_, embedding.transform(K[np.ix_(test, train)])
    positive = np.flatnonzero(embedding.signature_ > 0)[:n_coordinates]
    negative = np.flatnonzero(embedding.signature_ < 0)[:n_coordinates]
    accuracies = {"majority class": max(np.mean(y[test] == c) for c in np.unique(y))}
    for name, columns in [
        ("positive part", positive),
        ("negative part", negative),
        ("both parts", np.concatenate([positive, negative])),
    ]:
        model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000))
        model.fit(Z_train[:, columns], y[train])
        accuracies[name] = model.score(Z_test[:, columns], y[test])
    print(f"held-out accuracy of a logistic regression on {n_coordinates} leading coordinates:")
    for name, accuracy in accuracies.items():
        print(f"  {name:15s} {accuracy:.3f}")

    S, families, _ = natural_kernel("chen-protein")
    k = np.unique(families).size
    agreement = {
        "Kreĭn k-means": KreinKMeans(k, kernel="precomputed", random_state=0).fit(S).labels_,
        "signed spectral": KreinSpectralClustering(k, kernel="precomputed", random_state=0).fit(S).labels_,
    }
    agreement = {name: adjusted_rand_score(families, labels) for name, labels in agreement.items()}
    print("globin clusters vs families (ARI): " + ", ".join(f"{n} {a:.3f}" for n, a in agreement.items()))

    if plot:
        import matplotlib

        matplotlib.use("Agg")
        from krein.plotting import plot_embedding

        plot_embedding(pca, y, title=description).savefig(plot, dpi=120, bbox_inches="tight")
        print(f"picture written to {plot}")
    return accuracies, agreement, pca


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plot", help="write the embedding picture to this PNG file")
    main(plot=parser.parse_args().plot)

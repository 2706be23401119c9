"""Pictures of indefinite kernels: the signed spectrum and the pseudo-Euclidean embedding.

:func:`plot_embedding` draws a fitted :class:`~krein.embedding.KreinPCA` as three panels: the two
leading positive coordinates, the leading positive coordinate against the strongest negative one (what
clipping the spectrum throws away), and the signed spectrum. ``krein embed --dataset NAME`` writes the
same figure for a shipped dataset.
"""

from __future__ import annotations

import numpy as np

__all__ = ["plot_embedding", "plot_spectrum"]

_POSITIVE, _NEGATIVE = "#1f77b4", "#d62728"


def plot_spectrum(values, ax=None, *, max_shown=None):
    """Eigenvalue magnitudes |λ| by decreasing magnitude (log scale): positive in blue, negative in red.

    Parameters
    ----------
    values : array-like of shape (r,)
        Eigenvalues (any order).
    ax : matplotlib Axes, default=None
        Axes to draw on (a new figure when None).
    max_shown : int, default=None
        Show only the ``max_shown`` largest in magnitude.

    Returns
    -------
    matplotlib Axes
    """
    import matplotlib.pyplot as plt

    values = np.asarray(values, dtype=float)
    total = values.size
    values = values[np.argsort(-np.abs(values), kind="stable")][:max_shown]
    if ax is None:
        _, ax = plt.subplots(figsize=(4.5, 3.5))
    index = np.arange(1, values.size + 1)
    positive = values > 0
    for part, color, sign in ((positive, _POSITIVE, ">"), (~positive, _NEGATIVE, "<")):
        if not part.any():
            continue
        ax.bar(index[part], np.abs(values[part]), width=1.0, color=color, label=f"λ {sign} 0")
    ax.set_yscale("log")
    shown = "" if values.size == total else f", largest {values.size} of {total}"
    ax.set_xlabel(f"index (by decreasing |λ|{shown})")
    ax.set_ylabel("|λ|")
    ax.legend(loc="upper right", fontsize=8, frameon=False)
    return ax


def _axis_label(pca, j, name):
    return f"{name}  (λ = {pca.eigenvalues_[j]:.3g}, {100 * pca.explained_ratio_[j]:.1f}% of Σ|λ|)"


def _scatter(ax, x, yv, labels, palette):
    """Points coloured by class (``palette`` holds one colour per class) or by value (``palette`` None)."""
    if labels is None:
        ax.scatter(x, yv, s=12, color="0.3", alpha=0.7, linewidths=0)
        return None
    if palette is None:
        return ax.scatter(x, yv, s=12, c=labels, cmap="viridis", alpha=0.8, linewidths=0)
    for color, value in zip(palette, np.unique(labels), strict=True):
        mask = labels == value
        ax.scatter(x[mask], yv[mask], s=14, color=color, alpha=0.75, linewidths=0, label=str(value))


def plot_embedding(pca, y=None, *, title=None, max_shown=100):
    """Three panels of a fitted :class:`~krein.embedding.KreinPCA`, points coloured by ``y``.

    1. the two leading positive coordinates (what a positive semidefinite method sees);
    2. the leading positive coordinate against the strongest negative one (what clipping discards);
    3. the signed spectrum (:func:`plot_spectrum`), with ι.

    Parameters
    ----------
    pca : KreinPCA
        Fitted embedding.
    y : array-like of shape (n_samples,), default=None
        Labels of the training points: up to 20 classes get distinct colours (a legend up to 10);
        more distinct numeric values (a regression target) are shown on a colour scale.
    title : str, default=None
    max_shown : int, default=100
        Eigenvalues shown in the spectrum panel.

    Returns
    -------
    matplotlib Figure
    """
    import matplotlib.pyplot as plt
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(pca, "embedding_")
    Y = pca.embedding_
    labels = None if y is None else np.asarray(y)
    if labels is not None and labels.shape != (Y.shape[0],):
        raise ValueError(
            f"y must have shape ({Y.shape[0]},) (one label per training point), got {labels.shape}."
        )
    n_classes = 0 if labels is None else np.unique(labels).size
    palette = plt.get_cmap("tab10" if n_classes <= 10 else "tab20").colors[:n_classes]
    if n_classes > 20:  # a continuous target, or too many classes for distinct colours
        if not np.issubdtype(labels.dtype, np.number):
            raise ValueError(f"y has {n_classes} distinct non-numeric labels: at most 20 can be told apart.")
        palette = None
    positive, negative = np.flatnonzero(pca.signature_ > 0), np.flatnonzero(pca.signature_ < 0)
    figure, axes = plt.subplots(1, 3, figsize=(15, 4.6), gridspec_kw={"width_ratios": [1, 1, 0.9]})
    panels = [(axes[0], positive[:2], ("positive 1", "positive 2"))]
    panels.append((axes[1], np.concatenate([positive[:1], negative[:1]]), ("positive 1", "negative 1")))
    points = None
    for ax, columns, names in panels:
        if columns.size < 2:
            missing = "negative" if names[1].startswith("negative") else "second positive"
            ax.text(0.5, 0.5, f"no {missing} coordinate", ha="center", va="center", transform=ax.transAxes)
            ax.set_xticks([])
            ax.set_yticks([])
            continue
        points = _scatter(ax, Y[:, columns[0]], Y[:, columns[1]], labels, palette)
        ax.set_xlabel(_axis_label(pca, columns[0], names[0]), fontsize=9)
        ax.set_ylabel(_axis_label(pca, columns[1], names[1]), fontsize=9)
        ax.axhline(0.0, color="0.85", linewidth=0.6, zorder=0)
        ax.axvline(0.0, color="0.85", linewidth=0.6, zorder=0)
    axes[0].set_title("positive part (what clipping keeps)", fontsize=10)
    axes[1].set_title("strongest negative axis (what clipping discards)", fontsize=10, color=_NEGATIVE)
    if points is not None:
        figure.colorbar(points, ax=axes[0], label="y")
    elif labels is not None and n_classes <= 10:
        axes[0].legend(
            title="label", fontsize=8, title_fontsize=8, markerscale=1.5, loc="best", frameon=False
        )
    plot_spectrum(pca.spectrum_, axes[2], max_shown=max_shown)
    axes[2].set_title(
        f"spectrum: p = {int(np.sum(pca.spectrum_ > 0))}, q = {int(np.sum(pca.spectrum_ < 0))}, "
        f"ι = {pca.indefiniteness_:.3f}",
        fontsize=10,
    )
    if title:
        figure.suptitle(title, fontsize=11)
    figure.tight_layout()
    return figure

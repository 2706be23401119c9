"""The ``embeddings`` experiment, ``krein embed``, :mod:`krein.plotting` and the embeddings notes."""

import json
import re
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from _results import load, summary

from krein.cli import main
from krein.embedding import KreinPCA
from krein.experiments import RunContext, get_experiment
from krein.experiments.embeddings import METHODS, PARTS, QUICK_TASKS
from krein.plotting import plot_embedding, plot_spectrum

matplotlib.use("Agg")

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results" / "embeddings"


@pytest.mark.slow
@pytest.mark.parametrize("quick_form", ["embeddings"], indirect=True)
def test_embeddings_quick_form_and_resume(quick_form):
    """``krein reproduce embeddings --quick``: ARIs, the parts table, figures; ``--resume`` reads it back."""
    result = load(quick_form, "embeddings")
    rows = summary(quick_form, "embeddings")
    assert list(rows) == [(task, method) for task in QUICK_TASKS for method in METHODS]
    for row in rows.values():  # at most 150 objects (aural sonar has 100), an indefinite kernel
        assert row["n_runs"] == 3 and -1 <= row["mean"] <= 1 and row["k"] >= 2
        assert row["n"] == (100 if row["task"] == "aural-sonar" else 150)
        assert row["p"] >= 1 and row["q"] >= 1 and row["p"] + row["q"] <= row["n"] and 0 < row["iota"] < 1
    # aural sonar: targets and clutter are found by every k-means on a Euclidean or Kreĭn embedding;
    # the Simpson similarity of binarized threes and fives separates them almost perfectly
    assert rows["aural-sonar", "Kreĭn spectral"]["mean"] > 0.3
    assert rows["digits-3v5", "Kreĭn spectral"]["mean"] > 0.8
    parts = summary(quick_form, "embeddings_parts")
    assert list(parts) == [(task, part) for task in QUICK_TASKS for part in PARTS]
    assert all(0 <= row["mean"] <= 1 and row["n_runs"] == 5 for row in parts.values())
    for task in QUICK_TASKS:  # the class information is in the positive part
        assert parts[task, "positive part"]["mean"] > parts[task, "majority"]["mean"] + 0.1, task
    for name in ("embeddings_ari", *(f"embedding_{task}" for task in QUICK_TASKS)):
        assert (quick_form.out / f"{name}.png").stat().st_size > 10_000
    again = RunContext(
        quick=True, out=quick_form.out, show_progress=False, resume=True, experiment=quick_form.experiment
    )
    get_experiment("embeddings").run(again)
    assert load(quick_form, "embeddings")["scores"] == result["scores"]


def test_krein_embed_writes_the_picture(tmp_path, capsys):
    assert main(["embed", "--dataset", "aural-sonar", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "0.256" in out  # ι of the aural-sonar similarity, centred
    assert (tmp_path / "embedding_aural-sonar.png").stat().st_size > 10_000


def test_plot_embedding_panels_and_errors():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 3))
    definite = KreinPCA("precomputed").fit(X @ X.T)
    figure = plot_embedding(definite, np.arange(30) % 3)
    assert len(figure.axes) == 3
    assert any("no negative coordinate" in t.get_text() for t in figure.axes[1].texts)
    with pytest.raises(ValueError, match="y must have shape"):
        plot_embedding(definite, np.zeros(5))
    continuous = plot_embedding(definite, rng.standard_normal(30))  # a regression target: colour scale
    assert len(continuous.axes) == 4 and continuous.axes[3].get_ylabel() == "y"
    with pytest.raises(ValueError, match="30 distinct non-numeric labels"):
        plot_embedding(definite, np.array([f"object {i}" for i in range(30)]))
    ax = plot_spectrum([3.0, -2.0, 1.0, -0.5], max_shown=3)
    heights = sorted(p.get_height() for p in ax.patches)
    assert heights == [1.0, 2.0, 3.0]  # |λ| of the three largest magnitudes


# ---------------------------------------------------------------------------------------- notes
QUOTE = re.compile(r"`([^`·]+?) · ([^`=]+?) = (-?[\d.]+)(?: ± ([\d.]+))?`")


def _summary():
    rows = {}
    for name in ("embeddings", "embeddings_parts"):
        for row in json.loads((RESULTS / f"{name}.json").read_text())["summary"]:
            rows[(row["task"], row["method"])] = row
            for key in ("n", "k", "p", "q", "iota"):
                if key in row:
                    rows[(row["task"], key)] = {"mean": row[key]}
    return rows


def _matches(printed, value):
    decimals = len(printed.split(".")[1]) if "." in printed else 0
    return abs(float(printed) - value) <= 0.5 * 10.0**-decimals + 1e-12


def test_notes_quote_the_run():
    """Every number the notes quote (as `task · method = mean ± std`) is the run's, to the digits shown."""
    notes = (RESULTS / "NOTES.md").read_text()
    rows = _summary()
    quotes = QUOTE.findall(notes)
    assert len(quotes) >= 20
    for task, method, mean, std in quotes:
        key = (task.strip(), method.strip().replace("ι", "iota"))
        assert key in rows, key
        assert _matches(mean, rows[key]["mean"]), (key, mean, rows[key]["mean"])
        if std:
            assert _matches(std, rows[key]["std"]), (key, std, rows[key]["std"])


def test_notes_claims_hold_in_the_run():
    """Signed and clipped spectral clustering agree wherever the k leading coordinates are positive."""
    scores = json.loads((RESULTS / "embeddings.json").read_text())["scores"]
    values = {(s["task"], s["method"]): s["values"] for s in scores}
    tasks = {task for task, _ in values}
    assert len(tasks) >= 5 and all(len(v) == 10 for v in values.values())  # ≥ 5 sets, 10 seeds
    for task in tasks - {"chen-protein"}:
        assert values[(task, "Kreĭn spectral")] == values[(task, "clip spectral")], task
    assert np.mean(values[("chen-protein", "Kreĭn spectral")]) > np.mean(
        values[("chen-protein", "clip spectral")]
    )

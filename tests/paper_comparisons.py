"""The comparisons with the papers of docs/results, rebuilt from the stored results JSON beside them
through the experiments' own comparison functions (``tests/test_paper_tables.py`` checks that every
committed ``*vs?paper.json`` and ``table6-krein-step.json`` is what they give)."""

import json
from pathlib import Path

from krein.experiments import li2024, liu2019, luss2009, oglic2018, oglic2019
from krein.experiments._framework import ResultTable

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"


def _load(folder, name):
    return json.loads((folder / name).read_text())


def _table(folder, name):
    return ResultTable.from_json(_load(folder, name))


def _scores(folder, name):
    return [(s["task"], s["method"], s["values"]) for s in _load(folder, name)["scores"]]


def _oglic2018_table(paper, file):
    def build(folder):
        rows = [
            paper.compare_scores(task, method, values)
            for task, method, values in _scores(folder, file)
            if paper.has(task, method)
        ]
        return paper.comparison(rows, f"Ours next to the paper's {paper.item}")

    return build


def _oglic2018_table3(folder):
    rows = []
    for kind in ("classification", "regression"):
        data = _load(folder, f"oglic2018-table3-{kind}.json")
        info = {row["task"]: row for row in data["summary"]}
        for score in data["scores"]:
            task, kernel = score["task"], score["method"]
            name = task.split(" (n = ")[0]
            rows.append(oglic2018._versus_paper(name, kernel, score["values"], info[task][f"ι {kernel}"]))
    order = {name: k for k, name in enumerate(oglic2018.TABLE3_DATASETS)}
    rows.sort(key=lambda row: order[row["task"]])  # the run's order: data sets, then kernels
    return oglic2018.PAPER_TABLE3.comparison(rows, "Ours next to the paper's Table 3")


def _oglic2019(name):
    def build(folder):
        return oglic2019.PAPER_TABLE2.comparison(
            oglic2019._vs_paper(_table(folder, f"{name}.json")), "Ours next to the paper"
        )

    return build


def _liu_table3(folder):
    paper = liu2019.PAPER_TABLE3
    rows = [
        paper.compare_scores(task, method, values) for task, method, values in _scores(folder, "table3.json")
    ]
    return paper.comparison(rows, "Ours next to Liu et al. (2019), Table III")


def _liu_table4(folder):
    runs = _load(folder, "table4_runs.json")["rows"]
    datasets = list(dict.fromkeys(r["dataset"] for r in runs))
    rows = [liu2019.table4_versus_paper(n, m, runs) for n in datasets for m in liu2019.TABLE4_SOLVERS]
    title = "Ours (the paper's step) next to Liu et al. (2019), Tables IV and VII, accuracy"
    return liu2019.PAPER_TABLE4.comparison(rows, title)


def _liu_table5(folder):
    paper, data = liu2019.PAPER_TABLE5, _load(folder, "table5.json")
    rows = [
        paper.compare_scores(t, m, [100 * a for a in values])
        for t, m, values in _scores(folder, "table5.json")
    ]
    summary, facts = data["summary"][0], paper.task("yaleb")
    note = (
        f"training-kernel μ_min = {summary['mu_min']:.4g}, μ_max = {summary['mu_max']:.4g} "
        f"(paper {facts['mu_min']}, {facts['mu_max']})"
    )
    return paper.comparison(rows, "Ours next to Liu et al. (2019), Table V, accuracy (%)", note=note)


def _liu_table6(step, title):
    def build(folder):
        runs = _load(folder, "table6_runs.json")["rows"]
        datasets = tuple(dict.fromkeys(r["data set"] for r in runs))
        return liu2019.table6_versus_paper(runs, step, datasets, title)

    return build


def _luss(paper, name, item):
    def build(folder):
        rows = _load(folder, f"{name}.json")["rows"]
        return luss2009.versus_paper(rows, paper, f"Ours next to Luss & d'Aspremont, {item}")

    return build


def _li(folder):
    return li2024.versus_paper(*(_table(folder, f"{n}.json") for n in ("cv_rmse", "test_rmse", "test_error")))


#: ``{folder under docs/results: {comparison file stem: builder(folder) -> Comparison}}``.
BUILDERS = {
    "oglic2018-table1": {
        "oglic2018-table1-vs-paper": _oglic2018_table(oglic2018.PAPER_TABLE1, "oglic2018-table1.json")
    },
    "oglic2018-table2": {
        "oglic2018-table2-vs-paper": _oglic2018_table(oglic2018.PAPER_TABLE2, "oglic2018-table2.json")
    },
    "oglic2018-table3": {"oglic2018-table3-vs-paper": _oglic2018_table3},
    "oglic2019-table1": {"table1-vs-paper": _oglic2019("table1")},
    "oglic2019-table2": {"table2-vs-paper": _oglic2019("table2")},
    "liu2019-table3": {"table3-vs-paper": _liu_table3},
    "liu2019-table4": {"table4-vs-paper": _liu_table4},
    "liu2019-table4/quick": {"table4-vs-paper": _liu_table4},
    "liu2019-table5": {"table5-vs-paper": _liu_table5},
    **{
        folder: {
            "table6-vs-paper": _liu_table6(
                "paper", "Ours (the paper's step) next to Liu et al. (2019), Table VI"
            ),
            "table6-krein-step": _liu_table6(
                "majorizer", "Ours with krein's majorizer step next to Liu et al. (2019), Table VI"
            ),
        }
        for folder in ("liu2019-table6", "liu2019-table6/quick")
    },
    "luss2009-table2": {"table2_vs_paper": _luss(luss2009.PAPER_TABLE2, "table2", "Table 2")},
    "luss2009-table3": {"table3_vs_paper": _luss(luss2009.PAPER_TABLE3, "table3", "Table 3")},
    "li-tables": {"vs_paper": _li},
}

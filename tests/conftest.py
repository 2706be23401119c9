import io
import os
from pathlib import Path

import matplotlib
import pytest
from threadpoolctl import threadpool_limits

matplotlib.use("Agg")

# Under `pytest -n N` every worker is a process of its own: one BLAS thread each avoids
# oversubscribing the cores (small eigendecompositions slow down by 10-50x when threads compete).
if os.environ.get("PYTEST_XDIST_WORKER"):
    threadpool_limits(limits=1, user_api="blas")

TESTS = Path(__file__).resolve().parent
_QUICK_FORM_TESTS = pytest.StashKey[dict[str, list[str]]]()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Record which tests run which experiment's quick form (the ``quick_form`` fixture's parameter),
    before ``-k`` or ``-m`` deselect any."""
    runs: dict[str, list[str]] = {}
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and "quick_form" in callspec.params:
            runs.setdefault(callspec.params["quick_form"], []).append(item.nodeid)
    config.stash[_QUICK_FORM_TESTS] = runs


@pytest.fixture
def quick_form_tests(request):
    """``{experiment name: [node ids of the tests that run its quick form]}``, from this session's
    collection of the whole ``tests/`` folder; the test asking for it is skipped when the session
    collected less (a file or a test named on the command line)."""
    config = request.config
    where = config.invocation_params.dir
    if not any(TESTS.is_relative_to((where / arg.split("::")[0]).resolve()) for arg in config.args):
        pytest.skip("needs the whole tests/ folder collected, e.g. `pytest tests -k every_experiment`")
    return config.stash[_QUICK_FORM_TESTS]


@pytest.fixture
def quick_form(request, tmp_path):
    """The :class:`~krein.experiments.RunContext` of a run of an experiment's quick form.

    The run is ``krein reproduce NAME --quick`` in process, into ``tmp_path``: a test names the
    experiment by parametrizing this fixture, ``@pytest.mark.parametrize("quick_form", ["NAME"],
    indirect=True)``, and checks the numbers the run wrote under ``quick_form.out``; what it printed is
    ``quick_form.console.export_text()``. ``tests/test_quick_experiments.py`` checks that every
    registered experiment is named so by one test.
    """
    from rich.console import Console

    from krein.experiments import RunContext, get_experiment

    name = getattr(request, "param", None)
    if name is None:
        raise TypeError("quick_form runs an experiment: parametrize it with its name, indirect=True.")
    ctx = RunContext(
        quick=True,
        out=tmp_path,
        show_progress=False,
        console=Console(file=io.StringIO(), record=True, width=120),
        experiment=name,
    )
    get_experiment(name).run(ctx)
    return ctx

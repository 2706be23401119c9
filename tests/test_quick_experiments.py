"""Every experiment of ``krein reproduce --list`` has its quick form run by a test, so that none rots.

A test runs an experiment's quick form through the ``quick_form`` fixture of ``tests/conftest.py``,
parametrized with the experiment's name, and checks the numbers the run writes; the owners of the
paper experiments keep theirs in ``tests/test_<paper>_experiments.py``. Which tests run which
experiment is read from pytest's collection of those parametrizations (the fixture runs the
experiment it is given, and nothing else), not from the text of the test files.
"""

import pytest

from krein.cli import main
from krein.experiments import list_experiments


def test_every_experiment_has_a_quick_form():
    experiments = list_experiments()
    assert experiments, "no experiment registered"
    for e in experiments:
        assert 0 < e.quick_minutes <= e.full_minutes, e.name
        assert e.description and e.paper, e.name


def test_every_experiment_has_its_quick_form_run_by_a_test(quick_form_tests):
    """Each registered experiment is the parameter of the ``quick_form`` fixture of exactly one test (one
    run each), and no test names an experiment that is not registered."""
    names = {e.name for e in list_experiments()}
    assert sorted(names - set(quick_form_tests)) == [], "run their quick form in a test (tests/conftest.py)"
    assert sorted(set(quick_form_tests) - names) == []
    assert {name: tests for name, tests in quick_form_tests.items() if len(tests) > 1} == {}


def test_quick_form_is_refused_without_an_experiment(request):
    with pytest.raises(TypeError, match="parametrize it with its name"):
        request.getfixturevalue("quick_form")


def test_reproduce_list_names_every_experiment(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")  # rich would shorten long names to fit 80 columns
    assert main(["reproduce", "--list"]) == 0
    printed = capsys.readouterr().out
    for e in list_experiments():
        assert e.name in printed

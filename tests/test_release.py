"""Release hygiene: one version, the licence pyproject declares, a changelog, the pre-commit hooks."""

import importlib.metadata
import re
import tomllib
from pathlib import Path

import yaml

import krein

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_version_is_the_installed_metadata_version():
    assert krein.__version__ == importlib.metadata.version("krein")


def test_version_is_written_once():
    project = PYPROJECT["project"]
    assert "version" not in project
    assert "version" in project["dynamic"]
    source = ROOT / PYPROJECT["tool"]["hatch"]["version"]["path"]
    (written,) = re.findall(r'^__version__ = "([^"]+)"$', source.read_text(encoding="utf-8"), re.MULTILINE)
    assert written == krein.__version__


def test_license_file_is_the_declared_bsd_3_clause():
    assert PYPROJECT["project"]["license"] == {"text": "BSD-3-Clause"}
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("BSD 3-Clause License")
    assert "Copyright (c) 2026, The krein developers" in text
    assert {"name": "The krein developers"} in PYPROJECT["project"]["authors"]


def test_changelog_has_the_current_version_and_an_unreleased_section():
    headings = re.findall(r"^## (\S+)", (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"), re.MULTILINE)
    assert headings[0] == "Unreleased"
    assert krein.__version__ in headings


def test_pre_commit_runs_ruff_check_and_format_locally():
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    (repo,) = config["repos"]
    assert repo["repo"] == "local"  # no network needed to install the hooks
    entries = {hook["id"]: hook["entry"].split()[:2] for hook in repo["hooks"]}
    assert entries == {"ruff-check": ["ruff", "check"], "ruff-format": ["ruff", "format"]}

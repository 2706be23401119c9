"""Sphinx configuration of the krein documentation (builds offline: ``sphinx-build -W docs docs/_build``)."""

import krein

project = "krein"
author = "The krein developers"
release = version = krein.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "results/**/NOTES.md", "results/**/*.md"]
myst_heading_anchors = 3
autosummary_generate = True
autodoc_default_options = {"members": True, "show-inheritance": False, "inherited-members": False}
autodoc_typehints = "none"
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_rtype = False
html_theme = "furo"
html_title = f"krein {release}"
suppress_warnings = ["myst.header", "myst.xref_missing", "autosummary.import_cycle"]
nitpicky = False


def _escape_math_bars(app, what, name, obj, options, lines):
    """Docstrings write |λ| and ‖x‖ as in the papers; in reST a bare '|' starts a substitution."""
    for i, line in enumerate(lines):
        if "|" in line and not line.lstrip().startswith(("+", "|")):
            lines[i] = line.replace("\\|", "|").replace("|", "\\|")


def _skip_generated_members(app, what, name, obj, skip, options):
    """Skip scikit-learn's generated metadata-routing methods (``set_fit_request`` etc.)."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return skip


def setup(app):
    app.connect("autodoc-process-docstring", _escape_math_bars)
    app.connect("autodoc-skip-member", _skip_generated_members)

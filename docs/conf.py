"""Sphinx configuration of the Hearth user guide (``make docs``; warnings are errors)."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "_ext"))
sys.path.insert(0, os.path.dirname(HERE))

from hearth import __version__  # noqa: E402

project = "Hearth"
author = "The Hearth authors"
copyright = "The Hearth authors"  # noqa: A001 - Sphinx's name
version = release = __version__

extensions = [
    "oslo_config.sphinxext",   # .. show-options:: (the configuration reference)
    "hearth_sphinx",           # .. hearth-api-reference::, .. hearth-layers::
    "sphinx.ext.graphviz",     # renders .. hearth-layers:: with Graphviz's dot
]
graphviz_output_format = "svg"

root_doc = "index"
exclude_patterns = ["_build", "examples/README.rst"]
templates_path: list[str] = []
html_theme = "alabaster"
html_static_path: list[str] = []
html_theme_options = {"description": "Declarative orchestration, Heat templates, Salt underneath",
                      "fixed_sidebar": True}
pygments_style = "sphinx"
highlight_language = "none"
# The console samples are run by tests/docs; their output lines are checked there.
nitpicky = False

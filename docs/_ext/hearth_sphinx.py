"""Sphinx directives of the Hearth guide.

``.. hearth-api-reference::`` renders the REST API reference from the
OpenAPI document the API serves (:func:`hearth.api.openapi.build_document`,
itself built from the routes table), so the reference cannot drift from
the code.  Routes that only redirect a bare stack name to its canonical URL
are summarised in one paragraph instead of being listed twice.

``.. hearth-layers::`` draws the packages and the imports between them as
they are when the guide is built (``tools/draw_layers.py``; Graphviz
renders it through ``sphinx.ext.graphviz``).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.ext.graphviz import graphviz
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

REDIRECT_SCHEMA = "#/components/schemas/Redirect"
LAYERS_TOOL = Path(__file__).resolve().parents[2] / "tools" / "draw_layers.py"


def _is_redirect(operation: dict[str, Any]) -> bool:
    content = operation["responses"].get("302", {}).get("content", {})
    return any(item["schema"].get("$ref") == REDIRECT_SCHEMA for item in content.values())


def _operation_lines(path: str, method: str, operation: dict[str, Any]) -> list[str]:
    title = f"{method.upper()} {path}"
    lines = [title, "~" * len(title), "", operation["summary"] + ".", ""]
    query = [p for p in operation["parameters"] if p["in"] == "query"]
    if query:
        lines += ["Query parameters:", ""]
        for param in query:
            schema = param["schema"]
            choices = schema.get("enum") or schema.get("items", {}).get("enum")
            kind = schema.get("type", "string")
            extra = f" One of: {', '.join(f'``{c}``' for c in choices)}." if choices else ""
            lines.append(f"- ``{param['name']}`` ({kind}): {param['description']}{extra}")
        lines.append("")
    for status, response in sorted(operation["responses"].items()):
        if int(status) >= 400:
            continue
        media = ", ".join(f"``{m}``" for m in response.get("content", {})) or "no body"
        lines.append(f"Answers **{status}** ({media}).")
    if "requestBody" in operation:
        ref = next(iter(operation["requestBody"]["content"].values()))["schema"]["$ref"]
        lines.append(f"Body: a ``{ref.rsplit('/', 1)[1]}`` JSON object.")
    if operation.get("security"):
        lines.append("Needs a token (``X-Auth-Token``).")
    return [*lines, ""]


def reference_lines(document: dict[str, Any]) -> list[str]:
    """Return the reStructuredText of every operation of ``document``."""
    lines: list[str] = []
    redirects = 0
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if _is_redirect(operation):
                redirects += 1
                continue
            lines += _operation_lines(path, method, operation)
    lines += ["Lookups", "~~~~~~~", "",
              f"Each of the {redirects} stack URLs above also answers when the stack is named "
              "alone (``/v1/{tenant_id}/stacks/{stack_name}/...``, a name or an id): the "
              "answer is a **302** to the canonical URL, as Heat's API does.", ""]
    return lines


class ApiReference(SphinxDirective):
    """``.. hearth-api-reference::``: every route of the REST API."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        """Parse the generated reference into the page."""
        from hearth.api.openapi import build_document
        container = nodes.section()
        content = StringList(reference_lines(build_document()), source="hearth-api-reference")
        nested_parse_with_titles(self.state, content, container)
        return list(container.children)


def layers_dot() -> str:
    """Return the DOT text of the layers, drawn by tools/draw_layers.py from the code."""
    spec = importlib.util.spec_from_file_location("draw_layers", LAYERS_TOOL)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool.render(tool.package_graph())


class LayersPicture(SphinxDirective):
    """``.. hearth-layers::``: the package import graph, drawn when the guide is built."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        """Return a Graphviz node of the picture."""
        node = graphviz()
        node["code"] = layers_dot()
        node["options"] = {"docname": self.env.docname}
        node["alt"] = "Hearth's packages and the imports between them"
        return [node]


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the directives."""
    app.add_directive("hearth-api-reference", ApiReference)
    app.add_directive("hearth-layers", LayersPicture)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

"""The stack graph endpoint: a stack's dependency picture as SVG, DOT text or JSON.

``GET .../stacks/{name}/{id}/graph`` answers an SVG picture by default
(drawn by Graphviz's ``dot`` on the server), ``?format=dot`` the DOT text
and ``?format=json`` the graph itself (what ``stackctl --url stack-graph``
reads, so that it draws exactly what embedded mode draws).
"""

from __future__ import annotations

from typing import Any

from hearth.api.routing import ApiRequest, Reply
from hearth.engine.stacks import graph_dot
from hearth.engine.stacks.graph_view import GraphView
from hearth.utils import graphviz

DOT_MEDIA_TYPE = "text/vnd.graphviz; charset=UTF-8"
SVG_MEDIA_TYPE = graphviz.FORMATS["svg"][1]


def show(request: ApiRequest) -> Any:
    """GET .../graph: the stack's graph in the asked format (SVG by default)."""
    view = request.service.stack_graph(request.ctx, request.stack_identity)
    output_format = request.query.get("format", "svg")
    if output_format == "json":
        return view
    dot_text = graph_dot.to_dot(GraphView.from_dict(view))
    if output_format == "dot":
        return Reply(body=dot_text, media_type=DOT_MEDIA_TYPE)
    return Reply(body=graphviz.render(dot_text, "svg"), media_type=SVG_MEDIA_TYPE)

"""Write a :class:`~hearth.engine.stacks.graph_view.GraphView` as Graphviz DOT text.

The picture: one box per resource (name, type, state) filled with the
colour of its state (:data:`STATE_STYLES`), one arrow per dependency from a
resource to the one it needs, styled by what made it (:data:`EDGE_STYLES`)
and labelled only with what the style cannot say (the attributes a
``get_attr`` reads, a second kind), one cluster per nested stack, linked to
the resource that owns it, and a legend saying which way arrows point and
what each style means.  The text is deterministic (sorted, no ids that
change), so it can be compared in tests and diffed by users.  Rendering it
as SVG or PNG is :mod:`hearth.utils.graphviz`'s job.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from hearth.engine.stacks.graph_view import EDGE_KINDS, GraphNode, GraphView

#: State class -> node attributes.  :func:`state_class` picks the class.
STATE_STYLES: dict[str, dict[str, str]] = {
    "template": {"fillcolor": "#ffffff"},                          # no stack: a template
    "not_created": {"fillcolor": "#e8e8e8", "fontcolor": "#555555"},  # INIT_*
    "in_progress": {"fillcolor": "#fff3b0"},
    "complete": {"fillcolor": "#c8e6c0"},
    "failed": {"fillcolor": "#f4b6b6", "color": "#b00000", "penwidth": "2"},
    "deleted": {"fillcolor": "#f5f5f5", "fontcolor": "#888888", "style": "rounded,filled,dashed"},
}

#: Edge kind -> edge attributes (an edge of several kinds takes the first kind's).
EDGE_STYLES: dict[str, dict[str, str]] = {
    "depends_on": {"style": "dashed"},
    "get_resource": {"style": "solid"},
    "get_attr": {"style": "bold"},
}

GRAPH_ATTRIBUTES = {"rankdir": "TB", "compound": "true", "fontname": "Helvetica"}
NODE_ATTRIBUTES = {"shape": "box", "style": "rounded,filled", "fontname": "Helvetica"}
EDGE_ATTRIBUTES = {"fontname": "Helvetica", "fontsize": "10"}
NESTED_EDGE = {"style": "dotted", "arrowhead": "none", "label": "nested stack"}


def state_class(state: str | None) -> str:
    """Return the key of :data:`STATE_STYLES` for an ``ACTION_STATUS`` (None: a template)."""
    if state is None:
        return "template"
    action, _, status = state.partition("_")
    if action == "INIT":
        return "not_created"
    if status == "IN_PROGRESS":
        return "in_progress"
    if status == "FAILED":
        return "failed"
    return "deleted" if action == "DELETE" else "complete"


def quote(text: str) -> str:
    r"""Return ``text`` as a DOT double-quoted string (a line break becomes ``\n``)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\r", "").replace("\n", "\\n") + '"'


def attribute_list(attributes: Mapping[str, str]) -> str:
    """Return ``[key="value", ...]`` (empty text for no attributes)."""
    if not attributes:
        return ""
    return " [" + ", ".join(f"{key}={quote(value)}" for key, value in attributes.items()) + "]"


def _node_attributes(node: GraphNode) -> dict[str, str]:
    lines = [node.name, node.type] + ([node.state] if node.state else [])
    attributes = {"label": "\n".join(lines), **STATE_STYLES[state_class(node.state)]}
    tooltip = f"{node.type} {node.state}: {node.reason}" if node.reason else ""
    if tooltip:
        attributes["tooltip"] = tooltip
    return attributes


def _edge_label(kinds: list[str], attributes: list[str]) -> str:
    """Return what an edge's style does not say: its later kinds, get_attr's attributes."""
    words = []
    for index, kind in enumerate(kinds):
        if kind == "get_attr" and attributes:
            words.append(", ".join(attributes) if index == 0 else
                         f"get_attr {', '.join(attributes)}")
        elif index:
            words.append(kind)
    return "\n".join(words)


#: The legend's title: which way an arrow points.
LEGEND_TITLE = ("Legend: an arrow A -> B says A needs B:\nB is created first and deleted "
                "last.\nA bold arrow's label: the attributes A reads.")
#: Added to the legend of a picture with nested stacks.
LEGEND_NESTED = "\nA dotted line leads to a resource's nested stack."


def _legend(indent: str, nested: bool) -> Iterator[str]:
    """Yield the legend: the title, and one sample arrow per edge style."""
    yield f'{indent}subgraph "cluster_legend" {{'
    inner = indent + "  "
    yield f"{inner}label={quote(LEGEND_TITLE + (LEGEND_NESTED if nested else ''))};"
    yield f'{inner}labeljust="l";'
    yield f'{inner}style="rounded,dashed";'
    yield f'{inner}color="#999999";'
    yield f'{inner}fontsize="10";'
    yield f'{inner}node [shape="plaintext", style="", fontsize="10"];'
    for kind in EDGE_KINDS:
        source, target = f"legend: {kind}", f"legend: {kind} (needed)"
        yield f"{inner}{quote(source)} [label={quote('A')}];"
        yield f"{inner}{quote(target)} [label={quote('B')}];"
        attributes = {**EDGE_STYLES[kind], "label": kind}
        yield f"{inner}{quote(source)} -> {quote(target)}{attribute_list(attributes)};"
    yield f"{indent}}}"


def _body(view: GraphView, prefix: str, indent: str) -> Iterator[str]:
    """Yield the statements of one stack: nodes, edges, then nested clusters."""
    for node in view.nodes:
        yield f"{indent}{quote(prefix + node.name)}{attribute_list(_node_attributes(node))};"
    for edge in view.edges:
        kinds = sorted(edge.kinds, key=EDGE_KINDS.index) or ["get_resource"]
        label = _edge_label(kinds, edge.attributes)
        attributes = {**EDGE_STYLES[kinds[0]], **({"label": label} if label else {})}
        yield (f"{indent}{quote(prefix + edge.source)} -> {quote(prefix + edge.target)}"
               f"{attribute_list(attributes)};")
    for owner in sorted(view.clusters):
        yield from _cluster(view.clusters[owner], prefix + owner, indent)


def _cluster(nested: GraphView, owner_id: str, indent: str) -> Iterator[str]:
    """Yield a nested stack as a cluster, and the dotted link from its owner."""
    cluster_id = "cluster_" + owner_id
    label = nested.name + (f"\n{nested.state}" if nested.state else "")
    yield f"{indent}subgraph {quote(cluster_id)} {{"
    inner = indent + "  "
    yield f"{inner}label={quote(label)};"
    yield f"{inner}style=\"rounded\";"
    yield from _body(nested, owner_id + "/", inner)
    yield f"{indent}}}"
    if nested.nodes:
        link = {**NESTED_EDGE, "lhead": cluster_id}
        yield (f"{indent}{quote(owner_id)} -> {quote(owner_id + '/' + nested.nodes[0].name)}"
               f"{attribute_list(link)};")


def to_dot(view: GraphView, legend: bool = True) -> str:
    """Return the DOT text of ``view`` (a ``digraph`` named after the stack), with a legend."""
    lines = [f"digraph {quote(view.name)} {{"]
    title = view.name + (f"\n{view.state}" if view.state else "")
    lines += [f"  {key}={quote(value)};" for key, value in
              {**GRAPH_ATTRIBUTES, "label": title, "labelloc": "t"}.items()]
    lines.append(f"  node{attribute_list(NODE_ATTRIBUTES)};")
    lines.append(f"  edge{attribute_list(EDGE_ATTRIBUTES)};")
    lines += _body(view, "", "  ")
    if legend and (view.edges or view.clusters):
        lines += _legend("  ", bool(view.clusters))
    lines.append("}")
    return "\n".join(lines) + "\n"

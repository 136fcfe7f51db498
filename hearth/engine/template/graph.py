"""The dependency graph of a template's resources, built by small named steps.

Edges point from a resource to each resource it needs: ``web -> db`` means
``web`` requires ``db``.  Building the graph validates the references
(unknown or disabled resources, cycles); the graph is generic: nodes carry
the objects they were built from and nothing here knows about resource
types.  The one graph a stack is validated with also orders its walks:
:attr:`hearth.engine.stacks.stack.Stack.graph` gives its adjacency to the
walker (:class:`hearth.engine.scheduler.GraphWalker`), which counts each
node's predecessors from it once.

Each step takes and returns the graph, so :data:`BUILD_STEPS` reads as the
list of what building does, and the canonical text :func:`dump` is logged
after each step at debug level.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

import networkx as nx

from hearth.common import exception
from hearth.common.located import line_of

LOG = logging.getLogger(__name__)


class GraphNode(Protocol):
    """What the graph needs from a definition."""

    name: str
    depends_on: list[str]
    line: int | None
    raw: Any

    def reference_dependencies(self) -> set[str]:
        """Return names referred to by functions."""

    def key(self, name: str) -> str:
        """Return how the template writes key ``name`` (for the line of an error)."""

    def raw_field(self, name: str) -> Any:
        """Return the raw value of key ``name`` as written (None if absent)."""

    def spelled_path(self, path: list[Any]) -> list[Any]:
        """Return an error path spelled as the template writes it."""


class GraphInput:
    """What the steps read: the definitions, the disabled names, the file name."""

    def __init__(self, definitions: Mapping[str, GraphNode], disabled: Iterable[str] = (),
                 filename: str | None = None) -> None:
        self.definitions = definitions
        self.disabled = set(disabled)
        self.filename = filename
        #: every resource name of the template, enabled or not (read once per edge)
        self.known: set[str] = set(definitions) | self.disabled


def add_resources(graph: nx.DiGraph, data: GraphInput) -> nx.DiGraph:
    """Add one node per resource (disabled ones too, dropped later)."""
    for name, definition in data.definitions.items():
        graph.add_node(name, definition=definition)
    for name in sorted(data.disabled):
        graph.add_node(name, definition=None, disabled=True)
    return graph


def add_depends_on_edges(graph: nx.DiGraph, data: GraphInput) -> nx.DiGraph:
    """Add ``depends_on`` edges; an unknown name is a located error."""
    for name, definition in data.definitions.items():
        for index, target in enumerate(definition.depends_on):
            if target not in data.known:
                depends = definition.raw_field("depends_on")
                line = line_of(depends, index) if isinstance(depends, list) else None
                raise exception.InvalidTemplateReference(
                    f'The specified reference "{target}" (in {name}) is incorrect.'
                    + exception.did_you_mean(target, sorted(data.known)),
                    path=definition.spelled_path(["resources", name, "depends_on"]),
                    line=line or line_of(definition.raw, definition.key("depends_on"))
                    or definition.line, filename=data.filename)
            graph.add_edge(name, target)
    return graph


def add_reference_edges(graph: nx.DiGraph, data: GraphInput) -> nx.DiGraph:
    """Add edges for get_resource/get_attr anywhere in the definition."""
    for name, definition in data.definitions.items():
        for target in sorted(definition.reference_dependencies()):
            if target not in data.known:
                raise exception.InvalidTemplateReference(
                    f'The specified reference "{target}" (in {name}) is incorrect.'
                    + exception.did_you_mean(target, sorted(data.known)),
                    path=definition.spelled_path(["resources", name]), line=definition.line,
                    filename=data.filename)
            graph.add_edge(name, target)
    return graph


def drop_disabled(graph: nx.DiGraph, data: GraphInput) -> nx.DiGraph:
    """Remove resources whose condition is false: they are simply absent."""
    graph.remove_nodes_from(data.disabled)
    return graph


def check_cycles(graph: nx.DiGraph, data: GraphInput) -> nx.DiGraph:
    """Raise CircularDependencyException naming one cycle, in a fixed order."""
    cycle = find_cycle(graph)
    if cycle:
        first = data.definitions.get(cycle[0])
        raise exception.CircularDependencyException(
            cycle, filename=data.filename, line=getattr(first, "line", None))
    return graph


Step = Callable[[nx.DiGraph, GraphInput], nx.DiGraph]

#: What building a graph does, in order.
BUILD_STEPS: Sequence[Step] = (
    add_resources,          # one node per resource
    add_depends_on_edges,   # explicit dependencies
    add_reference_edges,    # get_resource / get_attr in properties, metadata, policies
    drop_disabled,          # condition false: absent
    check_cycles,           # a cycle is an error naming it
)


def find_cycle(graph: nx.DiGraph) -> list[str]:
    """Return one cycle as a path ``[a, b, c, a]`` rotated to a fixed start, or [].

    The acyclic case (every valid template) is decided by a linear topological
    check; the slower, deterministic search runs only when a cycle exists.
    """
    if nx.is_directed_acyclic_graph(graph):
        return []
    try:
        edges = nx.find_cycle(graph, source=sorted(graph.nodes, key=_node_order))
    except nx.NetworkXNoCycle:
        return []
    nodes = [edge[0] for edge in edges]
    start = min(range(len(nodes)), key=lambda index: _node_order(nodes[index]))
    rotated = nodes[start:] + nodes[:start]
    return [*rotated, rotated[0]]


def _node_order(name: Any) -> tuple[int, str]:
    return (len(str(name)), str(name))


def build(definitions: Mapping[str, GraphNode], disabled: Iterable[str] = (),
          filename: str | None = None, steps: Sequence[Step] = BUILD_STEPS) -> nx.DiGraph:
    """Run ``steps`` over a new graph; log the dump after each at debug level."""
    data = GraphInput(definitions, disabled, filename)
    graph = nx.DiGraph()
    for step in steps:
        graph = step(graph, data)
        if LOG.isEnabledFor(logging.DEBUG):
            LOG.debug("graph after %s:\n%s", step.__name__, dump(graph))
    return graph


def dump(graph: nx.DiGraph) -> str:
    """Return the canonical text of the graph: each node, then what it needs, indented."""
    lines = []
    for name in sorted(graph.nodes, key=str):
        lines.append(str(name))
        lines.extend(f"  {target}" for target in sorted(graph.successors(name), key=str))
    return "\n".join(lines)

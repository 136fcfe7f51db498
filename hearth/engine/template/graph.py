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

The graph is a :class:`DiGraph` of this module: the few operations building,
walking and drawing need, on plain dicts (importing networkx cost every
``stackctl`` process about a fifth of a second).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol

from hearth.common import exception
from hearth.engine.template.located import line_of

LOG = logging.getLogger(__name__)


class DiGraph:
    """A directed graph: nodes with attributes, edges in insertion order.

    The names follow networkx's (``nodes``, ``edges``, ``adj``,
    ``successors``), which this replaces.
    """

    def __init__(self, edges: Iterable[tuple[Hashable, Hashable]] = ()) -> None:
        #: node -> its attributes
        self._nodes: dict[Hashable, dict[str, Any]] = {}
        #: node -> {successor: None} (a dict keeps the order edges were added)
        self._succ: dict[Hashable, dict[Hashable, None]] = {}
        self._pred: dict[Hashable, dict[Hashable, None]] = {}
        for source, target in edges:
            self.add_edge(source, target)

    def add_node(self, node: Hashable, **attributes: Any) -> None:
        """Add ``node`` (or update its attributes)."""
        if node not in self._nodes:
            self._nodes[node] = {}
            self._succ[node] = {}
            self._pred[node] = {}
        self._nodes[node].update(attributes)

    def add_edge(self, source: Hashable, target: Hashable) -> None:
        """Add the edge ``source -> target`` (and either node if new)."""
        for node in (source, target):
            if node not in self._nodes:
                self.add_node(node)
        self._succ[source][target] = None
        self._pred[target][source] = None

    def remove_nodes_from(self, nodes: Iterable[Hashable]) -> None:
        """Remove each of ``nodes`` present, with its edges."""
        for node in nodes:
            if node not in self._nodes:
                continue
            for target in self._succ.pop(node):
                self._pred[target].pop(node, None)
            for source in self._pred.pop(node):
                self._succ[source].pop(node, None)
            del self._nodes[node]

    @property
    def nodes(self) -> dict[Hashable, dict[str, Any]]:
        """Return node -> attributes (iterates over the nodes)."""
        return self._nodes

    @property
    def adj(self) -> Mapping[Hashable, Mapping[Hashable, None]]:
        """Return node -> its successors (what it needs)."""
        return self._succ

    @property
    def edges(self) -> list[tuple[Hashable, Hashable]]:
        """Return every edge ``(source, target)``."""
        return [(source, target) for source, targets in self._succ.items() for target in targets]

    def successors(self, node: Hashable) -> Iterator[Hashable]:
        """Iterate over the nodes ``node`` has an edge to."""
        return iter(self._succ[node])

    def __contains__(self, node: object) -> bool:
        return node in self._nodes

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self._nodes)

    def __len__(self) -> int:
        return len(self._nodes)


class GraphNode(Protocol):
    """What the graph needs from a definition."""

    name: str
    depends_on: list[str]
    line: int | None
    raw: Any

    def reference_dependencies(self) -> set[str]:
        """Return names referred to by functions."""


class GraphInput:
    """What the steps read: the definitions, the disabled names, the file name."""

    def __init__(self, definitions: Mapping[str, GraphNode], disabled: Iterable[str] = (),
                 filename: str | None = None) -> None:
        self.definitions = definitions
        self.disabled = set(disabled)
        self.filename = filename
        #: every resource name of the template, enabled or not (read once per edge)
        self.known: set[str] = set(definitions) | self.disabled


def add_resources(graph: DiGraph, data: GraphInput) -> DiGraph:
    """Add one node per resource (disabled ones too, dropped later)."""
    for name, definition in data.definitions.items():
        graph.add_node(name, definition=definition)
    for name in sorted(data.disabled):
        graph.add_node(name, definition=None, disabled=True)
    return graph


def add_depends_on_edges(graph: DiGraph, data: GraphInput) -> DiGraph:
    """Add ``depends_on`` edges; an unknown name is a located error."""
    for name, definition in data.definitions.items():
        for index, target in enumerate(definition.depends_on):
            if target not in data.known:
                depends = (definition.raw or {}).get("depends_on")
                line = line_of(depends, index) if isinstance(depends, list) else None
                raise exception.InvalidTemplateReference(
                    f'The specified reference "{target}" (in {name}) is incorrect.'
                    + exception.did_you_mean(target, sorted(data.known)),
                    path=["resources", name, "depends_on"],
                    line=line or line_of(definition.raw, "depends_on") or definition.line,
                    filename=data.filename)
            graph.add_edge(name, target)
    return graph


def add_reference_edges(graph: DiGraph, data: GraphInput) -> DiGraph:
    """Add edges for get_resource/get_attr anywhere in the definition."""
    for name, definition in data.definitions.items():
        for target in sorted(definition.reference_dependencies()):
            if target not in data.known:
                raise exception.InvalidTemplateReference(
                    f'The specified reference "{target}" (in {name}) is incorrect.'
                    + exception.did_you_mean(target, sorted(data.known)),
                    path=["resources", name], line=definition.line, filename=data.filename)
            graph.add_edge(name, target)
    return graph


def drop_disabled(graph: DiGraph, data: GraphInput) -> DiGraph:
    """Remove resources whose condition is false: they are simply absent."""
    graph.remove_nodes_from(data.disabled)
    return graph


def check_cycles(graph: DiGraph, data: GraphInput) -> DiGraph:
    """Raise CircularDependencyException naming one cycle, in a fixed order."""
    cycle = find_cycle(graph)
    if cycle:
        first = data.definitions.get(cycle[0])
        raise exception.CircularDependencyException(
            cycle, filename=data.filename, line=getattr(first, "line", None))
    return graph


Step = Callable[[DiGraph, GraphInput], DiGraph]

#: What building a graph does, in order.
BUILD_STEPS: Sequence[Step] = (
    add_resources,          # one node per resource
    add_depends_on_edges,   # explicit dependencies
    add_reference_edges,    # get_resource / get_attr in properties, metadata, policies
    drop_disabled,          # condition false: absent
    check_cycles,           # a cycle is an error naming it
)


def find_cycle(graph: DiGraph) -> list[str]:
    """Return one cycle as a path ``[a, b, c, a]`` rotated to a fixed start, or [].

    The acyclic case (every valid template) is decided by a linear topological
    check; the deterministic search runs only when a cycle exists.
    """
    if is_acyclic(graph):
        return []
    nodes = _first_cycle(graph)
    start = min(range(len(nodes)), key=lambda index: _node_order(nodes[index]))
    rotated = nodes[start:] + nodes[:start]
    return [*rotated, rotated[0]]


def is_acyclic(graph: DiGraph) -> bool:
    """Return whether ``graph`` has no cycle (Kahn's topological count)."""
    adjacency = graph.adj
    pending = dict.fromkeys(adjacency, 0)
    for targets in adjacency.values():
        for target in targets:
            pending[target] += 1
    ready = [node for node, count in pending.items() if not count]
    done = 0
    while ready:
        node = ready.pop()
        done += 1
        for target in adjacency[node]:
            pending[target] -= 1
            if not pending[target]:
                ready.append(target)
    return done == len(pending)


def _first_cycle(graph: DiGraph) -> list[Any]:
    """Return the nodes of the first cycle a depth-first search meets (sorted start order)."""
    adjacency = graph.adj
    finished: set[Any] = set()
    for root in sorted(adjacency, key=_node_order):
        if root in finished:
            continue
        path, on_path = [root], {root}
        branches = [iter(adjacency[root])]
        while branches:
            target = next(branches[-1], None)
            if target is None:
                branches.pop()
                finished.add(path[-1])
                on_path.discard(path.pop())
            elif target in on_path:
                return path[path.index(target):]
            elif target not in finished:
                path.append(target)
                on_path.add(target)
                branches.append(iter(adjacency[target]))
    return []


def _node_order(name: Any) -> tuple[int, str]:
    return (len(str(name)), str(name))


def build(definitions: Mapping[str, GraphNode], disabled: Iterable[str] = (),
          filename: str | None = None, steps: Sequence[Step] = BUILD_STEPS) -> DiGraph:
    """Run ``steps`` over a new graph; log the dump after each at debug level."""
    data = GraphInput(definitions, disabled, filename)
    graph = DiGraph()
    for step in steps:
        graph = step(graph, data)
        if LOG.isEnabledFor(logging.DEBUG):
            LOG.debug("graph after %s:\n%s", step.__name__, dump(graph))
    return graph


def dump(graph: DiGraph) -> str:
    """Return the canonical text of the graph: each node, then what it needs, indented."""
    lines = []
    for name in sorted(graph.nodes, key=str):
        lines.append(str(name))
        lines.extend(f"  {target}" for target in sorted(graph.successors(name), key=str))
    return "\n".join(lines)

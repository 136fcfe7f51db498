"""The stack page's picture: the engine's graph laid out in layers, nested stacks collapsed.

The input is the graph the API serves (``GET .../graph?format=json``,
:class:`hearth.engine.stacks.graph_view.GraphView` as data): the same nodes,
edges and edge kinds ``stackctl stack-graph`` draws.  The layout is
layered, read left to right: a resource stands one column right of the
furthest of the resources it needs, so every edge points left; within a
column, resources are ordered by where what they need stands (one
barycentre sweep), and a column taller than :data:`MAX_ROWS` wraps into
several.  A nested stack or group is one node (its resource) carrying the
count of its resources by state, linked to its own page, so a stack of
1,000 resources in groups is a handful of nodes and a flat one is a grid
the browser draws in one go.  Everything here is plain data for the
template, which escapes every name.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

NODE_WIDTH = 190
NODE_HEIGHT = 40
COLUMN_GAP = 70
ROW_GAP = 14
MARGIN = 10
#: Most nodes one column holds before it wraps into another.
MAX_ROWS = 30
#: The state classes a node's colour comes from (``ACTION_STATUS`` -> class).
STATUS_CLASSES = (("IN_PROGRESS", "progress"), ("COMPLETE", "complete"),
                  ("FAILED", "failed"))


def status_class(state: str | None) -> str:
    """Return the colour class of an ``ACTION_STATUS`` (``init`` before any action).

    A resource not acted on yet is ``INIT_COMPLETE`` (Heat's state of a
    resource that was never created): that is ``init``, not complete.
    """
    if not state or state.startswith("INIT_"):
        return "init"
    for suffix, name in STATUS_CLASSES:
        if state and state.endswith(suffix):
            return name
    return "init"


@dataclass(slots=True)
class PlacedNode:
    """A resource (or a collapsed nested stack) where the picture draws it."""

    name: str
    type: str
    state: str | None
    reason: str
    x: int = 0
    y: int = 0
    #: a nested stack's resources by colour class (empty: a plain resource)
    counts: dict[str, int] = field(default_factory=dict)
    #: the name of the nested stack a group node stands for ("" for a plain resource)
    nested_name: str = ""

    @property
    def css(self) -> str:
        """Return the node's colour class."""
        return status_class(self.state)

    @property
    def is_group(self) -> bool:
        """Return whether the node stands for a nested stack."""
        return bool(self.counts)

    @property
    def size(self) -> int:
        """Return how many resources a group node holds (0 for a plain one)."""
        return sum(self.counts.values())


@dataclass(slots=True)
class PlacedEdge:
    """``source`` needs ``target``, drawn from the target's right side to the source's left."""

    source: str
    target: str
    kinds: list[str]
    path: str


@dataclass(slots=True)
class Layout:
    """The picture: nodes and edges with coordinates, and its size."""

    nodes: list[PlacedNode]
    edges: list[PlacedEdge]
    width: int
    height: int


def cluster_counts(view: Mapping[str, Any]) -> dict[str, int]:
    """Return the resources of a nested stack's view and its own nested ones, by colour class."""
    counts: Counter[str] = Counter()
    clusters = view.get("clusters") or {}
    for node in view.get("nodes", ()):
        nested = clusters.get(node["name"])
        if nested is not None:
            counts.update(cluster_counts(nested))
        counts[status_class(node.get("state"))] += 1
    return dict(counts)


def _columns(names: list[str], needs: Mapping[str, list[str]]) -> dict[str, int]:
    """Return each node's layer: one right of the furthest node it needs (0: needs none)."""
    layer: dict[str, int] = {}
    visiting: set[str] = set()
    for start in names:
        stack = [start]
        while stack:
            name = stack[-1]
            if name in layer:
                stack.pop()
                continue
            pending = [need for need in needs[name] if need not in layer]
            if pending and name not in visiting:
                visiting.add(name)
                stack.extend(need for need in pending if need not in visiting)
                continue
            # a cycle (the engine refuses those) would leave a need unplaced: count it as 0
            layer[name] = 1 + max((layer.get(need, -1) for need in needs[name]), default=-1)
            visiting.discard(name)
            stack.pop()
    return layer


def layout(view: Mapping[str, Any]) -> Layout:
    """Return the placed picture of a graph view (nested stacks collapsed into one node)."""
    clusters = view.get("clusters") or {}
    nodes = {node["name"]: _placed(node, clusters.get(node["name"]))
             for node in view.get("nodes", ())}
    needs: dict[str, list[str]] = {name: [] for name in nodes}
    for edge in view.get("edges", ()):
        if edge["source"] in nodes and edge["target"] in nodes:
            needs[edge["source"]].append(edge["target"])
    layers = _columns(sorted(nodes), needs)
    by_layer: dict[int, list[str]] = {}
    for name in sorted(nodes, key=lambda n: (layers[n], n)):
        by_layer.setdefault(layers[name], []).append(name)
    row_of: dict[str, float] = {}
    column = 0
    height = 0
    for index in sorted(by_layer):
        members = by_layer[index]
        if index:
            members.sort(key=lambda n: (_barycentre(needs[n], row_of), n))
        for start in range(0, len(members), MAX_ROWS):
            for row, name in enumerate(members[start:start + MAX_ROWS]):
                node = nodes[name]
                node.x = MARGIN + column * (NODE_WIDTH + COLUMN_GAP)
                node.y = MARGIN + row * (NODE_HEIGHT + ROW_GAP)
                row_of[name] = start + row
                height = max(height, node.y + NODE_HEIGHT + MARGIN)
            column += 1
    edges = [PlacedEdge(edge["source"], edge["target"], list(edge.get("kinds") or ()),
                        _path(nodes[edge["target"]], nodes[edge["source"]]))
             for edge in view.get("edges", ())
             if edge["source"] in nodes and edge["target"] in nodes]
    width = MARGIN + column * (NODE_WIDTH + COLUMN_GAP) - COLUMN_GAP + MARGIN
    return Layout(sorted(nodes.values(), key=lambda n: n.name), edges,
                  max(width, NODE_WIDTH + 2 * MARGIN), max(height, NODE_HEIGHT + 2 * MARGIN))


def _placed(node: Mapping[str, Any], cluster: Mapping[str, Any] | None) -> PlacedNode:
    """Return a node not yet placed (a nested stack's: with its counts and name)."""
    placed = PlacedNode(node["name"], node["type"], node.get("state"), node.get("reason") or "")
    if cluster is not None:
        placed.counts = cluster_counts(cluster)
        placed.nested_name = str(cluster.get("name") or "")
    return placed


def _barycentre(needs: list[str], row_of: Mapping[str, float]) -> float:
    rows = [row_of[need] for need in needs if need in row_of]
    return sum(rows) / len(rows) if rows else 0.0


def _path(start: PlacedNode, end: PlacedNode) -> str:
    """Return the SVG path of an edge from ``start``'s right side to ``end``'s left side."""
    x1, y1 = start.x + NODE_WIDTH, start.y + NODE_HEIGHT // 2
    x2, y2 = end.x, end.y + NODE_HEIGHT // 2
    bend = max(COLUMN_GAP // 2, (x2 - x1) // 3)
    return f"M{x1},{y1} C{x1 + bend},{y1} {x2 - bend},{y2} {x2},{y2}"

"""What a stack's dependency picture shows, read from the engine's one graph.

:func:`describe` turns the networkx graph the template layer builds
(:func:`hearth.engine.template.graph.build`, the graph validation and the
walk use) into a :class:`GraphView`: one node per resource with its type
and state, one edge per dependency saying what made it (``depends_on``,
``get_resource``, ``get_attr`` with the attributes read), and one cluster
per nested stack, keyed by the resource that owns it.  Nothing here decides
what depends on what: the edges are the graph's, this module only labels
them from the definitions that produced them.

A view is plain data (:meth:`GraphView.as_dict` is the JSON the API
serves), so the CLI draws the same picture in embedded and HTTP mode
(:mod:`hearth.engine.stacks.graph_dot`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import networkx as nx

from hearth.engine.resources.validation import definition_checker
from hearth.engine.states import state_name
from hearth.engine.template import function
from hearth.engine.template.environment import Environment, parameter_types
from hearth.engine.template.resource_definition import REFERENCE_FIELDS
from hearth.engine.template.template import Template

if TYPE_CHECKING:
    from hearth.db import models
    from hearth.engine.stacks.stack import Stack

#: Edge kinds, in the order a label lists them.
EDGE_KINDS = (DEPENDS_ON, GET_RESOURCE, GET_ATTR) = ("depends_on", "get_resource", "get_attr")

#: Deepest nesting of stacks drawn as clusters (deeper ones are left out).
MAX_CLUSTER_DEPTH = 5


@dataclasses.dataclass(slots=True)
class GraphNode:
    """One resource: its name, type and ``ACTION_STATUS`` (None: not a stack's)."""

    name: str
    type: str
    state: str | None = None
    reason: str = ""


@dataclasses.dataclass(slots=True)
class GraphEdge:
    """``source`` needs ``target``; ``kinds`` say why, ``attributes`` what get_attr reads."""

    source: str
    target: str
    kinds: list[str]
    attributes: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(slots=True)
class GraphView:
    """A stack's (or a template's) resources and dependencies, with nested stacks.

    ``clusters`` maps the name of the resource owning a nested stack to that
    stack's view.
    """

    name: str
    state: str | None = None
    nodes: list[GraphNode] = dataclasses.field(default_factory=list)
    edges: list[GraphEdge] = dataclasses.field(default_factory=list)
    clusters: dict[str, GraphView] = dataclasses.field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """Return the view as JSON-ready data."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GraphView:
        """Return the view ``as_dict`` (or the API) gave."""
        return cls(name=data["name"], state=data.get("state"),
                   nodes=[GraphNode(**node) for node in data.get("nodes", ())],
                   edges=[GraphEdge(**edge) for edge in data.get("edges", ())],
                   clusters={owner: cls.from_dict(view)
                             for owner, view in (data.get("clusters") or {}).items()})


def edge_kinds(definition: Any, target: str) -> tuple[list[str], list[str]]:
    """Return ``(kinds, attributes)`` of the edge ``definition`` -> ``target``.

    ``depends_on`` when the definition lists ``target`` there; ``get_attr``
    when its snippets read attributes of ``target`` (the engine's own
    :func:`~hearth.engine.template.function.dep_attrs` walker says which);
    ``get_resource`` for any other reference (``get_resource``, ``Ref``, or a
    ``get_attr`` of all attributes).
    """
    kinds = [DEPENDS_ON] if target in (definition.depends_on or ()) else []
    attributes = sorted({attribute for field in REFERENCE_FIELDS
                         for attribute in function.dep_attrs(getattr(definition, field),
                                                             target)})
    if attributes:
        kinds.append(GET_ATTR)
    elif target in definition.reference_dependencies():
        kinds.append(GET_RESOURCE)
    return kinds, attributes


def describe(graph: nx.DiGraph, definitions: Mapping[str, Any], name: str,
             state: str | None = None,
             resource_states: Mapping[str, tuple[str, str]] | None = None,
             clusters: Mapping[str, GraphView] | None = None) -> GraphView:
    """Return the view of ``graph`` (edges point from a resource to what it needs).

    ``resource_states`` maps a resource name to ``(ACTION_STATUS, reason)``;
    ``clusters`` maps owning resource names to nested stacks' views.
    """
    nodes = []
    for node in sorted(graph.nodes, key=str):
        node_state, reason = (resource_states or {}).get(node, (None, ""))
        nodes.append(GraphNode(node, definitions[node].type, node_state, reason))
    edges = []
    for source, target in sorted(graph.edges, key=lambda edge: (str(edge[0]), str(edge[1]))):
        kinds, attributes = edge_kinds(definitions[source], target)
        edges.append(GraphEdge(source, target, kinds, attributes))
    return GraphView(name, state, nodes, edges, dict(clusters or {}))


def stack_view(stack: Stack, clusters: Mapping[str, GraphView] | None = None) -> GraphView:
    """Return the view of a live :class:`~hearth.engine.stacks.stack.Stack`."""
    graph = stack.template.dependency_graph(stack.context, stack.definitions)
    states = {name: (state_name(resource.action, resource.status), resource.status_reason or "")
              for name, resource in stack.resources.items()}
    return describe(graph, stack.definitions, stack.name,
                    state_name(stack.action, stack.status), states, clusters)


def template_view(data: Mapping[str, Any], name: str, params: Mapping[str, Any] | None = None,
                  documents: Sequence[tuple[str | None, Any]] = (),
                  files: Mapping[str, str] | None = None, registry: Any = None,
                  filename: str | None = None) -> GraphView:
    """Validate a parsed template in full, as create would; return its view.

    ``documents`` are the ``(name, environment)`` pairs to merge, in order;
    ``registry`` the plug-in registry that checks resource types and
    properties (None: not checked).  Nothing exists yet, so nodes carry no
    state.  Raises the located validation error of the first problem.
    """
    env = Environment.from_documents(list(documents), parameter_types(data))
    template = Template(data, files=files, env=env, filename=filename)
    checker = definition_checker(registry, env, files) if registry is not None else None
    parameters = template.validate(resource_validator=checker, user_params=params,
                                   validate_value=False)
    context = template.context(parameters)
    definitions = template.resource_definitions(context)
    return describe(template.dependency_graph(context, definitions), definitions, name)


def stack_tree_view(row: models.Stack, load: Callable[[models.Stack], Stack],
                    children: Callable[[models.Stack], Iterable[models.Stack]],
                    depth: int = 0) -> GraphView:
    """Return the view of the stack stored as ``row``, its nested stacks as clusters.

    ``load`` builds the live stack of a row; ``children`` gives the rows of
    the stacks nested in a row (the stacks it owns), each drawn under the
    resource that owns it, down to :data:`MAX_CLUSTER_DEPTH`.
    """
    clusters: dict[str, GraphView] = {}
    if depth < MAX_CLUSTER_DEPTH:
        for child in children(row):
            owner = child.parent_resource_name or child.name
            clusters[owner] = stack_tree_view(child, load, children, depth + 1)
    return stack_view(load(row), clusters)

"""The graph view: nodes, states and edge kinds read from the engine's graph."""

from __future__ import annotations

import pytest

from hearth.common import exception
from hearth.engine.nested.template_resource import default_registry
from hearth.engine.stacks import graph_view
from hearth.engine.template import parser

TEMPLATE = """
heat_template_version: 2021-04-16
parameters:
  flavour: {type: string}
conditions:
  big: {equals: [{get_param: flavour}, big]}
resources:
  db: {type: OS::Heat::RandomString}
  web:
    type: OS::Heat::Value
    depends_on: [db]
    properties:
      value: {get_attr: [db, value]}
  app:
    type: OS::Heat::Value
    properties:
      value:
        list_join: ['-', [{get_resource: db}, {get_attr: [web, value]}, {get_attr: [web, show]}]]
  extra:
    type: OS::Heat::None
    condition: big
    depends_on: app
"""


def view_of(text: str, **params: str) -> graph_view.GraphView:
    return graph_view.template_view(parser.parse(text, "t.yaml"), "t", params,
                                    registry=default_registry(), filename="t.yaml")


def edges(view: graph_view.GraphView) -> list[tuple[str, str, list[str], list[str]]]:
    return [(e.source, e.target, e.kinds, e.attributes) for e in view.edges]


def test_edges_say_which_reference_made_them():
    view = view_of(TEMPLATE, flavour="small")
    assert [(n.name, n.type, n.state) for n in view.nodes] == [
        ("app", "OS::Heat::Value", None), ("db", "OS::Heat::RandomString", None),
        ("web", "OS::Heat::Value", None)]
    assert edges(view) == [
        ("app", "db", ["get_resource"], []),
        ("app", "web", ["get_attr"], ["show", "value"]),
        ("web", "db", ["depends_on", "get_attr"], ["value"]),
    ]


def test_a_resource_whose_condition_is_true_is_drawn():
    view = view_of(TEMPLATE, flavour="big")
    assert "extra" in [node.name for node in view.nodes]
    assert ("extra", "app", ["depends_on"], []) in edges(view)


def test_the_view_survives_its_json_form():
    view = view_of(TEMPLATE, flavour="small")
    nested = graph_view.GraphView("child", "CREATE_COMPLETE",
                                  [graph_view.GraphNode("x", "OS::Heat::None", "INIT_COMPLETE")])
    view.clusters["web"] = nested
    assert graph_view.GraphView.from_dict(view.as_dict()) == view


def test_a_cycle_is_the_validation_error_create_gives():
    text = """
heat_template_version: 2021-04-16
resources:
  a: {type: OS::Heat::None, depends_on: b}
  b: {type: OS::Heat::None, depends_on: a}
"""
    with pytest.raises(exception.CircularDependencyException) as caught:
        view_of(text)
    assert "a -> b -> a" in str(caught.value)


def test_an_unknown_type_is_located_in_the_file():
    text = "heat_template_version: 2021-04-16\nresources:\n  a: {type: No::Such::Type}\n"
    with pytest.raises(exception.HearthException) as caught:
        view_of(text)
    assert str(caught.value) == ("t.yaml:3: resources.a.type: The Resource Type "
                                 "(No::Such::Type) could not be found.")


def test_describe_takes_states_from_the_stack():
    import networkx as nx

    from hearth.engine.template.resource_definition import ResourceDefinition
    graph = nx.DiGraph([("a", "b")])
    definitions = {"a": ResourceDefinition("a", "T::A", depends_on=["b"]),
                   "b": ResourceDefinition("b", "T::B")}
    view = graph_view.describe(graph, definitions, "s", "CREATE_FAILED",
                               {"a": ("CREATE_FAILED", "boom"), "b": ("CREATE_COMPLETE", "")})
    assert view.state == "CREATE_FAILED"
    assert [(n.name, n.state, n.reason) for n in view.nodes] == [
        ("a", "CREATE_FAILED", "boom"), ("b", "CREATE_COMPLETE", "")]
    assert edges(view) == [("a", "b", ["depends_on"], [])]

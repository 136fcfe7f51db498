"""Tests of the dependency graph steps (compared as text dumps)."""

import textwrap

import networkx as nx
import pytest

from hearth.common import exception
from hearth.engine.template import graph as graphs
from hearth.engine.template import parser
from hearth.engine.template.resource_definition import ResourceDefinition


def definition(name, depends_on=(), refs=(), raw=None, line=None):
    defn = ResourceDefinition(name, "T", depends_on=list(depends_on), line=line,
                              raw=raw or {"type": "T"})
    defn.properties = {"ref": _Ref(refs)} if refs else {}
    return defn


class _Ref:
    """A stand-in Function: only its dependencies matter to the graph."""

    def __init__(self, names):
        self.names = names


def defs(*items):
    return {item.name: item for item in items}


@pytest.fixture(autouse=True)
def _functions_yield_refs(monkeypatch):
    from hearth.engine.template import function
    original = function.dependencies

    def dependencies(snippet):
        if isinstance(snippet, _Ref):
            yield from snippet.names
        else:
            yield from original(snippet)
    monkeypatch.setattr(function, "dependencies", dependencies)


def test_diamond():
    graph = graphs.build(defs(definition("top", refs=["left", "right"]),
                              definition("left", depends_on=["bottom"]),
                              definition("right", refs=["bottom"]), definition("bottom")))
    assert graphs.dump(graph) == textwrap.dedent("""\
        bottom
        left
          bottom
        right
          bottom
        top
          left
          right""")


def test_each_step_alone():
    data = graphs.GraphInput(defs(definition("a", depends_on=["b"]), definition("b", refs=["c"])),
                             disabled=["c"])
    graph = graphs.add_resources(nx.DiGraph(), data)
    assert graphs.dump(graph) == "a\nb\nc"
    graph = graphs.add_depends_on_edges(graph, data)
    assert graphs.dump(graph) == "a\n  b\nb\nc"
    graph = graphs.add_reference_edges(graph, data)
    assert graphs.dump(graph) == "a\n  b\nb\n  c\nc"
    graph = graphs.drop_disabled(graph, data)
    assert graphs.dump(graph) == "a\n  b\nb"


def test_cycle_is_reported_rotated_and_closed():
    with pytest.raises(exception.CircularDependencyException) as info:
        graphs.build(defs(definition("web", depends_on=["db"]),
                          definition("db", refs=["cache"]),
                          definition("cache", depends_on=["web"]),
                          definition("other")), filename="t.yaml")
    assert str(info.value) == "t.yaml: Circular Dependency Found: db -> cache -> web -> db"
    assert info.value.cycle == ["db", "cache", "web", "db"]


def test_self_cycle():
    assert graphs.find_cycle(graphs.build(defs(definition("a")), steps=(
        graphs.add_resources,))) == []
    graph = nx.DiGraph([("a", "a")])
    assert graphs.find_cycle(graph) == ["a", "a"]


def test_unknown_depends_on_is_located_with_hint():
    raw = parser.parse("type: T\ndepends_on:\n  - dbb\n", "t.yaml")
    with pytest.raises(exception.InvalidTemplateReference) as info:
        graphs.build(defs(definition("web", depends_on=["dbb"], raw=raw), definition("db")),
                     filename="t.yaml")
    assert str(info.value) == ('t.yaml:3: resources.web.depends_on: The specified reference '
                               '"dbb" (in web) is incorrect. Did you mean "db"?')


def test_unknown_reference():
    with pytest.raises(exception.InvalidTemplateReference) as info:
        graphs.build(defs(definition("web", refs=["nope"], line=4)), filename="t.yaml")
    assert str(info.value) == ('t.yaml:4: resources.web: The specified reference "nope" '
                               '(in web) is incorrect.')

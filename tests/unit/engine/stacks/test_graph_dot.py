"""DOT text of a graph view: the exact text, quoting, and Graphviz reading it back."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from hearth.engine.stacks import graph_dot
from hearth.engine.stacks.graph_view import GraphEdge, GraphNode, GraphView

needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz's dot is not installed (make installs it)")


def sample() -> GraphView:
    child = GraphView("parent-web-abc", "CREATE_IN_PROGRESS",
                      [GraphNode("inner", "OS::Heat::None", "CREATE_IN_PROGRESS")])
    return GraphView(
        "parent", "CREATE_FAILED",
        [GraphNode("db", "OS::Heat::RandomString", "CREATE_COMPLETE"),
         GraphNode("web", "OS::Heat::Stack", "CREATE_FAILED", 'quota "x" exceeded')],
        [GraphEdge("web", "db", ["get_attr", "depends_on"], ["value"])],
        {"web": child})


EXPECTED = "\n".join([
    r'digraph "parent" {',
    r'  rankdir="TB";',
    r'  compound="true";',
    r'  fontname="Helvetica";',
    r'  label="parent\nCREATE_FAILED";',
    r'  labelloc="t";',
    r'  node [shape="box", style="rounded,filled", fontname="Helvetica"];',
    r'  edge [fontname="Helvetica", fontsize="10"];',
    r'  "db" [label="db\nOS::Heat::RandomString\nCREATE_COMPLETE", fillcolor="#c8e6c0"];',
    r'  "web" [label="web\nOS::Heat::Stack\nCREATE_FAILED", fillcolor="#f4b6b6", '
     r'color="#b00000", penwidth="2", '
     r'tooltip="OS::Heat::Stack CREATE_FAILED: quota \"x\" exceeded"];',
    r'  "web" -> "db" [style="dashed", label="get_attr value"];',
    r'  subgraph "cluster_web" {',
    r'    label="parent-web-abc\nCREATE_IN_PROGRESS";',
    r'    style="rounded";',
    r'    "web/inner" [label="inner\nOS::Heat::None\nCREATE_IN_PROGRESS", fillcolor="#fff3b0"];',
    r'  }',
    r'  "web" -> "web/inner" [style="dotted", arrowhead="none", label="nested stack", '
     r'lhead="cluster_web"];',
    r'  subgraph "cluster_legend" {',
    '    label="Legend: an arrow A -> B says A needs B:\\nB is created first and deleted '
    "last.\\nA bold arrow's label: the attributes A reads.\\nA dotted line leads to a "
    "resource's nested stack.\";",
    r'    labeljust="l";',
    r'    style="rounded,dashed";',
    r'    color="#999999";',
    r'    fontsize="10";',
    r'    node [shape="plaintext", style="", fontsize="10"];',
    *(line for kind, style in (("depends_on", "dashed"), ("get_resource", "solid"),
                               ("get_attr", "bold")) for line in (
        f'    "legend: {kind}" [label="A"];',
        f'    "legend: {kind} (needed)" [label="B"];',
        f'    "legend: {kind}" -> "legend: {kind} (needed)" [style="{style}", '
        f'label="{kind}"];')),
    r'  }',
    r'}',
    r'',
])


def test_the_dot_text_is_exact_and_stable():
    assert graph_dot.to_dot(sample()) == EXPECTED


@pytest.mark.parametrize(("state", "expected"), [
    (None, "template"), ("INIT_COMPLETE", "not_created"), ("CREATE_IN_PROGRESS", "in_progress"),
    ("UPDATE_FAILED", "failed"), ("CHECK_COMPLETE", "complete"), ("DELETE_COMPLETE", "deleted"),
])
def test_each_state_has_its_style(state, expected):
    assert graph_dot.state_class(state) == expected
    assert expected in graph_dot.STATE_STYLES


def test_quoting_keeps_names_that_look_like_syntax():
    assert graph_dot.quote('a"b\\c\nd') == r'"a\"b\\c\nd"'


@needs_dot
def test_graphviz_reads_back_every_node_edge_label_and_cluster():
    result = subprocess.run(["dot", "-Tjson0"], input=graph_dot.to_dot(sample()),
                            capture_output=True, text=True, timeout=60, check=True)
    drawn = json.loads(result.stdout)
    objects = drawn["objects"]
    nodes = {item["name"]: item for item in objects if "nodes" not in item}
    assert {name for name in nodes if not name.startswith("legend: ")} == {
        "db", "web", "web/inner"}
    assert nodes["web"]["fillcolor"] == "#f4b6b6"
    assert nodes["web/inner"]["label"] == "inner\\nOS::Heat::None\\nCREATE_IN_PROGRESS"
    clusters = [item for item in objects if "nodes" in item]
    assert [item["name"] for item in clusters] == ["cluster_web", "cluster_legend"]
    assert [objects[index]["name"] for index in clusters[0]["nodes"]] == ["web/inner"]
    named = {(objects[e["tail"]]["name"], objects[e["head"]]["name"]): e for e in drawn["edges"]}
    assert named[("web", "db")]["label"] == "get_attr value"
    assert named[("web", "db")]["style"] == "dashed"
    assert named[("web", "web/inner")]["lhead"] == "cluster_web"

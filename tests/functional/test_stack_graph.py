"""stack-graph end to end: stackctl as a subprocess, and nested stacks as clusters."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from tests.fixtures.engine import CTX, create_and_wait
from tests.functional import stackctl_process
from tests.unit.utils.test_graphviz import png_size

needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz's dot is not installed (make installs it)")

TEMPLATE = """
heat_template_version: 2021-04-16
resources:
  db: {type: OS::Heat::RandomString}
  web:
    type: OS::Heat::Value
    depends_on: [db]
    properties:
      value: {get_attr: [db, value]}
  broken:
    type: OS::Heat::TestResource
    properties:
      value: {get_resource: web}
      fail: true
"""


def read_back(dot_text: str) -> dict:
    """Return Graphviz's own reading of DOT text: nodes (with attributes) and edges."""
    result = subprocess.run(["dot", "-Tjson0"], input=dot_text, capture_output=True,
                            text=True, timeout=60, check=True)
    drawn = json.loads(result.stdout)
    objects = drawn["objects"]
    nodes = {item["name"]: item for item in objects if "nodes" not in item}
    edges = {(objects[e["tail"]]["name"], objects[e["head"]]["name"]): e.get("label", "")
             for e in drawn.get("edges", ())
             if not objects[e["tail"]]["name"].startswith("legend: ")}
    return {"nodes": nodes, "edges": edges,
            "clusters": [item["name"] for item in objects if "nodes" in item]}


@pytest.fixture(scope="module")
def failed_stack(tmp_path_factory):
    """A stack whose 'broken' resource failed (rollback disabled): (home, template path)."""
    home = tmp_path_factory.mktemp("graph-home")
    template = home / "stack.yaml"
    template.write_text(TEMPLATE)
    created = stackctl_process.run(home, "stack-create", "--disable-rollback", "-f",
                                   str(template), "demo")
    assert created.returncode == 1, created.stdout + created.stderr
    return home, template


@needs_dot
def test_dot_of_a_stack_colours_nodes_by_state_and_labels_edges(failed_stack):
    home, _ = failed_stack
    result = stackctl_process.run(home, "stack-graph", "demo")
    assert result.returncode == 0, result.stderr
    graph = read_back(result.stdout)
    assert graph["nodes"]["db"]["fillcolor"] == "#c8e6c0"          # CREATE_COMPLETE
    assert graph["nodes"]["broken"]["fillcolor"] == "#f4b6b6"      # CREATE_FAILED
    assert "CREATE_FAILED" in graph["nodes"]["broken"]["label"]
    # the style says the first kind (the legend says which); the label the rest
    assert graph["edges"] == {("web", "db"): "get_attr value", ("broken", "web"): ""}
    assert "cluster_legend" in graph["clusters"]


@needs_dot
def test_png_to_a_file_is_a_png_of_sane_size(failed_stack, tmp_path):
    home, _ = failed_stack
    picture = tmp_path / "demo.png"
    result = stackctl_process.run(home, "stack-graph", "demo", "--output", str(picture))
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    width, height = png_size(picture.read_bytes())
    assert 200 <= width <= 2000 and 200 <= height <= 2000


@needs_dot
def test_svg_to_standard_output(failed_stack):
    home, _ = failed_stack
    result = stackctl_process.run(home, "stack-graph", "demo", "--format", "svg")
    assert result.returncode == 0, result.stderr
    assert "<svg" in result.stdout and ">broken</text>" in result.stdout


@needs_dot
def test_a_template_is_drawn_before_any_stack_exists(failed_stack, tmp_path):
    home, template = failed_stack
    result = stackctl_process.run(tmp_path, "stack-graph", "-f", str(template))
    assert result.returncode == 0, result.stderr
    graph = read_back(result.stdout)
    assert {name for name in graph["nodes"] if not name.startswith("legend: ")} == {
        "db", "web", "broken"}
    assert graph["nodes"]["db"]["fillcolor"] == "#ffffff"          # no state: a template
    assert graph["edges"][("broken", "web")] == ""                 # solid: get_resource


@pytest.mark.parametrize(("args", "message"), [
    ((), "stack-graph needs a STACK name or -f TEMPLATE (not both)"),
    (("nosuch",), "The Stack (nosuch) could not be found."),
    (("demo", "-P", "a=b"), "-e and -P go with -f TEMPLATE only"),
])
def test_bad_requests_are_named(failed_stack, args, message):
    home, _ = failed_stack
    result = stackctl_process.run(home, "stack-graph", *args)
    assert result.returncode in (1, 2)
    assert result.stderr == f"ERROR: {message}\n"


def test_a_bad_template_is_located(tmp_path):
    template = tmp_path / "bad.yaml"
    template.write_text("heat_template_version: 2021-04-16\nresources:\n"
                        "  a: {type: OS::Heat::None, depends_on: nowhere}\n")
    result = stackctl_process.run(tmp_path, "stack-graph", "-f", str(template))
    assert result.returncode == 1
    assert result.stderr == (f"ERROR: {template}:3: resources.a.depends_on: The specified "
                             'reference "nowhere" (in a) is incorrect.\n')


def test_nested_stacks_are_clusters_under_their_owner(service):
    from hearth.db import api_stacks
    parent = create_and_wait(service, "parent", TEMPLATE.replace("fail: true", "fail: false"))
    child = create_and_wait(service, "child", "heat_template_version: 2021-04-16\n"
                                              "resources:\n  inner: {type: OS::Heat::None}\n")
    api_stacks.stack_update(service.db, child["id"], owner_id=parent["id"],
                            parent_resource_name="web", nested_depth=1)
    graph = service.stack_graph(CTX, parent["id"])
    assert graph["state"] == "CREATE_COMPLETE"
    assert list(graph["clusters"]) == ["web"]
    nested = graph["clusters"]["web"]
    assert (nested["name"], nested["state"]) == ("child", "CREATE_COMPLETE")
    assert [(n["name"], n["state"]) for n in nested["nodes"]] == [("inner", "CREATE_COMPLETE")]


Box = tuple[float, float, float, float]   # left, bottom, right, top (points)


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _drawing(drawn: dict) -> tuple[list[tuple[int, str, Box]], list[tuple[str, Box]],
                                   list[tuple[int, float, float]]]:
    """Return what Graphviz drew: edge labels (edge, text, box), nodes, points of edge lines."""
    labels, points = [], []
    for index, edge in enumerate(drawn.get("edges", ())):
        size = 10.0
        for op in edge.get("_ldraw_", ()):
            if op["op"] == "F":
                size = op["size"]
            elif op["op"] == "T":
                x, y = op["pt"]
                half = op["width"] / 2 + 1
                labels.append((index, op["text"], (x - half, y - size * 0.3, x + half,
                                                   y + size * 0.9)))
        for op in edge.get("_draw_", ()):
            if op["op"] == "b":   # cubic Bezier segments: sample each one
                curve = op["points"]
                for start in range(0, len(curve) - 3, 3):
                    p0, p1, p2, p3 = curve[start:start + 4]
                    for step in range(21):
                        t = step / 20
                        weights = ((1 - t) ** 3, 3 * (1 - t) ** 2 * t, 3 * (1 - t) * t * t,
                                   t ** 3)
                        points.append((index, *(sum(w * p[axis] for w, p in
                                                    zip(weights, (p0, p1, p2, p3), strict=True))
                                                for axis in (0, 1))))
    nodes = []
    for item in drawn["objects"]:
        if "nodes" not in item and "pos" in item:
            x, y = (float(value) for value in item["pos"].split(","))
            half_width, half_height = float(item["width"]) * 36, float(item["height"]) * 36
            nodes.append((item["name"], (x - half_width, y - half_height, x + half_width,
                                         y + half_height)))
    return labels, nodes, points


@needs_dot
def test_the_demo_picture_has_a_legend_and_no_label_over_another(tmp_path):
    """The stack-graph picture says which way arrows point, and every label can be read."""
    root = stackctl_process.ROOT
    config = tmp_path / "hearth.conf"
    config.write_text(f"[cloud]\nconfig_dir = {root}/templates/demo/cloud\n")
    result = stackctl_process.run(tmp_path / "home", "stack-graph", "-f",
                                  str(root / "templates" / "demo.yaml"), config=config)
    assert result.returncode == 0, result.stderr
    laid_out = subprocess.run(["dot", "-Tjson"], input=result.stdout, capture_output=True,
                              text=True, timeout=60, check=True)
    drawn = json.loads(laid_out.stdout)
    legend = next(item for item in drawn["objects"] if item["name"] == "cluster_legend")
    assert legend["label"].startswith("Legend: an arrow A -> B says A needs B")
    labels, nodes, points = _drawing(drawn)
    assert len(labels) >= 12 and len(nodes) >= 14
    over_labels = [(a[1], b[1]) for index, a in enumerate(labels) for b in labels[index + 1:]
                   if _overlap(a[2], b[2])]
    over_nodes = [(label[1], name) for label in labels for name, box in nodes
                  if _overlap(label[2], box)]
    crossed = sorted({label[1] for label in labels for edge, x, y in points
                      if edge != label[0] and _overlap(label[2], (x, y, x, y))})
    assert (over_labels, over_nodes, crossed) == ([], [], [])

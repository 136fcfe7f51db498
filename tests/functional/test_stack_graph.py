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
    edges = {(objects[e["tail"]]["name"], objects[e["head"]]["name"]): e["label"]
             for e in drawn.get("edges", ())}
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
    assert graph["edges"] == {("web", "db"): "depends_on\\nget_attr value",
                              ("broken", "web"): "get_resource"}


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
    assert set(graph["nodes"]) == {"db", "web", "broken"}
    assert graph["nodes"]["db"]["fillcolor"] == "#ffffff"          # no state: a template
    assert graph["edges"][("broken", "web")] == "get_resource"


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

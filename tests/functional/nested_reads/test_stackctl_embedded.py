"""Nested stacks read and shown by ``stackctl`` (embedded engine, a real subprocess).

One stack tree (``tree.py``) is created once; every read command is run on
it as a user would, and the direct update and delete of a nested stack
(which real Heat 27 accepts: 202 and 204, the parent untouched) last.
"""

from __future__ import annotations

import json

import pytest

from tests.functional import stackctl_process
from tests.functional.nested_reads import tree

pytestmark = pytest.mark.slow


def _run(home, *args: str, code: int = 0) -> str:
    result = stackctl_process.run(home, *args)
    assert result.returncode == code, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    return result.stdout if code == 0 else result.stderr


def _json(home, *args: str):
    return json.loads(_run(home, *args, "--format", "json"))


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    path = tmp_path_factory.mktemp("nested-reads-home")
    _run(path, "stack-create", "-f", tree.PARENT, "-e", tree.ENV, "par")
    return path


@pytest.fixture(scope="module")
def stacks(home):
    """The show_nested listing: ``{stack name: row}`` (names of nested stacks are random)."""
    return {row["stack_name"]: row for row in _json(home, "stack-list", "--show-nested")}


@pytest.fixture(scope="module")
def resources(home):
    """``resource-list --nested-depth 2`` of the tree."""
    return _json(home, "resource-list", "--nested-depth", "2", "par")


def _named(stacks, resources, path):
    """Return the stack row of the nested stack held at ``path`` (``prov.deep``)."""
    by_path = {value: key for key, value in tree.holder_paths(
        resources, list(stacks.values())).items()}
    return stacks[by_path[path]]


def test_stack_list_hides_nested_stacks_and_shows_them_with_their_parent(home, stacks,
                                                                        resources):
    assert [row["stack_name"] for row in _json(home, "stack-list")] == ["par"]
    par, prov = stacks["par"], _named(stacks, resources, "prov")
    assert par["parent"] is None
    assert len(stacks) == 5
    for path in ("stk", "prov", "reg"):
        assert _named(stacks, resources, path)["parent"] == par["id"]
    deep = _named(stacks, resources, "prov.deep")
    assert deep["parent"] == prov["id"]
    shown = _json(home, "stack-show", deep["id"])
    assert (shown["id"], shown["stack_name"]) == (deep["id"], deep["stack_name"])
    assert (shown["parent"], shown["stack_status"]) == (prov["id"], "CREATE_COMPLETE")
    table = _run(home, "stack-show", deep["stack_name"])
    assert "| parent " in table and prov["id"] in table


def test_resource_list_nested_depth(home, stacks, resources):
    rows = list(stacks.values())
    assert tree.listed(resources, rows) == tree.RESOURCES_DEPTH_2
    detailed = _json(home, "resource-list", "--nested-depth", "1", "--with-detail", "par")
    assert tree.listed(detailed, rows) == tree.RESOURCES_DEPTH_1
    attributes = {(row["stack_name"], row["resource_name"]): row["attributes"]
                  for row in detailed}
    assert attributes["par", "reg"] == {"o": "w"}
    assert attributes[_named(stacks, resources, "prov")["stack_name"], "deep"] == {"o": "x"}
    flat = _json(home, "resource-list", "par")
    assert [row["resource_name"] for row in flat] == ["top", "stk", "prov", "reg"]
    assert "stack_name" not in flat[0]


def test_event_list_nested_depth_interleaves_pages_and_names_paths(home, stacks,
                                                                   resources):
    events = _json(home, "event-list", "-n", "2", "par")
    assert {event["stack_name"] for event in events} == set(stacks)
    times = [event["event_time"] for event in events]
    assert times == sorted(times)
    deep = _named(stacks, resources, "prov.deep")["stack_name"]
    assert deep not in {e["stack_name"] for e in _json(home, "event-list", "-n", "1", "par")}
    pages, marker = [], []
    while True:
        page = _json(home, "event-list", "-n", "2", "--limit", "20", *marker, "par")
        assert len(page) <= 20
        if not page:
            break
        pages += page
        marker = ["--marker", page[-1]["id"]]
    assert [event["id"] for event in pages] == [event["id"] for event in events]
    log = _run(home, "event-list", "-n", "2", "par")
    assert "[prov.deep.leaf]: CREATE_COMPLETE  state changed" in log
    assert "[prov.deep]: CREATE_COMPLETE  Stack CREATE completed successfully" in log
    error = _run(home, "event-list", "-n", "1", "-r", "top", "par", code=2)
    assert "--nested-depth cannot be specified with --resource" in error


def test_template_validate_show_nested(home):
    result = _json(home, "template-validate", "-f", tree.PARENT, "-e", tree.ENV,
                   "--show-nested")
    nested = result["NestedParameters"]
    assert list(nested) == ["stk", "prov", "reg"]
    assert nested["stk"]["Type"] == "OS::Heat::Stack"
    assert nested["reg"]["Type"] == "My::Inner"
    assert nested["prov"]["Type"].startswith("file://")
    assert nested["prov"]["Type"].endswith("/mid.yaml")
    assert nested["prov"]["Parameters"]["mp"]["Value"] == 5
    deep = nested["prov"]["NestedParameters"]["deep"]
    assert deep["Description"] == "inner tmpl"
    assert deep["Parameters"]["ip"]["Value"] == "x"
    assert "NestedParameters" not in _json(home, "template-validate", "-f", tree.PARENT,
                                           "-e", tree.ENV)


def test_a_nested_stack_updated_and_deleted_directly(home, stacks, resources):
    """As real Heat 27: both accepted; the parent and its resource stay as they were."""
    stk = _named(stacks, resources, "stk")
    out = _run(home, "stack-update", "--existing", "-P", "ip=changed", stk["stack_name"])
    assert f"Stack {stk['stack_name']} UPDATE_COMPLETE" in out
    assert _json(home, "stack-show", stk["id"])["parameters"]["ip"] == "changed"
    assert _json(home, "stack-show", "par")["stack_status"] == "CREATE_COMPLETE"
    out = _run(home, "stack-delete", "-y", stk["id"])
    assert f"Stack {stk['stack_name']} DELETE_COMPLETE" in out
    assert stk["stack_name"] not in {
        row["stack_name"] for row in _json(home, "stack-list", "--show-nested")}
    after = _json(home, "resource-list", "--nested-depth", "1", "par")
    holder = next(row for row in after if row["resource_name"] == "stk")
    assert (holder["resource_status"], holder["physical_resource_id"]) == (
        "CREATE_COMPLETE", stk["id"])
    assert stk["stack_name"] not in {row["stack_name"] for row in after}
    _run(home, "stack-delete", "-y", "par")
    assert _json(home, "stack-list", "--show-nested") == []

"""Nested reads from stored rows: resources and events down to a depth, stack listings.

The tree is stored through the db API as nested stacks store it (``owner_id``,
``parent_resource_name``, ``nested_depth``, the holding resource's physical
id) and read through :class:`StackReads`, on SQLite and PostgreSQL::

    root: a, n1 -> c1 (x, g -> gc (y)), n2 -> c2 (z)
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from hearth.common import exception
from hearth.common.context import RequestContext
from hearth.db import api
from tests.unit.db.helpers import BASE_TIME

CTX = RequestContext.local("p1")


def _template(*names: str) -> dict:
    return {"heat_template_version": "2021-04-16",
            "resources": {name: {"type": "OS::Heat::None"} for name in names}}


def _stack(db, name, names, minutes, **values):
    raw = api.raw_template_create(db, _template(*names))
    return api.stack_create(db, {"name": name, "raw_template_id": raw.id, "project_id": "p1",
                                 "created_at": BASE_TIME + timedelta(minutes=minutes),
                                 "action": "CREATE", "status": "COMPLETE", **values})


def _resources(db, stack, physical=None):
    for name in _names(db, stack):
        api.resource_create(db, {"name": name, "stack_id": stack.id, "type": "OS::Heat::None",
                                 "action": "CREATE", "status": "COMPLETE",
                                 "physical_resource_id": (physical or {}).get(name, name)})


def _names(db, stack):
    return list(api.raw_template_get(db, stack.raw_template_id).template["resources"])


def _child(db, name, owner, holder, depth, names, minutes):
    return _stack(db, name, names, minutes, owner_id=owner.id, parent_resource_name=holder,
                  nested_depth=depth)


@pytest.fixture
def tree(db, db_url):
    """Store the tree with one event per resource, interleaved in time across stacks."""
    from hearth.engine.service.reads import StackReads
    root = _stack(db, "root", ("a", "n1", "n2"), 0)
    c1 = _child(db, "root-n1", root, "n1", 1, ("x", "g"), 1)
    gc = _child(db, "root-n1-g", c1, "g", 2, ("y",), 2)
    c2 = _child(db, "root-n2", root, "n2", 1, ("z",), 3)
    _resources(db, root, {"n1": c1.id, "n2": c2.id})
    _resources(db, c1, {"g": gc.id})
    _resources(db, gc)
    _resources(db, c2)
    order = [(root, "a"), (c1, "x"), (root, "n1"), (gc, "y"), (c2, "z"), (c1, "g"),
             (root, "n2")]
    for second, (stack, name) in enumerate(order):
        api.event_create(db, {"stack_id": stack.id, "resource_name": name,
                              "resource_action": "CREATE", "resource_status": "COMPLETE",
                              "created_at": BASE_TIME + timedelta(seconds=second)})
    reads = StackReads(db_url)
    return {"root": root, "c1": c1, "gc": gc, "c2": c2, "reads": reads, "order": order}


def _listed(resources):
    return [(r["stack_name"], r["resource_name"]) for r in resources]


def test_resources_down_to_a_depth_in_heats_order(tree):
    reads = tree["reads"]
    assert _listed(reads.list_resources(CTX, "root")) == [
        ("root", "a"), ("root", "n1"), ("root", "n2")]
    assert _listed(reads.list_resources(CTX, "root", nested_depth=1)) == [
        ("root", "a"), ("root", "n1"), ("root", "n2"),
        ("root-n1", "x"), ("root-n1", "g"), ("root-n2", "z")]
    deep = reads.list_resources(CTX, "root", nested_depth=2)
    assert _listed(deep) == [
        ("root", "a"), ("root", "n1"), ("root", "n2"),
        ("root-n1", "x"), ("root-n1", "g"), ("root-n1-g", "y"), ("root-n2", "z")]
    by_name = {(r["stack_name"], r["resource_name"]): r for r in deep}
    assert "parent_resource" not in by_name["root", "n1"]
    assert by_name["root-n1", "x"]["parent_resource"] == "n1"
    assert by_name["root-n1-g", "y"]["parent_resource"] == "g"
    assert by_name["root-n1-g", "y"]["stack_id"] == tree["gc"].id
    # the nested link of a resource holding a stack, even at the deepest level listed
    assert by_name["root", "n1"]["nested_stack_id"] == tree["c1"].id
    assert by_name["root", "n1"]["nested_stack_name"] == "root-n1"
    shallow = {r["resource_name"]: r for r in reads.list_resources(CTX, "root-n1")}
    assert shallow["g"]["nested_stack_id"] == tree["gc"].id
    assert "nested_stack_id" not in shallow["x"]


def test_depth_is_capped_and_filters_apply_at_every_level(tree):
    from hearth.common import config
    reads = tree["reads"]
    config.CONF.set_override("max_nested_stack_depth", 1)
    try:
        capped = _listed(reads.list_resources(CTX, "root", nested_depth=9))
    finally:
        config.CONF.clear_override("max_nested_stack_depth")
    assert ("root-n1", "x") in capped and ("root-n1-g", "y") not in capped
    assert _listed(reads.list_resources(CTX, "root", nested_depth=2,
                                        filters={"name": ["a", "x", "z"]})) == [
        ("root", "a"), ("root-n1", "x"), ("root-n2", "z")]


def test_a_nested_stack_asked_directly_lists_from_itself(tree):
    reads = tree["reads"]
    assert _listed(reads.list_resources(CTX, tree["c1"].id, nested_depth=5)) == [
        ("root-n1", "x"), ("root-n1", "g"), ("root-n1-g", "y")]


def test_a_deleted_nested_stack_keeps_its_link_but_is_not_listed(db, tree):
    reads = tree["reads"]
    api.stack_delete(db, tree["c2"].id)
    listed = reads.list_resources(CTX, "root", nested_depth=2)
    assert ("root-n2", "z") not in _listed(listed)
    n2 = next(r for r in listed if r["resource_name"] == "n2")
    assert n2["nested_stack_id"] == tree["c2"].id
    assert [e["resource_name"] for e in reads.list_events(CTX, "root", nested_depth=2)] == [
        "a", "x", "n1", "y", "g", "n2"]


def test_events_of_the_tree_interleaved_by_time_with_their_stacks(tree):
    reads = tree["reads"]
    flat = reads.list_events(CTX, "root")
    assert [e["resource_name"] for e in flat] == ["a", "n1", "n2"]
    assert all("root_stack_id" not in e for e in flat)
    events = reads.list_events(CTX, "root", nested_depth=2)
    assert [(e["stack_name"], e["resource_name"]) for e in events] == [
        (stack.name, name) for stack, name in tree["order"]]
    assert {e["root_stack_id"] for e in events} == {tree["root"].id}
    one_level = reads.list_events(CTX, "root", nested_depth=1)
    assert "y" not in [e["resource_name"] for e in one_level]
    newest_first = reads.list_events(CTX, "root", nested_depth=2, sort_dir="desc")
    assert newest_first == list(reversed(events))


def test_limit_and_marker_page_across_nested_events(tree):
    reads = tree["reads"]
    every = [e["id"] for e in reads.list_events(CTX, "root", nested_depth=2)]
    pages, marker = [], None
    while True:
        page = reads.list_events(CTX, "root", nested_depth=2, limit=3, marker=marker)
        if not page:
            break
        pages.append([e["id"] for e in page])
        marker = page[-1]["id"]
    assert pages == [every[0:3], every[3:6], every[6:7]]
    # a filter and the resource's own listing work with nested_depth too
    assert [e["resource_name"] for e in reads.list_events(
        CTX, "root", nested_depth=2, filters={"resource_name": ["y", "a"]})] == ["a", "y"]


def test_stack_listings_with_nested_rows(tree):
    reads = tree["reads"]
    assert [s["stack_name"] for s in reads.list_stacks(CTX)] == ["root"]
    nested = reads.list_stacks(CTX, show_nested=True, sort_keys=["stack_name"],
                               sort_dir="asc")
    assert [(s["stack_name"], s["parent"]) for s in nested] == [
        ("root", None), ("root-n1", tree["root"].id), ("root-n1-g", tree["c1"].id),
        ("root-n2", tree["root"].id)]
    assert reads.count_stacks(CTX) == 1
    assert reads.count_stacks(CTX, show_nested=True) == 4
    page = reads.list_stacks(CTX, show_nested=True, sort_keys=["stack_name"],
                             sort_dir="asc", limit=2, marker=tree["c1"].id)
    assert [s["stack_name"] for s in page] == ["root-n1-g", "root-n2"]
    assert [s["stack_name"] for s in reads.list_stacks(
        CTX, show_nested=True, filters={"owner_id": tree["root"].id})] == [
        "root-n2", "root-n1"]
    admin = RequestContext.local("other")
    assert reads.count_stacks(admin, show_nested=True, global_tenant=True) == 4
    assert reads.count_stacks(admin, show_nested=True) == 0
    assert reads.list_stacks(RequestContext(project_id="other"), show_nested=True,
                             global_tenant=True) == []


def test_a_nested_stack_is_shown_by_id_and_by_name_with_its_parent(tree):
    reads = tree["reads"]
    for identity in (tree["gc"].id, "root-n1-g", f"root-n1-g/{tree['gc'].id}"):
        shown = reads.show_stack(CTX, identity)
        assert (shown["stack_name"], shown["id"]) == ("root-n1-g", tree["gc"].id)
        assert shown["parent"] == tree["c1"].id
    assert reads.show_stack(CTX, "root")["parent"] is None
    with pytest.raises(exception.StackNotFound):
        reads.show_stack(RequestContext(project_id="other"), tree["gc"].id)

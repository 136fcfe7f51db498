"""Links of resources and events: the engine's stack fields become Heat's links, and back."""

from __future__ import annotations

from hearth.api import links

BASE = "http://127.0.0.1:8004/v1/p"


def _resource(**extra):
    return {"resource_name": "leaf", "physical_resource_id": "x", **extra}


def test_a_nested_resource_links_its_own_stack_and_the_stack_it_holds():
    item = links.with_resource_links(BASE, "par", "root-id", _resource(
        stack_name="par-prov/odd name", stack_id="child-id", parent_resource="prov",
        nested_stack_name="grand", nested_stack_id="grand-id"))
    assert item["links"] == [
        {"href": f"{BASE}/stacks/par-prov%2Fodd%20name/child-id/resources/leaf",
         "rel": "self"},
        {"href": f"{BASE}/stacks/par-prov%2Fodd%20name/child-id", "rel": "stack"},
        {"href": f"{BASE}/stacks/grand/grand-id", "rel": "nested"}]
    assert item["parent_resource"] == "prov"
    assert not set(links.RESOURCE_LINK_FIELDS) & set(item)
    # stackctl --url reads the fields back from the links: the engine's object again
    assert links.without_links(item) == _resource(
        stack_name="par-prov/odd name", stack_id="child-id", parent_resource="prov",
        nested_stack_name="grand", nested_stack_id="grand-id")


def test_a_resource_of_the_stack_asked_links_that_stack():
    item = links.with_resource_links(BASE, "par", "root-id", _resource())
    assert [link["rel"] for link in item["links"]] == ["self", "stack"]
    assert item["links"][1]["href"] == f"{BASE}/stacks/par/root-id"


def test_an_event_of_a_nested_listing_links_its_stack_and_the_root():
    event = {"id": "e1", "resource_name": "leaf", "stack_name": "child", "stack_id": "c",
             "root_stack_name": "par", "root_stack_id": "r"}
    item = links.with_event_links(BASE, "par", "r", event)
    assert item["links"] == [
        {"href": f"{BASE}/stacks/child/c/resources/leaf/events/e1", "rel": "self"},
        {"href": f"{BASE}/stacks/child/c/resources/leaf", "rel": "resource"},
        {"href": f"{BASE}/stacks/child/c", "rel": "stack"},
        {"href": f"{BASE}/stacks/par/r", "rel": "root_stack"}]
    assert item == {"id": "e1", "resource_name": "leaf", "links": item["links"]}
    assert links.without_links(item) == event
    flat = links.with_event_links(BASE, "par", "r", {"id": "e2", "resource_name": "top"})
    assert [link["rel"] for link in flat["links"]] == ["self", "resource", "stack"]

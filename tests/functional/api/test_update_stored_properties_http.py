"""Over HTTP with python-heatclient: what an update compares, and what its events show.

Each resource is compared with the properties its last action stored, as
Heat does: readers of a replaced ``OS::Heat::RandomString`` are updated, an
update's events show the values it started from and those it ended with
(the figures Heat 27.0.1 gives for the same templates), a rollback's events
show the values it takes each resource back to, and a hidden parameter's
value shows in no event, neither the old one nor the new.
"""

from __future__ import annotations

import pytest

from tests.functional.api.conftest import create_token, wait_status

heatclient = pytest.importorskip("heatclient.client")

RANDOM = """
heat_template_version: 2018-08-31
parameters:
  len: {type: number, default: 8}
resources:
  rand: {type: OS::Heat::RandomString, properties: {length: {get_param: len}}}
  by_attr: {type: OS::Heat::TestResource, properties: {value: {get_attr: [rand, value]}}}
  by_ref: {type: OS::Heat::TestResource, properties: {value: {get_resource: rand}}}
  unrelated: {type: OS::Heat::TestResource, properties: {value: fixed}}
"""

HIDDEN = """
heat_template_version: 2018-08-31
parameters:
  secret: {type: string, hidden: true, default: first-s3cret}
resources:
  reader:
    type: OS::Heat::TestResource
    properties: {value: {list_join: [":", [user, {get_param: secret}]]}}
"""

FAILING = """
heat_template_version: 2018-08-31
parameters:
  v: {type: string, default: one}
  fail: {type: boolean, default: false}
resources:
  other: {type: OS::Heat::TestResource, properties: {value: {get_param: v}}}
  reader: {type: OS::Heat::TestResource, properties: {value: {get_attr: [other, output]}}}
  bad:
    type: OS::Heat::TestResource
    depends_on: reader
    properties: {value: {get_param: v}, fail: {get_param: fail}}
"""


@pytest.fixture(scope="module")
def heat(api_server):
    token = create_token(api_server.env, "proj-stored")
    return heatclient.Client("1", endpoint=api_server.url("proj-stored"), token=token)


def settle(heat, stack_id):
    return wait_status(lambda: heat.stacks.get(stack_id, resolve_outputs=False).to_dict(),
                       timeout=60)


def resource_events(heat, stack_id, since=0):
    """Return (resource, status, reason, properties) of the stack's resource events."""
    events = heat.events.list(stack_id, sort_dir="asc", limit=500)[since:]
    name = heat.stacks.get(stack_id).stack_name
    return [(e.resource_name, e.resource_status, e.resource_status_reason,
             heat.events.get(stack_id, e.resource_name, e.id).to_dict()["resource_properties"])
            for e in events if e.resource_name != name]


def test_readers_of_a_replaced_random_string_are_updated(heat):
    stack_id = heat.stacks.create(stack_name="random", template=RANDOM)["stack"]["id"]
    assert settle(heat, stack_id)["stack_status"] == "CREATE_COMPLETE"
    old_value = heat.resources.get(stack_id, "rand").attributes["value"]
    since = len(heat.events.list(stack_id, limit=500))

    heat.stacks.update(stack_id, template=RANDOM, parameters={"len": 10})
    assert settle(heat, stack_id)["stack_status"] == "UPDATE_COMPLETE"
    new_value = heat.resources.get(stack_id, "rand").attributes["value"]
    assert len(new_value) == 10
    events = resource_events(heat, stack_id, since)
    assert [e[:2] for e in events if e[0] == "rand"] == [
        ("rand", "UPDATE_IN_PROGRESS"), ("rand", "UPDATE_COMPLETE"),
        ("rand", "CREATE_IN_PROGRESS"), ("rand", "CREATE_COMPLETE"),
        ("rand", "DELETE_IN_PROGRESS"), ("rand", "DELETE_COMPLETE")]
    for reader in ("by_attr", "by_ref"):  # a RandomString's reference is its value (Heat)
        assert [e[1:] for e in events if e[0] == reader] == [
            ("UPDATE_IN_PROGRESS", "state changed", {"value": old_value}),
            ("UPDATE_COMPLETE", "state changed", {"value": new_value})]
    assert not [e for e in events if e[0] == "unrelated"]
    # the original's delete shows the properties it was made with
    assert events[-1] == ("rand", "DELETE_COMPLETE", "state changed", {"length": 8})
    assert heat.resources.get(stack_id, "by_attr").attributes["output"] == new_value


def test_a_hidden_parameter_change_updates_and_shows_in_no_event(heat):
    stack_id = heat.stacks.create(stack_name="hidden", template=HIDDEN)["stack"]["id"]
    assert settle(heat, stack_id)["stack_status"] == "CREATE_COMPLETE"
    since = len(heat.events.list(stack_id, limit=500))
    heat.stacks.update(stack_id, template=HIDDEN, parameters={"secret": "first-s3cret"})
    assert settle(heat, stack_id)["stack_status"] == "UPDATE_COMPLETE"
    assert resource_events(heat, stack_id, since) == []   # the same value: nothing to do

    since = len(heat.events.list(stack_id, limit=500))
    heat.stacks.update(stack_id, template=HIDDEN, parameters={"secret": "second-s3cret"})
    assert settle(heat, stack_id)["stack_status"] == "UPDATE_COMPLETE"
    assert resource_events(heat, stack_id, since) == [
        ("reader", "UPDATE_IN_PROGRESS", "state changed", {"value": "******"}),
        ("reader", "UPDATE_COMPLETE", "state changed", {"value": "******"})]
    assert heat.resources.get(stack_id, "reader").attributes["output"] == "******"
    everything = [heat.events.get(stack_id, e.resource_name, e.id).to_dict()
                  for e in heat.events.list(stack_id, limit=500)]
    assert "s3cret" not in repr(everything)


def test_a_rollback_shows_and_stores_the_properties_it_restores(heat):
    stack_id = heat.stacks.create(stack_name="rolled", template=FAILING,
                                  disable_rollback=False)["stack"]["id"]
    assert settle(heat, stack_id)["stack_status"] == "CREATE_COMPLETE"
    since = len(heat.events.list(stack_id, limit=500))
    heat.stacks.update(stack_id, template=FAILING, parameters={"v": "two", "fail": True},
                       disable_rollback=False)
    assert settle(heat, stack_id)["stack_status"] == "ROLLBACK_COMPLETE"
    events = resource_events(heat, stack_id, since)
    # the events Heat 27.0.1 records: each update shows the values it starts from, then
    # those it ends with; the rollback takes other and reader back, replaces bad
    for name in ("other", "reader"):
        assert [(e[1], e[3]) for e in events if e[0] == name] == [
            ("UPDATE_IN_PROGRESS", {"value": "one"}), ("UPDATE_COMPLETE", {"value": "two"}),
            ("UPDATE_IN_PROGRESS", {"value": "two"}), ("UPDATE_COMPLETE", {"value": "one"})]
    failed = {"value": "one", "fail": False}
    assert [e[1:] for e in events if e[0] == "bad"] == [
        ("UPDATE_IN_PROGRESS", "state changed", failed),
        ("UPDATE_FAILED", "ValueError: resources.bad: Test Resource failed bad", failed),
        ("CREATE_IN_PROGRESS", "state changed", failed),
        ("CREATE_COMPLETE", "state changed", failed),
        ("DELETE_IN_PROGRESS", "state changed", failed),
        ("DELETE_COMPLETE", "state changed", failed)]

    since = len(heat.events.list(stack_id, limit=500))
    heat.stacks.update(stack_id, template=FAILING, parameters={"v": "one", "fail": False})
    assert settle(heat, stack_id)["stack_status"] == "UPDATE_COMPLETE"
    assert resource_events(heat, stack_id, since) == []   # as restored, as stored


def test_a_create_failing_on_a_resolved_property_shows_what_it_stored(heat):
    template = """
heat_template_version: 2018-08-31
resources:
  other: {type: OS::Heat::TestResource, properties: {value: abc}}
  rand: {type: OS::Heat::RandomString, properties: {length: {get_attr: [other, output]}}}
"""
    stack_id = heat.stacks.create(stack_name="late", template=template)["stack"]["id"]
    assert settle(heat, stack_id)["stack_status"] == "CREATE_FAILED"
    # as Heat 27.0.1: stored as the create starts, then validated
    assert [(e[1], e[3]) for e in resource_events(heat, stack_id) if e[0] == "rand"] == [
        ("CREATE_IN_PROGRESS", {"length": "abc"}), ("CREATE_FAILED", {"length": "abc"})]
    assert heat.resources.get(stack_id, "rand").resource_status == "CREATE_FAILED"

"""ResourceGroup and ResourceChain on the in-process engine (SQLite; PostgreSQL re-collects).

The members' own update rules apply inside the nested stack; a failing
member fails the group with the nested reason; a rolling update keeps the
group's size and the stored skip-list survives the engine.
"""

from __future__ import annotations

from hearth.db import api_stacks
from tests.fixtures.engine import CTX, create_and_wait, events, statuses
from tests.functional.groups import templates


def nested_id(service, parent_id):
    [row] = api_stacks.stack_get_all_by_owner(service.db, parent_id)
    return row.id


def outputs(service, stack_id):
    shown = service.show_stack(CTX, stack_id)
    return {o["output_key"]: o.get("output_error", o.get("output_value"))
            for o in shown["outputs"]}


def physical_ids(service, stack_id):
    return {r["resource_name"]: r["physical_resource_id"]
            for r in service.list_resources(CTX, stack_id)}


def update(service, stack_id, template, **params):
    service.update_stack(CTX, stack_id, template, params=params)
    stack = service.wait(CTX, stack_id)
    assert stack["stack_status"] == "UPDATE_COMPLETE", stack["stack_status_reason"]
    return stack


def test_members_update_in_place_or_are_replaced_by_their_own_rules(service):
    stack = create_and_wait(service, "grp", templates.GROUP, params={"count": 2})
    assert stack["stack_status"] == "CREATE_COMPLETE", stack["stack_status_reason"]
    child = nested_id(service, stack["id"])
    before = physical_ids(service, child)
    assert sorted(before) == ["0", "2"]

    # a new value is taken in place by every member: same physical ids, UPDATE events
    update(service, stack["id"], templates.GROUP, count=2, value="n")
    assert physical_ids(service, child) == before
    assert ("0", "UPDATE_COMPLETE") in statuses(service, child)
    assert outputs(service, stack["id"])["output"] == ["n0", "n2"]

    # a change of member type replaces the members inside the same nested stack
    retyped = templates.GROUP.replace("type: OS::Heat::TestResource",
                                      "type: OS::Heat::RandomString").replace(
        "properties: {value:", "properties: {salt:")
    update(service, stack["id"], retyped, count=2)
    assert nested_id(service, stack["id"]) == child
    after = physical_ids(service, child)
    assert sorted(after) == ["0", "2"] and after["0"] != before["0"]
    assert outputs(service, stack["id"])["removed"] == ["1"]  # the skip-list is kept


def test_a_failing_member_fails_the_group_with_its_reason(service):
    failing = templates.group_of("OS::Heat::TestResource", properties="{fail: true}")
    stack = create_and_wait(service, "bad", failing)
    assert stack["stack_status"] == "CREATE_FAILED"
    reason = "ValueError: resources.g.resources.0: Test Resource failed 0"
    group_events = [e for e in events(service, stack["id"]) if e[0] == "g"]
    assert group_events[-1][1] == "CREATE_FAILED"
    assert group_events[-1][2] in (reason, reason.replace(".0: Test Resource failed 0",
                                                          ".1: Test Resource failed 1"))
    service.delete_stack(CTX, stack["id"])
    assert service.wait(CTX, stack["id"])["stack_status"] == "DELETE_COMPLETE"
    assert api_stacks.stack_get_all_by_owner(service.db, stack["id"]) == []


def test_rolling_update_keeps_members_in_service(service):
    stack = create_and_wait(service, "roll", templates.ROLLING)
    child = nested_id(service, stack["id"])
    created = statuses(service, child)
    update(service, stack["id"], templates.ROLLING, value="z")
    # each batch is one UPDATE of the nested stack: 2 members, then the last one
    nested_updates = [s for n, s in statuses(service, child)[len(created):]
                      if n not in ("0", "1", "2")]
    assert nested_updates.count("UPDATE_COMPLETE") == 2
    assert outputs(service, stack["id"])["output"] == ["z-0", "z-1", "z-2"]


def test_chain_members_run_in_order_unless_concurrent(service):
    stack = create_and_wait(service, "chn", templates.CHAIN)
    assert stack["stack_status"] == "CREATE_COMPLETE", stack["stack_status_reason"]
    order = statuses(service, nested_id(service, stack["id"]))
    assert order.index(("1", "CREATE_IN_PROGRESS")) > order.index(("0", "CREATE_COMPLETE"))
    assert outputs(service, stack["id"])["attributes"] == {"0": "shared", "1": "shared"}
    # concurrent cannot change in place: the chain is replaced by a new nested stack
    first = nested_id(service, stack["id"])
    update(service, stack["id"], templates.CHAIN, concurrent=True)
    assert nested_id(service, stack["id"]) != first

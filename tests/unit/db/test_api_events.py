"""Events: create, purge past the limit, list with filters, sort and pages, show."""

from datetime import timedelta

import pytest

from hearth.common import exception
from hearth.db import api
from tests.unit.db.helpers import BASE_TIME, make_stack


@pytest.fixture
def stack(db):
    return make_stack(db, "web")


def add_event(db, stack, name, status="COMPLETE", action="CREATE", type_="OS::Heat::None",
              seconds=0.0, **kwargs):
    return api.event_create(db, {
        "stack_id": stack.id, "resource_name": name, "resource_action": action,
        "resource_status": status, "resource_status_reason": "state changed",
        "resource_type": type_, "physical_resource_id": f"{name}-id",
        "resource_properties": {"p": name},
        "created_at": BASE_TIME + timedelta(seconds=seconds)}, **kwargs)


def test_event_create_and_get(db, stack):
    event = add_event(db, stack, "server", seconds=0.125)
    loaded = api.event_get(db, stack.id, event.uuid)
    assert loaded.resource_properties == {"p": "server"}
    assert loaded.created_at == BASE_TIME + timedelta(microseconds=125000)  # sub-second kept
    with pytest.raises(exception.EntityNotFound, match=r"The Event \(nope\) could not be found."):
        api.event_get(db, stack.id, "nope")


def test_event_created_at_defaults_to_now_with_microseconds(db, stack):
    event = api.event_create(db, {"stack_id": stack.id, "resource_name": "web"})
    assert api.event_get(db, stack.id, event.uuid).created_at == event.created_at


def test_event_list_order_and_filters(db, stack):
    add_event(db, stack, "a", "IN_PROGRESS", seconds=1)
    add_event(db, stack, "a", "COMPLETE", seconds=2)
    add_event(db, stack, "b", "FAILED", type_="OS::Heat::RandomString", seconds=3)
    listed = api.event_list(db, stack.id)
    assert [(e.resource_name, e.resource_status) for e in listed] == [
        ("a", "IN_PROGRESS"), ("a", "COMPLETE"), ("b", "FAILED")]
    assert [e.resource_status for e in api.event_list(db, stack.id, sort_dir="desc")] == [
        "FAILED", "COMPLETE", "IN_PROGRESS"]
    assert len(api.event_list(db, stack.id, {"resource_name": "a"})) == 2
    assert len(api.event_list(db, stack.id, {"resource_status": ["FAILED", "COMPLETE"]})) == 2
    assert len(api.event_list(db, stack.id, {"resource_action": "DELETE"})) == 0
    assert len(api.event_list(db, stack.id,
                              {"resource_type": "OS::Heat::RandomString"})) == 1
    with pytest.raises(exception.InvalidFilter, match=r'Invalid filter "resource_nme"'):
        api.event_list(db, stack.id, {"resource_nme": "a"})


def test_event_sort_keys(db, stack):
    add_event(db, stack, "a", type_="Z::Type", seconds=1)
    add_event(db, stack, "b", type_="A::Type", seconds=2)
    by_type = api.event_list(db, stack.id, sort_keys=["resource_type"])
    assert [e.resource_name for e in by_type] == ["b", "a"]
    with pytest.raises(exception.InvalidSortKey, match=r'Invalid sort key "time"'):
        api.event_list(db, stack.id, sort_keys=["time"])


def test_event_pages_with_equal_times(db, stack):
    created = [add_event(db, stack, f"r{i}").uuid for i in range(5)]
    seen, marker = [], None
    while page := api.event_list(db, stack.id, limit=2, marker=marker):
        seen.extend(e.uuid for e in page)
        marker = page[-1].uuid
    assert seen == created
    with pytest.raises(exception.EntityNotFound, match=r"The Event marker \(x\) could not"):
        api.event_list(db, stack.id, marker="x")


def test_event_list_over_several_stacks(db, stack):
    other = make_stack(db, "other")
    add_event(db, stack, "a", seconds=1)
    add_event(db, other, "b", seconds=2)
    assert [e.resource_name for e in api.event_list(db, [stack.id, other.id])] == ["a", "b"]


def test_event_purge_keeps_the_newest(db, stack):
    for i in range(10):
        add_event(db, stack, f"r{i}", seconds=i, max_events=6, purge_batch_size=3)
    remaining = [e.resource_name for e in api.event_list(db, stack.id)]
    # reaching 6 purged r0-r2; reaching 6 again purged r3-r5
    assert remaining == ["r6", "r7", "r8", "r9"]
    assert api.event_count_by_stack(db, stack.id) == 4


def test_event_purge_makes_room_when_batch_is_small(db, stack):
    for i in range(5):
        add_event(db, stack, f"r{i}", max_events=0)
    add_event(db, stack, "last", max_events=3, purge_batch_size=1)
    assert [e.resource_name for e in api.event_list(db, stack.id)] == ["r3", "r4", "last"]


def test_event_purge_uses_configuration(db, stack):
    from hearth.common import config
    config.register_opts()
    config.CONF.set_override("max_events_per_stack", 2)
    config.CONF.set_override("event_purge_batch_size", 1)
    try:
        for i in range(4):
            add_event(db, stack, f"r{i}")
    finally:
        config.CONF.clear_override("max_events_per_stack")
        config.CONF.clear_override("event_purge_batch_size")
    assert [e.resource_name for e in api.event_list(db, stack.id)] == ["r2", "r3"]


def test_event_purge_only_touches_its_stack(db, stack):
    other = make_stack(db, "other")
    add_event(db, other, "keep")
    for i in range(4):
        add_event(db, stack, f"r{i}", max_events=2, purge_batch_size=1)
    assert api.event_count_by_stack(db, other.id) == 1

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


def test_event_marker_that_names_no_event_is_older_than_every_event(db, stack):
    """A purged (or unknown) marker: ascending from the oldest left, as Heat; descending empty."""
    first = add_event(db, stack, "gone", max_events=0)
    for i in range(3):
        add_event(db, stack, f"r{i}", max_events=3, purge_batch_size=1)
    assert [e.resource_name for e in api.event_list(db, stack.id, marker=first.uuid)] == [
        "r0", "r1", "r2"]
    assert [e.resource_name for e in api.event_list(db, stack.id, marker="x")] == [
        "r0", "r1", "r2"]
    assert api.event_list(db, stack.id, marker=first.uuid, sort_dir="desc") == []


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


def test_event_purge_keeps_the_events_of_the_action_in_progress(db, stack):
    """Events recorded since the stack's lock was taken are never purged, however many."""
    for i in range(4):
        add_event(db, stack, f"old{i}", seconds=i, max_events=0)
    api.lock_acquire(db, stack.id, "engine-1")
    now = [api.event_create(db, {"stack_id": stack.id, "resource_name": f"new{i}"},
                            max_events=3, purge_batch_size=1).resource_name
           for i in range(6)]
    assert [e.resource_name for e in api.event_list(db, stack.id)] == now
    api.lock_release(db, stack.id, "engine-1")
    api.event_create(db, {"stack_id": stack.id, "resource_name": "next"},
                     max_events=3, purge_batch_size=1)
    assert [e.resource_name for e in api.event_list(db, stack.id)] == [
        "new4", "new5", "next"]


def test_event_purge_checks_in_batches_while_the_action_holds_the_events(db, stack):
    """Past the limit with nothing purgeable, the count is checked once per batch, not per event."""
    from sqlalchemy import event as sa_event
    api.lock_acquire(db, stack.id, "engine-1")
    counts = []

    def count_statement(_conn, _cursor, statement, *_args):
        if "count(" in statement.lower():
            counts.append(statement)
    sa_event.listen(db.engine, "before_cursor_execute", count_statement)
    try:
        for i in range(40):
            api.event_create(db, {"stack_id": stack.id, "resource_name": f"r{i}"},
                             max_events=10, purge_batch_size=10)
    finally:
        sa_event.remove(db.engine, "before_cursor_execute", count_statement)
    assert api.event_count_by_stack(db, stack.id) == 40
    # the first count, then one at 10, 20 and 30 events
    assert len(counts) == 4


def test_event_purge_only_touches_its_stack(db, stack):
    other = make_stack(db, "other")
    add_event(db, other, "keep")
    for i in range(4):
        add_event(db, stack, f"r{i}", max_events=2, purge_batch_size=1)
    assert api.event_count_by_stack(db, other.id) == 1

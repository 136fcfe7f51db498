"""A resource's state and its event written in one transaction (SQLite and PostgreSQL)."""

import pytest

from hearth.common import exception
from hearth.db import api_batch, api_events, api_resources, api_stacks, write_queue


@pytest.fixture
def stack_id(db):
    raw = api_stacks.raw_template_create(db, {"heat_template_version": "2018-08-31"}, {}, {})
    return api_stacks.stack_create(db, {"name": "s", "raw_template_id": raw.id,
                                        "project_id": "p"}).id


def event(stack_id, status):
    return {"stack_id": stack_id, "resource_name": "r", "resource_action": "CREATE",
            "resource_status": status, "resource_status_reason": "state changed",
            "resource_type": "OS::Heat::None", "resource_properties": {"a": 1}}


def state(status):
    return {"action": "CREATE", "status": status, "status_reason": "state changed",
            "physical_resource_id": None}


def test_insert_then_update_with_their_events(db, stack_id):
    values = dict(state("IN_PROGRESS"), name="r", uuid="u-1", stack_id=stack_id,
                  type="OS::Heat::None")
    resource_id, first = api_batch.resource_state_record(db, None, values,
                                                         event(stack_id, "IN_PROGRESS"))
    same_id, second = api_batch.resource_state_record(db, resource_id, state("COMPLETE"),
                                                      event(stack_id, "COMPLETE"))
    assert same_id == resource_id and first != second
    row = api_resources.resource_get(db, resource_id)
    assert (row.name, row.action, row.status, row.updated_at is not None) == (
        "r", "CREATE", "COMPLETE", True)
    events = api_events.event_list(db, stack_id, {}, None, None, None, "asc")
    assert [(e.uuid, e.resource_status, e.resource_properties) for e in events] == [
        (first, "IN_PROGRESS", {"a": 1}), (second, "COMPLETE", {"a": 1})]


def test_updating_a_missing_resource_writes_no_event(db, stack_id):
    with pytest.raises(exception.EntityNotFound) as error:
        api_batch.resource_state_record(db, 999, state("COMPLETE"), event(stack_id, "COMPLETE"))
    assert str(error.value) == "The Resource (r) could not be found."
    assert api_events.event_list(db, stack_id, {}, None, None, None, "asc") == []


def test_event_limit_purges_the_oldest(db, stack_id):
    values = dict(state("IN_PROGRESS"), name="r", uuid="u-2", stack_id=stack_id,
                  type="OS::Heat::None")
    resource_id, _ = api_batch.resource_state_record(db, None, values,
                                                     event(stack_id, "IN_PROGRESS"))
    for _ in range(4):
        api_batch.resource_state_record(db, resource_id, state("COMPLETE"),
                                        event(stack_id, "COMPLETE"), max_events=3,
                                        purge_batch_size=1)
    assert len(api_events.event_list(db, stack_id, {}, None, None, None, "asc")) == 3


def new_resource(db, stack_id, uuid="u-3"):
    values = dict(state("IN_PROGRESS"), name="r", uuid=uuid, stack_id=stack_id,
                  type="OS::Heat::None")
    return api_batch.resource_state_record(db, None, values, event(stack_id, "IN_PROGRESS"))[0]


def test_data_items_are_written_with_the_state(db, stack_id):
    resource_id = new_resource(db, stack_id)
    api_batch.resource_state_record(db, resource_id, state("COMPLETE"),
                                    event(stack_id, "COMPLETE"),
                                    data=[("a", "1", False), ("secret", "s", True)])
    api_batch.resource_state_record(db, resource_id, state("COMPLETE"),
                                    event(stack_id, "COMPLETE"), data=[("a", "2", False)])
    assert api_resources.resource_data_get_all(db, resource_id) == {"a": "2", "secret": "s"}
    assert api_resources.resource_data_list(db, resource_id)["secret"] != "s"


def test_resource_writes_store_the_physical_id_and_data(db, stack_id):
    resource_id = new_resource(db, stack_id)
    api_batch.resource_writes(db, resource_id, "phys-1", [("k", "v", False)])
    row = api_resources.resource_get(db, resource_id)
    assert (row.physical_resource_id, row.status) == ("phys-1", "IN_PROGRESS")
    assert api_resources.resource_data_get_all(db, resource_id) == {"k": "v"}


def test_resource_writes_to_a_missing_resource(db, stack_id):
    with pytest.raises(exception.EntityNotFound) as error:
        api_batch.resource_writes(db, 999, "phys-1", [("k", "v", False)])
    assert str(error.value) == "The Resource (999) could not be found."


def test_the_event_count_is_read_once_then_kept(db, stack_id):
    counts = api_events.EventCounts()
    counts.reserve(db, stack_id, 10, 1)
    # an insert this counter did not see is only noticed at the next real count
    api_events.event_create(db, event(stack_id, "COMPLETE"), max_events=0)
    counts.reserve(db, stack_id, 10, 1)
    assert counts._counts[(db.url, stack_id)][0] == 2


def test_a_count_ahead_of_the_truth_purges_nothing(db, stack_id):
    counts = api_events.EventCounts()
    counts._counts[(db.url, stack_id)] = [5, 3, 3]  # e.g. rolled-back inserts
    api_events.event_create(db, event(stack_id, "COMPLETE"), max_events=0)
    counts.reserve(db, stack_id, 3, 1)
    assert len(api_events.event_list(db, stack_id, {}, None, None, None, "asc")) == 1
    assert counts._counts[(db.url, stack_id)][0] == 2


def test_a_stack_first_seen_at_its_limit_is_purged_first(db, stack_id):
    for _ in range(4):
        api_events.event_create(db, event(stack_id, "COMPLETE"), max_events=0)
    api_events.EventCounts().reserve(db, stack_id, 4, 2)
    assert api_events.event_count_by_stack(db, stack_id) == 2


def test_a_failed_write_is_rolled_back(db, stack_id):
    resource_id = new_resource(db, stack_id, "u-5")
    with pytest.raises(exception.EntityNotFound):
        api_batch.resource_writes(db, 999, "x")
    with pytest.raises(ZeroDivisionError), write_queue.write_transaction(db) as cursor:
        api_batch._SET_PHYSICAL_ID.run(cursor, db.engine.dialect, {
            "row_id": resource_id, "physical_resource_id": "lost",
            "updated_at": None})
        raise ZeroDivisionError
    assert api_resources.resource_get(db, resource_id).physical_resource_id is None


def test_the_limit_holds_over_many_state_records(db, stack_id):
    resource_id = new_resource(db, stack_id, "u-4")
    for _ in range(25):
        api_batch.resource_state_record(db, resource_id, state("COMPLETE"),
                                        event(stack_id, "COMPLETE"), max_events=10,
                                        purge_batch_size=4)
        assert api_events.event_count_by_stack(db, stack_id) <= 10

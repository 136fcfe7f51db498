"""A resource's state and its event written in one transaction (SQLite and PostgreSQL)."""

import pytest

from hearth.common import exception
from hearth.db import api_batch, api_events, api_resources, api_stacks


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
    assert str(error.value) == "The Resource (999) could not be found."
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

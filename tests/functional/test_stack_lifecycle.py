"""End-to-end stack life cycle through the real engine on SQLite in a temp HEARTH_HOME."""

import json

import pytest

from tests.fixtures.engine import CTX, slow_template, statuses

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  secret: {type: string, hidden: true, default: s3cr3t-value}
resources:
  a: {type: OS::Heat::TestResource, properties: {value: {get_param: secret}}}
  b: {type: OS::Heat::None, depends_on: a, properties: {x: {get_resource: a}}}
outputs:
  out: {value: {get_resource: b}, description: b ref}
"""


def test_create_then_delete_in_dependency_order(service):
    created = service.create_stack(CTX, "s1", TEMPLATE, disable_rollback=False)
    stack = service.wait(CTX, created["id"])
    assert stack["stack_status"] == "CREATE_COMPLETE"
    assert stack["stack_status_reason"] == "Stack CREATE completed successfully"
    assert statuses(service, created["id"]) == [
        ("s1", "CREATE_IN_PROGRESS"), ("a", "CREATE_IN_PROGRESS"), ("a", "CREATE_COMPLETE"),
        ("b", "CREATE_IN_PROGRESS"), ("b", "CREATE_COMPLETE"), ("s1", "CREATE_COMPLETE")]
    shown = service.show_stack(CTX, "s1")
    assert shown["parameters"]["secret"] == "******"
    assert shown["outputs"][0]["output_key"] == "out"
    service.delete_stack(CTX, "s1")
    stack = service.wait(CTX, created["id"])
    assert stack["stack_status"] == "DELETE_COMPLETE"
    deletes = [name for name, status in statuses(service, created["id"])
               if status == "DELETE_IN_PROGRESS"]
    assert deletes == ["s1", "b", "a"]


def test_hidden_parameters_never_in_events(service):
    created = service.create_stack(CTX, "s2", TEMPLATE)
    service.wait(CTX, created["id"])
    for event in service.list_events(CTX, created["id"]):
        detail = service.show_event(CTX, created["id"], event["resource_name"], event["id"])
        assert "s3cr3t-value" not in json.dumps(detail)
    detail_a = [service.show_event(CTX, created["id"], "a", e["id"])
                for e in service.list_events(CTX, created["id"], resource_name="a")]
    # Heat 27.0.1 shows the value in both events; Hearth masks it
    assert [detail["resource_properties"] for detail in detail_a] == [{"value": "******"}] * 2


def test_second_action_while_running_is_refused(service):
    from hearth.common import exception
    created = service.create_stack(CTX, "s3", slow_template(1))
    with pytest.raises(exception.ActionInProgress) as error:
        service.stack_action(CTX, created["id"], "check")
    assert str(error.value) == "Stack s3 already has an action (CHECK) in progress."
    service.wait(CTX, created["id"])

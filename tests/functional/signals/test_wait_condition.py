"""Wait conditions, signals and hooks end to end through the real engine (SQLite).

Expected texts are Heat's (heat/engine/resources/wait_condition.py,
openstack/heat/wait_condition*.py and Resource.signal()), checked with the
Heat 27.0.1 oracle (heat-oracle.md): hook events and their states, the
hook and "signal is not supported" refusals, SIGNAL_COMPLETE "Signal: ..."
events, the same-id replacement ("Signal 2 received") and the timeout text.
One deliberate difference: Heat handles a wait condition handle's signal
after answering 200, so a malformed body is dropped silently; Hearth
handles it before answering and refuses it (400, "Metadata format invalid").  The same tests
run on PostgreSQL from ``test_wait_condition_postgres.py``.
"""

from __future__ import annotations

import json

import pytest

from hearth.common import exception
from tests.fixtures.engine import CTX, create_and_wait, events
from tests.functional.test_stack_actions import resource_state, wait_for

WAIT = """
heat_template_version: 2018-08-31
parameters:
  count: {type: number, default: 2}
  timeout: {type: number, default: 30}
resources:
  handle: {type: OS::Heat::WaitConditionHandle}
  wait:
    type: OS::Heat::WaitCondition
    properties:
      handle: {get_resource: handle}
      timeout: {get_param: timeout}
      count: {get_param: count}
  user:
    type: OS::Heat::TestResource
    properties: {value: {get_attr: [handle, curl_cli]}}
outputs:
  data: {value: {get_attr: [wait, data]}}
  token: {value: {get_attr: [handle, token]}}
  endpoint: {value: {get_attr: [handle, endpoint]}}
  curl: {value: {get_attr: [handle, curl_cli]}}
  signal: {value: {get_attr: [handle, signal]}}
"""


def _waiting(service, name: str, **params) -> str:
    """Create the wait stack; return its id once the condition waits."""
    stack_id = service.create_stack(CTX, name, WAIT, params=params)["id"]
    wait_for(lambda: resource_state(service, stack_id, "wait") == "CREATE_IN_PROGRESS")
    return stack_id


def _outputs(service, stack_id: str) -> dict:
    return {o["output_key"]: o["output_value"]
            for o in service.show_stack(CTX, stack_id)["outputs"]}


def test_signals_complete_the_condition_with_heat_defaults(service):
    stack_id = _waiting(service, "wc")
    service.resource_signal(CTX, stack_id, "handle", {"data": "first", "id": "a"})
    # the same id again replaces the first signal: still one of two
    service.resource_signal(CTX, stack_id, "handle", {"data": "again", "id": "a"})
    assert resource_state(service, stack_id, "wait") == "CREATE_IN_PROGRESS"
    service.resource_signal(CTX, stack_id, "handle", None)
    stack = service.wait(CTX, stack_id)
    assert stack["stack_status"] == "CREATE_COMPLETE"

    assert service.resource_metadata(CTX, stack_id, "handle") == {
        # N counts the signals held: the replacing one was number 2 too
        "a": {"data": "again", "reason": "Signal 2 received", "status": "SUCCESS"},
        "2": {"data": None, "reason": "Signal 2 received", "status": "SUCCESS"}}
    outputs = _outputs(service, stack_id)
    assert json.loads(outputs["data"]) == {"a": "again", "2": None}
    token, endpoint = outputs["token"], outputs["endpoint"]
    assert len(token) > 30
    assert endpoint.endswith(f"/v1/{CTX.project_id}/stacks/wc/{stack_id}/resources/handle/signal")
    assert outputs["curl"] == (
        f"curl -i -X POST -H 'X-Auth-Token: {token}' -H 'Content-Type: application/json' "
        f"-H 'Accept: application/json' {endpoint}")
    assert outputs["signal"] == "null"  # TOKEN_SIGNAL: as Heat

    recorded = events(service, stack_id)
    assert ("handle", "SIGNAL_COMPLETE", "Signal: status:SUCCESS reason:Signal 1 received"
            ) in recorded
    assert ("handle", "SIGNAL_COMPLETE", "Signal: status:SUCCESS reason:Signal 2 received"
            ) in recorded
    # the token reaches another resource's properties, never an event
    listed = json.dumps(service.list_events(CTX, stack_id))
    assert token not in listed
    user_events = [e for e in service.list_events(CTX, stack_id, resource_name="user")]
    assert user_events and all(e.get("resource_properties", {}).get("value") in (None, "******")
                               for e in user_events)
    # the handle's data holds the token redacted, never shown as it is
    shown = service.show_resource(CTX, stack_id, "handle")
    assert shown["attributes"]["token"] == token  # through its own attribute only

    # deleting the condition clears the handle's signals (as Heat)
    service.delete_stack(CTX, stack_id)
    assert service.wait(CTX, stack_id)["stack_status"] == "DELETE_COMPLETE"


def test_failure_signal_fails_with_the_reasons(service):
    """Every failure reason the condition finds at its check, joined (Heat's text).

    The condition waits behind a slow resource, so the three signals are all
    there at its first check (a check between two signals would see one).
    """
    gated = WAIT.replace("      count: {get_param: count}\n",
                         "      count: {get_param: count}\n    depends_on: gate\n").replace(
        "  user:\n", "  gate:\n    type: OS::Heat::TestResource\n"
                      "    properties: {action_wait_secs: {create: 3}}\n  user:\n")
    stack_id = service.create_stack(CTX, "wf", gated, params={"count": 3})["id"]
    wait_for(lambda: resource_state(service, stack_id, "handle") == "CREATE_COMPLETE")
    assert resource_state(service, stack_id, "wait") != "CREATE_IN_PROGRESS"
    service.resource_signal(CTX, stack_id, "handle", {"status": "SUCCESS"})
    service.resource_signal(CTX, stack_id, "handle", {"status": "FAILURE", "reason": "disk"})
    service.resource_signal(CTX, stack_id, "handle", {"status": "FAILURE", "reason": "net"})
    stack = service.wait(CTX, stack_id)
    assert stack["stack_status"] == "CREATE_FAILED"
    wait_row = service.show_resource(CTX, stack_id, "wait")
    assert wait_row["resource_status_reason"] == (
        "WaitConditionFailure: resources.wait: disk;net")


def test_timeout_says_how_many_arrived(service):
    stack_id = _waiting(service, "wt", timeout=1)
    service.resource_signal(CTX, stack_id, "handle", {"reason": "booted"})
    stack = service.wait(CTX, stack_id)
    assert stack["stack_status"] == "CREATE_FAILED"
    assert service.show_resource(CTX, stack_id, "wait")["resource_status_reason"] == (
        "WaitConditionTimeout: resources.wait: 1 of 2 received - booted")


def test_refused_signals(service):
    stack_id = _waiting(service, "wr", count=1)
    with pytest.raises(exception.ResourceFailure) as error:
        service.resource_signal(CTX, stack_id, "handle", {"status": "MAYBE"})
    assert str(error.value) == "ValueError: resources.handle: Metadata format invalid"
    with pytest.raises(exception.ResourceFailure):
        service.resource_signal(CTX, stack_id, "handle", {"extra": 1})
    with pytest.raises(exception.ResourceFailure):
        service.resource_signal(CTX, stack_id, "handle", ["not", "a", "map"])
    # a type without handle_signal: Heat's words
    with pytest.raises(exception.ResourceActionNotSupported) as error:
        service.resource_signal(CTX, stack_id, "wait", {})
    assert str(error.value) == "signal is not supported for resource."
    with pytest.raises(exception.InvalidBreakPointHook) as error:
        service.resource_signal(CTX, stack_id, "handle", {"unset_hook": "pre-lunch"})
    assert str(error.value) == ('Invalid hook type "pre-lunch" for WaitConditionHandle '
                                f'"handle" Stack "wr" [{stack_id}]')  # Heat's words
    with pytest.raises(exception.ResourceNotFound):
        service.resource_signal(CTX, stack_id, "nothere", {})
    service.resource_signal(CTX, stack_id, "handle", {})
    assert service.wait(CTX, stack_id)["stack_status"] == "CREATE_COMPLETE"

    service.stack_action(CTX, stack_id, "suspend")
    assert service.wait(CTX, stack_id)["stack_status"] == "SUSPEND_COMPLETE"
    with pytest.raises(exception.NotSupported) as error:
        service.resource_signal(CTX, stack_id, "handle", {})
    assert str(error.value) == "Signal resource during SUSPEND is not supported."
    assert ("handle", "SUSPEND_COMPLETE", "Cannot signal resource during SUSPEND"
            ) in events(service, stack_id)


def test_count_update_and_update_handle_replacement(service):
    stack_id = _waiting(service, "wu", count=1)
    service.resource_signal(CTX, stack_id, "handle", {})
    assert service.wait(CTX, stack_id)["stack_status"] == "CREATE_COMPLETE"
    # count is updated in place: one signal held, one more needed
    service.update_stack(CTX, stack_id, WAIT, params={"count": 2})
    wait_for(lambda: resource_state(service, stack_id, "wait") == "UPDATE_IN_PROGRESS")
    service.resource_signal(CTX, stack_id, "handle", {})
    assert service.wait(CTX, stack_id)["stack_status"] == "UPDATE_COMPLETE"

    # an UpdateWaitConditionHandle is replaced by every update: signals must come again
    template = WAIT.replace("OS::Heat::WaitConditionHandle", "OS::Heat::UpdateWaitConditionHandle")
    stack_id = service.create_stack(CTX, "wu2", template, params={"count": 1})["id"]
    wait_for(lambda: resource_state(service, stack_id, "wait") == "CREATE_IN_PROGRESS")
    service.resource_signal(CTX, stack_id, "handle", {})
    assert service.wait(CTX, stack_id)["stack_status"] == "CREATE_COMPLETE"
    first = service.show_resource(CTX, stack_id, "handle")["physical_resource_id"]
    service.update_stack(CTX, stack_id, template, params={"count": 1})
    wait_for(lambda: resource_state(service, stack_id, "wait") == "CREATE_IN_PROGRESS")
    assert service.show_resource(CTX, stack_id, "handle")["physical_resource_id"] != first
    assert service.resource_metadata(CTX, stack_id, "handle") == {}
    service.resource_signal(CTX, stack_id, "handle", {})
    assert service.wait(CTX, stack_id)["stack_status"] == "UPDATE_COMPLETE"


TRANSPORTS = """
heat_template_version: 2018-08-31
resources:
  heat_handle: {type: OS::Heat::WaitConditionHandle, properties: {signal_transport: HEAT_SIGNAL}}
  none_handle: {type: OS::Heat::WaitConditionHandle, properties: {signal_transport: NO_SIGNAL}}
  wait:
    type: OS::Heat::WaitCondition
    properties: {handle: {get_resource: none_handle}, timeout: 10}
outputs:
  heat_signal: {value: {get_attr: [heat_handle, signal]}}
  heat_token: {value: {get_attr: [heat_handle, token]}}
  none_signal: {value: {get_attr: [none_handle, signal]}}
"""


def test_heat_and_no_signal_transports(service):
    stack = create_and_wait(service, "wn", TRANSPORTS)
    assert stack["stack_status"] == "CREATE_COMPLETE"  # NO_SIGNAL signals itself
    outputs = _outputs(service, stack["id"])
    assert json.loads(outputs["heat_signal"])["alarm_url"].endswith(
        f"/stacks/wn/{stack['id']}/resources/heat_handle/signal")
    assert outputs["heat_token"] is None
    assert outputs["none_signal"] == "{}"


def test_transports_needing_other_services_are_refused(service):
    template = TRANSPORTS.replace("HEAT_SIGNAL", "ZAQAR_SIGNAL")
    with pytest.raises(exception.StackValidationFailed) as error:
        service.create_stack(CTX, "wz", template)
    assert "signal_transport ZAQAR_SIGNAL is not supported by Hearth" in str(error.value)
    assert "heat_handle" in str(error.value)


HOOKED = """
heat_template_version: 2018-08-31
resources:
  a: {type: OS::Heat::None}
  b: {type: OS::Heat::None, depends_on: a}
"""


def test_hooks_pause_create_update_and_delete_until_cleared(service):
    environment = {"resource_registry": {"resources": {
        "b": {"hooks": ["pre-create", "pre-update", "pre-delete"]}}}}
    stack_id = service.create_stack(CTX, "hk", HOOKED, environment=environment)["id"]
    paused = ("b", "INIT_COMPLETE", "CREATE paused until Hook pre-create is cleared")
    wait_for(lambda: paused in events(service, stack_id))
    with pytest.raises(exception.InvalidBreakPointHook) as error:
        service.resource_signal(CTX, stack_id, "a", {"unset_hook": "pre-create"})
    assert str(error.value) == (
        f'The "pre-create" hook is not defined on NoneResource "a" Stack "hk" [{stack_id}]')
    service.resource_signal(CTX, stack_id, "b", {"unset_hook": "pre-create"})
    assert service.wait(CTX, stack_id)["stack_status"] == "CREATE_COMPLETE"
    assert ("b", "INIT_COMPLETE", "Hook pre-create is cleared") in events(service, stack_id)

    # every resource an update reaches pauses at pre-update, changed or not (as Heat)
    service.update_stack(CTX, stack_id, HOOKED, environment=environment)
    paused = ("b", "CREATE_COMPLETE", "UPDATE paused until Hook pre-update is cleared")
    wait_for(lambda: paused in events(service, stack_id))
    assert service.show_stack(CTX, stack_id)["stack_status"] == "UPDATE_IN_PROGRESS"
    service.resource_signal(CTX, stack_id, "b", {"unset_hook": "pre-update"})
    assert service.wait(CTX, stack_id)["stack_status"] == "UPDATE_COMPLETE"

    service.delete_stack(CTX, stack_id)
    paused = ("b", "CREATE_COMPLETE", "DELETE paused until Hook pre-delete is cleared")
    wait_for(lambda: paused in events(service, stack_id))
    service.resource_signal(CTX, stack_id, "b", {"unset_hook": "pre-delete"})
    assert service.wait(CTX, stack_id)["stack_status"] == "DELETE_COMPLETE"


def test_nested_hooks_are_checked_like_top_level_ones(service):
    environment = {"resource_registry": {"resources": {"group": {"0": {"hooks": "pre-lunch"}}}}}
    with pytest.raises(exception.InvalidEnvironment) as error:
        service.create_stack(CTX, "hn", HOOKED, environment=environment)
    assert '"pre-lunch" is not a valid hook type' in str(error.value)
    assert error.value.path == ["resource_registry", "resources", "group", "0", "hooks"]

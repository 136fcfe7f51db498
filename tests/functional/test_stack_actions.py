"""Every stack action and failure path end to end through the real engine.

Suspend/resume, check, cancel, timeouts, rollback, deletion policies,
deleting failed stacks, outputs with their own errors and breakpoint hooks.
The same tests run on PostgreSQL from ``test_stack_lifecycle_postgres.py``.
"""

import time

import pytest

from hearth.common import exception
from tests.fixtures.engine import CTX, create_and_wait, events, statuses

CHAIN = """
heat_template_version: 2018-08-31
resources:
  a: {type: OS::Heat::TestResource, properties: {value: A}}
  b: {type: OS::Heat::TestResource, depends_on: a, properties: {value: B}}
  c: {type: OS::Heat::TestResource, depends_on: b, properties: {value: C}}
"""

FAILING = """
heat_template_version: 2018-08-31
resources:
  good: {type: OS::Heat::TestResource, properties: {value: ok}}
  bad: {type: OS::Heat::TestResource, depends_on: good, properties: {fail: true}}
  after: {type: OS::Heat::None, depends_on: bad}
"""


def slow(seconds: float) -> str:
    """Return a template of one TestResource waiting ``seconds`` on create (not delete)."""
    return ("heat_template_version: 2018-08-31\nresources:\n"
            "  slow: {type: OS::Heat::TestResource, properties: "
            f"{{action_wait_secs: {{create: {seconds}}}}}}}\n")


def wait_for(predicate, timeout: float = 10.0) -> None:
    """Poll ``predicate`` (letting green threads run) until it is true."""
    from hearth.engine.scheduler import green_sleep
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        green_sleep(0.01)


def resource_state(service, stack_id: str, name: str) -> str:
    """Return ``ACTION_STATUS`` of one resource (None before it is stored)."""
    try:
        return service.show_resource(CTX, stack_id, name)["resource_status"]
    except exception.NotFound:
        return None


def test_suspend_in_reverse_order_then_resume_in_order(service):
    stack = create_and_wait(service, "sr", CHAIN)
    service.stack_action(CTX, stack["id"], "suspend")
    suspended = service.wait(CTX, stack["id"])
    assert (suspended["stack_status"], suspended["stack_status_reason"]) == (
        "SUSPEND_COMPLETE", "Stack SUSPEND completed successfully")
    order = [name for name, status in statuses(service, stack["id"])
             if status == "SUSPEND_IN_PROGRESS"]
    assert order == ["sr", "c", "b", "a"]
    service.stack_action(CTX, stack["id"], "resume")
    resumed = service.wait(CTX, stack["id"])
    assert resumed["stack_status"] == "RESUME_COMPLETE"
    order = [name for name, status in statuses(service, stack["id"])
             if status == "RESUME_COMPLETE"]
    assert order == ["a", "b", "c", "sr"]


def test_check_complete(service):
    stack = create_and_wait(service, "chk", CHAIN)
    service.stack_action(CTX, stack["id"], "check")
    checked = service.wait(CTX, stack["id"])
    assert (checked["stack_status"], checked["stack_status_reason"]) == (
        "CHECK_COMPLETE", "Stack CHECK completed successfully")
    assert {resource_state(service, stack["id"], name) for name in "abc"} == {"CHECK_COMPLETE"}


def test_check_failed_aggregates_every_failure(service):
    template = FAILING.replace("depends_on: good, ", "")
    stack = create_and_wait(service, "chkf", template, disable_rollback=True)
    assert stack["stack_status"] == "CREATE_FAILED"
    service.stack_action(CTX, stack["id"], "check")
    checked = service.wait(CTX, stack["id"])
    assert checked["stack_status"] == "CHECK_FAILED"
    # Heat 27.0.1's answer for this stack
    assert checked["stack_status_reason"] == (
        "Resource CHECK failed: bad: Resource CHECK failed: Exception: resources.bad: "
        "Resource not created. 'CHECK' not fully supported (see resources)")
    assert resource_state(service, stack["id"], "good") == "CHECK_COMPLETE"
    assert resource_state(service, stack["id"], "bad") == "CHECK_FAILED"


def test_create_failure_rolls_back_and_leaves_no_resources(service):
    stack = create_and_wait(service, "rb", FAILING, disable_rollback=False)
    assert (stack["stack_status"], stack["stack_status_reason"]) == (
        "ROLLBACK_COMPLETE", "Stack ROLLBACK completed successfully")
    assert ("bad", "CREATE_FAILED",
            "ValueError: resources.bad: Test Resource failed bad") in events(service, stack["id"])
    assert ("after", "CREATE_IN_PROGRESS") not in statuses(service, stack["id"])
    assert service.list_resources(CTX, stack["id"]) == []  # as Heat 27.0.1 lists it
    service.delete_stack(CTX, stack["id"])
    assert service.wait(CTX, stack["id"])["stack_status"] == "DELETE_COMPLETE"


def test_disable_rollback_keeps_the_failed_stack(service):
    stack = create_and_wait(service, "norb", FAILING, disable_rollback=True)
    assert (stack["stack_status"], stack["stack_status_reason"]) == (
        "CREATE_FAILED",
        "Resource CREATE failed: ValueError: resources.bad: Test Resource failed bad")
    assert resource_state(service, stack["id"], "good") == "CREATE_COMPLETE"
    assert resource_state(service, stack["id"], "bad") == "CREATE_FAILED"
    # never started, and listed as Heat 27.0.1 lists it
    listed = {r["resource_name"]: r for r in service.list_resources(CTX, stack["id"])}
    assert sorted(listed) == ["after", "bad", "good"]
    assert (listed["after"]["resource_status"], listed["after"]["resource_status_reason"],
            listed["after"]["physical_resource_id"]) == ("INIT_COMPLETE", "", "")
    shown = service.show_resource(CTX, stack["id"], "after")
    assert (shown["resource_status"], shown["attributes"]) == ("INIT_COMPLETE", {})


def test_deleting_a_failed_stack(service):
    stack = create_and_wait(service, "delf", FAILING, disable_rollback=True)
    service.delete_stack(CTX, stack["id"])
    deleted = service.wait(CTX, stack["id"])
    assert deleted["stack_status"] == "DELETE_COMPLETE"
    deletes = [name for name, status in statuses(service, stack["id"])
               if status == "DELETE_COMPLETE"]
    assert deletes == ["bad", "good", "delf"]
    assert service.list_stacks(CTX) == []


def test_stack_timeout_fails_the_create(service, engine_options):
    engine_options(stack_action_timeout=1)
    stack = create_and_wait(service, "slow", slow(30), disable_rollback=True)
    assert (stack["stack_status"], stack["stack_status_reason"]) == (
        "CREATE_FAILED", "Create timed out")
    assert events(service, stack["id"])[-2] == ("slow", "CREATE_FAILED", "Create timed out")


def test_cancel_without_rollback_lets_the_running_resource_finish(service):
    template = slow(1) + "  after: {type: OS::Heat::TestResource, depends_on: slow}\n"
    created = service.create_stack(CTX, "cancelok", template, disable_rollback=False)
    wait_for(lambda: resource_state(service, created["id"], "slow") == "CREATE_IN_PROGRESS")
    service.stack_action(CTX, created["id"], "cancel_without_rollback")
    stack = service.wait(CTX, created["id"])
    # as Heat's stopped traversal: the stack fails, what runs ends, nothing after it starts
    assert (stack["stack_status"], stack["stack_status_reason"]) == (
        "CREATE_FAILED", "Stack CREATE cancelled")
    assert resource_state(service, created["id"], "slow") == "CREATE_COMPLETE"
    assert resource_state(service, created["id"], "after") == "INIT_COMPLETE"


def test_cancel_without_rollback_interrupts_a_stuck_resource_then_delete(service,
                                                                        engine_options):
    engine_options(error_wait_time=0.5)  # the grace a running resource gets to finish
    created = service.create_stack(CTX, "cancel", slow(30), disable_rollback=False)
    wait_for(lambda: resource_state(service, created["id"], "slow") == "CREATE_IN_PROGRESS")
    service.stack_action(CTX, created["id"], "cancel_without_rollback")
    stack = service.wait(CTX, created["id"])
    assert (stack["stack_status"], stack["stack_status_reason"]) == (
        "CREATE_FAILED", "Stack CREATE cancelled")
    assert events(service, created["id"])[-2] == ("slow", "CREATE_FAILED", "Create cancelled")
    service.delete_stack(CTX, created["id"])
    assert service.wait(CTX, created["id"])["stack_status"] == "DELETE_COMPLETE"


def test_cancel_update_refused_during_create(service):
    created = service.create_stack(CTX, "nocancel", slow(2))
    wait_for(lambda: resource_state(service, created["id"], "slow") == "CREATE_IN_PROGRESS")
    with pytest.raises(exception.NotSupported) as error:
        service.stack_action(CTX, created["id"], "cancel_update")
    assert str(error.value) == (
        "Cancelling update when stack is CREATE_IN_PROGRESS is not supported.")
    service.stack_action(CTX, created["id"], "cancel_without_rollback")
    service.wait(CTX, created["id"])


def test_delete_during_create_cancels_it(service):
    created = service.create_stack(CTX, "halfway", CHAIN.replace(
        "value: C", "value: C, action_wait_secs: {create: 30}"))
    wait_for(lambda: resource_state(service, created["id"], "c") == "CREATE_IN_PROGRESS")
    service.delete_stack(CTX, created["id"])
    stack = service.wait(CTX, created["id"])
    assert stack["stack_status"] == "DELETE_COMPLETE"


def test_retain_keeps_the_physical_resource(service, engine_options):
    engine_options(stack_action_timeout=5)
    template = """
heat_template_version: 2018-08-31
resources:
  kept:
    type: OS::Heat::TestResource
    deletion_policy: Retain
    properties: {action_wait_secs: {delete: 3600}}
"""
    stack = create_and_wait(service, "retain", template)
    service.delete_stack(CTX, stack["id"])
    deleted = service.wait(CTX, stack["id"])
    # handle_delete would have waited an hour and timed out: Retain never calls it
    assert deleted["stack_status"] == "DELETE_COMPLETE"
    assert ("kept", "DELETE_COMPLETE", "state changed") in events(service, stack["id"])


def test_outputs_each_with_their_own_error(service):
    template = """
heat_template_version: 2018-08-31
resources:
  a: {type: OS::Heat::TestResource, properties: {value: hello}}
outputs:
  good: {value: {get_attr: [a, output]}, description: fine}
  bad: {value: {list_join: [",", {get_attr: [a, output]}]}}
"""
    stack = create_and_wait(service, "outs", template)
    outputs = {o["output_key"]: o for o in service.show_stack(CTX, stack["id"])["outputs"]}
    assert outputs["good"] == {"output_key": "good", "output_value": "hello",
                               "description": "fine"}
    assert outputs["bad"]["output_value"] is None
    assert outputs["bad"]["output_error"].endswith('"list_join" must operate on a list')
    assert service.show_output(CTX, stack["id"], "good")["output_value"] == "hello"


def test_an_output_naming_an_attribute_the_type_lacks_is_refused_at_create(service):
    """Heat refuses it at validation, in outputs too (not an output_error later)."""
    template = """
heat_template_version: 2018-08-31
resources:
  a: {type: OS::Heat::TestResource, properties: {value: hello}}
outputs:
  bad: {value: {get_attr: [a, nonexistent]}}
"""
    with pytest.raises(exception.InvalidTemplateAttribute) as error:
        service.create_stack(CTX, "outs-refused", template)
    assert str(error.value).endswith(
        "outputs.bad.value: The Referenced Attribute (a nonexistent) is incorrect.")
    assert service.list_stacks(CTX, filters={"name": "outs-refused"}) == []


def test_pre_create_hook_pauses_until_cleared(service):
    environment = {"resource_registry": {"resources": {"b": {"hooks": "pre-create"}}}}
    created = service.create_stack(CTX, "hooked", CHAIN, environment=environment)
    reason = "CREATE paused until Hook pre-create is cleared"
    wait_for(lambda: ("b", "INIT_COMPLETE", reason) in events(service, created["id"]))
    assert service.show_stack(CTX, created["id"])["stack_status"] == "CREATE_IN_PROGRESS"
    with pytest.raises(exception.InvalidBreakPointHook) as error:
        service.resource_signal(CTX, created["id"], "b", {"unset_hook": "pre-delete"})
    # Heat 27.0.1's words (the class, the resource, its stack)
    assert str(error.value) == (f'The "pre-delete" hook is not defined on TestResource "b" '
                                f'Stack "hooked" [{created["id"]}]')
    service.resource_signal(CTX, created["id"], "b", {"unset_hook": "pre-create"})
    stack = service.wait(CTX, created["id"])
    assert stack["stack_status"] == "CREATE_COMPLETE"
    assert ("b", "INIT_COMPLETE", "Hook pre-create is cleared") in events(service, created["id"])


def test_check_of_resources_that_cannot_be_checked(service):
    """Heat 27.0.1's answers: no IN_PROGRESS, "not supported" and a note on the stack."""
    template = ("heat_template_version: 2018-08-31\nresources:\n"
                "  a: {type: OS::Heat::None}\n  b: {type: OS::Heat::None, depends_on: a}\n")
    stack = create_and_wait(service, "nochk", template)
    service.stack_action(CTX, stack["id"], "check")
    checked = service.wait(CTX, stack["id"])
    assert (checked["stack_status"], checked["stack_status_reason"]) == (
        "CHECK_COMPLETE",
        "Stack CHECK completed successfully. 'CHECK' not fully supported (see resources)")
    check_events = [event for event in events(service, stack["id"]) if "CHECK" in event[1]]
    assert check_events == [
        ("nochk", "CHECK_IN_PROGRESS", "Stack CHECK started"),
        ("a", "CHECK_COMPLETE", "CHECK not supported for OS::Heat::None"),
        ("b", "CHECK_COMPLETE", "CHECK not supported for OS::Heat::None"),
        ("nochk", "CHECK_COMPLETE",
         "Stack CHECK completed successfully. 'CHECK' not fully supported (see resources)")]


def test_check_fails_a_checkable_resource_that_was_never_created(service):
    """As Heat's Resource.check: INIT with a handle_check is a failure, and says so."""
    # bad fails while good still waits, so after (needing good) never starts
    template = """
heat_template_version: 2018-08-31
resources:
  good: {type: OS::Heat::TestResource, properties: {value: ok, wait_secs: 0.3}}
  bad: {type: OS::Heat::TestResource, properties: {fail: true}}
  after: {type: OS::Heat::TestResource, depends_on: good}
"""
    stack = create_and_wait(service, "neverchk", template, disable_rollback=True)
    service.stack_action(CTX, stack["id"], "check")
    checked = service.wait(CTX, stack["id"])
    assert checked["stack_status"] == "CHECK_FAILED"
    assert ("after", "CHECK_FAILED", "Can not check after, resource not created yet.") in \
        events(service, stack["id"])
    assert "after: Resource CHECK failed: Exception: resources.after: Resource after not " \
           "created yet." in checked["stack_status_reason"]

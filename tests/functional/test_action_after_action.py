"""A client that saw an action end may start the next one at once (no ActionInProgress).

The finished action's final state is stored a moment before its thread
releases the stack's lock; a request arriving in between waits for the
release instead of being refused (hearth-api clients poll the state, then
PUT or DELETE right away).
"""

from __future__ import annotations

from hearth.engine.scheduler import green_sleep
from tests.fixtures.engine import CTX

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  p: {type: string, default: a}
resources:
  r: {type: OS::Heat::TestResource, properties: {value: {get_param: p}}}
"""

ROUNDS = 25


def settled(service, stack_id):
    """Poll the stored state (as an HTTP client does) until the action ended."""
    while True:
        status = service.show_stack(CTX, stack_id, resolve_outputs=False)["stack_status"]
        if not status.endswith("_IN_PROGRESS"):
            return status
        green_sleep(0.005)


def test_update_then_delete_right_after_the_stored_end(service):
    for index in range(ROUNDS):
        stack_id = service.create_stack(CTX, f"next{index}", TEMPLATE)["id"]
        assert settled(service, stack_id) == "CREATE_COMPLETE"
        service.update_stack(CTX, stack_id, TEMPLATE, params={"p": "b"})
        assert settled(service, stack_id) == "UPDATE_COMPLETE"
        service.delete_stack(CTX, stack_id)
        assert service.wait(CTX, stack_id)["stack_status"] == "DELETE_COMPLETE"

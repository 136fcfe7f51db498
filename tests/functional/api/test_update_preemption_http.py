"""An update preempts the create or update in progress, as Heat's convergence engine.

Through unmodified python-heatclient over HTTP, restating Heat's
test_simultaneous_update: a second update of a stack whose nested stacks
are still updating (a resource waiting 6000 s two levels down) stops them
and completes; an update during a create takes the create over.
"""

from __future__ import annotations

import json
import time

import pytest

heatclient = pytest.importorskip("heatclient.client")

pytestmark = pytest.mark.slow


def template(resources: dict, outputs: dict | None = None) -> str:
    return json.dumps({"heat_template_version": "queens",
                       "parameters": {"input": {"type": "string"}},
                       "resources": resources, **({"outputs": outputs} if outputs else {})})


ROOT = template({"nested_stack": {"type": "preempt.yaml",
                                  "properties": {"input": {"get_param": "input"}}}},
                {"delay_stack": {"value": {"get_attr": ["nested_stack", "delay_stack"]}}})
NESTED = template({"delay_stack": {"type": "delay.yaml",
                                   "properties": {"input": {"get_param": "input"}}}},
                  {"delay_stack": {"value": {"get_resource": "delay_stack"}}})
DELAY = template({"delay_resource": {"type": "OS::Heat::TestResource", "properties": {
    "action_wait_secs": {"update": 6000}, "value": {"get_param": "input"}}}})


@pytest.fixture(scope="module")
def heat(noauth_server):
    return heatclient.Client("1", endpoint=noauth_server.url("admin"), token="any")


def wait_for(check, timeout=30.0):
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.2)


def status(heat, identity):
    return heat.stacks.get(identity).stack_status


def test_update_preempts_the_nested_updates_in_progress(heat):
    files = {"preempt.yaml": NESTED, "delay.yaml": DELAY}
    created = heat.stacks.create(stack_name="preempted", template=ROOT, files=files,
                                 parameters={"input": "foo"}, tags=None,
                                 environment_files=None, disable_rollback=True)
    identity = f"preempted/{created['stack']['id']}"
    wait_for(lambda: status(heat, identity) == "CREATE_COMPLETE")
    delay_arn = heat.stacks.output_show(identity, "delay_stack")["output"]["output_value"]

    heat.stacks.update(identity, template=ROOT, files=files, parameters={"input": "bar"},
                       tags=None, disable_rollback=True)
    wait_for(lambda: heat.resources.get(delay_arn, "delay_resource").resource_status
             == "UPDATE_IN_PROGRESS")
    heat.stacks.update(identity, template=ROOT, files={"preempt.yaml": template({})},
                       parameters={"input": "baz"}, tags=None, disable_rollback=True)
    seen = set()

    def done():
        seen.add(status(heat, identity))
        return "UPDATE_COMPLETE" in seen

    wait_for(done)
    assert seen <= {"UPDATE_IN_PROGRESS", "UPDATE_COMPLETE"}  # never FAILED in between
    assert heat.stacks.get(identity).parameters["input"] == "baz"


def test_update_during_create_takes_it_over(heat):
    slow = {"heat_template_version": "pike", "resources": {"slow": {
        "type": "OS::Heat::TestResource",
        "properties": {"value": "one", "action_wait_secs": {"create": 600}}}}}
    created = heat.stacks.create(stack_name="retriggered", template=slow, tags=None,
                                 disable_rollback=True)
    identity = f"retriggered/{created['stack']['id']}"
    wait_for(lambda: heat.resources.get(identity, "slow").resource_status
             == "CREATE_IN_PROGRESS")
    quick = json.loads(json.dumps(slow))
    quick["resources"]["slow"]["properties"] = {"value": "two"}
    heat.stacks.update(identity, template=quick, tags=None, disable_rollback=True)
    wait_for(lambda: status(heat, identity) == "UPDATE_COMPLETE")
    assert heat.resources.get(identity, "slow").attributes["output"] == "two"

"""AutoScalingGroup and ScalingPolicy over real HTTP with python-heatclient.

Heat's functional scaling templates (heat_integrationtests
test_heat_autoscaling): member attributes through a provider template,
signals through heatclient and through a plain POST to the policy's
``signal_url``, the group's metadata as Heat's tests read it, a resize and a
rolling update of the members by stack update, a cooldown that ignores a
signal, and a signal refused while the stack is busy.
"""

from __future__ import annotations

import pytest
import requests
import yaml

from tests.functional.api.conftest import create_token, wait_status
from tests.functional.test_autoscaling_group import TEMPLATE

heatclient = pytest.importorskip("heatclient.client")

pytestmark = pytest.mark.slow

NESTED = """
heat_template_version: 2014-10-16
resources:
  random_group:
    type: OS::Heat::AutoScalingGroup
    properties:
      desired_capacity: 3
      max_size: 5
      min_size: 2
      resource:
        type: randomstr.yaml
outputs:
  all_values: {value: {get_attr: [random_group, outputs_list, random_str]}}
  value_0: {value: {get_attr: [random_group, resource.0.random_str]}}
  value_1: {value: {get_attr: [random_group, resource.1.random_str]}}
  value_2: {value: {get_attr: [random_group, resource.2.random_str]}}
"""
RANDOMSTR = """
heat_template_version: 2013-05-23
resources:
  random_str:
    type: OS::Heat::RandomString
outputs:
  random_str:
    value: {get_attr: [random_str, value]}
"""
BUSY = """
  slow:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: size}
      action_wait_secs: {update: 3}
"""


@pytest.fixture(scope="module")
def token(api_server):
    return create_token(api_server.env, "proj-scaling")


@pytest.fixture(scope="module")
def heat(api_server, token):
    """A heatclient of a project of its own."""
    return heatclient.Client("1", endpoint=api_server.url("proj-scaling"), token=token)


def create(heat, name, template, **kwargs):
    stack_id = heat.stacks.create(stack_name=name, template=yaml.safe_load(template),
                                  **kwargs)["stack"]["id"]
    stack = wait_status(lambda: heat.stacks.get(stack_id).to_dict())
    assert stack["stack_status"] == "CREATE_COMPLETE", stack["stack_status_reason"]
    return f"{name}/{stack_id}"


def update(heat, identity, **parameters):
    heat.stacks.update(identity, existing=True, parameters=parameters)
    stack = wait_status(lambda: heat.stacks.get(identity).to_dict(), ("UPDATE_COMPLETE",
                                                                       "UPDATE_FAILED"))
    assert stack["stack_status"] == "UPDATE_COMPLETE", stack["stack_status_reason"]


def outputs(heat, identity):
    return {item["output_key"]: item["output_value"]
            for item in heat.stacks.get(identity).to_dict()["outputs"]}


def signals(heat, identity, resource):
    """Return the reasons of a resource's SIGNAL events, oldest first."""
    return [event.resource_status_reason
            for event in heat.events.list(identity, resource, sort_dir="asc")
            if event.resource_status.startswith("SIGNAL")]


def test_member_attributes_through_a_provider_template(heat):
    identity = create(heat, "nested", NESTED, files={"randomstr.yaml": RANDOMSTR})
    values = outputs(heat, identity)
    assert len(values["all_values"]) == 3
    assert [values[f"value_{index}"] for index in range(3)] == values["all_values"]
    assert {r.resource_name: r.resource_type for r in heat.resources.list(identity)} == {
        "random_group": "OS::Heat::AutoScalingGroup"}


def test_signals_by_heatclient_and_by_signal_url(heat, api_server, token):
    identity = create(heat, "scaled", TEMPLATE)
    created = outputs(heat, identity)
    assert created["signal_url"].startswith(api_server.url("proj-scaling") + "/stacks/scaled/")

    heat.resources.signal(identity, "scale_up_policy")
    assert outputs(heat, identity)["asg_size"] == 4
    assert heat.resources.metadata(identity, "random_group")["scaling_in_progress"] is False

    answer = requests.post(created["signal_url"], json={"state": "alarm"},
                           headers={"X-Auth-Token": token}, timeout=30)
    assert answer.status_code == 200, answer.text
    assert outputs(heat, identity)["asg_size"] == 5
    heat.resources.signal(identity, "scale_up_policy")  # at max_size: ignored, no event
    assert signals(heat, identity, "scale_up_policy") == ["No signal details provided",
                                                          "Unknown"]
    group = heat.resources.get(identity, "random_group").to_dict()
    assert group["attributes"]["current_size"] == 5
    nested = heat.resources.list(group["physical_resource_id"])
    assert sorted(r.resource_name for r in nested) == sorted(outputs(heat, identity)["refs_map"])


def test_update_resizes_then_rolls_the_members_definition(heat):
    identity = create(heat, "roll", TEMPLATE)
    before = outputs(heat, identity)["refs_map"]
    update(heat, identity, size=4)
    resized = outputs(heat, identity)
    assert resized["asg_size"] == 4 and list(resized["refs_map"])[:3] == list(before)

    update(heat, identity, length=8)
    rolled = outputs(heat, identity)
    assert list(rolled["refs_map"]) == list(resized["refs_map"])  # same names, new values
    assert [len(value) for value in rolled["all_values"]] == [8] * 4
    nested = heat.events.list(identity, nested_depth=1)
    replaced = sorted(event.resource_name for event in nested
                      if event.resource_status_reason.endswith("requires replacement."))
    assert replaced == sorted(rolled["refs_map"])
    # batches of two keeping one in service: two nested updates between the two resizes
    nested_updates = [event for event in nested
                      if event.resource_name.startswith("roll-random_group-")
                      and event.resource_status == "UPDATE_COMPLETE"]
    assert len(nested_updates) == 1 + 2 + 1


def test_a_signal_inside_the_cooldown_is_ignored(heat):
    identity = create(heat, "cool", TEMPLATE, parameters={"cooldown": 600})
    heat.resources.signal(identity, "scale_up_policy")
    assert outputs(heat, identity)["asg_size"] == 3
    assert signals(heat, identity, "scale_up_policy") == []
    stored = heat.resources.metadata(identity, "random_group")
    assert stored["scaling_in_progress"] is False
    assert list(stored["cooldown_end"].values()) == ["ExactCapacity : 3"]


def test_a_signal_while_the_stack_updates_is_refused(heat):
    template = TEMPLATE.replace("\noutputs:", BUSY + "outputs:", 1)
    identity = create(heat, "busy", template)
    heat.stacks.update(identity, existing=True, parameters={"size": 4})
    wait_status(lambda: heat.stacks.get(identity).to_dict(), ("IN_PROGRESS",))
    with pytest.raises(Exception) as refused:  # noqa: PT011 - heatclient's HTTP error classes
        heat.resources.signal(identity, "scale_up_policy")
    assert "Stack busy already has an action (UPDATE) in progress." in str(refused.value)
    wait_status(lambda: heat.stacks.get(identity).to_dict())
    assert outputs(heat, identity)["asg_size"] == 4

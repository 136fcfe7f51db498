"""OS::Heat::AutoScalingGroup and OS::Heat::ScalingPolicy through ``stackctl`` processes.

Heat's functional scaling template (heat_integrationtests test_heat_autoscaling)
with parameters for what the tests change: signals resize within the
bounds, oldest members go first, the events and metadata are Heat's, bad
sizes and a misplaced min_adjustment_step are refused with Heat's texts.
Updates, rolling updates and the cooldown are tested over HTTP
(tests/functional/api/test_autoscaling_http.py), on the same template.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.functional import stackctl_process

pytestmark = pytest.mark.slow

TEMPLATE = """
heat_template_version: 2014-10-16
parameters:
  size: {type: number, default: 3}
  length: {type: number, default: 32}
  cooldown: {type: number, default: 0}
resources:
  random_group:
    type: OS::Heat::AutoScalingGroup
    properties:
      cooldown: {get_param: cooldown}
      desired_capacity: {get_param: size}
      max_size: 5
      min_size: 2
      rolling_updates: {max_batch_size: 2, min_in_service: 1}
      resource:
        type: OS::Heat::RandomString
        properties: {length: {get_param: length}}
  scale_up_policy:
    type: OS::Heat::ScalingPolicy
    properties:
      adjustment_type: change_in_capacity
      auto_scaling_group_id: {get_resource: random_group}
      scaling_adjustment: 1
  scale_down_policy:
    type: OS::Heat::ScalingPolicy
    properties:
      adjustment_type: change_in_capacity
      auto_scaling_group_id: {get_resource: random_group}
      scaling_adjustment: -1
  double_policy:
    type: OS::Heat::ScalingPolicy
    properties:
      adjustment_type: percent_change_in_capacity
      auto_scaling_group_id: {get_resource: random_group}
      scaling_adjustment: 10
      min_adjustment_step: 2
outputs:
  all_values: {value: {get_attr: [random_group, outputs_list, value]}}
  by_name: {value: {get_attr: [random_group, outputs, value]}}
  value_0: {value: {get_attr: [random_group, resource.0.value]}}
  asg_size: {value: {get_attr: [random_group, current_size]}}
  refs: {value: {get_attr: [random_group, refs]}}
  refs_map: {value: {get_attr: [random_group, refs_map]}}
  signal_url: {value: {get_attr: [scale_up_policy, signal_url]}}
  alarm_url: {value: {get_attr: [scale_up_policy, alarm_url]}}
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """A HEARTH_HOME with the template written in it."""
    path = tmp_path_factory.mktemp("scaling")
    (path / "asg.yaml").write_text(TEMPLATE)
    return path


def ctl(home, *args):
    """Run stackctl; return its stdout, failing the test with its stderr if it failed."""
    result = stackctl_process.run(home, *args)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def outputs(home, stack):
    return {item["output_key"]: item["output_value"]
            for item in json.loads(ctl(home, "output-show", "--all", "--format", "json",
                                       stack)).values()}


def signal_events(home, stack):
    """Return ``{resource: [reason, ...]}`` of the stack's SIGNAL events."""
    found: dict[str, list[str]] = {}
    for event in json.loads(ctl(home, "event-list", "--format", "json", stack)):
        if event["resource_status"].startswith("SIGNAL"):
            found.setdefault(event["resource_name"], []).append(event["resource_status_reason"])
    return found


def test_create_then_signals_resize_within_the_bounds_oldest_first(home):
    ctl(home, "stack-create", "-f", str(home / "asg.yaml"), "grow")
    created = outputs(home, "grow")
    assert created["asg_size"] == 3 and len(created["all_values"]) == 3
    assert created["value_0"] == created["all_values"][0]
    assert all(re.fullmatch(r"[a-z2-7]{12}", name) for name in created["refs_map"])
    assert created["refs"] == list(created["refs_map"].values())
    assert created["by_name"] == dict(zip(created["refs_map"], created["all_values"],
                                          strict=True))
    assert created["signal_url"].endswith("/resources/scale_up_policy/signal")
    assert "/stacks/grow/" in created["signal_url"]
    assert created["alarm_url"] == created["signal_url"]

    for _ in range(3):
        ctl(home, "resource-signal", "grow", "scale_up_policy")
    grown = outputs(home, "grow")
    assert grown["asg_size"] == 5 and list(grown["refs_map"])[:3] == list(created["refs_map"])

    ctl(home, "resource-signal", "-D", json.dumps(
        {"previous": "ok", "current": "alarm", "reason": "cpu high"}),
        "grow", "scale_down_policy")
    # 10% of 4 is 0.4: one member, raised to min_adjustment_step 2, kept at max_size 5
    ctl(home, "resource-signal", "grow", "double_policy")
    final = outputs(home, "grow")
    assert final["asg_size"] == 5
    names = list(final["refs_map"])
    assert names[:4] == list(grown["refs_map"])[1:]  # the oldest member went first
    assert names[4] not in grown["refs_map"]
    # as Heat: the third scale-up (already at max_size) changed nothing and records no event
    assert signal_events(home, "grow") == {
        "scale_up_policy": ["No signal details provided"] * 2,
        "scale_down_policy": ["alarm state changed from ok to alarm (cpu high)"],
        "double_policy": ["No signal details provided"]}
    stored = json.loads(ctl(home, "resource-metadata", "grow", "random_group"))
    assert stored["scaling_in_progress"] is False
    assert list(stored["cooldown_end"].values()) == ["percent_change_in_capacity : 10"]


@pytest.mark.parametrize(("change", "message"), [
    ("min_size: 2", "MinSize can not be greater than MaxSize"),
    ("desired_capacity: {get_param: size}", "DesiredCapacity must be between MinSize and "
                                            "MaxSize"),
    ("scaling_adjustment: 1", "min_adjustment_step property should only be specified for "
                              "adjustment_type with value percent_change_in_capacity."),
])
def test_bad_sizes_and_steps_are_refused_with_heats_text(home, change, message):
    bad = {"min_size: 2": "min_size: 6",
           "desired_capacity: {get_param: size}": "desired_capacity: 9",
           "scaling_adjustment: 1": "scaling_adjustment: 1\n      min_adjustment_step: 1"}[change]
    path = home / "bad.yaml"
    path.write_text(TEMPLATE.replace(change, bad, 1))
    result = stackctl_process.run(home, "template-validate", "-f", str(path))
    assert result.returncode == 1
    assert message in result.stderr + result.stdout

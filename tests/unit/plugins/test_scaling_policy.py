"""OS::Heat::ScalingPolicy on a fake stack: validation, the group it adjusts, its URLs."""

from __future__ import annotations

import pytest

from hearth.common import exception
from hearth.plugins.scaling_policy import ScalingPolicy
from tests.unit.engine.resource_helpers import FakeStack, make

POLICY = {"auto_scaling_group_id": "group-ref", "adjustment_type": "change_in_capacity",
          "scaling_adjustment": 2}


class Group:
    """A stand-in scaling group that records its adjustments."""

    name = "asg"

    def __init__(self):
        self.adjustments = []

    def FnGetRefId(self):  # noqa: N802 - Heat's name
        return "group-ref"

    def adjust(self, *args):
        self.adjustments.append(args)


def policy(properties=POLICY, **stack_fields):
    stack = FakeStack(**stack_fields)
    stack.resources = {"asg": Group()}
    return make(ScalingPolicy, dict(properties), name="up", stack=stack)


def test_signal_adjusts_the_group_with_the_policys_values():
    res = policy({**POLICY, "adjustment_type": "percent_change_in_capacity",
                  "min_adjustment_step": 1, "cooldown": 30})
    res.validate()
    res.handle_signal({"current": "ALARM", "previous": "ok", "reason": "cpu"})
    assert res.stack.resources["asg"].adjustments == [(2, "percent_change_in_capacity", 1, 30)]


def test_a_group_that_is_not_there_is_named():
    res = policy({**POLICY, "auto_scaling_group_id": "missing"})
    with pytest.raises(exception.NotFound) as caught:
        res.handle_signal()
    assert str(caught.value) == 'Alarm up could not find scaling group named "missing"'


def test_min_adjustment_step_needs_a_percentage():
    with pytest.raises(exception.ResourcePropertyValueDependency) as caught:
        policy({**POLICY, "min_adjustment_step": 1}).validate()
    assert str(caught.value) == (
        "up.properties: min_adjustment_step property should only be specified for "
        "adjustment_type with value percent_change_in_capacity.")


def test_unknown_adjustment_type_is_refused():
    with pytest.raises(exception.StackValidationFailed, match='"sideways" is not an allowed'):
        policy({**POLICY, "adjustment_type": "sideways"}).validate()


def test_urls_are_the_native_signal_url_once_created():
    res = policy(name="st", id="sid")
    assert res.FnGetAtt("signal_url") is None
    res.state_set("CREATE", "IN_PROGRESS")
    res.handle_create()
    res.stack.context = type("Ctx", (), {"project_id": "proj"})()
    signal = res.FnGetAtt("signal_url")
    assert signal.endswith("/v1/proj/stacks/st/sid/resources/up/signal")
    assert res.FnGetAtt("alarm_url") == signal


def test_update_takes_the_new_adjustment_in_place():
    from tests.unit.engine.resource_helpers import Definition
    res = policy()
    new = Definition("up", "OS::Heat::ScalingPolicy", {**POLICY, "scaling_adjustment": -1})
    tmpl_diff, prop_diff = res.update_diffs(new)
    res.handle_update(new, tmpl_diff, prop_diff)
    assert prop_diff == {"scaling_adjustment": -1}
    res.handle_signal()
    assert res.stack.resources["asg"].adjustments == [(-1, "change_in_capacity", None, None)]

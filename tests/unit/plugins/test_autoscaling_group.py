"""OS::Heat::AutoScalingGroup without a nested stack: size checks, attributes, templates."""

from __future__ import annotations

import pytest

from hearth.common import exception
from hearth.plugins.autoscaling_group import AutoScalingGroup
from tests.unit.engine.resource_helpers import make

GROUP = {"min_size": 1, "max_size": 3, "resource": {"type": "OS::Heat::None"}}


def group(**changes):
    return make(AutoScalingGroup, {**GROUP, **changes}, name="asg")


@pytest.mark.parametrize(("changes", "message"), [
    ({"min_size": 4}, "MinSize can not be greater than MaxSize"),
    ({"desired_capacity": 5}, "DesiredCapacity must be between MinSize and MaxSize"),
    ({"desired_capacity": 0}, "DesiredCapacity must be between MinSize and MaxSize"),
])
def test_sizes_are_checked_with_heats_texts(changes, message):
    with pytest.raises(exception.StackValidationFailed) as caught:
        group(**changes).validate()
    assert str(caught.value) == f"asg.properties: {message}"


def test_a_negative_size_is_refused_by_the_schema():
    with pytest.raises(exception.StackValidationFailed, match="min_size"):
        group(min_size=-1).validate()


def test_initial_template_has_desired_else_minimum_members_named_randomly():
    template = group(desired_capacity=2).child_template()
    assert template["heat_template_version"] == "2015-04-30"
    assert list(template["resources"].values()) == [{"type": "OS::Heat::None"}] * 2
    assert set(template["outputs"]["refs_map"]["value"]) == set(template["resources"])
    assert len(group().child_template()["resources"]) == 1


def test_outputs_need_a_path_and_members_are_found_by_index():
    empty = group()
    assert empty.FnGetAtt("outputs_list", "value") == []
    assert empty.FnGetAtt("outputs", "value") == {}
    with pytest.raises(exception.InvalidTemplateAttribute,
                       match=r"^The Referenced Attribute \(asg outputs\) is incorrect.$"):
        empty.FnGetAtt("outputs")
    with pytest.raises(exception.NotFound) as caught:
        empty.FnGetAtt("resource.0.value")
    assert str(caught.value) == "Member '0' not found in group resource 'asg'."
    assert empty.FnGetAtt("current_size") == 0
    assert empty.FnGetAtt("refs") == [] and empty.FnGetAtt("refs_map") == {}

"""Tests of OS::Heat::Value."""

import pytest

from hearth.common import exception
from hearth.plugins.value import Value
from tests.unit.engine.resource_helpers import Definition, make


def test_value_attribute_and_in_place_update():
    res = make(Value, {"value": {"a": [1]}})
    res.validate()
    res.state_set("CREATE", "IN_PROGRESS")
    res.handle_create()
    assert res.FnGetAtt("value", "a", 0) == 1 and res.resource_id.startswith("demo-web-")
    new = Definition("web", "OS::Heat::Value", {"value": 2, "type": "number"})
    tmpl_diff, prop_diff = res.update_diffs(new)
    res.handle_update(new, tmpl_diff, prop_diff)
    assert prop_diff == {"value": 2, "type": "number"} and res.FnGetAtt("value") == 2


@pytest.mark.parametrize("props, message", [
    ({}, "web.properties: Property value not assigned"),
    ({"value": "yes", "type": "boolean"}, 'web.properties.value: "yes" is not a valid boolean'),
    ({"value": "x", "type": "number"}, "web.properties.value: Value 'x' is not a number"),
    ({"value": [1], "type": "json"}, 'web.properties.value: "[1]" is not a map'),
    ({"value": 1, "type": "float"},
     'web.properties.type: "float" is not an allowed value ["string", "number", '
     '"comma_delimited_list", "json", "boolean"]'),
])
def test_errors(props, message):
    with pytest.raises(exception.StackValidationFailed) as info:
        make(Value, props).validate()
    assert str(info.value) == f"Property error: {message}"


def test_typed_value_returned_as_written():
    res = make(Value, {"value": "5", "type": "number"})
    res.validate()
    assert res.FnGetAtt("value") == "5"  # as Heat: the attribute is not converted

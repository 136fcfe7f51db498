"""Tests of the shared value constraints (messages as Heat's)."""

import pytest

from hearth.common import exception
from hearth.engine import constraints as c


class _Even:
    message = "Value must be even."

    def validate(self, value, context=None):
        return int(value) % 2 == 0


REGISTRY = {"even": _Even}


@pytest.mark.parametrize("constraint, value, message", [
    (c.Range(min=1), 0, "0 is out of range (min: 1, max: None)"),
    (c.Range(max=5), "6", "6 is out of range (min: None, max: 5)"),
    (c.Range(1, 5), 7.5, "7.5 is out of range (min: 1, max: 5)"),
    (c.Length(min=2), "a", "length (1) is out of range (min: 2, max: None)"),
    (c.Length(max=1), [1, 2], "length (2) is out of range (min: None, max: 1)"),
    (c.Modulo(step=2, offset=1), 4, "4 is not a multiple of 2 with an offset of 1"),
    (c.AllowedValues(["a", "b"]), "c", '"c" is not an allowed value ["a", "b"]'),
    (c.AllowedValues(["a"]), ["a", "x"], '["a", "x"] is not an allowed value ["a"]'),
    (c.AllowedPattern("[a-z]+"), "abc1", '"abc1" does not match pattern "[a-z]+"'),
    (c.CustomConstraint("even", registry=REGISTRY), 3, '"3" does not validate even'),
    (c.CustomConstraint("odd", registry=REGISTRY), 3,
     '"3" does not validate odd (constraint not found)'),
])
def test_invalid_value_message(constraint, value, message):
    with pytest.raises(ValueError) as info:
        constraint.validate(value)
    assert str(info.value) == message


@pytest.mark.parametrize("constraint, value", [
    (c.Range(1, 5), 5), (c.Range(1, 5), "1"), (c.Length(0, 1), {}),
    (c.Modulo(2, 1), "7"), (c.Modulo(-2, -1), -3), (c.AllowedValues([1, 2]), 2),
    (c.AllowedPattern("[a-z]+"), "abc"), (c.CustomConstraint("even", registry=REGISTRY), 4),
])
def test_valid_value(constraint, value):
    constraint.validate(value)


def test_description_replaces_message():
    with pytest.raises(ValueError, match="^Pick a small one$"):
        c.Range(max=1, description="Pick a small one").validate(2)


def test_allowed_values_converts_through_schema():
    schema = c.Schema(c.NUMBER, constraints=[c.AllowedValues(["1", 2])])
    schema.validate_constraints("1.0")
    with pytest.raises(ValueError):
        schema.validate_constraints(3)


@pytest.mark.parametrize("constraint, expected", [
    (c.Length(min=1, max=5, description="d"), {"length": {"min": 1, "max": 5}, "description": "d"}),
    (c.Range(max=3), {"range": {"max": 3}}),
    (c.Modulo(step=3, offset=1), {"modulo": {"step": 3, "offset": 1}}),
    (c.AllowedValues(("x", "y")), {"allowed_values": ["x", "y"]}),
    (c.AllowedPattern("^a$"), {"allowed_pattern": "^a$"}),
    (c.CustomConstraint("ip_addr"), {"custom_constraint": "ip_addr"}),
])
def test_to_dict(constraint, expected):
    assert constraint.to_dict() == expected


@pytest.mark.parametrize("factory, message", [
    (lambda: c.Range(), "A range constraint must have a min value and/or a max value specified."),
    (lambda: c.Range(min="a"), "min/max must be numeric"),
    (lambda: c.Length(), "A length constraint must have a min value and/or a max value specified."),
    (lambda: c.Length(min=1.5), "min/max length must be integral"),
    (lambda: c.Modulo(step=2), "A modulo constraint must have a step value and an offset "
                               "value specified."),
    (lambda: c.Modulo(step=0, offset=0), "step cannot be 0."),
    (lambda: c.Modulo(step=2.5, offset=1), "step/offset must be integer"),
    (lambda: c.Modulo(step=2, offset=3), "offset must be smaller (by absolute value) than step."),
    (lambda: c.Modulo(step=2, offset=-1),
     "step and offset must be both positive or both negative."),
    (lambda: c.AllowedValues("abc"), "AllowedValues must be a list"),
    (lambda: c.AllowedPattern(3), "AllowedPattern must be a string"),
    (lambda: c.AllowedPattern("("), 'Invalid allowed_pattern "(": missing ), unterminated '
                                    "subpattern at position 0"),
    (lambda: c.Schema("Float"), "Invalid type (Float)"),
])
def test_invalid_declarations(factory, message):
    with pytest.raises(exception.InvalidSchemaError) as info:
        factory()
    assert str(info.value) == message


def test_constraint_type_mismatch():
    schema = c.Schema(c.STRING, constraints=[c.Range(min=1)])
    with pytest.raises(exception.InvalidSchemaError, match="^Range constraint invalid for String$"):
        schema.check_constraint_types()


def test_default_checked_but_custom_skipped():
    schema = c.Schema(c.INTEGER, default=3, constraints=[
        c.CustomConstraint("even", registry=REGISTRY)])
    schema.validate_default()
    bad = c.Schema(c.INTEGER, default=9, constraints=[c.Range(max=5)])
    with pytest.raises(exception.InvalidSchemaError,
                       match=r"^Invalid default 9 \(9 is out of range \(min: None, max: 5\)\)$"):
        bad.validate_default()


@pytest.mark.parametrize("data_type, value, expected", [
    (c.INTEGER, "3", 3), (c.NUMBER, "2.5", 2.5), (c.STRING, 4, "4"),
    (c.BOOLEAN, "yes", True), (c.BOOLEAN, "Off", False), (c.MAP, {"a": 1}, {"a": 1}),
])
def test_to_schema_type(data_type, value, expected):
    assert c.Schema(data_type).to_schema_type(value) == expected


@pytest.mark.parametrize("data_type, value", [(c.INTEGER, "2.5"), (c.NUMBER, "x"),
                                              (c.BOOLEAN, "maybe")])
def test_to_schema_type_invalid(data_type, value):
    with pytest.raises(ValueError) as info:
        c.Schema(data_type).to_schema_type(value)
    assert str(info.value) == f'Value "{value}" is invalid for data type "{data_type}".'


def test_installed_custom_constraints_are_found():
    assert c.CustomConstraint("ip_addr").exists
    unknown = c.CustomConstraint("ip_adr")
    assert not unknown.exists
    assert unknown.not_found_message() == (
        '"ip_adr" is not a known custom constraint. Did you mean "ip_addr"?')


def test_custom_constraint_description_from_plugin():
    assert str(c.CustomConstraint("even", registry=REGISTRY)) == "Value must be even."
    assert str(c.CustomConstraint("nope", registry={})) == "Value must be of type nope"

"""Tests of hearth.engine.properties: schema, conversion, validation, locations."""

import pytest

from hearth.common import exception
from hearth.common.located import LocatedDict, LocatedList
from hearth.engine import constraints, properties
from hearth.engine.properties import Properties, Schema
from tests.unit.engine.resource_helpers import GetAttr

PATH = ["web", "properties"]


def props(schema, data, **kwargs):
    return Properties(schema, data, parent_name=PATH, **kwargs)


def error_of(schema, data):
    with pytest.raises(exception.StackValidationFailed) as info:
        props(schema, data).validate()
    return info.value


# --- schema declarations ----------------------------------------------------

@pytest.mark.parametrize("kwargs, message", [
    ({"data_type": "Bogus"}, "Invalid type (Bogus)"),
    ({"data_type": properties.MAP, "schema": Schema(properties.STRING)},
     "Single schema valid only for List, not Map"),
    ({"data_type": properties.STRING, "schema": {"a": Schema(properties.STRING)}},
     "Schema valid only for List or Map, not String"),
    ({"data_type": properties.STRING, "update_allowed": True, "immutable": True},
     "Options update_allowed and immutable cannot both be True"),
    ({"data_type": properties.STRING, "constraints": [constraints.Range(1, 2)]},
     "Range constraint invalid for String"),
    ({"data_type": properties.INTEGER, "default": 20, "constraints": [constraints.Range(1, 2)]},
     "Invalid default 20 (20 is out of range (min: 1, max: 2))"),
])
def test_bad_declarations_are_schema_errors(kwargs, message):
    with pytest.raises(exception.InvalidSchemaError) as info:
        Schema(**kwargs)
    assert str(info.value) == message


def test_schemata_checks_values():
    with pytest.raises(exception.InvalidSchemaError) as info:
        properties.schemata({"a": {"Type": "String"}})
    assert str(info.value) == "Property a: expected a properties.Schema, got dict"
    schema = Schema(properties.STRING)
    assert properties.schemata({"a": schema}) == {"a": schema}


def test_to_dict_is_heats_shape():
    schema = Schema(properties.LIST, "Ports.", default=[1],
                    schema=Schema(properties.INTEGER, constraints=[constraints.Range(1, 9)]),
                    constraints=[constraints.Length(min=1, description="Not empty.")],
                    update_allowed=True)
    assert schema.to_dict() == {
        "type": "list", "description": "Ports.", "default": [1],
        "schema": {"*": {"type": "integer", "required": False,
                         "constraints": [{"range": {"min": 1, "max": 9}}],
                         "update_allowed": False, "immutable": False}},
        "required": False,
        "constraints": [{"length": {"min": 1}, "description": "Not empty."}],
        "update_allowed": True, "immutable": False}
    assert Schema(properties.MAP, schema={"a": Schema(properties.ANY)}).to_dict()["schema"] == {
        "a": {"type": "any", "required": False, "update_allowed": False, "immutable": False}}


class Param:
    def __init__(self, type, default=None, description=None, constraints=()):  # noqa: A002
        self.type, self.default, self.description = type, default, description
        self.constraints = list(constraints)


@pytest.mark.parametrize("param_type, data_type", [
    ("string", "String"), ("number", "Number"), ("comma_delimited_list", "List"),
    ("json", "Map"), ("boolean", "Boolean")])
def test_from_parameter(param_type, data_type):
    schema = Schema.from_parameter(Param(param_type, description="d"))
    assert (schema.type, schema.required, schema.update_allowed, schema.description) == (
        data_type, True, True, "d")
    assert not Schema.from_parameter(Param(param_type, default="x")).required


def test_from_parameter_list_accepts_a_comma_string():
    schema = {"l": Schema.from_parameter(Param("comma_delimited_list"))}
    assert props(schema, {"l": "a, b"})["l"] == ["a", "b"]
    assert props(schema, {"l": ""})["l"] == []


# --- reading values ----------------------------------------------------------

@pytest.mark.parametrize("data_type, raw, value", [
    (properties.INTEGER, "42", 42), (properties.INTEGER, 42, 42), (properties.INTEGER, 4.0, 4),
    (properties.NUMBER, "4.5", 4.5), (properties.NUMBER, "4", 4),
    (properties.STRING, 7, "7"), (properties.STRING, True, "True"),
    (properties.BOOLEAN, "TRUE", True), (properties.BOOLEAN, "false", False),
    (properties.BOOLEAN, True, True), (properties.MAP, {"a": 1}, {"a": 1}),
    (properties.LIST, [1], [1]), (properties.ANY, {"x": [1]}, {"x": [1]}),
])
def test_conversion(data_type, raw, value):
    assert props({"p": Schema(data_type)}, {"p": raw})["p"] == value


@pytest.mark.parametrize("data_type, raw, message", [
    (properties.INTEGER, "4.5", "Value '4.5' is not an integer"),
    (properties.INTEGER, "abc", "Value 'abc' is not an integer"),
    (properties.INTEGER, True, "Value 'True' is not an integer"),
    (properties.NUMBER, "abc", "Value 'abc' is not a number"),
    (properties.NUMBER, False, "Value 'False' is not a number"),
    (properties.STRING, [1], "Value must be a string; got [1]"),
    (properties.BOOLEAN, "yes", '"yes" is not a valid boolean'),
    (properties.BOOLEAN, 1, '"1" is not a valid boolean'),
    (properties.MAP, "x", '"x" is not a map'),
    (properties.LIST, "x", "\"'x'\" is not a list"),
])
def test_type_errors(data_type, raw, message):
    error = error_of({"p": Schema(data_type)}, LocatedDict({"p": raw}, line=3, lines={"p": 4}))
    assert str(error) == f"template:4: Property error: web.properties.p: {message}"
    assert (error.error, error.path, error.line) == ("Property error", [*PATH, "p"], 4)


@pytest.mark.parametrize("data_type, empty", [
    (properties.INTEGER, 0), (properties.NUMBER, 0), (properties.STRING, ""),
    (properties.BOOLEAN, False), (properties.MAP, {}), (properties.LIST, []),
    (properties.ANY, None)])
def test_null_reads_as_the_empty_value_and_unset_as_none(data_type, empty):
    schema = {"p": Schema(data_type)}
    assert props(schema, {"p": None})["p"] == empty
    assert props(schema, {})["p"] is None


def test_default_applies_when_unset_or_null():
    schema = {"p": Schema(properties.INTEGER, default=5)}
    assert props(schema, {})["p"] == 5
    assert props(schema, {"p": None})["p"] == 5
    assert props(schema, {"p": "6"})["p"] == 6


def test_functions_are_resolved_and_absent_means_unset():
    from hearth.engine.template.function import ABSENT
    schema = {"p": Schema(properties.STRING, default="d")}
    assert props(schema, {"p": GetAttr("db", "known")})["p"] == "known"
    assert props(schema, {"p": GetAttr("db", ABSENT)})["p"] == "d"


def test_mapping_interface_and_user_value():
    schema = {"a": Schema(properties.STRING, default="x"), "b": Schema(properties.STRING)}
    values = props(schema, {"b": "y"})
    assert sorted(values) == ["a", "b"] and len(values) == 2 and "a" in values
    assert values.get_user_value("a") is None and values.get_user_value("b") == "y"
    with pytest.raises(KeyError) as info:
        values["c"]
    assert info.value.args[0] == "Invalid Property c"
    with pytest.raises(KeyError):
        values.get_user_value("c")


# --- validation ----------------------------------------------------------------

def test_unknown_property_with_did_you_mean():
    data = LocatedDict({"prot": 1}, line=10, lines={"prot": 11})
    error = error_of({"port": Schema(properties.INTEGER)}, data)
    assert str(error) == ('template:11: Property error: web.properties: Unknown Property prot.'
                          ' Did you mean "port"?')
    assert str(error_of({"port": Schema(properties.INTEGER)}, {"zzz": 1})) == (
        "Property error: web.properties: Unknown Property zzz")


def test_missing_required_property():
    schema = {"port": Schema(properties.INTEGER, required=True)}
    error = error_of(schema, LocatedDict({}, line=9))
    assert str(error) == "template:9: Property error: web.properties: Property port not assigned"
    with pytest.raises(exception.StackValidationFailed):
        props(schema, {}).validate(with_value=False)
    props(schema, {"port": "x"}).validate(with_value=False)  # values not checked


def test_constraint_error_names_property_and_line():
    schema = {"port": Schema(properties.INTEGER, constraints=[constraints.Range(5, 10)])}
    error = error_of(schema, LocatedDict({"port": 11}, line=13, lines={"port": 14}))
    assert str(error) == ("template:14: Property error: web.properties.port: "
                          "11 is out of range (min: 5, max: 10)")


def test_constraint_description_is_the_message():
    schema = {"p": Schema(properties.STRING, constraints=[
        constraints.AllowedPattern("[a-z]+", description="Lowercase only.")])}
    assert str(error_of(schema, {"p": "ABC"})) == (
        "Property error: web.properties.p: Lowercase only.")


NESTED = {"ports": Schema(properties.LIST, schema=Schema(properties.MAP, schema={
    "name": Schema(properties.STRING, required=True, constraints=[constraints.Length(max=3)]),
    "number": Schema(properties.INTEGER, default=80),
}))}


def test_nested_list_of_maps_path_and_line():
    item = LocatedDict({"name": "abcd"}, line=20, lines={"name": 21})
    data = LocatedDict({"ports": LocatedList([{"name": "a"}, {"name": "b"}, item],
                                             line=17, lines=[17, 18, 20])},
                       line=16, lines={"ports": 16})
    error = error_of(NESTED, data)
    assert str(error) == ("template:21: Property error: web.properties.ports.2.name: "
                          "length (4) is out of range (min: None, max: 3)")
    assert error.path == [*PATH, "ports", 2, "name"]


def test_nested_members_unknown_missing_and_defaults():
    assert str(error_of(NESTED, {"ports": [{"name": "a", "nmae": 1}]})) == (
        'Property error: web.properties.ports.0: Unknown Property nmae. Did you mean "name"?')
    assert str(error_of(NESTED, {"ports": [{}]})) == (
        "Property error: web.properties.ports.0: Property name not assigned")
    assert str(error_of(NESTED, {"ports": ["x"]})) == (
        'Property error: web.properties.ports.0: "x" is not a map')
    assert props(NESTED, {"ports": [{"name": "a"}]})["ports"] == [{"name": "a", "number": 80}]


def test_values_from_resources_not_created_are_checked_later():
    schema = {"port": Schema(properties.INTEGER, required=True,
                             constraints=[constraints.Range(5, 10)])}
    props(schema, {"port": GetAttr("db")}).validate()
    error = error_of(schema, {"port": GetAttr("db", 11)})
    assert str(error) == "Property error: web.properties.port: 11 is out of range (min: 5, max: 10)"


def test_function_failure_becomes_property_error():
    class Broken(GetAttr):
        def result(self):
            raise ValueError("boom")
    error = error_of({"p": Schema(properties.STRING)}, {"p": Broken("db")})
    assert str(error) == "Property error: web.properties.p: boom"


def test_custom_constraint_receives_context():
    seen = []

    class Check:
        def validate(self, value, context=None):
            seen.append((value, context))
            return value == "ok"

    custom = constraints.CustomConstraint("check", registry={"check": Check})
    schema = {"p": Schema(properties.STRING, constraints=[custom])}
    props(schema, {"p": "ok"}, context="ctx").validate()
    assert seen == [("ok", "ctx")]
    assert str(error_of(schema, {"p": "bad"})) == (
        'Property error: web.properties.p: "bad" does not validate check')


# --- updates -------------------------------------------------------------------

def test_prop_diff_and_replacement_keys():
    schema = {"a": Schema(properties.STRING, update_allowed=True),
              "b": Schema(properties.STRING), "c": Schema(properties.STRING, immutable=True)}
    old = props(schema, {"a": "1", "b": "1", "c": "1"})
    new = props(schema, {"a": "2", "b": "2", "c": "1"})
    diff = properties.prop_diff(old, new)
    assert diff == {"a": "2", "b": "2"} == old.update_allowed_diff(new)
    assert old.replacement_keys(diff) == ["b"]
    assert old.immutable_keys({"c": "2"}) == ["c"]
    assert properties.prop_diff(old, props(schema, {"a": "1", "c": "1"})) == {"b": None}

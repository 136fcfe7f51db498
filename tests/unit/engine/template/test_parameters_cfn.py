"""Tests of CloudFormation-format parameters: declarations, values, pseudo parameters.

Messages were checked against OpenStack Heat 27.0.1's answers for the same
templates (its REST API's create refusals); Hearth adds the location.
"""

import pytest

from hearth.common import exception
from hearth.engine import constraints as constr
from hearth.engine.template import parameters as params
from hearth.engine.template import parameters_cfn, parser, versions

V = versions.CFN_2012_12_12

SECTION = parser.parse("""\
port:
  Type: Number
  Default: 80
  MinValue: 1
  MaxValue: 65535
  ConstraintDescription: A TCP port
env:
  Type: String
  Default: dev
  AllowedValues: [dev, prod]
names:
  Type: CommaDelimitedList
  Default: a,b
  MaxLength: 3
data:
  Type: Json
  Default: {}
flag:
  Type: Boolean
  Default: 'yes'
secret:
  Type: String
  NoEcho: 'TRUE'
  MinLength: 6
  AllowedPattern: '[a-z]+'
  Label: The secret
  Description: Keep it
""", "t.yaml")


def build(user=None, **kwargs):
    return params.Parameters(V, SECTION, user, filename="t.yaml", **kwargs)


def test_declarations_become_schemas_with_their_constraints():
    p = build({"secret": "abcdefg"})
    secret = p.params["secret"].schema
    assert secret.hidden and secret.label == "The secret" and secret.description == "Keep it"
    assert [type(c) for c in secret.constraints] == [constr.Length, constr.AllowedPattern]
    port = p.params["port"].schema
    assert (port.type, port.constraints[0].min, port.constraints[0].max) == (
        constr.NUMBER, 1, 65535)
    assert port.constraints[0].description == "A TCP port"
    assert [p.params[name].schema.type for name in ("names", "data", "flag")] == [
        constr.LIST, constr.MAP, constr.BOOLEAN]


def test_values_are_converted_as_hot_ones_are():
    p = build({"secret": "abcdefg", "port": "8080", "names": "x,y", "data": '{"a": 1}',
               "flag": "off"})
    p.validate()
    assert (p["port"], p["names"], p["data"], p["flag"]) == (8080, ["x", "y"], {"a": 1}, False)


def test_validate_output_is_heats():
    output = build({"secret": "abcdefg"}).validate_output()
    assert output["port"] == {"Type": "Number", "Description": "", "NoEcho": "false",
                              "Label": "port", "Default": 80, "MinValue": 1,
                              "MaxValue": 65535, "ConstraintDescription": "A TCP port"}
    assert output["secret"]["NoEcho"] == "true" and output["secret"]["MinLength"] == 6


@pytest.mark.parametrize("user, message", [
    ({"port": "abc"}, "t.yaml:1: Parameters.port: Parameter 'port' is invalid: could not "
                      "convert string to float: 'abc'"),
    ({"port": "0"}, "t.yaml:1: Parameters.port: Parameter 'port' is invalid: A TCP port"),
    ({"env": "qa"}, "t.yaml:7: Parameters.env: Parameter 'env' is invalid: \"qa\" is not an "
                    'allowed value ["dev", "prod"]'),
    ({"names": "a,b,c,d"}, "t.yaml:11: Parameters.names: Parameter 'names' is invalid: "
                           "length (4) is out of range (min: None, max: 3)"),
    ({"flag": "maybe"}, "t.yaml:18: Parameters.flag: Parameter 'flag' is invalid: "
                        "Unrecognized value 'maybe', acceptable values are: '0', '1', 'f', "
                        "'false', 'n', 'no', 'off', 'on', 't', 'true', 'y', 'yes'"),
    ({"secret": "abc"}, "t.yaml:21: Parameters.secret: Parameter 'secret' is invalid: "
                        "length (3) is out of range (min: 6, max: None)"),
])
def test_invalid_values_are_located_in_the_parameters_section(user, message):
    with pytest.raises(exception.StackValidationFailed) as info:
        build({"secret": "abcdefg", **user}).validate()
    assert str(info.value) == message


@pytest.mark.parametrize("definition, message", [
    ({"Type": "string"}, "Invalid type (string)"),
    ({"Type": "String", "MinValue": 1}, "Range constraint invalid for String"),
    ({"Type": "Number", "MaxLength": 1}, "Length constraint invalid for Number"),
])
def test_bad_declarations(definition, message):
    with pytest.raises(exception.InvalidSchemaError) as info:
        parameters_cfn.schema_from_definition(definition)
    assert str(info.value) == message


@pytest.mark.parametrize("no_echo, hidden", [
    ("true", True), (True, True), ("True", True), ("false", False), ("yes", False), (1, False)])
def test_noecho_hides_when_it_reads_true(no_echo, hidden):
    schema = parameters_cfn.schema_from_definition({"Type": "String", "NoEcho": no_echo})
    assert schema.hidden is hidden


def test_pseudo_parameters_are_cloudformations():
    p = build({"secret": "abcdefg"}, stack_name="web", stack_id="id-1", project_id="p1")
    assert p["AWS::StackName"] == "web"
    assert p["AWS::StackId"] == "arn:openstack:heat::p1:stacks/web/id-1"
    assert p["AWS::Region"] == "ap-southeast-1"
    assert "OS::stack_name" not in p
    assert p.non_pseudo_names() == ["port", "env", "names", "data", "flag", "secret"]


def test_pseudo_parameters_while_validating_are_empty():
    p = build({"secret": "abcdefg"})
    assert (p["AWS::StackName"], p["AWS::StackId"]) == ("", "")

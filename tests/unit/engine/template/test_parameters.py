"""Tests of HOT parameters: conversions, constraints, errors, validate output."""

import pytest

from hearth.common import exception
from hearth.engine.template import parameters as params
from hearth.engine.template import parser, versions

V = versions.HOT_2021_04_16

SECTION = parser.parse("""\
port:
  type: number
  label: Port
  description: The port
  default: 8080
  constraints:
    - range: {min: 1, max: 65535}
      description: A TCP port
    - modulo: {step: 2, offset: 0}
names:
  type: comma_delimited_list
  default: "a,b"
  constraints:
    - length: {max: 3}
    - allowed_values: [a, b, c]
data:
  type: json
  default: {"x": 1}
flag:
  type: boolean
  default: "yes"
password:
  type: string
  hidden: true
  tags: [secret]
  constraints:
    - allowed_pattern: "[a-z]+"
    - length: {min: 3}
""", "t.yaml")


def build(user=None, env=None, defaults=None, section=SECTION, version=V, **kwargs):
    return params.Parameters(version, section, user, env, defaults, filename="t.yaml", **kwargs)


def test_values_are_converted():
    p = build({"password": "secret", "flag": "off", "names": "c,a"})
    p.validate()
    assert p["port"] == 8080
    assert p["names"] == ["c", "a"]
    assert p["data"] == {"x": 1}
    assert p["flag"] is False
    assert p["password"] == "secret"


@pytest.mark.parametrize("value, expected", [
    ("", []), (["a", 1], ["a", "1"]), ("a", ["a"]),
])
def test_comma_delimited_list(value, expected):
    assert params.parse_list(value) == expected


@pytest.mark.parametrize("value, expected", [
    ('{"a": [1]}', {"a": [1]}), ([1, 2], [1, 2]), ("", ""),
])
def test_json(value, expected):
    assert params.parse_json(value) == expected


def test_pseudo_parameters():
    p = build({"password": "abc"}, stack_name="s", stack_id="id-1", project_id="p1")
    assert p["OS::stack_name"] == "s"
    assert p["OS::stack_id"] == "id-1"
    assert p["OS::project_id"] == "p1"
    assert "OS::stack_name" not in p.validate_output()


def test_env_parameters_and_defaults():
    p = build({"password": "abc"}, env={"port": "22", "password": "xyz"},
              defaults={"names": ["c"]})
    p.validate()
    assert p["port"] == 22
    assert p["password"] == "abc"
    assert p["names"] == ["c"]


def test_missing_parameter():
    with pytest.raises(exception.UserParameterMissing) as info:
        build({"port": 80}).validate()
    assert str(info.value) == "The Parameter (password) was not provided."


def test_unknown_parameter_with_hint():
    with pytest.raises(exception.UnknownUserParameter) as info:
        build({"passwrd": "x"}).validate()
    assert str(info.value) == ('The Parameter (passwrd) was not defined in template. '
                               'Did you mean "password"?')


@pytest.mark.parametrize("user, message", [
    ({"port": "70000"}, "t.yaml:1: parameters.port: Parameter 'port' is invalid: A TCP port"),
    ({"port": "7"}, "t.yaml:1: parameters.port: Parameter 'port' is invalid: 7 is not a "
                    "multiple of 2 with an offset of 0"),
    ({"port": "abc"}, "t.yaml:1: parameters.port: Parameter 'port' is invalid: could not "
                      "convert string to float: 'abc'"),
    ({"names": "a,b,c,a"}, "t.yaml:10: parameters.names: Parameter 'names' is invalid: "
                           "length (4) is out of range (min: None, max: 3)"),
    ({"names": "a,d"}, "t.yaml:10: parameters.names: Parameter 'names' is invalid: "
                       '["a", "d"] is not an allowed value ["a", "b", "c"]'),
    ({"data": "{bad"}, "t.yaml:16: parameters.data: Parameter 'data' is invalid: Value must "
                       "be valid JSON: Expecting property name enclosed in double quotes: "
                       "line 1 column 2 (char 1)"),
    ({"flag": "maybe"}, "t.yaml:19: parameters.flag: Parameter 'flag' is invalid: "
                        "Unrecognized value 'maybe', acceptable values are: '0', '1', 'f', "
                        "'false', 'n', 'no', 'off', 'on', 't', 'true', 'y', 'yes'"),
    ({"password": "AB1"}, "t.yaml:22: parameters.password: Parameter 'password' is invalid: "
                          '"AB1" does not match pattern "[a-z]+"'),
])
def test_invalid_values_are_located(user, message):
    values = {"password": "abcd", **user}
    with pytest.raises(exception.InvalidParameterValue) as info:
        build(values).validate()
    assert str(info.value) == message


@pytest.mark.parametrize("definition, message", [
    ("p: {type: number, default: 0, constraints: [{range: {min: 1}}]}",
     "Parameter 'p' is invalid: Invalid default 0 (0 is out of range (min: 1, max: None))"),
    ("p: {type: string, constraints: [{range: {min: 1}}]}",
     "Parameter 'p' is invalid: Range constraint invalid for string"),
    ("p: {type: string, constraints: [{lenght: {min: 1}}]}",
     "Parameter 'p' is invalid: Invalid key 'lenght' for parameter constraints. "
     'Did you mean "length"?'),
    ("p: {type: string, constraints: [{description: x}]}",
     "Parameter 'p' is invalid: No constraint expressed"),
    ("p: {type: string, constraints: [allowed]}",
     "Parameter 'p' is invalid: Invalid parameter constraints, expected a mapping"),
    ("p: {type: string, constraints: {length: {min: 1}}}",
     "Parameter 'p' is invalid: Invalid parameter constraints, expected a list"),
    ("p: {type: string, constraints: [{length: {mni: 1}}]}",
     "Parameter 'p' is invalid: Invalid key 'mni' for length constraint"),
    ("p: {type: strin}", "Parameter 'p' is invalid: Invalid type (strin)"),
    ("p: {type: comma_delimited_list, default: 'a,b', constraints: [{length: {max: 1}}]}",
     "Parameter 'p' is invalid: Invalid default a,b (length (2) is out of range "
     "(min: None, max: 1))"),
])
def test_invalid_declarations(definition, message):
    section = parser.parse(definition, "t.yaml")
    with pytest.raises(exception.InvalidParameterValue) as info:
        build(section=section).validate()
    assert str(info.value) == f"t.yaml:1: parameters.p: {message}"


def test_modulo_needs_2017_02_24():
    section = parser.parse("p: {type: number, constraints: [{modulo: {step: 2, offset: 0}}]}")
    with pytest.raises(exception.InvalidParameterValue, match="Invalid key 'modulo'"):
        build(section=section, version=versions.HOT_2016_10_14)
    build(section=section, version=versions.HOT_2017_02_24)


def test_custom_constraint_skipped_for_default_checked_for_value():
    section = parser.parse("ip: {type: string, default: nope, "
                           "constraints: [{custom_constraint: ip_addr}]}")
    build(section=section, validate_value=False).validate()
    with pytest.raises(exception.InvalidParameterValue) as info:
        build({"ip": "x"}, section=section).validate()
    assert str(info.value).endswith(
        "Parameter 'ip' is invalid: Error validating value 'x': Invalid IP address")


def test_no_value_validation():
    build(validate_value=False).validate()


def test_validate_output():
    p = build({"password": "abc"})
    assert p.validate_output() == {
        "port": {"Type": "Number", "Description": "The port", "NoEcho": "false",
                 "Label": "Port", "Default": 8080, "MinValue": 1, "MaxValue": 65535,
                 "Step": 2, "Offset": 0, "ConstraintDescription": "A TCP port"},
        "names": {"Type": "CommaDelimitedList", "Description": "", "NoEcho": "false",
                  "Label": "names", "Default": "a,b", "MaxLength": 3,
                  "AllowedValues": ["a", "b", "c"]},
        "data": {"Type": "Json", "Description": "", "NoEcho": "false", "Label": "data",
                 "Default": {"x": 1}},
        "flag": {"Type": "Boolean", "Description": "", "NoEcho": "false", "Label": "flag",
                 "Default": "yes"},
        "password": {"Type": "String", "Description": "", "NoEcho": "true",
                     "Label": "password", "Value": "abc", "Tags": ["secret"],
                     "AllowedPattern": "[a-z]+", "MinLength": 3},
    }


def test_display_values_hide_hidden():
    shown = build({"password": "abc"}).display_values()
    assert shown["password"] == "******"
    assert shown["names"] == "a,b"
    assert shown["data"] == '{"x": 1}'
    assert shown["flag"] == "True"


def test_immutable_modified():
    section = parser.parse("p: {type: string, immutable: true, default: a}\n"
                           "q: {type: string, default: b}")
    old = build(section=section)
    new = build({"p": "z", "q": "y"}, section=section)
    assert old.immutable_modified(new) == ["p"]


@pytest.mark.parametrize("groups, message", [
    ("{x: 1}", "t.yaml:1: Parameter Groups error: parameter_groups: The parameter_groups "
               "should be a list."),
    ("\n- {label: g, parameters: [a, c]}",
     "t.yaml:2: Parameter Groups error: parameter_groups.g: The grouped parameter c does not "
     "reference a valid parameter."),
    ("\n- {label: g, parameters: [a]}\n- {label: h, parameters: [b, a]}",
     "t.yaml:3: Parameter Groups error: parameter_groups.h: The a parameter must be assigned "
     "to one parameter group only."),
    ("\n- {label: g}", "t.yaml:2: Parameter Groups error: parameter_groups.g: The parameters "
                       "must be provided for each parameter group."),
    ("\n- {label: g, parameters: a}", "t.yaml:2: Parameter Groups error: parameter_groups.g: "
                                      "The parameters of parameter group should be a list."),
])
def test_parameter_group_errors(groups, message):
    data = parser.parse("parameter_groups: " + groups, "t.yaml")["parameter_groups"]
    with pytest.raises(exception.StackValidationFailed) as info:
        params.validate_parameter_groups(data, ["a", "b"], "t.yaml")
    assert str(info.value) == message


def test_parameter_groups_valid():
    data = parser.parse("g:\n- {label: g, parameters: [a]}\n- {parameters: [b]}")["g"]
    params.validate_parameter_groups(data, ["a", "b"])

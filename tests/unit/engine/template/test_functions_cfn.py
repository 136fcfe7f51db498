"""Tests of the CloudFormation-style functions: HOT 2013-05-23 and the CloudFormation format."""

import pytest

from hearth.common import exception
from hearth.engine.template import function, versions
from hearth.engine.template.conditions import Conditions
from hearth.engine.template.functions import cfn
from hearth.engine.template.snippet import parse_snippet
from tests.unit.engine.template.fakes import FakeContext, evaluate

OLD = "2013-05-23"


def context():
    return FakeContext(parameters={"p": "v"}, resources={"r": {}},
                       facade={"metadata": {"k": 1}, "update_policy": {"u": 1}})


def test_ref_resource_then_parameter():
    assert evaluate({"Ref": "r"}, OLD, context()) == "r-id"
    assert evaluate({"Ref": "p"}, OLD, context()) == "v"
    with pytest.raises(exception.InvalidTemplateReference, match='"rr" .* Did you mean "r"'):
        evaluate({"Ref": "rr"}, OLD, context())


@pytest.mark.parametrize("snippet, expected", [
    ({"Fn::Join": [",", ["a", "b"]]}, "a,b"),
    ({"Fn::Split": [",", "a,b"]}, ["a", "b"]),
    ({"Fn::Replace": [{"a": "x"}, "abc"]}, "xbc"),
    ({"Fn::Base64": "data"}, "data"),
    ({"Fn::GetAZs": ""}, ["nova"]),
    ({"Fn::Select": [1, ["a", "b"]]}, "b"),
    ({"Fn::Select": ["k", {"k": "v"}]}, "v"),
    ({"Fn::Select": [5, ["a"]]}, ""),
    ({"Fn::Select": [0, '["j"]']}, "j"),
    ({"Fn::Select": [0, None]}, ""),
    ({"Fn::MemberListToMap": ["Name", "Value", [".member.0.Name=k", ".member.0.Value=v"]]},
     {"k": "v"}),
    ({"Fn::ResourceFacade": "Metadata"}, {"k": 1}),
    ({"Fn::ResourceFacade": "UpdatePolicy"}, {"u": 1}),
])
def test_cfn_functions(snippet, expected):
    assert evaluate(snippet, OLD, context()) == expected


@pytest.mark.parametrize("snippet, message", [
    # Heat 27.0.1's texts
    ({"Fn::Split": [",", 1]}, "String to split must be string; got <class 'int'>"),
    ({"Fn::Split": [1, "a,b"]}, "Delimiter for Fn::Split must be a non-empty string"),
    ({"Fn::Split": "a,b"}, 'Incorrect arguments to "Fn::Split" should be: "Fn::Split" : '
                           '[ ",", "str1,str2"]]'),
    ({"Fn::Replace": [{"a": "b"}]}, 'Incorrect arguments to "Fn::Replace" should be: '
                                    '{"Fn::Replace": [ {"$var1": "foo", "%var2%": "bar"}, '
                                    '"$var1 is %var2%"]}'),
    ({"Fn::Join": [","]}, 'Incorrect arguments to "Fn::Join" should be: "Fn::Join" : '
                          '[ " ", [ "str1", "str2"]]'),
    ({"Fn::Select": [0]}, 'Arguments to "Fn::Select" must be of the form [index, collection]'),
    ({"Fn::MemberListToMap": [1, "V", []]}, "Fn::MemberListToMap Key Name must be a string"),
    ({"Fn::Base64": 1}, '"Fn::Base64" argument must be a string'),
    ({"Fn::Select": ["x", [1]]}, 'Index to "Fn::Select" must be an integer'),
    ({"Fn::MemberListToMap": ["N", "V", ["bad"]]}, 'Wrong argument "bad" to "Fn::MemberListToMap"'),
    ({"Fn::ResourceFacade": "Nope"}, 'Incorrect arguments to "Fn::ResourceFacade" should be one '
                                     'of: Metadata, DeletionPolicy, UpdatePolicy'),
])
def test_cfn_errors(snippet, message):
    with pytest.raises(exception.StackValidationFailed) as info:
        evaluate(snippet, OLD, context(), validate=False)
    assert str(info.value).endswith(message)


# --- the functions of CloudFormation-format templates, one table entry at a time -------

HEAT_CFN = "HeatTemplateFormatVersion.2012-12-12"
AWS_CFN = "AWSTemplateFormatVersion.2010-09-09"


def cfn_context():
    return FakeContext(parameters={"env": "prod", "zones": ["a", "b"], "n": 2},
                       resources={"server": {"ip": "10.0.0.1", "names": ["x", "y"]}},
                       mappings={"sizes": {"prod": {"flavor": "large"}, "dev": {"flavor": 1}}},
                       facade={"metadata": {"k": 1}, "deletion_policy": "Retain"})


#: every entry of the 2012-12-12 table: (snippet, value)
CFN_FUNCTIONS = {
    "Fn::FindInMap": ({"Fn::FindInMap": ["sizes", {"Ref": "env"}, "flavor"]}, "large"),
    "Fn::GetAZs": ({"Fn::GetAZs": ""}, ["nova"]),
    "Ref": ({"Ref": "server"}, "server-id"),
    "Fn::GetAtt": ({"Fn::GetAtt": ["server", "ip"]}, "10.0.0.1"),
    "Fn::Select": ({"Fn::Select": ["1", {"Ref": "zones"}]}, "b"),
    "Fn::Join": ({"Fn::Join": ["-", [{"Ref": "AWS::StackName"}, {"Ref": "env"}]]},
                 "teststack-prod"),
    "Fn::Split": ({"Fn::Split": [",", "a,b"]}, ["a", "b"]),
    "Fn::Replace": ({"Fn::Replace": [{"%env%": {"Ref": "env"}}, "in %env%"]}, "in prod"),
    "Fn::Base64": ({"Fn::Base64": "#!/bin/sh"}, "#!/bin/sh"),
    "Fn::MemberListToMap": ({"Fn::MemberListToMap": ["Name", "Value", [
        ".member.0.Name=k", ".member.0.Value=v"]]}, {"k": "v"}),
    "Fn::ResourceFacade": ({"Fn::ResourceFacade": "DeletionPolicy"}, "Retain"),
}


@pytest.mark.parametrize("version", [HEAT_CFN, AWS_CFN])
@pytest.mark.parametrize("name", sorted(CFN_FUNCTIONS))
def test_each_cfn_function(version, name):
    snippet, value = CFN_FUNCTIONS[name]
    assert evaluate(snippet, version, cfn_context()) == value


def test_the_tables_name_every_tested_function():
    assert set(versions.CFN_2012_12_12.functions) == set(CFN_FUNCTIONS)
    assert set(versions.CFN_2010_09_09.functions) == set(CFN_FUNCTIONS) | {"Fn::If"}


@pytest.mark.parametrize("snippet", [{"get_param": "env"}, {"get_attr": ["server", "ip"]},
                                     {"Fn::If": ["c", 1, 2]}, {"Fn::Equals": [1, 1]}])
def test_a_name_not_in_the_2012_table_is_data(snippet):
    assert evaluate(snippet, HEAT_CFN, cfn_context()) == snippet


def test_ref_of_a_parameter_and_a_pseudo_parameter():
    assert evaluate({"Ref": "n"}, HEAT_CFN, cfn_context()) == 2
    assert evaluate({"Ref": "AWS::StackName"}, HEAT_CFN, cfn_context()) == "teststack"


def test_getatt_takes_exactly_a_resource_and_an_attribute():
    with pytest.raises(exception.StackValidationFailed) as info:
        evaluate({"Fn::GetAtt": ["server", "names", 0]}, HEAT_CFN, cfn_context())
    assert str(info.value) == ('outputs.o.value: Fn::GetAtt: Arguments to "Fn::GetAtt" must be '
                               'of the form [resource_name, attribute]')
    with pytest.raises(exception.InvalidTemplateReference, match='"serve" .* Did you mean'):
        evaluate({"Fn::GetAtt": ["serve", "ip"]}, HEAT_CFN, cfn_context())


@pytest.mark.parametrize("snippet, message", [
    ({"Fn::FindInMap": ["size", "prod", "flavor"]},
     'The mapping "size" is not in the Mappings section Did you mean "sizes"?'),
    ({"Fn::FindInMap": ["sizes", "qa", "flavor"]}, 'The key "qa" is not in the mapping "sizes"'),
    ({"Fn::FindInMap": ["sizes", "prod", "flavour"]},
     'The key "flavour" is not in the mapping "sizes.prod" Did you mean "flavor"?'),
    ({"Fn::FindInMap": ["sizes", "prod"]}, 'Arguments to "Fn::FindInMap" must be of the form: '
                                           '[map_name, top_level_key, second_level_key]'),
])
def test_findinmap_names_what_is_missing(snippet, message):
    with pytest.raises(exception.StackValidationFailed) as info:
        evaluate(snippet, HEAT_CFN, cfn_context())
    assert str(info.value) == f"outputs.o.value: Fn::FindInMap: {message}"


def test_findinmap_with_a_computed_key_is_checked_when_resolved():
    snippet = {"Fn::FindInMap": ["sizes", {"Fn::Join": ["", ["q", "a"]]}, "flavor"]}
    parsed = parse_snippet(versions.CFN_2012_12_12, cfn_context(), snippet)
    function.validate(parsed)  # not known before resolution
    with pytest.raises(exception.StackValidationFailed, match='The key "qa" is not in'):
        function.resolve(parsed)


# --- 2010-09-09: Fn::If and the condition functions ------------------------------------

def aws_context(section):
    context = cfn_context()
    context.conditions = Conditions(versions.CFN_2010_09_09, context, section)
    return context


def test_if_and_the_condition_functions():
    context = aws_context({
        "IsProd": {"Fn::Equals": [{"Ref": "env"}, "prod"]},
        "IsDev": {"Fn::Not": ["IsProd"]},
        "Both": {"Fn::And": ["IsProd", {"Fn::Equals": [{"Fn::FindInMap": [
            "sizes", "prod", "flavor"]}, "large"]}]},
        "Either": {"Fn::Or": ["IsDev", False]},
    })
    assert context.conditions.evaluate_all() == {"IsProd": True, "IsDev": False, "Both": True,
                                                 "Either": False}
    assert evaluate({"Fn::If": ["IsDev", "d", {"Ref": "env"}]}, AWS_CFN, context) == "prod"


@pytest.mark.parametrize("definition, message", [
    ({"Fn::Not": "IsProd"}, 'Fn::Not: Arguments to "Fn::Not" must be of the form: [condition]'),
    ({"Fn::Not": ["a", "b"]},
     'Fn::Not: Arguments to "Fn::Not" must be of the form: [condition]'),
    ({"Fn::And": ["x"]}, 'Fn::And: The minimum number of condition arguments to "Fn::And" '
                         "is 2."),
    ({"Fn::Equals": [{"Ref": "server"}, "x"]},
     'The specified reference "server" (in Conditions.c.Fn::Equals.0) is incorrect.'),
])
def test_condition_function_errors(definition, message):
    context = aws_context({"c": definition, "IsProd": True})
    with pytest.raises(exception.StackValidationFailed) as info:
        context.conditions.evaluate_all()
    assert str(info.value).endswith(message)


def test_ref_in_conditions_reads_parameters_only():
    assert versions.CFN_2010_09_09.condition_functions["Ref"] is cfn.ParamRef
    context = aws_context({"c": {"Fn::Equals": [{"Ref": "env"}, "prod"]}})
    assert context.conditions.evaluate_all() == {"c": True}

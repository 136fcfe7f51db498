"""Tests of the CloudFormation-style functions of HOT 2013-05-23."""

import pytest

from hearth.common import exception
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
    ({"Fn::Split": [",", 1]}, 'Arguments to "Fn::Split" must be of the form: [delimiter, string]'),
    ({"Fn::Base64": 1}, 'Arguments to "Fn::Base64" must be a string'),
    ({"Fn::Select": ["x", [1]]}, 'Selector to "Fn::Select" must be an integer'),
    ({"Fn::MemberListToMap": ["N", "V", ["bad"]]}, 'Wrong argument "bad" to "Fn::MemberListToMap"'),
    ({"Fn::ResourceFacade": "Nope"}, 'Incorrect arguments to "Fn::ResourceFacade" should be one '
                                     'of: Metadata, DeletionPolicy, UpdatePolicy'),
])
def test_cfn_errors(snippet, message):
    with pytest.raises(exception.StackValidationFailed) as info:
        evaluate(snippet, OLD, context(), validate=False)
    assert str(info.value).endswith(message)

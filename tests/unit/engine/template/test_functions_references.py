"""Tests of get_param, get_resource, get_attr, get_file, resource_facade."""

import pytest

from hearth.common import exception
from hearth.common.located import LocatedDict
from hearth.engine.template import function, versions
from hearth.engine.template.snippet import parse_snippet
from tests.unit.engine.template.fakes import FakeContext, evaluate

PARAMS = {"m": {"a": [1, {"b": "x"}], "c": 2}, "flavor": "small"}


def context(**kwargs):
    kwargs.setdefault("parameters", PARAMS)
    kwargs.setdefault("resources", {"server": {"networks": {"net": ["10.0.0.1"]}, "name": "s"}})
    return FakeContext(**kwargs)


def error_of(snippet, date="2021-04-16", ctx=None):
    with pytest.raises(exception.StackValidationFailed) as info:
        evaluate(snippet, date, ctx or context())
    return info.value


# --- get_param -------------------------------------------------------------

@pytest.mark.parametrize("args, expected", [
    # Heat 27.0.1: a missing key, index or a path into a scalar gives ''
    (["m", "a", 1, "b"], "x"), (["m", "a", "1", "b"], "x"), (["m", "a", 5], ""),
    (["m", "zz"], ""), (["m", "a", "x"], ""), (["m", "c", 1], ""), ("flavor", "small"),
])
def test_get_param_path(args, expected):
    assert evaluate({"get_param": args}, "2021-04-16", context()) == expected


@pytest.mark.parametrize("name, value", [("OS::stack_name", "teststack"),
                                         ("OS::stack_id", "stack-uuid"),
                                         ("OS::project_id", "project-uuid")])
def test_pseudo_parameters(name, value):
    assert evaluate({"get_param": name}, "2013-05-23", context()) == value


def test_get_param_unknown_with_did_you_mean_and_line():
    snippet = LocatedDict({"get_param": "flavour"}, line=9, lines={"get_param": 9})
    parsed = parse_snippet(versions.find_version("2016-10-14"), context(), snippet,
                           ("outputs", "o", "value"))
    with pytest.raises(exception.InvalidTemplateReference) as info:
        function.validate(parsed)
    assert str(info.value) == ('template:9: outputs.o.value: The specified reference "flavour" '
                               '(in outputs.o.value) is incorrect. Did you mean "flavor"?')


def test_get_param_shape_errors():
    assert str(error_of({"get_param": [1]})).endswith(
        'Function "get_param" must be given a parameter name (a string), not 1')
    assert str(error_of({"get_param": []})).endswith(
        'Arguments to "get_param" must be of the form: parameter_name or [parameter_name, path...]')


# --- get_resource ----------------------------------------------------------

def test_get_resource():
    assert evaluate({"get_resource": "server"}, "2013-05-23", context()) == "server-id"


def test_get_resource_unknown():
    error = error_of({"get_resource": "sever"})
    assert isinstance(error, exception.InvalidTemplateReference)
    assert str(error) == ('outputs.o.value: The specified reference "sever" (in outputs.o.value)'
                          ' is incorrect. Did you mean "server"?')


def test_dependencies():
    parsed = parse_snippet(versions.find_version("2021-04-16"), context(),
                           {"a": {"get_resource": "server"},
                            "b": {"get_attr": ["server", "name"]}})
    assert sorted(function.dependencies(parsed)) == ["server", "server"]
    assert list(function.dep_attrs(parsed, "server")) == ["name"]
    assert list(function.dep_attrs(parsed, "other")) == []


# --- get_attr variants -----------------------------------------------------

def test_get_attr_2013_selects_path_itself():
    ctx = context()
    assert evaluate({"get_attr": ["server", "networks", "net", 0]}, "2013-05-23", ctx) == "10.0.0.1"
    assert ctx.attribute_requests == [("server", "networks", [])]
    assert evaluate({"get_attr": ["server", "networks", "nope"]}, "2013-05-23", ctx) is None


@pytest.mark.parametrize("date", ["2014-10-16", "2015-10-15", "2021-04-16"])
def test_get_attr_passes_path_to_resource(date):
    ctx = context()
    assert evaluate({"get_attr": ["server", "networks", "net", 0]}, date, ctx) == "10.0.0.1"
    assert ctx.attribute_requests == [("server", "networks", ["net", 0])]


def test_get_attr_all_attributes_from_2015_10_15():
    assert evaluate({"get_attr": ["server"]}, "2015-10-15", context()) == {
        "networks": {"net": ["10.0.0.1"]}, "name": "s"}
    # Heat 27.0.1 (2015-04-30): 'Arguments to "get_attr" must be of the form
    # [resource_name, attribute, (path), ...]'
    assert str(error_of({"get_attr": ["server"]}, "2015-04-30")).endswith(
        'Arguments to "get_attr" must be of the form: [resource_name, attribute, (path), ...]')


def test_get_attr_unknown_attribute_is_located():
    ctx = context(attribute_names={"server": ["name", "networks"]})
    error = error_of({"get_attr": ["server", "nam"]}, ctx=ctx)
    assert isinstance(error, exception.InvalidTemplateAttribute)
    assert str(error) == ('outputs.o.value: The Referenced Attribute (server nam) is incorrect.'
                          ' Did you mean "name"?')


def test_get_attr_unknown_resource_and_shape():
    assert 'The specified reference "sever"' in str(error_of({"get_attr": ["sever", "x"]}))
    assert str(error_of({"get_attr": "server"})).endswith(
        'Arguments to "get_attr" must be of the form: [resource_name] or [resource_name, '
        'attribute, (path), ...]')
    assert "must be of the form" in str(error_of({"get_attr": [1, "x"]}))


# --- get_file, resource_facade ---------------------------------------------

def test_get_file_reads_files_map_only():
    ctx = context(files={"file:///x.sh": "#!/bin/sh"})
    assert evaluate({"get_file": "file:///x.sh"}, "2013-05-23", ctx) == "#!/bin/sh"
    # Heat: 'No content found in the "files" section for get_file path: file:///nope'
    assert str(error_of({"get_file": "file:///nope"}, ctx=ctx)).endswith(
        'No content found in the "files" section for get_file path: file:///nope')
    assert str(error_of({"get_file": ["x"]}, ctx=ctx)).endswith(
        'Argument to "get_file" must be a string')


def test_resource_facade():
    ctx = context(facade={"metadata": {"k": "v"}, "deletion_policy": "Retain"})
    assert evaluate({"resource_facade": "metadata"}, "2021-04-16", ctx) == {"k": "v"}
    assert evaluate({"resource_facade": "deletion_policy"}, "2021-04-16", ctx) == "Retain"
    assert str(error_of({"resource_facade": "nope"}, ctx=ctx)).endswith(
        'Incorrect arguments to "resource_facade" should be one of: metadata, deletion_policy, '
        'update_policy')

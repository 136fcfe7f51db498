"""Tests of parse_snippet / parse_condition: which keys become functions, and where."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hearth.common import exception
from hearth.common.located import LocatedDict, LocatedList
from hearth.engine.template import function, versions
from hearth.engine.template.functions import references
from hearth.engine.template.snippet import parse_condition, parse_snippet
from tests.unit.engine.template.fakes import FakeContext, evaluate
from tests.unit.engine.template.test_versions import DATES

CONTEXT = FakeContext(parameters={"p": "v"}, resources={"r": {"a": 1}})


def version(date="2021-04-16"):
    return versions.find_version(date)


def test_function_call_becomes_function_with_parsed_args():
    parsed = parse_snippet(version(), CONTEXT, {"x": {"get_attr": [{"get_param": "p"}, "a"]}},
                           ("resources", "r"))
    call = parsed["x"]
    assert isinstance(call, references.GetAttAllAttributes)
    assert isinstance(call.args[0], references.GetParam)
    assert call.path == ("resources", "r", "x")
    assert call.args[0].path == ("resources", "r", "x", "get_attr", 0)


def test_multi_key_maps_and_non_function_keys_stay_data():
    snippet = {"get_param": "p", "other": 1}
    assert parse_snippet(version(), CONTEXT, snippet) == snippet
    assert parse_snippet(version(), CONTEXT, {"nope": [1]}) == {"nope": [1]}
    assert parse_snippet(version(), CONTEXT, {1: "x"}) == {1: "x"}


@pytest.mark.parametrize("name", ["equals", "not", "and", "or"])
@pytest.mark.parametrize("date", DATES)
def test_condition_functions_outside_conditions_are_data(name, date):
    # Heat 27.0.1: {equals: [1, 2]} in an output value is returned as the map itself.
    assert evaluate({name: [1, 2]}, date) == {name: [1, 2]}


@pytest.mark.parametrize("date", DATES)
def test_function_absent_from_a_version_is_data(date):
    snippet = {"make_url": {"host": "h"}}
    expected = "//h" if date >= "2017-09-01" else snippet
    assert evaluate(snippet, date) == expected


@pytest.mark.parametrize("date", DATES[1:])
def test_removed_function_gives_heats_message(date):
    with pytest.raises(exception.StackValidationFailed) as info:
        parse_snippet(version(date), CONTEXT, {"Ref": "p"}, ("outputs", "o", "value"))
    # Heat 27.0.1's text for every version that removed Ref.
    assert str(info.value) == ("outputs.o.value: The template version is invalid: The function "
                               "Ref is not supported in this version of HOT.")


def test_removed_function_error_has_line_of_located_key():
    snippet = LocatedDict({"a": LocatedList([LocatedDict({"Fn::Select": [0, [1]]}, line=7,
                                                         lines={"Fn::Select": 7})],
                                            line=6, lines=[7])}, line=5, lines={"a": 6})
    with pytest.raises(exception.StackValidationFailed) as info:
        parse_snippet(version("2015-10-15"), CONTEXT, snippet, ["outputs", "o", "value"])
    assert info.value.line == 7
    assert str(info.value) == ("template:7: outputs.o.value.a.0: The template version is "
                               "invalid: The function Fn::Select is not supported in this "
                               "version of HOT.")


def test_located_containers_are_kept():
    snippet = LocatedDict({"a": LocatedList([1, {"get_param": "p"}], line=3, lines=[3, 4])},
                          line=2, lines={"a": 3})
    parsed = parse_snippet(version(), CONTEXT, snippet)
    assert isinstance(parsed, LocatedDict) and parsed.lines == {"a": 3}
    assert isinstance(parsed["a"], LocatedList) and parsed["a"].lines == [3, 4]
    assert parsed["a"][1].line == 4


def test_condition_parser_accepts_condition_functions():
    parsed = parse_condition(version(), CONTEXT, {"equals": [{"get_param": "p"}, "v"]})
    assert function.resolve(parsed) is True


def test_condition_parser_refuses_normal_functions():
    # Heat 27.0.1: 'conditions.a.equals[0].get_resource: The function "get_resource" is
    # invalid in this context'
    with pytest.raises(exception.StackValidationFailed) as info:
        parse_condition(version("2016-10-14"), CONTEXT,
                        {"equals": [{"get_resource": "r"}, 1]}, ("conditions", "a"))
    assert str(info.value) == ('conditions.a.equals.0: The function "get_resource" is invalid '
                               'in this context (only get_param, equals, not, and, or may be '
                               'used in conditions)')


def test_condition_parser_refuses_removed_functions():
    with pytest.raises(exception.StackValidationFailed,
                       match=r"The template version is invalid: The function Fn::Select is not "
                             r"supported in this version of HOT\.$"):
        parse_condition(version("2016-10-14"), CONTEXT, {"Fn::Select": [0, [True]]})


def test_contains_is_a_condition_function_only_from_pike():
    snippet = {"contains": [1, [1]]}
    with pytest.raises(exception.StackValidationFailed, match="invalid in this context"):
        parse_condition(version("2017-09-01"), CONTEXT, {"not": {"get_attr": ["r", "a"]}})
    assert parse_condition(version("2017-02-24"), CONTEXT, snippet) == snippet
    assert function.resolve(parse_condition(version("2017-09-01"), CONTEXT, snippet)) is True


def test_if_condition_argument_parsed_as_condition():
    parsed = parse_snippet(version(), CONTEXT, {"if": [{"equals": [1, 1]}, "yes", "no"]})
    assert function.resolve(parsed) == "yes"


# --- property test: nothing but Hearth's own errors -------------------------

NAMES = sorted({name for v in versions.all_versions() for name in v.functions}
               | {"equals", "not", "and", "or", "x"})
scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(
    ["", "p", "r", "a", "%x%", ",", "sha256", "x,y", "metadata", "OS::stack_name"]))
snippets = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.sampled_from(["template", "params", "for_each", "expression", "data",
                                         "host", "port", "keys", "values", "%x%"]),
                        children, max_size=3),
        st.builds(lambda name, args: {name: args}, st.sampled_from(NAMES), children)),
    max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(snippet=snippets, date=st.sampled_from(DATES))
def test_random_snippets_raise_only_hearth_errors(snippet, date):
    context = FakeContext(parameters={"p": {"a": [1]}}, resources={"r": {"a": [1, 2]}},
                          files={"f": "content"})
    try:
        parsed = parse_snippet(versions.find_version(date), context, snippet)
        function.validate(parsed)
        function.resolve(parsed)
        list(function.dependencies(parsed))
    except exception.HearthException:
        pass

"""Tests of the conditions section and the condition functions (incl. ``if``)."""

import pytest

from hearth.common import exception
from hearth.common.located import LocatedDict
from hearth.engine.template import versions
from hearth.engine.template.conditions import Conditions
from tests.unit.engine.template.fakes import FakeContext, evaluate


def conditions_of(section, date="2021-04-16", parameters=None):
    context = FakeContext(parameters=parameters or {"env": "prod"})
    context.conditions = Conditions(versions.find_version(date), context, section)
    return context


def error_of(section, name, date="2021-04-16"):
    with pytest.raises(exception.StackValidationFailed) as info:
        conditions_of(section, date).conditions.is_enabled(name)
    return str(info.value)


def test_condition_functions_evaluate():
    context = conditions_of({
        "prod": {"equals": [{"get_param": "env"}, "prod"]},
        "dev": {"not": "prod"},
        "both": {"and": ["prod", {"not": "dev"}, True]},
        "either": {"or": ["dev", False]},
    })
    values = context.conditions.evaluate_all()
    assert values == {"prod": True, "dev": False, "both": True, "either": False}


def test_conditions_are_memoised():
    context = conditions_of({"a": {"equals": [{"get_param": "env"}, "prod"]}})
    assert context.conditions.is_enabled("a") is True
    context.parameters["env"] = "dev"
    assert context.conditions.is_enabled("a") is True


def test_is_enabled_accepts_none_bools_and_inline_expressions():
    conditions = conditions_of({}).conditions
    assert conditions.is_enabled(None) is True
    assert conditions.is_enabled(False) is False
    assert conditions.is_enabled({"equals": [1, 1]}) is True


def test_unknown_condition_with_did_you_mean():
    assert error_of({"prod": True}, "prd") == 'Invalid condition "prd" Did you mean "prod"?'


def test_circular_conditions_name_the_cycle():
    section = LocatedDict({"a": {"not": "b"}, "b": {"and": [True, "a"]}}, line=3,
                          lines={"a": 4, "b": 5})
    assert error_of(section, "a") == ("template:4: conditions.a: Circular definition of "
                                      "conditions: a -> b -> a")


def test_definition_must_be_boolean():
    # Heat 27.0.1: 'The definition of condition "a" is invalid: x'
    context = conditions_of({"a": {"get_param": "env"}, "b": "a"})
    with pytest.raises(exception.StackValidationFailed) as info:
        context.conditions.is_enabled("a")
    assert str(info.value) == ('conditions.a: The definition of condition "a" is invalid: prod '
                               '(a condition must be a boolean, a condition name or a condition '
                               'function)')
    # Heat 27.0.1: a bare name is not a definition ('... is invalid: b')
    with pytest.raises(exception.StackValidationFailed, match='condition "b" is invalid: a'):
        context.conditions.is_enabled("b")


def test_condition_function_errors():
    # Heat 27.0.1: both messages
    assert error_of({"a": {"and": [True]}}, "a") == (
        'conditions.a: and: The minimum number of condition arguments to "and" is 2.')
    assert error_of({"a": {"equals": [1, 2, 3]}}, "a") == (
        'conditions.a: equals: Arguments to "equals" must be of the form: [value_1, value_2]')
    assert error_of({"a": {"not": None}}, "a").endswith(
        'Arguments to "not" must be of the form: [condition]')
    assert error_of({"a": {"or": "x"}}, "a").endswith(
        'Arguments to "or" must be a list of conditions')
    assert error_of({"a": {"not": 3}}, "a").endswith(
        "The condition value should be boolean, after resolved the value is: 3")


def test_conditions_section_must_be_a_map():
    with pytest.raises(exception.StackValidationFailed,
                       match='conditions: The "conditions" section must be a map'):
        conditions_of([1])


# --- if --------------------------------------------------------------------

def test_if_with_named_and_inline_conditions():
    context = conditions_of({"prod": True})
    assert evaluate({"if": ["prod", "a", "b"]}, "2016-10-14", context) == "a"
    assert evaluate({"if": [{"not": "prod"}, "a", "b"]}, "2016-10-14", context) == "b"


def test_if_unknown_condition_is_located():
    # Heat 27.0.1: 'outputs.o.value.if: Invalid condition "aa"'
    with pytest.raises(exception.StackValidationFailed) as info:
        evaluate({"if": ["aa", 1, 2]}, "2016-10-14", conditions_of({"a": True}))
    assert str(info.value) == 'outputs.o.value: Invalid condition "aa" Did you mean "a"?'


def test_two_argument_if_before_wallaby_is_an_error():
    # Heat 27.0.1: 'Arguments to "if" must be of the form: [condition_name, value_if_true,
    # value_if_false]'
    with pytest.raises(exception.StackValidationFailed) as info:
        evaluate({"if": [True, "a"]}, "2018-08-31")
    assert str(info.value) == ('outputs.o.value: if: Arguments to "if" must be of the form: '
                               '[condition_name, value_if_true, value_if_false]')


def test_nullable_if_removes_the_item():
    # Heat 27.0.1: [a, {if: [false, b]}, c] gives [a, c]; {x: {if: [true, 1]}, y: {if: [false,
    # 2]}} gives {x: 1}
    assert evaluate(["a", {"if": [False, "b"]}, "c"]) == ["a", "c"]
    assert evaluate({"x": {"if": [True, 1]}, "y": {"if": [False, 2]}}) == {"x": 1}


def test_if_absent_before_newton():
    # Heat 27.0.1 (2016-04-08): the map is plain data
    assert evaluate({"if": [True, 1, 2]}, "2016-04-08") == {"if": [True, 1, 2]}


def test_if_dependencies_follow_chosen_branch():
    from hearth.engine.template import function
    from hearth.engine.template.snippet import parse_snippet

    context = FakeContext(resources={"a": {}, "b": {}})
    parsed = parse_snippet(versions.find_version("2021-04-16"), context,
                           {"if": [False, {"get_resource": "a"}, {"get_resource": "b"}]})
    assert list(function.dependencies(parsed)) == ["b"]

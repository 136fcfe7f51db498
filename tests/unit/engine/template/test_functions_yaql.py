"""Tests of the yaql function; values marked 'Heat' came from Heat 27.0.1."""

import pytest

from hearth.common import exception
from tests.unit.engine.template.fakes import evaluate


def yaql(expression, data=None):
    return {"yaql": {"expression": expression, "data": data or {}}}


def error_of(snippet):
    with pytest.raises(exception.StackValidationFailed) as info:
        evaluate(snippet)
    return str(info.value)


def test_yaql_evaluates_over_data():
    # Heat: [2, 4]
    assert evaluate(yaql("$.data.a.select($ * 2)", {"a": [1, 2]})) == [2, 4]


def test_yaql_iterator_limit_from_config():
    # Heat: 'Collection length exceeds 200 elements'
    assert error_of(yaql("range(1000).select($)")).endswith(
        "Collection length exceeds 200 elements")


def test_yaql_unknown_method():
    # Heat: 'Unknown method "nofunc" for receiver (1,)'
    assert 'Unknown method "nofunc"' in error_of(yaql("$.data.a.nofunc()", {"a": [1]}))


def test_yaql_bad_expression_found_at_validation():
    # Heat: 'Bad expression Parse error: unexpected end of statement.'
    assert error_of(yaql("$.data.(")).endswith(
        "yaql: Bad expression Parse error: unexpected end of statement.")


def test_yaql_shape_errors():
    assert error_of({"yaql": {"expression": 1, "data": {}}}).endswith(
        'The "expression" argument to yaql must contain a string.')
    assert error_of({"yaql": "x"}).endswith(
        'Arguments to "yaql" must be of the form: {"expression": string, "data": any}')


def test_yaql_is_a_condition_function_from_pike_only():
    assert evaluate(yaql("1"), "2016-04-08") == yaql("1")

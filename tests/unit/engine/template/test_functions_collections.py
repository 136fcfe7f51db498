"""Tests of the list and map functions; values marked 'Heat' came from Heat 27.0.1."""

import pytest

from hearth.common import exception
from tests.unit.engine.template.fakes import evaluate


def error_of(snippet, date="2021-04-16"):
    with pytest.raises(exception.StackValidationFailed) as info:
        evaluate(snippet, date)
    return str(info.value)


def repeat(for_each, template, **extra):
    return {"repeat": {"for_each": for_each, "template": template, **extra}}


# --- repeat ----------------------------------------------------------------

def test_repeat_product_replaces_in_keys_and_values():
    # Heat: [{a: c}, {a: d}, {b: c}, {b: d}]
    snippet = repeat({"%x%": ["a", "b"], "%y%": ["c", "d"]}, {"%x%": "%y%"})
    assert evaluate(snippet, "2015-04-30") == [{"a": "c"}, {"a": "d"}, {"b": "c"}, {"b": "d"}]


def test_repeat_none_list_is_empty():
    assert evaluate(repeat({"%x%": None}, "a%x%")) == []


def test_repeat_over_numbers_fails_at_run_time():
    # Heat: 'replace() argument 2 must be str, not int'
    assert error_of(repeat({"%x%": [1, 2]}, "a%x%")).endswith(
        "replace() argument 2 must be str, not int")


@pytest.mark.parametrize("date, message", [
    # Heat 27.0.1, both
    ("2016-04-08", 'The values of the "for_each" argument to "repeat" must be lists'),
    ("2021-04-16", 'The values of the "for_each" argument to "repeat" must be lists or maps'),
])
def test_repeat_over_a_string(date, message):
    assert error_of(repeat({"%x%": "abc"}, "a"), date).endswith(message)


def test_repeat_over_map_keys_from_newton():
    # Heat: ['ak1', 'ak2']
    snippet = repeat({"%x%": {"k1": 1, "k2": 2}}, "a%x%")
    assert evaluate(snippet, "2016-10-14") == ["ak1", "ak2"]
    assert "must be lists" in error_of(snippet, "2016-04-08")


def test_repeat_permutations_false_zips():
    snippet = repeat({"%x%": ["a", "b"], "%y%": ["c", "d"]}, "%x%%y%", permutations=False)
    assert evaluate(snippet, "2017-09-01") == ["ac", "bd"]


def test_repeat_permutations_ignored_before_pike():
    # Heat: 2016-10-14 ignores the key and gives ['a']
    assert evaluate(repeat({"%x%": ["a"]}, "%x%", permutations=False), "2016-10-14") == ["a"]


def test_repeat_permutations_errors():
    # Heat: both messages
    assert error_of(repeat({"%x%": ["a", "b"], "%y%": ["c"]}, "%x%", permutations=False)
                    ).endswith("For repeat, the length of for_each values should be equal if "
                               "no nested loop.")
    assert error_of(repeat({"%x%": {"a": 1}, "%y%": ["c"]}, "%x%", permutations=False)
                    ).endswith('The values of the "for_each" argument to "repeat" must be lists')
    assert error_of(repeat({"%x%": ["a"]}, "%x%", permutations="no")).endswith(
        '"permutations" should be boolean type for repeat function.')


def test_repeat_shape_errors():
    assert error_of({"repeat": {"template": "x"}}).endswith(
        'Arguments to "repeat" must be of the form: {"for_each": {"%var%": list, ...}, '
        '"template": any}')
    assert error_of({"repeat": [1]}).endswith('Arguments to "repeat" must be a map: '
                                              '{"for_each": {"%var%": list, ...}, "template": any}')
    assert error_of(repeat([1], "x")).endswith(
        'The "for_each" argument to "repeat" must contain a map')


# --- map_merge / map_replace -----------------------------------------------

def test_map_merge():
    # Heat: None items count as {}
    assert evaluate({"map_merge": [{"a": 1, "b": 1}, None, {"b": 2}]}) == {"a": 1, "b": 2}


def test_map_merge_errors():
    # Heat: "Incorrect arguments: Items to merge must be maps. [1] is type <class 'list'> ..."
    assert error_of({"map_merge": [{"a": 1}, [1]]}).endswith(
        "Incorrect arguments: Items to merge must be maps. [1] is type <class 'list'> instead "
        "of a dict")
    assert error_of({"map_merge": {"a": 1}}).endswith(
        'Arguments to "map_merge" must be of the form: [{...}, {...}, ...]')


def test_map_replace():
    # Heat: values {1: x} on {a: 1, b: 2} gives {a: x, b: 2}
    assert evaluate({"map_replace": [{"a": 1, "b": 2}, {"values": {1: "x"}}]}) == {"a": "x",
                                                                                   "b": 2}
    assert evaluate({"map_replace": [{"a": [1]}, {"keys": {"a": "c"}, "values": {1: 2}}]}) == {
        "c": [1]}


def test_map_replace_errors():
    # Heat: both messages
    assert error_of({"map_replace": [{"a": 1, "b": 2}, {"keys": {"a": "b"}}]}).endswith(
        "key replacement b collides with a key in the input map")
    assert error_of({"map_replace": [{"a": 1}, {"kays": {"a": "b"}}]}).endswith(
        'Incorrect arguments to "map_replace" should be: "map_replace" : [ { "key1": "val1" }, '
        '{"keys": {"key1": "key2"}, "values": {"val1": "val2"}}]')


# --- filter, list_concat(_unique), contains --------------------------------

def test_filter():
    # Heat: [[1, null], [1, 2, null]] gives [2]; a None list is returned as is
    assert evaluate({"filter": [[1, None], [1, 2, None]]}) == [2]
    assert evaluate({"filter": [[1], None]}) is None
    assert evaluate({"filter": [[], [1]]}) == [1]
    assert error_of({"filter": [[1], "abc"]}).endswith('"filter" must operate on a list')
    assert error_of({"filter": [1]}).endswith(
        'Arguments to "filter" must be of the form: [values_to_remove, list]')


def test_list_concat():
    # Heat: None counts as []
    assert evaluate({"list_concat": [[1], None, [2, 1]]}) == [1, 2, 1]
    assert evaluate({"list_concat_unique": [[1, 2], [2, 3, 1]]}) == [1, 2, 3]
    assert error_of({"list_concat": [[1], 2]}).endswith(
        "Incorrect arguments: Items to concat must be lists. [[1], 2] contains an item that is "
        "not a list: 2")


def test_contains():
    assert evaluate({"contains": ["a", "cat"]}) is True
    assert evaluate({"contains": [3, [1, 2]]}) is False
    # Heat: 'Second argument to "contains" should be a sequence.'
    assert error_of({"contains": ["a", 5]}).endswith(
        'Second argument to "contains" should be a sequence.')


@pytest.mark.parametrize("name", ["filter", "list_concat", "list_concat_unique", "contains"])
def test_list_functions_absent_before_their_version(name):
    assert evaluate({name: [[1], [1]]}, "2016-10-14") == {name: [[1], [1]]}

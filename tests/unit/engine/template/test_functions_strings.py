"""Tests of the string functions; expected values marked 'Heat' came from Heat 27.0.1."""

import pytest

from hearth.common import exception
from tests.unit.engine.template.fakes import evaluate

OLD, NEW = "2015-04-30", "2021-04-16"


def error_of(snippet, date=NEW):
    with pytest.raises(exception.StackValidationFailed) as info:
        evaluate(snippet, date)
    return str(info.value)


# --- str_replace -----------------------------------------------------------

def test_str_replace_longest_key_first_in_one_pass():
    # Heat: {ab: X, abc: Y, b: Z} on 'abcabc' gives 'YY'
    snippet = {"str_replace": {"template": "abcabc", "params": {"ab": "X", "abc": "Y", "b": "Z"}}}
    assert evaluate(snippet) == "YY"


def test_str_replace_numbers_and_none():
    snippet = {"str_replace": {"template": "a-b-c", "params": {"a": 1, "b": None, "c": True}}}
    assert evaluate(snippet, OLD) == "1--True"


def test_str_replace_json_values_from_2015_10_15():
    # Heat: params {a: [1, {z: 1, y: 2}], b: null} on 'a-b'
    snippet = {"str_replace": {"template": "a-b", "params": {"a": [1, {"z": 1, "y": 2}],
                                                             "b": None}}}
    assert evaluate(snippet) == '[1, {"y": 2, "z": 1}]-'


def test_str_replace_list_value_before_2015_10_15():
    # Heat: '"str_replace" params must be strings or numbers, param a is not valid'
    snippet = {"str_replace": {"template": "a", "params": {"a": [1]}}}
    assert error_of(snippet, OLD) == ('outputs.o.value: str_replace: "str_replace" params must '
                                      'be strings or numbers, param a is not valid')


def test_str_replace_params_must_be_a_map():
    # Heat (validation): '"str_replace" parameters must be a mapping'
    snippet = {"str_replace": {"template": "a", "params": [1]}}
    assert error_of(snippet).endswith('str_replace: "str_replace" parameters must be a mapping')


def test_str_replace_template_must_be_a_string():
    snippet = {"str_replace": {"template": [1], "params": {"a": "b"}}}
    assert error_of(snippet).endswith('"str_replace" template must be a string')


def test_str_replace_shape():
    assert error_of({"str_replace": "x"}).endswith(
        'Arguments to "str_replace" must be a map: {"template": string, "params": '
        '{placeholder: value, ...}}')
    assert "has unknown arguments: extra" in error_of(
        {"str_replace": {"template": "a", "params": {}, "extra": 1}})


def test_str_replace_strict_missing_param():
    # Heat: 'The following params were not found in the template: x'
    snippet = {"str_replace_strict": {"template": "abc", "params": {"x": "y"}}}
    assert error_of(snippet).endswith("The following params were not found in the template: x")
    snippet["str_replace_strict"]["params"] = {"a": ""}
    assert evaluate(snippet) == "bc"


def test_str_replace_vstrict_empty_value():
    # Heat: 'str_replace_vstrict has an undefined or empty value for param a, ...'
    snippet = {"str_replace_vstrict": {"template": "abc", "params": {"a": ""}}}
    assert error_of(snippet).endswith("str_replace_vstrict has an undefined or empty value for "
                                      "param a, must be a defined non-empty value")
    snippet["str_replace_vstrict"]["params"] = {"a": 0}
    assert evaluate(snippet) == "0bc"


# --- list_join -------------------------------------------------------------

def test_list_join_single_list():
    assert evaluate({"list_join": [",", ["a", None, "b"]]}, OLD) == "a,,b"


def test_list_join_several_lists_before_2015_10_15():
    # Heat: 'Incorrect arguments to "list_join" should be: "list_join" : [ " ", [ "str1", "str2"]]'
    assert error_of({"list_join": [",", ["a"], ["b"]]}, OLD).endswith(
        'Incorrect arguments to "list_join" should be: "list_join" : [ " ", [ "str1", "str2"]]')


def test_list_join_non_string_item_before_2015_10_15():
    # Heat: 'Items to join must be strings not 1'
    assert error_of({"list_join": [",", ["a", 1]]}, "2013-05-23").endswith(
        "Items to join must be strings not 1")


def test_list_join_multiple_lists_and_json_items():
    # Heat: [',', [a, {z: 1}], [[1]]] gives 'a,{"z": 1},[1]'
    assert evaluate({"list_join": [",", ["a", {"z": 1}], [[1]]]}) == 'a,{"z": 1},[1]'


def test_list_join_number_item_refused():
    assert error_of({"list_join": [",", ["a", 1]]}).endswith(
        "Items to join must be string, map or list not 1")


def test_list_join_needs_lists():
    # Heat: '"list_join" must operate on a list'
    assert error_of({"list_join": [",", "abc"]}).endswith('"list_join" must operate on a list')
    assert error_of({"list_join": [1, ["a"]]}).endswith(
        'Delimiter for "list_join" must be a string')


# --- str_split -------------------------------------------------------------

def test_str_split_forms():
    assert evaluate({"str_split": [",", "a,b"]}) == ["a", "b"]
    assert evaluate({"str_split": [",", "a,b", 1]}) == "b"
    assert evaluate({"str_split": [",", "a,b", "0"]}) == "a"
    assert evaluate({"str_split": [",", None]}) is None


@pytest.mark.parametrize("args, message", [
    # all four messages: Heat 27.0.1
    ([",", "a,b", 5], 'Incorrect index to "str_split" should be between 0 and 1'),
    (["", "abc"], "empty separator"),
    ([",", 5], "'int' object has no attribute 'split'"),
    ([","], 'Incorrect arguments to "str_split" should be: "str_split" : [ ",", '
            '"apples,pears", <index>]'),
])
def test_str_split_errors(args, message):
    assert error_of({"str_split": args}) == f"outputs.o.value: str_split: {message}"


def test_str_split_absent_before_2015_10_15():
    assert evaluate({"str_split": [",", "a"]}, OLD) == {"str_split": [",", "a"]}


# --- digest ----------------------------------------------------------------

def test_digest():
    # Heat: sha256 of 'abc'
    assert evaluate({"digest": ["sha256", "abc"]}) == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")


def test_digest_errors():
    assert "Algorithm must be one of {" in error_of({"digest": ["nope", "abc"]})
    assert error_of({"digest": ["sha256", 1]}).endswith("The value to digest must be a string")
    assert error_of({"digest": ["sha256"]}).endswith(
        'Arguments to "digest" must be of the form: [algorithm, value]')


# --- make_url --------------------------------------------------------------

def test_make_url_escapes_and_brackets_ipv6():
    snippet = {"make_url": {"scheme": "http", "host": "fe80::1", "port": 80, "path": "/a b",
                            "query": {"a": 1, "x": "y z"}, "fragment": "f"}}
    assert evaluate(snippet) == "http://[fe80::1]:80/a%20b?a=1&x=y+z#f"


def test_make_url_keeps_the_query_in_the_order_given():
    # Heat url-encodes the query map as it is (urlencode of the map): no sorting
    snippet = {"make_url": {"scheme": "https", "host": "h", "path": "/",
                            "query": {"q": "x y", "n": "1", "b": "2"}}}
    assert evaluate(snippet) == "https://h/?q=x+y&n=1&b=2"


def test_make_url_user_and_password():
    snippet = {"make_url": {"scheme": "https", "username": "u@x", "password": "p",
                            "host": "example.com", "path": "/"}}
    assert evaluate(snippet) == "https://u%40x:p@example.com/"


@pytest.mark.parametrize("args, message", [
    # Heat 27.0.1 messages
    ({"scheme": "http", "host": "h", "port": 70000}, "Invalid URL port 70000, must be in range "
                                                     "1-65535"),
    ({"scheme": "http", "hots": "h"}, 'Invalid arguments to "make_url": hots'),
    ({"scheme": "ht:tp", "host": "h"}, "URL \"scheme\" should not contain ':'"),
    ({"host": "h", "port": "abc"}, "Invalid URL port \"abc\" for make_url called with "
                                   "{'host': 'h', 'port': 'abc'}"),
    ({"host": "h", "query": [1]}, 'Invalid URL "query" for make_url: must be a map'),
])
def test_make_url_errors(args, message):
    assert error_of({"make_url": args}) == f"outputs.o.value: make_url: {message}"
    assert "must be a map" in error_of({"make_url": [1]})

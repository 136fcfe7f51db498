"""Query-string parsing: typed values, unknown keys and bad values."""

import pytest

from hearth.api import params
from hearth.common import exception


def test_typed_values_and_repeatable_keys():
    query = params.parse_query(params.STACK_LIST,
                               "limit=5&with_count=True&sort_keys=stack_name"
                               "&sort_keys=creation_time&name=a&name=b&status=COMPLETE"
                               "&tags=x,%20y")
    assert query == {"limit": 5, "with_count": True,
                     "sort_keys": ["stack_name", "creation_time"], "name": ["a", "b"],
                     "status": "COMPLETE", "tags": ["x", "y"]}
    assert params.split_filters(query, params.STACK_LIST) == {"name": ["a", "b"],
                                                              "status": "COMPLETE"}


def test_unknown_key_is_ignored_as_heat_does():
    assert params.parse_query(params.STACK_SHOW, "resolve_outputs=false&bogus=1") \
        == {"resolve_outputs": False}
    assert params.parse_query(params.NONE, "x=") == {}


def test_strict_spec_refuses_unknown_keys_with_the_accepted_ones():
    with pytest.raises(exception.BadRequest) as info:
        params.parse_query(params.RESOURCE_LIST, "with_detail=true&bogus=1")
    assert str(info.value) == (
        "Invalid query parameter(s): bogus. Accepted: action, id, name, nested_depth, "
        "physical_resource_id, status, type, with_detail.")


@pytest.mark.parametrize(("query", "message"), [
    ("with_detail=maybe", 'Unrecognized value "maybe" for "with_detail", acceptable values '
                          "are: true, false."),
    ("with_detail=", 'Unrecognized value "" for "with_detail", acceptable values '
                     "are: true, false."),
    ("nested_depth=two", "Only integer is acceptable by 'nested_depth'."),
    ("nested_depth=-1", "Value '-1' is invalid for 'nested_depth' which only accepts "
                        "non-negative integer."),
])
def test_bad_values(query, message):
    with pytest.raises(exception.BadRequest) as info:
        params.parse_query(params.RESOURCE_LIST, query)
    assert str(info.value) == message


def test_a_scalar_key_repeated_takes_its_last_value():
    # heatclient re-sends its query to the Location of a 302, which already has it
    query = params.parse_query(params.STACK_SHOW, "resolve_outputs=False&resolve_outputs=False")
    assert query == {"resolve_outputs": False}
    assert params.parse_query(params.STACK_LIST, "limit=1&limit=7") == {"limit": 7}


def test_blank_value_is_the_key_not_given_unless_heat_reads_it():
    assert params.parse_query(params.STACK_LIST, "limit=&show_nested=&with_count=") == {}
    with pytest.raises(exception.BadRequest):
        params.parse_query(params.STACK_LIST, "global_tenant=")
    with pytest.raises(exception.BadRequest):
        params.parse_query(params.STACK_SHOW, "resolve_outputs=")


def test_sort_keys_not_allowed_are_dropped_and_choices_may_ignore_case():
    assert params.parse_query(params.STACK_LIST, "sort_keys=bogus&sort_keys=stack_name") \
        == {"sort_keys": ["stack_name"]}
    assert params.parse_query(params.TYPE_TEMPLATE, "template_type=HOT") \
        == {"template_type": "hot"}


def test_choices_are_checked():
    with pytest.raises(exception.BadRequest) as info:
        params.parse_query(params.STACK_LIST, "sort_dir=up")
    assert str(info.value) == "Invalid value 'up' for 'sort_dir', acceptable values are: asc, desc"


def test_lookup_spec_accepts_anything():
    assert params.parse_query(params.ANY, "a=1&b=2") == {"a": "1", "b": "2"}

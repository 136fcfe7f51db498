"""The update plan's decision per resource: replaced, updated or unchanged (as Heat decides).

A resource is compared with the properties its last action stored, not
with its old definition resolved now: a property reading another resource
(``get_attr``) changes when only what it reads changed.
"""

import pytest

from hearth.engine import properties, resource
from hearth.engine.resources import stored_properties
from hearth.engine.update import plan
from tests.unit.engine.resource_helpers import Definition, FakeStack, GetAttr


class Reader(resource.Resource):
    """A type with a property updated in place and one that needs a replacement."""

    properties_schema = {
        "value": properties.Schema(properties.STRING, update_allowed=True),
        "fixed": properties.Schema(properties.STRING),
    }


def created(props):
    """Return a created Reader of ``props`` whose properties were stored by its create."""
    reader = Reader("reader", Definition("reader", "Test::Reader", props), FakeStack())
    reader.db_id = 1
    stored_properties.keep(reader)
    reader.state_set("CREATE", "COMPLETE")
    return reader


def definition(props):
    return Definition("reader", "Test::Reader", props)


def test_an_attribute_that_changed_updates_the_reader():
    other = GetAttr("other", "one")
    reader = created({"value": other})
    other.value = "two"  # only what the property reads changed
    assert plan.change_of(reader, definition({"value": GetAttr("other", "two")})) == plan.UPDATED


def test_an_attribute_that_changed_replaces_a_reader_that_cannot_take_it_in_place():
    reader = created({"fixed": GetAttr("other", "one")})
    assert plan.change_of(reader, definition({"fixed": GetAttr("other", "two")})) == plan.REPLACED


def test_the_same_values_leave_the_reader_unchanged():
    reader = created({"value": GetAttr("other", "one")})
    assert plan.change_of(reader, definition({"value": GetAttr("other", "one")})) \
        == plan.UNCHANGED


def test_the_comparison_is_with_the_stored_values_not_the_old_definition_now():
    other = GetAttr("other", "one")
    reader = created({"value": other})
    other.value = "two"  # the old definition, resolved now, reads the new value too
    assert plan.change_of(reader, definition({"value": other})) == plan.UPDATED


def test_without_stored_values_the_old_definition_is_resolved_now():
    other = GetAttr("other", "one")
    reader = created({"value": other})
    reader.stored_properties = None  # stored by no action (an engine before this one)
    other.value = "two"
    assert plan.change_of(reader, definition({"value": other})) == plan.UNCHANGED


def test_values_compare_as_the_database_gives_them_back():
    reader = created({"value": "x", "fixed": None})
    reader.stored_properties.values = {"value": "x", "fixed": None}
    assert plan.change_of(reader, definition({"value": "x", "fixed": None})) == plan.UNCHANGED
    listed = created({"value": GetAttr("other", ("a", 1))})
    assert listed.stored_properties.values == {"value": ["a", 1]}  # JSON: a tuple is a list
    assert plan.change_of(listed, definition({"value": GetAttr("other", ("a", 1))})) \
        == plan.UNCHANGED


@pytest.mark.parametrize("state", [("CREATE", "FAILED"), ("INIT", "COMPLETE")])
def test_a_failed_or_never_made_resource_is_replaced(state):
    reader = created({"value": "x"})
    reader.state_set(*state)
    assert plan.change_of(reader, definition({"value": "x"})) == plan.REPLACED


def test_classify_sorts_names_by_change():
    other = GetAttr("other", "one")
    current = {"same": created({"value": "x"}), "reads": created({"value": other}),
               "gone": created({})}
    other.value = "two"
    changes = plan.classify(current, {"same": definition({"value": "x"}),
                                      "reads": definition({"value": other}),
                                      "new": definition({})})
    assert changes == {"added": ["new"], "deleted": ["gone"], "replaced": [],
                       "updated": ["reads"], "unchanged": ["same"]}

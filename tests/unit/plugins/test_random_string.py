"""Tests of OS::Heat::RandomString."""

import string

import pytest

from hearth.common import exception
from hearth.plugins import random_string
from hearth.plugins.random_string import RandomString
from tests.unit.engine.resource_helpers import Definition, make


def create(props):
    res = make(RandomString, props)
    res.validate()
    res.state_set("CREATE", "IN_PROGRESS")
    res.handle_create()
    return res


def test_default_is_32_letters_and_digits_stored_redacted():
    res = create({})
    value = res.FnGetAtt("value")
    assert len(value) == 32 and set(value) <= set(string.ascii_letters + string.digits)
    assert res.stack.store.redacted[res.uuid] == {"value"}
    assert res.FnGetRefId() == value


def test_reference_before_create_is_the_name():
    assert make(RandomString, {}).FnGetRefId() == "web"


def test_minimums_of_classes_and_sequences():
    res = create({"length": 10, "character_classes": [{"class": "digits", "min": 4}],
                  "character_sequences": [{"sequence": "!@", "min": 3}]})
    value = res.FnGetAtt("value")
    assert len(value) == 10 and set(value) <= set(string.digits + "!@")
    assert sum(c in "!@" for c in value) >= 3 and sum(c.isdigit() for c in value) >= 4


def test_hidden_sequence_property_still_works():
    value = create({"sequence": "octdigits", "length": 50}).FnGetAtt("value")
    assert set(value) <= set(string.octdigits)


def test_sum_of_minimums_must_fit_the_length():
    res = make(RandomString, {"length": 3, "character_classes": [{"class": "digits", "min": 2}],
                              "character_sequences": [{"sequence": "ab", "min": 2}]})
    with pytest.raises(exception.StackValidationFailed) as info:
        res.validate()
    assert str(info.value) == (
        "Property error: web.properties.length: Length property cannot be smaller than "
        "combined character class and character sequence minimums")


@pytest.mark.parametrize("props, message", [
    ({"length": 0}, "web.properties.length: 0 is out of range (min: 1, max: 512)"),
    ({"character_classes": [{"class": "emoji"}]},
     'web.properties.character_classes.0.class: "emoji" is not an allowed value '
     '["lettersdigits", "letters", "lowercase", "uppercase", "digits", "hexdigits", '
     '"octdigits"]'),
    ({"character_sequences": [{"min": 1}]},
     "web.properties.character_sequences.0: Property sequence not assigned"),
])
def test_property_errors(props, message):
    with pytest.raises(exception.StackValidationFailed) as info:
        make(RandomString, props).validate()
    assert str(info.value) == f"Property error: {message}"


def test_any_change_replaces():
    res = make(RandomString, {"salt": "a"})
    with pytest.raises(exception.UpdateReplace):
        res.update_diffs(Definition("web", "OS::Heat::RandomString", {"salt": "b"}))


def test_generate_uses_every_pool():
    value = random_string.generate(2, [("a", 1), ("b", 1)])
    assert sorted(value) == ["a", "b"]

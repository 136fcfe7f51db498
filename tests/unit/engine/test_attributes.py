"""Tests of hearth.engine.attributes."""

import logging

import pytest

from hearth.common import exception
from hearth.engine import attributes
from hearth.engine.attributes import Attributes, Schema


def test_schema_to_dict_and_errors():
    assert Schema("D.", type=Schema.STRING).to_dict() == {"description": "D.", "type": "string"}
    assert Schema().to_dict() == {}
    with pytest.raises(exception.InvalidSchemaError) as info:
        Schema(type="Str")
    assert str(info.value) == "Invalid type (Str)"
    with pytest.raises(exception.InvalidSchemaError) as info:
        Schema(cache_mode="forever")
    assert str(info.value) == "Invalid cache mode (forever)"


def test_as_output():
    schema = Schema("D.")
    assert schema.as_output("r", "a") == {"value": {"get_attr": ["r", "a"]}, "description": "D."}
    assert schema.as_output("r", "a", "cfn") == {"Value": {"Fn::GetAtt": ["r", "a"]},
                                                  "Description": "D."}


def test_every_resource_has_show():
    attrs = Attributes("web", {}, lambda name: {"id": 1})
    assert list(attrs) == ["show"] and len(attrs) == 1 and "show" in attrs
    assert attrs["show"] == {"id": 1}


def test_unknown_attribute():
    with pytest.raises(KeyError) as info:
        Attributes("web", {}, lambda name: None)["nope"]
    assert info.value.args[0] == "web: Invalid attribute nope"


def test_cache_local_and_cache_none():
    calls = []

    def resolver(name):
        calls.append(name)
        return len(calls)

    attrs = Attributes("web", {"a": Schema(), "b": Schema(cache_mode=Schema.CACHE_NONE)},
                       resolver)
    assert (attrs["a"], attrs["a"], attrs["b"], attrs["b"]) == (1, 1, 2, 3)
    attrs.reset()
    assert attrs["a"] == 4


def test_none_is_not_cached():
    values = iter([None, "x"])
    attrs = Attributes("web", {"a": Schema()}, lambda name: next(values))
    assert attrs["a"] is None and attrs["a"] == "x"


def test_type_mismatch_only_warns(caplog):
    attrs = Attributes("web", {"a": Schema(type=Schema.INTEGER)}, lambda name: "x")
    with caplog.at_level(logging.WARNING):
        assert attrs["a"] == "x"
    assert "Resource web: attribute a is not of type Integer" in caplog.text


@pytest.mark.parametrize("path, expected", [
    ([], {"a": [1, {"b": 2}]}), (["a", 1, "b"], 2), (["a", "1", "b"], 2), (["a", 5], None),
    (["x"], None), (["a", 0, "c"], None), (["a", "z"], None), (["a", True], None)])
def test_select_from_attribute(path, expected):
    assert attributes.select_from_attribute({"a": [1, {"b": 2}]}, path) == expected


def test_get_path():
    attrs = Attributes("web", {"a": Schema()}, lambda name: {"k": ["v"]})
    assert attrs.get_path("a", ["k", 0]) == "v"

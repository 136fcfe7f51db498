"""What get_attr of a group reads from its members."""

from __future__ import annotations

import pytest

from hearth.common import exception
from hearth.plugins._group import attributes


class Members:
    """Members "0" and "1" with ids and a ``show`` attribute; others are absent."""

    data = {"0": {"id": "id-0", "attrs": {"out": "a", "map": {"k": 1}}},
            "1": {"id": "id-1", "attrs": {"out": "b", "map": {"k": 2}}}}

    def _member(self, name):
        if name not in self.data:
            raise attributes.member_not_found(name, "group")
        return self.data[name]

    def reference(self, name):
        return self._member(name)["id"]

    def attribute(self, name, attr, *path):
        value = self._member(name)["attrs"].get(attr)
        for key in path:
            value = value[key]
        return value


def read(key, *path):
    return attributes.read("group", key, list(path), ["0", "1"], Members())


def test_refs_and_refs_map_are_the_members_references():
    assert read("refs") == ["id-0", "id-1"]
    assert read("refs", 1) == "id-1"
    assert read("refs_map") == {"0": "id-0", "1": "id-1"}


def test_attributes_maps_names_to_the_attribute_of_the_path():
    assert read("attributes", "out") == {"0": "a", "1": "b"}
    with pytest.raises(exception.InvalidTemplateAttribute,
                       match=r"The Referenced Attribute \(group attributes\) is incorrect."):
        read("attributes")


def test_member_attributes_reach_one_member():
    assert read("resource.1") == "id-1"
    assert read("resource.0.out") == "a"
    assert read("resource.0", "out") == "a"
    assert read("resource.1.map", "k") == 2
    with pytest.raises(exception.NotFound,
                       match="Member '7' not found in group resource 'group'."):
        read("resource.7.out")


def test_any_other_name_lists_that_attribute_over_the_members():
    assert read("out") == ["a", "b"]
    assert read("map", "k") == [1, 2]

"""A scaling group's members: random short names, Heat's next-shape rule, the template."""

from __future__ import annotations

import re

from hearth.engine.scaling import members

OLD = {"type": "OS::Heat::None"}
NEW = {"type": "OS::Heat::RandomString", "properties": {"length": 8}}


def names(prefix="n"):
    counter = iter(range(100))
    return lambda taken: f"{prefix}{next(counter)}"


def test_member_names_are_heats_short_ids_and_avoid_taken_ones():
    name = members.new_member_name()
    assert re.fullmatch(r"[a-z2-7]{12}", name)
    assert members.new_member_name({name}) != name


def test_member_definition_drops_empty_parts():
    assert members.member_definition({"type": "T", "properties": {}, "metadata": None}) == {
        "type": "T"}
    assert members.member_definition({"type": "T", "properties": {"a": 1}}) == {
        "type": "T", "properties": {"a": 1}}


def test_growing_keeps_the_old_and_names_the_new():
    old = [("a", OLD), ("b", OLD)]
    shape = members.member_definitions(old, OLD, 4, 2, names())
    assert shape == [("a", OLD), ("b", OLD), ("n0", OLD), ("n1", OLD)]


def test_shrinking_removes_the_first_in_order():
    old = [("failed", OLD), ("oldest", OLD), ("newer", OLD)]
    assert members.member_definitions(old, OLD, 1, 0, names()) == [("newer", OLD)]
    assert members.member_definitions(old, OLD, 0, 0, names()) == []


def test_rolling_batch_replaces_the_first_members_only():
    old = [("a", OLD), ("b", OLD), ("c", OLD)]
    assert members.member_definitions(old, NEW, 3, 2, names()) == [
        ("a", NEW), ("b", NEW), ("c", OLD)]
    # growing by one in the same batch: the new member counts first
    assert members.member_definitions(old, NEW, 4, 2, names()) == [
        ("a", NEW), ("b", OLD), ("c", OLD), ("n0", NEW)]
    # members that already have the new definition do not use up the batch
    assert members.member_definitions([("a", NEW), ("b", OLD)], NEW, 2, 1, names()) == [
        ("a", NEW), ("b", NEW)]


def test_order_key_puts_failed_then_oldest_first():
    rows = [("COMPLETE", "2026-01-02", "x"), ("FAILED", "2026-01-03", "y"),
            ("COMPLETE", "2026-01-01", "z"), ("COMPLETE", "2026-01-01", "a")]
    ordered = sorted(rows, key=lambda row: members.member_order_key(*row))
    assert [name for _, _, name in ordered] == ["y", "a", "z", "x"]


def test_nested_template_has_the_members_and_refs_map():
    template = members.nested_template([("a", OLD), ("b", NEW)])
    assert template == {
        "heat_template_version": "2015-04-30",
        "resources": {"a": OLD, "b": NEW},
        "outputs": {"refs_map": {"value": {"a": {"get_resource": "a"},
                                           "b": {"get_resource": "b"}}}},
    }

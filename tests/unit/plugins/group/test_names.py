"""A group's member names, its stored skip-list and the removal policies feeding it."""

from __future__ import annotations

from hearth.plugins._group import names


def test_member_names_are_indices_skipping_the_skiplist():
    assert names.member_names(3) == ["0", "1", "2"]
    assert names.member_names(3, {"1", "3"}) == ["0", "2", "4"]
    assert names.member_names(0, {"0"}) == []


def test_skiplist_is_stored_sorted_and_comma_separated_as_heat():
    assert names.format_skiplist({"10", "2", "1"}) == "1,10,2"
    assert names.parse_skiplist("1,10,2") == ["1", "10", "2"]
    assert names.parse_skiplist(None) == names.parse_skiplist("") == []


def test_removal_names_are_taken_as_names_before_the_nested_stack_exists():
    policies = [{"resource_list": ["1", 2]}, {"resource_list": []}, {}]
    assert list(names.removed_names(policies, set(), None, dict)) == ["1", "2"]


def test_removal_by_reference_id_finds_the_member_holding_it():
    refs = {"0": "id-a", "1": "id-b", "2": "id-c"}
    calls = []

    def refs_map():
        calls.append(1)
        return refs

    policies = [{"resource_list": ["id-c", "0", "unknown", 7, "5"]}]
    removed = list(names.removed_names(policies, {"5"}, {"0", "1", "2"}, refs_map))
    # "0" is a member, "5" already skipped, "id-c" is member 2's id; 7 and "unknown" name nothing
    assert removed == ["2", "0", "5"]
    assert len(calls) == 1  # the references are read once, only when needed


def test_append_mode_keeps_old_removals_and_update_mode_replaces_them():
    assert names.next_skiplist(["1"], names.APPEND, ["3"]) == {"1", "3"}
    assert names.next_skiplist(["1"], None, []) == {"1"}
    assert names.next_skiplist(["1"], names.UPDATE, ["3"]) == {"3"}
    assert names.next_skiplist(["1"], names.UPDATE, []) == set()


def test_count_skipped_counts_existing_members_only():
    assert names.count_skipped(["1", "7"], ["0", "1", "2"]) == 1

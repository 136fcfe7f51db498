"""Nodegroup expansion: nesting, Salt's plain-word lists, cycles and unknown names."""

import pytest

from hearth.agent.targeting.nodegroups import NodegroupError, expand_nodegroup
from tests.unit.agent.targeting.agents import NODEGROUPS


@pytest.mark.parametrize(("name", "words"), [
    ("webs", ["(", "web*", ")"]),
    ("names", ["(", "L@db1,web2", ")"]),
    ("names_str", ["(", "L@db1,web2", ")"]),
    ("webs_or_dbs", ["(", "(", "web*", ")", "or", "(", "G@roles:db", ")", ")"]),
    ("deep", ["(", "(", "(", "web*", ")", "and", "(", "I@env:prod", ")", ")", "or", "cache*",
              ")"]),
])
def test_expansion(name, words):
    assert expand_nodegroup(name, NODEGROUPS) == words


def test_plain_words_with_regex_characters_are_a_regex():
    assert expand_nodegroup("g", {"g": "web[12] db1"}) == ["(", "E@web[12],db1", ")"]


def test_a_group_used_twice_is_not_a_cycle():
    groups = {"a": "N@b and N@b", "b": "x*"}
    assert expand_nodegroup("a", groups) == ["(", "(", "x*", ")", "and", "(", "x*", ")", ")"]


@pytest.mark.parametrize(("groups", "name", "message"), [
    ({"a": "N@a"}, "a", "nodegroups refer to each other in a cycle: a -> a"),
    ({"a": "x or N@b", "b": "N@c", "c": "N@b"}, "a",
     "nodegroups refer to each other in a cycle: b -> c -> b"),
    ({"a": "N@wbs", "webs": "web*"}, "a",
     "unknown nodegroup 'wbs' (used by nodegroup 'a'); known: a, webs. Did you mean \"webs\"?"),
    ({}, "a", "unknown nodegroup 'a'; known: none are configured."),
    ({"a": 3}, "a", "nodegroup 'a' must be a string or a list, not int"),
    ({"a": "  "}, "a", "nodegroup 'a' is empty"),
])
def test_errors_name_the_groups(groups, name, message):
    with pytest.raises(NodegroupError) as caught:
        expand_nodegroup(name, groups)
    assert str(caught.value) == message

"""Salt's ``key:value`` matching on nested grains and pillar data.

The expected answers were recorded from Salt 3008.3's
``salt.utils.data.subdict_match`` with the same ``DATA``.
"""

import pytest

from hearth.agent.targeting.nested import lookup_path, match_nested

DATA = {
    "os": "Ubuntu",
    "roles": ["web", {"tier": "front"}],
    "ec2": {"tags": {"env": "prod"}},
    "ports": {80: "http", 1.5: "odd"},
    "flag": True,
    "colon": "a:b",
    "empty": {},
}


@pytest.mark.parametrize(("expression", "mode", "expected"), [
    ("os:ubuntu", "glob", True),          # values compare lower-cased
    ("os:UBUNTU", "exact", True),
    ("os:ubu", "exact", False),
    ("os:ub", "pcre", True),              # re.match: anchored at the start only
    ("os:buntu", "pcre", False),
    ("roles:web", "glob", True),          # any list member
    ("roles:tier:front", "glob", True),   # mappings inside lists are searched
    ("roles:tier", "glob", True),
    ("roles:1:tier:front", "glob", True),  # a numeric segment indexes the list
    ("ec2:tags:env:p*", "glob", True),
    ("ec2:tags:env", "glob", True),       # a key of the mapping
    ("ec2:*:env:prod", "glob", True),     # '*:' searches inside the mapping's values
    ("ec2:*:tags", "glob", True),
    ("ec2:*:prod", "glob", False),        # ... one level down only
    ("*:*:prod", "glob", False),
    ("ports:80:http", "glob", True),      # keys that are numbers
    ("ports:1.5:odd", "glob", True),
    ("flag:true", "glob", True),
    ("colon:a:b", "glob", True),          # the value may hold the delimiter
    ("empty:*", "glob", False),           # an empty mapping counts as missing, as in Salt
    ("nosuch:x", "glob", False),
    ("os:x:y", "glob", False),
])
def test_match_nested(expression, mode, expected):
    assert match_nested(DATA, expression, ":", mode) is expected


def test_other_delimiter():
    assert match_nested(DATA, "ec2;tags;env;prod", ";", "glob")
    assert not match_nested(DATA, "ec2:tags:env:prod", ";", "glob")


def test_lookup_path_missing_is_not_none():
    assert lookup_path({"a": None}, ["a"]) is None
    assert lookup_path({"a": None}, ["b"]) is not None
    assert lookup_path({"a": "text"}, ["a", "0"]) is not None

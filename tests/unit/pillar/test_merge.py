"""The merge strategies, one by one (the Salt figures are in tests/functional/pillar)."""

import pytest

from hearth.common import exception
from hearth.pillar.merge import merge, strategy_for

OLD = {"db": {"ports": [1], "host": "a", "creds": {"user": "u"}}, "keep": 1}
NEW = {"db": {"ports": [2, 1], "creds": {"password": "p"}}, "new": 2}


@pytest.mark.parametrize(("strategy", "merge_lists", "expected"), [
    ("recurse", False, {"db": {"ports": [2, 1], "host": "a",
                               "creds": {"user": "u", "password": "p"}}, "keep": 1, "new": 2}),
    ("recurse", True, {"db": {"ports": [1, 2], "host": "a",
                              "creds": {"user": "u", "password": "p"}}, "keep": 1, "new": 2}),
    ("smart", False, {"db": {"ports": [2, 1], "host": "a",
                             "creds": {"user": "u", "password": "p"}}, "keep": 1, "new": 2}),
    ("overwrite", False, {"db": {"ports": [2, 1], "creds": {"password": "p"}}, "keep": 1,
                          "new": 2}),
    ("aggregate", False, {"db": {"ports": [2, 1], "creds": {"password": "p"}}, "keep": 1,
                          "new": 2}),
    ("none", True, {"db": {"ports": [2, 1], "host": "a",
                           "creds": {"user": "u", "password": "p"}}, "keep": 1, "new": 2}),
])
def test_strategy(strategy, merge_lists, expected):
    before = repr(OLD), repr(NEW)
    assert merge(OLD, NEW, strategy, merge_lists) == expected
    assert (repr(OLD), repr(NEW)) == before  # inputs are never changed


def test_smart_aggregates_for_yamlex():
    assert strategy_for("smart", "jinja|yamlex").__name__ == "merge_aggregate"


def test_unknown_strategy_names_the_choices():
    with pytest.raises(exception.PillarConfigError) as caught:
        strategy_for("recurce")
    assert str(caught.value) == ("Unknown pillar_source_merging_strategy 'recurce'; use one of "
                                 "smart, recurse, overwrite, aggregate, none. "
                                 'Did you mean "recurse"?')

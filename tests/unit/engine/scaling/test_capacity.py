"""The new size of a scaling group: Heat's three adjustment types, step and bounds."""

from __future__ import annotations

import pytest

from hearth.engine.scaling import capacity


@pytest.mark.parametrize(("current", "adjustment", "kind", "expected"), [
    (3, 1, "change_in_capacity", 4),
    (3, -2, "change_in_capacity", 1),
    (3, 7, "exact_capacity", 7),
    (3, 0, "exact_capacity", 1),            # kept at the minimum
    (3, 50, "change_in_capacity", 10),      # kept at the maximum
    (3, 2, "ChangeInCapacity", 5),          # CloudFormation synonyms
    (3, 4, "ExactCapacity", 4),
    (4, 50, "PercentChangeInCapacity", 6),
])
def test_change_and_exact(current, adjustment, kind, expected):
    assert capacity.new_capacity(current, adjustment, kind, None, 1, 10) == expected


@pytest.mark.parametrize(("current", "percent", "expected"), [
    (4, 10, 5),     # 0.4 of a member rounds up: any growth moves the group
    (4, -10, 3),    # -0.4 rounds down
    (5, 50, 7),     # 2.5 rounds towards zero above one member
    (5, -50, 3),    # -2.5 rounds towards zero
    (10, 33, 13),   # 3.3 -> 3
    (0, 50, 1),     # 0 of an empty group: no change, then the minimum
])
def test_percent_rounding(current, percent, expected):
    assert capacity.new_capacity(current, percent, "percent_change_in_capacity",
                                 None, 1, 20) == expected


def test_min_adjustment_step_raises_small_changes_keeping_the_sign():
    percent = "percent_change_in_capacity"
    assert capacity.new_capacity(10, 10, percent, 3, 0, 20) == 13   # 1 -> 3
    assert capacity.new_capacity(10, -10, percent, 3, 0, 20) == 7   # -1 -> -3
    assert capacity.new_capacity(10, 50, percent, 3, 0, 20) == 15   # 5 > 3: kept
    assert capacity.new_capacity(10, 10, percent, 0, 0, 20) == 11   # 0: no step


def test_bounds_checked_maximum_first_as_heat():
    assert capacity.new_capacity(4, 1, "change_in_capacity", None, 5, 3) == 3


def test_unknown_type_is_named():
    with pytest.raises(ValueError, match="Unknown adjustment type 'sideways'"):
        capacity.new_capacity(1, 1, "sideways", None, 0, 5)

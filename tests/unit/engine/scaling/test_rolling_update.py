"""Batches of a rolling update: sizes and new members per batch, pauses against the timeout."""

from __future__ import annotations

import pytest

from hearth.engine.scaling import rolling_update
from hearth.engine.scaling.rolling_update import Batch


def test_one_at_a_time_with_nothing_kept_in_service():
    assert list(rolling_update.batches(3, 3, 1, 0)) == [Batch(3, 1)] * 3


def test_batches_of_two_keeping_two_in_service_grow_then_shrink_back():
    # (Heat's _get_batches gives the same sequence for these inputs)
    assert list(rolling_update.batches(4, 4, 2, 3)) == [
        Batch(5, 2), Batch(5, 2), Batch(4, 0)]


def test_min_in_service_above_the_size_is_capped():
    assert list(rolling_update.batches(2, 2, 1, 10)) == [Batch(3, 1), Batch(3, 1), Batch(2, 0)]


def test_large_batch_replaces_everything_at_once():
    assert list(rolling_update.batches(3, 3, 5, 0)) == [Batch(3, 3)]


def test_empty_group_needs_nothing():
    assert list(rolling_update.batches(0, 0, 1, 0)) == []


def test_more_up_to_date_than_members_is_a_bug():
    with pytest.raises(ValueError, match="4 members up to date in a group of 3"):
        rolling_update.next_batch(3, 3, 4, 1, 0)


def test_pauses_must_leave_time_for_the_updates():
    assert rolling_update.check_pauses_fit(3, 10, 3600) == 3580
    assert rolling_update.check_pauses_fit(1, 5000, 3600) == 3600
    with pytest.raises(ValueError, match="^The current update policy will result in stack "
                                         "update timeout.$"):
        rolling_update.check_pauses_fit(4, 1200, 3600)

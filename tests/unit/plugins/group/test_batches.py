"""Batches of a group's rolling update and batched create (recorded from Heat 27)."""

from __future__ import annotations

import pytest

from hearth.engine.scaling.rolling_update import batches as rolling_batches
from hearth.plugins._group import batches

#: (target, current, max_batch_size, min_in_service) -> Heat's ResourceGroup._get_batches
HEAT_BATCHES = {
    (3, 0, 1, 0): [(1, 1), (2, 1), (3, 1)],
    (3, 0, 2, 0): [(2, 2), (3, 1)],
    (5, 0, 2, 0): [(2, 2), (4, 2), (5, 1)],
    (1, 1, 1, 1): [(2, 1), (2, 1), (1, 0)],
    (3, 3, 1, 0): [(3, 1), (3, 1), (3, 1)],
    (3, 3, 2, 2): [(4, 2), (4, 2), (3, 0)],
    (4, 2, 2, 1): [(4, 2), (4, 2)],
    (2, 4, 1, 2): [(3, 1), (3, 1), (2, 0)],
    (0, 3, 1, 0): [(0, 0)],
}


@pytest.mark.parametrize(("args", "expected"), HEAT_BATCHES.items())
def test_batches_are_heats(args, expected):
    assert [tuple(batch) for batch in rolling_batches(*args, temporary_count=False)] == expected


def test_plan_leaves_each_batch_the_time_the_pauses_leave():
    plan = batches.plan(3, 0, 1, 0, pause_time=30, timeout_secs=3600)
    assert len(plan.batches) == 3
    assert plan.timeout_mins == 59  # (3600 - 2 * 30) / 60 rounded up
    assert [plan.pauses_after(i) for i in range(3)] == [True, True, False]
    assert not batches.plan(3, 0, 1, 0, 0, 60).pauses_after(0)


def test_pauses_reaching_the_timeout_are_refused_with_heats_message():
    with pytest.raises(ValueError, match="The current update policy will result in stack "
                                         "update timeout."):
        batches.plan(3, 0, 1, 0, pause_time=30, timeout_secs=60)


def test_the_scaling_groups_count_temporary_members_the_resource_group_does_not():
    # one batch function, two of Heat's counting rules: an AutoScalingGroup of
    # one member kept in service needs two batches, a ResourceGroup three
    assert list(rolling_batches(1, 1, 1, 1)) == [(2, 1), (1, 0)]
    assert list(rolling_batches(1, 1, 1, 1, temporary_count=False)) == [(2, 1), (2, 1), (1, 0)]

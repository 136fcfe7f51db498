"""Heat's cooldown of a scaling group, kept in the group's metadata."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from hearth.common import exception
from hearth.engine.scaling import cooldown

T0 = datetime(2026, 1, 2, 3, 4, 5, 600000)


class Group:
    """A metadata holder that records every write."""

    name = "asg"

    def __init__(self, metadata=None):
        self.metadata = metadata
        self.writes = 0

    def metadata_get(self):
        return self.metadata

    def metadata_set(self, metadata):
        self.metadata = metadata
        self.writes += 1


def test_first_scaling_is_allowed_and_marked_in_progress():
    group = Group({"user": "kept"})
    cooldown.check_scaling_allowed(group, 60, now=T0)
    assert group.metadata == {"user": "kept", "scaling_in_progress": True}


def test_scaling_in_progress_refuses_with_heats_reason():
    group = Group({"scaling_in_progress": True})
    with pytest.raises(exception.NoActionRequired) as caught:
        cooldown.check_scaling_allowed(group, 0, now=T0)
    assert str(caught.value) == ("The resource asg could not perform scaling action: "
                                 "due to scaling activity")
    assert group.writes == 0


def test_finished_scaling_sets_the_end_and_a_signal_inside_it_is_ignored():
    group = Group()
    cooldown.check_scaling_allowed(group, 60, now=T0)
    cooldown.finished_scaling(group, 60, "change_in_capacity : 1", now=T0)
    end = (T0 + timedelta(seconds=60)).isoformat()
    assert group.metadata == {"scaling_in_progress": False,
                              "cooldown_end": {end: "change_in_capacity : 1"}}
    with pytest.raises(exception.NoActionRequired) as caught:
        cooldown.check_scaling_allowed(group, 60, now=T0 + timedelta(seconds=59))
    assert str(caught.value) == ("The resource asg could not perform scaling action: "
                                 "due to cooldown, cooldown 60")
    cooldown.check_scaling_allowed(group, 60, now=T0 + timedelta(seconds=61))
    assert group.metadata["scaling_in_progress"] is True


def test_a_shorter_cooldown_never_shortens_a_longer_one():
    group = Group()
    cooldown.finished_scaling(group, 100, "ExactCapacity : 3", now=T0)
    cooldown.finished_scaling(group, 5, "change_in_capacity : 1", now=T0)
    assert group.metadata["cooldown_end"] == {
        (T0 + timedelta(seconds=100)).isoformat(): "change_in_capacity : 1"}


def test_no_size_change_keeps_the_old_end():
    group = Group({"cooldown_end": {"2000-01-01T00:00:00": "x"}, "scaling_in_progress": True})
    cooldown.finished_scaling(group, 60, "change_in_capacity : 1", size_changed=False, now=T0)
    assert group.metadata == {"cooldown_end": {"2000-01-01T00:00:00": "x"},
                              "scaling_in_progress": False}


@pytest.mark.parametrize(("value", "seconds"), [(None, 0), (-5, 0), (30, 30)])
def test_sanitize(value, seconds):
    assert cooldown.sanitize(value) == seconds


def test_reset_clears_a_stale_mark_only():
    group = Group({"scaling_in_progress": True, "cooldown_end": {"t": "r"}})
    cooldown.reset_scaling(group)
    assert group.metadata == {"scaling_in_progress": False, "cooldown_end": {"t": "r"}}
    writes = group.writes
    cooldown.reset_scaling(group)
    assert group.writes == writes

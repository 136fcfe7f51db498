"""Heat's cooldown of a scaling group, kept in the group's metadata."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from hearth.common import exception
from hearth.engine.scaling import cooldown

T0 = datetime(2026, 1, 2, 3, 4, 5, 600000)


def test_first_scaling_is_allowed_and_marked_in_progress():
    stored = {"user": "kept"}
    marked = cooldown.check_scaling_allowed(stored, "asg", 60, now=T0)
    assert marked == {"user": "kept", "scaling_in_progress": True,
                      "scaling_started": T0.isoformat()}
    assert stored == {"user": "kept"}  # a new map: the caller decides to store it
    assert cooldown.check_scaling_allowed(None, "asg", 60, now=T0)["scaling_in_progress"]


def test_scaling_in_progress_refuses_with_heats_reason():
    with pytest.raises(exception.NoActionRequired) as caught:
        cooldown.check_scaling_allowed({"scaling_in_progress": True}, "asg", 0, now=T0)
    assert str(caught.value) == ("The resource asg could not perform scaling action: "
                                 "due to scaling activity")


def test_finished_scaling_sets_the_end_and_a_signal_inside_it_is_ignored():
    marked = cooldown.check_scaling_allowed({}, "asg", 60, now=T0)
    done = cooldown.finished_scaling(marked, 60, "change_in_capacity : 1", now=T0)
    end = (T0 + timedelta(seconds=60)).isoformat()
    assert done == {"scaling_in_progress": False,
                    "cooldown_end": {end: "change_in_capacity : 1"}}
    with pytest.raises(exception.NoActionRequired) as caught:
        cooldown.check_scaling_allowed(done, "asg", 60, now=T0 + timedelta(seconds=59))
    assert str(caught.value) == ("The resource asg could not perform scaling action: "
                                 "due to cooldown, cooldown 60")
    later = cooldown.check_scaling_allowed(done, "asg", 60, now=T0 + timedelta(seconds=61))
    assert later["scaling_in_progress"] is True


def test_a_shorter_cooldown_never_shortens_a_longer_one():
    first = cooldown.finished_scaling({}, 100, "ExactCapacity : 3", now=T0)
    second = cooldown.finished_scaling(first, 5, "change_in_capacity : 1", now=T0)
    assert second["cooldown_end"] == {
        (T0 + timedelta(seconds=100)).isoformat(): "change_in_capacity : 1"}


def test_no_size_change_keeps_the_old_end():
    stored = {"cooldown_end": {"2000-01-01T00:00:00": "x"}, "scaling_in_progress": True}
    done = cooldown.finished_scaling(stored, 60, "change_in_capacity : 1",
                                     size_changed=False, now=T0)
    assert done == {"cooldown_end": {"2000-01-01T00:00:00": "x"},
                    "scaling_in_progress": False}


@pytest.mark.parametrize(("value", "seconds"), [(None, 0), (-5, 0), (30, 30)])
def test_sanitize(value, seconds):
    assert cooldown.sanitize(value) == seconds


def test_reset_clears_a_stale_mark_only():
    assert cooldown.reset_scaling({"scaling_in_progress": True, "cooldown_end": {"t": "r"}}) == {
        "scaling_in_progress": False, "cooldown_end": {"t": "r"}}
    assert cooldown.reset_scaling({"a": 1}) == {"a": 1}


def test_a_mark_older_than_the_lease_was_left_by_a_stopped_engine():
    marked = cooldown.check_scaling_allowed({}, "asg", 0, now=T0, lease=600)
    with pytest.raises(exception.NoActionRequired, match="due to scaling activity"):
        cooldown.check_scaling_allowed(marked, "asg", 0, now=T0 + timedelta(seconds=599),
                                       lease=600)
    again = cooldown.check_scaling_allowed(marked, "asg", 0, now=T0 + timedelta(seconds=601),
                                           lease=600)
    assert again["scaling_started"] == (T0 + timedelta(seconds=601)).isoformat()
    # a mark without its start (Heat's own) is always honoured
    with pytest.raises(exception.NoActionRequired):
        cooldown.check_scaling_allowed({"scaling_in_progress": True}, "asg", 0, now=T0,
                                       lease=1)


def test_begin_scaling_marks_without_looking_at_the_cooldown():
    inside = cooldown.finished_scaling({}, 600, "r", now=T0)
    marked = cooldown.begin_scaling(inside, "asg", now=T0 + timedelta(seconds=1))
    assert marked["scaling_in_progress"] is True and marked["cooldown_end"] == inside[
        "cooldown_end"]
    with pytest.raises(exception.NoActionRequired, match="due to scaling activity"):
        cooldown.begin_scaling(marked, "asg", now=T0)

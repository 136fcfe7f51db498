"""Tests of OS::Heat::WaitConditionHandle and OS::Heat::WaitCondition on a fake stack."""

import json

import pytest

from hearth.common import exception
from hearth.plugins.wait_condition import WaitCondition
from hearth.plugins.wait_condition_handle import (
    UpdateWaitConditionHandle,
    WaitConditionHandle,
    normalised,
)
from tests.unit.engine.resource_helpers import FakeStack, make


def _pair(count: int = 2, timeout: float = 10):
    stack = FakeStack()
    handle = make(WaitConditionHandle, {}, name="handle",
                  stack=stack)
    handle.resource_id = "handle-id"
    condition = make(WaitCondition, {"handle": "handle-id", "timeout": timeout,
                                     "count": count}, name="wait", stack=stack)
    stack.resources = {"handle": handle, "wait": condition}
    return stack, handle, condition


def test_signal_defaults_as_heat():
    assert normalised(None, 3) == {"status": "SUCCESS", "reason": "Signal 3 received",
                                   "data": None, "id": 3}
    assert normalised({"status": "FAILURE", "id": "x"}, 1)["reason"] == "Signal 1 received"
    for bad in ({"status": "maybe"}, {"extra": 1}, "text", [1]):
        with pytest.raises(ValueError, match="Metadata format invalid"):
            normalised(bad, 1)


def test_signals_are_stored_by_id_and_summed_up():
    _stack, handle, _condition = _pair()
    assert handle.handle_signal({"data": "a"}) == "status:SUCCESS reason:Signal 1 received"
    handle.handle_signal({"id": 1, "reason": "again"})
    handle.handle_signal({"status": "FAILURE", "reason": "broken"})
    assert handle.held_signals() == {
        "1": {"data": None, "reason": "again", "status": "SUCCESS"},
        "2": {"data": None, "reason": "broken", "status": "FAILURE"}}
    assert handle.reasons("FAILURE") == ["broken"]


def test_condition_counts_fails_and_times_out_on_the_clock():
    stack, handle, condition = _pair(count=2, timeout=10)
    waiting = condition.handle_create()
    assert condition.check_create_complete(waiting) == pytest.approx(0.5)
    handle.handle_signal({"reason": "one"})
    stack.clock.advance(10)
    with pytest.raises(exception.WaitConditionTimeout) as error:
        condition.check_create_complete(waiting)
    assert str(error.value) == "1 of 2 received - one"
    handle.handle_signal({"reason": "two", "data": {"k": 1}})
    assert condition.check_create_complete(condition.handle_create()) is True
    assert json.loads(condition.FnGetAtt("data")) == {"1": None, "2": {"k": 1}}
    handle.handle_signal({"status": "FAILURE", "reason": "x"})
    handle.handle_signal({"status": "FAILURE", "reason": "y"})
    with pytest.raises(exception.WaitConditionFailure, match="^x;y$"):
        condition.check_create_complete(condition.handle_create())
    condition.handle_delete()  # clears the handle's signals
    assert handle.held_signals() == {}


def test_condition_needs_a_handle():
    stack, handle, condition = _pair()
    stack.resources = {"wait": condition}
    with pytest.raises(ValueError, match="handle-id is not a valid wait condition handle."):
        condition.handle_create()


def test_update_handle_is_always_replaced():
    handle = make(UpdateWaitConditionHandle, {})
    with pytest.raises(exception.UpdateReplace):
        handle._needs_update(handle.t, handle.t, handle.properties, handle.properties)

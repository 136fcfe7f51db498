"""Tests of OS::Heat::Delay."""

import pytest

from hearth.common import exception
from hearth.plugins.delay import Delay
from tests.unit.engine.resource_helpers import make


class FixedDelay(Delay):
    random = staticmethod(lambda: 0.5)


@pytest.mark.parametrize("action", ["CREATE", "DELETE", "SUSPEND", "RESUME"])
def test_waits_min_plus_jitter_during_listed_actions(action):
    res = make(FixedDelay, {"min_wait": 2, "max_jitter": 4, "jitter_multiplier": 2,
                            "actions": ["CREATE", "DELETE", "SUSPEND", "RESUME"]})
    res.validate()
    res.state_set(action, "IN_PROGRESS")
    wait = res.handler(action)()
    assert wait.seconds == 6
    check = res.completion_check(action)
    res.stack.clock.advance(5.9)
    assert not check(wait)
    res.stack.clock.advance(0.1)
    assert check(wait)


def test_other_actions_do_not_wait():
    res = make(Delay, {"min_wait": 5})
    res.state_set("DELETE", "IN_PROGRESS")
    assert res.wait_seconds("DELETE") == 0 and res.check_delete_complete(res.handle_delete())


def test_errors():
    with pytest.raises(exception.StackValidationFailed) as info:
        make(Delay, {"min_wait": -1}).validate()
    assert str(info.value) == (
        "Property error: web.properties.min_wait: -1 is out of range (min: 0, max: None)")
    with pytest.raises(exception.StackValidationFailed) as info:
        make(Delay, {"actions": ["UPDATE"]}).validate()
    assert str(info.value).startswith("Property error: web.properties.actions: ")

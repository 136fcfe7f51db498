"""Tests of OS::Heat::TestResource: waits advance with the injected clock only."""

import pytest

from hearth.common import exception
from hearth.plugins.test_resource import TestResource
from tests.unit.engine.resource_helpers import Definition, FakeStack, make


def created(props=None, stack=None):
    res = make(TestResource, props or {}, stack=stack)
    res.state_set("CREATE", "IN_PROGRESS")
    return res


def test_create_stores_value_and_waits_on_the_clock():
    res = created({"value": "v", "wait_secs": 10})
    wait = res.handle_create()
    assert res.data_get()["value"] == "v" and res.resource_id.startswith("demo-web-")
    # not done: the seconds left (at most poll_interval_max), the next poll delay
    assert res.check_create_complete(wait) == pytest.approx(1)
    res.stack.clock.advance(9.5)
    assert res.check_create_complete(wait) == pytest.approx(0.5)
    res.stack.clock.advance(-9.5)
    res.stack.clock.advance(9.9)
    assert res.check_create_complete(wait) == pytest.approx(0.1)
    res.stack.clock.advance(0.1)
    assert res.check_create_complete(wait) is True
    assert res.FnGetAtt("output") == "v"


def test_action_wait_secs_overrides_and_minus_one_waits_forever():
    res = created({"wait_secs": 100, "action_wait_secs": {"create": -1, "delete": 0}})
    wait = res.handle_create()
    res.stack.clock.advance(10**6)
    assert res.check_create_complete(wait) is False
    res.state_set("DELETE", "IN_PROGRESS")
    assert res.check_delete_complete(res.handle_delete())
    res.state_set("UPDATE", "IN_PROGRESS")
    assert res.check_update_complete(res._wait()) == 1  # wait_secs 100: polled each second


def test_fail_raises_after_the_wait_but_not_on_delete():
    res = created({"fail": True})
    wait = res.handle_create()
    assert list(res.data_get()) == ["progress"] and res.resource_id is None
    with pytest.raises(ValueError) as info:
        res.check_create_complete(wait)
    assert str(info.value) == "Test Resource failed web"
    res.state_set("DELETE", "IN_PROGRESS")
    assert res.check_delete_complete(res.handle_delete())


def test_update_in_place_and_replace_rules():
    res = created({"value": "a"})
    res.check_create_complete(res.handle_create())
    res.state_set("CREATE", "COMPLETE")
    new = Definition("web", "OS::Heat::TestResource", {"value": "b"})
    tmpl_diff, prop_diff = res.update_diffs(new)
    assert prop_diff == {"value": "b"}
    res.state_set("UPDATE", "IN_PROGRESS")
    assert res.check_update_complete(res.handle_update(new, tmpl_diff, prop_diff))
    assert res.FnGetAtt("output") == "b"
    assert res.check_update_complete(res.handle_update(new, {}, {}))
    replace = Definition("web", "OS::Heat::TestResource", {"value": "c", "update_replace": True})
    with pytest.raises(exception.UpdateReplace):
        res.update_diffs(replace)
    with pytest.raises(exception.UpdateReplace):
        res.update_diffs(Definition("web", "T", {"value": "b", "update_replace_value": "x"}))


def test_check_needs_a_resource_id():
    res = created()
    with pytest.raises(Exception) as info:  # noqa: B017, PT011 - Heat raises a bare Exception
        res.handle_check()
    assert str(info.value) == "Resource not created"
    res.handle_create()
    res.handle_check()


def test_schema_matches_heat():
    schema = TestResource.properties_schema
    assert schema["value"].default == "test_string" and schema["value"].update_allowed
    assert not schema["update_replace_value"].update_allowed
    assert schema["client_name"].default == "" and schema["wait_secs"].default == 0
    assert sorted(schema["action_wait_secs"].schema) == ["create", "delete", "update"]
    res = make(TestResource, {"client_name": "nova", "entity_name": "servers"},
               stack=FakeStack())
    res.validate()


def test_attr_wait_secs_sleeps_through_the_stack_before_resolving():
    res = created({"value": "v", "attr_wait_secs": 2})
    slept = []
    res.stack.sleep = slept.append
    res.handle_create()
    assert res.FnGetAtt("output") == "v" and slept == [2]


def test_takes_no_signals_as_heat():
    from hearth.engine.resources import signals
    res = created()
    with pytest.raises(exception.ResourceActionNotSupported,
                       match="signal is not supported for resource."):
        signals.deliver(res, {})


def test_the_wait_ends_when_stored_and_an_engine_taking_over_waits_what_is_left(monkeypatch):
    import time

    res = created({"value": "v", "wait_secs": 10})
    now = time.time()
    monkeypatch.setattr(time, "time", lambda: now)
    res.handle_create()
    assert res.progress() == {"ends": now + 10}
    # another engine takes the create over 4 s later: 6 s are left, the handle does not run again
    monkeypatch.setattr(time, "time", lambda: now + 4)
    res.data_set("value", "not run again")
    wait = res.handle_create_continue()
    assert wait.seconds == pytest.approx(6) and res.data_get()["value"] == "not run again"
    monkeypatch.setattr(time, "time", lambda: now + 30)  # long over: nothing left to wait
    assert res.check_create_complete(res.handle_create_continue()) is True


def test_an_engine_taking_over_a_create_whose_handle_stored_nothing_runs_it():
    res = created({"value": "v", "action_wait_secs": {"create": -1}})
    wait = res.handle_create_continue()
    assert res.data_get()["value"] == "v" and wait.seconds == -1
    assert res.progress() == {"ends": None}
    assert res.handle_create_continue().seconds == -1  # waits forever still

"""Update planning: PUT/PATCH request composition, the update graph, refusals."""

from types import SimpleNamespace

import pytest

from hearth.common import exception
from hearth.engine.stacks import actions as stack_actions
from hearth.engine.update import plan as update_plan
from hearth.engine.update import run as update
from hearth.engine.update.plan import CLEANUP, UPDATE


def test_put_takes_the_request_as_is():
    result = update_plan.compose_request({"old": 1}, {"f": "x"}, {"parameters": {"a": 1}},
                                         {"new": 1}, None, {"parameters": {"b": 2}}, False)
    assert result == ({"new": 1}, {}, {"parameters": {"b": 2}})


def test_put_without_template_is_refused():
    with pytest.raises(exception.BadRequest) as error:
        update_plan.compose_request({}, {}, {}, None, None, {}, False)
    assert "A template is required" in str(error.value)


OLD = {"parameters": {"a": {"type": "string"}, "b": {"type": "string"},
                      "c": {"type": "string"}}}


def test_patch_merges_and_clears():
    old_env = {"parameters": {"a": 1, "b": 2, "c": 3}, "parameter_defaults": {"c": 9},
               "resource_registry": {"X": "Y"}}
    template, files, env = update_plan.compose_request(
        OLD, {"f1": "one", "f2": "two"}, old_env, None, {"f2": "TWO"},
        {"parameters": {"b": 20}}, True, clear_parameters=["c"])
    assert template == OLD
    assert files == {"f1": "one", "f2": "TWO"}
    assert env == {"parameters": {"a": 1, "b": 20}, "parameter_defaults": {},
                   "resource_registry": {"X": "Y"}}
    assert old_env["parameters"] == {"a": 1, "b": 2, "c": 3}  # the stored one is untouched


def test_patch_drops_stored_parameters_the_new_template_does_not_declare():
    new = {"parameters": {"b": {"type": "string"}}}
    _, _, env = update_plan.compose_request(
        OLD, {}, {"parameters": {"a": 1, "b": 2}, "parameter_defaults": {"a": 5}}, new, None,
        {}, True)
    assert env == {"parameters": {"b": 2}, "parameter_defaults": {"a": 5}}


def definition(*needs):
    return SimpleNamespace(type="T", dependencies=lambda: set(needs))


def live(*needs):
    return SimpleNamespace(t=definition(*needs), db_id=1)


def test_update_graph_orders_cleanup_after_dependants():
    current = {"a": live(), "b": live("a"), "gone": live("a")}
    definitions = {"a": definition(), "b": definition("a"), "new": definition("b")}
    graph = update_plan.update_graph(current, definitions)
    assert graph[(UPDATE, "a")] == set()
    assert graph[(UPDATE, "new")] == {(UPDATE, "b")}
    # a replaced "a" goes only once b (its new user) is updated and old users are cleaned
    assert graph[(CLEANUP, "a")] == {(UPDATE, "a"), (UPDATE, "b"), (CLEANUP, "b"),
                                     (CLEANUP, "gone")}
    assert graph[(CLEANUP, "gone")] == set()
    assert (CLEANUP, "new") not in graph


def test_update_graph_has_cleanup_nodes_for_leftovers():
    graph = update_plan.update_graph({}, {"a": definition()}, leftovers=["a"])
    assert graph[(CLEANUP, "a")] == {(UPDATE, "a")}


def row(action, status, name="s"):
    return SimpleNamespace(action=action, status=status, name=name)


@pytest.mark.parametrize("state, error, message", [
    (("SUSPEND", "COMPLETE"), exception.NotSupported,
     "Updating a stack when it is suspended is not supported."),
    (("DELETE", "FAILED"), exception.NotSupported,
     "Updating a stack when it is deleting is not supported."),
    (("CREATE", "IN_PROGRESS"), exception.ActionInProgress,
     "Stack s already has an action (CREATE) in progress."),
])
def test_refusals(state, error, message):
    with pytest.raises(error) as raised:
        update.check_updatable(row(*state))
    assert str(raised.value) == message


@pytest.mark.parametrize("state", [("CREATE", "COMPLETE"), ("CREATE", "FAILED"),
                                   ("UPDATE", "FAILED"), ("ROLLBACK", "COMPLETE")])
def test_updatable_states(state):
    update.check_updatable(row(*state))


@pytest.mark.parametrize("interrupted, disable_rollback, expected", [
    (None, False, True),
    (None, True, False),
    (exception.ForcedCancel(with_rollback=True), True, True),
    (exception.ForcedCancel(with_rollback=False), False, False),
    (KeyboardInterrupt(), False, False),
])
def test_wants_rollback(interrupted, disable_rollback, expected):
    from hearth.engine.scheduler import WalkResult
    stack = SimpleNamespace(row=SimpleNamespace(disable_rollback=disable_rollback))
    assert stack_actions.wants_rollback(stack, WalkResult(interrupted=interrupted)) is expected

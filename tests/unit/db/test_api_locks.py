"""Stack locks, engine liveness and recovery of stacks left by dead engines."""

from datetime import timedelta

import pytest

from hearth.common import exception
from hearth.db import api
from tests.unit.db.helpers import BASE_TIME, make_stack

TIMEOUT = 2.0
NOW = BASE_TIME + timedelta(hours=1)


def register(db, engine_id, beat_seconds_ago=0.0):
    return api.engine_register(db, engine_id, host="127.0.0.1", pid=1, binary="hearth-engine",
                               hostname="box", now=NOW - timedelta(seconds=beat_seconds_ago))


# --- engines ----------------------------------------------------------------------

def test_engine_register_list_and_status(db):
    register(db, "e-live")
    register(db, "e-dead", beat_seconds_ago=10)
    engines = {e.engine_id: e for e in api.engine_list(db)}
    assert set(engines) == {"e-live", "e-dead"}
    assert api.engine_status(engines["e-live"], TIMEOUT, NOW) == "up"
    assert api.engine_status(engines["e-dead"], TIMEOUT, NOW) == "down"
    assert engines["e-live"].hostname == "box" and engines["e-live"].topic == "engine"


def test_engine_heartbeat_keeps_it_alive(db):
    register(db, "e1", beat_seconds_ago=10)
    assert not api.engine_is_alive(db, "e1", TIMEOUT, NOW)
    api.engine_heartbeat(db, "e1", now=NOW)
    assert api.engine_is_alive(db, "e1", TIMEOUT, NOW)
    assert not api.engine_is_alive(db, "e1", TIMEOUT, NOW + timedelta(seconds=3))


def test_engine_heartbeat_unknown(db):
    with pytest.raises(exception.EntityNotFound, match=r"The Engine \(ghost\) could not be"):
        api.engine_heartbeat(db, "ghost")
    assert not api.engine_is_alive(db, "ghost", TIMEOUT)


def test_engine_deregister_releases_locks(db):
    register(db, "e1")
    stack = make_stack(db)
    api.lock_acquire(db, stack.id, "e1")
    api.engine_deregister(db, "e1", now=NOW)
    assert api.lock_get_engine_id(db, stack.id) is None
    assert api.engine_list(db) == []
    assert [e.engine_id for e in api.engine_list(db, show_deleted=True)] == ["e1"]
    assert not api.engine_is_alive(db, "e1", TIMEOUT, NOW)
    assert api.engine_status(api.engine_get(db, "e1"), TIMEOUT, NOW) == "down"
    with pytest.raises(exception.EntityNotFound, match=r"The Engine \(e1\) could not be"):
        api.engine_heartbeat(db, "e1")


def test_engine_register_again_revives(db):
    register(db, "e1")
    api.engine_deregister(db, "e1")
    register(db, "e1")
    assert [e.engine_id for e in api.engine_list(db)] == ["e1"]


def test_engine_get_unknown(db):
    with pytest.raises(exception.EntityNotFound, match=r"The Engine \(x\) could not be found."):
        api.engine_get(db, "x")


# --- locks -------------------------------------------------------------------------

def test_two_engines_contend(db):
    stack = make_stack(db)
    assert api.lock_acquire(db, stack.id, "e1") is None
    assert api.lock_acquire(db, stack.id, "e2") == "e1"
    assert api.lock_acquire(db, stack.id, "e1") == "e1"  # already held by itself
    assert api.lock_release(db, stack.id, "e2") is False  # not the holder
    assert api.lock_release(db, stack.id, "e1") is True
    assert api.lock_acquire(db, stack.id, "e2") is None
    assert api.lock_get_engine_id(db, stack.id) == "e2"


def test_lock_steal_is_conditional(db):
    stack = make_stack(db)
    api.lock_acquire(db, stack.id, "e1")
    assert api.lock_steal(db, stack.id, "e1", "e2") is True
    assert api.lock_steal(db, stack.id, "e1", "e3") is False  # e1 no longer holds it
    assert api.lock_get_engine_id(db, stack.id) == "e2"


def test_lock_take_steals_from_dead_engine(db):
    stack = make_stack(db)
    register(db, "dead", beat_seconds_ago=10)
    register(db, "new")
    api.lock_acquire(db, stack.id, "dead")
    assert api.lock_take(db, stack.id, "new", TIMEOUT, NOW) is None
    assert api.lock_get_engine_id(db, stack.id) == "new"


def test_lock_take_steals_from_unregistered_engine(db):
    stack = make_stack(db)
    api.lock_acquire(db, stack.id, "vanished")
    assert api.lock_take(db, stack.id, "new", TIMEOUT, NOW) is None


def test_lock_take_never_steals_from_live_engine(db):
    stack = make_stack(db)
    register(db, "live")
    api.lock_acquire(db, stack.id, "live")
    assert api.lock_take(db, stack.id, "new", TIMEOUT, NOW) == "live"
    assert api.lock_get_engine_id(db, stack.id) == "live"


def test_lock_take_free_and_own(db):
    stack = make_stack(db)
    assert api.lock_take(db, stack.id, "e1", TIMEOUT, NOW) is None
    assert api.lock_take(db, stack.id, "e1", TIMEOUT, NOW) == "e1"


# --- recovery ------------------------------------------------------------------------

def in_progress(db, name, **values):
    return make_stack(db, name, action="CREATE", status="IN_PROGRESS", **values)


def test_stacks_of_dead_engines(db):
    register(db, "live")
    register(db, "dead", beat_seconds_ago=10)
    by_live = in_progress(db, "by-live", minutes=1)
    by_dead = in_progress(db, "by-dead", minutes=2)
    unlocked = in_progress(db, "unlocked", minutes=3)
    make_stack(db, "settled", action="CREATE", status="COMPLETE", minutes=4)
    deleted = in_progress(db, "deleted", minutes=5)
    api.lock_acquire(db, by_live.id, "live")
    api.lock_acquire(db, by_dead.id, "dead")
    api.stack_delete(db, deleted.id)
    found = api.stacks_in_progress_of_dead_engines(db, TIMEOUT, NOW)
    assert [s.id for s in found] == [by_dead.id, unlocked.id]


def test_nested_stacks_follow_their_root_lock(db):
    register(db, "live")
    root = in_progress(db, "root", minutes=1)
    child = in_progress(db, "root-child", owner_id=root.id, nested_depth=1, minutes=2)
    grandchild = in_progress(db, "root-child-g", owner_id=child.id, nested_depth=2, minutes=3)
    api.lock_acquire(db, root.id, "live")
    assert api.stacks_in_progress_of_dead_engines(db, TIMEOUT, NOW) == []
    api.engine_deregister(db, "live")  # releases the root's lock
    found = api.stacks_in_progress_of_dead_engines(db, TIMEOUT, NOW)
    assert [s.id for s in found] == [root.id, child.id, grandchild.id]

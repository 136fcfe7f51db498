"""Group commit: writes from many green threads share transactions, in order, never lost.

Runs on SQLite and on the real PostgreSQL server (the ``db`` fixture).
"""

import pytest
from sqlalchemy import create_engine, text

from hearth.common import exception, green
from hearth.db import api_batch, api_resources, api_stacks
from hearth.db.write_queue import WriteQueue


@pytest.fixture
def stack_id(db):
    raw = api_stacks.raw_template_create(db, {"heat_template_version": "2018-08-31"}, {}, {})
    return api_stacks.stack_create(db, {"name": "s", "raw_template_id": raw.id,
                                        "project_id": "p"}).id


def state(status, **extra):
    return {"action": "CREATE", "status": status, "status_reason": "state changed",
            "physical_resource_id": None, **extra}


def event(stack_id, name, status):
    return {"stack_id": stack_id, "resource_name": name, "resource_action": "CREATE",
            "resource_status": status, "resource_status_reason": "state changed",
            "resource_type": "OS::Heat::None"}


def new_resource(db, stack_id, name):
    values = state("IN_PROGRESS", name=name, uuid=f"uuid-{name}", stack_id=stack_id,
                   type="OS::Heat::None")
    return api_batch.resource_state_record(db, None, values,
                                           event(stack_id, name, "IN_PROGRESS"))[0]


def stored_events(db_url, stack_id):
    """Read the events through a separate connection (what another process sees)."""
    engine = create_engine(db_url)
    try:
        with engine.connect() as connection:
            return [tuple(row) for row in connection.execute(text(
                "SELECT resource_name, resource_status FROM event WHERE stack_id = :s "
                "ORDER BY id"), {"s": stack_id})]
    finally:
        engine.dispose()


def test_writes_of_green_threads_started_together_share_one_commit(db, stack_id):
    new_resource(db, stack_id, "first")  # the stack's event count is read once, here
    before = db.writes.commits
    threads = [green.spawn(new_resource, db, stack_id, f"r{index}") for index in range(20)]
    ids = [thread.wait() for thread in threads]
    assert db.writes.commits - before == 1
    assert len(set(ids)) == 20
    names = {row.name: row.id for row in api_resources.resource_get_all_by_stack(db, stack_id)
             if row.name != "first"}
    assert [names[f"r{index}"] for index in range(20)] == ids


def test_an_unwaited_write_commits_with_the_next_waited_one_in_order(db, db_url, stack_id):
    first = new_resource(db, stack_id, "a")
    before = db.writes.commits
    api_batch.resource_state_record(db, first, state("COMPLETE"),
                                    event(stack_id, "a", "COMPLETE"), wait=False)
    new_resource(db, stack_id, "b")  # waits: takes a's COMPLETE with it
    assert db.writes.commits - before == 1
    assert stored_events(db_url, stack_id) == [
        ("a", "IN_PROGRESS"), ("a", "COMPLETE"), ("b", "IN_PROGRESS")]


def test_an_unwaited_write_is_committed_within_the_delay(db, db_url, stack_id, monkeypatch):
    db.writes._delay = 0.02
    resource_id = new_resource(db, stack_id, "a")
    # the queue's timer is held until the write has been seen uncommitted (reading it on
    # PostgreSQL lets green threads run: a slow read would have let the timer commit first)
    timers = []
    monkeypatch.setattr(green, "spawn_after", lambda *timer: timers.append(timer))
    committed = green.Event()
    api_batch.resource_state_record(
        db, resource_id, state("COMPLETE"), event(stack_id, "a", "COMPLETE"), wait=False,
        on_commit=lambda uuid: committed.send(stored_events(db_url, stack_id)))
    assert [timer[0] for timer in timers] == [0.02]  # one timer, of the delay
    assert stored_events(db_url, stack_id) == [("a", "IN_PROGRESS")]  # not yet
    monkeypatch.undo()
    green.spawn_after(*timers[0])  # the timer runs as armed: nothing else commits the write
    # the callback runs after the commit: it already sees the event
    assert committed.wait(timeout=30) == [("a", "IN_PROGRESS"), ("a", "COMPLETE")]
    assert not db.writes.pending


def test_every_session_reads_the_queued_writes_first(db, stack_id):
    resource_id = new_resource(db, stack_id, "a")
    api_batch.resource_state_record(db, resource_id, state("COMPLETE"),
                                    event(stack_id, "a", "COMPLETE"), wait=False)
    assert db.writes.pending
    assert api_resources.resource_get(db, resource_id).status == "COMPLETE"
    assert not db.writes.pending


def test_a_failing_write_loses_none_of_its_batch(db, db_url, stack_id):
    good = new_resource(db, stack_id, "good")
    api_batch.resource_state_record(db, good, state("COMPLETE"),
                                    event(stack_id, "good", "COMPLETE"), wait=False)
    api_batch.resource_state_record(db, 99999, state("COMPLETE"),
                                    event(stack_id, "gone", "COMPLETE"), wait=False)
    with pytest.raises(exception.EntityNotFound):
        api_batch.resource_writes(db, 99998, "phys")
    assert stored_events(db_url, stack_id) == [("good", "IN_PROGRESS"), ("good", "COMPLETE")]
    lost = db.writes.take_failures(stack_id)
    assert [type(error) for error in lost] == [exception.EntityNotFound]
    assert db.writes.take_failures(stack_id) == []


def test_a_write_killed_mid_commit_stays_queued(db, stack_id):
    queue = WriteQueue(db)

    def interrupted(cursor, dialect):
        raise KeyboardInterrupt

    queue.submit(interrupted, wait=False)
    with pytest.raises(KeyboardInterrupt):
        queue.flush()
    assert queue.pending
    queue._jobs[0].write = lambda cursor, dialect: None
    queue.flush()
    assert not queue.pending

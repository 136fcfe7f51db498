"""The engine's state changes go through group commit: batched, shown only once stored.

Real engine, real SQLite: concurrent resources share transactions, every
event on the bus is already in the database when it is published, and a
state change that cannot be stored fails the stack instead of vanishing.
"""

import sqlite3

from hearth.common import green
from hearth.db import api_resources
from hearth.engine.stacks import stack as stack_module
from tests.fixtures.engine import CTX, create_and_wait, slow_template, statuses


def fan_out(count):
    lines = ["heat_template_version: 2018-08-31", "resources:"]
    lines += [f"  r{index}: {{type: OS::Heat::None}}" for index in range(count)]
    return "\n".join(lines) + "\n"


def test_independent_resources_share_transactions(service):
    writes = service.db.writes
    before = writes.commits
    stack = create_and_wait(service, "wide", fan_out(50))
    assert stack["stack_status"] == "CREATE_COMPLETE"
    # 50 resources, two state changes each: a handful of commits, not 100
    assert writes.commits - before < 10
    assert statuses(service, stack["id"]).count(("r7", "CREATE_COMPLETE")) == 1


def test_events_are_published_only_once_stored(service, engine_db_url, monkeypatch):
    path = engine_db_url.removeprefix("sqlite:///")
    published, missing = [], []
    original = stack_module.publish

    def checking_publish(tag, data):
        with sqlite3.connect(path) as connection:  # another connection: committed rows only
            found = connection.execute("SELECT 1 FROM event WHERE uuid = ?",
                                       (data["id"],)).fetchone()
        (published if found else missing).append(tag)
        original(tag, data)

    monkeypatch.setattr(stack_module, "publish", checking_publish)
    stack = create_and_wait(service, "shown", fan_out(20))
    assert stack["stack_status"] == "CREATE_COMPLETE"
    assert missing == []
    assert sum(tag.endswith("CREATE_COMPLETE") for tag in published) == 21


def test_a_state_change_that_cannot_be_stored_fails_the_stack(service):
    created = service.create_stack(CTX, "lost", slow_template(0.5))
    for _ in range(500):  # until slow is IN_PROGRESS, waiting, and its handle's writes stored
        rows = api_resources.resource_get_all_by_stack(service.db, created["id"])
        if rows and rows[0].status == "IN_PROGRESS" and "value" in dict(
                api_resources.resource_data_get_all(service.db, rows[0].id)):
            break
        green.green_sleep(0.01)
    api_resources.resource_delete(service.db, rows[0].id)  # behind the engine's back
    stack = service.wait(CTX, created["id"])
    assert stack["stack_status"] == "CREATE_FAILED"
    assert stack["stack_status_reason"] == (
        "Resource state not stored: The Resource (slow) could not be found.")

"""Several hearth-api engines on PostgreSQL: an action moving between living engines.

An engine frozen (SIGSTOP) and taken for dead writes nothing when it wakes
(fencing); one taken for dead takes its stack back and completes it; a
stopping engine (SIGTERM) hands its action over at once; an update whose
engine died is finished by another.  A module of its own beside
``test_engine_takeover.py`` (whose fixtures and helpers it uses), so that
the two run on different workers of ``make test``.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest
import requests

from tests.fixtures.engine_kills import continued_at, layered_template, wait_settled
from tests.fixtures.engines import wait_for
from tests.functional import test_engine_takeover as takeover

LIFE = takeover.LIFE
cluster = takeover.cluster  # the fixture: two or three engines on the test's PostgreSQL
resource_statuses, stack_events = takeover.resource_statuses, takeover.stack_events

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


def acting_on(cluster, engine, name: str, template: dict, **body) -> str:
    """Create stack ``name`` through ``engine``; return its id once its first layer waits there."""
    answer = requests.post(f"{engine.url}/stacks", timeout=30,
                           json={"stack_name": name, "template": template, **body})
    assert answer.status_code == 201, answer.text
    stack_id = answer.json()["stack"]["id"]
    wait_for(lambda: cluster.acting(stack_id) is engine, 20)
    time.sleep(1)  # the first layer is waiting
    return stack_id


def test_an_engine_taken_for_dead_writes_nothing_when_it_wakes(cluster):
    """A frozen engine (SIGSTOP) is taken over; woken (SIGCONT), its writes are refused."""
    import signal

    from tests.fixtures.engine_kills import count_markers
    first, second = cluster.start(2)
    template = layered_template(resources=6, layers=2, wait=3)
    stack_id = acting_on(cluster, first, "frozen", template, environment={
        "resource_registry": {"OS::Heat::TestResource": "Test::CountedResource"}})
    first.process.send_signal(signal.SIGSTOP)
    try:
        wait_for(lambda: cluster.acting(stack_id) is second, 30, what="the takeover")
    finally:
        first.process.send_signal(signal.SIGCONT)
    settled = wait_settled(cluster, "frozen", stack_id, 60)
    assert settled["stack_status"] == "CREATE_COMPLETE", settled
    made, adopted = count_markers(cluster.markers, "frozen")
    # each handle ran once: the woken engine started none (frozen while the first layer
    # waited: no handle was between its run and its stored result)
    assert made == {f"r{index}": 1 for index in range(6)} and adopted == 0
    events = stack_events(cluster, "frozen", stack_id)
    assert [e for e in events if e[0] == "frozen"][-1][1:] == (
        "CREATE_COMPLETE", "Stack CREATE completed successfully")
    assert all(e[1] != "CREATE_FAILED" for e in events), events  # the woken engine wrote none
    time.sleep(1)  # its next beat: it sees the lock gone and stops
    log = first.log.read_text()
    assert "was taken over by another engine" in log or "no longer holds the lock" in log, log
    assert first.alive()


def test_an_engine_that_takes_its_stack_back_completes_it(cluster):
    """Taken for dead, then taking the stack back from a frozen engine: it completes it.

    Writes refused while the other engine held the lock lost nothing (that
    engine went on from what was stored) and must not fail the action this
    one finishes later: on a loaded machine bench/takeover_bench.py ended
    CREATE_FAILED 'Resource state not stored: Engine ... no longer holds the
    lock'.  Here the woken engine usually sees the lock gone at its next beat
    before a write is refused, so this checks the taking back, not always
    that refusal.
    """
    import signal
    first, second = cluster.start(2)
    template = layered_template(resources=6, layers=2, wait=3)
    stack_id = acting_on(cluster, first, "back", template)
    first.process.send_signal(signal.SIGSTOP)
    try:
        wait_for(lambda: cluster.acting(stack_id) is second, 30, what="the takeover")
        second.process.send_signal(signal.SIGSTOP)
        first.process.send_signal(signal.SIGCONT)  # its writes now refused; it stops the walk
        wait_for(lambda: cluster.acting(stack_id) is first, 30, what="the stack taken back")
    finally:
        first.process.send_signal(signal.SIGCONT)
        second.process.send_signal(signal.SIGCONT)
    settled = wait_settled(cluster, "back", stack_id, 60)
    assert settled["stack_status"] == "CREATE_COMPLETE", settled
    statuses = resource_statuses(cluster, "back", stack_id)
    assert set(statuses.values()) == {"CREATE_COMPLETE"}, statuses


def test_a_stopping_engine_hands_its_action_over_at_once(cluster):
    """SIGTERM (a rolling restart): the action goes on in another engine, nothing fails."""
    first, second = cluster.start(2)
    template = layered_template(resources=4, layers=2, wait=3)
    stack_id = acting_on(cluster, first, "moved", template)
    first.stop()
    stopped = datetime.now(UTC).replace(tzinfo=None)
    settled = wait_settled(cluster, "moved", stack_id, 60)
    assert settled["stack_status"] == "CREATE_COMPLETE", settled
    # a deregistered engine is dead at once: no life checks to wait for
    assert (continued_at(cluster, stack_id) - stopped).total_seconds() < 3 * LIFE
    events = stack_events(cluster, "moved", stack_id)
    assert not [e for e in events if e[1].endswith("FAILED")], events
    assert [e[2] for e in events if e[0] == "moved" and "continued" in e[2]] != [], events


def counted(value: object, **properties) -> dict:
    return {"type": "Test::CountedResource", "properties": {"value": value, **properties}}


def test_an_update_whose_engine_died_is_finished_by_another(cluster):
    """In place, replaced, added, removed and not yet reached resources, the engine killed.

    ``reader``, the same in both templates, reads the replaced resource's
    attribute: the continued update compares it with the properties it
    stored (Heat's properties_data), so it is updated once, to the new value.
    """
    from tests.fixtures.engine_kills import count_markers
    first, _second = cluster.start(2)
    waits = {"action_wait_secs": {"update": 4, "create": 4}}
    reader = counted({"get_attr": ["replaced", "output"]})
    before = {"heat_template_version": "2021-04-16", "resources": {
        "inplace": counted("a"), "replaced": counted("a", update_replace=True),
        "removed": counted("a"), "reader": reader,
        "later": {**counted("a"), "depends_on": ["inplace"]}}}
    created = cluster.request("POST", "/stacks", json={"stack_name": "upd", "template": before})
    stack_id = created.json()["stack"]["id"]
    assert wait_settled(cluster, "upd", stack_id, 60)["stack_status"] == "CREATE_COMPLETE"
    after = {"heat_template_version": "2021-04-16", "resources": {
        "inplace": counted("b", **waits), "replaced": counted("b", update_replace=True, **waits),
        "added": counted("b", **waits), "reader": reader,
        "later": {**counted("b"), "depends_on": ["inplace"]}},
        "outputs": {name: {"value": {"get_attr": [name, "output"]}}
                    for name in ("inplace", "replaced", "added", "later", "reader")}}
    updated = requests.put(f"{first.url}/stacks/upd/{stack_id}", json={"template": after},
                           timeout=30)
    assert updated.status_code == 202, updated.text
    wait_for(lambda: {name: status for name, status in resource_statuses(
        cluster, "upd", stack_id).items() if name in ("inplace", "replaced", "added")}
        == {"inplace": "UPDATE_IN_PROGRESS", "replaced": "CREATE_IN_PROGRESS",
            "added": "CREATE_IN_PROGRESS"}, 30)
    time.sleep(1)
    first.kill()
    settled = wait_settled(cluster, "upd", stack_id, 60)
    assert (settled["stack_status"], settled["stack_status_reason"]) == (
        "UPDATE_COMPLETE", "Stack UPDATE completed successfully"), settled
    outputs = {o["output_key"]: o["output_value"] for o in settled["outputs"]}
    assert outputs == {"inplace": "b", "replaced": "b", "added": "b", "later": "b",
                       "reader": "b"}
    assert set(resource_statuses(cluster, "upd", stack_id)) == {
        "inplace", "replaced", "added", "later", "reader"}
    events = stack_events(cluster, "upd", stack_id)
    assert [e[1:] for e in events if e[0] == "inplace"][-3:] == [
        ("UPDATE_IN_PROGRESS", "state changed"),
        ("UPDATE_IN_PROGRESS",
         "Engine went down during the action: continued by another engine"),
        ("UPDATE_COMPLETE", "state changed")], events
    assert [e[1] for e in events if e[0] == "reader"] == [
        "CREATE_IN_PROGRESS", "CREATE_COMPLETE", "UPDATE_IN_PROGRESS", "UPDATE_COMPLETE"], events
    made, _adopted = count_markers(cluster.markers, "upd")
    # the original and one replacement; one of each other: nothing made twice
    assert made == {"inplace": 1, "replaced": 2, "removed": 1, "added": 1, "later": 1,
                    "reader": 1}

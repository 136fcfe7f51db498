"""JobTable: batches, held agents, missing reasons, completion."""

import collections

from hearth.master.jobs import JobState, JobTable, snapshot_from_cache


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def job(targeted, batch=None, timeout=5.0):
    return JobState(jid="20260101000000000000", fun="test.ping", args=[], kwargs={},
                    target="*", target_type="glob", targeted=list(targeted), batch=batch,
                    timeout=timeout, waiting=collections.deque(targeted))


def test_everyone_at_once_and_done_when_all_returned():
    table, state = JobTable(), job(["a", "b", "c"])
    table.add(state)
    assert table.next_agents(state, lambda agent: agent != "c") == ["a", "b"]
    assert state.not_connected == {"c"}
    assert table.returned(state, "a", {"return": True})
    assert not table.returned(state, "a", {"return": True})  # a resent return
    assert not table.returned(state, "z", {"return": True})  # never targeted
    assert not state.done
    table.returned(state, "b", {"return": True})
    assert state.done
    assert state.missing() == {"c": "Not connected"}


def test_batch_slots_free_on_return_and_on_silence():
    clock = Clock()
    table, state = JobTable(clock), job(["a", "b", "c", "d"], batch=2, timeout=5)
    table.add(state)
    assert table.next_agents(state, lambda agent: True) == ["a", "b"]
    assert table.next_agents(state, lambda agent: True) == []
    table.returned(state, "a", {"return": True})
    assert table.next_agents(state, lambda agent: True) == ["c"]
    clock.now = 6.0
    assert table.time_out(lambda agent, jid: agent == "c") == [state]  # c still runs it
    assert state.timed_out == {"b"}
    assert table.next_agents(state, lambda agent: True) == ["d"]
    assert state.missing() == {"b": "No response", "c": "No response", "d": "No response"}


def test_held_agents_get_the_job_when_they_reconnect():
    table, state = JobTable(), job(["a", "b"])
    table.add(state)
    assert table.next_agents(state, lambda agent: agent == "a", hold=lambda agent: True) == ["a"]
    assert state.held == {"b"} and not state.done
    assert table.release("b") == [state]
    assert state.held == set() and "b" in state.in_flight
    other = job(["x"])
    other.jid = "20260101000000000001"
    table.add(other)
    table.next_agents(other, lambda agent: False, hold=lambda agent: True)
    assert table.give_up_held() == [other]
    assert other.not_connected == {"x"} and other.done


def test_snapshot_from_cache():
    data = {"jid": "j", "function": "test.ping", "args": [], "kwargs": {}, "target": "*",
            "target_type": "glob", "targeted": ["a", "b", "c"], "not_connected": ["c"],
            "returns": {"a": {"return": True}}}
    snapshot = snapshot_from_cache(data)
    assert snapshot["missing"] == {"b": "No response", "c": "Not connected"}
    assert snapshot["done"] is False and snapshot["held"] is False
    # its master recorded it finished, having given b up: done (a client stops waiting)
    finished = snapshot_from_cache({**data, "finished_at": "2026-01-01T00:00:05"})
    assert finished["done"] is True and finished["missing"] == snapshot["missing"]


def test_a_silent_agent_ends_a_job_without_batch_after_its_timeout():
    clock = Clock()
    table, state = JobTable(clock), job(["a", "b", "c"], timeout=2)
    table.add(state)
    assert table.next_agents(state, lambda agent: True) == ["a", "b", "c"]
    table.returned(state, "a", {"return": True})
    clock.now = 1.0
    assert table.time_out(lambda agent, jid: False) == [] and not state.done
    clock.now = 3.0
    assert table.time_out(lambda agent, jid: agent == "c") == [state]  # c still runs it
    assert state.timed_out == {"b"} and not state.done
    table.returned(state, "c", {"return": True})
    assert state.done
    assert state.missing() == {"b": "No response"}


def test_an_agent_back_while_a_batch_is_full_waits_first_in_line():
    table, state = JobTable(), job(["a", "b", "c"], batch=1)
    table.add(state)
    # nobody connected yet (a master that just took the job over): all held
    assert table.next_agents(state, lambda agent: False, hold=lambda agent: True) == []
    assert state.held == {"a", "b", "c"}
    assert table.release("a") == [state] and list(state.in_flight) == ["a"]
    assert table.release("b") == [] and list(state.waiting) == ["b"]   # the slot is taken
    table.returned(state, "a", {"return": True})
    assert table.next_agents(state, lambda agent: agent == "b") == ["b"]


def test_an_agent_that_returned_while_waiting_its_turn_is_not_sent_the_job():
    # after a takeover: an agent held for its reconnection comes back while the batch is
    # full, and its first message is the return it kept of the dead master's job; its turn
    # must not take a batch slot (the agent would not answer the job it ran: the slot would
    # stay taken until the job's timeout)
    table, state = JobTable(), job(["a", "b", "c", "d"], batch=2)
    table.add(state)
    connected = {"a", "b", "c"}
    assert table.next_agents(state, connected.__contains__, hold=lambda agent: True) == \
        ["a", "b"]
    connected.add("d")
    assert table.release("d") == []           # the batch is full: first in line
    assert table.returned(state, "d", {"return": True})
    table.returned(state, "a", {"return": True})
    assert table.next_agents(state, connected.__contains__) == ["c"]   # not d again
    assert list(state.in_flight) == ["b", "c"]
    held = job(["e"], batch=1)
    held.jid = "20260101000000000001"
    table.add(held)
    assert table.next_agents(held, lambda agent: False, hold=lambda agent: True) == []
    table.returned(held, "e", {"return": True})   # its return came before its hello
    assert table.release("e") == [] and held.in_flight == {}
    table.returned(state, "b", {"return": True})
    table.returned(state, "c", {"return": True})
    assert table.next_agents(state, connected.__contains__) == []
    assert state.done and held.done


def test_returns_to_unknown_jobs_are_kept_a_while():
    clock = Clock()
    table = JobTable(clock)
    table.orphan("20260101000000000001", "a", {"return": 1})
    table.orphan("20260101000000000001", "b", {"return": 2})
    clock.now = 60
    table.orphan("20260101000000000002", "a", {"return": 3})
    assert table.orphans("20260101000000000001") == {"a": {"return": 1}, "b": {"return": 2}}
    assert table.orphans("20260101000000000001") == {}   # handed over once
    clock.now = 300                                       # kept 120 s
    table.orphan("20260101000000000003", "a", {"return": 4})
    assert table.orphans("20260101000000000002") == {}
    assert table.orphans("20260101000000000003") == {"a": {"return": 4}}

"""A stopped master's job rebuilt to go on: returns counted in, the rest still to send."""

import datetime

from hearth.master.takeover import job_from_record

RECORD = {"jid": "20260101000000000000", "fun": "test.sleep", "args": [1], "kwargs": {},
          "target": "*", "target_type": "glob", "targeted": ["a", "b", "c", "d", "e"],
          "not_connected": ["e"], "user": "ops", "batch": 2, "timeout": None,
          "started_at": datetime.datetime(2026, 1, 1, 12, 0, 0),
          "returns": {"a": {"return": True, "retcode": 0, "success": True, "out": None}}}


def test_a_job_goes_on_with_the_agents_that_owe_a_return():
    late = {"b": {"return": True, "retcode": 0, "success": True, "out": None},
            "z": {"return": True, "retcode": 0, "success": True, "out": None}}
    job = job_from_record(RECORD, late, default_timeout=5.0)
    assert sorted(job.returns) == ["a", "b"]          # stored, and brought here meanwhile
    assert list(job.waiting) == ["c", "d"]            # in order; never one not targeted
    assert job.not_connected == {"e"}
    assert (job.batch, job.timeout, job.user, job.fun, job.args) == (2, 5.0, "ops",
                                                                     "test.sleep", [1])
    assert job.started_at == datetime.datetime(2026, 1, 1, 12, tzinfo=datetime.UTC)
    assert not job.done


def test_a_job_every_agent_returned_to_is_done():
    late = {agent: {"return": True} for agent in "bcd"}
    job = job_from_record({**RECORD, "timeout": 9}, late, default_timeout=5.0)
    assert job.done and job.timeout == 9.0 and job.missing() == {"e": "Not connected"}

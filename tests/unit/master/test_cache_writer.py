"""The master's job-cache writer: what it records and how it answers whose a job is (fencing)."""

import datetime
import queue

from hearth.db import api_masters
from hearth.master.cache import JobCacheWriter

NOW = datetime.datetime(2026, 1, 1, 12, 0, tzinfo=datetime.UTC)
JID = "20260101120000000007"


def record(master_id, finished=False):
    return {"jid": JID, "fun": "test.ping", "args": [], "kwargs": {}, "target": "*",
            "target_type": "glob", "targeted": ["a"], "not_connected": [], "user": None,
            "started_at": NOW, "master_id": master_id, "batch": 1, "timeout": 5.0,
            "finished_at": NOW if finished else None}


def answers(writer, calls):
    """Run ``calls(then)`` on ``writer``; return the answers ``then`` got, in order."""
    got = queue.SimpleQueue()
    for call in calls:
        call(got.put)
    return [got.get(timeout=10) for _ in calls]


def test_a_master_is_told_when_another_one_took_its_job(db):
    writer = JobCacheWriter(db, 3600, on_stored=lambda stored: None,
                            on_death=lambda reason: None)
    try:
        # its own job: recorded, and its own when it asks before sending to more agents
        assert answers(writer, [lambda then: writer.job(record("paused"), then),
                                lambda then: writer.owned(JID, "paused", then)]) == [True, True]
        assert api_masters.jobs_claim(db, "paused", "taker") == [JID]
        # taken over while it was paused: not its own to send, nor to record finished
        assert answers(writer, [lambda then: writer.owned(JID, "paused", then),
                                lambda then: writer.job(record("paused", True), then),
                                lambda then: writer.owned(JID, "taker", then)]) == \
            [False, False, True]
    finally:
        writer.close()


def test_without_a_job_cache_every_job_is_its_masters(db):
    writer = JobCacheWriter(db, 0, on_stored=lambda stored: None, on_death=lambda reason: None)
    try:
        assert answers(writer, [lambda then: writer.owned(JID, "alone", then)]) == [True]
    finally:
        writer.close()

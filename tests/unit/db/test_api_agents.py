"""The master's job cache tables: published jobs, returns, agents; expiry cascades."""

import datetime

from hearth.db import api_agents, job_cache

NOW = datetime.datetime(2026, 1, 1, 12, 0, tzinfo=datetime.UTC)


def publish(db, jid, expires_at=None):
    api_agents.jobs_publish_store(db, [{
        "jid": jid, "fun": "test.ping", "args": [], "kwargs": {}, "target": "web*",
        "target_type": "glob", "targeted": ["web1", "web2"], "not_connected": ["web2"],
        "user": "ops", "started_at": NOW,
        "expires_at": expires_at or NOW + datetime.timedelta(days=1)}])


def ret(jid, agent_id, value=True):
    return {"jid": jid, "id": agent_id, "return": value, "retcode": 0, "success": True,
            "out": None, "received_at": NOW}


def test_returns_are_stored_once_and_shown_with_the_job(db):
    publish(db, "20260101120000000001")
    stored = api_agents.job_returns_store(db, [ret("20260101120000000001", "web1"),
                                               ret("20260101120000000001", "web1", "again"),
                                               ret("20260101120000000001", "db9"),
                                               ret("20990101000000000000", "web1")])
    assert [r["id"] for r in stored] == ["web1"]
    assert api_agents.job_returns_store(db, [ret("20260101120000000001", "web1")]) == []
    job = job_cache.job_get(db, "20260101120000000001", clock=lambda: NOW)
    assert job["targeted"] == ["web1", "web2"] and job["not_connected"] == ["web2"]
    assert job["target_type"] == "glob" and job["user"] == "ops"
    assert job["returns"] == {"web1": {"return": True, "retcode": 0, "success": True,
                                       "out": None}}


def test_expired_jobs_go_with_their_returns(db):
    publish(db, "20260101120000000002", expires_at=NOW - datetime.timedelta(seconds=1))
    api_agents.job_returns_store(db, [ret("20260101120000000002", "web1")])
    assert job_cache.job_purge_expired(db, clock=lambda: NOW) == 1
    publish(db, "20260101120000000002")
    assert job_cache.job_get(db, "20260101120000000002", clock=lambda: NOW)["returns"] == {}


def test_agents_are_recorded_with_grains_and_last_seen(db):
    api_agents.agents_store(db, [{"id": "web1", "grains": {"os": "Debian"}, "last_seen": NOW}])
    later = NOW + datetime.timedelta(minutes=5)
    api_agents.agents_store(db, [{"id": "web1", "grains": None, "last_seen": later}])
    (agent,) = api_agents.agents_list(db)
    assert agent["id"] == "web1" and agent["grains"] == {"os": "Debian"}
    assert agent["last_seen"] == later.replace(tzinfo=None)
    api_agents.agents_delete(db, ["web1"])
    assert api_agents.agents_list(db) == []


def test_a_fleet_is_recorded_in_one_batch(db):
    later = NOW + datetime.timedelta(minutes=5)
    api_agents.agents_store(db, [{"id": "web1", "grains": {"os": "Debian"}, "last_seen": NOW}])
    fleet = [{"id": f"sim{n:04d}", "grains": {"n": n}, "last_seen": NOW} for n in range(1200)]
    api_agents.agents_store(db, [*fleet, {"id": "web1", "grains": None, "last_seen": later},
                                 {"id": "sim0001", "grains": {"n": "again"},
                                  "last_seen": later}])
    agents = {agent["id"]: agent for agent in api_agents.agents_list(db)}
    assert len(agents) == 1201
    assert agents["web1"]["grains"] == {"os": "Debian"}  # None kept the stored grains
    assert agents["web1"]["last_seen"] == later.replace(tzinfo=None)
    assert agents["sim0001"]["grains"] == {"n": "again"}  # the batch's last record wins
    assert agents["sim0001"]["first_seen"] == later.replace(tzinfo=None)
    assert agents["sim1199"]["grains"] == {"n": 1199}


def test_returns_of_a_job_to_thousands_are_stored_in_one_batch(db):
    jid = "20260101120000000009"
    targeted = [f"sim{n:04d}" for n in range(3000)]
    api_agents.jobs_publish_store(db, [{
        "jid": jid, "fun": "test.ping", "args": [], "kwargs": {}, "target": "*",
        "target_type": "glob", "targeted": targeted, "not_connected": [], "user": None,
        "started_at": NOW, "expires_at": NOW + datetime.timedelta(days=1)}])
    stored = api_agents.job_returns_store(db, [ret(jid, agent) for agent in targeted])
    assert len(stored) == 3000
    assert len(job_cache.job_get(db, jid, clock=lambda: NOW)["returns"]) == 3000

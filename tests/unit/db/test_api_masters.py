"""Masters sharing one database: their rows, heartbeats, and one master per job taken over."""

import datetime
import threading

from hearth.db import api_agents, api_masters, api_pki

NOW = datetime.datetime(2026, 1, 1, 12, 0, tzinfo=datetime.UTC)


def master(master_id):
    return {"id": master_id, "host": "h", "pid": 1, "address": f"{master_id}:4510",
            "fingerprint": "ab:cd"}


def publish(db, jid, master_id, finished=False):
    return api_agents.jobs_publish_store(db, [{
        "jid": jid, "fun": "test.ping", "args": [], "kwargs": {}, "target": "*",
        "target_type": "glob", "targeted": ["a", "b"], "not_connected": [], "user": None,
        "started_at": NOW, "expires_at": NOW + datetime.timedelta(days=1),
        "master_id": master_id, "batch": 1, "timeout": 7.5,
        "finished_at": NOW if finished else None}])


def test_a_master_beats_and_says_when_it_stops(db):
    api_masters.master_register(db, master("m1"))
    assert api_masters.master_beat(db, "m1") and api_masters.master_beat(db, "m1")
    [row] = api_masters.masters_list(db)
    assert (row["beats"], row["stopped"], row["address"]) == (2, False, "m1:4510")
    api_masters.master_stop(db, "m1")
    assert api_masters.masters_list(db)[0]["stopped"]
    api_masters.master_forget(db, "m1")
    assert api_masters.masters_list(db) == []
    assert not api_masters.master_beat(db, "m1")      # gone: the master registers again


def test_a_dead_masters_unfinished_jobs_are_claimed_once(db):
    publish(db, "20260101120000000001", "dead")
    publish(db, "20260101120000000002", "dead", finished=True)
    publish(db, "20260101120000000003", "alive")
    api_agents.job_returns_store(db, [{"jid": "20260101120000000001", "id": "a",
                                       "return": 1, "retcode": 0, "success": True,
                                       "out": None, "received_at": NOW}])
    claims = {}

    def claim(survivor):
        claims[survivor] = api_masters.jobs_claim(db, "dead", survivor)

    racers = [threading.Thread(target=claim, args=(name,)) for name in ("s1", "s2", "s3")]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join()
    assert sorted(jid for jids in claims.values() for jid in jids) == ["20260101120000000001"]
    [record] = api_masters.jobs_load(db, ["20260101120000000001"])
    assert (record["batch"], record["timeout"], record["targeted"]) == (1, 7.5, ["a", "b"])
    assert record["returns"] == {"a": {"return": 1, "retcode": 0, "success": True,
                                       "out": None}}
    assert api_masters.jobs_claim(db, "alive", "s1") == ["20260101120000000003"]


def test_a_master_whose_job_was_taken_over_is_fenced(db):
    # a master judged dead while it was only paused: its job was claimed by another
    jid = "20260101120000000004"
    assert publish(db, jid, "paused") == set()              # its own: stored
    assert api_agents.jobs_owned(db, [jid], "paused") == {jid}
    assert api_masters.jobs_claim(db, "paused", "taker") == [jid]
    assert api_agents.jobs_owned(db, [jid], "paused") == set()
    # its later record (finished, in its view) is refused; the taker's is stored
    assert publish(db, jid, "paused", finished=True) == {jid}
    assert api_agents.jobs_owned(db, [jid], "taker") == {jid}
    assert publish(db, jid, "taker", finished=True) == set()
    assert api_masters.jobs_claim(db, "taker", "other") == []   # finished: nothing to claim


def test_the_pki_store_counts_its_changes(db):
    start = api_pki.pki_revision(db)
    api_pki.pki_write(db, "accepted", "web1", "KEY1\n")
    api_pki.pki_write(db, "accepted", "web1", "KEY2\n")
    api_pki.pki_write(db, "pending", "web2", "KEY3\n")
    assert api_pki.pki_read(db, "accepted", "web1") == "KEY2\n"
    assert api_pki.pki_values(db, "accepted") == {"web1": "KEY2\n"}
    assert api_pki.pki_names(db, "pending") == ["web2"]
    assert api_pki.pki_remove(db, "pending", "web2")
    assert not api_pki.pki_remove(db, "pending", "web2")
    assert api_pki.pki_read(db, "pending", "web2") is None
    assert api_pki.pki_revision(db) == start + 4      # a removal of nothing is no change

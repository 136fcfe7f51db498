"""Masters watching each other through their database: liveness by heartbeat counts, takeover."""

import datetime

import pytest

from hearth.common.exception import DaemonStartFailed
from hearth.db import api_agents, api_masters
from hearth.master.keys import KeyStore
from hearth.master.peers import MasterPeers, check_peers
from hearth.master.settings import MasterSettings
from hearth.master.storage import DatabasePki

NOW = datetime.datetime(2026, 1, 1, 12, 0)
SETTINGS = MasterSettings(heartbeat_interval=3600, peer_timeout=5)


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def record(master_id, fingerprint="ab"):
    return {"id": master_id, "host": "h", "pid": 1, "address": f"{master_id}:4510",
            "fingerprint": fingerprint}


@pytest.fixture
def watcher(db, tmp_path):
    """Return a maker of MasterPeers on ``db`` (beats by hand), closed after the test."""
    made = []

    def make(master_id, clock, posted, pillar_digest=None):
        keys = KeyStore(str(tmp_path / master_id), store=DatabasePki(db))
        peers = MasterPeers(db, record(master_id), SETTINGS, keys, on_death=posted.append,
                            on_adopt=lambda *args: posted.append(("adopt", *args)),
                            on_keys_gone=lambda ids: posted.append(("keys", ids)),
                            pillar_digest=pillar_digest, clock=clock)
        made.append(peers)
        return peers

    yield make
    for peers in made:
        peers.close(timeout=0.1)


def test_a_master_whose_beats_stop_is_taken_over_after_peer_timeout(db, watcher):
    clock, posted = Clock(), []
    alive = watcher("alive", clock, posted)
    api_masters.master_register(db, record("dead"))
    api_agents.jobs_publish_store(db, [{
        "jid": "20260101120000000001", "fun": "test.ping", "args": [], "kwargs": {},
        "target": "*", "target_type": "glob", "targeted": ["a"], "not_connected": [],
        "user": None, "started_at": NOW, "expires_at": None, "master_id": "dead"}])
    alive.beat()
    assert {peer["id"]: peer["self"] for peer in alive.view} == {"dead": False, "alive": True}
    clock.now += 4
    api_masters.master_beat(db, "dead")           # it beat: silence counts from now
    alive.beat()
    clock.now += 4.9
    alive.beat()
    assert posted == []
    clock.now += 0.2
    alive.beat()
    [(kind, peer, records)] = posted
    assert (kind, peer["id"], [r["jid"] for r in records]) == (
        "adopt", "dead", ["20260101120000000001"])
    assert [row["id"] for row in api_masters.masters_list(db)] == ["alive"]


def test_a_stopped_master_is_taken_over_at_once(db, watcher):
    clock, posted = Clock(), []
    alive = watcher("alive", clock, posted)
    api_masters.master_register(db, record("leaving"))
    api_masters.master_stop(db, "leaving")
    alive.beat()
    assert posted == []                            # no job left: nothing to hand over
    assert [row["id"] for row in api_masters.masters_list(db)] == ["alive"]


def test_a_key_change_on_another_master_is_noticed(db, watcher, tmp_path):
    clock, posted = Clock(), []
    alive = watcher("alive", clock, posted)
    other = KeyStore(str(tmp_path / "other"), store=DatabasePki(db), auto_accept=True)
    assert other.authenticate("web1", b"K" * 40).status == "accepted"
    alive.beat()
    assert posted == [("keys", [])] and alive._keys.agent_of(b"K" * 40) == "web1"
    other.delete("web1")
    alive.beat()
    assert posted[-1] == ("keys", ["web1"]) and alive._keys.agent_of(b"K" * 40) is None


def test_a_live_master_with_another_key_pair_is_refused():
    peers = [{**record("m1", "cd"), "stopped": False, "beat_at": NOW, "beats": 1},
             {**record("m2", "ef"), "stopped": True, "beat_at": NOW, "beats": 1},
             {**record("m3", "ef"), "stopped": False,
              "beat_at": NOW - datetime.timedelta(seconds=11), "beats": 1}]
    check_peers(peers[1:], record("me", "ab"), SETTINGS, NOW)   # stopped, or long silent
    with pytest.raises(DaemonStartFailed) as raised:
        check_peers(peers, record("me", "ab"), SETTINGS, NOW)
    assert str(raised.value).startswith(
        "the master at m1:4510 (host h, pid 1) shares this database with another key pair "
        "(fingerprint cd; this master's is ab): agents failing over from one to the other "
        "would refuse one of them.")


def test_a_peer_with_another_pillar_is_reported_once(db, watcher, caplog):
    clock, posted = Clock(), []
    digests = {"one": "a" * 64, "two": "a" * 64}
    one = watcher("one", clock, posted, pillar_digest=lambda: digests["one"])
    two = watcher("two", clock, posted, pillar_digest=lambda: digests["two"])
    two.beat()
    one.beat()
    assert [peer["pillar"] for peer in one.view if not peer["self"]] == ["same"]
    digests["two"] = "b" * 64                      # its pillar tree changed
    two.beat()                                     # (it warns about one, too)
    caplog.clear()
    with caplog.at_level("WARNING", logger="hearth.master.peers"):
        one.beat()
        one.beat()
    assert [peer["pillar"] for peer in one.view if not peer["self"]] == ["differs"]
    warnings = [r.getMessage() for r in caplog.records if "another pillar" in r.getMessage()]
    assert warnings == [
        "the master at two:4510 (host h, pid 1) compiles pillar from another configuration "
        "than this one (the [pillar] options, its config_file or the files of pillar_roots "
        "differ): an agent failing over between them gets another pillar. Give every master "
        "the same pillar configuration and tree"]


def test_a_pillar_digest_that_cannot_be_made_is_unknown(db, watcher):
    clock, posted = Clock(), []

    def broken():
        raise ValueError("config_file is not YAML")

    one = watcher("one", clock, posted, pillar_digest=broken)
    watcher("two", clock, posted, pillar_digest=lambda: "a" * 64).beat()
    one.beat()                                      # beats all the same
    assert [peer["pillar"] for peer in one.view if not peer["self"]] == ["unknown"]

"""Salt's published master advisories, proven absent through a raw ZeroMQ peer (issue 20).

* CVE-2020-11651 class: the master's methods reachable without an accepted
  key.  Nothing but the auth handshake answers a key that was never
  accepted (unknown, pending or rejected), and an accepted agent cannot
  call what only clients may (keys, publish).
* CVE-2020-11652 class: path traversal through master requests.  An agent
  id or any request field that could become a file path (``../../x``) is
  refused, and nothing is written outside the master's directories.
"""

from __future__ import annotations

import json
import time

import pytest

from tests.fixtures.raw_peer import RawPeer

#: What only a client (the master's own client key) may ask.
CLIENT_REQUESTS = [
    {"rid": 1, "op": "keys"},
    {"rid": 2, "op": "key_accept", "pattern": "*", "include_rejected": True},
    {"rid": 3, "op": "publish", "target": "*", "fun": "cmd.run", "args": ["touch PWNED"],
     "targeted": ["web1"]},
    {"rid": 4, "op": "agent_pillar", "id": "web1"},
    {"rid": 5, "op": "key_preseed", "id": "intruder"},
    {"rid": 6, "op": "list_jobs"},
    {"rid": 7, "op": "events", "tag": ""},
]
#: What an accepted agent may ask for itself.
AGENT_REQUESTS = [
    {"cmd": "hello", "grains": {}},
    {"cmd": "req", "rid": 8, "op": "pillar"},
    {"cmd": "req", "rid": 9, "op": "modules_list"},
]
TRAVERSING_IDS = ["../../evil", "..", "../", "a/../../evil", "/tmp/evil", "./evil",
                  "evil/..", ".evil", "evil\x00.key", "evil\\..\\x", "%2e%2e%2fevil"]


def silent(peer: RawPeer, seconds: float = 1.0) -> list[dict]:
    """Return whatever the master sent ``peer`` within ``seconds`` (expected: nothing)."""
    received = []
    deadline = time.monotonic() + seconds
    while (remaining := deadline - time.monotonic()) > 0:
        message = peer.receive(remaining)
        if message is not None:
            received.append(message)
    return received


def keys_of(master) -> dict[str, list[str]]:
    with master.client() as client:
        return client.list_keys()


def files_under(directory) -> set[str]:
    return {str(path.relative_to(directory)) for path in directory.rglob("*")}


def assert_nothing_written(master, before: set[str], *allowed: str) -> None:
    """Only the master's log, its database's files and ``allowed`` may have appeared."""
    created = files_under(master.directory) - before
    assert {name for name in created if not name.endswith((".log", "-wal", "-shm", "-journal"))
            and name not in allowed} == set()
    for outside in (master.directory.parent / "evil", master.pki_dir.parent / "evil"):
        assert not outside.exists()


# --- CVE-2020-11651: nothing but the handshake without an accepted key ----------------

def test_an_unknown_key_reaches_nothing_on_the_job_port(manual_master):
    before = keys_of(manual_master)
    with RawPeer(manual_master) as intruder:  # never presented on the auth port
        for message in [*CLIENT_REQUESTS, *AGENT_REQUESTS]:
            intruder.send(message)
        assert silent(intruder) == []
    assert keys_of(manual_master) == before


@pytest.mark.parametrize("status", ["pending", "rejected"])
def test_a_pending_or_rejected_key_gets_nothing(manual_master, status):
    agent_id = f"cve11651-{status}"
    with RawPeer(manual_master, agent_id) as intruder:
        assert intruder.authenticate()["status"] == "pending"
        if status == "rejected":
            with manual_master.client() as client:
                client.reject_key(agent_id)
            assert intruder.authenticate()["status"] == "rejected"
        for message in [*AGENT_REQUESTS, *CLIENT_REQUESTS]:
            intruder.send(message)
        assert silent(intruder) == []
    keys = keys_of(manual_master)
    assert agent_id in keys[status] and agent_id not in keys["accepted"]
    assert "intruder" not in sum(keys.values(), [])


def test_the_auth_port_answers_only_the_handshake(manual_master):
    with RawPeer(manual_master) as intruder:
        socket = intruder.auth_socket()
        for message in CLIENT_REQUESTS:
            socket.send(json.dumps({**message, "id": "cve11651-auth"}).encode())
        answers = []
        while socket.poll(1000):
            answers.append(json.loads(socket.recv()))
    assert answers and all(set(answer) == {"status", "master_pub"} for answer in answers)
    assert {answer["status"] for answer in answers} == {"pending"}
    keys = keys_of(manual_master)
    assert "cve11651-auth" in keys["pending"] and "intruder" not in sum(keys.values(), [])


def test_an_accepted_agent_cannot_call_client_methods(auto_master, tmp_path):
    before = keys_of(auto_master)
    with auto_master.client() as client:
        jobs_before = len(client.list_jobs())
    with RawPeer(auto_master, "cve11651-agent") as agent:
        agent.join()
        for message in CLIENT_REQUESTS:
            agent.send(message)
        assert silent(agent) == []
    after = keys_of(auto_master)
    assert after["accepted"] == sorted({*before["accepted"], "cve11651-agent"})
    assert after["pending"] == before["pending"]
    with auto_master.client() as client:
        assert len(client.list_jobs()) == jobs_before


# --- CVE-2020-11652: no request field becomes a path --------------------------------

@pytest.mark.parametrize("agent_id", TRAVERSING_IDS)
def test_an_agent_id_that_is_a_path_is_refused(auto_master, agent_id):
    before = files_under(auto_master.directory)
    with RawPeer(auto_master) as intruder:
        reply = intruder.authenticate(agent_id)
    assert reply["status"] == "rejected"
    assert_nothing_written(auto_master, before)
    assert agent_id not in sum(keys_of(auto_master).values(), [])


def test_request_fields_that_are_paths_are_refused(auto_master):
    from hearth.common import exception

    before = files_under(auto_master.directory)
    with auto_master.client() as client:
        for op, field in (("agent_pillar", "id"), ("key_preseed", "id"),
                          ("key_enroll", "id")):
            for agent_id in TRAVERSING_IDS[:5]:
                # refused: a bad id, or no accepted agent of that id (a 404 behind the API)
                with pytest.raises((exception.MasterRequestFailed,
                                    exception.AgentKeyNotFound)):
                    client._request(op, **{field: agent_id}, ttl=60)
        for pattern in ("../*", "../../*", "*/../*", "/*"):
            for op in ("key_accept", "key_reject", "key_delete"):
                with pytest.raises(exception.AgentKeyNotFound, match="could not be found"):
                    client._request(op, pattern=pattern)
        for jid in ("../../etc/passwd", "/etc/passwd", "..", "20260101000000000000/../x"):
            with pytest.raises(exception.JobNotFound):
                client.job_status(jid)
    with RawPeer(auto_master, "cve11652-agent") as agent:
        agent.join()
        for rid, name in enumerate(("../../../etc/passwd", "/etc/passwd", "..", "../pki",
                                    "x/../../../etc/hostname"), start=100):
            agent.send({"cmd": "req", "rid": rid, "op": "module_get", "name": name})
            reply = agent.receive_until(lambda m, rid=rid: m.get("rid") == rid)
            assert reply is not None and "data" not in reply, reply
            assert "No module file" in reply["error"]["message"]
    assert_nothing_written(auto_master, before, "pki/master/accepted/cve11652-agent")

"""Agent keys as salt-key keeps them, and what an unaccepted key can (not) do.

The raw-client tests speak ZeroMQ CURVE with pyzmq directly, not through
hearth-agent, to show the master itself refuses them.
"""

import json
import threading
import time

import pytest
import zmq

from hearth.transport import certificates
from hearth.transport import keys as transport_keys
from tests.fixtures.agents import wait_answering


def key_list(master):
    result = master.stackctl("key-list", "--format", "json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def wait_for(condition, timeout=15.0, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


class RawPeer:
    """A CURVE client made with pyzmq alone, with a key pair of its own."""

    def __init__(self, master):
        self.master = master
        self.public, self.secret = zmq.curve_keypair()
        self.context = zmq.Context()
        self.sockets = []

    def _socket(self, port, server_key):
        socket = self.context.socket(zmq.DEALER)
        socket.setsockopt(zmq.LINGER, 0)
        socket.curve_publickey, socket.curve_secretkey = self.public, self.secret
        socket.curve_serverkey = server_key
        socket.connect(f"tcp://127.0.0.1:{port}")
        self.sockets.append(socket)
        return socket

    def authenticate(self, agent_id):
        """Present ``agent_id`` on the auth port; return the master's answer."""
        socket = self._socket(self.master.auth_port, transport_keys.AUTH_BOOTSTRAP.public)
        socket.send_json({"id": agent_id})
        assert socket.poll(5000), "the auth port did not answer"
        return socket.recv_json()

    def job_socket(self):
        """Connect to the job port with the master's real key."""
        master_public = certificates.load_public(str(self.master.pki_dir / "master.key"))
        return self._socket(self.master.port, master_public)

    def close(self):
        for socket in self.sockets:
            socket.close()
        self.context.term()


@pytest.fixture
def raw_peer():
    peers = []

    def make(master):
        peer = RawPeer(master)
        peers.append(peer)
        return peer

    yield make
    for peer in peers:
        peer.close()


@pytest.mark.slow
def test_new_agent_waits_pending_until_accepted(manual_master, agents_of):
    master = manual_master
    agents_of(master, "fresh1")
    wait_for(lambda: "fresh1" in key_list(master)["minions_pre"], what="a pending key")
    listed = key_list(master)
    assert sorted(listed) == ["minions", "minions_denied", "minions_pre", "minions_rejected"]
    assert "fresh1" not in listed["minions"]
    refused = master.stackctl("run", "fresh1", "test.ping")
    assert refused.returncode == 2 and "No agents matched" in refused.stderr
    no_yes = master.stackctl("key-accept", "fresh1")
    assert no_yes.returncode == 1
    assert "refusing to accept without --yes when stdin is not a terminal" in no_yes.stderr
    events = []
    with master.client() as listener:
        stream = listener.events("hearth/", timeout=3)
        accepted = master.stackctl("key-accept", "fresh1", "--yes")
        assert accepted.returncode == 0 and accepted.stdout == "Accepted key: fresh1\n"
        wait_answering(master, ["fresh1"], timeout=20)
        events = [(tag, data) for tag, data in stream if not tag.startswith("hearth/job/")]
    assert "fresh1" in key_list(master)["minions"]
    seen = [(tag, data.get("id"), data.get("act")) for tag, data in events]
    assert ("hearth/key", "fresh1", "accept") in seen
    assert ("hearth/auth", "fresh1", "accept") in seen
    assert ("hearth/agent/fresh1/start", "fresh1", None) in seen
    assert {"new": ["fresh1"], "lost": []} in [
        {key: data[key] for key in ("new", "lost")} for tag, data in events
        if tag == "hearth/presence/change"]


def test_a_job_right_after_key_accept_waits_for_the_agent_to_join(master_dir, agents_of):
    """As README's example does: accept the keys, then run at once; every agent answers.

    Hearth's timings (an agent retries its key every 2 s; agent_timeout 4 s), and a
    master past its start-up grace: the agents are awaited because just accepted.
    """
    master = master_dir(auto_accept=False, fast=False)
    agents_of(master, "eager1", "eager2", fast=False)
    wait_for(lambda: {"eager1", "eager2"} <= set(key_list(master)["minions_pre"]),
             what="two pending keys")
    stats = json.loads(master.stackctl("master-stats", "--format", "json").stdout)
    time.sleep(max(0.0, 4.5 - stats["uptime"]))   # past the start-up grace
    accepted = master.stackctl("key-accept", "eager*", "--yes")
    assert accepted.returncode == 0, accepted.stderr
    ran = master.stackctl("run", "eager*", "test.ping", "--format", "json")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert json.loads(ran.stdout) == {"eager1": True, "eager2": True}


@pytest.mark.slow
def test_reject_and_delete(manual_master, agents_of):
    master = manual_master
    agents_of(master, "bad1", "gone1")
    wait_for(lambda: {"bad1", "gone1"} <= set(key_list(master)["minions_pre"]),
             what="pending keys")
    assert master.stackctl("key-reject", "bad1", "--yes").stdout == "Rejected key: bad1\n"
    assert master.stackctl("key-accept", "gone*", "--yes").stdout == "Accepted key: gone1\n"
    wait_answering(master, ["gone1"], timeout=20)
    assert key_list(master)["minions_rejected"] == ["bad1"]
    assert master.stackctl("run", "bad1", "test.ping").returncode == 2
    # deleting the key of a connected agent cuts it off at once
    assert master.stackctl("key-delete", "gone1", "--yes").stdout == "Deleted key: gone1\n"
    assert master.stackctl("run", "gone1", "test.ping").returncode == 2
    # it presents itself again and is pending, as a new agent would be
    wait_for(lambda: "gone1" in key_list(master)["minions_pre"], what="the deleted agent pending")
    missing = master.stackctl("key-accept", "nobody", "--yes")
    assert missing.returncode == 1
    assert missing.stderr == "ERROR: The Agent key (nobody in pending) could not be found.\n"


@pytest.mark.slow
def test_second_agent_with_an_accepted_id_is_denied(auto_master, agents_of, tmp_path):
    master = auto_master
    agents_of(master, "twin")
    wait_answering(master, ["twin"], timeout=20)
    events = []
    listening = threading.Event()

    def listen():
        with master.client() as listener:
            for tag, data in listener.events("hearth/auth", timeout=10):
                listening.set()
                events.append((tag, data))
                if data.get("act") == "denied":
                    return

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    time.sleep(0.5)
    from tests.fixtures.agents import AgentProcess

    impostor = AgentProcess(tmp_path / "impostor", "twin", master)
    impostor.start()
    try:
        wait_for(lambda: "twin" in key_list(master)["minions_denied"], what="a denied key")
        thread.join(10)
        status = master.run("twin", "test.ping", timeout=5)
    finally:
        impostor.stop()
    assert status.returns["twin"]["return"] is True  # the original still answers
    assert ("hearth/auth", "denied") in [(tag, data["act"]) for tag, data in events]
    assert "agent twin denied" in master.log_text()


@pytest.mark.slow
def test_unknown_key_gets_nothing_and_is_not_heard(manual_master, agents_of, raw_peer):
    master = manual_master
    agents_of(master, "real1")
    wait_for(lambda: "real1" in key_list(master)["minions_pre"], what="pending")
    master.stackctl("key-accept", "real1", "--yes")
    wait_answering(master, ["real1"], timeout=20)
    peer = raw_peer(master)
    # never presented: the job port's ZAP handler refuses the CURVE handshake
    socket = peer.job_socket()
    socket.send_json({"cmd": "hello", "grains": {}})
    socket.send_json({"cmd": "event", "tag": "forged/event", "data": {}})
    with master.client() as client:
        status = master.run("*", "test.ping", timeout=3)
        assert "real1" in status.returns
        assert not socket.poll(1000), "an unknown key received something"
        # presented but pending: still refused on the job port, never targeted
        assert peer.authenticate("raw1")["status"] == "pending"
        pending_socket = peer.job_socket()
        pending_socket.send_json({"cmd": "hello", "grains": {}})
        status = master.run("*", "test.ping", timeout=3)
        assert "real1" in status.returns and "raw1" not in status.targeted
        assert not pending_socket.poll(1000), "a pending key received something"
        assert "raw1" not in [a["id"] for a in client.list_agents()]
    assert "raw1" in key_list(master)["minions_pre"]


def test_deleted_key_is_cut_off_and_its_returns_ignored(auto_master, raw_peer):
    master = auto_master
    peer = raw_peer(master)
    assert peer.authenticate("raw2")["status"] == "accepted"
    socket = peer.job_socket()
    socket.send_json({"cmd": "hello", "grains": {"os": "raw"}})
    assert socket.poll(5000) and socket.recv_json()["cmd"] == "welcome"
    with master.client() as client:
        published = client.publish("raw2", "test.ping", targeted=["raw2"])
        job = socket.recv_json()
        assert (job["cmd"], job["jid"], job["fun"]) == ("job", published.jid, "test.ping")
        assert master.stackctl("key-delete", "raw2", "--yes").returncode == 0
        # what it sends now is not acted on: its return is not recorded
        socket.send_json({"cmd": "ret", "jid": published.jid, "id": "raw2", "return": True,
                          "retcode": 0, "success": True})
        time.sleep(0.5)
        status = client.job_status(published.jid)
        assert status.returns == {} and status.missing == {"raw2": "No response"}
        # it is only told to authenticate again, and nothing is sent to it any more
        assert socket.poll(5000) and socket.recv_json() == {"cmd": "reauth"}
        assert master.stackctl("run", "raw2", "test.ping").returncode == 2
        assert not socket.poll(1000)


def test_returns_are_attributed_by_key_not_by_claimed_id(auto_master, raw_peer):
    master = auto_master
    peer = raw_peer(master)
    assert peer.authenticate("raw3")["status"] == "accepted"
    socket = peer.job_socket()
    socket.send_json({"cmd": "hello", "grains": {}})
    assert socket.recv_json()["cmd"] == "welcome"
    with master.client() as client:
        published = client.publish("raw3", "test.ping", targeted=["raw3"])
        job = socket.recv_json()
        socket.send_json({"cmd": "ret", "jid": job["jid"], "id": "somebody-else",
                          "return": "forged", "retcode": 0, "success": True})
        status = client.wait(published.jid, timeout=5)
    assert status.returns == {"raw3": {"return": "forged", "retcode": 0, "success": True,
                                       "out": None}}


def test_agent_refuses_a_master_with_another_fingerprint(auto_master, agents_of):
    master = auto_master
    wrong = "00:" * 31 + "00"
    (agent,) = agents_of(master, "picky", extra=f"master_finger = {wrong}")
    assert agent.process.wait(20) == 1
    assert f"but {wrong} was expected ([agent] master_finger)" in agent.log_text()
    assert "Refusing to connect to the master" in agent.log_text()


def test_a_return_for_a_job_that_did_not_target_the_agent_is_ignored(auto_master, raw_peer):
    master = auto_master
    target, intruder = raw_peer(master), raw_peer(master)
    sockets = []
    for peer, agent_id in ((target, "raw5"), (intruder, "raw6")):
        assert peer.authenticate(agent_id)["status"] == "accepted"
        socket = peer.job_socket()
        socket.send_json({"cmd": "hello", "grains": {}})
        assert socket.recv_json()["cmd"] == "welcome"
        sockets.append(socket)
    with master.client() as client:
        published = client.publish("raw5", "test.ping", targeted=["raw5"])
        sockets[1].send_json({"cmd": "ret", "jid": published.jid, "return": "forged",
                              "retcode": 0, "success": True})
        assert sockets[1].recv_json() == {"cmd": "ack", "jid": published.jid}
        job = sockets[0].recv_json()
        sockets[0].send_json({"cmd": "ret", "jid": job["jid"], "return": True, "retcode": 0,
                              "success": True})
        status = client.wait(published.jid, timeout=5)
    assert list(status.returns) == ["raw5"]
    shown = json.loads(master.stackctl("job-show", published.jid, "--format", "json").stdout)
    assert list(shown["returns"]) == ["raw5"]

"""Keys made in advance for cloud deploys, through a real master and real agents.

A pre-seeded key pair (what the SSH deploy uploads) is accepted before its
agent ever connects.  An enrollment key (what a cloud-init deploy puts in
user data) admits an agent's own key once, is deleted by the agent, and is
refused when presented again or after it expired.
"""

import time

import pytest
import zmq

from hearth.transport import certificates, curve, keys, wire
from tests.fixtures.agents import AgentProcess, MasterProcess, wait_answering


@pytest.fixture(scope="module")
def master(tmp_path_factory):
    master = MasterProcess(tmp_path_factory.mktemp("master"), auto_accept=False)
    master.start()
    master.wait_ready()
    yield master
    master.stop()


def write_pair(directory, name, pair):
    public, secret = keys.certificate_texts(pair)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{name}.key").write_text(public)
    (directory / f"{name}.key_secret").write_text(secret)
    return directory / f"{name}.key_secret"


def present(master, agent_id, pair, enroll=None):
    """Authenticate on the auth port as a raw ZeroMQ peer with ``pair``; return the reply."""
    context = zmq.Context()
    socket = curve.client_socket(context, zmq.DEALER,
                                 curve.tcp_endpoint("127.0.0.1", master.auth_port), pair,
                                 keys.AUTH_BOOTSTRAP.public)
    try:
        request = {"id": agent_id}
        if enroll is not None:
            request["enroll"] = enroll.public.decode()
        socket.send(wire.encode(request))
        assert socket.poll(5000), "the master did not answer"
        return wire.decode(socket.recv())
    finally:
        socket.close(linger=0)
        context.term()


def test_a_preseeded_key_is_accepted_before_its_agent_connects(master, tmp_path):
    with master.client() as client:
        pair = client.preseed_key("seeded-1")
        assert client.list_keys()["accepted"] == ["seeded-1"]
    agent = AgentProcess(tmp_path / "agent", "seeded-1", master)
    write_pair(agent.root / "pki", "agent", pair)
    agent.start()
    try:
        wait_answering(master, ["seeded-1"], timeout=30)
        with master.client() as client:
            assert client.list_keys()["pending"] == []
    finally:
        agent.stop()
        with master.client() as client:
            client.delete_key("seeded-1")
    assert pair.secret.decode() not in master.log_text()


def test_an_enrollment_key_admits_the_agent_once_and_is_deleted(master, tmp_path):
    with master.client() as client:
        enrollment = client.enroll_key("enrolled-1", ttl=60)
        assert "enrolled-1" not in client.list_keys()["accepted"]
    agent_dir = tmp_path / "agent"
    key_file = write_pair(agent_dir / "enroll", "enroll", enrollment)
    agent = AgentProcess(agent_dir, "enrolled-1", master,
                         extra=f"enrollment_key_file = {key_file}")
    agent.start()
    try:
        wait_answering(master, ["enrolled-1"], timeout=30)
        assert not key_file.exists()
        own = certificates.load_pair(str(agent.root / "pki"), "agent")
        assert (master.pki_dir / "accepted" / "enrolled-1").read_bytes().strip() == own.public
        # the same enrollment key again (a copy of the user data): refused
        answer = present(master, "enrolled-1", enrollment, certificates.generate())
        assert answer["status"] == "denied"
        assert (master.pki_dir / "accepted" / "enrolled-1").read_bytes().strip() == own.public
    finally:
        agent.stop()
        with master.client() as client:
            client.delete_key("enrolled-1")
    log = master.log_text()
    assert "presented its enrollment key again after it was used: refused" in log
    assert enrollment.secret.decode() not in log


def test_an_expired_or_unknown_enrollment_key_is_refused(master):
    with master.client() as client:
        enrollment = client.enroll_key("late-1", ttl=0.2)
    time.sleep(0.4)
    assert present(master, "late-1", enrollment, certificates.generate())["status"] == "rejected"
    stranger = present(master, "never-1", certificates.generate(), certificates.generate())
    assert stranger["status"] == "denied"
    with master.client() as client:
        assert "late-1" not in client.list_keys()["accepted"]
        with pytest.raises(Exception, match="not a valid agent id"):
            client.enroll_key("../etc", ttl=10)

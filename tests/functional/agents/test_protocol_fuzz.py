"""Every daemon survives every message: generated messages against a live master and agent.

Issue 20: each message type of the protocol (:mod:`hearth.protocol`), both
directions.  Hypothesis draws well-formed messages of every type from its
schema and malformed ones of every kind (not JSON, not an object, too
deep, a known type with wrong keys), and sends them as the attacker would:

* to a real ``hearth-master``, from a raw peer on its auth port and from a
  raw peer that was accepted as an agent (its job port);
* to a real ``hearth-agent``, from a fake master the agent connected to
  (the test owns both of that master's sockets).

After every message the daemon must still be alive (the master answers a
client); after each test it must still serve a real agent: the real agent
answers ``test.ping``.  Every malformed message must show in the
daemon's counters.  ``HEARTH_FUZZ_RANDOM=1`` draws new examples instead
of the fixed ones.
"""

from __future__ import annotations

import json
import os
import time
import uuid

import pytest
import zmq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hearth import jobs, protocol
from hearth.common.exception import MessageRefused
from hearth.transport import curve, keys, wire
from tests.fixtures.agents import AgentProcess, MasterProcess, free_port, stop_all, wait_answering
from tests.fixtures.protocol_messages import malformed, well_formed
from tests.fixtures.raw_peer import RawPeer

FUZZ = settings(max_examples=int(os.environ.get("HEARTH_FUZZ_EXAMPLES", "60")), deadline=None,
                derandomize=not os.environ.get("HEARTH_FUZZ_RANDOM"), database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow, HealthCheck.filter_too_much])

#: Functions a generated job may name: harmless ones and ones that do not exist.
SAFE_FUNCTIONS = st.sampled_from(["test.ping", "test.echo", "test.arg", "test.fib",
                                  "test.no_such", "no_such.function", "test"])


# --- the master --------------------------------------------------------------

@pytest.fixture(scope="module")
def master(tmp_path_factory, sqlite_template):
    """A real master (auto_accept) and one real agent."""
    import shutil

    base = tmp_path_factory.mktemp("fuzz-master")
    (base / "master").mkdir()
    shutil.copyfile(sqlite_template, base / "master" / "hearth.db")
    master = MasterProcess(base / "master",
                           database=f"sqlite:///{base / 'master' / 'hearth.db'}")
    master.start()
    agent = AgentProcess(base / "real1", "real1", master)
    try:
        master.wait_ready()
        agent.start()
        wait_answering(master, ["real1"])
        with master.client() as client:
            yield master, client
    finally:
        stop_all([agent, master])


def assert_master_serves(master, client):
    assert master.process.poll() is None, master.log_text()[-3000:]
    status = master.run("real1", "test.ping", timeout=10)
    assert status.returns["real1"]["return"] is True
    assert "Traceback" not in master.log_text()


def dropped(client, channel):
    return sum(client.stats()["messages"]["dropped"].get(channel, {}).values())


AGENT_MESSAGES = st.one_of([well_formed(protocol.AGENT, kind) for kind in protocol.AGENT.types])


def test_the_master_survives_what_an_accepted_agent_sends(master):
    master, client = master
    with RawPeer(master, f"fuzz-{uuid.uuid4().hex[:8]}") as peer:
        peer.join()
        before = dropped(client, "agent")
        sent = {"bad": 0}

        @FUZZ
        @given(frame=AGENT_MESSAGES.map(lambda m: json.dumps(m).encode())
               | malformed(protocol.AGENT))
        def send(frame):
            peer.send(frame)
            sent["bad"] += not _fits(protocol.AGENT, frame)
            assert client.ping()["boot"], "the master stopped answering"

        send()
        assert_master_serves(master, client)
        assert dropped(client, "agent") == before + sent["bad"]


def test_the_master_survives_what_anyone_sends_its_auth_port(master):
    master, client = master
    with RawPeer(master) as peer:
        socket = peer.auth_socket()
        before = dropped(client, "auth")
        sent = {"bad": 0}

        @FUZZ
        @given(frame=well_formed(protocol.AUTH, "auth").map(lambda m: json.dumps(m).encode())
               | malformed(protocol.AUTH, protocol.AUTH_MAX_MESSAGE_SIZE))
        def send(frame):
            socket.send(frame)
            sent["bad"] += not _fits(protocol.AUTH, frame)
            while socket.poll(0):
                socket.recv()
            assert client.ping()["boot"], "the master stopped answering"

        send()
        assert_master_serves(master, client)
        assert dropped(client, "auth") == before + sent["bad"]


def test_the_master_answers_every_malformed_client_request(master):
    master, client = master
    socket = client._socket

    @FUZZ
    @given(frame=malformed(protocol.CLIENT))
    def send(frame):
        socket.send(frame)
        assert socket.poll(5000), "the master did not answer a malformed request"
        answer = json.loads(socket.recv())
        assert answer["error"]["type"] == "BadRequest", answer

    send()
    assert_master_serves(master, client)


def _fits(channel, frame):
    """Return whether the gate admits ``frame`` on ``channel``."""
    try:
        channel.check(wire.decode(frame))
    except MessageRefused:
        return False
    return True


# --- the agent ---------------------------------------------------------------

class FakeMaster:
    """Both sockets of a master, held by the test: it answers the agent as it chooses."""

    def __init__(self) -> None:
        self.context = zmq.Context()
        public, secret = zmq.curve_keypair()
        self.keys = keys.KeyPair(public, secret)
        self.port, self.auth_port = free_port(), free_port()
        self.auth = curve.server_socket(self.context, zmq.ROUTER,
                                        curve.tcp_endpoint("127.0.0.1", self.auth_port),
                                        keys.AUTH_BOOTSTRAP, "fake-auth")
        self.jobs = curve.server_socket(self.context, zmq.ROUTER,
                                        curve.tcp_endpoint("127.0.0.1", self.port), self.keys,
                                        "fake-master")
        self.zap = curve.ZapHandler(self.context, lambda domain, key: True)
        self.route: bytes | None = None
        self.boot = uuid.uuid4().hex
        self.returns: dict[str, dict] = {}

    def close(self) -> None:
        self.zap.close()
        self.context.destroy(linger=0)

    def accept(self, garbage: list[bytes], timeout: float = 30) -> None:
        """Answer the agent's auth requests: first with ``garbage``, then accepted."""
        answers = [*garbage, json.dumps({"status": "accepted",
                                         "master_pub": self.keys.public.decode()}).encode()]
        deadline = time.monotonic() + timeout
        while answers and time.monotonic() < deadline:
            if self.auth.poll(200):
                route, _ = self.auth.recv_multipart()
                self.auth.send_multipart([route, answers.pop(0)])
        assert not answers, "the agent stopped authenticating"
        assert self.pump(lambda m: m.get("cmd") == "hello", timeout), "no hello"

    def send(self, frame: bytes) -> None:
        self.jobs.send_multipart([self.route, frame])

    def pump(self, until=lambda message: False, timeout: float = 0) -> dict | None:
        """Answer what the agent sent (pongs, acks, replies); return the first ``until`` one.

        An agent told to authenticate again (``reauth``) is accepted again.
        """
        deadline = time.monotonic() + timeout
        poller = zmq.Poller()
        poller.register(self.jobs, zmq.POLLIN)
        poller.register(self.auth, zmq.POLLIN)
        while True:
            ready = dict(poller.poll(max(0, deadline - time.monotonic()) * 1000))
            if self.auth in ready:
                route, _ = self.auth.recv_multipart()
                self.auth.send_multipart([route, json.dumps(
                    {"status": "accepted", "master_pub": self.keys.public.decode()}).encode()])
            if self.jobs not in ready:
                if not ready:
                    return None
                continue
            self.route, frame = self.jobs.recv_multipart()
            message = json.loads(frame)
            cmd = message.get("cmd")
            if cmd in ("hello", "ping"):
                self.send(json.dumps({"cmd": "welcome" if cmd == "hello" else "pong",
                                      "boot": self.boot}).encode())
            elif cmd == "ret":
                self.returns[message["jid"]] = message
                self.send(json.dumps({"cmd": "ack", "jid": message["jid"]}).encode())
            elif cmd == "req":
                self.send(json.dumps({"cmd": "rep", "rid": message["rid"],
                                      "error": "a fake master"}).encode())
            if until(message):
                return message

    def ping_agent(self, timeout: float = 10) -> dict | None:
        """Run test.ping on the agent; return its return message.

        A job is sent again every two seconds: one sent while the agent was
        authenticating again (a fuzzed ``reauth``) never reached it.
        """
        deadline, sent = time.monotonic() + timeout, set()
        while (remaining := deadline - time.monotonic()) > 0:
            jid = jobs.gen_jid()
            sent.add(jid)
            self.send(json.dumps({"cmd": "job", "jid": jid, "fun": "test.ping", "arg": [],
                                  "kwarg": {}, "tgt": "*", "tgt_type": "glob"}).encode())
            ret = self.pump(lambda m: m.get("cmd") == "ret" and m.get("jid") in sent,
                            min(2.0, remaining))
            if ret is not None:
                return ret
        return None


@pytest.fixture(scope="module")
def fake_master(tmp_path_factory):
    """A real agent connected to a fake master (whose first auth answers were garbage)."""
    fake = FakeMaster()
    directory = tmp_path_factory.mktemp("fuzz-agent")
    agent = AgentProcess(directory, "fuzzed", fake)
    agent.start()
    try:
        fake.accept([b"[" * 3000 + b"]" * 3000, b'{"status": "maybe"}',
                     b'{"status": "accepted", "master_pub": "not a key"}', b"\xff"])
        yield fake, agent
    finally:
        stop_all([agent])
        fake.close()


MASTER_MESSAGES = st.one_of([
    well_formed(protocol.MASTER, "job", fun=SAFE_FUNCTIONS),
    *[well_formed(protocol.MASTER, kind) for kind in protocol.MASTER.types if kind != "job"]])


def test_the_agent_survives_what_its_master_sends(fake_master):
    fake, agent = fake_master

    @FUZZ
    @given(frame=MASTER_MESSAGES.map(lambda m: json.dumps(m).encode())
           | malformed(protocol.MASTER))
    def send(frame):
        fake.send(frame)
        fake.pump(timeout=0.01)
        assert agent.process.poll() is None, agent.log_text()[-3000:]

    send()
    ret = fake.ping_agent()
    assert ret is not None and ret["return"] is True, agent.log_text()[-3000:]
    # the agent reports what it dropped in its pings (the master's master-stats shows it)
    ping = fake.pump(lambda message: message.get("cmd") == "ping", timeout=5)
    assert ping is not None and ping["dropped"] > 0
    log = agent.log_text()
    assert "Traceback" not in log
    assert "dropped a message from the master at 127.0.0.1" in log


def test_a_master_cannot_make_the_agent_write_outside_its_directory(fake_master):
    """CVE-2020-11652 class, from the master's side: a jid or module name is never a path."""
    fake, agent = fake_master
    outside = agent.directory.parent
    before = {path.name for path in outside.iterdir()}
    jids = ("../../../pwned", "/tmp/pwned", "..", "20260101000000000000/../../pwned")
    for jid in jids:
        fake.send(json.dumps({"cmd": "job", "jid": jid, "fun": "test.ping"}).encode())
        fake.send(json.dumps({"cmd": "ack", "jid": jid}).encode())
    fake.pump(timeout=0.5)
    assert {path.name for path in outside.iterdir()} == before
    assert not [path for path in agent.root.rglob("*pwned*")]
    ret = fake.ping_agent()
    assert ret is not None and ret["return"] is True
    assert not set(jids) & set(fake.returns)  # refused before it ran: no return either

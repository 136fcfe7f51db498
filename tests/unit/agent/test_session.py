"""The agent's conversation with its master, driven without sockets (hearth.agent.session)."""

import json
import logging

from hearth.agent import session
from hearth.agent.settings import AgentSettings
from tests.fixtures.fleet import MemoryReturns

SETTINGS = AgentSettings(id="web1", ping_interval=1.0, master_alive_timeout=4.0,
                         return_retry_interval=5.0, max_message_size=65536)


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


class Wire:
    """What the session transmitted; ``up`` says whether the socket takes messages."""

    def __init__(self):
        self.up = True
        self.sent = []

    def __call__(self, frame):
        if self.up:
            self.sent.append(json.loads(frame))
        return self.up

    def commands(self):
        taken, self.sent = [message["cmd"] for message in self.sent], []
        return taken


def make(failover=False):
    clock, wire, jobs, connected = Clock(), Wire(), [], []
    conversation = session.AgentSession(
        SETTINGS, session.agent_gate(logging.getLogger("test")), MemoryReturns(), wire,
        grains=lambda: {"os": "Debian"}, running=lambda: ["20260101000000000001"],
        on_job=jobs.append, on_connected=lambda: connected.append(True), failover=failover,
        clock=clock)
    return conversation, clock, wire, jobs, connected


def frame(message):
    return json.dumps(message).encode()


def test_a_hello_without_a_connection_waits_for_the_socket_and_no_ping_goes_before_it():
    conversation, clock, wire, _, _ = make()
    wire.up = False
    conversation.open()
    assert conversation.greeting and conversation.tick(writable=False) == 1.0
    wire.up = True
    clock.now += 1.0
    assert conversation.tick(writable=True) == 1.0
    assert wire.sent == [{"cmd": "hello", "grains": {"os": "Debian"}},
                         {"cmd": "ping", "running": ["20260101000000000001"]}]


def test_a_new_boot_means_hello_again_every_kept_return_and_the_pillar():
    conversation, clock, wire, _, connected = make()
    conversation.open()
    conversation.returns.save({"cmd": "ret", "jid": "20260101000000000002", "id": "web1"})
    conversation.receive(frame({"cmd": "welcome", "boot": "a"}))
    assert wire.commands() == ["hello", "ret"] and connected == [True]
    conversation.receive(frame({"cmd": "pong", "boot": "a"}))
    assert wire.commands() == []
    conversation.receive(frame({"cmd": "pong", "boot": "b"}))  # the master restarted
    assert wire.commands() == ["hello", "ret"] and connected == [True, True]
    conversation.receive(frame({"cmd": "ack", "jid": "20260101000000000002"}))
    assert conversation.returns.due() == []


def test_a_slow_master_is_waited_for_while_the_connection_lives():
    conversation, clock, wire, _, _ = make()
    conversation.open()
    clock.now += 4.5
    assert conversation.tick(writable=True) is not None  # connected: only slow
    assert conversation.tick(writable=False) is not None  # one master: ZeroMQ reconnects
    clock.now += 4.0 * session.PATIENCE
    assert conversation.tick(writable=True) is None


def test_with_another_master_an_unreachable_one_is_left_after_the_timeout():
    conversation, clock, wire, _, _ = make(failover=True)
    conversation.open()
    clock.now += 4.5
    assert conversation.tick(writable=True) is not None
    assert conversation.tick(writable=False) is None


def test_reauth_ends_the_connection_at_once():
    conversation, clock, wire, _, _ = make()
    conversation.open()
    conversation.receive(frame({"cmd": "reauth"}))
    assert conversation.tick(writable=True) is None
    conversation.open()
    assert conversation.tick(writable=True) is not None


def test_a_return_too_large_for_the_master_becomes_an_error_return():
    conversation, clock, wire, _, _ = make()
    conversation.open()
    wire.commands()
    big = {"cmd": "ret", "jid": "20260101000000000003", "id": "web1", "fun": "test.echo",
           "fun_args": [], "return": "x" * 70000, "retcode": 0, "success": True}
    conversation.deliver(big)
    (sent,) = wire.sent
    assert sent["retcode"] == 1 and sent["success"] is False
    assert sent["return"] == ("The return was not sent: it is 70125 bytes, more than the "
                              "master's max_message_size (65536 bytes).")
    assert conversation.returns.due() == [sent]


def test_an_auth_request_is_said_once_connected_and_again_after_a_drop():
    clock, wire = Clock(), Wire()
    attempt = session.AuthAttempt(frame(session.auth_request("web1")), SETTINGS, clock=clock)
    assert attempt.step(False, wire) == 4.0 and wire.sent == []
    assert attempt.step(True, wire) == 4.0 and wire.sent == [{"id": "web1"}]
    clock.now += 1
    attempt.step(False, wire)  # the connection dropped: the master may not have it
    attempt.step(True, wire)
    assert wire.sent == [{"id": "web1"}] * 2
    attempt.unreadable()
    attempt.step(True, wire)
    assert len(wire.sent) == 3
    clock.now += 4.1  # no answer: asked again, then after twice as long
    attempt.step(True, wire)
    clock.now += 4.1
    attempt.step(True, wire)
    assert len(wire.sent) == 4


def test_an_auth_attempt_is_given_up_only_when_there_is_somewhere_else_to_go():
    clock, wire = Clock(), Wire()
    alone = session.AuthAttempt(b"{}", SETTINGS, clock=clock)
    other = session.AuthAttempt(b"{}", SETTINGS, failover=True, clock=clock)
    clock.now += 5
    assert alone.step(False, wire) is not None and other.step(False, wire) is None
    clock.now += 4.0 * session.PATIENCE
    assert alone.step(False, wire) is None


def test_a_large_fleet_pings_as_seldom_as_the_master_asks_but_reports_long_jobs_soon():
    running = []
    clock, wire = Clock(), Wire()
    conversation = session.AgentSession(
        SETTINGS, session.agent_gate(logging.getLogger("test")), MemoryReturns(), wire,
        grains=dict, running=lambda: list(running), on_job=print, clock=clock)
    conversation.open()
    conversation.receive(frame({"cmd": "welcome", "boot": "a", "ping_interval": 5.0}))
    assert conversation.tick(writable=True) == 5.0  # the first ping, then every 5 s
    wire.commands()
    clock.now += 1.0
    assert conversation.tick(writable=True) == 4.0 and wire.commands() == []
    running.append("20260101000000000004")  # a job starts: reported once it ran 1 s
    assert conversation.tick(writable=True) == 1.0
    clock.now += 1.0
    conversation.tick(writable=True)
    assert wire.sent == [{"cmd": "ping", "running": ["20260101000000000004"]}]
    wire.commands()
    clock.now += 3.0  # already reported: nothing until the next ping is due
    assert conversation.tick(writable=True) == 2.0 and wire.commands() == []
    # a master that asks for nothing leaves the agent's own interval
    conversation.receive(frame({"cmd": "pong", "boot": "a", "ping_interval": 0}))
    assert conversation.interval == 1.0

"""The message gate and the protocol table: decode, bound, check, count, log once."""

import logging

import pytest

from hearth import protocol
from hearth.common.exception import MessageRefused
from hearth.transport import wire
from hearth.transport.gate import Channel, Gate


def test_decode_refuses_what_would_end_a_reader():
    for frame, kind in [(b"[" * 100000 + b"]" * 100000, "too-deep"),
                        (b'{"a": ' + b"[" * 64 + b"]" * 64 + b"}", "too-deep"),
                        (b"\xff", "not-json"), (b"{", "not-json"), (b"[1]", "not-object")]:
        with pytest.raises(MessageRefused) as caught:
            wire.decode(frame)
        assert caught.value.kind == kind
    assert wire.decode(b'{"a": ' + b"[" * 63 + b"]" * 63 + b"}")["a"]


def test_depth_counts_containers_only():
    assert [wire.depth(value) for value in (1, "x", {}, [[]], {"a": [1, {"b": None}]})] == \
        [0, 0, 1, 2, 3]
    assert wire.depth([[[[[]]]]], limit=2) == 3  # stops counting past the limit


def test_every_handler_has_a_schema_and_every_schema_a_handler(tmp_path):
    from hearth.agent.connection import AgentChannel, MasterConnection
    from hearth.agent.settings import AgentSettings
    from hearth.master.server import Master
    from hearth.master.settings import MasterSettings

    master = Master(MasterSettings(pki_dir=str(tmp_path / "pki")))
    try:
        assert sorted(master.agent_messages.handlers) == protocol.AGENT.types
        assert sorted(master.requests._ops) == protocol.CLIENT.types
    finally:
        master.workers.shutdown()
    outbox = wire.Outbox()
    connection = MasterConnection(AgentSettings(id="x"), None, outbox, AgentChannel(outbox),
                                  on_job=print, grains=dict, running=list, returns=None)
    assert connection.session.handled == protocol.MASTER.types
    outbox.close()


def test_the_gate_counts_and_logs_each_peer_once(caplog):
    channel = Channel("test", {"hi": protocol.message("cmd", "hi", {"n": {"type": "integer"}})})
    gate = Gate([channel], logging.getLogger("gate-test"))
    with caplog.at_level(logging.DEBUG, logger="gate-test"):
        assert gate.admit("test", b'{"cmd": "hi", "n": 1}', "peer a") == ("hi", {"cmd": "hi",
                                                                              "n": 1})
        assert gate.admit("test", b'{"cmd": "hi", "n": "x"}', "peer a") is None
        assert gate.admit("test", b'{"cmd": "ho"}', "peer a") is None
        assert gate.admit("test", b"[", "peer b") is None
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == [
        "dropped a message from peer a on test: hi: n: \"x\" is not of type \"integer\" (further "
        "bad messages from this peer are logged at debug level)",
        "dropped a message from peer b on test: the message is not JSON (Expecting value: "
        "line 1 column 2 (char 1)) (further bad messages from this peer are logged at debug "
        "level)"]
    assert gate.stats() == {"received": {"test": {"hi": 1}},
                            "dropped": {"test": {"invalid": 1, "not-json": 1,
                                                 "unknown-type": 1}},
                            "failed": {}}


def test_a_handler_failure_is_counted_and_logged_with_its_traceback(caplog):
    gate = Gate([protocol.AGENT], logging.getLogger("gate-test"))
    with caplog.at_level(logging.DEBUG, logger="gate-test"):
        try:
            raise KeyError("boom")
        except KeyError:
            gate.failed("agent", "ret", "agent web1")
    assert gate.stats()["failed"] == {"agent": {"ret": 1}}
    record = caplog.records[0]
    assert record.levelno == logging.ERROR and record.exc_info
    assert record.getMessage() == ("handling ret from agent web1 on the job port (agent "
                                   "messages) failed; the message is dropped")


def test_a_long_reason_is_shortened(caplog):
    gate = Gate([protocol.AGENT], logging.getLogger("gate-test"))
    with caplog.at_level(logging.DEBUG, logger="gate-test"):
        assert gate.admit("agent", b'{"cmd": "ping", "running": "' + b"x" * 10000 + b'"}',
                          "a") is None
    message = caplog.records[0].getMessage()
    assert 'ping: running: "xxx' in message and "xxx..." in message
    assert len(message) < 500

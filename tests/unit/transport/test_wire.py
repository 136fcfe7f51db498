"""The wire helpers: message encoding, the outbox, fingerprints."""

import pytest
import zmq

from hearth.common.exception import MessageRefused
from hearth.transport import certificates, keys, wire


def test_messages_are_json_objects():
    assert wire.decode(wire.encode({"cmd": "ping", "n": 1})) == {"cmd": "ping", "n": 1}
    with pytest.raises(MessageRefused, match="not a JSON object"):
        wire.decode(b"[1, 2]")


def test_outbox_wakes_a_poller_and_drains_in_order():
    outbox = wire.Outbox()
    poller = zmq.Poller()
    poller.register(outbox.fileno, zmq.POLLIN)
    assert poller.poll(0) == []
    outbox.put("a")
    outbox.put("b")
    assert poller.poll(100)
    assert outbox.drain() == ["a", "b"]
    assert poller.poll(0) == []
    outbox.close()


def test_key_pairs_are_created_once_with_a_private_secret(tmp_path):
    pair = certificates.load_or_create(str(tmp_path / "pki"), "agent")
    assert certificates.load_or_create(str(tmp_path / "pki"), "agent") == pair
    secret = tmp_path / "pki" / "agent.key_secret"
    assert secret.stat().st_mode & 0o777 == 0o600
    assert certificates.load_public(str(tmp_path / "pki" / "agent.key")) == pair.public
    finger = keys.fingerprint(pair.public)
    assert len(finger.split(":")) == 32


def test_missing_key_file_is_named(tmp_path):
    from hearth.common import exception

    with pytest.raises(exception.KeyFileError, match="Cannot read the key file .*nope.key"):
        certificates.load_public(str(tmp_path / "nope.key"))

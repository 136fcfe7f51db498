"""KeyStore: the four key categories and every decision of an authentication."""

import pytest

from hearth.common import exception
from hearth.master.keys import KeyDecision, KeyStore


@pytest.fixture
def store(tmp_path):
    return KeyStore(str(tmp_path / "pki"))


def test_new_agent_is_pending_until_accepted(store):
    assert store.authenticate("web1", b"K1").status == "pending"
    assert store.agent_of(b"K1") is None
    assert store.listing() == {"accepted": [], "pending": ["web1"], "rejected": [],
                               "denied": []}
    assert store.accept("web*") == ["web1"]
    assert store.agent_of(b"K1") == "web1"
    assert store.authenticate("web1", b"K1").status == "accepted"


def test_another_key_for_a_known_id_is_denied_and_recorded(store):
    store.authenticate("web1", b"K1")
    assert store.authenticate("web1", b"K2").status == "denied"  # pending with another key
    store.accept("web1")
    decision = store.authenticate("web1", b"K3")
    assert decision.status == "denied" and decision.changed
    assert store.listing()["denied"] == ["web1"]
    assert store.agent_of(b"K3") is None and store.agent_of(b"K1") == "web1"


def test_rejected_stays_rejected_and_deleted_starts_over(store):
    store.authenticate("db1", b"K1")
    assert store.reject("db1") == ["db1"]
    assert store.authenticate("db1", b"K1").status == "rejected"
    assert store.delete("db1") == ["db1"]
    assert store.authenticate("db1", b"K1").status == "pending"


def test_deleting_an_accepted_key_stops_admitting_it(store):
    store.authenticate("db1", b"K1")
    store.accept("db1")
    store.delete("db*")
    assert store.agent_of(b"K1") is None
    assert store.listing()["accepted"] == []


def test_auto_accept_and_keys_read_back_from_disk(tmp_path):
    store = KeyStore(str(tmp_path), auto_accept=True)
    assert store.authenticate("a1", b"K1").status == "accepted"
    assert KeyStore(str(tmp_path)).agent_of(b"K1") == "a1"


def test_bad_ids_are_rejected_and_unknown_patterns_named(store):
    assert store.authenticate("../etc", b"K").status == "rejected"
    assert store.authenticate("", b"K").status == "rejected"
    with pytest.raises(exception.AgentKeyNotFound,
                       match=r"The Agent key \(nope\* in pending\) could not be found"):
        store.accept("nope*")


def test_a_key_accepted_on_disk_by_someone_else_gets_in(tmp_path):
    store = KeyStore(str(tmp_path))
    (tmp_path / "accepted" / "seeded").write_bytes(b"K9\n")  # a pre-seeded agent
    assert store.agent_of(b"K9") is None
    assert store.authenticate("seeded", b"K9") == KeyDecision("accepted", True)
    assert store.agent_of(b"K9") == "seeded"
    assert store.authenticate("seeded", b"K9") == KeyDecision("accepted", False)
    (tmp_path / "accepted" / "seeded").write_bytes(b"K10\n")  # re-seeded with a new key
    assert store.authenticate("seeded", b"K10").status == "accepted"
    assert store.agent_of(b"K9") is None and store.agent_of(b"K10") == "seeded"

"""Tests of hearth.engine.support."""

import pytest

from hearth.engine import support


def test_default_is_supported():
    status = support.SupportStatus()
    assert status.to_dict() == {"status": "SUPPORTED", "message": None, "version": None,
                                "previous_status": None}


def test_chain_serialises_nested_and_lists_history():
    status = support.SupportStatus(
        support.HIDDEN, version="5.0.0",
        previous_status=support.SupportStatus(support.DEPRECATED, version="2014.2",
                                              message="Use x."))
    assert status.to_dict()["previous_status"] == {
        "status": "DEPRECATED", "message": "Use x.", "version": "2014.2",
        "previous_status": None}
    assert [s.status for s in status.history()] == ["HIDDEN", "DEPRECATED"]


def test_unknown_status_becomes_unknown_with_message():
    status = support.SupportStatus("BOGUS", version="1", message="m")
    assert (status.status, status.version, status.message) == (
        "UNKNOWN", None, "Specified status is invalid, defaulting to UNKNOWN")


def test_previous_status_must_be_a_support_status():
    with pytest.raises(ValueError) as info:
        support.SupportStatus(previous_status="DEPRECATED")
    assert str(info.value) == "previous_status must be SupportStatus instead of <class 'str'>"


def test_is_valid_status_and_substitution():
    assert support.is_valid_status("HIDDEN") and not support.is_valid_status("x")
    status = support.SupportStatus(substitute_class=int)
    assert status.is_substituted(int) and not status.is_substituted(str)
    assert not support.SupportStatus().is_substituted(int)

"""KeyService's rules against an in-process fake of the master's client.

The real master and hearth-api are in tests/functional/agents/test_keys_api.py;
here each rule alone: Salt's category names, who may do which key function,
grains at acceptance, a glob that is no glob.
"""

from __future__ import annotations

import pytest

from hearth.common import exception
from hearth.jobservice.callers import ApiProject, LocalUser
from hearth.jobservice.service import JobService
from hearth.jobservice.settings import JobSettings

ACL = """
admins:
  - '@wheel'
listers:
  - '@wheel':
      - key.list_all
pingers:
  - '.*'
"""
OWNER = LocalUser("alice")


class FakeKeys:
    """What a MasterClient answers about keys, and what it was asked to change."""

    def __init__(self) -> None:
        self.listing = {"accepted": ["web1"], "pending": ["new1"], "rejected": [],
                        "denied": []}
        self.calls: list[tuple] = []

    def client(self) -> FakeKeys:
        return self

    def close(self) -> None:
        pass

    def list_keys(self):
        return self.listing

    def accept_key(self, pattern, include_rejected=False, grains=None):
        self.calls.append(("accept", pattern, include_rejected, grains))
        return ["new1"]

    def reject_key(self, pattern):
        self.calls.append(("reject", pattern))
        return ["web1"]

    def delete_key(self, pattern):
        self.calls.append(("delete", pattern))
        return ["web1"]

    def key_fingers(self, pattern="*"):
        return {"accepted": {"web1": "aa:bb"}, "pending": {}, "rejected": {}, "denied": {},
                "local": {"public": "P", "fingerprint": "cc:dd"}}

    def master_finger(self):
        return {"public": "P", "fingerprint": "cc:dd"}


@pytest.fixture
def master():
    return FakeKeys()


@pytest.fixture
def keys(master, tmp_path):
    acl = tmp_path / "acl.yaml"
    acl.write_text(ACL)
    return JobService(client_factory=master.client,
                      settings=JobSettings(acl_file=str(acl))).keys


def test_the_listing_is_in_salts_category_names_and_order(keys):
    listing = keys.list_keys(OWNER)
    assert list(listing) == ["minions", "minions_denied", "minions_pre", "minions_rejected"]
    assert listing == {"minions": ["web1"], "minions_denied": [], "minions_pre": ["new1"],
                       "minions_rejected": []}
    assert keys.list_keys(ApiProject("listers")) == listing


def test_fingerprints_by_category_with_the_masters_own_for_every_key(keys):
    assert keys.key_fingers(OWNER) == {
        "local": {"master.key": "cc:dd"}, "minions": {"web1": "aa:bb"}, "minions_denied": {},
        "minions_pre": {}, "minions_rejected": {}}
    assert "local" not in keys.key_fingers(OWNER, "web*")


@pytest.mark.parametrize(("project", "call", "function"), [
    ("listers", lambda keys, who: keys.accept_keys(who, "new1"), "key.accept"),
    ("listers", lambda keys, who: keys.delete_keys(who, "*"), "key.delete"),
    ("pingers", lambda keys, who: keys.list_keys(who), "key.list_all"),   # publish rules: no
    ("nobody", lambda keys, who: keys.master_finger(who), "key.finger_master"),
])
def test_a_project_needs_the_wheel_function(keys, master, project, call, function):
    with pytest.raises(exception.JobRefused) as caught:
        call(keys, ApiProject(project))
    assert caught.value.kwargs["function"] == function
    assert f"grants {function}." in str(caught.value)
    assert master.calls == []


def test_without_a_publisher_acl_no_project_touches_a_key(master):
    keys = JobService(client_factory=master.client, settings=JobSettings()).keys
    with pytest.raises(exception.JobRefused) as caught:
        keys.list_keys(ApiProject("admins"))
    assert str(caught.value) == (
        "project admins may not list the agent keys: agent keys are the master operator's; "
        "no [api] publisher_acl_file grants a project any key function.")
    assert keys.list_keys(OWNER)["minions"] == ["web1"]


def test_grains_at_acceptance_are_the_local_users_only(keys, master):
    assert keys.accept_keys(OWNER, "new1", grains={"role": "db"}) == ["new1"]
    with pytest.raises(exception.JobRefused, match="only the master's operator may set them"):
        keys.accept_keys(ApiProject("admins"), "new1", grains={"role": "db"})
    assert keys.accept_keys(ApiProject("admins"), "new*", include_rejected=True) == ["new1"]
    assert master.calls == [("accept", "new1", False, {"role": "db"}),
                            ("accept", "new*", True, {})]


@pytest.mark.parametrize("match", ["", "   ", None, 5])
def test_a_match_that_is_no_glob_is_a_bad_request(keys, master, match):
    with pytest.raises(exception.BadRequest, match="Give an agent id or a glob"):
        keys.delete_keys(OWNER, match)
    assert master.calls == []

"""API tokens: stored hashed, verified, expired and revoked."""

from datetime import datetime, timedelta

import pytest

from hearth.common import exception
from hearth.db import tokens
from hearth.db.session import forget_database

NOW = datetime(2026, 1, 1, 12, 0, 0)


@pytest.fixture
def url(tmp_path):
    database = f"sqlite:///{tmp_path}/tokens.db"
    yield database
    forget_database(database)


def test_create_stores_only_the_hash_and_verifies(url):
    secret, info = tokens.create_token("proj", user="u", roles=["admin"], description="ci",
                                       url=url, clock=lambda: NOW)
    assert len(secret) >= 40
    assert info.hash_prefix == tokens.hash_token(secret)[:12]
    verified = tokens.verify_token(secret, url=url, clock=lambda: NOW)
    assert (verified.project_id, verified.user, verified.roles, verified.is_admin) == (
        "proj", "u", ("admin",), True)
    listed = tokens.list_tokens(url=url)
    assert [t.id for t in listed] == [info.id]
    assert secret not in repr(listed)


def test_unknown_expired_and_revoked_tokens_are_refused(url):
    secret, info = tokens.create_token("proj", expires_hours=1, url=url, clock=lambda: NOW)
    later = NOW + timedelta(hours=2)
    for candidate, clock in (("nope", lambda: NOW), (secret, lambda: later)):
        with pytest.raises(exception.Unauthorized) as raised:
            tokens.verify_token(candidate, url=url, clock=clock)
        assert str(raised.value) == "The token is unknown, expired or revoked."
    tokens.revoke_token(info.id, url=url, clock=lambda: NOW)
    with pytest.raises(exception.Unauthorized):
        tokens.verify_token(secret, url=url, clock=lambda: NOW)


def test_revoke_unknown_and_bad_arguments(url):
    with pytest.raises(exception.EntityNotFound) as raised:
        tokens.revoke_token("missing", url=url)
    assert str(raised.value) == "The Token (missing) could not be found."
    with pytest.raises(exception.BadRequest) as raised:
        tokens.create_token("proj", expires_hours=0, url=url)
    assert str(raised.value) == "--expires-hours must be positive, not 0."


def test_list_by_project(url):
    tokens.create_token("a", url=url)
    tokens.create_token("b", url=url)
    assert [t.project_id for t in tokens.list_tokens(url=url, project_id="b")] == ["b"]


def test_no_token_starts_like_a_command_line_option():
    # one URL-safe token in 64 began with '-': `stackctl --token TOKEN` then read it as an
    # option ("argument --token: expected one argument"), and so did a test now and then
    made = [tokens.new_secret() for _ in range(3000)]
    assert not [secret for secret in made if secret.startswith("-")]
    assert len(set(made)) == len(made) and {len(secret) for secret in made} == {43}

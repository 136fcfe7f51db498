"""Console sessions: idle ones expire and are forgotten, login links work once and expire."""

from __future__ import annotations

from hearth.console import sessions
from hearth.console.sessions import SessionStore


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_session_expires_after_its_idle_time_and_use_keeps_it():
    clock = Clock()
    store = SessionStore(clock)
    session = store.open("p", "token", "user")
    clock.now += sessions.IDLE_TIMEOUT - 1
    assert store.find(session.session_id) is session  # used: its idle time starts again
    clock.now += sessions.IDLE_TIMEOUT - 1
    assert store.find(session.session_id) is session
    clock.now += sessions.IDLE_TIMEOUT + 1
    assert store.find(session.session_id) is None
    assert store.find("unknown") is None and store.find(None) is None


def test_sessions_never_seen_again_are_forgotten_at_the_next_login():
    clock = Clock()
    store = SessionStore(clock)
    for _ in range(100):
        store.open("p", "token", "user")
    store.login_link(project="p", token=None, user="u")
    clock.now += max(sessions.IDLE_TIMEOUT, sessions.LOGIN_LINK_TTL) + 1
    store.open("p", "token", "user")
    assert len(store) == 1 and store._links == {}


def test_a_login_link_opens_one_session_once():
    clock = Clock()
    store = SessionStore(clock)
    secret = store.login_link(project="local", token=None, user="alice")
    session = store.redeem(secret)
    assert (session.project, session.token, session.user) == ("local", None, "alice")
    assert store.redeem(secret) is None
    late = store.login_link(project="local", token=None, user="alice")
    clock.now += sessions.LOGIN_LINK_TTL + 1
    assert store.redeem(late) is None


def test_the_csrf_token_is_the_sessions_own():
    store = SessionStore(Clock())
    one, other = store.open("p", "t", "u"), store.open("p", "t", "u")
    assert one.csrf_matches(one.csrf)
    assert not one.csrf_matches(other.csrf)
    assert not one.csrf_matches(None) and not one.csrf_matches("")

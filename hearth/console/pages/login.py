"""Logging in and out: an API token (hearth-api), or the one-time link of ``stackctl console``."""

from __future__ import annotations

from typing import Any

from hearth.common import exception
from hearth.console import guard
from hearth.console.app import PREFIX, Redirect, View


def _start(view: View, session: Any) -> Redirect:
    guard.set_session_cookie(view.req, view.resp, session.session_id)
    return Redirect(f"{PREFIX}/stacks")


def show(view: View) -> Any:
    """GET /login: the login form, or a one-time link's session (``?link=SECRET``)."""
    secret = view.req.get_param("link")
    if secret:
        session = view.console.sessions.redeem(secret)
        if session is not None:
            return _start(view, session)
        return view.page("login.html", error="This login link was used already or has "
                         "expired: run stackctl console again for a new one.")
    return view.page("login.html", error=None)


def log_in(view: View) -> Any:
    """POST /login: check the API token, open a session."""
    connector = view.console.connector
    if connector.local:
        return view.page("login.html", error="Open the link stackctl console printed.")
    try:
        identity = connector.login(view.field("token"), view.field("project"))
    except exception.HearthException as error:
        return view.page("login.html", error=str(error))
    session = view.console.sessions.open(identity.project, identity.token, identity.user)
    return _start(view, session)


def log_out(view: View) -> Redirect:
    """POST /logout: end the session."""
    view.console.sessions.close(view.session.session_id)
    guard.clear_session_cookie(view.req, view.resp)
    return Redirect(f"{PREFIX}/login")

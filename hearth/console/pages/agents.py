"""Agents with their grains, an agent's pillar, and agent keys (accept, reject, delete).

Agents and grains come from the API (``GET /agents``: the accepted agents,
their grains and when they were last seen).  Keys and pillar are the
master's owner's: the local user of ``stackctl console``
(:class:`hearth.console.connect.KeyAdmin`, as ``stackctl key-accept`` and
``pillar-show``); an API project's console says so instead.  Pillar values
are masked as ``stackctl pillar-show`` masks them.
"""

from __future__ import annotations

from typing import Any

from hearth.common import exception
from hearth.console.app import PREFIX, Redirect, View

#: Key categories in the order salt-key lists them.
KEY_CATEGORIES = ("pending", "accepted", "rejected", "denied")
KEY_VERBS = {"accept": "Accept", "reject": "Reject", "delete": "Delete"}
#: Grains the agent list shows beside the id.
SUMMARY_GRAINS = ("os", "osrelease", "kernel", "host")


def index(view: View) -> str:
    """GET /agents: the accepted agents."""
    agents = sorted(view.calls.list_agents(), key=lambda agent: agent["id"])
    return view.page("agents.html", agents=agents, summary=SUMMARY_GRAINS)


def show(view: View) -> str:
    """GET /agents/{id}: an agent's grains, and its pillar (masked) for the master's owner."""
    agent_id = view.params["agent_id"]
    agent = next((a for a in view.calls.list_agents() if a["id"] == agent_id), None)
    if agent is None:
        raise exception.NotFound(message=f"No accepted agent {agent_id!r}.")
    pillar, pillar_error = None, None
    keys = view.console.connector.keys
    if keys is not None:
        from hearth.pillar.mask import shown
        try:
            pillar = shown(keys.pillar(agent_id), False)
        except exception.HearthException as error:
            pillar_error = str(error)
    return view.page("agent.html", agent=agent, pillar=pillar, pillar_error=pillar_error)


def keys(view: View) -> str:
    """GET /keys: the agent keys by category, with their actions."""
    admin = view.console.connector.keys
    listing = admin.list_keys() if admin is not None else None
    return view.page("keys.html", keys=listing, categories=KEY_CATEGORIES, verbs=KEY_VERBS)


def confirm_key(view: View) -> str:
    """GET /keys/{verb}?agent_id=ID: ask before acting, as ``stackctl key-VERB`` asks."""
    admin = view.console.connector.keys
    verb = view.params["verb"]
    if admin is None:
        return keys(view)  # says whose keys they are
    if verb not in KEY_VERBS:
        raise exception.NotFound(message=f"No key action {verb!r}: one of "
                                         f"{', '.join(KEY_VERBS)}.")
    agent_id = (view.req.get_param("agent_id") or "").strip()
    if not agent_id:
        raise exception.BadRequest(message="Name the agent whose key to act on.")
    return view.page("key_confirm.html", verb=verb, title=KEY_VERBS[verb], agent_id=agent_id,
                     question=f"{verb.capitalize()} the key of {agent_id}?")


def key_action(view: View) -> Any:
    """POST /keys/{verb}: accept, reject or delete one agent's key."""
    admin = view.console.connector.keys
    verb = view.params["verb"]
    if admin is None:
        raise exception.Forbidden("Agent keys are managed by the master's owner "
                                  "(stackctl key-accept), not by an API project.")
    if verb not in KEY_VERBS:
        raise exception.NotFound(message=f"No key action {verb!r}: one of "
                                         f"{', '.join(KEY_VERBS)}.")
    agent_id = view.field("agent_id")
    if not agent_id:
        raise exception.BadRequest(message="Name the agent whose key to act on.")
    admin.act(verb, agent_id)
    return Redirect(f"{PREFIX}/keys")

"""Agents with their grains, an agent's pillar, and agent keys (accept, reject, delete).

Every read and action is an operation of the API (:class:`~hearth.console.calls.ConsoleCalls`),
as ``stackctl agent-list``, ``pillar-show`` and ``key-*`` make them: the local
user of ``stackctl console`` may do everything; an API project sees the
agents its publisher_acl lets it target, the pillar of those it may run
``pillar.items`` on, and the keys only with a ``'@wheel'`` grant; a refusal
is said on the page.  Pillar values are masked as ``stackctl pillar-show``
masks them.
"""

from __future__ import annotations

from typing import Any

from hearth.common import exception
from hearth.console.app import PREFIX, Redirect, View
from hearth.pillar.mask import shown

#: Salt's key categories in salt-key's order, with the name the page's tables carry.
KEY_CATEGORIES = {"minions_pre": "pending", "minions": "accepted",
                  "minions_rejected": "rejected", "minions_denied": "denied"}
KEY_VERBS = {"accept": "Accept", "reject": "Reject", "delete": "Delete"}
#: Grains the agent list shows beside the id.
SUMMARY_GRAINS = ("os", "osrelease", "kernel", "host")


def _refused(error: exception.HearthException) -> bool:
    """Return whether ``error`` is the API's refusal (403) of the session's project."""
    return error.error_type == "Forbidden"


def index(view: View) -> str:
    """GET /agents: the accepted agents."""
    agents = sorted(view.calls.list_agents(), key=lambda agent: agent["id"])
    return view.page("agents.html", agents=agents, summary=SUMMARY_GRAINS)


def show(view: View) -> str:
    """GET /agents/{id}: an agent's grains, and its pillar (masked) where the session may read."""
    agent_id = view.params["agent_id"]
    agent = next((a for a in view.calls.list_agents() if a["id"] == agent_id), None)
    if agent is None:
        raise exception.NotFound(message=f"No accepted agent {agent_id!r}.")

    pillar, pillar_error = None, None
    try:
        pillar = shown(view.calls.agent_pillar(agent_id), False)
    except exception.HearthException as error:
        pillar_error = str(error)
    return view.page("agent.html", agent=agent, pillar=pillar, pillar_error=pillar_error)


def keys(view: View) -> str:
    """GET /keys: the agent keys by category, with their actions (or why not)."""
    listing, refusal = None, None
    try:
        listing = view.calls.list_keys()
    except exception.HearthException as error:
        if not _refused(error):
            raise
        refusal = str(error)
    return view.page("keys.html", keys=listing, refusal=refusal, categories=KEY_CATEGORIES,
                     verbs=KEY_VERBS)


def confirm_key(view: View) -> str:
    """GET /keys/{verb}?agent_id=ID: ask before acting, as ``stackctl key-VERB`` asks."""
    verb = view.params["verb"]
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
    verb = view.params["verb"]
    if verb not in KEY_VERBS:
        raise exception.NotFound(message=f"No key action {verb!r}: one of "
                                         f"{', '.join(KEY_VERBS)}.")
    agent_id = view.field("agent_id")
    if not agent_id:
        raise exception.BadRequest(message="Name the agent whose key to act on.")
    view.calls.act_on_key(verb, agent_id)
    return Redirect(f"{PREFIX}/keys")

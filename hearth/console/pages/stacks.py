"""The stack list: every stack of the session's project, with status and filters."""

from __future__ import annotations

from typing import Any

from hearth.console.app import PREFIX, Redirect, View

#: The status filter's choices (Heat's ``status`` filter values).
STATUSES = ("COMPLETE", "IN_PROGRESS", "FAILED")


def home(view: View) -> Redirect:
    """GET /console: the stack list."""
    return Redirect(f"{PREFIX}/stacks")


def index(view: View) -> str:
    """GET /stacks: the stacks, filtered by status and by a part of their name."""
    status = view.req.get_param("status") or ""
    name = (view.req.get_param("name") or "").strip()
    stacks: list[dict[str, Any]] = view.calls.list_stacks()
    if status in STATUSES:
        stacks = [s for s in stacks if s["stack_status"].endswith(status)]
    if name:
        stacks = [s for s in stacks if name.lower() in s["stack_name"].lower()]
    stacks.sort(key=lambda s: s.get("creation_time") or "", reverse=True)
    return view.page("stacks.html", stacks=stacks, status=status, name=name,
                     statuses=STATUSES)

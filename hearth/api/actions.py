"""Stack actions: ``POST .../actions`` with exactly one action key."""

from __future__ import annotations

from hearth.api.routing import ApiRequest
from hearth.common import exception

ACTIONS = ("suspend", "resume", "check", "cancel_update", "cancel_without_rollback")


def action_name(body: object) -> str:
    """Return the one action a body asks for; BadRequest otherwise."""
    if not isinstance(body, dict) or not body:
        raise exception.BadRequest(
            message=f"No action specified: the body must have one of {', '.join(ACTIONS)}.")
    if len(body) > 1:
        raise exception.BadRequest(
            message=f"Multiple actions specified: {', '.join(sorted(body))}.")
    (name,) = body
    if name not in ACTIONS:
        raise exception.BadRequest(
            message=f"Invalid action {name} specified; valid actions: {', '.join(ACTIONS)}.")
    return name


def perform(request: ApiRequest) -> None:
    """POST .../actions: start the action; 200 with null."""
    request.service.stack_action(request.ctx, request.stack_identity, action_name(request.body))

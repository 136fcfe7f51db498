"""Event handlers: list (stack-wide or per resource) and show."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.api import links, params
from hearth.api.routing import ApiRequest


def _linked(request: ApiRequest, event: dict[str, Any]) -> dict[str, Any]:
    return links.with_event_links(request.base, request.path["stack_name"],
                                  request.path["stack_id"], event)


def index(request: ApiRequest) -> dict[str, Any]:
    """GET .../events and .../resources/{name}/events: filtered, sorted, paged."""
    query = request.query
    events = request.service.list_events(
        request.ctx, request.stack_identity, resource_name=request.path.get("resource_name"),
        filters=params.split_filters(query, params.EVENT_LIST) or None,
        limit=query.get("limit"), marker=query.get("marker"),
        sort_keys=query.get("sort_keys"), sort_dir=_sort_dir(query),
        nested_depth=query.get("nested_depth", 0))
    return {"events": [_linked(request, e) for e in events]}


def _sort_dir(query: Mapping[str, Any]) -> str | None:
    """Return the direction asked for; Heat's default is newest first without sort keys."""
    return query.get("sort_dir") or (None if query.get("sort_keys") else "desc")


def show(request: ApiRequest) -> dict[str, Any]:
    """GET .../resources/{name}/events/{event_id}: one event in full."""
    event = request.service.show_event(request.ctx, request.stack_identity,
                                       request.path["resource_name"], request.path["event_id"])
    return {"event": _linked(request, event)}

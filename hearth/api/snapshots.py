"""Stack snapshots: take, list, show, delete and restore (Heat's routes and answers)."""

from __future__ import annotations

from typing import Any

from hearth.api.routing import ApiRequest, Reply
from hearth.api.stacks import ACCEPTED


def _snapshot_id(request: ApiRequest) -> str:
    return request.path["snapshot_id"]


def create(request: ApiRequest) -> Any:
    """POST .../snapshots: start a snapshot; the snapshot object itself (unwrapped)."""
    name = request.body_object().get("name")
    return request.service.stack_snapshot(request.ctx, request.stack_identity,
                                          None if name is None else str(name))


def index(request: ApiRequest) -> dict[str, Any]:
    """GET .../snapshots: ``{"snapshots": [...]}``."""
    return {"snapshots": request.service.list_snapshots(request.ctx, request.stack_identity)}


def show(request: ApiRequest) -> dict[str, Any]:
    """GET .../snapshots/{snapshot_id}: ``{"snapshot": {...}}``."""
    return {"snapshot": request.service.show_snapshot(request.ctx, request.stack_identity,
                                                      _snapshot_id(request))}


def delete(request: ApiRequest) -> Reply:
    """DELETE .../snapshots/{snapshot_id}: 204."""
    request.service.delete_snapshot(request.ctx, request.stack_identity, _snapshot_id(request))
    return Reply(status=204, empty=True)


def restore(request: ApiRequest) -> Reply:
    """POST .../snapshots/{snapshot_id}/restore: start the RESTORE; 202."""
    request.service.stack_restore(request.ctx, request.stack_identity, _snapshot_id(request))
    return Reply(body=ACCEPTED, status=202)

"""What a stack holds, read back: template, environment, files, abandon and export."""

from __future__ import annotations

from typing import Any

from hearth.api.routing import ApiRequest


def template(request: ApiRequest) -> Any:
    """GET .../template: the stack's raw template (unwrapped)."""
    return request.service.get_template(request.ctx, request.stack_identity)


def environment(request: ApiRequest) -> Any:
    """GET .../environment: the stack's environment (unwrapped)."""
    return request.service.get_environment(request.ctx, request.stack_identity)


def files(request: ApiRequest) -> Any:
    """GET .../files: the stack's files map (unwrapped)."""
    return request.service.get_files(request.ctx, request.stack_identity)


def export(request: ApiRequest) -> Any:
    """GET .../export: the abandon data, stack kept."""
    return request.service.export_stack(request.ctx, request.stack_identity)


def abandon(request: ApiRequest) -> Any:
    """DELETE .../abandon: forget the stack, keep its resources; its data (if enabled)."""
    return request.service.abandon_stack(request.ctx, request.stack_identity)

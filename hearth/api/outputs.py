"""Stack outputs: list (keys and descriptions) and show (with the value)."""

from __future__ import annotations

from typing import Any

from hearth.api.routing import ApiRequest


def index(request: ApiRequest) -> dict[str, Any]:
    """GET .../outputs: ``{"outputs": [{output_key, description}]}``."""
    return {"outputs": request.service.list_outputs(request.ctx, request.stack_identity)}


def show(request: ApiRequest) -> dict[str, Any]:
    """GET .../outputs/{output_key}: ``{"output": {..., output_value}}``."""
    return {"output": request.service.show_output(request.ctx, request.stack_identity,
                                                  request.path["output_key"])}

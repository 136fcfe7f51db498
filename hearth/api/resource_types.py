"""Resource type handlers: list, schema, generated template."""

from __future__ import annotations

from typing import Any

from hearth.api.routing import ApiRequest


def index(request: ApiRequest) -> dict[str, Any]:
    """GET /resource_types: names, or ``{resource_type, description}`` items."""
    query = request.query
    return {"resource_types": request.service.list_resource_types(
        request.ctx, type_name=query.get("name"), support_status=query.get("support_status"),
        version=query.get("version"), with_description=query.get("with_description", False))}


def show(request: ApiRequest) -> Any:
    """GET /resource_types/{type_name}: the type's schema."""
    return request.service.resource_schema(
        request.ctx, request.path["type_name"],
        with_description=request.query.get("with_description", False))


def template(request: ApiRequest) -> Any:
    """GET /resource_types/{type_name}/template: a template using the type."""
    return request.service.generate_template(
        request.ctx, request.path["type_name"],
        template_type=request.query.get("template_type", "cfn"))

"""Template handlers: validate, template versions and their functions."""

from __future__ import annotations

from typing import Any

from hearth.api.routing import ApiRequest
from hearth.api.stacks import stack_fields


def validate(request: ApiRequest) -> Any:
    """POST /validate: Heat's validate object, or 400 with the error."""
    fields = stack_fields(request.body, template_required=True)
    return request.service.validate_template(
        request.ctx, show_nested=request.query.get("show_nested", False),
        ignore_errors=request.query.get("ignore_errors"), **fields)


def versions(request: ApiRequest) -> dict[str, Any]:
    """GET /template_versions: every template version Hearth reads."""
    return {"template_versions": request.service.list_template_versions(request.ctx)}


def functions(request: ApiRequest) -> dict[str, Any]:
    """GET /template_versions/{version}/functions: the version's intrinsic functions."""
    return {"template_functions": request.service.list_template_functions(
        request.ctx, request.path["template_version"],
        with_condition_func=request.query.get("with_condition_func", False))}

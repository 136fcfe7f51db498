"""The request limits of the engine's configuration, each checked by one function.

``max_template_size`` (a template's text, or its compact JSON form),
``max_stacks_per_tenant`` and ``max_resources_per_stack``; a negative
limit is no limit.  The REST API checks the same rules early, with the
same functions, so a refusal reads the same on every path.
"""

from __future__ import annotations

import json
from typing import Any

from hearth.common import exception
from hearth.common.configured import configured


def template_size(template: Any) -> int:
    """Return the size in bytes a template takes (its text, or its compact JSON form)."""
    if isinstance(template, bytes):
        return len(template)
    if isinstance(template, str):
        return len(template.encode())
    return len(json.dumps(template, separators=(",", ":")).encode())


def template_size_limit() -> int:
    """Return ``max_template_size``: the most bytes a template may take."""
    return int(configured().max_template_size)


def check_template_size(template: Any, filename: str | None = None) -> None:
    """Raise TemplateSizeExceeded (naming ``filename``) over ``max_template_size``."""
    limit = template_size_limit()
    size = template_size(template)
    if size > limit:
        raise exception.TemplateSizeExceeded(actual=size, limit=limit, filename=filename)


def check_stack_quota(stack_count: int) -> None:
    """Raise RequestLimitExceeded when a project owning ``stack_count`` stacks is full."""
    limit = configured().max_stacks_per_tenant
    if 0 <= limit <= stack_count:
        raise exception.RequestLimitExceeded(
            message=f"You have reached the maximum stacks per tenant, {limit}. "
                    "Please delete some stacks.")


def check_resource_count(count: int) -> None:
    """Raise RequestLimitExceeded when a stack of ``count`` resources is over the limit."""
    limit = configured().max_resources_per_stack
    if 0 <= limit < count:
        raise exception.RequestLimitExceeded(
            message=f"You have reached the maximum resources per stack, {limit}.")

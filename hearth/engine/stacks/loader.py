"""Build a run-time :class:`~hearth.engine.stacks.stack.Stack` from its stored record.

The one place the engine calls the template layer: parse the stored
template, compute parameters (pseudo parameters included) and the resource
definitions, then attach the stored resource states.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.db import api_resources, api_stacks, models
from hearth.db.session import Database
from hearth.engine.stacks.stack import Stack


def build_template(raw: Mapping[str, Any], files: Mapping[str, str], environment: Any) -> Any:
    """Return the template object of a stored template (its structure was checked)."""
    from hearth.engine.template.template import Template
    return Template(raw, files=files, env=environment, checked=True)


def hidden_names(parameters: Any) -> tuple[str, ...]:
    """Return the names of hidden parameters."""
    params = getattr(parameters, "params", {})
    return tuple(name for name, param in params.items() if param.schema.hidden)


def load_stack(db: Database, row: models.Stack, registry: Any,
               user_params: Mapping[str, Any] | None = None, raw_template_id: int | None = None,
               **seams: Any) -> Stack:
    """Return the live Stack of ``row`` (template ``raw_template_id`` or its current one)."""
    raw = api_stacks.raw_template_get(db, raw_template_id or row.raw_template_id)
    template = build_template(raw.template, raw.files or {}, raw.environment or {})
    env = getattr(template, "env", raw.environment)
    params = template.parameters(stack_name=row.name, stack_id=row.id,
                                 project_id=row.project_id)
    stack = Stack(db, row, template, env, params, {}, registry, raw.files, **seams,
                  hidden_parameters=hidden_names(params))
    for name, definition in template.resource_definitions(stack.context).items():
        stack.definitions[name] = definition
        stack.resources[name] = stack.make_resource(name, definition)
    stack.attach_rows(api_resources.resource_get_all_by_stack(db, row.id))
    return stack

"""Build a run-time :class:`~hearth.engine.stacks.stack.Stack` from its stored record.

The stored template, files and environment are rebuilt once
(:func:`hearth.engine.stacks.prepare.rebuild`: parameters with the pseudo
parameters, context, resource definitions), then the stored resource states
are attached.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hearth.db import api_resources, api_stacks, models
from hearth.db.session import Database
from hearth.engine.stacks.prepare import StackIdentity, rebuild
from hearth.engine.stacks.stack import Stack

if TYPE_CHECKING:
    from hearth.engine.registry.types import TypeRegistry


def load_stack(db: Database, row: models.Stack, registry: TypeRegistry,
               raw_template_id: int | None = None, **seams: Any) -> Stack:
    """Return the live Stack of ``row`` (template ``raw_template_id`` or its current one)."""
    raw = api_stacks.raw_template_get(db, raw_template_id or row.raw_template_id)
    prepared = rebuild(raw.template, raw.files or {}, raw.environment, StackIdentity.of(row))
    stack = prepared.build(db, row, registry, **seams)
    stack.attach_rows(api_resources.resource_get_all_by_stack(db, row.id))
    return stack

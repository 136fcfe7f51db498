"""A stack's data as Heat's abandon and export APIs return it, hidden values masked.

``stack_data`` builds ``{name, id, action, status, project_id,
stack_user_project_id, tags, template, environment, files, resources}``
with one ``{name, type, action, status, resource_id, metadata,
resource_data}`` entry per resource.  Values of parameters the template
declares ``hidden`` never leave the engine: ``masked_environment`` replaces
them with ``******`` (also used by the stack-environment API).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hearth.db import api_resources
from hearth.db.session import Database
from hearth.engine.service.api_format import HIDDEN

#: environment sections that hold parameter values
PARAMETER_SECTIONS = ("parameters", "parameter_defaults")


def hidden_parameter_names(template: Any) -> frozenset[str]:
    """Return the names of the parameters a template map declares ``hidden: true``."""
    declared = template.get("parameters") if isinstance(template, Mapping) else None
    if not isinstance(declared, Mapping):
        return frozenset()
    return frozenset(name for name, schema in declared.items()
                     if isinstance(schema, Mapping) and schema.get("hidden") in (True, "true"))


def masked_environment(environment: Mapping[str, Any] | None,
                       hidden: Iterable[str]) -> dict[str, Any]:
    """Return a copy of ``environment`` with hidden parameter values as ``******``."""
    hidden = frozenset(hidden)
    result = dict(environment or {})
    for section in PARAMETER_SECTIONS:
        values = result.get(section)
        if isinstance(values, Mapping):
            result[section] = {name: HIDDEN if name in hidden else value
                               for name, value in values.items()}
    return result


def resource_data(db: Database, row: Any) -> dict[str, Any]:
    """Return one resource's entry of the stack data."""
    return {"name": row.name, "type": row.type, "action": row.action, "status": row.status,
            "resource_id": row.physical_resource_id, "metadata": row.metadata_ or {},
            "resource_data": api_resources.resource_data_get_all(db, row.id)}


def stack_data(db: Database, row: Any, raw: Any) -> dict[str, Any]:
    """Return the abandon/export data of stack ``row`` whose raw template is ``raw``."""
    resources = api_resources.resource_get_all_by_stack(db, row.id)
    return {
        "name": row.name, "id": row.id, "action": row.action, "status": row.status,
        "project_id": row.project_id,
        "stack_user_project_id": row.project_id,
        "tags": list(row.tags or []),
        "template": raw.template,
        "environment": masked_environment(raw.environment,
                                          hidden_parameter_names(raw.template)),
        "files": dict(raw.files or {}),
        "resources": {resource.name: resource_data(db, resource)
                      for resource in resources if resource.replaced_by is None},
    }

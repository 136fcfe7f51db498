"""A stack's data as Heat's abandon and export APIs return it, hidden values masked.

``stack_data`` builds ``{name, id, action, status, project_id,
stack_user_project_id, tags, template, environment, files, resources}``
with one ``{name, type, action, status, resource_id, metadata,
resource_data}`` entry per resource (a nested stack's parent resource: the
nested stack's own data, as Heat's ``prepare_abandon``).  Values of parameters the template
declares ``hidden`` never leave the engine: ``masked_environment`` replaces
them with ``******`` (also used by the stack-environment API).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hearth.db import api_resources, api_stacks
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


def nested_stacks(db: Database, row: Any) -> dict[str, Any]:
    """Return ``{parent resource name: nested stack row}`` of the stacks nested in ``row``."""
    return {child.parent_resource_name: child
            for child in api_stacks.stack_get_all_by_owner(db, row.id)
            if child.parent_resource_name}


def resource_entries(db: Database, row: Any) -> dict[str, Any]:
    """Return each live resource's entry; a nested stack's parent carries its stack's data.

    As Heat: the entry of a resource whose physical resource is a nested
    stack is that stack's whole data (recursively), not the resource's own.
    """
    children = nested_stacks(db, row)
    entries = {}
    for resource in api_resources.resource_get_all_by_stack(db, row.id):
        if resource.replaced_by is not None:
            continue
        child = children.get(resource.name)
        if child is not None and child.id == resource.physical_resource_id:
            raw = api_stacks.raw_template_get(db, child.raw_template_id)
            entries[resource.name] = stack_data(db, child, raw, masked=False)
        else:
            entries[resource.name] = resource_data(db, resource)
    return entries


def is_stack_data(entry: Any) -> bool:
    """Return whether a resources entry is a nested stack's data (not a resource's)."""
    return isinstance(entry, Mapping) and "template" in entry and "resources" in entry


def masked_stack_data(data: Mapping[str, Any]) -> dict[str, Any]:
    """Return stack data with hidden parameter values as ``******``, nested stacks too."""
    result = dict(data)
    result["environment"] = masked_environment(data.get("environment"),
                                               hidden_parameter_names(data.get("template")))
    resources = data.get("resources")
    if isinstance(resources, Mapping):
        result["resources"] = {name: masked_stack_data(entry) if is_stack_data(entry) else entry
                               for name, entry in resources.items()}
    return result


def stack_data(db: Database, row: Any, raw: Any, masked: bool = True) -> dict[str, Any]:
    """Return the abandon/export data of stack ``row`` whose raw template is ``raw``.

    ``masked`` False keeps hidden parameter values (a snapshot stores them to
    restore them; what the API shows of it is masked again).
    """
    data = {
        "name": row.name, "id": row.id, "action": row.action, "status": row.status,
        "project_id": row.project_id,
        "stack_user_project_id": row.project_id,
        "tags": list(row.tags or []),
        "template": raw.template,
        "environment": dict(raw.environment or {}),
        "files": dict(raw.files or {}),
        "resources": resource_entries(db, row),
    }
    return masked_stack_data(data) if masked else data

"""A stack's data as Heat's abandon and export APIs return it, hidden values masked.

``stack_data`` builds ``{name, id, action, status, project_id,
stack_user_project_id, tags, template, environment, files, resources}``
with one ``{name, type, action, status, resource_id, metadata,
resource_data}`` entry per resource (a nested stack's parent resource: the
nested stack's own data, as Heat's ``prepare_abandon``).  Values of parameters the template
declares ``hidden`` never leave the engine: ``masked_environment`` replaces
them with ``******`` (also used by the stack-environment API), and so do
redacted resource data (a RandomString's value, a signal token): shown as
``******`` in export and abandon output, kept whole (with the list of their
keys) only in a snapshot's stored data, which is masked whenever shown.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hearth.common.secret_mask import SECRET_MASK
from hearth.db import api_resources, api_stacks, models
from hearth.db.session import Database
from hearth.engine.template.versions import hidden_parameters

#: environment sections that hold parameter values
PARAMETER_SECTIONS = ("parameters", "parameter_defaults")


def masked_environment(environment: Mapping[str, Any] | None,
                       hidden: Iterable[str]) -> dict[str, Any]:
    """Return a copy of ``environment`` with hidden parameter values as ``******``."""
    hidden = frozenset(hidden)
    result = dict(environment or {})
    for section in PARAMETER_SECTIONS:
        values = result.get(section)
        if isinstance(values, Mapping):
            result[section] = {name: SECRET_MASK if name in hidden else value
                               for name, value in values.items()}
    return result


#: a stored entry's list of its redacted data keys (kept data: masked when shown)
REDACTED_KEYS = "redacted_data"


def resource_data(db: Database, row: models.Resource, redacted: bool = False) -> dict[str, Any]:
    """Return one resource's entry of the stack data (``redacted``: secrets as ``******``).

    Unredacted (the data a snapshot keeps), the entry names its redacted keys
    under :data:`REDACTED_KEYS` so that :func:`masked_stack_data` can mask
    them whenever the kept data is shown.
    """
    public = api_resources.resource_data_list(db, row.id)
    entry = {"name": row.name, "type": row.type, "action": row.action, "status": row.status,
             "resource_id": row.physical_resource_id, "metadata": row.metadata_ or {},
             "resource_data": public}
    if not redacted:
        entry["resource_data"] = api_resources.resource_data_get_all(db, row.id)
        secret = sorted(key for key, value in public.items() if value == SECRET_MASK)
        if secret:
            entry[REDACTED_KEYS] = secret
    return entry


def masked_entry(entry: Mapping[str, Any]) -> dict[str, Any]:
    """Return a resource entry with its redacted data as ``******`` (and no key list)."""
    result = {key: value for key, value in entry.items() if key != REDACTED_KEYS}
    secret = entry.get(REDACTED_KEYS)
    data = entry.get("resource_data")
    if isinstance(secret, list) and isinstance(data, Mapping):
        result["resource_data"] = {key: SECRET_MASK if key in secret else value
                                   for key, value in data.items()}
    return result


def nested_stacks(db: Database, row: models.Stack) -> dict[str, Any]:
    """Return ``{parent resource name: nested stack row}`` of the stacks nested in ``row``."""
    return {child.parent_resource_name: child
            for child in api_stacks.stack_get_all_by_owner(db, row.id)
            if child.parent_resource_name}


def resource_entries(db: Database, row: models.Stack, redacted: bool = False) -> dict[str, Any]:
    """Return each live resource's entry; a nested stack's parent carries its stack's data.

    As Heat: the entry of a resource whose physical resource is a nested
    stack is that stack's whole data (recursively), not the resource's own.
    ``redacted``: data a resource stored redacted (a RandomString's value, a
    wait condition handle's token) reads ``******``, nested stacks too.
    """
    children = nested_stacks(db, row)
    entries = {}
    for resource in api_resources.resource_get_all_by_stack(db, row.id):
        if resource.replaced_by is not None:
            continue
        child = children.get(resource.name)
        if child is not None and child.id == resource.physical_resource_id:
            raw = api_stacks.raw_template_get(db, child.raw_template_id)
            entries[resource.name] = stack_data(db, child, raw, masked=False,
                                                redacted=redacted)
        else:
            entries[resource.name] = resource_data(db, resource, redacted)
    return entries


def is_stack_data(entry: Any) -> bool:
    """Return whether a resources entry is a nested stack's data (not a resource's)."""
    return isinstance(entry, Mapping) and "template" in entry and "resources" in entry


def masked_stack_data(data: Mapping[str, Any]) -> dict[str, Any]:
    """Return stack data with hidden parameter values and redacted data as ``******``.

    Nested stacks too.
    """
    result = dict(data)
    result["environment"] = masked_environment(data.get("environment"),
                                               hidden_parameters(data.get("template")))
    resources = data.get("resources")
    if isinstance(resources, Mapping):
        result["resources"] = {name: masked_stack_data(entry) if is_stack_data(entry)
                               else masked_entry(entry) if isinstance(entry, Mapping) else entry
                               for name, entry in resources.items()}
    return result


def stack_data(db: Database, row: models.Stack, raw: Any, masked: bool = True,
               redacted: bool | None = None) -> dict[str, Any]:
    """Return the abandon/export data of stack ``row`` whose raw template is ``raw``.

    ``masked`` False keeps hidden parameter values (a snapshot stores them to
    restore them; what the API shows of it is masked again).  ``redacted``
    (default: as ``masked``) shows redacted resource data as ``******``:
    secrets never leave the engine in export or abandon output.
    """
    data = {
        "name": row.name, "id": row.id, "action": row.action, "status": row.status,
        "project_id": row.project_id,
        "stack_user_project_id": row.project_id,
        "tags": list(row.tags or []),
        "template": raw.template,
        "environment": dict(raw.environment or {}),
        "files": dict(raw.files or {}),
        "resources": resource_entries(db, row, masked if redacted is None else redacted),
    }
    return masked_stack_data(data) if masked else data

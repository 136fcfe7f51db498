"""Turn stacks, resources, events and outputs into the JSON objects of Heat's v1 API.

Field names, ``ACTION_STATUS`` strings and ``YYYY-MM-DDTHH:MM:SSZ`` times are
Heat's; ``links`` are left to the REST layer.  Hidden parameters show as
``******``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from hearth.common.secret_mask import SECRET_MASK
from hearth.db.timeutils import format_time
from hearth.engine.states import state_name


def format_parameters(row: Any, parameters: Mapping[str, Any],
                      hidden: Iterable[str] = ()) -> dict[str, str]:
    """Return the parameters map with pseudo parameters, hidden ones as ``******``.

    HOT's pseudo parameters are the record's identity (a CloudFormation-format
    template has its own, ``AWS::StackName``..., with their values).
    """
    hidden = set(hidden)
    identity = {"OS::stack_id": row.id, "OS::stack_name": row.name,
                "OS::project_id": row.project_id}
    return {name: identity[name] if name in identity else
            SECRET_MASK if name in hidden else _text(value) for name, value in parameters.items()}


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return str(value)  # Heat's map of parameters shows "True"/"False"
    if isinstance(value, list):
        return ",".join(_text(item) for item in value)
    if isinstance(value, dict):
        return json.dumps(value)
    return "" if value is None else str(value)


#: the actions that leave a stack's ``updated_time`` unset, as Heat's (it is set
#: by an update, check, suspend, resume, snapshot or restore)
NOT_UPDATING = frozenset({"CREATE", "ADOPT"})


def format_stack_summary(row: Any, description: str = "") -> dict[str, Any]:
    """Return a stack-list item (Heat lists no description: ``""``)."""
    return {
        "id": row.id,
        "stack_name": row.name,
        "description": description,
        "stack_status": state_name(row.action, row.status),
        "stack_status_reason": row.status_reason,
        "creation_time": format_time(row.created_at),
        "updated_time": format_time(None if row.action in NOT_UPDATING else row.updated_at),
        "deletion_time": format_time(row.deleted_at),
        "stack_owner": row.username,
        "parent": row.owner_id,
        "stack_user_project_id": row.project_id,
        "tags": list(row.tags or []) or None,
    }


def format_stack(row: Any, description: str, parameters: Mapping[str, str],
                 outputs: list[dict[str, Any]] | None) -> dict[str, Any]:
    """Return the full stack object (stack-show: no tags is ``[]``, as Heat; a list says null)."""
    result = format_stack_summary(row, description)
    result.update({
        "tags": list(row.tags or []),
        "template_description": description,
        "parameters": dict(parameters),
        "disable_rollback": row.disable_rollback,
        "timeout_mins": row.timeout_mins,
        "capabilities": [],
        "notification_topics": [],
    })
    if outputs is not None:
        result["outputs"] = outputs
    return result


def format_resource(row: Any, stack_row: Any, required_by: list[str],
                    description: str = "", attributes: Mapping[str, Any] | None = None,
                    nested: Any = None) -> dict[str, Any]:
    """Return a resource object (list item; ``attributes`` added for show).

    As Heat's engine answer, it names the stack it belongs to (``stack_name``,
    ``stack_id``; the REST layer turns them into the ``stack`` link), the
    ``parent_resource`` of a nested stack's resource, and ``nested`` (the
    stack row whose physical resource is this resource, if any) as
    ``nested_stack_name``/``nested_stack_id`` (the ``nested`` link).
    """
    result = {
        "resource_name": row.name,
        "logical_resource_id": row.name,
        "physical_resource_id": row.physical_resource_id or "",
        "resource_type": row.type,
        "resource_status": state_name(row.action, row.status),
        "resource_status_reason": row.status_reason,
        "creation_time": format_time(row.created_at),
        "updated_time": format_time(row.updated_at or row.created_at),
        "required_by": list(required_by),
        "stack_name": stack_row.name,
        "stack_id": stack_row.id,
    }
    parent_resource = getattr(stack_row, "parent_resource_name", None)
    if parent_resource:
        result["parent_resource"] = parent_resource
    if nested is not None:
        result.update(nested_stack_name=nested.name, nested_stack_id=nested.id)
    if attributes is not None:
        result["description"] = description
        result["attributes"] = dict(attributes)
    return result


def identity(project_id: str, stack_name: str, stack_id: str, path: str = "") -> dict[str, str]:
    """Return a Heat identity map (``tenant``, ``stack_name``, ``stack_id``, ``path``)."""
    return {"tenant": project_id, "stack_name": stack_name, "stack_id": stack_id, "path": path}


def format_preview_resource(resource: Any, stack_row: Any, required_by: list[str],
                            attributes: Mapping[str, Any],
                            properties: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Return a resource of a create or update preview, as Heat's engine gives it.

    Unlike a listed resource, it names itself and its stack by identity maps
    (``resource_identity``, ``stack_identity``) and carries its template's
    description, its metadata and its ``attributes`` (``properties`` too, in
    a create's preview).
    """
    created = resource.created_at
    stack = identity(stack_row.project_id, stack_row.name, stack_row.id)
    result = {
        "resource_name": resource.name,
        "physical_resource_id": resource.resource_id or "",
        "resource_action": resource.action,
        "resource_status": resource.status,
        "resource_status_reason": resource.status_reason or "",
        "resource_type": resource.type_name,
        "creation_time": format_time(created),
        "updated_time": format_time(resource.stored_at or created),
        "resource_identity": {**stack, "path": f"/resources/{resource.name}"},
        "stack_identity": stack,
        "stack_name": stack_row.name,
        "required_by": list(required_by),
        "description": getattr(resource.t, "description", None) or "",
        "metadata": resource.metadata_get() or {},
        "attributes": dict(attributes),
    }
    parent_resource = getattr(stack_row, "parent_resource_name", None)
    if parent_resource:
        result["parent_resource"] = parent_resource
    if properties is not None:
        result["properties"] = dict(properties)
    return result


def format_event(row: Any, with_details: bool = False, stack_row: Any = None,
                 root_row: Any = None) -> dict[str, Any]:
    """Return an event object (``resource_type``/``resource_properties`` with details).

    ``stack_row`` (the stack the event belongs to) adds ``stack_name`` and
    ``stack_id``; ``root_row`` (the stack a nested listing was asked of)
    adds ``root_stack_name`` and ``root_stack_id``: the REST layer turns
    both into links, as Heat does.
    """
    result = {
        "id": row.uuid,
        "event_time": format_time(row.created_at),
        "logical_resource_id": row.resource_name,
        "resource_name": row.resource_name,
        "physical_resource_id": row.physical_resource_id or "",
        "resource_status": state_name(row.resource_action, row.resource_status),
        "resource_status_reason": row.resource_status_reason,
    }
    if stack_row is not None:
        result.update(stack_name=stack_row.name, stack_id=stack_row.id)
    if root_row is not None:
        result.update(root_stack_name=root_row.name, root_stack_id=root_row.id)
    if with_details:
        result["resource_type"] = row.resource_type
        result["resource_properties"] = row.resource_properties or {}
    return result


def format_snapshot(row: Any, data: Any) -> dict[str, Any]:
    """Return the snapshot object of Heat's API; ``data`` is its data as shown (masked)."""
    return {"id": row.id, "name": row.name, "action": row.action, "status": row.status,
            "status_reason": row.status_reason or None, "data": data,
            "creation_time": format_time(row.created_at)}

"""Preview a stack whose resources include nested stacks, as Heat's preview shows them.

Heat's preview lists each resource; a resource that is a nested stack is
shown as the list of the nested stack's own resources (recursively).  The
nested stacks are built from their templates as a create would build them,
validated, and never stored.  :func:`resource_summary` is the object of one
resource, in a stack preview and in an update preview.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from hearth.engine.attributes import SHOW_ATTR
from hearth.engine.nested import children
from hearth.engine.nested.stack_resource import StackResource
from hearth.engine.resources import shown
from hearth.engine.resources.attributes import show_attributes
from hearth.engine.service import api_format
from hearth.engine.stacks.prepare import StackIdentity
from hearth.engine.states import COMPLETE, INIT
from hearth.engine.template.resource_definition import required_by

if TYPE_CHECKING:
    from hearth.engine.resource import Resource
    from hearth.engine.stacks.stack import Stack

#: (resource, its stack, the names requiring it) -> the preview object of one resource
Summary = Callable[[Any, Any, list[str]], dict[str, Any]]


def preview_child(resource: StackResource) -> Any:
    """Return the unstored Stack a nested resource would create (None: not known yet)."""
    template = resource.child_template()
    if template is None:
        return None
    parent = children.live_parent(resource)  # a whole Stack (its row, database and registry)
    name = f"{parent.name}-{resource.name}"
    identity = StackIdentity(name, "None", parent.row.project_id)
    prepared = children.prepare_child(resource, template, resource.child_params(), identity)
    row = SimpleNamespace(name=name, id="None", project_id=parent.row.project_id,
                          action=INIT, status=COMPLETE, timeout_mins=None,
                          disable_rollback=True, owner_id=parent.id,
                          nested_depth=children.depth_of(parent) + 1)
    return prepared.build(parent.db, row, parent.registry)


def preview_resources(stack: Stack, summary: Summary) -> list[Any]:
    """Return the preview objects of ``stack``'s resources; a nested stack is a list."""
    users = required_by(stack.definitions)
    result: list[Any] = []
    for name, resource in stack.resources.items():
        child = preview_child(resource) if isinstance(resource, StackResource) else None
        result.append(preview_resources(child, summary) if child is not None
                      else summary(resource, stack, users[name]))
    return result


def resource_summary(resource: Resource, stack_row: Any, required_by: list[str],
                     with_properties: bool = False) -> dict[str, Any]:
    """Return a preview's resource object, in the shape Heat's previews give it.

    A resource not made yet (INIT) has every attribute ``None``; a live one
    its attributes as resource-show resolves them.  ``with_properties``
    (a create's preview) adds every property of its schema, defaults
    included.  Secrets are masked in both.
    """
    secrets = resource.stack.secrets()
    if resource.action == INIT:
        attributes = {name: None for name in resource.attributes.schema if name != SHOW_ATTR}
    else:
        attributes = show_attributes(resource)
    properties = (shown.mask(_schema_properties(resource), secrets)
                  if with_properties else None)
    return api_format.format_preview_resource(
        resource, stack_row, required_by, shown.mask(attributes, secrets),
        properties)


def _schema_properties(resource: Resource) -> dict[str, Any]:
    """Return every property of the resource's schema (None where it cannot be read yet)."""
    values = {}
    for name in resource.properties_schema:
        try:
            values[name] = resource.properties[name]
        except Exception:  # noqa: BLE001 - as Heat: a property not resolvable yet shows None
            values[name] = None
    return values

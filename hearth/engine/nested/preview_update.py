"""An update preview that goes down into nested stacks (``show_nested``), as Heat's.

The top-level preview lists the stack's own resources.  With ``show_nested``
the resources of nested stacks are listed too, each with its
``parent_resource``: a nested resource that is updated on both sides is
previewed as an update of its nested stack (recursively); every resource of
the nested stack of a resource deleted or replaced is deleted, and every
resource of the nested stack of an added resource is added.  The target
nested stacks are built as a create would build them, never stored.
"""

from __future__ import annotations

from typing import Any

from hearth.engine.nested.preview import preview_child
from hearth.engine.nested.stack_resource import StackResource
from hearth.engine.template.resource_definition import required_by

ADDED, DELETED, REPLACED, UPDATED = "added", "deleted", "replaced", "updated"


def with_nested(current: Any, target: Any, changes: dict[str, Any]) -> dict[str, Any]:
    """Return ``changes`` (a top-level preview) with the nested stacks' changes added."""
    merged = {kind: list(items) for kind, items in changes["resource_changes"].items()}
    _descend(current, target, changes["resource_changes"], merged)
    return {"resource_changes": merged}


def _names(changes: dict[str, Any], *kinds: str) -> list[str]:
    return [item["resource_name"] for kind in kinds for item in changes.get(kind, [])]


def _nested_of(resource: Any, build: bool) -> Any:
    if not isinstance(resource, StackResource):
        return None
    return preview_child(resource) if build else resource.nested()


def _descend(current: Any, target: Any, changes: dict[str, Any],
             merged: dict[str, list[Any]]) -> None:
    from hearth.engine.update import run as update
    for name in _names(changes, DELETED, REPLACED):
        _whole_tree(current.resources.get(name), DELETED, merged, build=False)
    for name in _names(changes, ADDED):
        _whole_tree(target.resources.get(name), ADDED, merged, build=True)
    for name in _names(changes, UPDATED):
        old = _nested_of(current.resources.get(name), build=False)
        new = _nested_of(target.resources.get(name), build=True) if old is not None else None
        if new is None:
            continue
        nested = update.preview_update(old, new)["resource_changes"]
        for kind, items in nested.items():
            merged.setdefault(kind, []).extend(_parented(items, name))
        _descend(old, new, nested, merged)


def _whole_tree(resource: Any, kind: str, merged: dict[str, list[Any]], build: bool) -> None:
    """List every resource below ``resource`` (recursively) under ``kind``."""
    from hearth.engine.update.run import resource_summary
    child = _nested_of(resource, build)
    if child is None:
        return
    users = required_by({name: member.t for name, member in child.resources.items()})
    for name, member in child.resources.items():
        summary = resource_summary(member, child.row, users[name])
        merged.setdefault(kind, []).extend(_parented([summary], resource.name))
        _whole_tree(member, kind, merged, build)


def _parented(items: list[dict[str, Any]], parent: str) -> list[dict[str, Any]]:
    return [{**item, "parent_resource": item.get("parent_resource") or parent}
            for item in items]

"""Heat's update preview, going down into nested stacks with ``show_nested``.

:func:`preview_update` lists what an update would do to the stack's own
resources (added, deleted, replaced, updated, unchanged).  With ``show_nested``
the resources of nested stacks are listed too, each with its
``parent_resource``: a nested resource that is updated on both sides is
previewed as an update of its nested stack (recursively); every resource of
the nested stack of a resource deleted or replaced is deleted, and every
resource of the nested stack of an added resource is added.  The target
nested stacks are built as a create would build them, never stored.
"""

from __future__ import annotations

import graphlib
from typing import TYPE_CHECKING, Any

from hearth.engine.nested.stack_resource import StackResource
from hearth.engine.service.preview import preview_child, resource_summary
from hearth.engine.stacks.stack import Stack
from hearth.engine.template.resource_definition import required_by
from hearth.engine.update import plan as update_plan
from hearth.engine.update.run import StackUpdate

if TYPE_CHECKING:
    from hearth.engine.resource import Resource

ADDED, DELETED, REPLACED, UPDATED = "added", "deleted", "replaced", "updated"
#: the changes an update preview shows as the stack has them now (Heat's choice);
#: the others (unchanged, replaced, added) as the new template makes them
CURRENT_SIDE = frozenset({UPDATED, DELETED})


def with_nested(current: Any, target: Any, changes: dict[str, Any]) -> dict[str, Any]:
    """Return ``changes`` (a top-level preview) with the nested stacks' changes added."""
    merged = {kind: list(items) for kind, items in changes["resource_changes"].items()}
    _descend(current, target, changes["resource_changes"], merged)
    return {"resource_changes": merged}


def _names(changes: dict[str, Any], *kinds: str) -> list[str]:
    return [item["resource_name"] for kind in kinds for item in changes.get(kind, [])]


def _nested_of(resource: Resource | None, build: bool) -> Stack | None:
    if not isinstance(resource, StackResource):
        return None
    return preview_child(resource) if build else resource.nested()


def _descend(current: Stack, target: Stack, changes: dict[str, Any],
             merged: dict[str, list[Any]]) -> None:
    for name in _names(changes, DELETED, REPLACED):
        _whole_tree(current.resources.get(name), DELETED, merged, build=False)
    for name in _names(changes, ADDED):
        _whole_tree(target.resources.get(name), ADDED, merged, build=True)
    for name in _names(changes, UPDATED):
        old = _nested_of(current.resources.get(name), build=False)
        new = _nested_of(target.resources.get(name), build=True) if old is not None else None
        if old is None or new is None:
            continue
        nested = preview_update(old, new)["resource_changes"]
        for kind, items in nested.items():
            merged.setdefault(kind, []).extend(_parented(items, name))
        _descend(old, new, nested, merged)


def _whole_tree(resource: Resource | None, kind: str, merged: dict[str, list[Any]],
                build: bool) -> None:
    """List every resource below ``resource`` (recursively) under ``kind``."""
    child = _nested_of(resource, build) if resource is not None else None
    if resource is None or child is None:
        return
    users = required_by({name: member.t for name, member in child.resources.items()})
    for name, member in child.resources.items():
        summary = resource_summary(member, child.row, users[name])
        merged.setdefault(kind, []).extend(_parented([summary], resource.name))
        _whole_tree(member, kind, merged, build)


def _parented(items: list[dict[str, Any]], parent: str) -> list[dict[str, Any]]:
    return [{**item, "parent_resource": item.get("parent_resource") or parent}
            for item in items]


def preview_update(current: Stack, target: Stack) -> dict[str, Any]:
    """Return Heat's update preview: ``{"resource_changes": {change: [resource objects]}}``.

    Each resource is compared with what its last action stored, in
    dependency order; a resource found changed reads, for those after it, as
    one not made yet (its reference is its name, its attributes what a new
    one gives), as in Heat's preview, so that a resource reading it is
    previewed as the update will find it: updated or replaced.
    """
    updater = StackUpdate(target, current.resources)
    live = dict(target.resources)

    def forget(name: str) -> None:
        target.resources[name] = target.make_resource(name, target.definitions[name])

    order = graphlib.TopologicalSorter(
        {name: set(needs) for name, needs in target.requires().items()}).static_order()
    try:
        changes = update_plan.classify(updater.current, target.definitions, updater.new_class,
                                       [name for name in order if name in target.definitions],
                                       forget)
    finally:
        target.resources.clear()
        target.resources.update(live)
    new_users = required_by(target.definitions)
    old_users = required_by({n: r.t for n, r in updater.current.items()})
    result = {}
    for change, names in changes.items():
        if change in CURRENT_SIDE:  # as Heat: the resource as it is now
            result[change] = [resource_summary(updater.current[name], current.row,
                                               old_users[name]) for name in names]
        else:  # the resource the new template makes (not made yet)
            result[change] = [resource_summary(
                target.make_resource(name, target.definitions[name]), current.row,
                new_users[name]) for name in names]
    return {"resource_changes": result}

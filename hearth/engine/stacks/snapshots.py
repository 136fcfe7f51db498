"""Stack snapshots: take one (the stack's SNAPSHOT action), show it, delete it, restore it.

As Heat's legacy engine:

- taking a snapshot stores a snapshot row (action CREATE, IN_PROGRESS),
  then runs SNAPSHOT on every resource (``handle_snapshot``) in dependency
  order; just before the stack's SNAPSHOT ends, the snapshot gets the
  stack's data (:func:`hearth.engine.stacks.export.stack_data`: template,
  environment, files and one entry per resource with its data; a nested
  stack's parent carries the nested stack's data), the stack's final status
  and reason;
- deleting one calls each resource's ``handle_delete_snapshot(entry)``;
- restoring one is an update (action RESTORE) to the snapshot's template,
  files and environment, each resource's definition being the one its
  ``handle_restore(definition, entry)`` returns.  A RESTORE that fails does
  not roll back (Heat rolls back UPDATE only).

What the API shows of a snapshot's data (:func:`shown_data`) has hidden
parameter values masked; the stored data keeps them for the restore.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from hearth.db import api_snapshots, api_stacks, models
from hearth.engine.resources import keeping
from hearth.engine.scheduler import Direction, WalkResult
from hearth.engine.stacks import actions as stack_actions
from hearth.engine.stacks import export
from hearth.engine.states import COMPLETE, FAILED, IN_PROGRESS, SNAPSHOT

if TYPE_CHECKING:
    from hearth.engine.stacks.prepare import PreparedStack
    from hearth.engine.stacks.stack import Stack

#: a snapshot row's own actions (Heat's): being taken, being deleted
CREATE, DELETE = "CREATE", "DELETE"


def shown_data(row: models.Snapshot) -> Any:
    """Return a snapshot's data as the API shows it (hidden parameter values masked)."""
    data = row.data
    return export.masked_stack_data(data) if isinstance(data, Mapping) else data


def new_snapshot(stack: Stack, name: str | None) -> Any:
    """Store the row of a snapshot being taken (CREATE_IN_PROGRESS, no data yet)."""
    return api_snapshots.snapshot_create(stack.db, {
        "stack_id": stack.id, "name": name, "data": None, "action": CREATE,
        "status": IN_PROGRESS, "status_reason": ""})


def _save(stack: Stack, snapshot_id: str, result: WalkResult) -> None:
    """Give the snapshot the stack's data, status and reason (before the stack's own)."""
    status = COMPLETE if result.ok else FAILED
    reason = (f"Stack {SNAPSHOT} completed successfully" if result.ok
              else stack_actions.failure_reason(SNAPSHOT, result))
    stack.db.writes.flush()  # the resources' SNAPSHOT states, as the data shows them
    raw = api_stacks.raw_template_get(stack.db, stack.row.raw_template_id)
    data = export.stack_data(stack.db, stack.row, raw, masked=False)
    data["status"] = status
    api_snapshots.snapshot_update(stack.db, snapshot_id, data=data, status=status,
                                  status_reason=reason)


def take(stack: Stack, snapshot_id: str) -> bool:
    """Run the stack's SNAPSHOT action into snapshot ``snapshot_id``; return whether it completed.

    A snapshot left unfinished by an error of the engine itself is marked FAILED.
    """
    def walk() -> WalkResult:
        result = stack_actions.walk_resources(
            stack, stack.requires(), Direction.FORWARD,
            lambda name: stack.resources[name].snapshot())
        _save(stack, snapshot_id, result)
        return result

    try:
        return stack_actions.frame(stack, SNAPSHOT, walk)
    except BaseException as error:
        row = api_snapshots.snapshot_get(stack.db, snapshot_id)
        if row.status == IN_PROGRESS:
            api_snapshots.snapshot_update(stack.db, snapshot_id, status=FAILED,
                                          status_reason=f"Stack {SNAPSHOT} failed: {error}")
        raise


def delete_data(stack: Stack, row: models.Snapshot) -> None:
    """Remove what each resource made for snapshot ``row`` (``handle_delete_snapshot``).

    Run synchronously: no type of this engine waits to delete a snapshot.
    """
    entries = (row.data or {}).get("resources") or {}
    for name, resource in stack.resources.items():
        entry = entries.get(name)
        if entry and not export.is_stack_data(entry):
            for _step in keeping.delete_snapshot(resource, entry):
                stack.sleep(0)


def delete_all(stack: Stack) -> None:
    """Delete every snapshot of ``stack``, and what its resources made for each (as Heat)."""
    for row in api_snapshots.snapshot_list(stack.db, stack.id):
        delete_data(stack, row)
        api_snapshots.snapshot_delete(stack.db, row.id)


def restore_prepared(stack: Stack, data: Mapping[str, Any],
                     prepare: Callable[[Any, Mapping[str, str], Any], PreparedStack]
                     ) -> PreparedStack:
    """Return the prepared target of a restore of ``stack`` to snapshot ``data``.

    ``prepare(template, files, environment)`` validates a template of this
    stack in full.  Each resource whose type has ``handle_restore`` is given
    the definition its answer renders (and the template validated again).
    """
    template = copy.deepcopy(data["template"])
    files = dict(data.get("files") or {})
    environment = data.get("environment") or {}
    prepared = prepare(template, files, environment)
    section = prepared.template.key("resources")
    entries = data.get("resources") or {}
    changed = False
    for name, definition in prepared.definitions.items():
        cls = stack.registry.get_class(definition.type, prepared.env, name, files=files)
        if getattr(cls, "handle_restore", None) is None:
            continue
        restored = keeping.restore_definition(cls(name, definition, stack), definition,
                                              entries.get(name))
        if restored is not definition:
            template[section][name] = restored.render_hot()
            changed = True
    return prepare(template, files, environment) if changed else prepared

"""The engine's keeping and moving of stacks: snapshots, restore, abandon, adopt.

:class:`StackKeeping` is a part of
:class:`~hearth.engine.service.engine.EngineService` (its methods are the
service's, with the same request context first and the same stack
identities).  Heat's semantics and texts:

- ``stack_snapshot`` refuses a stack with an action in progress
  (ActionInProgress) and, for a caller who is not an admin, a stack that has
  ``max_snapshots_per_stack`` snapshots already; the snapshot is answered
  at once (CREATE_IN_PROGRESS) while the stack's SNAPSHOT runs;
- ``delete_snapshot`` refuses a snapshot being taken; ``stack_restore`` one
  that is not COMPLETE;
- ``abandon_stack`` (when ``enable_stack_abandon``) deletes the stack's
  record and keeps every physical resource, answering the stack's data;
  ``adopt_stack`` (when ``enable_stack_adopt``) creates a stack from such
  data: the data's template, its environment's parameters (the request's
  win), every resource ADOPTed with its entry (physical id, data, metadata).
  An adopt that fails rolls back by forgetting what it adopted (unless
  rollback is disabled), never deleting a physical resource.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hearth.common import exception
from hearth.common.config import CONF
from hearth.common.context import RequestContext
from hearth.common.secret_mask import SECRET_MASK
from hearth.db import api_snapshots, api_stacks
from hearth.engine.service import api_format
from hearth.engine.service.reads import StackReads
from hearth.engine.states import ADOPT, COMPLETE, CREATE, DELETE, IN_PROGRESS, RESTORE, SNAPSHOT

if TYPE_CHECKING:
    from collections.abc import Callable, Collection

    from hearth.engine.service.runtime import EngineRuntime
    from hearth.engine.stacks.stack import Stack

JsonMap = dict[str, Any]


def snapshot_limit_reached(count: int) -> bool:
    """Return whether a stack with ``count`` snapshots may take no more."""
    limit = int(CONF.max_snapshots_per_stack)
    return limit >= 0 and count >= limit


def require_enabled(option: str, feature: str) -> None:
    """Refuse ``feature`` (NotSupported, Heat's text) unless configuration ``option`` is true."""
    if not getattr(CONF, option):
        raise exception.NotSupported(feature=feature)


def adopt_parameters(adopt_data: Mapping[str, Any], params: Mapping[str, Any] | None,
                     hidden: Collection[str]) -> dict[str, Any]:
    """Return the parameters of an adopt: the data's environment's, the request's winning.

    A hidden parameter's value (``hidden``: the names of the data's
    template's) shows as ``******`` in abandon data: it is not taken as a
    value (its default applies, or the request gives it).
    """
    environment = adopt_data.get("environment")
    given = environment.get("parameters") if isinstance(environment, Mapping) else None
    kept = {name: value for name, value in (given if isinstance(given, Mapping) else {}).items()
            if not (name in hidden and value == SECRET_MASK)}
    return {**kept, **(params or {})}


class StackKeeping(StackReads):
    """Snapshots, restore, abandon and adopt (a part of the engine service).

    Reads come from :class:`StackReads`; running an action and storing a new
    stack are the :class:`~hearth.engine.service.engine.EngineService`'s,
    declared here so that their use is checked.
    """

    if TYPE_CHECKING:
        @property
        def runtime(self) -> EngineRuntime:
            """Return the engine runtime of this process."""

        def _run(self, stack: Stack, action: str, work: Callable[[], Any]) -> None:
            """Run ``work`` (the action) on ``stack`` under this engine's lock."""

        def _new_stack(self, ctx: RequestContext, stack_name: str, template: Any,
                       params: Mapping[str, Any] | None, files: Mapping[str, str] | None,
                       environment: Any, environment_files: list[str] | None,
                       disable_rollback: bool, timeout_mins: int | None,
                       tags: list[str] | None) -> Stack:
            """Validate and store a new stack, not started."""

    # --- snapshots --------------------------------------------------------------
    def stack_snapshot(self, ctx: RequestContext, stack_identity: str,
                       name: str | None = None) -> JsonMap:
        """Start the stack's SNAPSHOT; return the new snapshot (CREATE_IN_PROGRESS)."""
        row = self._row(ctx, stack_identity, show_deleted=False)
        if row.status == IN_PROGRESS:
            raise exception.ActionInProgress(stack_name=row.name, action=row.action)
        if not ctx.is_admin:
            count = api_snapshots.snapshot_count(self.db, row.id)
            if snapshot_limit_reached(count):
                raise exception.RequestLimitExceeded(
                    message=f"You have reached the maximum snapshots per stack, "
                            f"{CONF.max_snapshots_per_stack}. Please delete some snapshots.")
        stack = self._load(row)
        snapshot = self.layer.new_snapshot(stack, name)
        try:
            self._run(stack, SNAPSHOT, self.layer.snapshot(stack, snapshot.id))
        except BaseException:
            api_snapshots.snapshot_delete(self.db, snapshot.id)
            raise
        return api_format.format_snapshot(snapshot, self.layer.shown_snapshot_data(snapshot))

    def list_snapshots(self, ctx: RequestContext, stack_identity: str) -> list[JsonMap]:
        """Return the stack's snapshots, oldest first."""
        row = self._row(ctx, stack_identity, show_deleted=False)
        return [api_format.format_snapshot(item, self.layer.shown_snapshot_data(item))
                for item in api_snapshots.snapshot_list(self.db, row.id)]

    def show_snapshot(self, ctx: RequestContext, stack_identity: str,
                      snapshot_id: str) -> JsonMap:
        """Return one snapshot of the stack (EntityNotFound if it is another's)."""
        snapshot = self._snapshot_row(ctx, stack_identity, snapshot_id)[1]
        return api_format.format_snapshot(snapshot, self.layer.shown_snapshot_data(snapshot))

    def delete_snapshot(self, ctx: RequestContext, stack_identity: str,
                        snapshot_id: str) -> None:
        """Delete a snapshot and what its resources made for it."""
        row, snapshot = self._snapshot_row(ctx, stack_identity, snapshot_id)
        if snapshot.action in (None, CREATE) and snapshot.status == IN_PROGRESS:
            raise exception.NotSupported(feature="Deleting in-progress snapshot")
        api_snapshots.snapshot_update(self.db, snapshot_id, action=DELETE,
                                      status=IN_PROGRESS,
                                      status_reason="Snapshot delete started")
        self.layer.delete_snapshot_data(self._load(row), snapshot)
        api_snapshots.snapshot_delete(self.db, snapshot_id)

    def stack_restore(self, ctx: RequestContext, stack_identity: str, snapshot_id: str) -> None:
        """Start RESTORE: an update to the snapshot's template and restore definitions."""
        row, snapshot = self._snapshot_row(ctx, stack_identity, snapshot_id)
        if snapshot.status != COMPLETE:
            raise exception.NotSupported(feature="Restoring incomplete snapshot")
        if row.status == IN_PROGRESS:
            raise exception.ActionInProgress(stack_name=row.name, action=row.action)
        current = self._load(row)
        prepared = self.layer.restore_target(row, current, snapshot)
        target = self.layer.build(prepared, row)
        data, files, env = prepared.stored()
        raw = api_stacks.raw_template_create(self.db, data, files, env)
        try:
            self._run(current, RESTORE, self.layer.update(current, raw.id, target, RESTORE))
        except Exception:
            api_stacks.raw_template_delete(self.db, raw.id)
            raise

    def _snapshot_row(self, ctx: RequestContext, stack_identity: str,
                      snapshot_id: str) -> tuple[Any, Any]:
        row = self._row(ctx, stack_identity, show_deleted=False)
        return row, api_snapshots.snapshot_get(self.db, snapshot_id, row.id)

    # --- abandon and adopt -----------------------------------------------------------
    def abandon_stack(self, ctx: RequestContext, stack_identity: str) -> JsonMap:
        """Delete the stack's record but keep its physical resources; return its data."""
        require_enabled("enable_stack_abandon", "Stack Abandon")
        row = self._row(ctx, stack_identity, show_deleted=False)
        stack = self._load(row)
        data = self.layer.export(row, self._raw(row))

        def forget() -> None:
            self.layer.delete_snapshots(stack)  # as Heat's abandon (a delete keeping resources)
            stack.state_set(DELETE, COMPLETE, "Stack DELETE completed successfully")
            forget_tree(self.db, row.id)
        self._run(stack, DELETE, forget)
        self.runtime.wait(row.id)
        return data

    def adopt_stack(self, ctx: RequestContext, stack_name: str, adopt_data: Mapping[str, Any],
                    params: Mapping[str, Any] | None = None,
                    files: Mapping[str, str] | None = None, environment: Any = None,
                    environment_files: list[str] | None = None,
                    disable_rollback: bool = True, timeout_mins: int | None = None,
                    tags: list[str] | None = None) -> JsonMap:
        """Create a stack from abandon data, adopting its resources; return its identity."""
        require_enabled("enable_stack_adopt", "Stack Adopt")
        if not isinstance(adopt_data, Mapping) or not isinstance(adopt_data.get("template"),
                                                                 Mapping):
            raise exception.BadRequest(
                message="Invalid adopt data: the data must be a map with a 'template' map.")
        template = adopt_data["template"]
        hidden = self.catalog.stored.hidden_parameters(template)
        parameters = adopt_parameters(adopt_data, params, hidden)
        stack = self._new_stack(ctx, stack_name, template, parameters, files, environment,
                                environment_files, disable_rollback, timeout_mins, tags)
        entries = adopt_data.get("resources")
        entries = entries if isinstance(entries, Mapping) else {}
        self._run(stack, ADOPT, self.layer.adopt(stack, entries))
        return {"id": stack.id, "stack_name": stack.name}


def forget_tree(db: Any, stack_id: str) -> None:
    """Delete the records of a stack and of the stacks nested in it (nested first)."""
    for child in api_stacks.stack_get_all_by_owner(db, stack_id):
        forget_tree(db, child.id)
    api_stacks.stack_delete(db, stack_id)

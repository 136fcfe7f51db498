"""EngineService: the one entry point for every stack action and read.

The CLI (embedded mode) and the REST API call these methods and nothing
below them.  Every method takes a :class:`~hearth.common.context.RequestContext`
first; stacks are looked up within ``ctx.project_id`` only.

Return values are the JSON objects of Heat's v1 API *without* the
``links`` entries (the REST layer adds links from the request URL; the CLI
prints what it gets).  Time stamps are ``YYYY-MM-DDTHH:MM:SSZ`` strings.

``stack_identity`` arguments accept a stack name, a stack id, or
``"name/id"``.

The service is split by what it needs.  Its modules (this one,
:mod:`~hearth.engine.service.keeping`, :mod:`~hearth.engine.service.reads`)
need the database alone at their top; the rest comes through three seams,
each loaded once at its first use: the
:class:`~hearth.engine.service.catalog.Catalog` (templates, types,
validation, what is read of stored templates:
:attr:`~hearth.engine.service.reads.StackReads.catalog`), the
:class:`~hearth.engine.service.stack_layer.StackLayer` (stacks built,
loaded and acted on: :attr:`~hearth.engine.service.reads.StackReads.layer`)
and this process's :class:`~hearth.engine.service.runtime.EngineRuntime`
(registration, heartbeat, recovery, the event bus: :meth:`EngineService.start`,
which a server calls at its start and an action the first time one runs).
Every request that builds a stack (create, preview, update, update
preview) goes through :func:`hearth.engine.stacks.prepare.prepare` once
(:meth:`StackLayer.prepare <hearth.engine.service.stack_layer.StackLayer.prepare>`):
what validation built is what is stored and run.

Action methods (create, update, delete, suspend, resume, check, cancel)
start the action on a green thread and return at once; callers that want
to wait use :meth:`EngineService.wait` (the embedded CLI) or poll events
(HTTP clients).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from hearth.common import exception
from hearth.common.config import CONF
from hearth.common.context import RequestContext
from hearth.db import api_stacks, timeutils
from hearth.db.models import new_uuid
from hearth.engine import limits
from hearth.engine.resources import actions as resource_actions
from hearth.engine.service import api_format
from hearth.engine.service.keeping import StackKeeping
from hearth.engine.service.reads import StackReads, listing_project
from hearth.engine.stacks import outputs as stack_outputs
from hearth.engine.stacks.names import check_stack_name
from hearth.engine.states import (
    CHECK,
    COMPLETE,
    CREATE,
    DELETE,
    FAILED,
    IN_PROGRESS,
    INIT,
    RESUME,
    ROLLBACK,
    SUSPEND,
    UPDATE,
)

if TYPE_CHECKING:
    from hearth.engine.service.runtime import EngineRuntime
    from hearth.engine.service.stack_layer import Work
    from hearth.engine.stacks.stack import Stack
    from hearth.jobservice.service import JobService

__all__ = ["CANCEL_ACTIONS", "EngineService", "listing_project"]

JsonMap = dict[str, Any]

#: cancel action -> the stack actions it may interrupt (Heat's rules).
CANCEL_ACTIONS = {
    "cancel_update": (UPDATE,),
    "cancel_without_rollback": (UPDATE, CREATE, DELETE, SUSPEND, RESUME, CHECK),
}


def _error_wait_time() -> float:
    return float(CONF.error_wait_time)


#: cancel action -> seconds the resources in progress get to finish before they are
#: interrupted: cancel_update rolls back at once; cancel_without_rollback stops the walk and
#: lets running resources end (Heat's stopped traversal), bounded by ``error_wait_time``.
#: the actions an update preempts (Heat's convergence engine starts a new traversal)
PREEMPTABLE = (CREATE, UPDATE, ROLLBACK)

CANCEL_GRACE: dict[str, Callable[[], float]] = {
    "cancel_update": lambda: 0.0,
    "cancel_without_rollback": _error_wait_time,
}


class EngineService(StackKeeping, StackReads):
    """The engine's public operations: catalog, reads, stack actions, snapshots, adopt.

    ``db_url`` picks the database, ``engine_id`` names this engine in stack
    locks (a test seam), ``jobs`` is the JobService the stacks' resources
    run jobs and read pillar through: the local user's on their own engine
    (:meth:`~hearth.jobservice.service.JobService.for_local_user`), else (the
    default, hearth-api's) every stack acts as its project.  Building one
    touches only the database; the runtime starts with the first action.
    """

    def __init__(self, db_url: str | None = None, engine_id: str | None = None,
                 jobs: JobService | None = None) -> None:
        super().__init__(db_url, jobs)
        self._engine_id = engine_id
        self._runtime: EngineRuntime | None = None

    @property
    def runtime(self) -> EngineRuntime:
        """Return this process's engine runtime, started on first use."""
        return self.start()

    def start(self) -> EngineRuntime:
        """Start the engine runtime now (a server's engine), unless it runs; return it."""
        if self._runtime is None:
            # when this process becomes an engine: a server's start, the first action here
            # lazy: eventlet: not for reads (--in-process stack-list)
            from hearth.engine.service.runtime import EngineRuntime
            self._runtime = EngineRuntime(self.db, self._engine_id, stacks=lambda: self.layer)
        return self._runtime

    @property
    def acting(self) -> bool:
        """Return whether a stack action runs in this process's engine now."""
        return self._runtime is not None and bool(self._runtime.running)

    def pause(self, seconds: float) -> None:
        """Wait (green) ``seconds``, or less: until an action of this engine ends.

        A client following an action here polls at its ease yet sees the end
        at once.  Without a runtime no green thread acts in this process but
        the write queue's: what it holds is committed, then the wait is plain.
        """
        if self._runtime is None:
            self.db.writes.flush()
            time.sleep(seconds)
        else:
            self._runtime.pause(seconds)

    # --- stacks -------------------------------------------------------------
    def create_stack(self, ctx: RequestContext, stack_name: str, template: Any,
                     params: Mapping[str, Any] | None = None,
                     files: Mapping[str, str] | None = None,
                     environment: Any = None,
                     environment_files: list[str] | None = None,
                     disable_rollback: bool = True, timeout_mins: int | None = None,
                     tags: list[str] | None = None) -> JsonMap:
        """Validate and store a stack, start CREATE; return ``{"id", "stack_name"}``."""
        stack = self._new_stack(ctx, stack_name, template, params, files, environment,
                                environment_files, disable_rollback, timeout_mins, tags)
        # listed from the answer on, as Heat's: a client reading a resource right after the
        # create request finds it (the walk would store them a moment later)
        stack.store_new_resources()
        self._run(stack, CREATE, self.layer.action(stack, CREATE))
        return {"id": stack.id, "stack_name": stack.name}

    def _new_stack(self, ctx: RequestContext, stack_name: str, template: Any,
                   params: Mapping[str, Any] | None, files: Mapping[str, str] | None,
                   environment: Any, environment_files: list[str] | None,
                   disable_rollback: bool, timeout_mins: int | None,
                   tags: list[str] | None) -> Stack:
        """Validate and store a new stack (create, adopt); return it, not started."""
        check_stack_name(stack_name)
        limits.check_template_size(template)
        limits.check_stack_quota(api_stacks.stack_count_by_project(self.db, ctx.project_id))
        stack_id = new_uuid()
        prepared = self.layer.prepare(template, files, environment, environment_files, params,
                                      (stack_name, stack_id, ctx.project_id))
        data, all_files, env = prepared.stored()
        raw = api_stacks.raw_template_create(self.db, data, all_files, env)
        row = api_stacks.stack_create(self.db, {
            "id": stack_id, "name": stack_name, "raw_template_id": raw.id,
            "project_id": ctx.project_id, "username": ctx.user,
            "timeout_mins": timeout_mins, "disable_rollback": disable_rollback,
            "tags": list(tags or [])})
        return self.layer.build(prepared, row)

    def preview_stack(self, ctx: RequestContext, stack_name: str, template: Any,
                      params: Mapping[str, Any] | None = None,
                      files: Mapping[str, str] | None = None, environment: Any = None,
                      environment_files: list[str] | None = None,
                      disable_rollback: bool = True, timeout_mins: int | None = None,
                      tags: list[str] | None = None) -> JsonMap:
        """Return the preview object of a stack that is not created (nothing is stored)."""
        check_stack_name(stack_name)
        prepared = self.layer.prepare(template, files, environment, environment_files, params,
                                      (stack_name, "None", ctx.project_id))
        row = SimpleNamespace(name=stack_name, id="None", project_id=ctx.project_id,
                              action=INIT, status=COMPLETE, timeout_mins=None,
                              disable_rollback=True)
        stack = self.layer.build(prepared, row)
        description = prepared.template.description
        return {
            "stack_name": stack_name, "id": "None", "description": description,
            "template_description": description, "stack_owner": ctx.user,
            "stack_user_project_id": None,
            "parameters": api_format.format_parameters(row, stack.parameters,
                                                       stack.hidden_parameters),
            "disable_rollback": True if disable_rollback is None else disable_rollback,
            "timeout_mins": timeout_mins, "tags": list(tags or []),
            "capabilities": [], "notification_topics": [], "parent": None,
            # as Heat's: the time of the preview; no output is resolved
            "creation_time": timeutils.format_time(timeutils.utcnow()),
            "updated_time": None, "deletion_time": None,
            "outputs": [{**listed, "output_value": None}
                        for listed in stack_outputs.list_outputs(stack)],
            # a nested stack's resources are a list in its place (as Heat)
            "resources": self.layer.preview_resources(stack),
        }

    def update_stack(self, ctx: RequestContext, stack_identity: str, template: Any = None,
                     params: Mapping[str, Any] | None = None,
                     files: Mapping[str, str] | None = None, environment: Any = None,
                     environment_files: list[str] | None = None, existing: bool = False,
                     clear_parameters: list[str] | None = None,
                     disable_rollback: bool | None = None, timeout_mins: int | None = None,
                     tags: list[str] | None = None) -> JsonMap:
        """Start UPDATE (PUT, or PATCH semantics with ``existing``); return the identity.

        As Heat's convergence engine, an update of a stack whose create,
        update or rollback runs in this engine preempts it: once the request
        is found valid, that action stops at once (no rollback, no end of its
        own; the stack stays IN_PROGRESS) and this update goes on from what
        it left.  An action running in another engine is ActionInProgress.
        """
        arguments = (template, params, files, environment, environment_files, existing,
                     clear_parameters)
        row = self._row(ctx, stack_identity, show_deleted=False)
        if not self._preemptable(row):
            self.layer.check_updatable(row)
            return self._start_update(row, arguments, disable_rollback, timeout_mins, tags)
        self._update_target(row, *arguments)  # refused before anything stops
        with self.runtime.holding(row.id):  # the stack stays under this engine's lock
            self.runtime.preempt(row.id)
            row = self._row(ctx, row.id, show_deleted=False)
            return self._start_update(row, arguments, disable_rollback, timeout_mins, tags)

    def _preemptable(self, row: Any) -> bool:
        """Return whether an update preempts the stack's action (one this engine runs)."""
        return (row.status == IN_PROGRESS and row.action in PREEMPTABLE
                and self._runtime is not None and row.id in self._runtime.running)

    def _start_update(self, row: Any, arguments: tuple[Any, ...],
                      disable_rollback: bool | None, timeout_mins: int | None,
                      tags: list[str] | None) -> JsonMap:
        current, target = self._update_target(row, *arguments)
        changes = {key: value for key, value in (
            ("disable_rollback", disable_rollback), ("timeout_mins", timeout_mins),
            ("tags", tags)) if value is not None}
        data, all_files, env = target.template.data, target.files, target.env.to_dict()
        raw = api_stacks.raw_template_create(self.db, data, all_files, env)
        try:
            self._run(current, UPDATE, self.layer.update(current, raw.id, target,
                                                         values=changes))
        except Exception:
            api_stacks.raw_template_delete(self.db, raw.id)
            raise
        return {"id": row.id, "stack_name": row.name}

    def _update_target(self, row: Any, template: Any, params: Mapping[str, Any] | None,
                       files: Mapping[str, str] | None, environment: Any,
                       environment_files: list[str] | None, existing: bool,
                       clear_parameters: list[str] | None) -> tuple[Stack, Stack]:
        """Return (current stack, target stack) of an update request (nothing stored)."""
        return self.layer.update_target(row, self._raw(row), template, params, files,
                                        environment, environment_files, existing,
                                        clear_parameters)

    def preview_update_stack(self, ctx: RequestContext, stack_identity: str,
                             template: Any = None, params: Mapping[str, Any] | None = None,
                             files: Mapping[str, str] | None = None, environment: Any = None,
                             environment_files: list[str] | None = None,
                             existing: bool = False, clear_parameters: list[str] | None = None,
                             disable_rollback: bool | None = None,
                             timeout_mins: int | None = None, tags: list[str] | None = None,
                             show_nested: bool = False) -> JsonMap:
        """Return ``{"resource_changes": {added, deleted, replaced, updated, unchanged}}``.

        Takes update_stack's arguments (the options of the action change
        nothing a preview shows); ``show_nested`` adds the changes in nested
        stacks.
        """
        row = self._row(ctx, stack_identity, show_deleted=False)
        current, target = self._update_target(
            row, template, params, files, environment, environment_files, bool(existing),
            clear_parameters)
        return self.layer.preview_update(current, target, show_nested)

    def delete_stack(self, ctx: RequestContext, stack_identity: str) -> None:
        """Start DELETE."""
        row = self._row(ctx, stack_identity, show_deleted=False)
        if row.status == IN_PROGRESS and self._cancel_here(row.id, with_rollback=False):
            self.runtime.wait(row.id)
            row = self._row(ctx, row.id, show_deleted=False)
        stack = self._load(row)
        self._run(stack, DELETE, self.layer.action(stack, DELETE))

    def stack_action(self, ctx: RequestContext, stack_identity: str, action: str) -> None:
        """Start ``suspend``/``resume``/``check``/``cancel_update``/``cancel_without_rollback``."""
        row = self._row(ctx, stack_identity, show_deleted=False)
        if action in CANCEL_ACTIONS:
            if (row.action not in CANCEL_ACTIONS[action] or row.status != IN_PROGRESS
                    or not self._cancel_here(row.id, action == "cancel_update",
                                             CANCEL_GRACE[action]())):
                raise exception.NotSupported(
                    feature=f"Cancelling update when stack is {row.action}_{row.status}")
            return
        name = action.upper()
        if name not in (SUSPEND, RESUME, CHECK):
            raise exception.BadRequest(message=f"Invalid action {action}")
        stack = self._load(row)
        self._run(stack, name, self.layer.action(stack, name))

    def wait(self, ctx: RequestContext, stack_identity: str,
             timeout: float | None = None) -> JsonMap:
        """Block (green) until the stack's current action ends; return the stack."""
        row = self._row(ctx, stack_identity)
        if self._runtime is not None:  # an action runs only where a runtime started
            self._runtime.wait(row.id, timeout)
        return self.show_stack(ctx, row.id, resolve_outputs=False)

    def resource_signal(self, ctx: RequestContext, stack_identity: str, resource_name: str,
                        details: Any = None) -> None:
        """Deliver a signal (or ``{"unset_hook": ...}``) to a resource.

        The handler runs holding the stack's lock (shared with an action of
        this engine): a nested stack it acts on (a scaling group's resize) is
        then under a live engine's lock, never taken for a dead engine's.
        """
        row = self._row(ctx, stack_identity, show_deleted=False)
        stack = self._load(row)
        if resource_name not in stack.resources:
            raise exception.ResourceNotFound(resource_name=resource_name, stack_name=row.name,
                                             entity="Resource", name=resource_name)
        with self.runtime.holding(row.id):
            resource_actions.signal(stack.resources[resource_name], details)

    def resource_mark_unhealthy(self, ctx: RequestContext, stack_identity: str,
                                resource_name: str, mark_unhealthy: bool,
                                reason: str | None = None) -> None:
        """Set a resource CHECK_FAILED (or back to CHECK_COMPLETE), as Heat does.

        ``resource_name`` may also be the physical resource id.  A resource
        in progress raises ActionInProgress; a deleted one is left alone.
        """
        if not isinstance(mark_unhealthy, bool):
            raise exception.BadRequest(
                message=f"mark_unhealthy must be a boolean, not {mark_unhealthy!r}.")
        row = self._row(ctx, stack_identity, show_deleted=False)
        stack = self._load(row)
        resource = self._find_resource(stack, row, resource_name)
        if resource.status == IN_PROGRESS:
            raise exception.ActionInProgress(stack_name=row.name, action=row.action)
        reason = reason or "state changed by resource_mark_unhealthy api"
        if mark_unhealthy and resource.action != DELETE:
            resource_actions.set_state(resource, CHECK, FAILED, reason)
        elif not mark_unhealthy and (resource.action, resource.status) == (CHECK, FAILED):
            resource_actions.set_state(resource, CHECK, COMPLETE, reason)
        stack.db.writes.flush()  # the answer says it is done: a read that follows sees it

    # --- helpers ----------------------------------------------------------------
    def stop(self) -> None:
        """Cancel running actions and deregister this engine (if it ever started)."""
        if self._runtime is not None:
            self._runtime.stop()

    def _cancel_here(self, stack_id: str, with_rollback: bool, grace: float = 0.0) -> bool:
        """Cancel the stack's action if this process runs it; return whether it did."""
        return (self._runtime is not None
                and self._runtime.cancel(stack_id, with_rollback, grace))

    def _run(self, stack: Stack, action: str, work: Work) -> None:
        """Run ``work`` (the action) on ``stack``'s green thread, under this engine's lock."""
        self.layer.check_tree_idle(stack)
        self.runtime.lock(stack.id, stack.name, action)
        self.layer.start_state(stack, action)
        self.runtime.start(stack, work)

"""The engine service's one door to its stacks: built from requests, loaded, acted on.

The service's own modules (:mod:`~hearth.engine.service.engine`,
:mod:`~hearth.engine.service.keeping`, :mod:`~hearth.engine.service.reads`)
import none of the template layer, the stacks, the update nor the scheduler:
a listing (``stackctl --in-process stack-list``) needs the database alone,
and a server's start its runtime alone (:mod:`hearth.engine.service.runtime`).
Everything of theirs that works on a stack itself is here, and this module
imports it all at its top; the service loads it once, the first time it
builds a stack from a request, loads a stored one (outputs, attributes, the
dependency picture), reads its environment, snapshots or abandon data, or
takes a dead engine's stack over (:attr:`StackReads.layer
<hearth.engine.service.reads.StackReads.layer>`).  What is read of a stored
template alone (its description, parameters, requirements) needs the
template side only: the catalog's :mod:`hearth.engine.service.stored_templates`.

What the service keeps: the API's semantics (identities, rows, limits,
refusals, Heat's answers) and the engine's locks; what it asks of a
:class:`StackLayer`: a validated stack, a loaded one, and the *work* of an
action (a function the runtime runs on the stack's green thread).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from hearth.db import api_stacks
from hearth.engine import limits
from hearth.engine.nested.runtime import check_tree_idle
from hearth.engine.service import preview, preview_update
from hearth.engine.stacks import actions as stack_actions
from hearth.engine.stacks import adopt, graph_view, snapshots
from hearth.engine.stacks import export as stack_export
from hearth.engine.stacks.loader import load_stack
from hearth.engine.stacks.prepare import (
    PreparedStack,
    StackIdentity,
    compose_environment,
    prepare,
)
from hearth.engine.states import UPDATE
from hearth.engine.template.environment import Environment, environment_documents
from hearth.engine.template.versions import hidden_parameters
from hearth.engine.update import plan as update_plan
from hearth.engine.update import run as update
from hearth.engine.update import takeover

if TYPE_CHECKING:
    from hearth.db import models
    from hearth.db.session import Database
    from hearth.engine.service.catalog import Catalog
    from hearth.engine.stacks.stack import Stack
    from hearth.jobservice.service import JobService

JsonMap = dict[str, Any]
#: What a runtime runs on an action's green thread (returns whether the action completed).
Work = Callable[[], Any]


class StackLayer:
    """The stack work of one engine service: on its database, with its catalog and job service."""

    def __init__(self, db: Database, catalog: Catalog, jobs: JobService) -> None:
        self.db = db
        self.catalog = catalog
        self.jobs = jobs

    # --- stored stacks ---------------------------------------------------------------
    def load(self, row: models.Stack) -> Stack:
        """Return the live stack of ``row`` (its resources built from the stored template)."""
        return load_stack(self.db, row, self.catalog.registry, jobs=self.jobs)

    @staticmethod
    def environment(raw: models.RawTemplate) -> JsonMap:
        """Return a stored environment, hidden parameter values as ``******``."""
        return stack_export.masked_environment(raw.environment, hidden_parameters(raw.template))

    def export(self, row: models.Stack, raw: models.RawTemplate) -> JsonMap:
        """Return the stack's abandon data."""
        return stack_export.stack_data(self.db, row, raw)

    def graph(self, row: models.Stack) -> JsonMap:
        """Return the dependency picture of the stack stored as ``row`` and its nested stacks."""
        return graph_view.stack_tree_view(
            row, self.load, lambda parent: api_stacks.stack_get_all_by_owner(self.db, parent.id)
        ).as_dict()

    # --- stacks built from requests ---------------------------------------------------
    def prepare(self, template: Any, files: Mapping[str, str] | None, environment: Any,
                environment_files: list[str] | None, params: Mapping[str, Any] | None,
                identity: tuple[str, str, str]) -> PreparedStack:
        """Validate a new stack's request in full and return its pieces, built once.

        ``identity`` is the stack's (name, id, project).
        """
        data = self.catalog.parse(template)
        env = compose_environment(environment_documents(environment, environment_files, files),
                                  params, data)
        prepared = prepare(data, files, env, StackIdentity(*identity),
                           self.catalog.resource_validator(env, files))
        limits.check_resource_count(len(prepared.definitions))
        return prepared

    def build(self, prepared: PreparedStack, row: Any) -> Stack:
        """Return the stack of ``prepared`` stored (or previewed) as ``row``."""
        return prepared.build(self.db, row, self.catalog.registry, jobs=self.jobs)

    def update_target(self, row: models.Stack, old: models.RawTemplate, template: Any,
                      params: Mapping[str, Any] | None, files: Mapping[str, str] | None,
                      environment: Any, environment_files: list[str] | None, existing: bool,
                      clear_parameters: list[str] | None) -> tuple[Stack, Stack]:
        """Return (current stack, target stack) of an update request (nothing stored).

        ``old`` is the stack's stored template; ``existing`` merges the
        request into it (PATCH).
        """
        if template is not None:
            limits.check_template_size(template)
        new_data = None if template is None else self.catalog.parse(template)
        merged_files = {**(old.files or {}), **(files or {})} if existing else files
        env = compose_environment(environment_documents(environment, environment_files,
                                                        merged_files),
                                  params, old.template if new_data is None else new_data)
        data, all_files, all_env = update_plan.compose_request(
            old.template, old.files, old.environment, new_data, files, env.to_dict(),
            existing, clear_parameters)
        if existing:  # PATCH merged the stored environment's JSON with the request's
            env = Environment.from_dict(all_env)
        prepared = prepare(data, all_files, env, StackIdentity.of(row),
                           self.catalog.resource_validator(env, all_files))
        limits.check_resource_count(len(prepared.definitions))
        current = self.load(row)
        target = self.build(prepared, row)
        update.check_parameters(current, target)
        return current, target

    def restore_target(self, row: models.Stack, current: Stack,
                       snapshot: models.Snapshot) -> PreparedStack:
        """Return the validated pieces of the stack restored to ``snapshot``."""
        def prepare_stored(template: Any, files: Mapping[str, str], environment: Any
                           ) -> PreparedStack:
            env = Environment.from_dict(environment)
            return prepare(template, files, env, StackIdentity.of(row),
                           self.catalog.resource_validator(env, files))
        prepared = snapshots.restore_prepared(current, snapshot.data, prepare_stored)
        limits.check_resource_count(len(prepared.definitions))
        return prepared

    @staticmethod
    def preview_resources(stack: Stack) -> list[Any]:
        """Return the resources of a previewed stack (a nested stack's as a list in its place)."""
        return preview.preview_resources(
            stack, lambda resource, owner, users: preview.resource_summary(
                resource, owner.row, users, with_properties=True))

    @staticmethod
    def preview_update(current: Stack, target: Stack, show_nested: bool) -> JsonMap:
        """Return the resource changes of an update (and of its nested stacks')."""
        changes = preview_update.preview_update(current, target)
        if show_nested:
            changes = preview_update.with_nested(current, target, changes)
        return changes

    # --- actions: each returns the work the runtime runs -------------------------------
    def check_tree_idle(self, stack: Stack) -> None:
        """Refuse a direct action on a nested stack while its top-level stack acts."""
        if getattr(stack.row, "owner_id", None) is not None:
            check_tree_idle(self.db, stack.row)

    @staticmethod
    def start_state(stack: Stack, action: str) -> None:
        """Set the stack ``<ACTION>_IN_PROGRESS`` (as the action's frame does) unless it is."""
        stack_actions.start_state(stack, action)

    @staticmethod
    def action(stack: Stack, action: str) -> Work:
        """Return the work of a plain stack action (create, delete, suspend, resume, check)."""
        return lambda: stack_actions.run_action(stack, action)

    @staticmethod
    def check_updatable(row: models.Stack) -> None:
        """Refuse an update of a stack in a state that allows none (Heat's refusals)."""
        update.check_updatable(row)

    @staticmethod
    def update(current: Stack, raw_id: int, target: Stack, action: str = UPDATE,
               values: Mapping[str, Any] | None = None) -> Work:
        """Return the work of an update (or a restore) of ``current`` to ``target``."""
        return lambda: update.run_update(current, raw_id, action, values=values, target=target)

    @staticmethod
    def adopt(stack: Stack, entries: Mapping[str, Any]) -> Work:
        """Return the work of an ADOPT of ``entries`` (resource name -> abandon entry)."""
        return lambda: adopt.run_adopt(stack, entries)

    @staticmethod
    def continuation(stack: Stack, engine_id: str) -> Work:
        """Return the work that finishes the action a dead engine left on ``stack``."""
        return lambda: takeover.continue_action(stack, engine_id)

    # --- snapshots --------------------------------------------------------------------
    @staticmethod
    def new_snapshot(stack: Stack, name: str | None) -> Any:
        """Store the row of a snapshot being taken."""
        return snapshots.new_snapshot(stack, name)

    @staticmethod
    def snapshot(stack: Stack, snapshot_id: str) -> Work:
        """Return the work of the stack's SNAPSHOT into snapshot ``snapshot_id``."""
        return lambda: snapshots.take(stack, snapshot_id)

    @staticmethod
    def shown_snapshot_data(snapshot: models.Snapshot) -> Any:
        """Return a snapshot's data as the API shows it (hidden parameter values masked)."""
        return snapshots.shown_data(snapshot)

    @staticmethod
    def delete_snapshot_data(stack: Stack, snapshot: models.Snapshot) -> None:
        """Remove what the stack's resources made for ``snapshot``."""
        snapshots.delete_data(stack, snapshot)

    @staticmethod
    def delete_snapshots(stack: Stack) -> None:
        """Delete every snapshot of the stack (what its resources made too)."""
        snapshots.delete_all(stack)

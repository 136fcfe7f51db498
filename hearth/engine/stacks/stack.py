"""A stack at run time: its stored record, template, parameters and live resources.

:class:`Stack` is also the :class:`~hearth.engine.resources.stack_view.StackView`
resources see (``name``, ``id``, ``context``, ``store``, ``env``,
``clock``, ``jobs``, ``registry``, ``files``) and the recorder of every state change
(:meth:`Stack.record_resource_state`, :meth:`Stack.state_set`): each one is
written through the db API, recorded as an event and published on the bus.

Sequencing the actions lives in :mod:`hearth.engine.stacks.actions` and
:mod:`hearth.engine.update.run`; outputs in :mod:`hearth.engine.stacks.outputs`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeGuard

from hearth import bus
from hearth.common import exception
from hearth.common.green import start_os_thread
from hearth.db import api_batch, api_events, models
from hearth.db.session import Database
from hearth.engine.resource import PROGRESS_KEY, keeps_progress
from hearth.engine.resources import actions as resource_actions
from hearth.engine.resources import stored_properties
from hearth.engine.resources.store_db import DbResourceStore
from hearth.engine.resources.stored_properties import StoredProperties
from hearth.engine.scheduler import GraphWalker, green_sleep
from hearth.engine.states import STACK_RESOURCE_TYPE, state_name

if TYPE_CHECKING:
    import networkx as nx

    from hearth.engine.registry.types import TypeRegistry
    from hearth.engine.resource import Resource
    from hearth.engine.resources.resource_view import ResourceView
    from hearth.engine.stacks.prepare import PreparedStack
    from hearth.engine.template.environment import Environment
    from hearth.engine.template.parameters import Parameters
    from hearth.engine.template.resource_definition import ResourceDefinition
    from hearth.engine.template.template import Template
    from hearth.jobservice.caller_jobs import CallerJobs
    from hearth.jobservice.service import JobService

LOG = logging.getLogger(__name__)



def publish(tag: str, data: Mapping[str, Any]) -> None:
    """Publish ``data`` on the event bus under ``tag`` (a bus problem never fails an action)."""
    try:
        bus.publish(tag, dict(data))
    except Exception:  # noqa: BLE001 - a bus problem never fails a stack action
        LOG.debug("bus publish of %s failed", tag, exc_info=True)


def exists(resource: Resource | None) -> TypeGuard[Resource]:
    """Return whether a resource has a stored row and was ever acted on."""
    return resource is not None and resource.db_id is not None


class Stack:
    """One stack: record, template pieces and live resources, plus the recorder.

    Built from a :class:`~hearth.engine.stacks.prepare.PreparedStack`:
    ``template`` is the parsed template object, ``params`` its Parameters
    (pseudo parameters included; ``parameters`` their values),
    ``definitions`` the ``{name: ResourceDefinition}`` of the enabled
    resources, ``context`` the resolution context their functions ask (live
    from now on: it knows :attr:`resources`), ``registry`` the plug-in
    registry (``get_class(type, env, name)``), ``jobs`` the engine's
    :class:`~hearth.jobservice.service.JobService`: the stack's resources reach it
    as :attr:`jobs`, bound to the stack's owner, so they act with the rights
    of the project that owns the stack (None: a stack that runs no jobs).
    """

    def __init__(self, db: Database, row: models.Stack, prepared: PreparedStack,
                 registry: TypeRegistry, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] | None = None,
                 jobs: JobService | None = None) -> None:
        self.db = db
        self.row = row
        self.template: Template = prepared.template
        self.env: Environment = prepared.env
        self.params: Parameters = prepared.parameters
        self.parameters = dict(prepared.parameters)
        self.hidden_parameters = prepared.hidden_parameters()
        self.definitions = dict(prepared.definitions)
        self.registry = registry
        self.files = self.template.files
        self.clock = clock
        self.sleep = sleep or green_sleep
        self.walker: GraphWalker[Any] | None = None  # the walk in progress, for cancel
        #: the lock this engine acts under (:class:`hearth.db.api_batch.Fence`): state writes
        #: hold only while the engine still holds it (None: unconditional writes)
        self.fence: api_batch.Fence | None = None
        #: when the action a dead engine left began, while this engine continues it
        #: (:mod:`hearth.engine.update.takeover`); the next walk takes it
        self.continuing_since: Any = None
        #: the engine that took this stack's action over from a dead one (its notes name it)
        self.continued_by: str | None = None
        self.job_service = jobs
        #: the JobService as the stack's owner (see the class docstring).
        self.jobs: CallerJobs | None = (
            jobs.acting_as(jobs.caller_for(row.project_id)) if jobs is not None else None)
        self.store = DbResourceStore(db)
        self.resources: dict[str, Resource] = {}
        #: the resources whose type keeps secrets (read by :meth:`secrets`).
        self.secret_keepers: list[Resource] = []
        self.context = prepared.context
        self.context.attach(self.resources)
        self._graph = prepared.graph
        for name, definition in self.definitions.items():
            self.resources[name] = self.make_resource(name, definition)

    # --- the StackView -------------------------------------------------------
    @property
    def name(self) -> str:
        """Return the stack's name."""
        return self.row.name

    @property
    def id(self) -> str:
        """Return the stack's id."""
        return self.row.id

    @property
    def action(self) -> str:
        """Return the stack's current action."""
        return self.row.action

    @property
    def status(self) -> str:
        """Return the stack's current status."""
        return self.row.status

    def make_resource(self, name: str, definition: ResourceDefinition) -> Resource:
        """Build the Resource object of ``definition`` (not stored until it acts)."""
        cls = self.registry.get_class(definition.type, self.env, name, files=self.files)
        resource: Resource = cls(name, definition, self)
        if getattr(cls, "keeps_secrets", False):
            self.secret_keepers.append(resource)
        return resource

    def attach_rows(self, rows: list[models.Resource]) -> None:
        """Give the live resources the state stored in ``rows`` (latest row per name)."""
        for row in rows:
            resource = self.resources.get(row.name)
            if resource is None or row.replaced_by is not None:
                continue
            resource.db_id, resource.uuid = row.id, row.uuid
            resource.action, resource.status = row.action, row.status
            resource.status_reason = row.status_reason
            resource.resource_id = row.physical_resource_id
            resource.stored_properties = StoredProperties.from_column(row.properties_data)
            #: when the state was stored (a continued walk tells its own failures by it)
            resource.stored_at = row.updated_at or row.created_at
            resource.created_at = row.created_at

    @property
    def graph(self) -> nx.DiGraph:
        """Return the dependency graph of the definitions (the validated one, else built once).

        Edges go from a resource to each resource it requires: the map the
        stack's walks take (:func:`hearth.engine.stacks.actions.walk_resources`).
        """
        if self._graph is None:
            self._graph = self.template.dependency_graph(self.context, self.definitions)
        return self._graph

    def requires(self) -> Mapping[str, Iterable[str]]:
        """Return ``{resource: names it requires}`` among this stack's resources."""
        requires: Mapping[str, Iterable[str]] = self.graph.adj
        return requires

    def store_new_resources(self) -> None:
        """Store every resource without a row as INIT_COMPLETE (in one write), as Heat does.

        A stack's resources are listed from the start of its create, the ones
        a failure kept from ever starting included.
        """
        new = [resource for resource in self.resources.values() if resource.db_id is None]
        ids = api_batch.resources_store_init(
            self.db, self.id, [(r.name, r.uuid, r.type_name) for r in new])
        for resource in new:
            resource.db_id = ids[resource.uuid]

    # --- recording -----------------------------------------------------------
    def start_thread(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on a new real OS thread (blocking work a plug-in polls)."""
        start_os_thread(fn, *args)

    def secrets(self) -> list[str]:
        """Return the values that must never appear in events or API output."""
        hidden = [str(self.parameters[name]) for name in self.hidden_parameters
                  if self.parameters.get(name) not in (None, "")]
        return hidden + [value for keeper in self.secret_keepers
                         for value in keeper.secret_values()]

    def record_resource_state(self, resource: ResourceView, starting: bool = False) -> None:
        """Persist a resource's state, its event and its held-back data in one write.

        The properties the resource's action stored
        (:mod:`hearth.engine.resources.stored_properties`), when kept since
        its last write, go in the same write; the event shows them.

        ``starting``: an action starts (its plug-in's stored progress of the
        action before is removed in the same write, for the types that keep
        progress: :func:`hearth.engine.resource.keeps_progress`).

        The write joins the database's group-commit queue
        (:mod:`hearth.db.write_queue`).  An IN_PROGRESS state (the plug-in
        acts next) returns only once committed; a finished one (COMPLETE,
        FAILED) returns at once and is committed with the next batch, always
        before anything that follows it is.  So does the IN_PROGRESS of a type
        whose ``acts_outside`` is False (its handles change nothing outside
        this database, as ``OS::Heat::None``: a crash before the commit leaves
        nothing to clean up).  The event is published on the bus after the
        commit.
        """
        values: dict[str, Any] = {"action": resource.action, "status": resource.status,
                                  "status_reason": resource.status_reason,
                                  "physical_resource_id": resource.resource_id,
                                  # an in-place update may change the type to an alias of it
                                  "type": resource.type_name}
        if resource.db_id is None:
            values.update(name=resource.name, uuid=resource.uuid, stack_id=self.id)
        unwritten = stored_properties.take_unwritten(resource)
        if unwritten is not None:
            values["properties_data"] = unwritten
        event = self.event_values(resource.name, resource.resource_id, resource.type_name,
                                  resource.action, resource.status, resource.status_reason,
                                  stored_properties.event_view(resource, self.secrets()))
        plugin_class: type = type(resource)
        resource.db_id, _event_uuid = api_batch.resource_state_record(
            self.db, resource.db_id, values, event, data=self.store.take_pending(resource),
            clear_item=PROGRESS_KEY if starting and keeps_progress(plugin_class) else None,
            fence=self.fence,
            wait=(resource.status == resource_actions.IN_PROGRESS
                  and resource.acts_outside),
            on_commit=lambda event_uuid: self.publish_event(event, event_uuid))

    def event_values(self, resource_name: str, physical_id: str | None, type_name: str,
                     action: str, status: str, reason: str,
                     properties: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Return the column values of one event of this stack."""
        return {"stack_id": self.id, "resource_name": resource_name,
                "physical_resource_id": physical_id, "resource_type": type_name,
                "resource_action": action, "resource_status": status,
                "resource_status_reason": reason,
                "resource_properties": dict(properties or {})}

    def publish_event(self, values: Mapping[str, Any], event_uuid: str) -> None:
        """Publish a recorded event on the bus."""
        publish(f"hearth/stack/{self.id}/{values['resource_name']}/"
                f"{state_name(values['resource_action'], values['resource_status'])}",
                dict(values, id=event_uuid, stack_name=self.name))

    def record_event(self, resource: ResourceView, action: str, status: str,
                     reason: str) -> None:
        """Store and publish an event of ``resource`` that does not change its state.

        A signal's (:mod:`hearth.engine.resources.signals`): the resource
        keeps its state, the event says what happened to it.
        """
        values = self.event_values(resource.name, resource.resource_id, resource.type_name,
                                   action, status, reason)
        row = api_events.event_create(self.db, values)
        self.publish_event(values, row.uuid)

    def state_set(self, action: str, status: str, reason: str) -> None:
        """Set and store the stack's state and record a stack-level event.

        Every queued resource state is committed first; if one could not be
        stored, a COMPLETE stack state becomes FAILED with that reason.
        """
        self.db.writes.flush()
        # a write refused because another engine took the action over (EngineFenced) lost
        # nothing: that engine went on from what was stored.  Such failures may be left from
        # an earlier tenure of this engine on the stack, before it took the stack back.
        lost = [error for error in self.db.writes.take_failures(self.id)
                if not isinstance(error, exception.EngineFenced)]
        if lost and status == resource_actions.COMPLETE:
            status, reason = resource_actions.FAILED, f"Resource state not stored: {lost[0]}"
        event = self.event_values(self.name, self.id, STACK_RESOURCE_TYPE, action, status,
                                  reason)
        updated_at = api_batch.stack_state_record(
            self.db, self.id, action, status, reason, event,
            on_commit=lambda event_uuid: self.publish_event(event, event_uuid), fence=self.fence)
        row = self.row
        row.action, row.status, row.status_reason, row.updated_at = (action, status, reason,
                                                                     updated_at)

    def __repr__(self) -> str:
        return f"<Stack {self.name} {self.action}_{self.status}>"

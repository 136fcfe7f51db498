"""Reading stacks: listings, details, templates, outputs, resources, events, engines.

:class:`StackReads` needs only the database: no engine runtime is started
for a read.  Resource listings come from the stored rows and the stored
definitions' requirements; a whole stack is loaded only where live
resources answer (outputs, attributes, the dependency picture).

The service reaches what it does not import at its top through two seams,
each loaded once, at its first use: :attr:`StackReads.catalog` (the
template side: the template layer and the plug-ins, and what is read of
stored templates, :mod:`~hearth.engine.service.catalog`) and
:attr:`StackReads.layer` (the stack side: stacks built, loaded and acted
on, :mod:`~hearth.engine.service.stack_layer`).  A listing, a stack's
stored template or files, its events and its resources' metadata take
neither (``stackctl --in-process stack-list`` loads no YAML, jsonschema,
networkx nor eventlet: ``tests/functional/test_cli_imports.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from hearth.common import config, exception
from hearth.common.config import CONF
from hearth.common.context import RequestContext
from hearth.db import api_engines, api_events, api_resources, api_stacks
from hearth.db.session import get_database
from hearth.db.timeutils import format_time
from hearth.engine.resources.attributes import show_attributes
from hearth.engine.resources.shown import mask
from hearth.engine.service import api_format, nested_reads, recovery
from hearth.engine.service.nested_reads import StackTree
from hearth.engine.stacks import outputs
from hearth.engine.states import INIT
from hearth.engine.template.resource_definition import required_by
from hearth.jobservice.service import JobService

if TYPE_CHECKING:
    from hearth.db import models
    from hearth.db.session import Database
    from hearth.engine.resource import Resource
    from hearth.engine.service.catalog import Catalog
    from hearth.engine.service.stack_layer import StackLayer
    from hearth.engine.stacks.stack import Stack
    from hearth.engine.template.context import ResolutionContext

JsonMap = dict[str, Any]

def listing_project(ctx: RequestContext, global_tenant: bool) -> str | None:
    """Return the project a stack listing covers (None: every project, for an admin)."""
    return None if (global_tenant and ctx.is_admin) else ctx.project_id


class StackReads:
    """The read operations of the engine's API, from the database alone.

    ``db_url`` picks the database (None: the configured one); the catalog is
    built from configuration when first needed.
    """

    def __init__(self, db_url: str | None = None, jobs: JobService | None = None) -> None:
        config.register_opts()
        self.db: Database = get_database(db_url)
        #: the authority for the jobs and pillar reads of the stacks' resources.
        self.jobs = jobs if jobs is not None else JobService()
        self._catalog: Catalog | None = None
        self._layer: StackLayer | None = None
        self._recovered = False

    @property
    def catalog(self) -> Catalog:
        """Return the catalog this service validates with (its plug-in registry too)."""
        if self._catalog is None:
            # the template side: at the first template validated or stored template read
            # lazy: YAML, jsonschema, networkx: not for a listing (--in-process stack-list)
            from hearth.engine.service.catalog import Catalog
            self._catalog = Catalog()
        return self._catalog

    @property
    def layer(self) -> StackLayer:
        """Return the service's stack layer: stacks built, loaded and acted on."""
        if self._layer is None:
            # the stacks, the update, the scheduler: at the first stack built or loaded
            # lazy: eventlet, networkx...: not for a listing nor at a server's start
            from hearth.engine.service.stack_layer import StackLayer
            self._layer = StackLayer(self.db, self.catalog, self.jobs)
        return self._layer

    def _recover_once(self) -> None:
        """Fail, once per service, the stacks dead engines left IN_PROGRESS (before a read)."""
        if not self._recovered:
            self._recovered = True
            recovery.recover(self.db)

    def list_stacks(self, ctx: RequestContext, filters: Mapping[str, Any] | None = None,
                    limit: int | None = None, marker: str | None = None,
                    sort_keys: list[str] | None = None, sort_dir: str | None = None,
                    show_deleted: bool = False, show_nested: bool = False,
                    show_hidden: bool = False, tags: list[str] | None = None,
                    tags_any: list[str] | None = None, not_tags: list[str] | None = None,
                    not_tags_any: list[str] | None = None,
                    global_tenant: bool = False) -> list[JsonMap]:
        """Return stack summaries (Heat's stack-list items)."""
        self._recover_once()
        project = listing_project(ctx, global_tenant)
        rows = api_stacks.stack_list(self.db, project, filters, limit, marker, sort_keys,
                                     sort_dir, show_deleted, show_nested, tags, tags_any,
                                     not_tags, not_tags_any)
        return [api_format.format_stack_summary(row) for row in rows]

    def count_stacks(self, ctx: RequestContext, filters: Mapping[str, Any] | None = None,
                     show_deleted: bool = False, show_nested: bool = False,
                     show_hidden: bool = False, tags: list[str] | None = None,
                     tags_any: list[str] | None = None, not_tags: list[str] | None = None,
                     not_tags_any: list[str] | None = None,
                     global_tenant: bool = False) -> int:
        """Return how many stacks ``list_stacks`` would return without paging.

        Takes ``list_stacks``' selection arguments (paging and sorting aside).
        """
        self._recover_once()
        return api_stacks.stack_count(self.db, listing_project(ctx, global_tenant), filters,
                                      show_deleted, show_nested, tags, tags_any, not_tags,
                                      not_tags_any)

    def identify_stack(self, ctx: RequestContext, stack_identity: str) -> JsonMap:
        """Return ``{"stack_name", "id", "tenant"}`` for a name or id (EntityNotFound)."""
        row = self._row(ctx, stack_identity)
        return {"stack_name": row.name, "id": row.id, "tenant": row.project_id}

    def show_stack(self, ctx: RequestContext, stack_identity: str,
                   resolve_outputs: bool = True) -> JsonMap:
        """Return the full stack object (Heat's stack-show).

        Outputs are resolved on a loaded stack; without outputs to resolve
        only the stored template and its parameters are read.
        """
        row = self._row(ctx, stack_identity)
        description = self._description(row)
        if row.deleted_at is not None:
            return api_format.format_stack(row, description, {}, [])
        context = self._context(row)
        values = None
        if resolve_outputs:
            values = (outputs.resolve_outputs(self._load(row))
                      if context.template.section("outputs") else [])
        params = api_format.format_parameters(row, dict(context.params),
                                              context.params.hidden_names())
        return api_format.format_stack(row, description, params, values)

    def get_template(self, ctx: RequestContext, stack_identity: str) -> JsonMap:
        """Return the stack's raw template."""
        template: JsonMap = self._raw(self._row(ctx, stack_identity)).template
        return template

    def get_environment(self, ctx: RequestContext, stack_identity: str) -> JsonMap:
        """Return the stack's environment (hidden parameter values as ``******``)."""
        return self.layer.environment(self._raw(self._row(ctx, stack_identity)))

    def get_files(self, ctx: RequestContext, stack_identity: str) -> dict[str, str]:
        """Return the stack's files map."""
        return dict(self._raw(self._row(ctx, stack_identity)).files or {})

    def export_stack(self, ctx: RequestContext, stack_identity: str) -> JsonMap:
        """Return the abandon data without deleting anything."""
        row = self._row(ctx, stack_identity, show_deleted=False)
        return self.layer.export(row, self._raw(row))

    def stack_graph(self, ctx: RequestContext, stack_identity: str) -> JsonMap:
        """Return the stack's dependency picture: resource states, edges, nested stacks.

        The data of :class:`~hearth.engine.stacks.graph_view.GraphView`, read
        from the dependency graph the engine walks.
        """
        return self.layer.graph(self._row(ctx, stack_identity))

    def list_outputs(self, ctx: RequestContext, stack_identity: str) -> list[JsonMap]:
        """Return ``[{"output_key", "description"}]``."""
        context = self._context(self._row(ctx, stack_identity))
        return outputs.list_outputs(SimpleNamespace(template=context.template, context=context))

    def show_output(self, ctx: RequestContext, stack_identity: str, key: str) -> JsonMap:
        """Return ``{"output_key", "description", "output_value"[, "output_error"]}``."""
        stack = self._load(self._row(ctx, stack_identity))
        definitions = outputs.output_definitions(stack)
        if key not in definitions:
            raise exception.NotFound(message=f"Specified output key {key} not found.")
        return outputs.resolve_output(stack, key, definitions[key])

    def list_resources(self, ctx: RequestContext, stack_identity: str, nested_depth: int = 0,
                       with_detail: bool = False,
                       filters: Mapping[str, Any] | None = None) -> list[JsonMap]:
        """Return resource summaries, nested stacks' ones down to ``nested_depth``.

        ``with_detail`` adds each resource's ``description`` and ``attributes``.
        """
        row = self._row(ctx, stack_identity)
        depth = nested_reads.capped_depth(nested_depth)
        tree = nested_reads.StackTree.read(self.db, row, depth + 1)
        items = nested_reads.tree_resources(self.db, tree, depth, self._required_by, filters)
        if with_detail:
            self._add_details(items, {stack.id: stack for stack in tree.live_stacks()})
        return items

    def show_resource(self, ctx: RequestContext, stack_identity: str, resource_name: str,
                      with_attr: list[str] | None = None) -> JsonMap:
        """Return one resource with ``description`` and ``attributes``."""
        row = self._row(ctx, stack_identity)
        stack = self._load(row)
        resource_row = self._resource_row(row, resource_name)
        details = self._resource_details(stack, resource_name, with_attr)
        users = required_by(stack.definitions)
        nested = self._nested_stack(row, resource_row)
        return api_format.format_resource(resource_row, row, users.get(resource_name, []),
                                          details["description"], details["attributes"],
                                          nested)

    @staticmethod
    def _resource_details(stack: Stack, resource_name: str,
                          with_attr: list[str] | None = None) -> JsonMap:
        """Return ``{"description", "attributes"}`` of a live resource (as resource-show)."""
        resource = stack.resources.get(resource_name)
        attributes = {}
        if resource is not None and resource.action != INIT:
            attributes = mask(show_attributes(resource, with_attr), stack.secrets())
        # Heat shows the template's description of the resource ("" without one)
        description = (getattr(resource.t, "description", "") or "") if resource else ""
        return {"description": description, "attributes": attributes}

    def _add_details(self, items: list[JsonMap], stacks: Mapping[str, models.Stack]) -> None:
        """Add resource-show's ``description`` and ``attributes`` to listed resources.

        Each stack of the listing is loaded once.
        """
        loaded: dict[str, Stack] = {}
        for item in items:
            stack_id = item["stack_id"]
            if stack_id not in loaded:
                loaded[stack_id] = self._load(stacks[stack_id])
            item.update(self._resource_details(loaded[stack_id], item["resource_name"]))

    def resource_metadata(self, ctx: RequestContext, stack_identity: str,
                          resource_name: str) -> JsonMap:
        """Return the resource's metadata map."""
        row = self._row(ctx, stack_identity)
        return self._resource_row(row, resource_name).metadata_ or {}

    def list_events(self, ctx: RequestContext, stack_identity: str,
                    resource_name: str | None = None,
                    filters: Mapping[str, Any] | None = None, limit: int | None = None,
                    marker: str | None = None, sort_keys: list[str] | None = None,
                    sort_dir: str | None = None, nested_depth: int = 0) -> list[JsonMap]:
        """Return event summaries, nested stacks' ones down to ``nested_depth`` among them.

        A resource's events (``resource_name``) are ResourceEventsNotFound
        when there are none, as Heat's.
        """
        row = self._row(ctx, stack_identity)
        merged = dict(filters or {})
        if resource_name:
            merged["resource_name"] = resource_name
        depth = nested_reads.capped_depth(nested_depth)
        if depth:
            tree = nested_reads.StackTree.read(self.db, row, depth)
            events = nested_reads.tree_events(self.db, tree, merged, limit, marker, sort_keys,
                                              sort_dir)
        else:
            events = [api_format.format_event(event, stack_row=row) for event in
                      api_events.event_list(self.db, row.id, merged, limit, marker, sort_keys,
                                            sort_dir)]
        if resource_name and not events:
            raise exception.ResourceEventsNotFound(resource_name=resource_name)
        return events

    def show_event(self, ctx: RequestContext, stack_identity: str, resource_name: str,
                   event_id: str) -> JsonMap:
        """Return one event with ``resource_type`` and ``resource_properties``."""
        row = self._row(ctx, stack_identity)
        return api_format.format_event(api_events.event_get(self.db, row.id, event_id),
                                       with_details=True, stack_row=row)

    def list_services(self, ctx: RequestContext) -> list[JsonMap]:
        """Return the engines (Heat's services list), each ``up`` or ``down``."""
        return [{"id": engine.engine_id, "engine_id": engine.engine_id, "host": engine.host,
                 "hostname": engine.hostname, "binary": engine.binary, "topic": engine.topic,
                 "report_interval": engine.report_interval,
                 "status": api_engines.engine_status(engine, CONF.engine_life_check_timeout),
                 "created_at": format_time(engine.created_at),
                 "updated_at": format_time(engine.heartbeat_at),
                 "deleted_at": format_time(engine.deleted_at)}
                for engine in api_engines.engine_list(self.db)]

    def _row(self, ctx: RequestContext, identity: str, show_deleted: bool = True
             ) -> models.Stack:
        self._recover_once()
        try:
            return api_stacks.stack_find(self.db, identity, ctx.project_id)
        except exception.StackNotFound:
            if not show_deleted:
                raise
            return api_stacks.stack_get(self.db, identity.rpartition("/")[2],
                                        ctx.project_id, show_deleted=True)

    def _find_resource(self, stack: Stack, row: models.Stack, name_or_physical_id: str
                       ) -> Resource:
        resource = stack.resources.get(name_or_physical_id)
        if resource is None:
            resource = next((item for item in stack.resources.values()
                             if item.resource_id == name_or_physical_id), None)
        if resource is None:
            raise exception.ResourceNotFound(resource_name=name_or_physical_id,
                                             stack_name=row.name, entity="Resource",
                                             name=name_or_physical_id)
        return resource

    def _nested_stack(self, row: models.Stack, resource_row: models.Resource
                      ) -> models.Stack | None:
        """Return the nested stack a resource holds (None for a plain resource)."""
        nested = StackTree.read(self.db, row, 1).nested_of(row)
        return nested.get(resource_row.physical_resource_id or "")

    def _raw(self, row: models.Stack) -> models.RawTemplate:
        return api_stacks.raw_template_get(self.db, row.raw_template_id)

    def _description(self, row: models.Stack) -> Any:
        return self.catalog.stored.description(row, lambda: self._raw(row))

    def _load(self, row: models.Stack) -> Stack:
        return self.layer.load(row)

    def _resource_row(self, row: models.Stack, resource_name: str) -> models.Resource:
        try:
            return api_resources.resource_get_by_name(self.db, row.id, resource_name)
        except exception.NotFound:
            raise exception.ResourceNotFound(resource_name=resource_name, stack_name=row.name,
                                             entity="Resource", name=resource_name)

    def _context(self, row: models.Stack, raw: models.RawTemplate | None = None
                 ) -> ResolutionContext:
        """Return the stored template's context (parameters; no resources built)."""
        return self.catalog.stored.context(row, raw or self._raw(row))

    def _required_by(self, row: models.Stack, raw: models.RawTemplate | None = None
                     ) -> dict[str, list[str]]:
        """Return ``{resource: names that require it}`` from the stored definitions alone.

        Kept per raw template (a stored template never changes; updates store new ones).
        """
        return self.catalog.stored.required_by(row, lambda: raw or self._raw(row))

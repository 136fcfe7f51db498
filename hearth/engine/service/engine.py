"""EngineService: the one entry point for every stack action.

The CLI (embedded mode) and the REST API call these methods and nothing
below them.  Every method takes a :class:`~hearth.common.context.RequestContext`
first; stacks are looked up within ``ctx.project_id`` only.

Return values are the JSON objects of Heat's v1 API *without* the
``links`` entries (the REST layer adds links from the request URL; the CLI
prints what it gets).  Time stamps are ``YYYY-MM-DDTHH:MM:SSZ`` strings.

``stack_identity`` arguments accept a stack name, a stack id, or
``"name/id"``.

Action methods (create, update, delete, suspend, resume, check, cancel)
start the action on a green thread and return at once; callers that want
to wait use :meth:`EngineService.wait` (the embedded CLI) or poll events
(HTTP clients).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from hearth.common import exception
from hearth.common.context import RequestContext
from hearth.engine.service.catalog import Catalog, environment_documents

JsonMap = dict[str, Any]


def listing_project(ctx: RequestContext, global_tenant: bool) -> str | None:
    """Return the project a stack listing covers (None: every project, for an admin)."""
    return None if (global_tenant and ctx.is_admin) else ctx.project_id


#: most template descriptions kept in memory for stack listings
DESCRIPTION_CACHE_SIZE = 10000

#: cancel action -> the stack actions it may interrupt (Heat's rules).
CANCEL_ACTIONS = {
    "cancel_update": ("UPDATE",),
    "cancel_without_rollback": ("UPDATE", "CREATE", "DELETE", "SUSPEND", "RESUME", "CHECK"),
}


class EngineService(Catalog):
    """The engine's public operations.

    Constructor arguments are test seams: ``db_url`` picks the database,
    ``engine_id`` names this engine in stack locks.
    """

    def __init__(self, db_url: str | None = None, engine_id: str | None = None) -> None:
        from hearth.common import config
        from hearth.db.session import get_database
        from hearth.engine.service.runtime import EngineRuntime
        config.register_opts()
        self.db = get_database(db_url)
        self.runtime = EngineRuntime(self.db, engine_id)
        super().__init__()
        #: raw template id -> description (stored templates never change; updates add new ones)
        self._descriptions: dict[int, str] = {}

    # --- stacks -------------------------------------------------------------
    def create_stack(self, ctx: RequestContext, stack_name: str, template: Any,
                     params: Mapping[str, Any] | None = None,
                     files: Mapping[str, str] | None = None,
                     environment: Any = None,
                     environment_files: list[str] | None = None,
                     disable_rollback: bool = True, timeout_mins: int | None = None,
                     tags: list[str] | None = None) -> JsonMap:
        """Validate and store a stack, start CREATE; return ``{"id", "stack_name"}``."""
        from hearth.common.config import CONF
        from hearth.db import api_stacks
        from hearth.engine.stacks import actions as stack_actions
        text = template if isinstance(template, str) else json.dumps(template)
        if len(text.encode()) > CONF.max_template_size:
            raise exception.TemplateSizeExceeded(actual=len(text.encode()),
                                                 limit=CONF.max_template_size)
        limit = CONF.max_stacks_per_tenant
        if limit >= 0 and api_stacks.stack_count_by_project(self.db, ctx.project_id) >= limit:
            raise exception.RequestLimitExceeded(
                message=f"You have reached the maximum stacks per tenant, {limit}. "
                        "Please delete some stacks.")
        data = self._parse(template)
        env = self._environment(environment, environment_files, files, params, data)
        self._validate_new(data, files, env)
        raw = api_stacks.raw_template_create(self.db, data, files, env)
        row = api_stacks.stack_create(self.db, {
            "name": stack_name, "raw_template_id": raw.id, "project_id": ctx.project_id,
            "username": ctx.user, "timeout_mins": timeout_mins,
            "disable_rollback": disable_rollback, "tags": list(tags or [])})
        try:
            stack = self._load(row)
            self._check_resource_limit(stack)
        except Exception:
            api_stacks.stack_delete(self.db, row.id)
            raise
        self._run(stack, "CREATE", lambda: stack_actions.run_action(stack, "CREATE"))
        return {"id": row.id, "stack_name": row.name}

    def preview_stack(self, ctx: RequestContext, stack_name: str, template: Any,
                      **kwargs: Any) -> JsonMap:
        """Return the preview object of a stack that is not created."""
        from types import SimpleNamespace

        from hearth.db import api_stacks
        from hearth.engine.service import api_format
        from hearth.engine.stacks.loader import load_stack
        from hearth.engine.update import run as update
        data = self._parse(template)
        env = self._environment(kwargs.get("environment"), kwargs.get("environment_files"),
                                kwargs.get("files"), kwargs.get("params"), data)
        self._validate_new(data, kwargs.get("files"), env)  # as create: in full, first
        raw = api_stacks.raw_template_create(self.db, data, kwargs.get("files"), env)
        row = SimpleNamespace(name=stack_name, id="None", project_id=ctx.project_id,
                              raw_template_id=raw.id)
        try:
            stack = load_stack(self.db, row, self.registry)
            self._check_resource_limit(stack)
        finally:
            api_stacks.raw_template_delete(self.db, raw.id)
        users = update.required_by(stack, stack.definitions)
        description = raw.template.get("description", "") if isinstance(raw.template,
                                                                           dict) else ""
        return {
            "stack_name": stack_name, "id": "None", "description": description,
            "template_description": description, "stack_owner": ctx.user,
            "parameters": api_format.format_parameters(row, stack.parameters,
                                                       stack.hidden_parameters),
            "disable_rollback": kwargs.get("disable_rollback", True),
            "timeout_mins": kwargs.get("timeout_mins"), "tags": kwargs.get("tags"),
            "capabilities": [], "notification_topics": [], "parent": None,
            "creation_time": None, "updated_time": None, "deletion_time": None,
            "resources": [update.resource_summary(resource, row, users[name],
                                                  with_properties=True)
                          for name, resource in stack.resources.items()],
        }

    def list_stacks(self, ctx: RequestContext, filters: Mapping[str, Any] | None = None,
                    limit: int | None = None, marker: str | None = None,
                    sort_keys: list[str] | None = None, sort_dir: str | None = None,
                    show_deleted: bool = False, show_nested: bool = False,
                    show_hidden: bool = False, tags: list[str] | None = None,
                    tags_any: list[str] | None = None, not_tags: list[str] | None = None,
                    not_tags_any: list[str] | None = None,
                    global_tenant: bool = False) -> list[JsonMap]:
        """Return stack summaries (Heat's stack-list items)."""
        from hearth.db import api_stacks
        from hearth.engine.service import api_format
        project = listing_project(ctx, global_tenant)
        rows = api_stacks.stack_list(self.db, project, filters, limit, marker, sort_keys,
                                     sort_dir, show_deleted, show_nested, tags, tags_any,
                                     not_tags, not_tags_any)
        return [api_format.format_stack_summary(row, self._description(row)) for row in rows]

    def count_stacks(self, ctx: RequestContext, filters: Mapping[str, Any] | None = None,
                     show_deleted: bool = False, show_nested: bool = False,
                     show_hidden: bool = False, tags: list[str] | None = None,
                     tags_any: list[str] | None = None, not_tags: list[str] | None = None,
                     not_tags_any: list[str] | None = None,
                     global_tenant: bool = False) -> int:
        """Return how many stacks ``list_stacks`` would return without paging.

        Takes ``list_stacks``' selection arguments (paging and sorting aside).
        """
        from hearth.db import api_stacks
        return api_stacks.stack_count(self.db, listing_project(ctx, global_tenant), filters,
                                      show_deleted, show_nested, tags, tags_any, not_tags,
                                      not_tags_any)

    def identify_stack(self, ctx: RequestContext, stack_identity: str) -> JsonMap:
        """Return ``{"stack_name", "id", "tenant"}`` for a name or id (EntityNotFound)."""
        row = self._row(ctx, stack_identity)
        return {"stack_name": row.name, "id": row.id, "tenant": row.project_id}

    def show_stack(self, ctx: RequestContext, stack_identity: str,
                   resolve_outputs: bool = True) -> JsonMap:
        """Return the full stack object (Heat's stack-show)."""
        from hearth.engine.service import api_format
        from hearth.engine.stacks import outputs
        row = self._row(ctx, stack_identity)
        description = self._description(row)
        if row.deleted_at is not None:
            return api_format.format_stack(row, description, {}, [])
        stack = self._load(row)
        params = api_format.format_parameters(row, stack.parameters, stack.hidden_parameters)
        values = outputs.resolve_outputs(stack) if resolve_outputs else None
        return api_format.format_stack(row, description, params, values)

    def update_stack(self, ctx: RequestContext, stack_identity: str, template: Any = None,
                     params: Mapping[str, Any] | None = None,
                     files: Mapping[str, str] | None = None, environment: Any = None,
                     environment_files: list[str] | None = None, existing: bool = False,
                     clear_parameters: list[str] | None = None,
                     disable_rollback: bool | None = None, timeout_mins: int | None = None,
                     tags: list[str] | None = None) -> JsonMap:
        """Start UPDATE (PUT, or PATCH semantics with ``existing``); return the identity."""
        from hearth.db import api_stacks
        from hearth.engine.update import run as update
        row = self._row(ctx, stack_identity, show_deleted=False)
        update.check_updatable(row)
        raw, current, target = self._update_target(
            row, template, params, files, environment, environment_files, existing,
            clear_parameters)
        changes = {key: value for key, value in (
            ("disable_rollback", disable_rollback), ("timeout_mins", timeout_mins),
            ("tags", tags)) if value is not None}
        try:
            self._check_resource_limit(target)
            self._run(current, "UPDATE", lambda: update.run_update(
                current, raw.id, values=changes))
        except Exception:
            api_stacks.raw_template_delete(self.db, raw.id)
            raise
        return {"id": row.id, "stack_name": row.name}

    def _update_target(self, row: Any, template: Any, params: Mapping[str, Any] | None,
                       files: Mapping[str, str] | None, environment: Any,
                       environment_files: list[str] | None, existing: bool,
                       clear_parameters: list[str] | None) -> tuple[Any, Any, Any]:
        """Store the update's template; return (raw template, current stack, target stack)."""
        from hearth.db import api_stacks
        from hearth.engine.stacks.loader import load_stack
        from hearth.engine.update import plan as update_plan
        from hearth.engine.update import run as update
        old = self._raw(row)
        new_data = None if template is None else self._parse(template)
        env = self._environment(environment, environment_files,
                                {**(old.files or {}), **(files or {})} if existing else files,
                                params, old.template if new_data is None else new_data)
        data, all_files, all_env = update_plan.compose_request(
            old.template, old.files, old.environment, new_data, files, env, existing,
            clear_parameters)
        self._validate_new(data, all_files, all_env)  # as create: in full, before storing
        raw = api_stacks.raw_template_create(self.db, data, all_files, all_env)
        try:
            current = self._load(row)
            target = load_stack(self.db, row, self.registry, raw_template_id=raw.id)
            update.check_parameters(current, target)
        except Exception:
            api_stacks.raw_template_delete(self.db, raw.id)
            raise
        return raw, current, target

    def preview_update_stack(self, ctx: RequestContext, stack_identity: str,
                             **kwargs: Any) -> JsonMap:
        """Return ``{"resource_changes": {added, deleted, replaced, updated, unchanged}}``."""
        from hearth.db import api_stacks
        from hearth.engine.update import run as update
        row = self._row(ctx, stack_identity, show_deleted=False)
        raw, current, target = self._update_target(
            row, kwargs.get("template"), kwargs.get("params"), kwargs.get("files"),
            kwargs.get("environment"), kwargs.get("environment_files"),
            bool(kwargs.get("existing")), kwargs.get("clear_parameters"))
        try:
            return update.preview_update(current, target)
        finally:
            api_stacks.raw_template_delete(self.db, raw.id)

    def delete_stack(self, ctx: RequestContext, stack_identity: str) -> None:
        """Start DELETE."""
        from hearth.engine.stacks import actions as stack_actions
        row = self._row(ctx, stack_identity, show_deleted=False)
        if row.status == "IN_PROGRESS" and self.runtime.cancel(row.id, with_rollback=False):
            self.runtime.wait(row.id)
            row = self._row(ctx, row.id, show_deleted=False)
        stack = self._load(row)
        self._run(stack, "DELETE", lambda: stack_actions.run_action(stack, "DELETE"))

    def abandon_stack(self, ctx: RequestContext, stack_identity: str) -> JsonMap:
        """Delete the stack's record but keep its physical resources; return its data."""
        from hearth.db import api_stacks
        from hearth.engine.stacks import export as stack_export
        row = self._row(ctx, stack_identity, show_deleted=False)
        stack = self._load(row)
        data = stack_export.stack_data(self.db, row, self._raw(row))

        def forget() -> None:
            stack.state_set("DELETE", "COMPLETE", "Stack DELETE completed successfully")
            api_stacks.stack_delete(self.db, row.id)
        self._run(stack, "DELETE", forget)
        self.runtime.wait(row.id)
        return data

    def export_stack(self, ctx: RequestContext, stack_identity: str) -> JsonMap:
        """Return the abandon data without deleting anything."""
        from hearth.engine.stacks import export as stack_export
        row = self._row(ctx, stack_identity, show_deleted=False)
        return stack_export.stack_data(self.db, row, self._raw(row))

    def get_template(self, ctx: RequestContext, stack_identity: str) -> JsonMap:
        """Return the stack's raw template."""
        return self._raw(self._row(ctx, stack_identity)).template

    def get_environment(self, ctx: RequestContext, stack_identity: str) -> JsonMap:
        """Return the stack's environment (hidden parameter values as ``******``)."""
        from hearth.engine.stacks import export as stack_export
        raw = self._raw(self._row(ctx, stack_identity))
        return stack_export.masked_environment(
            raw.environment, stack_export.hidden_parameter_names(raw.template))

    def get_files(self, ctx: RequestContext, stack_identity: str) -> dict[str, str]:
        """Return the stack's files map."""
        return dict(self._raw(self._row(ctx, stack_identity)).files or {})

    def stack_graph(self, ctx: RequestContext, stack_identity: str) -> JsonMap:
        """Return the stack's dependency picture: resource states, edges, nested stacks.

        The data of :class:`~hearth.engine.stacks.graph_view.GraphView`, read
        from the dependency graph the engine walks.
        """
        from hearth.engine.stacks import graph_view
        row = self._row(ctx, stack_identity)
        return graph_view.stack_tree_view(self.db, row, self._load).as_dict()

    def stack_action(self, ctx: RequestContext, stack_identity: str, action: str) -> None:
        """Start ``suspend``/``resume``/``check``/``cancel_update``/``cancel_without_rollback``."""
        from hearth.engine.stacks import actions as stack_actions
        row = self._row(ctx, stack_identity, show_deleted=False)
        if action in CANCEL_ACTIONS:
            if (row.action not in CANCEL_ACTIONS[action] or row.status != "IN_PROGRESS"
                    or not self.runtime.cancel(row.id, action == "cancel_update")):
                raise exception.NotSupported(
                    feature=f"Cancelling update when stack is {row.action}_{row.status}")
            return
        name = action.upper()
        if name not in ("SUSPEND", "RESUME", "CHECK"):
            raise exception.BadRequest(message=f"Invalid action {action}")
        stack = self._load(row)
        self._run(stack, name, lambda: stack_actions.run_action(stack, name))

    def wait(self, ctx: RequestContext, stack_identity: str,
             timeout: float | None = None) -> JsonMap:
        """Block (green) until the stack's current action ends; return the stack."""
        row = self._row(ctx, stack_identity)
        self.runtime.wait(row.id, timeout)
        return self.show_stack(ctx, row.id, resolve_outputs=False)

    # --- outputs, resources, events -------------------------------------------
    def list_outputs(self, ctx: RequestContext, stack_identity: str) -> list[JsonMap]:
        """Return ``[{"output_key", "description"}]``."""
        from hearth.engine.stacks import outputs
        return outputs.list_outputs(self._load(self._row(ctx, stack_identity)))

    def show_output(self, ctx: RequestContext, stack_identity: str, key: str) -> JsonMap:
        """Return ``{"output_key", "description", "output_value"[, "output_error"]}``."""
        from hearth.engine.stacks import outputs
        stack = self._load(self._row(ctx, stack_identity))
        definitions = outputs.output_definitions(stack)
        if key not in definitions:
            raise exception.NotFound(message=f"Specified output key {key} not found.")
        return outputs.resolve_output(stack, key, definitions[key])

    def list_resources(self, ctx: RequestContext, stack_identity: str, nested_depth: int = 0,
                       with_detail: bool = False,
                       filters: Mapping[str, Any] | None = None) -> list[JsonMap]:
        """Return resource summaries."""
        from hearth.db import api_resources
        from hearth.engine.service import api_format
        row = self._row(ctx, stack_identity)
        rows = api_resources.resource_get_all_by_stack(self.db, row.id, filters)
        required_by = self._required_by(row)
        return [api_format.format_resource(item, row, required_by.get(item.name, []))
                for item in rows if item.replaced_by is None]

    def show_resource(self, ctx: RequestContext, stack_identity: str, resource_name: str,
                      with_attr: list[str] | None = None) -> JsonMap:
        """Return one resource with ``attributes``."""
        from hearth.engine.service import api_format
        row = self._row(ctx, stack_identity)
        stack = self._load(row)
        resource_row = self._resource_row(row, resource_name)
        resource = stack.resources.get(resource_name)
        attributes = {}
        if resource is not None and resource.action != "INIT":
            from hearth.engine.resources.attributes import show_attributes
            from hearth.engine.resources.actions import mask
            attributes = mask(show_attributes(resource, with_attr), stack.secrets())
        description = (type(resource).__doc__ or "").split("\n")[0] if resource else ""
        return api_format.format_resource(resource_row, row,
                                          self._required_by(row).get(resource_name, []),
                                          description, attributes)

    def resource_metadata(self, ctx: RequestContext, stack_identity: str,
                          resource_name: str) -> JsonMap:
        """Return the resource's metadata map."""
        row = self._row(ctx, stack_identity)
        return self._resource_row(row, resource_name).metadata_ or {}

    def resource_signal(self, ctx: RequestContext, stack_identity: str, resource_name: str,
                        details: Any = None) -> None:
        """Deliver a signal (or ``{"unset_hook": ...}``) to a resource."""
        from hearth.engine.resources import actions as resource_actions
        row = self._row(ctx, stack_identity, show_deleted=False)
        stack = self._load(row)
        if resource_name not in stack.resources:
            raise exception.ResourceNotFound(resource_name=resource_name, stack_name=row.name,
                                             entity="Resource", name=resource_name)
        resource_actions.signal(stack.resources[resource_name], details)

    def resource_mark_unhealthy(self, ctx: RequestContext, stack_identity: str,
                                resource_name: str, mark_unhealthy: bool,
                                reason: str | None = None) -> None:
        """Set a resource CHECK_FAILED (or back to CHECK_COMPLETE), as Heat does.

        ``resource_name`` may also be the physical resource id.  A resource
        in progress raises ActionInProgress; a deleted one is left alone.
        """
        from hearth.engine.resources import actions as resource_actions
        if not isinstance(mark_unhealthy, bool):
            raise exception.BadRequest(
                message=f"mark_unhealthy must be a boolean, not {mark_unhealthy!r}.")
        row = self._row(ctx, stack_identity, show_deleted=False)
        stack = self._load(row)
        resource = self._find_resource(stack, row, resource_name)
        if resource.status == "IN_PROGRESS":
            raise exception.ActionInProgress(stack_name=row.name, action=row.action)
        reason = reason or "state changed by resource_mark_unhealthy api"
        if mark_unhealthy and resource.action != "DELETE":
            resource_actions.set_state(resource, "CHECK", "FAILED", reason)
        elif not mark_unhealthy and (resource.action, resource.status) == ("CHECK", "FAILED"):
            resource_actions.set_state(resource, "CHECK", "COMPLETE", reason)

    def list_events(self, ctx: RequestContext, stack_identity: str,
                    resource_name: str | None = None,
                    filters: Mapping[str, Any] | None = None, limit: int | None = None,
                    marker: str | None = None, sort_keys: list[str] | None = None,
                    sort_dir: str | None = None, nested_depth: int = 0) -> list[JsonMap]:
        """Return event summaries."""
        from hearth.db import api_events
        from hearth.engine.service import api_format
        row = self._row(ctx, stack_identity)
        merged = dict(filters or {})
        if resource_name:
            merged["resource_name"] = resource_name
        rows = api_events.event_list(self.db, row.id, merged, limit, marker, sort_keys,
                                     sort_dir)
        return [api_format.format_event(event) for event in rows]

    def show_event(self, ctx: RequestContext, stack_identity: str, resource_name: str,
                   event_id: str) -> JsonMap:
        """Return one event with ``resource_type`` and ``resource_properties``."""
        from hearth.db import api_events
        from hearth.engine.service import api_format
        row = self._row(ctx, stack_identity)
        return api_format.format_event(api_events.event_get(self.db, row.id, event_id),
                                       with_details=True)

    def list_services(self, ctx: RequestContext) -> list[JsonMap]:
        """Return the engines (Heat's services list), each ``up`` or ``down``."""
        from hearth.common.config import CONF
        from hearth.db import api_engines
        from hearth.engine.service.api_format import format_time
        return [{"id": engine.engine_id, "engine_id": engine.engine_id, "host": engine.host,
                 "hostname": engine.hostname, "binary": engine.binary, "topic": engine.topic,
                 "report_interval": engine.report_interval,
                 "status": api_engines.engine_status(engine, CONF.engine_life_check_timeout),
                 "created_at": format_time(engine.created_at),
                 "updated_at": format_time(engine.heartbeat_at),
                 "deleted_at": format_time(engine.deleted_at)}
                for engine in api_engines.engine_list(self.db)]

    # --- helpers ----------------------------------------------------------------
    def stop(self) -> None:
        """Cancel running actions and deregister this engine."""
        self.runtime.stop()

    def _row(self, ctx: RequestContext, identity: str, show_deleted: bool = True) -> Any:
        from hearth.db import api_stacks
        try:
            return api_stacks.stack_find(self.db, identity, ctx.project_id)
        except exception.StackNotFound:
            if not show_deleted:
                raise
            return api_stacks.stack_get(self.db, identity.rpartition("/")[2],
                                        ctx.project_id, show_deleted=True)

    def _find_resource(self, stack: Any, row: Any, name_or_physical_id: str) -> Any:
        resource = stack.resources.get(name_or_physical_id)
        if resource is None:
            resource = next((item for item in stack.resources.values()
                             if item.resource_id == name_or_physical_id), None)
        if resource is None:
            raise exception.ResourceNotFound(resource_name=name_or_physical_id,
                                             stack_name=row.name, entity="Resource",
                                             name=name_or_physical_id)
        return resource

    def _raw(self, row: Any) -> Any:
        from hearth.db import api_stacks
        return api_stacks.raw_template_get(self.db, row.raw_template_id)

    def _description(self, row: Any) -> str:
        cached = self._descriptions.get(row.raw_template_id)
        if cached is None:
            template = self._raw(row).template
            cached = template.get("description", "") if isinstance(template, dict) else ""
            if len(self._descriptions) >= DESCRIPTION_CACHE_SIZE:
                self._descriptions.clear()
            self._descriptions[row.raw_template_id] = cached
        return cached

    def _load(self, row: Any) -> Any:
        from hearth.engine.stacks.loader import load_stack
        return load_stack(self.db, row, self.registry)

    def _resource_row(self, row: Any, resource_name: str) -> Any:
        from hearth.db import api_resources
        try:
            return api_resources.resource_get_by_name(self.db, row.id, resource_name)
        except exception.NotFound:
            raise exception.ResourceNotFound(resource_name=resource_name, stack_name=row.name,
                                             entity="Resource", name=resource_name)

    def _required_by(self, row: Any) -> dict[str, list[str]]:
        result: dict[str, list[str]] = {}
        for name, needs in self._load(row).requires().items():
            for need in sorted(needs):
                result.setdefault(need, []).append(name)
        return result

    def _environment(self, environment: Any, environment_files: list[str] | None,
                     files: Mapping[str, str] | None, params: Mapping[str, Any] | None,
                     template_data: Any = None) -> dict[str, Any]:
        """Merge the environment files (in order), the environment and the user's values.

        Merging follows the environment's own rules (sections, merge
        strategies, by the parameter types ``template_data`` declares);
        parameters given on the request win over every file.
        """
        from hearth.engine.template.environment import Environment, parameter_types
        env = Environment.from_documents(
            environment_documents(environment, environment_files, files),
            parameter_types(template_data))
        env.params.update(params or {})
        return env.to_dict()

    def _validate_new(self, data: Any, files: Mapping[str, str] | None,
                      env: Mapping[str, Any]) -> None:
        """Validate a template in full before anything is stored or created.

        Structure, parameters (values included), conditions, functions, the
        dependency graph, then every resource's type and properties.
        """
        from hearth.engine.template.template import Template
        template = Template(data, files=files, env=env)
        template.validate(resource_validator=self._resource_validator(template.env))

    def _check_resource_limit(self, stack: Any) -> None:
        from hearth.common.config import CONF
        limit = CONF.max_resources_per_stack
        if limit >= 0 and len(stack.resources) > limit:
            raise exception.RequestLimitExceeded(
                message=f"You have reached the maximum resources per stack, {limit}.")

    def _run(self, stack: Any, action: str, work: Callable[[], Any]) -> None:
        self.runtime.lock(stack.id, stack.name, action)
        if (stack.action, stack.status) != (action, "IN_PROGRESS"):
            stack.state_set(action, "IN_PROGRESS", f"Stack {action} started")
        self.runtime.start(stack, work)

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

from collections.abc import Mapping
from typing import Any

from hearth.common.context import RequestContext

JsonMap = dict[str, Any]


class EngineService:
    """The engine's public operations (interface; implemented in this module).

    Constructor arguments are test seams: ``db_url`` picks the database,
    ``engine_id`` names this engine in stack locks.
    """

    def __init__(self, db_url: str | None = None, engine_id: str | None = None) -> None:
        raise NotImplementedError

    # --- stacks -------------------------------------------------------------
    def create_stack(self, ctx: RequestContext, stack_name: str, template: Any,
                     params: Mapping[str, Any] | None = None,
                     files: Mapping[str, str] | None = None,
                     environment: Any = None,
                     environment_files: list[str] | None = None,
                     disable_rollback: bool = True, timeout_mins: int | None = None,
                     tags: list[str] | None = None) -> JsonMap:
        """Validate and store a stack, start CREATE; return ``{"id", "stack_name"}``."""
        raise NotImplementedError

    def preview_stack(self, ctx: RequestContext, stack_name: str, template: Any,
                      **kwargs: Any) -> JsonMap:
        """Return the preview object of a stack that is not created."""
        raise NotImplementedError

    def list_stacks(self, ctx: RequestContext, filters: Mapping[str, Any] | None = None,
                    limit: int | None = None, marker: str | None = None,
                    sort_keys: list[str] | None = None, sort_dir: str | None = None,
                    show_deleted: bool = False, show_nested: bool = False,
                    show_hidden: bool = False, tags: list[str] | None = None,
                    tags_any: list[str] | None = None, not_tags: list[str] | None = None,
                    not_tags_any: list[str] | None = None,
                    global_tenant: bool = False) -> list[JsonMap]:
        """Return stack summaries (Heat's stack-list items)."""
        raise NotImplementedError

    def count_stacks(self, ctx: RequestContext, **filters: Any) -> int:
        """Return how many stacks ``list_stacks`` would return without paging."""
        raise NotImplementedError

    def identify_stack(self, ctx: RequestContext, stack_identity: str) -> JsonMap:
        """Return ``{"stack_name", "id", "tenant"}`` for a name or id (EntityNotFound)."""
        raise NotImplementedError

    def show_stack(self, ctx: RequestContext, stack_identity: str,
                   resolve_outputs: bool = True) -> JsonMap:
        """Return the full stack object (Heat's stack-show)."""
        raise NotImplementedError

    def update_stack(self, ctx: RequestContext, stack_identity: str, template: Any = None,
                     params: Mapping[str, Any] | None = None,
                     files: Mapping[str, str] | None = None, environment: Any = None,
                     environment_files: list[str] | None = None, existing: bool = False,
                     clear_parameters: list[str] | None = None,
                     disable_rollback: bool | None = None, timeout_mins: int | None = None,
                     tags: list[str] | None = None) -> JsonMap:
        """Start UPDATE (PUT, or PATCH semantics with ``existing``); return the identity."""
        raise NotImplementedError

    def preview_update_stack(self, ctx: RequestContext, stack_identity: str,
                             **kwargs: Any) -> JsonMap:
        """Return ``{"resource_changes": {added, deleted, replaced, updated, unchanged}}``."""
        raise NotImplementedError

    def delete_stack(self, ctx: RequestContext, stack_identity: str) -> None:
        """Start DELETE."""
        raise NotImplementedError

    def abandon_stack(self, ctx: RequestContext, stack_identity: str) -> JsonMap:
        """Delete the stack's record but keep its physical resources; return its data."""
        raise NotImplementedError

    def export_stack(self, ctx: RequestContext, stack_identity: str) -> JsonMap:
        """Return the abandon data without deleting anything."""
        raise NotImplementedError

    def get_template(self, ctx: RequestContext, stack_identity: str) -> JsonMap:
        """Return the stack's raw template."""
        raise NotImplementedError

    def get_environment(self, ctx: RequestContext, stack_identity: str) -> JsonMap:
        """Return the stack's environment."""
        raise NotImplementedError

    def get_files(self, ctx: RequestContext, stack_identity: str) -> dict[str, str]:
        """Return the stack's files map."""
        raise NotImplementedError

    def stack_action(self, ctx: RequestContext, stack_identity: str, action: str) -> None:
        """Start ``suspend``/``resume``/``check``/``cancel_update``/``cancel_without_rollback``."""
        raise NotImplementedError

    def wait(self, ctx: RequestContext, stack_identity: str,
             timeout: float | None = None) -> JsonMap:
        """Block (green) until the stack's current action ends; return the stack."""
        raise NotImplementedError

    # --- outputs, resources, events -------------------------------------------
    def list_outputs(self, ctx: RequestContext, stack_identity: str) -> list[JsonMap]:
        """Return ``[{"output_key", "description"}]``."""
        raise NotImplementedError

    def show_output(self, ctx: RequestContext, stack_identity: str, key: str) -> JsonMap:
        """Return ``{"output_key", "description", "output_value"[, "output_error"]}``."""
        raise NotImplementedError

    def list_resources(self, ctx: RequestContext, stack_identity: str, nested_depth: int = 0,
                       with_detail: bool = False,
                       filters: Mapping[str, Any] | None = None) -> list[JsonMap]:
        """Return resource summaries."""
        raise NotImplementedError

    def show_resource(self, ctx: RequestContext, stack_identity: str, resource_name: str,
                      with_attr: list[str] | None = None) -> JsonMap:
        """Return one resource with ``attributes``."""
        raise NotImplementedError

    def resource_metadata(self, ctx: RequestContext, stack_identity: str,
                          resource_name: str) -> JsonMap:
        """Return the resource's metadata map."""
        raise NotImplementedError

    def resource_signal(self, ctx: RequestContext, stack_identity: str, resource_name: str,
                        details: Any = None) -> None:
        """Deliver a signal (or ``{"unset_hook": ...}``) to a resource."""
        raise NotImplementedError

    def resource_mark_unhealthy(self, ctx: RequestContext, stack_identity: str,
                                resource_name: str, mark_unhealthy: bool,
                                reason: str | None = None) -> None:
        """Set a resource CHECK_FAILED (or back to CHECK_COMPLETE)."""
        raise NotImplementedError

    def list_events(self, ctx: RequestContext, stack_identity: str,
                    resource_name: str | None = None,
                    filters: Mapping[str, Any] | None = None, limit: int | None = None,
                    marker: str | None = None, sort_keys: list[str] | None = None,
                    sort_dir: str | None = None, nested_depth: int = 0) -> list[JsonMap]:
        """Return event summaries."""
        raise NotImplementedError

    def show_event(self, ctx: RequestContext, stack_identity: str, resource_name: str,
                   event_id: str) -> JsonMap:
        """Return one event with ``resource_type`` and ``resource_properties``."""
        raise NotImplementedError

    # --- templates and types ---------------------------------------------------
    def validate_template(self, ctx: RequestContext, template: Any,
                          params: Mapping[str, Any] | None = None,
                          files: Mapping[str, str] | None = None, environment: Any = None,
                          environment_files: list[str] | None = None,
                          show_nested: bool = False,
                          ignore_errors: list[str] | None = None) -> JsonMap:
        """Return Heat's validate object (Description, Parameters, ParameterGroups...)."""
        raise NotImplementedError

    def list_template_versions(self, ctx: RequestContext) -> list[JsonMap]:
        """Return ``[{"version", "type", "aliases"}]``."""
        raise NotImplementedError

    def list_template_functions(self, ctx: RequestContext, version: str,
                                with_condition_func: bool = False) -> list[JsonMap]:
        """Return ``[{"functions", "description"}]``."""
        raise NotImplementedError

    def list_resource_types(self, ctx: RequestContext, type_name: str | None = None,
                            support_status: str | None = None, version: str | None = None,
                            with_description: bool = False) -> list[Any]:
        """Return type names, or ``{"resource_type", "description"}`` items."""
        raise NotImplementedError

    def resource_schema(self, ctx: RequestContext, type_name: str,
                        with_description: bool = False) -> JsonMap:
        """Return Heat's resource-type schema object."""
        raise NotImplementedError

    def generate_template(self, ctx: RequestContext, type_name: str,
                          template_type: str = "cfn") -> JsonMap:
        """Return a template for the type (properties as parameters, attributes as outputs)."""
        raise NotImplementedError

    def list_services(self, ctx: RequestContext) -> list[JsonMap]:
        """Return the engines (Heat's services list)."""
        raise NotImplementedError

"""The API's operations, declared once: REST routes, OpenAPI document and stackctl's backends.

Each attribute of :class:`Operations` is one :class:`~hearth.api.operation.Operation`:
the service method that serves it (a selector, checked by mypy against the
method's signature), its route, how each argument travels
(:mod:`hearth.api.arguments`, in the method's parameter order), its answer
(:mod:`hearth.api.answers`) and its policy.  The server (:mod:`hearth.api.app`),
the OpenAPI document (:mod:`hearth.api.openapi`) and ``stackctl``'s backend
(:class:`hearth.cli.backend.Backend`, a subclass of :class:`Operations`:
``backend.show_stack(...)`` is the operation called, typed as the service
method) are derived from this table; adding an operation is one entry here
plus its service method.  An entry is named after the method it serves;
other operations of the same method are its variants (a PATCH update, a
resource's events), which a client's call picks by the arguments it gives.
Query keys are the specs of :mod:`hearth.api.params`, body schemas the
names in :mod:`hearth.api.schemas`.

A stack route named by a stack's name or id alone answers 302 to the
canonical URL (:func:`lookup_of`, derived for every stack route).
"""

from __future__ import annotations

from typing import Any

from hearth.api import answers, params, readers
from hearth.api.answers import wrapped
from hearth.api.arguments import FILTERS, STACK, from_context, in_body, in_path, in_query
from hearth.api.arguments import as_body as whole_body
from hearth.api.operation import (
    TENANT,
    Operation,
    Policy,
    catalog_op,
    collect,
    engine_op,
    job_op,
)

T = TENANT
STACKS = f"{T}/stacks"
STACK_PATH = f"{STACKS}/{{stack_name}}/{{stack_id}}"
RESOURCE = f"{STACK_PATH}/resources/{{resource_name}}"
RESOURCE_NAME = in_path("resource_name")
#: A stack's name in a create, adopt or preview (refused by the engine when missing).
STACK_NAME = in_body("stack_name", required=True)


def _first(items: str, **fields: str) -> dict[str, str]:
    """Return ``provides`` naming fields of the first item of the answer's list ``items``."""
    return {parameter: f"$response.body#/{items}/0/{field}"
            for parameter, field in fields.items()}


#: A stack's request: the template, parameters, files and environments (heatclient's fields).
def _stack_request(template_reader: Any) -> tuple[Any, ...]:
    return (in_body("template", reader=template_reader), in_body("params", "parameters"),
            in_body("files"), in_body("environment", reader=readers.environment),
            in_body("environment_files"))


#: A stack action's options.
ACTION_OPTIONS = (in_body("disable_rollback", reader=readers.flag("disable_rollback")),
                  in_body("timeout_mins", reader=readers.timeout),
                  in_body("tags", reader=readers.tags, encode=readers.joined))
#: What selects stacks in a listing (and in its count).
STACK_SELECTION = (FILTERS, in_query("show_deleted"), in_query("show_nested"),
                   in_query("show_hidden"), in_query("tags"), in_query("tags_any"),
                   in_query("not_tags"), in_query("not_tags_any"), in_query("global_tenant"))
LIST_POLICY = Policy(admin_flags={
    "global_tenant": "list the stacks of every project (global_tenant)"})
PAGING = (in_query("limit"), in_query("marker"), in_query("sort_keys"), in_query("sort_dir"))

_UPDATE_ARGS = (STACK, *_stack_request(readers.update_template),
                in_body("existing", reader=readers.existing),
                in_body("clear_parameters", reader=readers.clear_parameters), *ACTION_OPTIONS)
_PATCH_ARGS = (STACK, *_stack_request(readers.patch_template),
               in_body("clear_parameters", reader=readers.clear_parameters), *ACTION_OPTIONS)
SNAPSHOT = f"{STACK_PATH}/snapshots/{{snapshot_id}}"
_EVENT_QUERY = (FILTERS, in_query("limit"), in_query("marker"), in_query("sort_keys"),
                in_query("sort_dir", reader=readers.event_sort_dir), in_query("nested_depth"))
JOBS_PATH = f"{T}/jobs"
AGENT_FIELDS = ("id", "grains", "connected", "last_seen")
AGENT_PATH = f"{T}/agents/{{agent_id}}"
KEYS_PATH = f"{T}/keys"
#: The glob of agent ids a key operation acts on (salt-key's match).
KEY_MATCH = in_body("match", required=True)


def lookup_of(operation: Operation[Any, Any]) -> Operation[Any, Any]:
    """Return the operation answering 302 for ``operation`` when the stack is named alone.

    ``/stacks/{name_or_id}[/sub/path]`` -> the canonical URL, any method
    (heatclient sends the same request there again).
    """
    return engine_op(
        lambda service: service.identify_stack, operation.method,
        operation.path.replace("/{stack_id}", "", 1),
        f"Find the stack, then: {operation.summary.lower()}", answers.Found(),
        args=(in_path("stack_identity", "stack_name"),), query=params.ANY)


class Operations:
    """The table: every operation of the API, named after the service method serving it.

    Read from this class, an attribute is the :class:`Operation`
    (``Operations.show_stack.path``); read from an instance of a subclass
    that calls operations (a :class:`~hearth.api.operation.Calls`), it is
    a method (``backend.show_stack(identity)``).
    """

    # --- stacks -------------------------------------------------------------------------
    list_stacks = engine_op(
        lambda service: service.list_stacks, "GET", STACKS, "List stacks",
        answers.StackListing(), args=(FILTERS, *PAGING, *STACK_SELECTION[1:]),
        query=params.STACK_LIST, policy=LIST_POLICY,
        provides=_first("stacks", stack_name="stack_name", stack_id="id"))
    list_stack_details = engine_op(
        lambda service: service.list_stacks, "GET", f"{STACKS}/detail", "List stacks in full",
        answers.StackDetails(), args=STACK_SELECTION, query=params.STACK_LIST, policy=LIST_POLICY,
        provides=_first("stacks", stack_name="stack_name", stack_id="id"))
    create_stack = engine_op(
        lambda service: service.create_stack, "POST", STACKS, "Create a stack",
        answers.Created(), args=(STACK_NAME, *_stack_request(readers.template), *ACTION_OPTIONS),
        body="StackCreate", policy=Policy(checks=(readers.check_stack_quota,)),
        provides={"stack_name": "$request.body#/stack_name",
                  "stack_id": "$response.body#/stack/id"})
    adopt_stack = engine_op(
        lambda service: service.adopt_stack, "POST", STACKS, "Adopt a stack",
        answers.Created(),
        args=(STACK_NAME, in_body("adopt_data", "adopt_stack_data", reader=readers.adopt_data),
              *_stack_request(None)[1:], *ACTION_OPTIONS),
        body="StackCreate", policy=Policy(checks=(readers.check_stack_quota,)),
        applies=readers.adopting)
    preview_stack = engine_op(
        lambda service: service.preview_stack, "POST", f"{STACKS}/preview", "Preview a stack",
        wrapped("stack", "StackPreview", linked="stack"),
        args=(STACK_NAME, *_stack_request(readers.template), *ACTION_OPTIONS),
        body="StackCreate")
    show_stack = engine_op(
        lambda service: service.show_stack, "GET", STACK_PATH, "Show a stack",
        wrapped("stack", "Stack", linked="stack"), args=(STACK, in_query("resolve_outputs")),
        query=params.STACK_SHOW)
    update_stack = engine_op(
        lambda service: service.update_stack, "PUT", STACK_PATH,
        "Update a stack (replace template)", answers.UpdateAccepted(), args=_UPDATE_ARGS,
        body="StackUpdate", policy=Policy(checks=(readers.refuse_adopt,)))
    update_stack_patch = engine_op(
        lambda service: service.update_stack, "PATCH", STACK_PATH,
        "Update a stack (keep what is not given)", answers.UpdateAccepted(), args=_PATCH_ARGS,
        fixed={"existing": True}, body="StackPatch", policy=Policy(checks=(readers.refuse_adopt,)))
    delete_stack = engine_op(
        lambda service: service.delete_stack, "DELETE", STACK_PATH, "Delete a stack",
        answers.NoContent(), args=(STACK,))
    preview_update_stack = engine_op(
        lambda service: service.preview_update_stack, "PUT", f"{STACK_PATH}/preview",
        "Preview an update", answers.Plain("UpdatePreview"),
        args=(*_UPDATE_ARGS, in_query("show_nested")), query=params.SHOW_NESTED,
        body="StackUpdate", policy=Policy(checks=(readers.refuse_adopt,)))
    preview_update_stack_patch = engine_op(
        lambda service: service.preview_update_stack, "PATCH", f"{STACK_PATH}/preview",
        "Preview a PATCH update", answers.Plain("UpdatePreview"),
        args=(*_PATCH_ARGS, in_query("show_nested")), fixed={"existing": True},
        query=params.SHOW_NESTED, body="StackPatch", policy=Policy(checks=(readers.refuse_adopt,)))
    abandon_stack = engine_op(
        lambda service: service.abandon_stack, "DELETE", f"{STACK_PATH}/abandon",
        "Abandon a stack (keep resources)", answers.Plain("StackData"), args=(STACK,))
    export_stack = engine_op(
        lambda service: service.export_stack, "GET", f"{STACK_PATH}/export",
        "Export a stack's data", answers.Plain("StackData"), args=(STACK,))
    stack_action = engine_op(
        lambda service: service.stack_action, "POST", f"{STACK_PATH}/actions",
        "Suspend, resume, check or cancel a stack", answers.Null(),
        args=(STACK, whole_body("action", decode=readers.action_name,
                                encode=readers.action_body)), body="StackAction")
    stack_graph = engine_op(
        lambda service: service.stack_graph, "GET", f"{STACK_PATH}/graph",
        "Draw a stack's dependency graph (SVG, DOT or JSON)", answers.GraphPicture(),
        args=(STACK,), query=params.STACK_GRAPH)

    # --- what a stack holds: template, environment, files, outputs, snapshots --------------
    get_template = engine_op(
        lambda service: service.get_template, "GET", f"{STACK_PATH}/template",
        "Show a stack's template", answers.Plain("Map"), args=(STACK,))
    get_environment = engine_op(
        lambda service: service.get_environment, "GET", f"{STACK_PATH}/environment",
        "Show a stack's environment", answers.Plain("Map"), args=(STACK,))
    get_files = engine_op(
        lambda service: service.get_files, "GET", f"{STACK_PATH}/files",
        "Show a stack's files", answers.Plain("Files"), args=(STACK,))
    list_outputs = engine_op(
        lambda service: service.list_outputs, "GET", f"{STACK_PATH}/outputs",
        "List a stack's outputs", wrapped("outputs", "OutputList"), args=(STACK,),
        provides=_first("outputs", output_key="output_key"))
    show_output = engine_op(
        lambda service: service.show_output, "GET", f"{STACK_PATH}/outputs/{{output_key}}",
        "Show an output with its value", wrapped("output", "Output"),
        args=(STACK, in_path("key", "output_key")))
    stack_snapshot = engine_op(
        lambda service: service.stack_snapshot, "POST", f"{STACK_PATH}/snapshots",
        "Snapshot a stack", answers.Plain("Snapshot"),
        args=(STACK, in_body("name", reader=readers.snapshot_name)), body="SnapshotCreate",
        provides={"snapshot_id": "$response.body#/id"})
    list_snapshots = engine_op(
        lambda service: service.list_snapshots, "GET", f"{STACK_PATH}/snapshots",
        "List a stack's snapshots", wrapped("snapshots", "SnapshotList"), args=(STACK,),
        provides=_first("snapshots", snapshot_id="id"))
    show_snapshot = engine_op(
        lambda service: service.show_snapshot, "GET", SNAPSHOT, "Show a snapshot",
        wrapped("snapshot", "SnapshotShow"), args=(STACK, in_path("snapshot_id")))
    delete_snapshot = engine_op(
        lambda service: service.delete_snapshot, "DELETE", SNAPSHOT, "Delete a snapshot",
        answers.NoContent(), args=(STACK, in_path("snapshot_id")))
    stack_restore = engine_op(
        lambda service: service.stack_restore, "POST", f"{SNAPSHOT}/restore",
        "Restore a stack to a snapshot", answers.Accepted(), args=(STACK, in_path("snapshot_id")))

    # --- resources and events -------------------------------------------------------------
    list_resources = engine_op(
        lambda service: service.list_resources, "GET", f"{STACK_PATH}/resources",
        "List a stack's resources", wrapped("resources", "ResourceList", linked="resource"),
        args=(STACK, in_query("nested_depth"), in_query("with_detail"), FILTERS),
        query=params.RESOURCE_LIST, provides=_first("resources", resource_name="resource_name"))
    show_resource = engine_op(
        lambda service: service.show_resource, "GET", RESOURCE, "Show a resource",
        wrapped("resource", "Resource", linked="resource"),
        args=(STACK, RESOURCE_NAME, in_query("with_attr")), query=params.RESOURCE_SHOW)
    resource_mark_unhealthy = engine_op(
        lambda service: service.resource_mark_unhealthy, "PATCH", RESOURCE,
        "Mark a resource unhealthy (or healthy)", answers.Null(),
        args=(STACK, RESOURCE_NAME, in_body("mark_unhealthy", reader=readers.mark_unhealthy),
              in_body("reason", "resource_status_reason")), body="MarkUnhealthy")
    resource_metadata = engine_op(
        lambda service: service.resource_metadata, "GET", f"{RESOURCE}/metadata",
        "Show a resource's metadata", wrapped("metadata", "Metadata"), args=(STACK, RESOURCE_NAME))
    resource_signal = engine_op(
        lambda service: service.resource_signal, "POST", f"{RESOURCE}/signal",
        "Signal a resource", answers.Null(), args=(STACK, RESOURCE_NAME, whole_body("details")),
        body="Signal", policy=Policy(signal_token=True))
    list_resource_events = engine_op(
        lambda service: service.list_events, "GET", f"{RESOURCE}/events",
        "List a resource's events", wrapped("events", "EventList", linked="event"),
        args=(STACK, RESOURCE_NAME, *_EVENT_QUERY), query=params.EVENT_LIST,
        provides=_first("events", event_id="id"))
    show_event = engine_op(
        lambda service: service.show_event, "GET", f"{RESOURCE}/events/{{event_id}}",
        "Show an event", wrapped("event", "Event", linked="event"),
        args=(STACK, RESOURCE_NAME, in_path("event_id")))
    list_events = engine_op(
        lambda service: service.list_events, "GET", f"{STACK_PATH}/events",
        "List a stack's events", wrapped("events", "EventList", linked="event"),
        args=(STACK, *_EVENT_QUERY), query=params.EVENT_LIST,
        provides=_first("events", event_id="id", resource_name="resource_name"))

    # --- templates, resource types, the service -------------------------------------------------
    validate_template = catalog_op(
        lambda catalog: catalog.validate_template, "POST", f"{T}/validate", "Validate a template",
        answers.Plain("Validation"),
        args=(*_stack_request(readers.template), in_query("show_nested"),
              in_query("ignore_errors")), query=params.VALIDATE, body="Validate")
    template_graph = catalog_op(
        lambda catalog: catalog.template_graph, "POST", f"{T}/template_graph",
        "Draw a template's dependency graph, validated as a create would (SVG, DOT or JSON)",
        answers.GraphPicture(),
        args=(*_stack_request(readers.template), in_query("name")),
        query=params.TEMPLATE_GRAPH, body="Validate")
    list_template_versions = catalog_op(
        lambda catalog: catalog.list_template_versions, "GET", f"{T}/template_versions",
        "List template versions", wrapped("template_versions", "TemplateVersions"),
        provides=_first("template_versions", template_version="version"))
    list_template_functions = catalog_op(
        lambda catalog: catalog.list_template_functions, "GET",
        f"{T}/template_versions/{{template_version}}/functions",
        "List a template version's functions", wrapped("template_functions", "TemplateFunctions"),
        args=(in_path("version", "template_version"), in_query("with_condition_func")),
        query=params.TEMPLATE_FUNCTIONS)
    list_resource_types = catalog_op(
        lambda catalog: catalog.list_resource_types, "GET", f"{T}/resource_types",
        "List resource types", wrapped("resource_types", "ResourceTypes"),
        args=(in_query("type_name", "name"), in_query("support_status"), in_query("version"),
              in_query("with_description")), query=params.RESOURCE_TYPE_LIST,
        provides={"type_name": "$response.body#/resource_types/0"})
    resource_schema = catalog_op(
        lambda catalog: catalog.resource_schema, "GET", f"{T}/resource_types/{{type_name}}",
        "Show a resource type's schema", answers.Plain("ResourceTypeSchema"),
        args=(in_path("type_name"), in_query("with_description")), query=params.RESOURCE_TYPE_SHOW)
    generate_template = catalog_op(
        lambda catalog: catalog.generate_template, "GET",
        f"{T}/resource_types/{{type_name}}/template", "Generate a template for a resource type",
        answers.Plain("Map"), args=(in_path("type_name"), in_query("template_type")),
        query=params.TYPE_TEMPLATE)
    list_resource_type_failures = catalog_op(
        lambda catalog: catalog.list_resource_type_failures, "GET", f"{T}/resource_type_failures",
        "List the plug-ins that failed to load (the local engine's)", wrapped("failures", None),
        policy=Policy(local_only="Listing the plug-ins that failed to load (--all)"))
    list_services = engine_op(
        lambda service: service.list_services, "GET", f"{T}/services", "List engines",
        wrapped("services", "Services"))
    versions: Operation[[], None] = Operation(
        "", "GET", "/", "List API versions", answers.Versions(),
        policy=Policy(authenticated=False))
    openapi: Operation[[], None] = Operation(
        "", "GET", "/v1/openapi.json", "This OpenAPI document", answers.OpenApiDocument(),
        policy=Policy(authenticated=False))
    build_info: Operation[[], None] = Operation(
        "", "GET", f"{T}/build_info", "Show build information", answers.BuildInfo())

    # --- jobs on agents (hearth-master behind the API) -------------------------------------
    list_jobs = job_op(
        lambda jobs: jobs.list_jobs, "GET", JOBS_PATH,
        "List the project's jobs (hearth-master's job cache)", wrapped("jobs", "JobList"),
        args=(in_query("limit"),), query=params.QuerySpec({"limit": params.LIMIT}),
        provides=_first("jobs", jid="jid"))
    run = job_op(
        lambda jobs: jobs.run, "POST", JOBS_PATH,
        "Run an execution function on agents (async: 202 with the job id)", answers.JobAnswer(),
        args=(whole_body("request", decode=readers.job_request, encode=readers.job_body),),
        body="JobRun", provides={"jid": "$response.body#/job/jid"})
    publish = job_op(
        lambda jobs: jobs.publish, "POST", JOBS_PATH, "Publish a job (202 with its id)",
        answers.Published(),
        args=(whole_body("request", decode=readers.job_request, encode=readers.publish_body),),
        body="JobRun", applies=readers.publishing)
    show_job = job_op(
        lambda jobs: jobs.show_job, "GET", f"{JOBS_PATH}/{{jid}}",
        "Show a job: each agent's return and the missing ones", wrapped("job", "Job"),
        args=(in_path("jid"),))
    list_agents = job_op(
        lambda jobs: jobs.list_agents, "GET", f"{T}/agents",
        "List the agents the project may target, with grains and last seen",
        wrapped("agents", "AgentList",
                shown=lambda agent: {key: agent[key] for key in AGENT_FIELDS}),
        args=(from_context("admin", lambda ctx: ctx.is_admin),),
        provides=_first("agents", agent_id="id"))

    # --- agent keys (salt-key) and pillar, through hearth-master ---------------------------
    list_keys = job_op(
        lambda jobs: jobs.keys.list_keys, "GET", KEYS_PATH,
        "List the agent keys by Salt's category (salt-key -L)", wrapped("keys", "KeyListing"))
    accept_keys = job_op(
        lambda jobs: jobs.keys.accept_keys, "POST", f"{KEYS_PATH}/accept",
        "Accept the pending keys a glob matches (salt-key -a)", wrapped("keys", "KeyIds"),
        args=(KEY_MATCH, in_body("include_rejected"), in_body("grains")), body="KeyAccept")
    reject_keys = job_op(
        lambda jobs: jobs.keys.reject_keys, "POST", f"{KEYS_PATH}/reject",
        "Reject the keys a glob matches; their agents are cut off (salt-key -r)",
        wrapped("keys", "KeyIds"), args=(KEY_MATCH,), body="KeyMatch")
    delete_keys = job_op(
        lambda jobs: jobs.keys.delete_keys, "POST", f"{KEYS_PATH}/delete",
        "Delete the keys a glob matches; their agents are cut off (salt-key -d)",
        wrapped("keys", "KeyIds"), args=(KEY_MATCH,), body="KeyMatch")
    key_fingers = job_op(
        lambda jobs: jobs.keys.key_fingers, "GET", f"{KEYS_PATH}/fingerprints",
        "Show the fingerprints of agent keys (salt-key -F, -f)",
        wrapped("fingerprints", "KeyFingerprints"), args=(in_query("match"),),
        query=params.QuerySpec({"match": params.Param(
            params.Kind.STR, "A glob of agent ids (default: every key, and the master's).")}))
    master_finger = job_op(
        lambda jobs: jobs.keys.master_finger, "GET", f"{KEYS_PATH}/master",
        "Show the master's public key and its fingerprint (for [agent] master_finger)",
        answers.Plain("MasterFinger"))
    agent_pillar = job_op(
        lambda jobs: jobs.pillar.agent_pillar, "GET", f"{AGENT_PATH}/pillar",
        "Show an agent's compiled pillar (secret: the values are not masked)",
        wrapped("pillar", "Pillar"), args=(in_path("agent_id"),))
    pillar_top = job_op(
        lambda jobs: jobs.pillar.pillar_top, "GET", f"{AGENT_PATH}/pillar/top",
        "Show which pillar top-file targets select an agent, and their SLS files",
        wrapped("top", "PillarTop"), args=(in_path("agent_id"),))

    #: A stack's identity (``{"stack_name", "id"}``) from its name or id.
    identify_stack = lookup_of(show_stack)


#: Every operation, in the table's order.
OPERATIONS: tuple[Operation[Any, Any], ...] = collect(Operations)

"""Build the WSGI application: the routes table, middleware and error handling.

:data:`ROUTES` is the whole API surface as data (paths, methods, handlers,
query specs, body schemas, statuses); lookup routes (stack by name or id
alone, answering 302) are derived from the canonical stack routes, and the
OpenAPI document is built from the same table.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import falcon

from hearth.api import (
    actions,
    auth,
    events,
    faults,
    graphs,
    jobs,
    lookup,
    outputs,
    params,
    resource_types,
    resources,
    services,
    snapshots,
    stack_data,
    stacks,
    templates,
)
from hearth.api.routing import JSON_TYPE, Operation, Route, RouteResource
from hearth.api.schemas import REQUESTS

Op = Operation
T = "/v1/{tenant_id}"
STACK = lookup.CANONICAL_PREFIX
RESOURCE = f"{STACK}/resources/{{resource_name}}"
ANY_BODY: dict[str, Any] = {}

def _first(items: str, **fields: str) -> dict[str, str]:
    """Return ``provides`` naming fields of the first item of the answer's list ``items``."""
    return {parameter: f"$response.body#/{items}/0/{field}"
            for parameter, field in fields.items()}


CANONICAL_STACK_ROUTES: tuple[Route, ...] = (
    Route(STACK, (
        Op("GET", stacks.show, "Show a stack", params.STACK_SHOW, response="Stack"),
        Op("PUT", stacks.update, "Update a stack (replace template)", body=REQUESTS["StackUpdate"],
           status=202, response="Accepted"),
        Op("PATCH", stacks.update_patch, "Update a stack (keep what is not given)",
           body=REQUESTS["StackPatch"], status=202, response="Accepted"),
        Op("DELETE", stacks.delete, "Delete a stack", status=204),
    )),
    Route(f"{STACK}/preview", (
        Op("PUT", stacks.preview_update, "Preview an update", params.SHOW_NESTED,
           body=REQUESTS["StackUpdate"], response="UpdatePreview"),
        Op("PATCH", stacks.preview_update_patch, "Preview a PATCH update", params.SHOW_NESTED,
           body=REQUESTS["StackPatch"], response="UpdatePreview"),
    )),
    Route(f"{STACK}/abandon", (
        Op("DELETE", stack_data.abandon, "Abandon a stack (keep resources)",
           response="StackData"),)),
    Route(f"{STACK}/export", (
        Op("GET", stack_data.export, "Export a stack's data", response="StackData"),)),
    Route(f"{STACK}/snapshots", (
        Op("POST", snapshots.create, "Snapshot a stack", body=REQUESTS["SnapshotCreate"],
           response="Snapshot", provides={"snapshot_id": "$response.body#/id"}),
        Op("GET", snapshots.index, "List a stack's snapshots", response="SnapshotList",
           provides=_first("snapshots", snapshot_id="id")),
    )),
    Route(f"{STACK}/snapshots/{{snapshot_id}}", (
        Op("GET", snapshots.show, "Show a snapshot", response="SnapshotShow"),
        Op("DELETE", snapshots.delete, "Delete a snapshot", status=204),
    )),
    Route(f"{STACK}/snapshots/{{snapshot_id}}/restore", (
        Op("POST", snapshots.restore, "Restore a stack to a snapshot", status=202,
           response="Accepted"),)),
    Route(f"{STACK}/template", (
        Op("GET", stack_data.template, "Show a stack's template", response="Map"),)),
    Route(f"{STACK}/environment", (
        Op("GET", stack_data.environment, "Show a stack's environment", response="Map"),)),
    Route(f"{STACK}/files", (
        Op("GET", stack_data.files, "Show a stack's files", response="Files"),)),
    Route(f"{STACK}/graph", (
        Op("GET", graphs.show, "Draw a stack's dependency graph (SVG, DOT or JSON)",
           params.STACK_GRAPH, response="StackGraph",
           media_types=(graphs.SVG_MEDIA_TYPE, graphs.DOT_MEDIA_TYPE)),)),
    Route(f"{STACK}/actions", (
        Op("POST", actions.perform, "Suspend, resume, check or cancel a stack",
           body=REQUESTS["StackAction"], response="Null"),)),
    Route(f"{STACK}/outputs", (
        Op("GET", outputs.index, "List a stack's outputs", response="OutputList",
           provides=_first("outputs", output_key="output_key")),)),
    Route(f"{STACK}/outputs/{{output_key}}", (
        Op("GET", outputs.show, "Show an output with its value", response="Output"),)),
    Route(f"{STACK}/resources", (
        Op("GET", resources.index, "List a stack's resources", params.RESOURCE_LIST,
           response="ResourceList", provides=_first("resources", resource_name="resource_name")),
    )),
    Route(RESOURCE, (
        Op("GET", resources.show, "Show a resource", params.RESOURCE_SHOW, response="Resource"),
        Op("PATCH", resources.mark_unhealthy, "Mark a resource unhealthy (or healthy)",
           body=REQUESTS["MarkUnhealthy"], response="Null"),
    )),
    Route(f"{RESOURCE}/metadata", (
        Op("GET", resources.metadata, "Show a resource's metadata", response="Metadata"),)),
    Route(f"{RESOURCE}/signal", (
        Op("POST", resources.signal, "Signal a resource", body=REQUESTS["Signal"],
           response="Null", signal_token=True),)),
    Route(f"{RESOURCE}/events", (
        Op("GET", events.index, "List a resource's events", params.EVENT_LIST,
           response="EventList", provides=_first("events", event_id="id")),)),
    Route(f"{RESOURCE}/events/{{event_id}}", (
        Op("GET", events.show, "Show an event", response="Event"),)),
    Route(f"{STACK}/events", (
        Op("GET", events.index, "List a stack's events", params.EVENT_LIST,
           response="EventList",
           provides=_first("events", event_id="id", resource_name="resource_name")),)),
)


def _lookup_route(route: Route) -> Route:
    """Return the route answering 302 for ``route`` when the stack is named alone."""
    return Route(lookup.lookup_path(route.path), tuple(
        Op(op.method, lookup.redirect, f"Find the stack, then: {op.summary.lower()}",
           params.ANY, status=302, response="Redirect") for op in route.operations))


OTHER_ROUTES: tuple[Route, ...] = (
    Route("/", (Op("GET", services.versions, "List API versions", status=300,
                   response="Versions", authenticated=False),)),
    Route("/v1/openapi.json", (Op("GET", services.openapi, "This OpenAPI document",
                                  response="OpenAPI", authenticated=False),)),
    Route(f"{T}/stacks", (
        Op("GET", stacks.index, "List stacks", params.STACK_LIST, response="StackList",
           provides=_first("stacks", stack_name="stack_name", stack_id="id")),
        Op("POST", stacks.create, "Create a stack", body=REQUESTS["StackCreate"], status=201,
           response="StackCreated", provides={"stack_name": "$request.body#/stack_name",
                                              "stack_id": "$response.body#/stack/id"}),
    )),
    Route(f"{T}/stacks/preview", (
        Op("POST", stacks.preview, "Preview a stack", body=REQUESTS["StackCreate"],
           response="StackPreview"),)),
    Route(f"{T}/stacks/detail", (
        Op("GET", stacks.detail, "List stacks in full", params.STACK_LIST,
           response="StackDetailList",
           provides=_first("stacks", stack_name="stack_name", stack_id="id")),)),
    Route(f"{T}/validate", (
        Op("POST", templates.validate, "Validate a template", params.VALIDATE,
           body=REQUESTS["Validate"], response="Validation"),)),
    Route(f"{T}/template_versions", (
        Op("GET", templates.versions, "List template versions", response="TemplateVersions",
           provides=_first("template_versions", template_version="version")),)),
    Route(f"{T}/template_versions/{{template_version}}/functions", (
        Op("GET", templates.functions, "List a template version's functions",
           params.TEMPLATE_FUNCTIONS, response="TemplateFunctions"),)),
    Route(f"{T}/resource_types", (
        Op("GET", resource_types.index, "List resource types", params.RESOURCE_TYPE_LIST,
           response="ResourceTypes", provides={"type_name": "$response.body#/resource_types/0"}),
    )),
    Route(f"{T}/resource_types/{{type_name}}", (
        Op("GET", resource_types.show, "Show a resource type's schema",
           params.RESOURCE_TYPE_SHOW, response="ResourceTypeSchema"),)),
    Route(f"{T}/resource_types/{{type_name}}/template", (
        Op("GET", resource_types.template, "Generate a template for a resource type",
           params.TYPE_TEMPLATE, response="Map"),)),
    Route(f"{T}/build_info", (
        Op("GET", services.build_info, "Show build information", response="BuildInfo"),)),
    Route(f"{T}/services", (
        Op("GET", services.index, "List engines", response="Services"),)),
    Route(f"{T}/jobs", (
        Op("GET", jobs.index, "List the project's jobs (hearth-master's job cache)",
           {"limit": params.LIMIT}, response="JobList", provides=_first("jobs", jid="jid")),
        Op("POST", jobs.create, "Run an execution function on agents (async: 202 with the "
           "job id)", body=REQUESTS["JobRun"], response="Job",
           provides={"jid": "$response.body#/job/jid"}),
    )),
    Route(f"{T}/jobs/{{jid}}", (
        Op("GET", jobs.show, "Show a job: each agent's return and the missing ones",
           response="Job"),)),
    Route(f"{T}/agents", (
        Op("GET", jobs.agents, "List the agents the project may target, with grains and last seen",
           response="AgentList"),)),
)

ROUTES: tuple[Route, ...] = (
    *OTHER_ROUTES,
    *CANONICAL_STACK_ROUTES,
    *(_lookup_route(route) for route in CANONICAL_STACK_ROUTES),
)


def _handle_error(req: falcon.Request, resp: falcon.Response, error: BaseException,
                  params_: dict[str, Any]) -> None:
    """Render any exception as Heat's error body with the status of the faults table."""
    status, body = faults.fault_for(error)
    _write_error(resp, status, body)
    location = faults.location_of(error)
    if location is not None:
        resp.set_header(faults.LOCATION_HEADER, location)


def _handle_http_error(req: falcon.Request, resp: falcon.Response, error: falcon.HTTPError,
                       params_: dict[str, Any]) -> None:
    """Render Falcon's own errors (unknown URL, 405) as Heat's error body."""
    status = error.status_code
    name = {404: "NotFound", 405: "MethodNotAllowed"}.get(status, type(error).__name__)
    message = error.description or error.title or faults.TITLES.get(status, ("",))[0]
    if status == 404 and not error.description:
        message = f"The resource could not be found: {req.path}"
    if status == 405 and not error.description:
        message = f"The method {req.method} is not allowed for this resource."
    _write_error(resp, status, faults.error_body(status, name, message))
    for header, value in (error.headers or {}).items():
        resp.set_header(header, value)


def _write_error(resp: falcon.Response, status: int, body: dict[str, Any]) -> None:
    resp.status = status
    resp.content_type = JSON_TYPE
    resp.text = json.dumps(body)


def build_app(service: Any, verify: auth.Verifier | None = None,
              noauth: bool = False) -> falcon.App:
    """Return the WSGI application serving :data:`ROUTES` with ``service`` (an EngineService)."""
    authentication = auth.AuthMiddleware(verify, noauth=noauth)
    app = falcon.App(middleware=[authentication])
    app.req_options.keep_blank_qs_values = True
    app.req_options.strip_url_path_trailing_slash = True
    for route in ROUTES:
        app.add_route(route.path, RouteResource(route, service))
    app.add_sink(functools.partial(lookup.arn_redirect,
                                   authenticate=authentication.authenticate),
                 lookup.ARN_SINK_PREFIX)
    app.add_error_handler(Exception, _handle_error)
    app.add_error_handler(falcon.HTTPError, _handle_http_error)
    return app

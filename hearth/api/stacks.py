"""Stack handlers: create, preview, list, show, update, update preview, delete.

Each handler turns the parsed request into one EngineService call and the
answer into Heat's envelope with links.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from typing import Any

from hearth.api import auth, limits, links, params
from hearth.api.routing import ApiRequest, Reply
from hearth.common import exception

ACCEPTED = {"code": "202 Accepted", "title": "Accepted",
            "message": "The request is accepted for processing."}


def _tags(value: Any) -> list[str] | None:
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else value
    return [item.strip() for item in items if item.strip()]


def _timeout(value: Any) -> int | None:
    """Return the timeout in minutes; 0 (or null) is none, as in Heat (the schema checked it)."""
    if value is None:
        return None
    return params.check_integer_range("timeout_mins", int(value)) or None


def stack_fields(body: Mapping[str, Any], template_required: bool) -> dict[str, Any]:
    """Return the EngineService keyword arguments common to create, update and validate.

    As Heat's API: with ``environment_files`` the ``environment`` is not
    read (heatclient sends both, the environment being the files' merge).
    """
    environment_files = body.get("environment_files")
    return {
        "template": limits.template_from_body(body, required=template_required),
        "params": body.get("parameters"),
        "files": body.get("files"),
        "environment": None if environment_files else body.get("environment"),
        "environment_files": environment_files,
    }


def _action_fields(body: Mapping[str, Any]) -> dict[str, Any]:
    return {"disable_rollback": params.body_bool("disable_rollback", body.get("disable_rollback")),
            "timeout_mins": _timeout(body.get("timeout_mins")),
            "tags": _tags(body.get("tags"))}


def _refuse_adopt(body: Mapping[str, Any]) -> None:
    if body.get("adopt_stack_data") is not None:
        raise exception.NotSupported(feature="Stack Adopt")


def check_stack_quota(request: ApiRequest) -> None:
    """Raise RequestLimitExceeded when the project owns ``max_stacks_per_tenant`` stacks."""
    from hearth.engine.limits import check_stack_quota as check
    check(request.service.count_stacks(request.ctx))


def adopt_data(body: Mapping[str, Any]) -> dict[str, Any]:
    """Return the request's ``adopt_stack_data`` as a map (JSON or YAML text, or a map).

    Refused as Heat: "Invalid adopt data" when it is no map with a
    ``template`` (the engine refuses adopt unless ``enable_stack_adopt``).
    """
    data = body["adopt_stack_data"]
    if isinstance(data, str):
        from hearth.engine.template.parser import parse
        try:
            data = parse(data, None)
        except exception.HearthException as error:
            text = getattr(error, "error_message", None) or str(error)
            raise exception.BadRequest(message=f"Invalid adopt data: {text}") from None
    if not isinstance(data, Mapping) or "template" not in data:
        raise exception.BadRequest(message="Invalid adopt data: 'template'")
    return dict(data)


def create(request: ApiRequest) -> Reply:
    """POST /stacks: create (or adopt) a stack; 201 with its link and Location."""
    body = request.body
    check_stack_quota(request)
    adopting = body.get("adopt_stack_data") is not None
    fields = {**stack_fields(body, template_required=not adopting), **_action_fields(body)}
    if fields["disable_rollback"] is None:
        fields["disable_rollback"] = True
    if adopting:
        fields.pop("template")
        result = request.service.adopt_stack(request.ctx, body["stack_name"],
                                             adopt_data(body), **fields)
    else:
        result = request.service.create_stack(request.ctx, body["stack_name"], **fields)
    stack = links.with_stack_links(request.base, {"stack_name": body["stack_name"], **result})
    location = stack["links"][0]["href"]
    return Reply(body={"stack": {"id": stack["id"], "links": stack["links"]}}, status=201,
                 headers={"Location": location})


def preview(request: ApiRequest) -> dict[str, Any]:
    """POST /stacks/preview: what create would make, without making it."""
    body = request.body
    fields = {**stack_fields(body, template_required=True), **_action_fields(body)}
    fields = {key: value for key, value in fields.items() if value is not None}
    previewed = request.service.preview_stack(request.ctx, body["stack_name"], **fields)
    return {"stack": links.with_stack_links(request.base, previewed)}


def _list_arguments(request: ApiRequest) -> dict[str, Any]:
    query = request.query
    if query.get("global_tenant"):
        auth.require_admin(request.ctx, "list the stacks of every project (global_tenant)")
    arguments = {key: query[key] for key in (
        "show_deleted", "show_nested", "show_hidden", "tags", "tags_any", "not_tags",
        "not_tags_any", "global_tenant") if key in query}
    filters = params.split_filters(query, params.STACK_LIST)
    return {"filters": filters or None, **arguments}


def _listed(request: ApiRequest, stack: dict[str, Any]) -> dict[str, Any]:
    """Return a stack-list item: its links, and its ``project`` for an admin (as Heat)."""
    item = links.with_stack_links(request.base, stack)
    if request.ctx.is_admin:
        item = {"id": item["id"], "links": item["links"],
                "project": stack["stack_user_project_id"], **item}
    return item


def index(request: ApiRequest) -> dict[str, Any]:
    """GET /stacks: stack summaries, with a next link when a page is full."""
    query = request.query
    arguments = _list_arguments(request)
    stacks = request.service.list_stacks(
        request.ctx, limit=query.get("limit"), marker=query.get("marker"),
        sort_keys=query.get("sort_keys"), sort_dir=query.get("sort_dir"), **arguments)
    result: dict[str, Any] = {"stacks": [_listed(request, s) for s in stacks]}
    limit = query.get("limit")
    if limit and len(stacks) >= limit:
        pairs = urllib.parse.parse_qsl(request.raw.query_string, keep_blank_values=True)
        result["links"] = [{"rel": "next", "href": links.next_page(
            f"{request.base}/stacks", pairs, stacks[-1]["id"])}]
    if query.get("with_count"):
        result["count"] = request.service.count_stacks(request.ctx, **arguments)
    return result


def detail(request: ApiRequest) -> dict[str, Any]:
    """GET /stacks/detail: full stack objects (outputs not resolved)."""
    arguments = _list_arguments(request)
    stacks = request.service.list_stacks(request.ctx, **arguments)
    shown = [request.service.show_stack(request.ctx, f"{s['stack_name']}/{s['id']}",
                                        resolve_outputs=False) for s in stacks]
    return {"stacks": [links.with_stack_links(request.base, s) for s in shown]}


def show(request: ApiRequest) -> dict[str, Any]:
    """GET /stacks/{name}/{id}: the stack, outputs resolved unless told not to."""
    stack = request.service.show_stack(request.ctx, request.stack_identity,
                                       resolve_outputs=request.query.get("resolve_outputs", True))
    return {"stack": links.with_stack_links(request.base, stack)}


def _update_arguments(request: ApiRequest, existing: bool) -> dict[str, Any]:
    body = request.body
    _refuse_adopt(body)
    existing = existing or bool(params.body_bool("existing", body.get("existing")))
    clear = body.get("clear_parameters")
    return {**stack_fields(body, template_required=not existing), **_action_fields(body),
            "existing": existing,
            "clear_parameters": [clear] if isinstance(clear, str) else clear}


def update(request: ApiRequest) -> Reply:
    """PUT /stacks/{name}/{id}: replace the template; 202."""
    request.service.update_stack(request.ctx, request.stack_identity,
                                 **_update_arguments(request, existing=False))
    return Reply(body=ACCEPTED, status=202)


def update_patch(request: ApiRequest) -> Reply:
    """PATCH /stacks/{name}/{id}: update keeping what is not given; 202."""
    request.service.update_stack(request.ctx, request.stack_identity,
                                 **_update_arguments(request, existing=True))
    return Reply(body=ACCEPTED, status=202)


def _preview_update(request: ApiRequest, existing: bool) -> dict[str, Any]:
    arguments = _update_arguments(request, existing=existing)
    if request.query.get("show_nested"):
        arguments["show_nested"] = True
    arguments = {key: value for key, value in arguments.items() if value is not None}
    return request.service.preview_update_stack(request.ctx, request.stack_identity,
                                                **arguments)


def preview_update(request: ApiRequest) -> dict[str, Any]:
    """PUT /stacks/{name}/{id}/preview: the changes an update would make."""
    return _preview_update(request, existing=False)


def preview_update_patch(request: ApiRequest) -> dict[str, Any]:
    """PATCH /stacks/{name}/{id}/preview: the changes a PATCH update would make."""
    return _preview_update(request, existing=True)


def delete(request: ApiRequest) -> Reply:
    """DELETE /stacks/{name}/{id}: start the delete; 204."""
    request.service.delete_stack(request.ctx, request.stack_identity)
    return Reply(status=204, empty=True)

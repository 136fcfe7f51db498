"""How the server reads the body arguments Heat reads in its own way, and the checks before.

The table (:mod:`hearth.api.operations`) names these functions in its
arguments (``in_body("timeout_mins", reader=readers.timeout)``); each takes
the request body (a JSON object, already checked by its schema) and returns
the service's argument, None meaning "not given".  What they let pass is
Heat's (``tests/functional/api/request_cases.yaml``).  Heavy modules (the
engine's limits, the template parser) are imported when a request is read:
the table is imported by ``stackctl`` too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hearth.api import params
from hearth.common import exception
from hearth.engine.limits import check_stack_quota as check
from hearth.jobservice.request import JobRequest

if TYPE_CHECKING:
    from hearth.api.operation import ApiRequest
    from hearth.jobservice.request import JobRequest

ACTIONS = ("suspend", "resume", "check", "cancel_update", "cancel_without_rollback")


def flag(key: str) -> Any:
    """Return the reader of a boolean given as true/false or as its text in any case."""
    def read(body: Mapping[str, Any]) -> bool | None:
        return params.body_bool(key, body.get(key))
    return read


def tags(body: Mapping[str, Any]) -> list[str] | None:
    """Return the stack's tags: a comma-separated text or a list, blanks dropped."""
    value = body.get("tags")
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else value
    return [item.strip() for item in items if item.strip()]


def joined(items: list[str]) -> str:
    """Return tags as a client writes them (comma-separated)."""
    return ",".join(items)


def timeout(body: Mapping[str, Any]) -> int | None:
    """Return the timeout in minutes; 0 (or null) is none, as in Heat."""
    value = body.get("timeout_mins")
    if value is None:
        return None
    return params.check_integer_range("timeout_mins", int(value)) or None


def template(body: Mapping[str, Any]) -> Any:
    """Return the template (``template``, else fetched from ``template_url``); required."""
    return _template_from_body(body, required=True)


def update_template(body: Mapping[str, Any]) -> Any:
    """Return the template of a PUT update: required unless ``existing`` (PATCH's meaning)."""
    return _template_from_body(body, required=not existing(body))


def patch_template(body: Mapping[str, Any]) -> Any:
    """Return the template of a PATCH update, if any (else the stored one stays)."""
    return _template_from_body(body, required=False)


def _template_from_body(body: Mapping[str, Any], required: bool) -> Any:
    """Return the body's template, read by the server (sizes, ``template_url``)."""
    # stackctl imports these readers with the operations table, and reads no template
    # lazy: the server's limits (oslo.config, requests) only where a request is served
    from hearth.api.limits import template_from_body
    return template_from_body(body, required=required)


def environment(body: Mapping[str, Any]) -> Any:
    """Return the environment, unless ``environment_files`` name it (heatclient sends both)."""
    return None if body.get("environment_files") else body.get("environment")


def existing(body: Mapping[str, Any]) -> bool:
    """Return whether a PUT update keeps what it does not give (``existing``)."""
    return bool(params.body_bool("existing", body.get("existing")))


def clear_parameters(body: Mapping[str, Any]) -> list[str] | None:
    """Return the parameters to reset to their defaults (one name may come alone)."""
    value = body.get("clear_parameters")
    return [value] if isinstance(value, str) else value


def adopting(body: Any) -> bool:
    """Return whether a ``POST /stacks`` body adopts a stack (has ``adopt_stack_data``)."""
    return isinstance(body, Mapping) and body.get("adopt_stack_data") is not None


def adopt_data(body: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``adopt_stack_data`` as a map (JSON or YAML text, or a map).

    Refused as Heat: "Invalid adopt data" when it is no map with a
    ``template`` (the engine refuses adopt unless ``enable_stack_adopt``).
    """
    data = body["adopt_stack_data"]
    if isinstance(data, str):
        # lazy: the engine's parser only on the server, for adopt data sent as text
        from hearth.engine.template.parser import parse
        try:
            data = parse(data, None)
        except exception.HearthException as error:
            text = getattr(error, "error_message", None) or str(error)
            raise exception.BadRequest(message=f"Invalid adopt data: {text}") from None
    if not isinstance(data, Mapping) or "template" not in data:
        raise exception.BadRequest(message="Invalid adopt data: 'template'")
    return dict(data)


def refuse_adopt(request: ApiRequest) -> None:
    """Refuse ``adopt_stack_data`` in an update (Heat adopts on create only)."""
    if request.body_object().get("adopt_stack_data") is not None:
        raise exception.NotSupported(feature="Stack Adopt")


def check_stack_quota(request: ApiRequest) -> None:
    """Refuse a create when the project owns ``max_stacks_per_tenant`` stacks already."""
    check(request.service.count_stacks(request.ctx))


def snapshot_name(body: Mapping[str, Any]) -> str | None:
    """Return a snapshot's name as text (None: unnamed)."""
    name = body.get("name")
    return None if name is None else str(name)


def action_name(body: Any) -> str:
    """Return the one action a ``POST .../actions`` body asks for; BadRequest otherwise."""
    if not isinstance(body, dict) or not body:
        raise exception.BadRequest(
            message=f"No action specified: the body must have one of {', '.join(ACTIONS)}.")
    if len(body) > 1:
        raise exception.BadRequest(
            message=f"Multiple actions specified: {', '.join(sorted(body))}.")
    (name,) = body
    if not isinstance(name, str) or name not in ACTIONS:
        raise exception.BadRequest(
            message=f"Invalid action {name} specified; valid actions: {', '.join(ACTIONS)}.")
    return name


def action_body(action: str) -> dict[str, None]:
    """Return the body a client sends for an action (``{"suspend": null}``)."""
    return {action: None}


def mark_unhealthy(body: Mapping[str, Any]) -> bool | None:
    """Return ``mark_unhealthy`` (required by the schema) as a boolean."""
    return params.body_bool("mark_unhealthy", body["mark_unhealthy"])


def job_request(body: Any) -> JobRequest:
    """Return the JobRequest of a ``POST /jobs`` body (checked by its schema)."""
    if not isinstance(body, dict):
        raise exception.BadRequest(
            message=f"The request body must be a JSON object, not {type(body).__name__}.")
    return JobRequest(function=body["function"], args=list(body.get("args") or []),
                      kwargs=dict(body.get("kwargs") or {}), target=body["target"],
                      target_type=body.get("target_type") or "glob",
                      timeout=body.get("timeout"), batch=body.get("batch"),
                      pillar=body.get("pillar") or None)


def job_body(request: JobRequest, published: bool = False) -> dict[str, Any]:
    """Return the ``POST /jobs`` body a client sends for ``request`` (``async``: publish only)."""
    body = {"target": request.target, "target_type": request.target_type,
            "function": request.function, "args": list(request.args),
            "kwargs": dict(request.kwargs), "timeout": request.timeout,
            "batch": request.batch, "pillar": request.pillar, "async": published}
    return {key: value for key, value in body.items() if value is not None}


def publish_body(request: JobRequest) -> dict[str, Any]:
    """Return the ``POST /jobs`` body that only publishes ``request`` (``"async": true``)."""
    return job_body(request, published=True)


def publishing(body: Any) -> bool:
    """Return whether a ``POST /jobs`` body only publishes (``"async": true``)."""
    return isinstance(body, Mapping) and bool(body.get("async"))


def event_sort_dir(query: Mapping[str, Any]) -> str | None:
    """Return the events' order asked for; Heat's default is newest first without sort keys."""
    return query.get("sort_dir") or (None if query.get("sort_keys") else "desc")

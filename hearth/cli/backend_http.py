"""stackctl over HTTP: EngineService's methods as calls to a hearth-api server.

:class:`HttpBackend` offers the same method names and arguments as
:class:`hearth.cli.backend.EmbeddedBackend` (EngineService's, without the
request context) and returns the same objects, so every command prints the
same output in both modes.  Errors come back as :class:`ApiError` carrying
the server's message, which the CLI prints as it prints local errors.
"""

from __future__ import annotations

import json
import sys
import time
import urllib.parse
from collections.abc import Mapping
from typing import Any

from hearth.api.faults import LOCATION_HEADER
from hearth.common import exception

#: Seconds between two event polls while following an action over HTTP.
HTTP_POLL_INTERVAL = 0.25
REQUEST_TIMEOUT = 60.0


class ApiError(exception.HearthException):
    """The API server refused a request; the message is the server's."""

    msg_fmt = "%(message)s"

    def __init__(self, status: int, error_type: str, message: str) -> None:
        self.status = status
        self.remote_type = error_type
        super().__init__(message=message)

    @property
    def error_type(self) -> str:
        """Return the server's error type."""
        return self.remote_type


def _quote(segment: str) -> str:
    return urllib.parse.quote(str(segment), safe="")


#: link relation -> the engine's fields it stands for (the API turns these fields into links)
LINK_FIELDS = {"stack": ("stack_name", "stack_id"),
               "nested": ("nested_stack_name", "nested_stack_id"),
               "root_stack": ("root_stack_name", "root_stack_id")}


def _stack_of(href: str) -> tuple[str, str]:
    """Return (name, id) of the stack a ``.../stacks/{name}/{id}[/...]`` URL names."""
    path = urllib.parse.urlsplit(href).path.split("/stacks/", 1)[-1]
    name, stack_id = path.split("/")[:2]
    return urllib.parse.unquote(name), urllib.parse.unquote(stack_id)


class ApiUnreachable(exception.HearthException):
    """No API server answers at the URL (nothing listens, or the host is unknown)."""

    msg_fmt = ("Cannot reach the API at %(url)s: %(reason)s. Is hearth-api running there "
               "(--url, $HEARTH_URL)?")


def _reason(error: BaseException) -> str:
    """Return the system's words for a connection error (its innermost OSError's)."""
    pending: list[BaseException | None] = [error]
    seen: set[int] = set()
    while pending:
        cause = pending.pop(0)
        if cause is None or id(cause) in seen:
            continue
        seen.add(id(cause))
        if isinstance(cause, OSError) and cause.strerror:
            return cause.strerror[0].lower() + cause.strerror[1:]
        pending += [arg for arg in cause.args if isinstance(arg, BaseException)]
        pending += [cause.__cause__, cause.__context__]
    return str(error)


def located_error(location: Mapping[str, Any]) -> exception.StackValidationFailed:
    """Return the validation error the server located (hearth.api.faults.location_of)."""
    return exception.StackValidationFailed(
        location.get("message") or "", error=location.get("error"),
        path=location.get("path"), line=location.get("line"),
        filename=location.get("filename"), column=location.get("column"))


def _without_none(values: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not None}


class HttpBackend:
    """Talk to ``url`` (``http://host:port/v1/{project}``) with ``token``."""

    poll_interval = HTTP_POLL_INTERVAL

    def __init__(self, url: str, token: str | None = None, session: Any = None) -> None:
        if session is None:
            import requests
            session = requests.Session()
        self.url = url.rstrip("/")
        self.session = session
        self.session.headers.update({"Accept": "application/json",
                                     "User-Agent": "hearth-stackctl"})
        if token:
            self.session.headers["X-Auth-Token"] = token

    # --- plumbing -------------------------------------------------------------
    def _request(self, method: str, path: str, query: Mapping[str, Any] | None = None,
                 body: Any = None, expect_json: bool = True) -> Any:
        # requests is loaded when the session is its own; the local engine's Unix-socket
        # session needs none, and stackctl's quick commands must not pay for importing it
        requests = sys.modules.get("requests")
        unreachable = (requests.ConnectionError,) if requests is not None else ()
        url = path if path.startswith("http") else self.url + path
        try:
            response = self.session.request(
                method, url, params=_without_none(query or {}), timeout=REQUEST_TIMEOUT,
                json=body if body is not None else None, allow_redirects=False)
        except unreachable as error:
            raise ApiUnreachable(url=self.url, reason=_reason(error)) from None
        if response.status_code in (301, 302, 303, 307):
            return self._request(method, response.headers["Location"], None, body, expect_json)
        if response.status_code >= 400:
            raise self._error(response)
        if not expect_json or response.status_code == 204 or not response.content:
            return None
        return response.json()

    @staticmethod
    def _error(response: Any) -> exception.HearthException:
        try:
            error = response.json()["error"]
            location = response.headers.get(LOCATION_HEADER)
            if location:
                return located_error(json.loads(location))
            return ApiError(response.status_code, error.get("type", ""), error["message"])
        except (ValueError, KeyError, TypeError):
            return ApiError(response.status_code, "HTTPError",
                            f"HTTP {response.status_code}: {response.text[:200]}")

    def _stack_path(self, stack_identity: str) -> str:
        """Return the canonical path of a stack (a lookup for a bare name or id)."""
        if "/" in stack_identity:
            name, stack_id = stack_identity.split("/", 1)
            return f"/stacks/{_quote(name)}/{_quote(stack_id)}"
        identity = self.identify_stack(stack_identity)
        return f"/stacks/{_quote(identity['stack_name'])}/{_quote(identity['id'])}"

    def sleep(self, seconds: float) -> None:
        """Wait between two polls."""
        time.sleep(seconds)

    def close(self) -> None:
        """Close the HTTP session."""
        self.session.close()

    # --- stacks ---------------------------------------------------------------
    @staticmethod
    def _stack_body(template: Any = None, params: Mapping[str, Any] | None = None,
                    files: Mapping[str, str] | None = None, environment: Any = None,
                    environment_files: list[str] | None = None,
                    **rest: Any) -> dict[str, Any]:
        body = {"template": template, "parameters": params, "files": files,
                "environment": environment, "environment_files": environment_files, **rest}
        if isinstance(body.get("tags"), list):
            body["tags"] = ",".join(body["tags"])
        return _without_none(body)

    def create_stack(self, stack_name: str, template: Any, **kwargs: Any) -> dict[str, Any]:
        """POST /stacks; return ``{"id", "stack_name"}``."""
        body = self._stack_body(template, stack_name=stack_name, **kwargs)
        created = self._request("POST", "/stacks", body=body)["stack"]
        return {"id": created["id"], "stack_name": stack_name}

    def preview_stack(self, stack_name: str, template: Any, **kwargs: Any) -> dict[str, Any]:
        """POST /stacks/preview."""
        body = self._stack_body(template, stack_name=stack_name, **kwargs)
        return self._request("POST", "/stacks/preview", body=body)["stack"]

    def list_stacks(self, filters: Mapping[str, Any] | None = None,
                    **kwargs: Any) -> list[dict[str, Any]]:
        """GET /stacks (one page, or every stack when no limit is given)."""
        query = {**(filters or {}), **{key: value for key, value in kwargs.items()
                                       if value not in (None, False)}}
        for key in ("tags", "tags_any", "not_tags", "not_tags_any"):
            if isinstance(query.get(key), list):
                query[key] = ",".join(query[key])
        return [self._strip(s) for s in self._request("GET", "/stacks", query)["stacks"]]

    def count_stacks(self, **filters: Any) -> int:
        """GET /stacks?with_count=true (count only)."""
        query = {**filters, "with_count": "true", "limit": 1}
        return self._request("GET", "/stacks", query)["count"]

    def identify_stack(self, stack_identity: str) -> dict[str, Any]:
        """Resolve a name or id through the API's 302 lookup (``name/id`` is already one)."""
        if "/" in stack_identity:
            name, stack_id = stack_identity.split("/", 1)
            return {"stack_name": name, "id": stack_id, "tenant": self.url.rsplit("/", 1)[-1]}
        response = self.session.get(f"{self.url}/stacks/{_quote(stack_identity)}",
                                    allow_redirects=False, timeout=REQUEST_TIMEOUT)
        if response.status_code >= 400:
            raise self._error(response)
        path = urllib.parse.urlsplit(response.headers["Location"]).path
        name, stack_id = path.rstrip("/").split("/")[-2:]
        return {"stack_name": urllib.parse.unquote(name), "id": urllib.parse.unquote(stack_id),
                "tenant": self.url.rsplit("/", 1)[-1]}

    @staticmethod
    def _strip(item: Mapping[str, Any]) -> dict[str, Any]:
        """Turn the links the API adds back into the engine's fields (objects equal its)."""
        result = {key: value for key, value in item.items() if key != "links"}
        for link in item.get("links") or ():
            fields = LINK_FIELDS.get(link.get("rel"))
            if fields:
                result.update(zip(fields, _stack_of(link["href"]), strict=True))
        return result

    def show_stack(self, stack_identity: str, resolve_outputs: bool = True) -> dict[str, Any]:
        """GET /stacks/{name}/{id}."""
        query = None if resolve_outputs else {"resolve_outputs": "false"}
        return self._strip(self._request("GET", self._stack_path(stack_identity), query)["stack"])

    def update_stack(self, stack_identity: str, existing: bool = False,
                     **kwargs: Any) -> dict[str, Any]:
        """PUT (or PATCH with ``existing``) /stacks/{name}/{id}."""
        path = self._stack_path(stack_identity)
        self._request("PATCH" if existing else "PUT", path, body=self._stack_body(**kwargs))
        name, stack_id = path.split("/")[-2:]
        return {"stack_name": urllib.parse.unquote(name), "id": urllib.parse.unquote(stack_id)}

    def preview_update_stack(self, stack_identity: str, existing: bool = False,
                             show_nested: bool = False, **kwargs: Any) -> dict[str, Any]:
        """PUT/PATCH /stacks/{name}/{id}/preview."""
        query = {"show_nested": "true"} if show_nested else None
        return self._request("PATCH" if existing else "PUT",
                             self._stack_path(stack_identity) + "/preview", query,
                             body=self._stack_body(**kwargs))

    def delete_stack(self, stack_identity: str) -> None:
        """DELETE /stacks/{name}/{id}."""
        self._request("DELETE", self._stack_path(stack_identity), expect_json=False)

    def _stack_get(self, stack_identity: str, sub_path: str, method: str = "GET") -> Any:
        return self._request(method, self._stack_path(stack_identity) + sub_path)

    def abandon_stack(self, stack_identity: str) -> dict[str, Any]:
        """DELETE .../abandon."""
        return self._stack_get(stack_identity, "/abandon", "DELETE")

    def adopt_stack(self, stack_name: str, adopt_data: Any, **kwargs: Any) -> dict[str, Any]:
        """POST /stacks with ``adopt_stack_data``; return ``{"id", "stack_name"}``."""
        body = self._stack_body(stack_name=stack_name, adopt_stack_data=adopt_data, **kwargs)
        created = self._request("POST", "/stacks", body=body)["stack"]
        return {"id": created["id"], "stack_name": stack_name}

    def stack_snapshot(self, stack_identity: str, name: str | None = None) -> dict[str, Any]:
        """POST .../snapshots."""
        return self._request("POST", self._stack_path(stack_identity) + "/snapshots",
                             body=_without_none({"name": name}))

    def list_snapshots(self, stack_identity: str) -> list[dict[str, Any]]:
        """GET .../snapshots."""
        return self._stack_get(stack_identity, "/snapshots")["snapshots"]

    def show_snapshot(self, stack_identity: str, snapshot_id: str) -> dict[str, Any]:
        """GET .../snapshots/{id}."""
        return self._stack_get(stack_identity, f"/snapshots/{_quote(snapshot_id)}")["snapshot"]

    def delete_snapshot(self, stack_identity: str, snapshot_id: str) -> None:
        """DELETE .../snapshots/{id}."""
        self._request("DELETE", self._stack_path(stack_identity)
                      + f"/snapshots/{_quote(snapshot_id)}", expect_json=False)

    def stack_restore(self, stack_identity: str, snapshot_id: str) -> None:
        """POST .../snapshots/{id}/restore."""
        self._request("POST", self._stack_path(stack_identity)
                      + f"/snapshots/{_quote(snapshot_id)}/restore", expect_json=False)

    def export_stack(self, stack_identity: str) -> dict[str, Any]:
        """GET .../export."""
        return self._stack_get(stack_identity, "/export")

    def get_template(self, stack_identity: str) -> dict[str, Any]:
        """GET .../template."""
        return self._stack_get(stack_identity, "/template")

    def get_environment(self, stack_identity: str) -> dict[str, Any]:
        """GET .../environment."""
        return self._stack_get(stack_identity, "/environment")

    def get_files(self, stack_identity: str) -> dict[str, str]:
        """GET .../files."""
        return self._stack_get(stack_identity, "/files")

    def stack_graph(self, stack_identity: str) -> dict[str, Any]:
        """GET .../graph?format=json: the stack's graph as data."""
        return self._request("GET", self._stack_path(stack_identity) + "/graph",
                             {"format": "json"})

    def stack_action(self, stack_identity: str, action: str) -> None:
        """POST .../actions with ``{action: null}``."""
        self._request("POST", self._stack_path(stack_identity) + "/actions",
                      body={action: None})

    def wait(self, stack_identity: str, timeout: float | None = None) -> dict[str, Any]:
        """Poll the stack until its action ends; return it."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            stack = self.show_stack(stack_identity, resolve_outputs=False)
            if not stack["stack_status"].endswith("_IN_PROGRESS"):
                return stack
            if deadline is not None and time.monotonic() > deadline:
                return stack
            self.sleep(self.poll_interval)

    # --- outputs, resources, events ---------------------------------------------
    def list_outputs(self, stack_identity: str) -> list[dict[str, Any]]:
        """GET .../outputs."""
        return self._stack_get(stack_identity, "/outputs")["outputs"]

    def show_output(self, stack_identity: str, key: str) -> dict[str, Any]:
        """GET .../outputs/{key}."""
        return self._stack_get(stack_identity, f"/outputs/{_quote(key)}")["output"]

    def list_resources(self, stack_identity: str, nested_depth: int = 0,
                       with_detail: bool = False,
                       filters: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """GET .../resources."""
        query = {**(filters or {}), "nested_depth": nested_depth or None,
                 "with_detail": "true" if with_detail else None}
        resources = self._request("GET", self._stack_path(stack_identity) + "/resources",
                                  query)["resources"]
        return [self._strip(r) for r in resources]

    def _resource_path(self, stack_identity: str, resource_name: str) -> str:
        return f"{self._stack_path(stack_identity)}/resources/{_quote(resource_name)}"

    def show_resource(self, stack_identity: str, resource_name: str,
                      with_attr: list[str] | None = None) -> dict[str, Any]:
        """GET .../resources/{name}."""
        return self._strip(self._request("GET", self._resource_path(
            stack_identity, resource_name), {"with_attr": with_attr})["resource"])

    def resource_metadata(self, stack_identity: str, resource_name: str) -> dict[str, Any]:
        """GET .../resources/{name}/metadata."""
        return self._request("GET", self._resource_path(stack_identity, resource_name)
                             + "/metadata")["metadata"]

    def resource_signal(self, stack_identity: str, resource_name: str,
                        details: Any = None) -> None:
        """POST .../resources/{name}/signal."""
        self._request("POST", self._resource_path(stack_identity, resource_name) + "/signal",
                      body=details)

    def resource_mark_unhealthy(self, stack_identity: str, resource_name: str,
                                mark_unhealthy: bool, reason: str | None = None) -> None:
        """PATCH .../resources/{name}."""
        body = _without_none({"mark_unhealthy": mark_unhealthy,
                              "resource_status_reason": reason})
        self._request("PATCH", self._resource_path(stack_identity, resource_name), body=body)

    def list_events(self, stack_identity: str, resource_name: str | None = None,
                    filters: Mapping[str, Any] | None = None, nested_depth: int = 0,
                    **kwargs: Any) -> list[dict[str, Any]]:
        """GET .../events or .../resources/{name}/events."""
        path = (self._resource_path(stack_identity, resource_name) if resource_name
                else self._stack_path(stack_identity)) + "/events"
        query = {**(filters or {}), **kwargs, "nested_depth": nested_depth or None}
        return [self._strip(e) for e in self._request("GET", path, query)["events"]]

    def show_event(self, stack_identity: str, resource_name: str,
                   event_id: str) -> dict[str, Any]:
        """GET .../resources/{name}/events/{id}."""
        path = f"{self._resource_path(stack_identity, resource_name)}/events/{_quote(event_id)}"
        return self._strip(self._request("GET", path)["event"])

    # --- templates, types, services ---------------------------------------------
    def validate_template(self, template: Any, show_nested: bool = False,
                          ignore_errors: list[str] | None = None,
                          **kwargs: Any) -> dict[str, Any]:
        """POST /validate."""
        query = {"show_nested": "true" if show_nested else None,
                 "ignore_errors": ",".join(ignore_errors) if ignore_errors else None}
        return self._request("POST", "/validate", query, body=self._stack_body(template,
                                                                               **kwargs))

    def list_template_versions(self) -> list[dict[str, Any]]:
        """GET /template_versions."""
        return self._request("GET", "/template_versions")["template_versions"]

    def list_template_functions(self, version: str,
                                with_condition_func: bool = False) -> list[dict[str, Any]]:
        """GET /template_versions/{version}/functions."""
        query = {"with_condition_func": "true" if with_condition_func else None}
        return self._request("GET", f"/template_versions/{_quote(version)}/functions",
                             query)["template_functions"]

    def list_resource_type_failures(self) -> list[dict[str, Any]]:
        """Return the plug-ins that failed to load: the local engine's alone.

        Heat's API has no such route; a remote server is refused clearly.
        """
        try:
            return self._request("GET", "/resource_type_failures")["failures"]
        except ApiError as error:
            if error.status != 404:
                raise
            raise exception.NotSupported(
                feature="Listing the plug-ins that failed to load (--all) over --url") from None

    def list_resource_types(self, type_name: str | None = None,
                            support_status: str | None = None, version: str | None = None,
                            with_description: bool = False) -> list[Any]:
        """GET /resource_types."""
        query = {"name": type_name, "support_status": support_status, "version": version,
                 "with_description": "true" if with_description else None}
        return self._request("GET", "/resource_types", query)["resource_types"]

    def resource_schema(self, type_name: str, with_description: bool = False) -> dict[str, Any]:
        """GET /resource_types/{type}."""
        query = {"with_description": "true" if with_description else None}
        return self._request("GET", f"/resource_types/{_quote(type_name)}", query)

    def generate_template(self, type_name: str, template_type: str = "cfn") -> dict[str, Any]:
        """GET /resource_types/{type}/template."""
        return self._request("GET", f"/resource_types/{_quote(type_name)}/template",
                             {"template_type": template_type})

    def list_services(self) -> list[dict[str, Any]]:
        """GET /services."""
        return self._request("GET", "/services")["services"]

    # --- jobs on agents (hearth-master behind the API) ---------------------------
    def list_agents(self) -> list[dict[str, Any]]:
        """GET /agents: the accepted agents the project may target, with grains."""
        return self._request("GET", "/agents")["agents"]

    def list_jobs(self, limit: int | None = None) -> list[dict[str, Any]]:
        """GET /jobs: the project's jobs in the master's job cache, newest first."""
        return self._request("GET", "/jobs", {"limit": limit})["jobs"]

    def show_job(self, jid: str) -> dict[str, Any]:
        """GET /jobs/{jid}: one job of the project, each agent's return and the missing."""
        return self._request("GET", f"/jobs/{_quote(jid)}")["job"]

    def run_job(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """POST /jobs: run a job (or publish it, with ``async``); return the API's answer."""
        return self._request("POST", "/jobs", body=dict(body))

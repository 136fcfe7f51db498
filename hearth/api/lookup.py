"""Lookups: a stack named by name, id or ARN answers 302 to its canonical URL.

``/stacks/{name_or_id}[/sub/path][?query]`` -> ``/stacks/{name}/{id}[/sub/path][?query]``
for every method, as Heat does; heatclient re-sends the same method there.
A stack's ARN (``arn:openstack:heat::{tenant}:stacks/{name}/{id}``, what
``get_resource`` of a nested stack gives, with its slashes as they are) is
read without asking the engine: ``/stacks/{ARN}[/sub/path]`` ->
``/v1/{tenant}/stacks/{name}/{id}[/sub/path]``.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable, Mapping
from typing import Any

import falcon

from hearth.api import links
from hearth.api.operation import ApiRequest, Reply
from hearth.api.routing import render
from hearth.common import exception

CANONICAL_PREFIX = "/v1/{tenant_id}/stacks/{stack_name}/{stack_id}"
LOOKUP_PREFIX = "/v1/{tenant_id}/stacks/{stack_name}"
#: the Falcon sink prefix of ARN lookups (no route matches a path with an ARN's slashes)
ARN_SINK_PREFIX = re.compile(r"^/v1/(?P<tenant_id>[^/]+)/stacks/(?=arn:)")
_ARN = re.compile(r"^arn:openstack:heat::(?P<tenant>[^:/]*):stacks/(?P<name>[^/]+)"
                  r"/(?P<id>[^/]+)(?P<path>(/[^/]+)*)/?$")


def lookup_path(canonical_path: str) -> str:
    """Return the lookup route of a canonical stack route."""
    return LOOKUP_PREFIX + canonical_path[len(CANONICAL_PREFIX):]


def _sub_path(request: ApiRequest) -> list[str]:
    """Return the quoted path segments after ``/v1/{tenant}/stacks/{name_or_id}``."""
    raw = request.raw.env.get("RAW_PATH_INFO")
    if isinstance(raw, str) and raw:
        return raw.split("?", 1)[0].split("/")[5:]
    return [links.quote(segment) for segment in request.raw.path.split("/")[5:]]


def redirect(request: ApiRequest, identity: Mapping[str, Any]) -> Reply:
    """Answer 302 with the canonical URL of the stack ``identity``, sub-path and query kept."""
    canonical = links.stack_url(request.base, identity["stack_name"], identity["id"])
    rest = "".join("/" + segment for segment in _sub_path(request))
    return _found(canonical + rest, request.raw)


def _found(location: str, raw: falcon.Request) -> Reply:
    """Return Heat's 302 answer to ``location`` (the request's query kept)."""
    if raw.query_string:
        location += "?" + raw.query_string
    body = {"code": "302 Found", "title": "Found",
            "message": f"The resource was found at {location}; you should be redirected "
                       "automatically."}
    return Reply(body=body, status=302, headers={"Location": location})


def arn_redirect(req: falcon.Request, resp: falcon.Response, *,
                 authenticate: Callable[[falcon.Request, str], Any], tenant_id: str,
                 **_: Any) -> None:
    """Answer 302 for a stack named by its ARN (a Falcon sink, any method).

    ``authenticate(req, tenant)`` checks the caller as for any stack route.
    """
    authenticate(req, tenant_id)
    arn = req.path.split("/stacks/", 1)[1]
    match = _ARN.match(arn)
    if match is None:
        raise exception.StackNotFound(arn)
    segments = [segment for segment in match["path"].split("/") if segment]
    tenant = urllib.parse.unquote(match["tenant"])
    location = links.stack_url(f"{req.prefix}/v1/{links.quote(tenant)}",
                               match["name"], match["id"])
    render(resp, _found(location + "".join("/" + links.quote(s) for s in segments), req))

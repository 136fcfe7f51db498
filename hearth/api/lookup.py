"""Lookups: a stack named by name or id alone answers 302 to its canonical URL.

``/stacks/{name_or_id}[/sub/path][?query]`` -> ``/stacks/{name}/{id}[/sub/path][?query]``
for every method, as Heat does; heatclient re-sends the same method there.
"""

from __future__ import annotations

from hearth.api import links
from hearth.api.routing import ApiRequest, Reply

CANONICAL_PREFIX = "/v1/{tenant_id}/stacks/{stack_name}/{stack_id}"
LOOKUP_PREFIX = "/v1/{tenant_id}/stacks/{stack_name}"


def lookup_path(canonical_path: str) -> str:
    """Return the lookup route of a canonical stack route."""
    return LOOKUP_PREFIX + canonical_path[len(CANONICAL_PREFIX):]


def _sub_path(request: ApiRequest) -> list[str]:
    """Return the quoted path segments after ``/v1/{tenant}/stacks/{name_or_id}``."""
    raw = request.raw.env.get("RAW_PATH_INFO")
    if raw:
        return raw.split("?", 1)[0].split("/")[5:]
    return [links.quote(segment) for segment in request.raw.path.split("/")[5:]]


def redirect(request: ApiRequest) -> Reply:
    """Answer 302 with the canonical URL of the stack, sub-path and query kept."""
    identity = request.service.identify_stack(request.ctx, request.path["stack_name"])
    canonical = links.stack_url(request.base, identity["stack_name"], identity["id"])
    rest = "".join("/" + segment for segment in _sub_path(request))
    location = canonical + rest
    if request.raw.query_string:
        location += "?" + request.raw.query_string
    body = {"code": "302 Found", "title": "Found",
            "message": f"The resource was found at {location}; you should be redirected "
                       "automatically."}
    return Reply(body=body, status=302, headers={"Location": location})

"""Build the ``links`` entries of Heat's API objects from the request's base URL.

``base`` is always the tenant URL, e.g. ``http://127.0.0.1:8004/v1/admin``.
Path segments are percent-quoted so names with ``/`` or ``:`` stay one segment.
"""

from __future__ import annotations

import functools
import urllib.parse
from collections.abc import Iterable, Mapping
from typing import Any


@functools.lru_cache(maxsize=8192)
def quote(segment: str) -> str:
    """Quote one path segment (everything but unreserved characters); names repeat: cached."""
    return urllib.parse.quote(str(segment), safe="")


def stack_url(base: str, stack_name: str, stack_id: str) -> str:
    """Return the canonical URL of a stack."""
    return f"{base}/stacks/{quote(stack_name)}/{quote(stack_id)}"


def resource_url(base: str, stack_name: str, stack_id: str, resource_name: str) -> str:
    """Return the URL of a resource of a stack."""
    return f"{stack_url(base, stack_name, stack_id)}/resources/{quote(resource_name)}"


def _link(href: str, rel: str) -> dict[str, str]:
    return {"href": href, "rel": rel}


def with_stack_links(base: str, stack: Mapping[str, Any]) -> dict[str, Any]:
    """Return a stack object with its ``self`` link."""
    href = stack_url(base, stack["stack_name"], stack["id"])
    return {**stack, "links": [_link(href, "self")]}


#: engine fields that become links (Heat's API shows the links, not the fields)
RESOURCE_LINK_FIELDS = ("stack_name", "stack_id", "nested_stack_name", "nested_stack_id")
EVENT_LINK_FIELDS = ("stack_name", "stack_id", "root_stack_name", "root_stack_id")


def _owner(item: Mapping[str, Any], stack_name: str, stack_id: str) -> tuple[str, str]:
    """Return the (name, id) of the stack an item belongs to (nested items say so)."""
    return item.get("stack_name") or stack_name, item.get("stack_id") or stack_id


def _without(item: Mapping[str, Any], fields: Iterable[str]) -> dict[str, Any]:
    return {key: value for key, value in item.items() if key not in fields}


def with_resource_links(base: str, stack_name: str, stack_id: str,
                        resource: Mapping[str, Any]) -> dict[str, Any]:
    """Return a resource object with its ``self``, ``stack`` and ``nested`` links."""
    name, ident = _owner(resource, stack_name, stack_id)
    links = [_link(resource_url(base, name, ident, resource["resource_name"]), "self"),
             _link(stack_url(base, name, ident), "stack")]
    nested_name, nested_id = resource.get("nested_stack_name"), resource.get("nested_stack_id")
    if nested_name and nested_id:
        links.append(_link(stack_url(base, nested_name, nested_id), "nested"))
    return {**_without(resource, RESOURCE_LINK_FIELDS), "links": links}


def with_event_links(base: str, stack_name: str, stack_id: str,
                     event: Mapping[str, Any]) -> dict[str, Any]:
    """Return an event object with its ``self``, ``resource`` and ``stack`` links.

    An event of a nested listing also links its ``root_stack`` (the stack
    asked), which tells heatclient the server listed the nested events.
    """
    name, ident = _owner(event, stack_name, stack_id)
    resource = resource_url(base, name, ident, event["resource_name"])
    links = [_link(f"{resource}/events/{quote(event['id'])}", "self"),
             _link(resource, "resource"),
             _link(stack_url(base, name, ident), "stack")]
    root_name, root_id = event.get("root_stack_name"), event.get("root_stack_id")
    if root_name and root_id:
        links.append(_link(stack_url(base, root_name, root_id), "root_stack"))
    return {**_without(event, EVENT_LINK_FIELDS), "links": links}


def next_page(url_without_query: str, query: Iterable[tuple[str, str]], marker: str) -> str:
    """Return the URL of the next page: the same query with ``marker`` replaced."""
    pairs = [(key, value) for key, value in query if key != "marker"]
    pairs.append(("marker", marker))
    return f"{url_without_query}?{urllib.parse.urlencode(pairs)}"


#: link relation -> the fields it stands for (what :func:`without_links` gives back)
LINK_FIELDS = {"stack": ("stack_name", "stack_id"),
               "nested": ("nested_stack_name", "nested_stack_id"),
               "root_stack": ("root_stack_name", "root_stack_id")}


def stack_of_url(href: str) -> tuple[str, str]:
    """Return (name, id) of the stack a ``.../stacks/{name}/{id}[/...]`` URL names."""
    path = urllib.parse.urlsplit(href).path.split("/stacks/", 1)[-1]
    name, stack_id = path.split("/")[:2]
    return urllib.parse.unquote(name), urllib.parse.unquote(stack_id)


def without_links(item: Mapping[str, Any]) -> dict[str, Any]:
    """Return an API object as the engine gave it: its links turned back into their fields."""
    result = {key: value for key, value in item.items() if key != "links"}
    for link in item.get("links") or ():
        fields = LINK_FIELDS.get(link.get("rel"))
        if fields:
            result.update(zip(fields, stack_of_url(link["href"]), strict=True))
    return result

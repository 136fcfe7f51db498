"""One stack: its topology, resources, outputs and events, updated live; its template.

The page shows the topology, outputs and newest events; the resources table
is read right after it (``.../resources``), so a stack of a thousand
resources shows its picture at once.  The page's stream
(``.../stream?after=ID``; a reconnecting browser's ``Last-Event-ID`` wins)
sends each later event as a table row, and the stack's status when it
changes (with its outputs once an action ends).  The stream reads through
the API and waits on the bus between reads (:mod:`hearth.console.wake`):
the browser never polls.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterator
from typing import Any

from hearth.common import exception
from hearth.console import sse, topology
from hearth.console.app import PREFIX, Redirect, Stream, View
from hearth.console.render import render, url_part

#: Events the page shows when it opens (newest first); later ones arrive live.
SHOWN_EVENTS = 100
#: Seconds a stream waits for the bus before reading anyway (another engine's action).
CATCH_UP = 5.0


def identity(view: View) -> str:
    """Return ``name/id`` of the stack the URL names."""
    return f"{view.params['stack_name']}/{view.params['stack_id']}"


def _nested_links(resources: list[dict[str, Any]]) -> dict[str, tuple[str, str]]:
    """Return ``{resource name: (nested stack name, id)}`` of the stack's nested stacks."""
    return {r["resource_name"]: (r["nested_stack_name"], r["nested_stack_id"])
            for r in resources if r.get("nested_stack_id")}


def show(view: View) -> str:
    """GET /stacks/{name}/{id}: the stack page."""
    calls = view.calls
    stack_identity = identity(view)
    stack = calls.show_stack(stack_identity)
    events = calls.list_events(stack_identity, newest_first=True, limit=SHOWN_EVENTS)
    picture = topology.layout(calls.stack_graph(stack_identity))
    query = urllib.parse.urlencode({"after": events[0]["id"] if events else "",
                                    "status": stack["stack_status"]})
    stream_url = (f"{PREFIX}/stacks/{url_part(stack['stack_name'])}/{url_part(stack['id'])}"
                  f"/stream?{query}")
    return view.page("stack.html", stack=stack, events=events, picture=picture,
                     stream_url=stream_url)


def resources(view: View) -> str:
    """GET /stacks/{name}/{id}/resources: the rows of the resources table (the page asks)."""
    found = sorted(view.calls.list_resources(identity(view)), key=lambda r: r["resource_name"])
    return render("fragments/resources.html", resources=found, nested=_nested_links(found),
                  prefix=PREFIX)


def find(view: View) -> Redirect:
    """GET /stacks/{name}: the page of the stack of that name (a nested stack's link)."""
    stack = view.calls.stack_summary(view.params["stack_name"])
    return Redirect(f"{PREFIX}/stacks/{url_part(stack['stack_name'])}/{url_part(stack['id'])}")


def template(view: View) -> str:
    """GET /stacks/{name}/{id}/template: the stack's template and environment."""
    stack_identity = identity(view)
    stack = view.calls.show_stack(stack_identity)
    return view.page("stack_template.html", stack=stack,
                     template=view.calls.get_template(stack_identity),
                     environment=view.calls.get_environment(stack_identity))


def stream(view: View) -> Stream:
    """GET /stacks/{name}/{id}/stream: the stack's new events and status, as they come.

    The stack is read before the stream starts, so one the session may not
    see is the API's 404, not an empty stream.
    """
    stack = view.calls.stack_summary(identity(view))
    # a browser that reconnects says which event it got last (the id each event carries)
    marker = view.req.get_header("Last-Event-ID") or view.req.get_param("after") or None
    return Stream(_follow(view, identity(view), stack["id"], marker,
                          view.req.get_param("status") or None))


def _follow(view: View, stack_identity: str, stack_id: str, marker: str | None,
            status: str | None) -> Iterator[bytes]:
    calls = view.calls
    # woken by this stack's events only (their tags are hearth/stack/ID/RESOURCE/STATE)
    wake = view.console.connector.wake(f"hearth/stack/{stack_id}/")
    try:
        yield sse.retry(2000)
        silent = 0.0
        while True:
            try:
                events = calls.list_events(stack_identity, marker=marker)
                stack = calls.stack_summary(stack_identity)
            except exception.HearthException as error:
                if getattr(error, "status", None) == 404:
                    yield sse.event("gone", render("fragments/gone.html"))
                    return
                raise
            for event in events:
                yield sse.event("event", render("fragments/event_row.html", event=event),
                                event_id=event["id"])
            if events:
                marker = events[-1]["id"]
            if stack["stack_status"] != status:
                status = stack["stack_status"]
                yield sse.event("stack", render("fragments/stack_status.html", stack=stack))
                if not status.endswith("_IN_PROGRESS"):
                    full = calls.show_stack(stack_identity)
                    yield sse.event("outputs", render("fragments/outputs.html", stack=full))
            if status == "DELETE_COMPLETE":
                return
            if wake.wait(CATCH_UP):
                silent = 0.0
                continue
            silent += CATCH_UP
            if silent >= sse.KEEPALIVE:
                silent = 0.0
                yield sse.comment("keep-alive")
    finally:
        wake.close()

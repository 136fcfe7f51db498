"""How a service's result comes back over HTTP, both ways: Heat's answer and the result again.

An answer's ``reply`` (server) turns the result into Heat's answer: its
status, its envelope (``{"stack": ...}``), the ``links`` Heat adds to
stacks, resources and events (:mod:`hearth.api.links`).  Its ``read``
(client) turns that answer back into what the service returned, links
turned back into the fields they stand for, so ``stackctl`` prints the same
in every mode.  The few irregular answers of Heat's API (a create's 201
with its Location, a lookup's 302, the graph's content negotiation, the
paged stack list, the jobs') are kinds of their own here, declared once.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from hearth import __version__
from hearth.api import links
from hearth.api.operation import ApiRequest, Exchange, Reply, WireRequest
from hearth.master.job_status import JobStatus, PublishResult
from hearth.utils import graphviz

#: Heat's body of a 202.
ACCEPTED = {"code": "202 Accepted", "title": "Accepted",
            "message": "The request is accepted for processing."}
DOT_MEDIA_TYPE = "text/vnd.graphviz; charset=UTF-8"
SVG_MEDIA_TYPE = graphviz.FORMATS["svg"][1]


@dataclass(frozen=True)
class Plain:
    """The result is the JSON body of a 200 (schema ``schema``)."""

    schema: str | None = None
    status: int = 200
    media_types: tuple[str, ...] = ()

    def reply(self, request: ApiRequest, result: Any, arguments: Mapping[str, Any]) -> Any:
        """Return the result as the body."""
        return result

    def ask(self, wire: WireRequest) -> None:
        """Ask for nothing more."""

    def known(self, arguments: Mapping[str, Any]) -> Any:
        """Return None: the server is asked."""
        return None

    def read(self, exchange: Exchange) -> Any:
        """Return the body."""
        return exchange.body


def _link_stack(request: ApiRequest, item: Mapping[str, Any]) -> dict[str, Any]:
    return links.with_stack_links(request.base, item)


def _link_resource(request: ApiRequest, item: Mapping[str, Any]) -> dict[str, Any]:
    return links.with_resource_links(request.base, request.path["stack_name"],
                                     request.path["stack_id"], item)


def _link_event(request: ApiRequest, item: Mapping[str, Any]) -> dict[str, Any]:
    return links.with_event_links(request.base, request.path["stack_name"],
                                  request.path["stack_id"], item)


#: what an item is -> how the server adds its links
LINKERS: dict[str, Callable[[ApiRequest, Mapping[str, Any]], dict[str, Any]]] = {
    "stack": _link_stack, "resource": _link_resource, "event": _link_event}


@dataclass(frozen=True)
class Wrapped(Plain):
    """The result under one key (``{"resources": [...]}``), items linked as ``linked`` says.

    ``shown`` (server) picks what the API shows of each item.
    """

    key: str = ""
    linked: str | None = None
    shown: Callable[[Any], Any] | None = None

    def reply(self, request: ApiRequest, result: Any, arguments: Mapping[str, Any]) -> Any:
        """Return ``{key: result}``, each item linked."""
        return {self.key: self._each(result, lambda item: self._linked(request, item))}

    def _linked(self, request: ApiRequest, item: Any) -> Any:
        if self.shown is not None:
            item = self.shown(item)
        return item if self.linked is None else LINKERS[self.linked](request, item)

    def read(self, exchange: Exchange) -> Any:
        """Return the result under the key, links turned back into fields."""
        value = exchange.body[self.key]
        return value if self.linked is None else self._each(value, links.without_links)

    @staticmethod
    def _each(value: Any, change: Callable[[Any], Any]) -> Any:
        return [change(item) for item in value] if isinstance(value, list) else change(value)


def wrapped(key: str, schema: str | None, linked: str | None = None,
            shown: Callable[[Any], Any] | None = None) -> Wrapped:
    """Return the answer of a result under ``key``."""
    return Wrapped(schema, key=key, linked=linked, shown=shown)


@dataclass(frozen=True)
class Accepted(Plain):
    """A 202 with Heat's acceptance body; the client has no result."""

    schema: str | None = "Accepted"
    status: int = 202

    def reply(self, request: ApiRequest, result: Any, arguments: Mapping[str, Any]) -> Any:
        """Return the 202."""
        return Reply(body=ACCEPTED, status=202)

    def read(self, exchange: Exchange) -> Any:
        """Return None."""
        return None


@dataclass(frozen=True)
class UpdateAccepted(Accepted):
    """An update's 202; the client's result is the stack's identity (its final URL's)."""

    def read(self, exchange: Exchange) -> Any:
        """Return ``{"stack_name", "id"}`` of the stack updated."""
        name, stack_id = links.stack_of_url(exchange.url)
        return {"stack_name": name, "id": stack_id}


@dataclass(frozen=True)
class NoContent(Plain):
    """A 204 without a body."""

    status: int = 204

    def reply(self, request: ApiRequest, result: Any, arguments: Mapping[str, Any]) -> Any:
        """Return the empty 204."""
        return Reply(status=204, empty=True)

    def read(self, exchange: Exchange) -> Any:
        """Return None."""
        return None


@dataclass(frozen=True)
class Null(Plain):
    """A 200 whose body is JSON ``null``."""

    schema: str | None = "Null"

    def reply(self, request: ApiRequest, result: Any, arguments: Mapping[str, Any]) -> Any:
        """Return null."""
        return None

    def read(self, exchange: Exchange) -> Any:
        """Return None."""
        return None


@dataclass(frozen=True)
class Created(Plain):
    """A stack created (or adopted): 201, its link and Location; a client gets its identity."""

    schema: str | None = "StackCreated"
    status: int = 201

    def reply(self, request: ApiRequest, result: Any, arguments: Mapping[str, Any]) -> Any:
        """Return Heat's 201: ``{"stack": {"id", "links"}}`` and the Location header."""
        stack = links.with_stack_links(request.base, result)
        return Reply(body={"stack": {"id": stack["id"], "links": stack["links"]}}, status=201,
                     headers={"Location": stack["links"][0]["href"]})

    def read(self, exchange: Exchange) -> Any:
        """Return ``{"id", "stack_name"}``."""
        return {"id": exchange.body["stack"]["id"],
                "stack_name": exchange.arguments["stack_name"]}


@dataclass(frozen=True)
class Found(Plain):
    """A stack lookup: 302 to the canonical URL, the sub-path and query kept.

    A client reads the stack's identity from the Location; ``name/id`` is
    one already and is not asked about.
    """

    schema: str | None = "Redirect"
    status: int = 302

    def reply(self, request: ApiRequest, result: Any, arguments: Mapping[str, Any]) -> Any:
        """Return Heat's 302 to the stack's canonical URL."""
        # lazy: the server's lookups (falcon); stackctl imports the answers to read them
        from hearth.api import lookup
        return lookup.redirect(request, result)

    def known(self, arguments: Mapping[str, Any]) -> Any:
        """Return the identity of ``name/id`` without asking (None: ask)."""
        name, _, stack_id = str(arguments["stack_identity"]).partition("/")
        return {"stack_name": name, "id": stack_id} if stack_id else None

    def read(self, exchange: Exchange) -> Any:
        """Return ``{"stack_name", "id"}`` from the Location."""
        name, stack_id = links.stack_of_url(exchange.headers.get("Location") or "")
        return {"stack_name": name, "id": stack_id}


@dataclass(frozen=True)
class StackListing(Plain):
    """Stack summaries: links, a next link when a page is full, the count, admins' projects."""

    schema: str | None = "StackList"

    def reply(self, request: ApiRequest, result: Any, arguments: Mapping[str, Any]) -> Any:
        """Return ``{"stacks": [...]}`` with ``links`` and ``count`` as asked."""
        body: dict[str, Any] = {"stacks": [self._listed(request, item) for item in result]}
        limit = request.query.get("limit")
        if limit and len(result) >= limit:
            pairs = urllib.parse.parse_qsl(request.raw.query_string, keep_blank_values=True)
            body["links"] = [{"rel": "next", "href": links.next_page(
                f"{request.base}/stacks", pairs, result[-1]["id"])}]
        if request.query.get("with_count"):
            selection = {key: value for key, value in arguments.items()
                         if key not in ("limit", "marker", "sort_keys", "sort_dir")}
            body["count"] = request.service.count_stacks(request.ctx, **selection)
        return body

    @staticmethod
    def _listed(request: ApiRequest, stack: Mapping[str, Any]) -> dict[str, Any]:
        """Return a list item: its links, and its ``project`` for an admin (as Heat)."""
        item = links.with_stack_links(request.base, stack)
        if request.ctx.is_admin:
            item = {"id": item["id"], "links": item["links"],
                    "project": stack["stack_user_project_id"], **item}
        return item

    def read(self, exchange: Exchange) -> Any:
        """Return the summaries, links turned back into fields."""
        return [links.without_links(item) for item in exchange.body["stacks"]]


@dataclass(frozen=True)
class StackDetails(StackListing):
    """Every listed stack in full (outputs not resolved)."""

    schema: str | None = "StackDetailList"

    def reply(self, request: ApiRequest, result: Any, arguments: Mapping[str, Any]) -> Any:
        """Return ``{"stacks": [...]}`` of full stack objects."""
        shown = [request.service.show_stack(request.ctx, f"{item['stack_name']}/{item['id']}",
                                            resolve_outputs=False) for item in result]
        return {"stacks": [links.with_stack_links(request.base, stack) for stack in shown]}


@dataclass(frozen=True)
class GraphPicture(Plain):
    """A graph's view: SVG by default, ``?format=dot`` DOT text, ``?format=json`` the data.

    A client asks for the data (:class:`~hearth.engine.stacks.graph_view.GraphView`'s)
    and draws it itself, as in-process.
    """

    schema: str | None = "StackGraph"
    media_types: tuple[str, ...] = (SVG_MEDIA_TYPE, DOT_MEDIA_TYPE)

    def reply(self, request: ApiRequest, result: Any, arguments: Mapping[str, Any]) -> Any:
        """Return the view in the asked format."""
        output_format = request.query.get("format", "svg")
        if output_format == "json":
            return result
        # lazy: the graph's drawing (networkx) only when the server draws it
        from hearth.engine.stacks import graph_dot, graph_view
        dot_text = graph_dot.to_dot(graph_view.GraphView.from_dict(result))
        if output_format == "dot":
            return Reply(body=dot_text, media_type=DOT_MEDIA_TYPE)
        return Reply(body=graphviz.render(dot_text, "svg"), media_type=SVG_MEDIA_TYPE)

    def ask(self, wire: WireRequest) -> None:
        """Ask for the data."""
        wire.query["format"] = "json"


@dataclass(frozen=True)
class Versions(Plain):
    """``GET /``: the API versions (300 Multiple Choices, as Heat)."""

    schema: str | None = "Versions"
    status: int = 300

    def reply(self, request: ApiRequest, result: Any, arguments: Mapping[str, Any]) -> Any:
        """Return the one version, v1."""
        href = f"{request.raw.prefix}/v1/"
        return Reply(status=300, body={"versions": [
            {"id": "v1.0", "status": "CURRENT", "links": [{"rel": "self", "href": href}]}]})


@dataclass(frozen=True)
class BuildInfo(Plain):
    """``GET /build_info``: the revisions of the API and the engine."""

    schema: str | None = "BuildInfo"

    def reply(self, request: ApiRequest, result: Any, arguments: Mapping[str, Any]) -> Any:
        """Return Hearth's version as both revisions."""
        return {"api": {"revision": __version__}, "engine": {"revision": __version__}}


@dataclass(frozen=True)
class OpenApiDocument(Plain):
    """``GET /v1/openapi.json``: this API's OpenAPI document."""

    schema: str | None = "OpenAPI"

    def reply(self, request: ApiRequest, result: Any, arguments: Mapping[str, Any]) -> Any:
        """Return the shipped document."""
        # lazy: the document's module imports the application (the routes) on the server
        from hearth.api import openapi
        return openapi.load_document()


@dataclass(frozen=True)
class JobAnswer(Plain):
    """A finished job (``{"job": ...}``); the client's result is the JobStatus again."""

    schema: str | None = "Job"

    def reply(self, request: ApiRequest, result: Any, arguments: Mapping[str, Any]) -> Any:
        """Return the status as data."""
        return {"job": result.to_dict()}

    def read(self, exchange: Exchange) -> Any:
        """Return the :class:`~hearth.master.job_status.JobStatus`."""
        return JobStatus.from_snapshot(exchange.body["job"])


@dataclass(frozen=True)
class Published(Plain):
    """A job published without waiting: 202 with its id and the agents it targeted."""

    schema: str | None = "Job"
    status: int = 202

    def reply(self, request: ApiRequest, result: Any, arguments: Mapping[str, Any]) -> Any:
        """Return the 202 ``{"jid", "targeted"}``."""
        return Reply(status=202, body={"jid": result.jid, "targeted": result.targeted})

    def read(self, exchange: Exchange) -> Any:
        """Return the :class:`~hearth.master.job_status.PublishResult`."""
        return PublishResult(jid=exchange.body["jid"], targeted=list(exchange.body["targeted"]))

"""How an argument of a service method travels over HTTP: in the path, the query or the body.

Each kind works both ways: ``write`` puts a value into the request a client
sends (:class:`~hearth.api.operation.WireRequest`); ``read`` takes it out of
the request the server got (:class:`~hearth.api.operation.ApiRequest`),
None meaning "not given": the service method's default applies, as when a
client sends ``null`` for an option (what Heat does too); a ``required``
argument (one without a default) is passed as None, for the service to
refuse it in its own words.  A client sends only the arguments a call gives
and that are not None.

The table (:mod:`hearth.api.operations`) builds its arguments with the
short constructors at the end: :func:`in_path`, :func:`in_query`,
:func:`in_body`, :func:`as_body`, :data:`STACK` and :data:`FILTERS`; a
client builds its request with :func:`wire_request`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from hearth.api.operation import ApiRequest, Operation, WireRequest
from hearth.api.params import Kind, Param, split_filters

if TYPE_CHECKING:
    from hearth.common.context import RequestContext


@dataclass(frozen=True)
class InPath:
    """A path segment: ``field`` of the route's path (quoted by the client)."""

    name: str
    field: str
    required: ClassVar[bool] = True

    def write(self, value: Any, wire: WireRequest) -> None:
        """Fill the path field."""
        wire.fields[self.field] = str(value)

    def read(self, request: ApiRequest) -> Any:
        """Return the path field."""
        return request.path[self.field]


@dataclass(frozen=True)
class StackInPath:
    """A stack named ``name/id`` (the canonical URL's two segments), or by name or id alone.

    A client sends a bare name or id to the stack's lookup URL, which the
    server answers with a 302 to the canonical one (followed by the client,
    the same method and body sent again), as Heat and heatclient do.
    """

    name: str = "stack_identity"
    required: ClassVar[bool] = True

    def write(self, value: Any, wire: WireRequest) -> None:
        """Fill ``stack_name`` (and ``stack_id`` when the identity has it)."""
        name, _, stack_id = str(value).partition("/")
        wire.fields["stack_name"] = name
        if stack_id:
            wire.fields["stack_id"] = stack_id

    def read(self, request: ApiRequest) -> Any:
        """Return ``name/id`` of the canonical URL."""
        return request.stack_identity


def query_value(param: Param | None, value: Any) -> Any:
    """Return how a client writes ``value`` in the query (a list: the key repeated)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        if param is not None and param.kind is Kind.CSV:
            return ",".join(str(item) for item in value)
        return [str(item) for item in value]
    return str(value)


@dataclass(frozen=True)
class InQuery:
    """A query key (one of the operation's query spec).

    ``reader`` (server) takes the whole parsed query and returns the value,
    for a default that depends on other keys (the events' order).
    """

    name: str
    key: str
    reader: Callable[[Mapping[str, Any]], Any] | None = None
    required: ClassVar[bool] = False

    def write(self, value: Any, wire: WireRequest) -> None:
        """Write the key, as its kind reads it back."""
        spec: Mapping[str, Param] = wire.operation.query or {}
        wire.query[self.key] = query_value(spec.get(self.key), value)

    def read(self, request: ApiRequest) -> Any:
        """Return the parsed value of the key."""
        if self.reader is not None:
            return self.reader(request.query)
        return request.query.get(self.key)


@dataclass(frozen=True)
class Filters:
    """The filter keys of the operation's query spec, as one ``{key: value}`` argument."""

    name: str = "filters"
    required: ClassVar[bool] = False

    def write(self, value: Any, wire: WireRequest) -> None:
        """Write each filter as its own query key."""
        wire.query.update({key: query_value(None, item) for key, item in value.items()})

    def read(self, request: ApiRequest) -> Any:
        """Return the filters given (None: none)."""
        return split_filters(request.query, request.operation.query or {}) or None


@dataclass(frozen=True)
class InBody:
    """A key of the JSON object body.

    ``read`` (server) takes the whole body and returns the value, for keys
    read as Heat reads them (a flag written as text, a template given by
    URL); ``encode`` (client) turns the value into what is sent.
    """

    name: str
    key: str
    reader: Callable[[Mapping[str, Any]], Any] | None = None
    encode: Callable[[Any], Any] | None = None
    required: bool = False

    def write(self, value: Any, wire: WireRequest) -> None:
        """Set the key in the body (an object)."""
        if not isinstance(wire.body, dict):
            wire.body = {}
        wire.body[self.key] = value if self.encode is None else self.encode(value)

    def read(self, request: ApiRequest) -> Any:
        """Return the key's value (BadRequest when the body is not an object)."""
        body = request.body_object()
        return self.reader(body) if self.reader is not None else body.get(self.key)


@dataclass(frozen=True)
class AsBody:
    """The whole body is the argument (a signal's details, a job's request)."""

    name: str
    decode: Callable[[Any], Any] | None = None
    encode: Callable[[Any], Any] | None = None
    required: ClassVar[bool] = False

    def write(self, value: Any, wire: WireRequest) -> None:
        """Send the value as the body."""
        wire.body = value if self.encode is None else self.encode(value)

    def read(self, request: ApiRequest) -> Any:
        """Return the body (decoded)."""
        return request.body if self.decode is None else self.decode(request.body)


@dataclass(frozen=True)
class FromContext:
    """An argument the server takes from who asks (the request's context), never sent.

    The admin role widens what the agents' listing shows, as Heat's
    ``global_tenant`` does for stacks; a client has nothing to write.
    """

    name: str
    of: Callable[[RequestContext], Any]
    required: ClassVar[bool] = False

    def write(self, value: Any, wire: WireRequest) -> None:
        """Send nothing: the server decides."""

    def read(self, request: ApiRequest) -> Any:
        """Return the value of the caller's context."""
        return self.of(request.ctx)


def in_path(name: str, field: str | None = None) -> InPath:
    """Return a path argument (``field`` defaults to the argument's name)."""
    return InPath(name, field or name)


def in_query(name: str, key: str | None = None,
             reader: Callable[[Mapping[str, Any]], Any] | None = None) -> InQuery:
    """Return a query argument (``key`` defaults to the argument's name)."""
    return InQuery(name, key or name, reader)


def in_body(name: str, key: str | None = None,
            reader: Callable[[Mapping[str, Any]], Any] | None = None,
            encode: Callable[[Any], Any] | None = None, required: bool = False) -> InBody:
    """Return a body argument (``key`` defaults to the argument's name)."""
    return InBody(name, key or name, reader, encode, required)


def from_context(name: str, of: Callable[[RequestContext], Any]) -> FromContext:
    """Return an argument the server reads from the caller's context."""
    return FromContext(name, of)


def as_body(name: str, decode: Callable[[Any], Any] | None = None,
            encode: Callable[[Any], Any] | None = None) -> AsBody:
    """Return an argument that is the whole body."""
    return AsBody(name, decode, encode)


#: The stack an operation acts on (``stack_identity``: name, id or ``name/id``).
STACK = StackInPath()
#: The filters of a listing (the filter keys of the operation's query spec).
FILTERS = Filters()


def wire_request(operation: Operation[..., Any], arguments: Mapping[str, Any]) -> WireRequest:
    """Return what a client sends to call ``operation`` with ``arguments`` (by name).

    Each declared argument given (not None) is written where it travels;
    an operation whose body is an object gets ``{}`` when none of its keys
    is given; the answer adds what it needs asked (the graph's data).
    """
    wire = WireRequest(operation)
    for arg in operation.args:
        value = arguments.get(arg.name)
        if value is not None:
            arg.write(value, wire)
    if wire.body is None and any(isinstance(arg, InBody) for arg in operation.args):
        wire.body = {}
    operation.answer.ask(wire)
    return wire

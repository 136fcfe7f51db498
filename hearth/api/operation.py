"""What one operation of the API is: its route, its arguments and answer on the wire, its policy.

An :class:`Operation` names the service method that serves it through a
*selector* (``lambda service: service.show_stack``), so that mypy checks
every client call against the real method's signature, and declares how
each of that method's arguments travels over HTTP (:mod:`hearth.api.arguments`:
the path, the query or the body) and how its result comes back
(:mod:`hearth.api.answers`).  From these declarations alone:

* the server (:mod:`hearth.api.routing`) reads a request into the service
  call and turns the result into Heat's answer;
* the client (:mod:`hearth.cli.backend`) calls an operation as a method:
  an operation read from an instance of a class holding the table (the
  :class:`Calls` of a backend) is that backend's method, typed as the
  service method is (minus its caller); over HTTP
  (:mod:`hearth.cli.backend_http`) it turns the call into the request and
  the answer back into the service's result, so ``stackctl`` prints the
  same whether the engine runs in its process, as its local engine or
  behind ``--url``;
* :mod:`hearth.api.openapi` documents both.

The table itself is :mod:`hearth.api.operations`.  This module is what a
``stackctl`` process imports before it reaches an engine: nothing of the
engine, Falcon or the database is imported here (the selectors run only
where a service exists).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, Protocol, TypeVar, overload

from hearth.api.params import NONE, QuerySpec
from hearth.common import exception

if TYPE_CHECKING:
    import falcon

    from hearth.common.context import RequestContext
    from hearth.engine.service.catalog import Catalog
    from hearth.engine.service.engine import EngineService
    from hearth.jobservice.callers import Caller
    from hearth.jobservice.service import JobService

P = ParamSpec("P")
R = TypeVar("R")
C = TypeVar("C")

#: The prefix of every tenant-scoped path; a client's base URL ends with it (``.../v1/demo``).
TENANT = "/v1/{tenant_id}"
#: Which service serves an operation: the engine, its catalog (no database), or the jobs.
ENGINE, CATALOG, JOBS = "engine", "catalog", "jobs"


@dataclass
class Reply:
    """An answer that is not a plain 200 with a JSON body."""

    body: Any = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    empty: bool = False
    #: media type of a body that is not JSON (``body`` is then text or bytes, sent as is)
    media_type: str | None = None


@dataclass
class ApiRequest:
    """What the server read of one request: who asks, the service, the parsed parts."""

    operation: Operation[..., Any]
    ctx: RequestContext
    service: Any
    path: dict[str, str]
    query: dict[str, Any]
    body: Any
    raw: falcon.Request

    @property
    def base(self) -> str:
        """Return the tenant URL (``http://host:port/v1/{tenant}``)."""
        return f"{self.raw.prefix}/v1/{self.path['tenant_id']}"

    @property
    def stack_identity(self) -> str:
        """Return ``name/id`` of the stack named in a canonical URL."""
        return f"{self.path['stack_name']}/{self.path['stack_id']}"

    def body_object(self) -> dict[str, Any]:
        """Return the body as a JSON object (an empty body is ``{}``); else BadRequest."""
        if self.body is None:
            return {}
        if not isinstance(self.body, dict):
            raise exception.BadRequest(
                message=f"The request body must be a JSON object, not "
                        f"{type(self.body).__name__}.")
        return self.body


@dataclass
class WireRequest:
    """What a client sends for one call: path fields, query and JSON body (None: no body)."""

    operation: Operation[..., Any]
    fields: dict[str, str] = field(default_factory=dict)
    query: dict[str, Any] = field(default_factory=dict)
    body: Any = None


class Headers(Protocol):
    """A response's headers as a client reads them, by name in any case."""

    def __getitem__(self, name: str, /) -> str | None:
        """Return the header's value (requests: KeyError, http.client: None when it is absent)."""

    def get(self, name: str, /) -> str | None:
        """Return the header's value, None when it is absent."""


@dataclass(frozen=True)
class Exchange:
    """What a client got back for one call, with the call's own arguments.

    ``url`` is the final one (after the 302 of a stack named by name or id).
    """

    url: str
    status: int
    headers: Headers
    body: Any
    arguments: Mapping[str, Any]


class Arg(Protocol):
    """How one argument of the service method travels (:mod:`hearth.api.arguments`)."""

    @property
    def name(self) -> str:
        """Return the service method's parameter."""

    @property
    def required(self) -> bool:
        """Return whether the parameter has no default (a missing value is passed as None)."""

    def write(self, value: Any, wire: WireRequest) -> None:
        """Put ``value`` into the request a client sends."""

    def read(self, request: ApiRequest) -> Any:
        """Return the value the server read (None: not given; the service default applies)."""


class Answer(Protocol):
    """How a result comes back (:mod:`hearth.api.answers`)."""

    @property
    def status(self) -> int:
        """Return the HTTP status of a success."""

    @property
    def schema(self) -> str | None:
        """Return the OpenAPI schema name of the JSON answer."""

    @property
    def media_types(self) -> tuple[str, ...]:
        """Return the media types the answer may have besides JSON."""

    def reply(self, request: ApiRequest, result: Any, arguments: Mapping[str, Any]) -> Any:
        """Return the server's answer (a JSON body, or a :class:`Reply`)."""

    def ask(self, wire: WireRequest) -> None:
        """Add what a client must send to get the answer it reads (most need nothing)."""

    def known(self, arguments: Mapping[str, Any]) -> Any:
        """Return the result without asking (None: ask the server)."""

    def read(self, exchange: Exchange) -> Any:
        """Return the service's result from the answer a client got."""


class Calls(Protocol):
    """What a table's operations become methods of: a client that calls an operation."""

    def call(self, operation: Operation[..., Any], arguments: dict[str, Any]) -> Any:
        """Return the result of ``operation`` called with ``arguments`` (by name)."""


def require_admin(ctx: RequestContext, what: str) -> None:
    """Raise Forbidden unless the caller holds the admin role."""
    if not ctx.is_admin:
        raise exception.Forbidden(f"Only the admin role may {what}.")


@dataclass(frozen=True)
class Policy:
    """Who may call an operation, and what the server checks before it reads the arguments.

    ``authenticated``: a token is needed (else anyone, as ``GET /``);
    ``signal_token``: the resource's own signal token also serves (wait
    condition handles); ``admin_flags``: query flags only an admin may set,
    each with what it does (said in the refusal); ``checks``: functions of
    the request run first (a quota); ``local_only``: the operation is the
    local engine's alone (its value names it in the refusal elsewhere).
    """

    authenticated: bool = True
    signal_token: bool = False
    admin_flags: Mapping[str, str] = field(default_factory=dict)
    checks: tuple[Callable[[ApiRequest], None], ...] = ()
    local_only: str | None = None

    def check(self, request: ApiRequest) -> None:
        """Refuse ``request`` when the policy says so."""
        for flag, what in self.admin_flags.items():
            if request.query.get(flag):
                require_admin(request.ctx, what)
        for check in self.checks:
            check(request)


@dataclass(frozen=True)
class Operation(Generic[P, R]):
    """One operation: a route (method and path), its arguments, answer, policy and server.

    ``select(service)`` picks the service method that serves it (None: the
    answer needs no service, as the API's version list); ``part`` says
    which service that is (:data:`ENGINE`, :data:`CATALOG` or :data:`JOBS`).
    ``args`` declare the method's parameters in its signature's order;
    ``fixed`` are parameters the route itself decides (a PATCH is an update
    with ``existing``).  ``query`` is every query key the route accepts
    (``None``: any, passed on), ``body`` the schema name of the request body
    (None: no body is read).
    ``applies`` makes the operation a variant of another on the same route,
    chosen by the body (an adopt is a create with ``adopt_stack_data``).
    ``runs`` wraps the server's call (the jobs run on a worker thread).
    ``provides`` feeds the OpenAPI links: path parameter -> where a success
    answer holds its value.

    Read from a :class:`Calls` instance (``backend.show_stack``), an
    operation is a method: the call goes to the operation of the same
    service method that fits its arguments (:meth:`route`).
    """

    #: the table's name of the operation (its attribute's in the table: :func:`collect`)
    name: str
    method: str
    path: str
    summary: str
    answer: Answer
    select: Callable[[Any], Callable[Concatenate[Any, P], R]] | None = None
    part: str = ENGINE
    args: tuple[Arg, ...] = ()
    fixed: Mapping[str, Any] = field(default_factory=dict)
    query: QuerySpec | None = field(default_factory=lambda: NONE)
    body: str | None = None
    policy: Policy = Policy()
    applies: Callable[[Any], bool] | None = None
    runs: Callable[[Callable[[], Any]], Any] | None = None
    provides: Mapping[str, str] = field(default_factory=dict)
    #: the name of the service method serving it (set by :func:`collect`)
    serves: str = field(default="", compare=False)
    #: the table's operations served by the same method, this one among them (:func:`collect`)
    variants: tuple[Operation[..., Any], ...] = field(default=(), compare=False, repr=False)
    #: the parameters a positional call fills, in the method's order (:func:`collect`)
    positional: tuple[str, ...] = field(default=(), compare=False, repr=False)

    @overload
    def __get__(self, instance: None, owner: type[Any]) -> Operation[P, R]: ...

    @overload
    def __get__(self, instance: Calls, owner: type[Any]) -> Callable[P, R]: ...

    def __get__(self, instance: Calls | None, owner: type[Any]) -> Any:
        """Return the operation (read from a class) or a client's method (from a Calls)."""
        if instance is None:
            return self

        def method(*args: P.args, **kwargs: P.kwargs) -> R:
            operation, arguments = self.route(args, kwargs)
            result: R = instance.call(operation, arguments)
            return result
        method.__name__ = self.serves or self.name
        method.__doc__ = self.summary
        return method

    def route(self, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> tuple[
            Operation[..., Any], dict[str, Any]]:
        """Return the operation serving a client's call and the call's arguments by name.

        Among the :attr:`variants`, the one whose ``fixed`` arguments the
        call gives (a PATCH for ``existing=True``), else the one that takes
        every argument given (not None) and is given every required one (a
        resource's events when a ``resource_name`` is given, else the
        stack's), the operation named after the method first.

        :raises TypeError: too many positional arguments, or no variant fits.
        """
        names = self.positional or tuple(arg.name for arg in self.args)
        if len(args) > len(names):
            raise TypeError(f"{self.serves or self.name}() takes {len(names)} arguments, "
                            f"{len(args)} given")
        arguments = {**dict(zip(names, args, strict=False)), **kwargs}
        given = {name for name, value in arguments.items() if value is not None}
        fitting = [op for op in self.variants or (self,) if op.fits(arguments, given)]
        if not fitting:
            raise TypeError(f"{self.serves or self.name}() got arguments no operation takes: "
                            f"{', '.join(sorted(given))}")
        chosen = min(fitting, key=lambda op: (-len(op.fixed), op.name != op.serves))
        return chosen, arguments

    def fits(self, arguments: Mapping[str, Any], given: set[str]) -> bool:
        """Return whether this operation serves a call of ``arguments`` (``given``: not None)."""
        declared = {arg.name for arg in self.args}
        return (all(arguments.get(name) == value for name, value in self.fixed.items())
                and given <= declared | set(self.fixed)
                and all(arg.name in given for arg in self.args if arg.required))

    def invoke(self, service: Any, caller: Any, arguments: Mapping[str, Any]) -> Any:
        """Call the serving method of ``service`` for ``caller`` (a context, a job caller)."""
        if self.select is None:
            raise TypeError(f"{self.name} is served by no service method")
        method: Callable[..., Any] = self.select(service)
        return method(caller, **arguments)

    def bound(self, service: Any, ctx: RequestContext) -> Callable[P, R]:
        """Return the service method serving this operation, bound to ``ctx``'s caller.

        ``service`` is the operation's ``part``: an EngineService, a Catalog
        or a JobService (whose caller is the one ``ctx`` stands for).
        """
        if self.select is None:
            raise TypeError(f"{self.name} is served by no service method")
        caller = service.caller_for(ctx.project_id) if self.part == JOBS else ctx
        return _bound(self.select(service), caller)

    @property
    def tenant_path(self) -> str:
        """Return the path below the tenant URL (what a client appends to its base URL)."""
        return self.path.removeprefix(TENANT)



def _bound(method: Callable[Concatenate[C, P], R], first: C) -> Callable[P, R]:
    """Return ``method`` with its first argument (the caller) given."""
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        return method(first, *args, **kwargs)
    return call


def engine_op(select: Callable[[EngineService], Callable[Concatenate[RequestContext, P], R]],
              method: str, path: str, summary: str, answer: Answer,
              **declared: Any) -> Operation[P, R]:
    """Return an operation that the :class:`EngineService` method ``select`` picks serves."""
    return Operation("", method, path, summary, answer, select=select, part=ENGINE, **declared)


def catalog_op(select: Callable[[Catalog], Callable[Concatenate[RequestContext, P], R]],
               method: str, path: str, summary: str, answer: Answer,
               **declared: Any) -> Operation[P, R]:
    """Return an operation a :class:`Catalog` serves (templates, types: no database needed)."""
    return Operation("", method, path, summary, answer, select=select, part=CATALOG,
                     **declared)


def job_op(select: Callable[[JobService], Callable[Concatenate[Caller, P], R]],
           method: str, path: str, summary: str, answer: Answer,
           **declared: Any) -> Operation[P, R]:
    """Return an operation of the :class:`JobService`, for the caller a request's context is.

    ``select`` may pick a method of the service's key or pillar service
    (``lambda jobs: jobs.keys.list_keys``): the same callers, master and rights.

    On a server it runs on a worker thread (the service blocks; the API's
    green threads keep serving), and a server without a hearth-master says so.
    """
    declared.setdefault("runs", on_worker_thread)
    return Operation("", method, path, summary, answer, select=select, part=JOBS, **declared)


def on_worker_thread(call: Callable[[], R]) -> R:
    """Run a JobService call on a worker thread; a missing master is NotSupported."""
    # lazy: eventlet only on the server (stackctl imports the table, never runs it)
    from hearth.common.green import run_blocking
    try:
        result: R = run_blocking(call)
    except exception.KeyFileError as error:
        raise exception.NotSupported(
            feature=f"Jobs, agents, keys and pillar on an API without a hearth-master "
                    f"({error})") from None
    return result


class _MethodName(str):
    """A stand-in service whose attributes are their own names (what a selector picks).

    So are theirs: ``jobs.keys.list_keys`` (the JobService's key service) is
    ``list_keys``.
    """

    def __getattr__(self, name: str) -> _MethodName:
        return _MethodName(name)


def collect(table: type) -> tuple[Operation[..., Any], ...]:
    """Return the operations of a table class, in its order; name and group them.

    ``show_stack = engine_op(...)`` is the operation ``show_stack``.  Each
    learns the service method it serves, the operations served by the same
    method (its variants: a client's call picks among them) and the
    parameters a positional call fills (the variants' declared arguments,
    merged in the method's order).
    """
    found = [value for value in vars(table).values() if isinstance(value, Operation)]
    for attribute, value in vars(table).items():
        if isinstance(value, Operation):
            object.__setattr__(value, "name", attribute)
            if value.select is not None:
                object.__setattr__(value, "serves", str(value.select(_MethodName())))
    for operation in found:
        if not operation.serves:
            continue
        variants = tuple(op for op in found if op.serves == operation.serves)
        object.__setattr__(operation, "variants", variants)
        object.__setattr__(operation, "positional", _merged(
            [tuple(arg.name for arg in op.args) for op in variants]))
    return tuple(found)


def _merged(orders: list[tuple[str, ...]]) -> tuple[str, ...]:
    """Return the names of several orders of one signature's parameters, in that order."""
    merged = list(sorted(orders, key=len, reverse=True)[0])
    for order in orders:
        for index, name in enumerate(order):
            if name not in merged:
                before = order[index - 1] if index else None
                merged.insert(merged.index(before) + 1 if before else 0, name)
    return tuple(merged)

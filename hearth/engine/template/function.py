"""The base of every intrinsic function and the walkers over parsed snippets.

A template snippet is parsed once into a tree where each function call
(``{get_param: x}``) is replaced by a :class:`Function` object; everything
else stays plain data.  Three walkers serve every caller:

- :func:`resolve` gives the value of a snippet,
- :func:`validate` checks every function's arguments statically,
- :func:`dependencies` yields the names of the resources a snippet refers to;
- :func:`is_unknown` tells whether a snippet's value cannot be known yet
  (while validating: it reads a resource, or a parameter given no value).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from hearth.common import exception

if TYPE_CHECKING:
    from hearth.engine.template.context import ResolutionContext


class Function:
    """One parsed intrinsic function call.

    ``args`` are already parsed (they may contain Functions).  ``path`` is
    the key path of the call from the template root and ``line`` its line,
    used in error messages.  Subclasses implement :meth:`result` and, where
    they can check something before resolution, :meth:`validate`.
    """

    #: first line of the docstring is the description shown by
    #: ``template-function-list``.

    def __init__(self, context: ResolutionContext, fn_name: str, args: Any,
                 path: tuple[Any, ...] = (), line: int | None = None) -> None:
        self.context = context
        self.fn_name = fn_name
        self.args = args
        self.path = path
        self.line = line

    def validate(self) -> None:
        """Check the arguments' shape; recurse into nested functions."""
        validate(self.args)

    def result(self) -> Any:
        """Return the value of the call."""
        raise NotImplementedError

    def dependencies(self) -> Iterator[str]:
        """Yield the names of resources this call needs (recursing into args)."""
        yield from dependencies(self.args)

    def dep_attrs(self, resource_name: str) -> Iterator[str]:
        """Yield the attribute names of ``resource_name`` this call reads."""
        yield from dep_attrs(self.args, resource_name)

    def reads_unknown(self) -> bool:
        """Return whether this call itself reads a value not known yet (its args aside).

        Resources are not known while validating (see :func:`is_unknown`);
        a function reading something else that may be unknown (a parameter
        given no value) says so here.
        """
        return False

    def reads_parameter(self) -> bool:
        """Return whether this call itself reads a parameter (its args aside)."""
        return False

    def parameter_name(self) -> str | None:
        """Return the parameter this call reads when its name is literal (else None)."""
        return None

    def error(self, message: str, cls: type[exception.StackValidationFailed] | None = None
              ) -> exception.StackValidationFailed:
        """Build a validation error located at this call (path and line)."""
        cls = cls or exception.StackValidationFailed
        return cls(f"{self.fn_name}: {message}", path=self.path, line=self.line)

    def __reduce__(self) -> Any:  # pragma: no cover - functions are never pickled
        raise TypeError("Function objects cannot be pickled")

    def __repr__(self) -> str:
        return f"{{{self.fn_name!r}: {self.args!r}}}"

    def __eq__(self, other: object) -> bool:
        """Compare by resolved value, so that snippets can be compared for updates."""
        if isinstance(other, Function):
            return self.fn_name == other.fn_name and self.args == other.args
        return False

    __hash__ = None  # type: ignore[assignment]


class Macro(Function):
    """A function evaluated once at parse time (``if``, condition references).

    Its ``parsed`` attribute holds the chosen branch; every walker looks
    through the macro to that branch.
    """

    parsed: Any = None

    def result(self) -> Any:
        """Return the value of the chosen branch."""
        return resolve(self.parsed)

    def validate(self) -> None:
        """Validate the chosen branch."""
        validate(self.parsed)

    def dependencies(self) -> Iterator[str]:
        """Yield the dependencies of the chosen branch only."""
        yield from dependencies(self.parsed)

    def dep_attrs(self, resource_name: str) -> Iterator[str]:
        """Yield attributes read by the chosen branch only."""
        yield from dep_attrs(self.parsed, resource_name)


class _Absent:
    """Marker for an item a 2-argument ``if`` removed (2021-04-16)."""

    _instance: _Absent | None = None

    def __new__(cls) -> _Absent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "<absent>"

    def __bool__(self) -> bool:
        return False


#: The value a nullable ``if`` resolves to when its condition is false: the
#: enclosing list item, map entry or property is dropped as if not written.
ABSENT = _Absent()


def resolve(snippet: Any) -> Any:
    """Return the value of ``snippet``, calling every Function in it.

    Items that resolve to :data:`ABSENT` are dropped from their list or map.
    """
    if isinstance(snippet, Function):
        return resolve(snippet.result())
    if isinstance(snippet, Mapping):
        result = {}
        for key, value in snippet.items():
            resolved = resolve(value)
            if resolved is not ABSENT:
                result[resolve(key)] = resolved
        return result
    if isinstance(snippet, list):
        return [item for item in (resolve(v) for v in snippet) if item is not ABSENT]
    return snippet


def validate(snippet: Any) -> None:
    """Validate every Function in ``snippet``."""
    if isinstance(snippet, Function):
        snippet.validate()
    elif isinstance(snippet, Mapping):
        for value in snippet.values():
            validate(value)
    elif isinstance(snippet, list):
        for value in snippet:
            validate(value)


def dependencies(snippet: Any) -> Iterator[str]:
    """Yield the names of the resources ``snippet`` refers to (may repeat)."""
    if isinstance(snippet, Function):
        yield from snippet.dependencies()
    elif isinstance(snippet, Mapping):
        for value in snippet.values():
            yield from dependencies(value)
    elif isinstance(snippet, list):
        for value in snippet:
            yield from dependencies(value)


def is_unknown(snippet: Any) -> bool:
    """Return whether ``snippet`` reads a value that is not known yet.

    While validating, that is any resource (its reference and attributes
    exist only once it is created) and a parameter given no value (a
    provider template's property fed by another resource's attribute).
    """
    if any(True for _ in dependencies(snippet)):
        return True
    return any(call.reads_unknown() for call in calls(snippet))


def calls(snippet: Any) -> Iterator[Function]:
    """Yield every Function in ``snippet``, outermost first (arguments included)."""
    if isinstance(snippet, Macro):
        yield snippet
        yield from calls(snippet.parsed)  # the chosen branch only
    elif isinstance(snippet, Function):
        yield snippet
        yield from calls(snippet.args)
    elif isinstance(snippet, Mapping):
        for value in snippet.values():
            yield from calls(value)
    elif isinstance(snippet, list):
        for value in snippet:
            yield from calls(value)


def dep_attrs(snippet: Any, resource_name: str) -> Iterator[str]:
    """Yield the attributes of ``resource_name`` that ``snippet`` reads."""
    if isinstance(snippet, Function):
        yield from snippet.dep_attrs(resource_name)
    elif isinstance(snippet, Mapping):
        for value in snippet.values():
            yield from dep_attrs(value, resource_name)
    elif isinstance(snippet, list):
        for value in snippet:
            yield from dep_attrs(value, resource_name)

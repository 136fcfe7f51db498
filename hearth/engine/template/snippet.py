"""Turn raw template data into a tree of Function objects.

A single-key mapping whose key names a function of the version's table
becomes that Function (its arguments parsed first); everything else stays
data.  Normal snippets use the ``functions`` table; the ``conditions``
section and the ``condition`` keys use ``condition_functions``, where a
normal function is invalid.  Located containers keep their lines, so that
later errors can still name them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hearth.common import exception
from hearth.common.located import LocatedDict, LocatedList, line_of
from hearth.engine.template.functions.removed import Removed
from hearth.engine.template.versions import TemplateVersion

if TYPE_CHECKING:
    from hearth.engine.template.context import ResolutionContext


class SnippetParser:
    """Parse snippets of one template version, for normal or condition use."""

    def __init__(self, version: TemplateVersion, context: ResolutionContext,
                 for_conditions: bool = False) -> None:
        self.version = version
        self.context = context
        self.for_conditions = for_conditions

    def function_class(self, name: str, path: tuple[Any, ...], line: int | None) -> Any:
        """Return the Function class for ``name``, None for data; raise for misuse."""
        entry = None
        if self.for_conditions:
            entry = self.version.condition_functions.get(name)
            if entry is None and self.version.is_function(name):
                raise exception.StackValidationFailed(
                    f'The function "{name}" is invalid in this context (only '
                    f'{", ".join(self.version.condition_functions)} may be used in '
                    f'conditions)', path=path, line=line)
        if entry is None:
            entry = self.version.functions.get(name)
        if entry is Removed:
            raise exception.StackValidationFailed(
                f"The template version is invalid: The function {name} is not supported in "
                "this version of HOT.", path=path, line=line)
        return entry

    def parse(self, snippet: Any, path: tuple[Any, ...] = (), line: int | None = None) -> Any:
        """Return ``snippet`` with every function call replaced by its Function."""
        if isinstance(snippet, Mapping):
            if len(snippet) == 1:
                (name, args), = snippet.items()
                call_line = line_of(snippet, name) or line
                cls = self.function_class(name, path, call_line) if isinstance(name, str) else None
                if cls is not None:
                    return cls(self.context, name, self._parse_args(cls, args, (*path, name),
                                                                    call_line),
                               path=tuple(path), line=call_line)
            items = {key: self.parse(value, (*path, key), line_of(snippet, key) or line)
                     for key, value in snippet.items()}
            if isinstance(snippet, LocatedDict):
                return LocatedDict(items, line=snippet.line, lines=snippet.lines)
            return items
        if isinstance(snippet, list):
            elements = [self.parse(value, (*path, index), line_of(snippet, index) or line)
                        for index, value in enumerate(snippet)]
            if isinstance(snippet, LocatedList):
                return LocatedList(elements, line=snippet.line, lines=snippet.lines)
            return elements
        return snippet

    def _parse_args(self, cls: type, args: Any, path: tuple[Any, ...], line: int | None) -> Any:
        """Parse a function's arguments; some list items may be condition expressions."""
        positions = getattr(cls, "condition_arguments", ())
        if not positions or not isinstance(args, list):
            return self.parse(args, path, line)
        conditions = SnippetParser(self.version, self.context, for_conditions=True)
        items = [(conditions if index in positions else self).parse(
                    value, (*path, index), line_of(args, index) or line)
                 for index, value in enumerate(args)]
        if isinstance(args, LocatedList):
            return LocatedList(items, line=args.line, lines=args.lines)
        return items


def parse_snippet(version: TemplateVersion, context: ResolutionContext, snippet: Any,
                  path: tuple[Any, ...] | list[Any] = (), line: int | None = None) -> Any:
    """Return ``snippet`` parsed with the normal function table of ``version``.

    ``path`` is the key path of ``snippet`` from the template root and
    ``line`` its line when ``snippet`` itself carries none.  Raises a located
    StackValidationFailed for a function this version removed.
    """
    return SnippetParser(version, context).parse(snippet, tuple(path), line)


def parse_condition(version: TemplateVersion, context: ResolutionContext, snippet: Any,
                    path: tuple[Any, ...] | list[Any] = (), line: int | None = None) -> Any:
    """Return a condition expression parsed with the condition function table."""
    return SnippetParser(version, context, for_conditions=True).parse(snippet, tuple(path), line)

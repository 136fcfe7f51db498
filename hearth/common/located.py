"""Containers that remember the template line of each key and item.

The YAML parser builds :class:`LocatedDict` and :class:`LocatedList`
instead of plain dicts and lists.  They behave exactly like dict and list
(they compare equal to them and serialise the same), and additionally keep
``line`` (where the container starts, 1-based) and ``lines`` (the line of
each key, or of each list item).  :func:`line_of` reads them safely from
any value, located or not.  (The parser, which makes them, teaches YAML's
safe dumper to write them as the dict and list they are; this module needs
no YAML, so that what reads a located error does not load it.)
"""

from __future__ import annotations

from typing import Any


class LocatedDict(dict):
    """A dict with the source line of itself and of each key."""

    __slots__ = ("line", "lines")

    def __init__(self, *args: Any, line: int | None = None,
                 lines: dict[Any, int] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.line = line
        self.lines = dict(lines or {})


class LocatedList(list):
    """A list with the source line of itself and of each item."""

    __slots__ = ("line", "lines")

    def __init__(self, *args: Any, line: int | None = None,
                 lines: list[int] | None = None) -> None:
        super().__init__(*args)
        self.line = line
        self.lines = list(lines or [])


def line_of(container: Any, key: Any = None) -> int | None:
    """Return the line of ``container[key]`` (or of the container), if known."""
    if key is None:
        return getattr(container, "line", None)
    lines = getattr(container, "lines", None)
    if isinstance(lines, dict):
        return lines.get(key, getattr(container, "line", None))
    if isinstance(lines, list) and isinstance(key, int) and 0 <= key < len(lines):
        return lines[key]
    return getattr(container, "line", None)


def line_at(document: Any, path: Any) -> int | None:
    """Return the line of the deepest item of ``path`` found in ``document`` (if known)."""
    line = None
    node = document
    for key in path or ():
        try:
            found = line_of(node, key)
            node = node[key]
        except (KeyError, IndexError, TypeError):
            break
        line = found if found is not None else line
    return line


def plain(value: Any) -> Any:
    """Return ``value`` with located containers turned into plain dicts and lists."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value

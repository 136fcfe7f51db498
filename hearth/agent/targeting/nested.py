"""Match ``key:sub:value`` expressions against nested data, as Salt's grain and pillar targets do.

The expression is split on the delimiter (``:`` unless the compound word
chose another, as in ``G;@ec2;tags;env;prod``).  Every split point is tried,
deepest first: ``a:b:c`` looks for ``data[a][b]`` matching ``c``, then
``data[a]`` matching ``b:c``, so values that contain the delimiter still
match.  What "matching" means depends on what the key path leads to:

* a scalar: the value, as lower-case text (``True`` is ``true``, ``4`` is
  ``4``), matches the pattern, also lower-cased;
* a list: any member matches (members that are mappings are searched as
  below);
* a mapping: the pattern is ``*`` (any key), names a key, matches a key, or
  matches a nested expression inside it; ``*:`` before the pattern searches
  every value of the mapping.

How a value matches a pattern is one of :data:`VALUE_MATCHERS`: ``glob``
(fnmatch), ``pcre`` (``re.match``, anchored at the start only) or ``exact``.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

_MISSING = object()


def _glob(value: str, pattern: str) -> bool:
    return fnmatch.fnmatchcase(value, pattern)


def _pcre(value: str, pattern: str) -> bool:
    try:
        return re.match(pattern, value) is not None
    except re.error:
        return False  # only a shallower split's pattern can be bad; the deepest is checked first


def _exact(value: str, pattern: str) -> bool:
    return value == pattern


#: How one value is compared with one pattern (both already lower-cased).
VALUE_MATCHERS: dict[str, Callable[[str, str], bool]] = {
    "glob": _glob,
    "pcre": _pcre,
    "exact": _exact,
}


def match_nested(data: Mapping[str, Any], expression: str, delimiter: str = ":",
                 mode: str = "glob") -> bool:
    """Return whether ``expression`` (``key[:key...]:pattern``) matches ``data``."""
    parts = expression.split(delimiter)
    for split in range(len(parts) - 1, 0, -1):
        key = delimiter.join(parts[:split])
        if key == "*":
            found, pattern = data, expression
        else:
            found, pattern = lookup_path(data, parts[:split]), delimiter.join(parts[split:])
        if found is _MISSING or (isinstance(found, Mapping) and not found):
            continue
        if _match_found(found, pattern, delimiter, mode):
            return True
    return False


def lookup_path(data: Any, path: Sequence[str]) -> Any:
    """Return the value at ``path`` in nested mappings and lists, or a private sentinel.

    In a list a numeric segment is an index (or a key of a mapping member);
    another segment is looked up in the first mapping member that has it.
    A mapping key that is not found as text is tried as a number too, so
    ``num:1`` finds ``{1: ...}``.
    """
    node = data
    for segment in path:
        if isinstance(node, list):
            node = _lookup_in_list(node, segment)
        elif isinstance(node, Mapping):
            node = _lookup_in_mapping(node, segment)
        else:
            return _MISSING
        if node is _MISSING:
            return _MISSING
    return node


def _lookup_in_list(items: list, segment: str) -> Any:
    try:
        key: Any = int(segment)
    except ValueError:
        key = segment
    for member in (item for item in items if isinstance(item, Mapping)):
        if key in member:
            return member[key]
    if isinstance(key, int):
        try:
            return items[key]
        except IndexError:
            return _MISSING
    return _MISSING


def _lookup_in_mapping(mapping: Mapping, segment: str) -> Any:
    if segment in mapping:
        return mapping[segment]
    for convert in (int, float):
        try:
            number = convert(segment)
        except ValueError:
            continue
        return mapping.get(number, _MISSING)
    return _MISSING


def _match_found(found: Any, pattern: str, delimiter: str,
                 mode: str) -> bool:
    if isinstance(found, Mapping):
        return _match_mapping(found, pattern, delimiter, mode)
    if isinstance(found, (list, tuple)):
        return any(
            (isinstance(member, Mapping) and _match_mapping(member, pattern, delimiter, mode))
            or _match_value(member, pattern, mode)
            for member in found)
    return _match_value(found, pattern, mode)


def _match_value(value: Any, pattern: str, mode: str) -> bool:
    return VALUE_MATCHERS[mode](str(value).lower(), pattern.lower())


def _match_mapping(mapping: Mapping, pattern: str, delimiter: str,
                   mode: str) -> bool:
    search_values = pattern.startswith("*:")
    if search_values:
        pattern = pattern[2:]
    if pattern == "*" or pattern in mapping:
        return True
    if any(_match_value(key, pattern, mode) for key in mapping):
        return True
    if delimiter in pattern and match_nested(mapping, pattern, delimiter, mode):
        return True
    return search_values and any(
        _match_found(value, pattern, delimiter, mode) for value in mapping.values())


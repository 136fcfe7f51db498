"""Expand nodegroups (named targets from the master's configuration) into compound words.

A nodegroup is a compound expression (a string, or a list of words) that may
name other nodegroups with ``N@``.  Each expansion is wrapped in parentheses,
so ``N@group and x`` always means "(the group) and x".  (Salt leaves an
expansion without nested groups unwrapped, so there ``a or b and x`` binds
as ``a or (b and x)``; Hearth treats a nodegroup as one operand.)

As in Salt, a definition made only of plain words (no operator, no ``*``,
no ``X@`` prefix) is a list of agent ids, or a regular expression when a
word holds regular-expression characters.  A cycle (``a`` uses ``b`` uses
``a``) and an unknown name are errors that say which groups are involved.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from hearth.common.exception import did_you_mean

OPERATORS = frozenset({"and", "or", "not", "(", ")"})
_ENGINE_WORD = re.compile(r"^[A-Z]@")
_REGEX_CHARACTERS = frozenset("([{\\?}])")


class NodegroupError(ValueError):
    """A nodegroup is unknown, malformed or part of a cycle (the text says which)."""


def expand_nodegroup(name: str, nodegroups: Mapping[str, Any] | None,
                     path: Sequence[str] = ()) -> list[str]:
    """Return the compound words of nodegroup ``name``, parenthesized, nested groups expanded."""
    nodegroups = nodegroups or {}
    if name in path:
        cycle = [*path[path.index(name):], name]
        raise NodegroupError(f"nodegroups refer to each other in a cycle: {' -> '.join(cycle)}")
    if name not in nodegroups:
        where = f" (used by nodegroup {path[-1]!r})" if path else ""
        known = ", ".join(sorted(nodegroups)) or "none are configured"
        raise NodegroupError(f"unknown nodegroup {name!r}{where}; known: {known}."
                             f"{did_you_mean(name, nodegroups)}")
    words = _definition_words(name, nodegroups[name])
    expanded: list[str] = ["("]
    for word in words:
        if word.startswith("N@") and len(word) > 2:
            expanded.extend(expand_nodegroup(word[2:], nodegroups, [*path, name]))
        else:
            expanded.append(word)
    expanded.append(")")
    return expanded


def _definition_words(name: str, definition: Any) -> list[str]:
    if isinstance(definition, str):
        words = definition.split()
    elif isinstance(definition, (list, tuple)):
        words = [str(word) for word in definition]
    else:
        raise NodegroupError(f"nodegroup {name!r} must be a string or a list, "
                             f"not {type(definition).__name__}")
    if not words:
        raise NodegroupError(f"nodegroup {name!r} is empty")
    if _is_plain(words):
        joined = ",".join(words)
        regex = any(_REGEX_CHARACTERS & set(word) for word in words)
        return [f"E@{joined}" if regex else f"L@{joined}"]
    return words


def _is_plain(words: Sequence[str]) -> bool:
    """Return whether ``words`` are bare names: no operator, no wildcard, no engine prefix."""
    return not any(word in OPERATORS or "*" in word or _ENGINE_WORD.match(word)
                   for word in words)

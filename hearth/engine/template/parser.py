"""Turn template and environment text into located dicts and lists.

JSON is tried first when the text looks like JSON, then YAML.  The YAML
loader is a SafeLoader whose mappings and sequences are
:class:`~hearth.common.located.LocatedDict` /
:class:`~hearth.common.located.LocatedList`, recording the 1-based
line of every key and item; unquoted dates stay strings (``2016-10-14`` is
a version, not a date) and a key written twice in one mapping is an error
naming both lines.  Every document is bounded as it is read
(:mod:`hearth.common.document_bounds`): nested at most ``MAX_DEPTH`` deep,
and no larger than ``max_template_size`` with its YAML aliases expanded.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from hearth.common import document_bounds, exception
from hearth.common.located import LocatedDict, LocatedList
from hearth.common.text import NotUtf8, decode_utf8
from hearth.engine.limits import check_template_size, template_size_limit

_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
_BaseLoader = document_bounds.BoundedSafeLoader

#: What the top level must be, per kind of document (Heat's wording).
NOT_A_MAPPING = {
    "template": "The template is not a JSON object or YAML mapping.",
    "environment": "The environment is not a valid YAML mapping data type.",
}


# Located containers serialise as the plain dict and list they are, in YAML too
# (JSON already sees them as dict and list): every safe dumper knows them.
yaml.SafeDumper.add_representer(LocatedDict, yaml.SafeDumper.represent_dict)
yaml.SafeDumper.add_representer(LocatedList, yaml.SafeDumper.represent_list)


class LocatedLoader(_BaseLoader):
    """A bounded safe YAML loader that keeps lines and leaves dates as strings."""

    yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != _TIMESTAMP_TAG]
        for first, resolvers in _BaseLoader.yaml_implicit_resolvers.items()
    }

    def construct_located_mapping(self, node: yaml.MappingNode) -> LocatedDict:
        """Build a LocatedDict; a duplicate key is an error naming both lines."""
        self.flatten_mapping(node)
        result = LocatedDict(line=node.start_mark.line + 1)
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                seen = key in result.lines
            except TypeError:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark,
                    "found unhashable key", key_node.start_mark) from None
            if seen:
                raise DuplicateKey(key, result.lines[key], line)
            result[key] = self.construct_object(value_node, deep=True)
            result.lines[key] = line
        return result

    def construct_located_sequence(self, node: yaml.SequenceNode) -> LocatedList:
        """Build a LocatedList with the line of every item."""
        return LocatedList(
            (self.construct_object(child, deep=True) for child in node.value),
            line=node.start_mark.line + 1,
            lines=[child.start_mark.line + 1 for child in node.value],
        )


LocatedLoader.add_constructor("tag:yaml.org,2002:map", LocatedLoader.construct_located_mapping)
LocatedLoader.add_constructor("tag:yaml.org,2002:seq", LocatedLoader.construct_located_sequence)


class DuplicateKey(Exception):
    """A key appears twice in one mapping (internal; turned into a located error)."""

    def __init__(self, key: Any, first_line: int, second_line: int) -> None:
        super().__init__(key)
        self.key = key
        self.first_line = first_line
        self.second_line = second_line


def decode(text: str | bytes, filename: str | None = None) -> str:
    """Return the text of a template or environment; StackValidationFailed unless UTF-8."""
    if isinstance(text, str):
        return text
    try:
        return decode_utf8(text)
    except NotUtf8 as exc:
        raise exception.StackValidationFailed(
            str(exc), error="Error parsing template", line=exc.line,
            filename=filename) from None


def _check_size(text: str | bytes, filename: str | None) -> None:
    check_template_size(text, filename)


def _looks_like_json(text: str) -> bool:
    return text.lstrip().startswith("{")


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise DuplicateKey(key, 0, 0)
        result[key] = value
    return result


def _load_json(text: str, filename: str | None) -> Any:
    """Return the JSON document, located through the YAML loader where it can."""
    try:
        data = document_bounds.load_json(text, object_pairs_hook=_reject_duplicates)
    except document_bounds.DocumentTooComplex as exc:
        raise exception.StackValidationFailed(
            str(exc), error="Error parsing template", filename=filename) from None
    except json.JSONDecodeError as exc:
        raise exception.StackValidationFailed(
            exc.msg, error="Error parsing template", line=exc.lineno, column=exc.colno,
            filename=filename) from None
    except DuplicateKey:
        _load_yaml(text, filename)  # raises the same error with both lines when it can
        raise
    try:
        located = _load_yaml(text, filename)
    except exception.HearthException:
        return data
    return located if located == data else data


#: What a YAML error caused by a tab says (PyYAML's words do not name the tab).
TAB_PROBLEM = "found a tab character: YAML indents with spaces only, never tabs"


def _tab_column(text: str, mark: yaml.Mark) -> int | None:
    """Return the 1-based column of the tab that caused a YAML error at ``mark``, if one did.

    The tab is the character at the mark, or one in the indentation before it.
    """
    lines = text.splitlines()
    if mark.line >= len(lines):
        return None
    line = lines[mark.line]
    if line[mark.column:mark.column + 1] == "\t":
        return mark.column + 1
    indentation = line[:len(line) - len(line.lstrip(" \t"))]
    if "\t" in indentation and mark.column <= len(indentation):
        return indentation.index("\t") + 1
    return None


def _load_yaml(text: str, filename: str | None) -> Any:
    try:
        return document_bounds.load_yaml(text, template_size_limit(), LocatedLoader)
    except document_bounds.ExpansionTooLarge as exc:
        raise exception.TemplateSizeExceeded(exc.size, exc.limit, filename,
                                               expanded=True) from None
    except document_bounds.DocumentTooComplex as exc:
        raise exception.StackValidationFailed(
            str(exc), error="Error parsing template", line=exc.line,
            filename=filename) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        column = mark.column + 1 if mark else None
        tab = _tab_column(text, mark) if mark else None
        if tab is not None:
            problem, column = TAB_PROBLEM, tab
        raise exception.StackValidationFailed(
            problem, error="Error parsing template", line=mark.line + 1 if mark else None,
            column=column, filename=filename) from None
    except yaml.YAMLError as exc:
        raise exception.StackValidationFailed(
            str(exc), error="Error parsing template", filename=filename) from None


def parse(text: str | bytes, filename: str | None = None,
          kind: str = "template", check_size: bool = True) -> LocatedDict:
    """Parse a template (or, with ``kind="environment"``, an environment).

    Raises TemplateSizeExceeded over ``max_template_size`` (unless
    ``check_size`` is False: a client leaves the limit, the server's
    setting, to the server) and StackValidationFailed (naming ``filename``
    and the line) for syntax errors, duplicate keys and a top level that is
    not a mapping.  An empty document is an empty mapping.
    """
    if check_size:
        _check_size(text, filename)
    text = decode(text, filename)
    try:
        data = _load_json(text, filename) if _looks_like_json(text) else _load_yaml(text, filename)
    except DuplicateKey as dup:
        lines = (f" (lines {dup.first_line} and {dup.second_line})"
                 if dup.first_line else "")
        raise exception.StackValidationFailed(
            f'duplicate key "{dup.key}"{lines}', error="Error parsing template",
            line=dup.second_line or None, filename=filename) from None
    if data is None:
        return LocatedDict(line=1)
    if not isinstance(data, dict):
        raise exception.StackValidationFailed(NOT_A_MAPPING[kind], filename=filename, line=1)
    return data if isinstance(data, LocatedDict) else locate(data)


def locate(value: Any) -> Any:
    """Return ``value`` with plain dicts and lists turned into located ones (no lines)."""
    if isinstance(value, dict) and not isinstance(value, LocatedDict):
        return LocatedDict({key: locate(item) for key, item in value.items()})
    if isinstance(value, list) and not isinstance(value, LocatedList):
        return LocatedList(locate(item) for item in value)
    return value

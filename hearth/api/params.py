"""Parse query strings: the keys each endpoint accepts are data.

A :data:`QuerySpec` maps a key to a :class:`Param` (its kind, allowed
values and help text).  :func:`parse_query` turns the raw query string into
typed values and rejects unknown keys and bad values with
:class:`~hearth.common.exception.BadRequest` naming the key.  The same specs
describe the query parameters in the OpenAPI document.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from falcon import uri

from hearth.common import exception


class Kind(enum.Enum):
    """How a query value is read."""

    STR = "string"         # one value
    BOOL = "boolean"       # true / false, any case
    INT = "integer"        # a non-negative integer
    LIST = "list"          # repeatable key: always a list
    FILTER = "filter"      # repeatable key: a string, or a list when repeated
    CSV = "csv"            # one comma-separated value: a list


@dataclass(frozen=True)
class Param:
    """One accepted query key."""

    kind: Kind
    help: str
    choices: tuple[str, ...] = ()


QuerySpec = Mapping[str, Param]


def _filter(help_text: str) -> Param:
    return Param(Kind.FILTER, help_text)


SORT_DIR = Param(Kind.STR, "Sort direction.", ("asc", "desc"))
LIMIT = Param(Kind.INT, "Most items returned.")
MARKER = Param(Kind.STR, "Id of the last item of the previous page.")

STACK_LIST: QuerySpec = {
    "id": _filter("Filter by stack id."),
    "name": _filter("Filter by stack name."),
    "stack_name": _filter("Filter by stack name."),
    "status": _filter("Filter by status (COMPLETE) or full status (CREATE_COMPLETE)."),
    "stack_status": _filter("Filter by full status."),
    "action": _filter("Filter by action (CREATE, UPDATE...)."),
    "tenant": _filter("Filter by project (admin with global_tenant)."),
    "username": _filter("Filter by the user who created the stack."),
    "owner_id": _filter("Filter by parent stack id."),
    "limit": LIMIT,
    "marker": MARKER,
    "sort_keys": Param(Kind.LIST, "Sort keys.",
                       ("stack_name", "stack_status", "creation_time", "updated_time")),
    "sort_dir": SORT_DIR,
    "show_deleted": Param(Kind.BOOL, "Include deleted stacks."),
    "show_nested": Param(Kind.BOOL, "Include nested stacks."),
    "show_hidden": Param(Kind.BOOL, "Include hidden stacks."),
    "global_tenant": Param(Kind.BOOL, "List the stacks of every project (admin only)."),
    "with_count": Param(Kind.BOOL, "Add the number of matching stacks as 'count'."),
    "tags": Param(Kind.CSV, "Stacks having all these tags."),
    "tags_any": Param(Kind.CSV, "Stacks having any of these tags."),
    "not_tags": Param(Kind.CSV, "Stacks not having all these tags."),
    "not_tags_any": Param(Kind.CSV, "Stacks not having any of these tags."),
}

STACK_SHOW: QuerySpec = {
    "resolve_outputs": Param(Kind.BOOL, "Resolve output values (default true)."),
}

SHOW_NESTED: QuerySpec = {
    "show_nested": Param(Kind.BOOL, "Include nested stacks."),
}

RESOURCE_LIST: QuerySpec = {
    "nested_depth": Param(Kind.INT, "Depth of nested stacks whose resources are listed."),
    "with_detail": Param(Kind.BOOL, "Add description and attributes."),
    "type": _filter("Filter by resource type."),
    "status": _filter("Filter by resource status."),
    "name": _filter("Filter by resource name."),
    "action": _filter("Filter by resource action."),
    "id": _filter("Filter by resource id."),
    "physical_resource_id": _filter("Filter by physical resource id."),
}

RESOURCE_SHOW: QuerySpec = {
    "with_attr": Param(Kind.LIST, "Attributes to show besides the default ones."),
}

EVENT_LIST: QuerySpec = {
    "limit": LIMIT,
    "marker": MARKER,
    "sort_keys": Param(Kind.LIST, "Sort keys.", ("event_time", "resource_type")),
    "sort_dir": SORT_DIR,
    "nested_depth": Param(Kind.INT, "Depth of nested stacks whose events are listed."),
    "resource_status": _filter("Filter by resource status."),
    "resource_action": _filter("Filter by resource action."),
    "resource_name": _filter("Filter by resource name."),
    "resource_type": _filter("Filter by resource type."),
}

VALIDATE: QuerySpec = {
    "show_nested": Param(Kind.BOOL, "Validate nested templates and show their parameters."),
    "ignore_errors": Param(Kind.CSV, "Error codes to ignore."),
}

TEMPLATE_FUNCTIONS: QuerySpec = {
    "with_condition_func": Param(Kind.BOOL, "Include condition functions."),
}

RESOURCE_TYPE_LIST: QuerySpec = {
    "name": Param(Kind.STR, "Filter by type name (a glob or prefix)."),
    "version": Param(Kind.STR, "Filter by the version types were added in."),
    "support_status": Param(Kind.STR, "Filter by support status.",
                            ("UNKNOWN", "SUPPORTED", "DEPRECATED", "UNSUPPORTED", "HIDDEN")),
    "with_description": Param(Kind.BOOL, "Return {resource_type, description} items."),
}

RESOURCE_TYPE_SHOW: QuerySpec = {
    "with_description": Param(Kind.BOOL, "Add the type's description."),
}

TYPE_TEMPLATE: QuerySpec = {
    "template_type": Param(Kind.STR, "Template format of the generated template.",
                           ("hot", "cfn")),
}

STACK_GRAPH: QuerySpec = {
    "format": Param(Kind.STR, "What to answer: an SVG picture (default), Graphviz DOT text, "
                              "or the graph as JSON.", ("svg", "dot", "json")),
}

NONE: QuerySpec = {}

ANY: QuerySpec | None = None  # lookups pass every key on to the canonical URL

_TRUE_FALSE = {"true": True, "false": False}


def _parse_bool(key: str, value: str) -> bool:
    try:
        return _TRUE_FALSE[value.lower()]
    except KeyError:
        raise exception.BadRequest(
            message=f"Unrecognized value '{value}' for '{key}', acceptable values are: "
                    "true, false") from None


#: the largest integer a request may carry (what the database's integers hold)
MAX_INTEGER = 2**63 - 1


def check_integer_range(key: str, number: int) -> int:
    """Return ``number`` if the database can hold it; else BadRequest naming ``key``."""
    if number > MAX_INTEGER:
        raise exception.BadRequest(
            message=f"Invalid value for '{key}': {number} is larger than {MAX_INTEGER}.")
    return number


def _parse_int(key: str, value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise exception.BadRequest(
            message=f"Only integer is acceptable by '{key}'.") from None
    if number < 0:
        raise exception.BadRequest(
            message=f"Only non-negative integer is acceptable by '{key}'.")
    return check_integer_range(key, number)


_SCALAR_READERS = {
    Kind.STR: lambda key, value: value,
    Kind.BOOL: _parse_bool,
    Kind.INT: _parse_int,
    Kind.CSV: lambda key, value: [item.strip() for item in value.split(",") if item.strip()],
}


def _check_choices(key: str, param: Param, values: list[str]) -> None:
    for value in values:
        if param.choices and value not in param.choices:
            raise exception.BadRequest(
                message=f"Invalid value '{value}' for '{key}', acceptable values are: "
                        + ", ".join(param.choices))


def parse_value(key: str, param: Param, raw: str | list[str]) -> Any:
    """Return the typed value of one query key (``raw`` is a list when repeated)."""
    values = raw if isinstance(raw, list) else [raw]
    _check_choices(key, param, values)
    if param.kind is Kind.LIST:
        return list(values)
    if param.kind is Kind.FILTER:
        return values[0] if len(values) == 1 else list(values)
    if len(set(values)) > 1:
        # heatclient re-sends its query to a redirect's Location, which keeps the
        # query already: the same value twice is one value.
        raise exception.BadRequest(message=f"The query key '{key}' may be given only once.")
    return _SCALAR_READERS[param.kind](key, values[0])


def parse_query(spec: QuerySpec | None, query_string: str) -> dict[str, Any]:
    """Return the typed query values; unknown keys and bad values raise BadRequest.

    ``spec`` None accepts every key as a string (lookups that redirect).
    """
    raw = uri.parse_query_string(query_string or "", keep_blank=True)
    if spec is None:
        return dict(raw)
    unknown = sorted(set(raw) - set(spec))
    if unknown:
        raise exception.BadRequest(
            message=f"Invalid query parameter(s): {', '.join(unknown)}. "
                    f"Accepted: {', '.join(sorted(spec)) or 'none'}.")
    return {key: parse_value(key, spec[key], value) for key, value in raw.items()}


def split_filters(query: Mapping[str, Any], spec: QuerySpec) -> dict[str, Any]:
    """Return the FILTER-kind entries of a parsed query (what engines call filters)."""
    return {key: value for key, value in query.items() if spec[key].kind is Kind.FILTER}

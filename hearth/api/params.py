"""Parse query strings: the keys each endpoint accepts are data.

A :class:`QuerySpec` maps a key to a :class:`Param` (its kind, allowed
values and help text).  :func:`parse_query` turns the raw query string into
typed values and refuses bad values with
:class:`~hearth.common.exception.BadRequest` naming the key.  What it lets
pass is what Heat's API lets pass (checked against real Heat:
``tests/functional/api/request_cases.yaml``): keys an endpoint does not know
are ignored (the resource list refuses them), an empty value is mostly the
key not given, a key given twice takes its last value.  The same specs
describe the query parameters in the OpenAPI document.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from hearth.common import exception
from hearth.common.text import holds_nul


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
    #: an empty value (``?limit=``) is the key not given; else it is read (and may be bad)
    blank_is_absent: bool = True
    #: values that are not ``choices`` are dropped, not refused (Heat's sort keys)
    drop_others: bool = False
    #: ``choices`` match in any case (the value is lowered)
    any_case: bool = False


class QuerySpec(dict[str, Param]):
    """The query keys of one endpoint; others are ignored, or refused when ``strict``."""

    def __init__(self, entries: Mapping[str, Param] | None = None, *,
                 strict: bool = False) -> None:
        super().__init__(entries or {})
        self.strict = strict


def _filter(help_text: str) -> Param:
    return Param(Kind.FILTER, help_text)


def _flag(help_text: str) -> Param:
    """Return a boolean key whose empty value is a bad value (Heat reads these directly)."""
    return Param(Kind.BOOL, help_text, blank_is_absent=False)


SORT_DIR = Param(Kind.STR, "Sort direction.", ("asc", "desc"))
LIMIT = Param(Kind.INT, "Most items returned.")
MARKER = Param(Kind.STR, "Id of the last item of the previous page.")

STACK_LIST = QuerySpec({
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
    "sort_keys": Param(Kind.LIST, "Sort keys (others are ignored).",
                       ("stack_name", "stack_status", "creation_time", "updated_time"),
                       drop_others=True),
    "sort_dir": SORT_DIR,
    "show_deleted": Param(Kind.BOOL, "Include deleted stacks."),
    "show_nested": Param(Kind.BOOL, "Include nested stacks."),
    "show_hidden": Param(Kind.BOOL, "Include hidden stacks."),
    "global_tenant": _flag("List the stacks of every project (admin only)."),
    "with_count": Param(Kind.BOOL, "Add the number of matching stacks as 'count'."),
    "tags": Param(Kind.CSV, "Stacks having all these tags."),
    "tags_any": Param(Kind.CSV, "Stacks having any of these tags."),
    "not_tags": Param(Kind.CSV, "Stacks not having all these tags."),
    "not_tags_any": Param(Kind.CSV, "Stacks not having any of these tags."),
})

STACK_SHOW = QuerySpec({
    "resolve_outputs": _flag("Resolve output values (default true)."),
})

SHOW_NESTED = QuerySpec({
    "show_nested": Param(Kind.BOOL, "Include nested stacks."),
})

RESOURCE_LIST = QuerySpec({
    "nested_depth": Param(Kind.INT, "Depth of nested stacks whose resources are listed.",
                          blank_is_absent=False),
    "with_detail": _flag("Add description and attributes."),
    "type": _filter("Filter by resource type."),
    "status": _filter("Filter by resource status."),
    "name": _filter("Filter by resource name."),
    "action": _filter("Filter by resource action."),
    "id": _filter("Filter by resource id."),
    "physical_resource_id": _filter("Filter by physical resource id."),
}, strict=True)

RESOURCE_SHOW = QuerySpec({
    "with_attr": Param(Kind.LIST, "Attributes to show besides the default ones."),
})

EVENT_LIST = QuerySpec({
    "limit": LIMIT,
    "marker": MARKER,
    "sort_keys": Param(Kind.LIST, "Sort keys (others are ignored).",
                       ("event_time", "resource_type"), drop_others=True),
    "sort_dir": SORT_DIR,
    "nested_depth": Param(Kind.INT, "Depth of nested stacks whose events are listed."),
    "resource_status": _filter("Filter by resource status."),
    "resource_action": _filter("Filter by resource action."),
    "resource_name": _filter("Filter by resource name."),
    "resource_type": _filter("Filter by resource type."),
})

VALIDATE = QuerySpec({
    "show_nested": Param(Kind.BOOL, "Validate nested templates and show their parameters."),
    "ignore_errors": Param(Kind.CSV, "Error codes to ignore."),
})

TEMPLATE_FUNCTIONS = QuerySpec({
    "with_condition_func": _flag("Include condition functions."),
})

RESOURCE_TYPE_LIST = QuerySpec({
    "name": Param(Kind.STR, "Filter by type name (a glob or prefix)."),
    "version": Param(Kind.STR, "Filter by the version types were added in."),
    "support_status": Param(Kind.STR, "Filter by support status.",
                            ("UNKNOWN", "SUPPORTED", "DEPRECATED", "UNSUPPORTED", "HIDDEN"),
                            blank_is_absent=False),
    "with_description": _flag("Return {resource_type, description} items."),
})

RESOURCE_TYPE_SHOW = QuerySpec({
    "with_description": _flag("Add the type's description."),
})

TYPE_TEMPLATE = QuerySpec({
    "template_type": Param(Kind.STR, "Template format of the generated template.",
                           ("hot", "cfn"), blank_is_absent=False, any_case=True),
})

STACK_GRAPH = QuerySpec({
    "format": Param(Kind.STR, "What to answer: an SVG picture (default), Graphviz DOT text, "
                              "or the graph as JSON.", ("svg", "dot", "json")),
})

TEMPLATE_GRAPH = QuerySpec({
    **STACK_GRAPH,
    "name": Param(Kind.STR, "The graph's title (default: template)."),
})

NONE = QuerySpec()

ANY: QuerySpec | None = None  # lookups pass every key on to the canonical URL

_TRUE_FALSE = {"true": True, "false": False}


def _parse_bool(key: str, value: str) -> bool:
    try:
        return _TRUE_FALSE[value.lower()]
    except KeyError:
        raise exception.BadRequest(
            message=f'Unrecognized value "{value}" for "{key}", acceptable values are: '
                    "true, false.") from None


def body_bool(key: str, value: Any) -> bool | None:
    """Return a body's boolean given as true/false or as its text in any case (None stays)."""
    if value is None or isinstance(value, bool):
        return value
    return _parse_bool(key, str(value))


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
            message=f"Value '{value}' is invalid for '{key}' which only accepts "
                    "non-negative integer.")
    return check_integer_range(key, number)


_SCALAR_READERS: dict[Kind, Callable[[str, str], Any]] = {
    Kind.STR: lambda key, value: value,
    Kind.BOOL: _parse_bool,
    Kind.INT: _parse_int,
    Kind.CSV: lambda key, value: [item.strip() for item in value.split(",") if item.strip()],
}


def _chosen(key: str, param: Param, values: list[str]) -> list[str]:
    """Return ``values`` within ``param.choices`` (others dropped or refused)."""
    if not param.choices:
        return values
    if param.any_case:
        values = [value.lower() for value in values]
    if param.drop_others:
        return [value for value in values if value in param.choices]
    for value in values:
        if value not in param.choices:
            raise exception.BadRequest(
                message=f"Invalid value '{value}' for '{key}', acceptable values are: "
                        + ", ".join(param.choices))
    return values


def parse_value(key: str, param: Param, raw: str | list[str]) -> Any:
    """Return the typed value of one query key (``raw`` is a list when repeated)."""
    values = _chosen(key, param, raw if isinstance(raw, list) else [raw])
    if param.kind is Kind.LIST:
        return list(values)
    if param.kind is Kind.FILTER:
        return values[0] if len(values) == 1 else list(values)
    # a key given twice is its last value (heatclient also re-sends its query
    # to a redirect's Location, which keeps the query already)
    return _SCALAR_READERS[param.kind](key, values[-1])


def refuse_nul(where: str, key: str, value: str | list[str]) -> None:
    """Raise TextWithNul naming ``key`` if ``value`` holds a NUL character.

    No name, id or filter Hearth stores can hold one (PostgreSQL's text
    cannot), so such a value would match nothing; it is refused up front,
    a clear 400 rather than the database driver's error.
    """
    if holds_nul(value):
        raise exception.TextWithNul(f"{where} '{key}'")


def parse_query(spec: Mapping[str, Param] | None, query_string: str) -> dict[str, Any]:
    """Return the typed query values; bad values (and unknown keys if strict) raise BadRequest.

    ``spec`` None accepts every key as a string (lookups that redirect).
    """
    # lazy: falcon is the server's; stackctl reads the specs and never parses a query
    from falcon import uri
    raw = uri.parse_query_string(query_string or "", keep_blank=True)
    for key, value in raw.items():
        refuse_nul("query parameter", key, [key, *([value] if isinstance(value, str) else value)])
    if spec is None:
        return dict(raw)
    unknown = sorted(set(raw) - set(spec))
    if unknown and getattr(spec, "strict", False):
        raise exception.BadRequest(
            message=f"Invalid query parameter(s): {', '.join(unknown)}. "
                    f"Accepted: {', '.join(sorted(spec)) or 'none'}.")
    parsed = {}
    for key, value in raw.items():
        param = spec.get(key)
        if param is None or (param.blank_is_absent and not _given(value)):
            continue
        parsed[key] = parse_value(key, param, value)
    return parsed


def _given(value: str | list[str]) -> bool:
    """Return whether a query value says something (not only empty strings)."""
    return any(value) if isinstance(value, list) else bool(value)


def split_filters(query: Mapping[str, Any], spec: Mapping[str, Param]) -> dict[str, Any]:
    """Return the FILTER-kind entries of a parsed query (what engines call filters)."""
    return {key: value for key, value in query.items() if spec[key].kind is Kind.FILTER}

"""Sorting and marker (keyset) pagination of list queries.

A list is ordered by the requested keys, then by the row's id (the stable
tie-break), all in one direction.  The page after a marker is selected by
the marker row's own sort values, so pages never skip or repeat rows.
Nullable sort columns are compared through ``COALESCE`` with a low
sentinel, so a NULL sorts first in ascending order on every dialect.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Select, and_, false, or_, select
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from hearth.common import exception

SORT_DIRECTIONS = ("asc", "desc")


def check_sort_dir(sort_dir: str | None, default: str) -> str:
    """Return the sort direction, ``default`` when not given (BadRequest if unknown)."""
    direction = (sort_dir or default).lower()
    if direction not in SORT_DIRECTIONS:
        raise exception.BadRequest(
            message=f'Invalid sort direction "{sort_dir}". Allowed: asc, desc.')
    return direction


def sort_expressions(sort_keys: Sequence[str] | None, allowed: Mapping[str, ColumnElement],
                     default: Sequence[str]) -> list[ColumnElement]:
    """Map API sort keys to column expressions (InvalidSortKey if unknown)."""
    expressions = []
    for key in sort_keys or default:
        if key not in allowed:
            raise exception.InvalidSortKey(key, sorted(allowed))
        expressions.append(allowed[key])
    return expressions


def _after(expressions: Sequence[ColumnElement], values: Sequence[Any],
           direction: str) -> ColumnElement:
    """Return 'row comes after the marker' for lexicographic ordering."""
    clauses = []
    for index, expression in enumerate(expressions):
        equal = [expressions[i] == values[i] for i in range(index)]
        beyond = expression > values[index] if direction == "asc" else expression < values[index]
        clauses.append(and_(*equal, beyond))
    return or_(false(), *clauses)


def paginate(query: Select, expressions: Sequence[ColumnElement], id_column: ColumnElement,
             direction: str, limit: int | None = None,
             marker_values: Sequence[Any] | None = None) -> Select:
    """Order ``query`` by ``expressions`` then ``id_column``; apply marker and limit.

    ``marker_values`` are the marker row's values of ``expressions`` and its
    id, read with :func:`marker_query_columns`.
    """
    ordered = [*expressions, id_column]
    if marker_values is not None:
        query = query.where(_after(ordered, marker_values, direction))
    order = [e.asc() if direction == "asc" else e.desc() for e in ordered]
    query = query.order_by(*order)
    if limit is not None:
        if limit < 0:
            raise exception.BadRequest(message=f"Invalid limit {limit}: must not be negative.")
        query = query.limit(limit)
    return query


def marker_query_columns(expressions: Sequence[ColumnElement],
                         id_column: ColumnElement) -> list[ColumnElement]:
    """Return the columns to read from the marker row (for ``marker_values``)."""
    return [*expressions, id_column]


#: what an unknown marker means: an error naming the entity, a row sorting
#: before every row, or no marker at all
UNKNOWN_MARKER_POLICIES = ("refuse", "oldest", "ignore")


def fetch_page(session: Session, query: Select, expressions: Sequence[ColumnElement],
               id_column: ColumnElement, direction: str, limit: int | None,
               marker: Any, marker_column: ColumnElement, entity: str,
               unknown_marker: str = "refuse") -> list[Any]:
    """Return one page of ``query``, starting after the row whose ``marker_column`` is ``marker``.

    An unknown marker is EntityNotFound naming ``entity`` (e.g. "Event
    marker") with ``unknown_marker`` "refuse"; with "oldest" it is taken
    to sort before every row (rows that only ever vanish oldest first, such
    as purged events), so an ascending page starts at the first row and a
    descending page is empty; with "ignore" the page is the first one.
    """
    assert unknown_marker in UNKNOWN_MARKER_POLICIES, unknown_marker
    marker_values = None
    if marker is not None:
        marker_values = session.execute(
            select(*marker_query_columns(expressions, id_column))
            .where(marker_column == marker)).first()
        if marker_values is None and unknown_marker == "refuse":
            raise exception.EntityNotFound(entity=entity, name=marker)
        if marker_values is None and unknown_marker == "oldest" and direction == "desc":
            return []
    return list(session.scalars(paginate(query, expressions, id_column, direction, limit,
                                         marker_values)))

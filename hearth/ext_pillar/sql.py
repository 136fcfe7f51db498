"""ext_pillar sql: pillar data from SQL queries over SQLAlchemy (any database URL).

::

    ext_pillar:
      - sql:
          url: postgresql://cmdb@db/cmdb
          queries:
            - "SELECT key, value FROM settings WHERE host = :minion_id"
            - query: "SELECT app, key, value FROM app_settings WHERE host = %s"
              depth: 2
              as_list: false
              ignore_null: true
          users: "SELECT name, uid FROM users"

``:minion_id`` (or Salt's ``%s``) is bound to the agent id.  ``queries``
merge at the top level in order; any other key names a query whose results
go under that key (Salt's named queries).  Rows fold into nested dicts by
column order (:mod:`._rows`).  Connection and query errors are errors
naming the query; the URL's password is never shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import create_engine, exc, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from hearth.common.exception import CommandExecutionError
from hearth.ext_pillar._rows import fold_rows
from hearth.pillar.merge import merge_recurse

QUERY_OPTIONS = ("query", "depth", "as_list", "ignore_null")


def _spec(name: str, query: Any) -> dict[str, Any]:
    spec = dict(query) if isinstance(query, Mapping) else {"query": query}
    unknown = sorted(set(spec) - set(QUERY_OPTIONS))
    if not isinstance(spec.get("query"), str) or unknown:
        problem = f"unknown options {unknown}" if unknown else "no 'query' text"
        raise CommandExecutionError(f"sql: query {name}: {problem}")
    return spec


def _run(connection: Any, name: str, spec: Mapping[str, Any], minion_id: str) -> dict[str, Any]:
    sql = spec["query"].replace("%s", ":minion_id")
    try:
        result = connection.execute(text(sql), {"minion_id": minion_id}
                                    if ":minion_id" in sql else {})
        columns, rows = list(result.keys()), result.fetchall()
    except exc.SQLAlchemyError as error:
        connection.rollback()
        reason = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
        raise CommandExecutionError(f"sql: query {name} failed: {reason}") from error
    return fold_rows(rows, columns, int(spec.get("depth") or 0), bool(spec.get("as_list")),
                     bool(spec.get("ignore_null")))


def ext_pillar(minion_id: str, pillar: Any, *args: Any, url: str | None = None,
               queries: list[Any] | None = None, **named: Any) -> dict[str, Any]:
    """Return the data of every query, positional and listed first, then the named ones."""
    if not url:
        raise CommandExecutionError("sql: no database url given")
    plan = [(f"#{i}", _spec(f"#{i}", q), None)
            for i, q in enumerate([*args, *(queries or [])], 1)]
    plan += [(name, _spec(name, q), name) for name, q in named.items()]
    try:
        shown = make_url(url).render_as_string(hide_password=True)
        engine = create_engine(url, poolclass=NullPool)
    except (exc.ArgumentError, ImportError, ValueError) as error:
        raise CommandExecutionError(f"sql: bad database url: {error}") from error
    data: dict[str, Any] = {}
    try:
        with engine.connect() as connection:
            for name, spec, key in plan:
                rows = _run(connection, f"{name} on {shown}", spec, minion_id)
                data = merge_recurse(data, {key: rows} if key else rows)
    except exc.SQLAlchemyError as error:
        reason = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
        raise CommandExecutionError(f"sql: cannot connect to {shown}: {reason}") from error
    finally:
        engine.dispose()
    return data

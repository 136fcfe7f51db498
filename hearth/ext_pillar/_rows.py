"""Fold SQL result rows into nested pillar data, as Salt's sql_base does (not a module).

With ``n`` columns and ``depth`` (default ``n - 1``): the first ``depth - 1``
columns are nested keys; when ``depth == n - 1`` the next column is the last
key and the final column its value, otherwise the column at ``depth`` keys a
dict of the remaining columns by column name.  ``as_list`` turns repeated
keys into lists of values; ``ignore_null`` skips NULL values.  A single
column holds JSON objects merged in as they are.
"""

from __future__ import annotations

import datetime
import decimal
import json
from collections.abc import Sequence
from typing import Any


def plain(value: Any) -> Any:
    """Return a SQL value as plain data (Decimal as int/float, dates as ISO text)."""
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, (datetime.date, datetime.time, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, (bytes, memoryview)):
        return bytes(value).decode("utf-8", errors="replace")
    return value


def _put(node: dict[str, Any], key: Any, value: Any, as_list: bool, ignore_null: bool) -> None:
    if value is None and ignore_null:
        return
    if as_list and key in node:
        current = node[key]
        node[key] = [*current, value] if isinstance(current, list) else [current, value]
    else:
        node[key] = value


def _descend(node: dict[str, Any], key: Any) -> dict[str, Any]:
    if not isinstance(node.get(key), dict):
        node[key] = {}
    return node[key]


def fold_rows(rows: Sequence[Sequence[Any]], columns: Sequence[str], depth: int = 0,
              as_list: bool = False, ignore_null: bool = False) -> dict[str, Any]:
    """Return the nested dict the rows describe."""
    width = len(columns)
    result: dict[str, Any] = {}
    if width == 1:
        for (value,) in rows:
            if value is not None:
                result.update(json.loads(value) if isinstance(value, (str, bytes)) else value)
        return result
    depth = width - 1 if depth <= 0 or depth >= width else depth
    for raw in rows:
        row = [plain(value) for value in raw]
        node = result
        for key in row[:depth - 1]:
            node = _descend(node, key)
        if depth == width - 1:
            _put(node, row[width - 2], row[width - 1], as_list, ignore_null)
            continue
        node = _descend(node, row[depth - 1])
        for name, value in zip(columns[depth:], row[depth:], strict=True):
            _put(node, name, value, as_list, ignore_null)
    return result

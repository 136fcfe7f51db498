"""Render command results as a table, JSON, YAML or bare values."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TextIO

ALL_FORMATS = ("table", "json", "yaml", "value")


def add_format_argument(parser: argparse.ArgumentParser, formats: Sequence[str] = ALL_FORMATS,
                        default: str | None = None) -> None:
    """Add the long-only ``--format`` option (``-f`` is the template file)."""
    parser.add_argument("--format", choices=list(formats), default=default or formats[0],
                        help="Output format (default: %(default)s).")


def yaml_text(data: Any, **options: Any) -> str:
    """Return ``data`` as block-style YAML in its own key order (no final newline)."""
    # lazy: PyYAML only for what is shown as YAML (a listing of plain values needs none)
    import yaml
    text: str = yaml.safe_dump(data, default_flow_style=False, sort_keys=False, **options)
    return text.rstrip()


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        if not value:
            return json.dumps(value)
        return yaml_text(value, width=78)
    return str(value)


def _table(headers: Sequence[str], rows: Iterable[Sequence[Any]], stream: TextIO) -> None:
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        for index, text in enumerate(row):
            longest = max((len(line) for line in text.splitlines()), default=0)
            widths[index] = max(widths[index], longest)
    border = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    print(border, file=stream)
    heading = " | ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    print(f"| {heading} |", file=stream)
    print(border, file=stream)
    for row in cells:
        split = [text.splitlines() or [""] for text in row]
        height = max(len(lines) for lines in split)
        for line_no in range(height):
            parts = [(lines[line_no] if line_no < len(lines) else "").ljust(w)
                     for lines, w in zip(split, widths, strict=True)]
            print("| " + " | ".join(parts) + " |", file=stream)
    print(border, file=stream)


def dump_structured(data: Any, fmt: str, stream: TextIO | None = None) -> None:
    """Print ``data`` as JSON or YAML."""
    stream = stream or sys.stdout
    if fmt == "json":
        print(json.dumps(data, indent=2, sort_keys=False, default=str), file=stream)
    else:
        print(yaml_text(data), file=stream)


def show(data: Mapping[str, Any], fmt: str, stream: TextIO | None = None,
         fields: Sequence[str] | None = None) -> None:
    """Print one object: a Field/Value table, JSON, YAML or values one per line.

    JSON and YAML print the whole object as the API returns it; ``fields``
    only chooses the rows of the table and value formats.
    """
    stream = stream or sys.stdout
    if fmt in ("json", "yaml"):
        dump_structured(dict(data), fmt, stream)
        return
    keys = list(fields) if fields else list(data)
    if fmt == "value":
        for key in keys:
            print(_cell(data.get(key)), file=stream)
        return
    _table(["Field", "Value"], [(key, data.get(key)) for key in keys], stream)


def listing(rows: Sequence[Mapping[str, Any]], columns: Sequence[str], fmt: str,
            stream: TextIO | None = None, headers: Sequence[str] | None = None) -> None:
    """Print a list of objects: a table, JSON/YAML list, or space-separated values."""
    stream = stream or sys.stdout
    if fmt in ("json", "yaml"):
        dump_structured([{c: row.get(c) for c in columns} for row in rows], fmt, stream)
        return
    if fmt == "value":
        for row in rows:
            print(" ".join(_cell(row.get(c)) for c in columns), file=stream)
        return
    _table(list(headers or columns), [[row.get(c) for c in columns] for row in rows], stream)

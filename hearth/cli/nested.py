"""Salt's outputters for execution-function returns: nested, txt, json, yaml.

``nested`` is Salt's default look: dicts open with a ``----------`` line,
keys end with ``:`` and their values are indented four spaces, list items
start with ``- `` (``|_`` before a nested container).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from hearth.cli.output import yaml_text

INDENT = 4


def _scalar(value: Any) -> str:
    return str(value)


def nested_lines(value: Any, indent: int = 0) -> list[str]:
    """Return ``value`` rendered by the nested outputter, one string per line."""
    prefix = " " * indent
    if isinstance(value, dict):
        lines = [prefix + "----------"]
        for key, item in value.items():
            lines.append(f"{prefix}{key}:")
            lines += nested_lines(item, indent + INDENT)
        return lines
    if isinstance(value, (list, tuple)):
        lines = []
        for item in value:
            if isinstance(item, (dict, list, tuple)):
                lines.append(prefix + "|_")
                lines += nested_lines(item, indent + 2)
            else:
                lines.append(f"{prefix}- {_scalar(item)}")
        return lines
    text = _scalar(value)
    return [prefix + line for line in text.splitlines()] or [prefix]


def render_nested(minion: str, value: Any) -> str:
    """Render ``{minion: value}`` as the nested outputter prints it."""
    return "\n".join([f"{minion}:", *nested_lines(value, INDENT)])


def render_txt(minion: str, value: Any) -> str:
    """Render ``minion: value`` on one line per line of the value (Salt's txt)."""
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return "\n".join(f"{minion}: {line}" for line in text.splitlines() or [""])


def render_json(minion: str, value: Any) -> str:
    """Render ``{"minion": value}`` as indented JSON."""
    return json.dumps({minion: value}, indent=4, default=str)


def render_yaml(minion: str, value: Any) -> str:
    """Render ``{minion: value}`` as YAML."""
    return yaml_text({minion: value})


#: The outputters by name.
OUTPUTTERS: dict[str, Callable[[str, Any], str]] = {
    "nested": render_nested,
    "txt": render_txt,
    "json": render_json,
    "yaml": render_yaml,
}

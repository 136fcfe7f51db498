"""Render one pillar file: Jinja (jinja2) first, then YAML.

As Salt's default ``jinja|yaml`` renderer: the template sees ``grains``,
``pillar``, ``opts``, ``salt`` (the master's execution functions),
``saltenv``, ``sls``, ``slspath`` and ``tpldir``; undefined names are
errors (Salt's ``allow_undefined: False``); ``{% include %}`` and
``{% import %}`` find files in the environment's roots.  Any failure is a
:class:`~hearth.common.exception.PillarRenderError` naming the SLS, the
file and the cause.
"""

from __future__ import annotations

import functools
import json
import os
import threading
from collections.abc import Mapping, Sequence
from typing import Any

import jinja2
import yaml

from hearth.common import document_bounds, exception


def _yaml_filter(value: Any, flow_style: bool = True) -> str:
    return yaml.safe_dump(value, default_flow_style=flow_style).strip()


def _json_filter(value: Any) -> str:
    return json.dumps(value, default=str)


_COMPILED: dict[tuple[str, float, int], jinja2.Template] = {}
_COMPILED_LOCK = threading.Lock()
_COMPILED_MAX = 2048


def load_yaml(text: str) -> Any:
    """Load rendered YAML with the safe loader, within the document bounds.

    The text may hold what an agent reports (its grains): however it is
    written, its aliases cannot make the master build more than
    :data:`~hearth.common.document_bounds.DEFAULT_MAX_SIZE` bytes of data.
    """
    return document_bounds.load_yaml(text)


@functools.lru_cache(maxsize=64)
def environment(roots: tuple[str, ...]) -> jinja2.Environment:
    """Return the Jinja environment of ``roots`` (undefined is an error), one per roots."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(list(roots)),
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    env.filters["yaml"] = _yaml_filter
    env.filters["json"] = _json_filter
    return env


def render_text(text: str, roots: Sequence[str], context: Mapping[str, Any]) -> Any:
    """Render ``text`` through Jinja with ``context`` and load the result as YAML."""
    return load_yaml(environment(tuple(roots)).from_string(text).render(**context))


def _template(path: str, roots: Sequence[str]) -> jinja2.Template:
    """Return the compiled template of ``path``, compiled again only when the file changed."""
    status = os.stat(path)
    key = (path, status.st_mtime, status.st_size)
    with _COMPILED_LOCK:
        found = _COMPILED.get(key)
    if found is None:
        with open(path, encoding="utf-8") as stream:
            found = environment(tuple(roots)).from_string(stream.read())
        with _COMPILED_LOCK:
            if len(_COMPILED) >= _COMPILED_MAX:
                _COMPILED.clear()
            _COMPILED[key] = found
    return found


def render_file(path: str, sls: str, roots: Sequence[str], context: Mapping[str, Any]) -> Any:
    """Render the file at ``path`` (the SLS ``sls``); return its data (None when empty).

    Raises :class:`~hearth.common.exception.PillarRenderError`.
    """
    try:
        return load_yaml(_template(path, roots).render(**context))
    except jinja2.TemplateSyntaxError as error:
        raise exception.PillarRenderError(
            sls=sls, path=path, reason=f"Jinja syntax error: {error.message} (line {error.lineno})"
        ) from error
    except jinja2.TemplateError as error:
        raise exception.PillarRenderError(sls=sls, path=path,
                                          reason=f"Jinja error: {error}") from error
    except yaml.YAMLError as error:
        raise exception.PillarRenderError(sls=sls, path=path,
                                          reason=f"YAML error: {_yaml_reason(error)}") from error
    except (OSError, UnicodeDecodeError) as error:
        raise exception.PillarRenderError(sls=sls, path=path, reason=str(error)) from error
    except Exception as error:  # noqa: BLE001 - a template calling salt.* may raise anything
        raise exception.PillarRenderError(
            sls=sls, path=path, reason=f"{type(error).__name__}: {error}") from error


def _yaml_reason(error: yaml.YAMLError) -> str:
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or str(error)
    if mark is not None:
        return f"{problem} (line {mark.line + 1}, column {mark.column + 1})"
    return str(problem)

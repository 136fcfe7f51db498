"""Render the SLS files the top files chose, with their includes, and merge them.

As Salt's ``render_pillar``/``render_pstate``: each top entry's name is a
glob over the environment's SLS files; files are rendered in order and
merged one after the other.  ``include:`` takes names (``.rel`` relative to
the including file), globs and ``{name: {defaults: {...}, key: a:b}}``
forms; included files are merged first and the including file last, so its
values win (``pillar_includes_override_sls`` reverses that).  A file is
rendered once per compile.  Errors go to the list, never raised.
"""

from __future__ import annotations

import fnmatch
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hearth.common import exception
from hearth.pillar import files
from hearth.pillar.render import render_file
from hearth.pillar.settings import PillarSettings
from hearth.pillar.top import TopEntry

LOG = logging.getLogger(__name__)


@dataclass
class SlsRun:
    """One environment's rendering: its roots, context, rendered files and errors."""

    settings: PillarSettings
    env: str
    context: Mapping[str, Any]
    errors: list[str]
    rendered: dict[str, Any] = field(default_factory=dict)
    ignored: set[str] = field(default_factory=set)
    _available: list[str] | None = None

    @property
    def roots(self) -> list[str]:
        """Return the environment's directories."""
        return self.settings.roots.get(self.env, [])

    def available(self) -> list[str]:
        """Return the environment's SLS names (computed once)."""
        if self._available is None:
            self._available = files.available(self.roots, self.settings.top_file)
        return self._available

    def expand(self, pattern: str) -> list[str]:
        """Return the SLS names ``pattern`` matches, or the pattern itself when none does."""
        return fnmatch.filter(self.available(), pattern) or [pattern]

    def render(self, sls: str, defaults: Mapping[str, Any] | None = None) -> Any:
        """Return the data of ``sls`` (includes merged in), or None; errors are recorded."""
        path = files.sls_path(self.roots, sls)
        if path is None:
            if sls not in self.ignored:
                self._missing(sls)
            return None
        self.rendered[sls] = None
        context = {**self.context, **(defaults or {}), "saltenv": self.env, "sls": sls,
                   "slspath": sls.rpartition(".")[0].replace(".", "/"),
                   "tpldir": sls.rpartition(".")[0].replace(".", "/")}
        try:
            state = render_file(path, sls, self.roots, context)
        except exception.PillarRenderError as error:
            LOG.error("%s", error)
            self.errors.append(str(error))
            return None
        if state is not None and not isinstance(state, dict):
            self.errors.append(f"SLS '{sls}' ({path}) does not render to a dictionary")
            return None
        if state and "include" in state:
            state = self._with_includes(sls, path, state)
        self.rendered[sls] = state
        return state

    def _missing(self, sls: str) -> None:
        if self.roots:
            message = (f"Specified SLS '{sls}' in environment '{self.env}' is not available "
                       "in its pillar_roots")
            LOG.error("%s", message)
            self.errors.append(message)
        else:
            LOG.debug("SLS '%s' in environment '%s' was not found: the environment has no "
                      "pillar_roots", sls, self.env)

    def _with_includes(self, sls: str, path: str, state: dict[str, Any]) -> dict[str, Any]:
        includes = state.pop("include")
        if not isinstance(includes, list):
            self.errors.append(f"Include Declaration in SLS '{sls}' is not formed as a list")
            return state
        parts: list[dict[str, Any]] = []
        for item in includes:
            name, defaults, key = _include_form(item)
            for included in self._include_names(sls, path, name):
                data = (self.rendered[included] if included in self.rendered
                        else self.render(included, defaults))
                if data:
                    for fragment in reversed(key.split(":") if key else []):
                        data = {fragment: data}
                    parts.append(data)
        if self.settings.includes_override_sls:
            merged = state
            for part in parts:
                merged = self.settings.merge(merged, part)
            return merged
        merged = {}
        for part in [*parts, state]:
            merged = self.settings.merge(merged, part)
        return merged

    def _include_names(self, sls: str, path: str, name: str) -> list[str]:
        if name.startswith("."):
            base = sls.split(".") if path.endswith("/init.sls") else sls.split(".")[:-1]
            name = ".".join([*base, name.lstrip(".")])
        name = name.replace("/", ".")
        matched = fnmatch.filter(self.available(), name)
        return matched or [name]


def _include_form(item: Any) -> tuple[str, dict[str, Any], str | None]:
    """Return (name, defaults, key) of one ``include:`` item."""
    if isinstance(item, Mapping):
        name, options = next(iter(item.items()))
        options = options if isinstance(options, Mapping) else {}
        return str(name), dict(options.get("defaults") or {}), options.get("key")
    return str(item), {}, None


def render_matches(settings: PillarSettings, matches: Mapping[str, list[TopEntry]],
                   context: Mapping[str, Any], start: Mapping[str, Any],
                   errors: list[str]) -> dict[str, Any]:
    """Render every matched SLS of every environment, merged over ``start``."""
    pillar = dict(start)
    for env, entries in matches.items():
        run = SlsRun(settings, env, context, errors)
        for entry in entries:
            if entry.ignore_missing:
                run.ignored.update(entry.sls)
        names: list[str] = []
        for entry in entries:
            for pattern in entry.sls:
                names += [name for name in run.expand(pattern) if name not in names]
        for name in names:
            state = run.rendered[name] if name in run.rendered else run.render(name)
            if isinstance(state, dict):
                pillar = settings.merge(pillar, state)
    return pillar

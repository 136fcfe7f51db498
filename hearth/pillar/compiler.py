"""Compile one agent's pillar, in Salt's order.

Default order: the top files choose SLS files; they are rendered and merged
(starting from the ``pillar=`` override); then each ext_pillar in list
order gets the pillar so far (the override merged in) and its data is
merged; errors become ``_errors``; the override is merged last.

With ``ext_pillar_first`` the ext_pillars run first (starting from the
override), the SLS files are rendered with that data as ``pillar`` (and top
targets may match on it), and the SLS data is merged over it: SLS wins.

Nothing here raises for bad data or bad modules: every problem is a
message in ``_errors`` (and a log line), so a consumer can refuse the pillar.
"""

from __future__ import annotations

import copy
import functools
import logging
from collections.abc import Mapping
from typing import Any

from hearth.common import exception
from hearth.loader import PILLAR, Loader, execution_loader
from hearth.pillar import cache, external, files, sls, top
from hearth.pillar.settings import PillarSettings, master_opts

LOG = logging.getLogger(__name__)

ERRORS_KEY = "_errors"


@functools.lru_cache(maxsize=8)
def _functions(module_dirs: tuple[str, ...]) -> Any:

    return execution_loader({"module_dirs": list(module_dirs)})


def master_functions(opts: Mapping[str, Any]) -> Any:
    """Return the execution functions the compiling side offers as ``__salt__``/``salt``.

    One loader per process (and module_dirs), shared by every compile: they run
    on the compiling host, with its grains, whichever agent the pillar is for.
    """
    return _functions(tuple(opts.get("module_dirs") or ()))


class PillarCompiler:
    """Compile the pillar of one agent; one object per compile."""

    def __init__(self, agent_id: str, grains: Mapping[str, Any], opts: Mapping[str, Any],
                 settings: PillarSettings, pillarenv: str | None = None,
                 override: Mapping[str, Any] | None = None) -> None:
        self.agent_id = agent_id
        self.grains = dict(grains or {})
        self.settings = settings
        self.pillarenv = pillarenv or opts.get("pillarenv") or None
        self.functions = master_functions(opts)
        # As Salt's: the modules and templates see the agent's id and pillarenv in opts.
        self.opts = {**opts, "id": agent_id, "pillarenv": self.pillarenv}
        self.override = copy.deepcopy(dict(override or {}))
        self.errors: list[str] = []
        self._live_pillar: dict[str, Any] = {}

    # --- pieces ---------------------------------------------------------------
    def context(self, pillar: Mapping[str, Any]) -> dict[str, Any]:
        """Return the template context of the SLS and top files."""
        return {"grains": self.grains, "pillar": dict(pillar), "opts": self.opts,
                "salt": self.functions, "minion_id": self.agent_id}

    def matches(self, pillar: Mapping[str, Any]) -> dict[str, list[top.TopEntry]]:
        """Return the top entries that select this agent, by environment."""
        tops = top.read_tops(self.settings, self.context(pillar), self.pillarenv)
        found = top.top_matches(tops, self.agent_id, self.grains, pillar, self.pillarenv,
                                self.opts.get("nodegroups"))
        self.errors += tops.errors
        return found

    def render(self, context_pillar: Mapping[str, Any]) -> dict[str, Any]:
        """Render the matched SLS files, starting from the override."""
        return sls.render_matches(self.settings, self.matches(context_pillar),
                                  self.context(context_pillar), self.override, self.errors)

    def ext_loader(self) -> Any:
        """Return a loader of ext_pillar modules packed with this agent's grains."""
        return Loader(PILLAR, self.opts, pack={"__grains__": self.grains,
                                               "__pillar__": self._live_pillar,
                                               "__salt__": self.functions})

    def external(self, pillar: Mapping[str, Any]) -> dict[str, Any]:
        """Run the ext_pillars over ``pillar`` (the override merged in first)."""
        calls = external.parse_ext_pillar(self.settings.ext_pillar, self.errors,
                                          self.opts.get("exclude_ext_pillar") or ())
        if not calls:
            return dict(pillar)
        if self.override:
            pillar = self.settings.merge(pillar, self.override)
        return external.run_ext_pillars(calls, self.ext_loader(), self.agent_id, pillar,
                                        self.settings.merge, self.errors, self._live_pillar)

    # --- the whole --------------------------------------------------------------
    def compile(self) -> dict[str, Any]:
        """Return the compiled pillar (``_errors`` present when anything failed)."""
        if self.settings.ext_pillar_first:
            ext = self.external(self.override)
            pillar = self.settings.merge(ext, self.render(ext))
        else:
            pillar = self.external(self.render({}))
        if self.errors:
            for error in self.errors:
                LOG.critical("Pillar error for %s: %s", self.agent_id, error)
            pillar[ERRORS_KEY] = list(self.errors)
        if self.override:
            pillar = self.settings.merge(pillar, self.override)
        return pillar


def compile_pillar(agent_id: str, grains: Mapping[str, Any], opts: Mapping[str, Any], *,
                   pillarenv: str | None = None,
                   pillar_override: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Compile and return the pillar of ``agent_id`` (``_errors`` lists any failure).

    ``opts`` holds Salt-named options (``pillar_roots``, ``ext_pillar``,
    ...); when it has no ``pillar_roots`` the ``[pillar]`` configuration is
    read under it (:func:`hearth.pillar.settings.master_opts`).  With
    ``pillar_cache`` on, a compile without override is served from the
    cache while it is fresh.
    """
    try:
        opts = _complete(opts)
        settings = PillarSettings.from_opts(opts)
    except exception.PillarConfigError as error:
        LOG.critical("Pillar error for %s: %s", agent_id, error)
        return {ERRORS_KEY: [str(error)]}
    key = (agent_id, pillarenv or opts.get("pillarenv") or "")
    if settings.cache and not pillar_override:
        cached = cache.PILLAR_CACHE.get(key, settings.cache_ttl)
        if cached is not None:
            return cached
    pillar = PillarCompiler(agent_id, grains, opts, settings, pillarenv,
                            pillar_override).compile()
    if settings.cache and not pillar_override:
        cache.PILLAR_CACHE.put(key, pillar)
    return pillar


def _complete(opts: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``opts`` with the configured pillar options under it when it has none."""
    if "pillar_roots" in opts:
        return dict(opts)

    return {**master_opts(), **opts}


def pillar_top(agent_id: str, grains: Mapping[str, Any], opts: Mapping[str, Any], *,
               pillarenv: str | None = None) -> dict[str, Any]:
    """Return which top targets select ``agent_id`` and their SLS files, per environment.

    ``{env: [{"target", "match", "sls": [...], "files": {sls: path}}], "_errors": [...]}``:
    ``files`` maps each SLS (globs expanded) to its file, None when no root has
    it; no ``_errors`` key when the top files rendered cleanly.
    """
    try:
        opts = _complete(opts)
        settings = PillarSettings.from_opts(opts)
    except exception.PillarConfigError as error:
        return {ERRORS_KEY: [str(error)]}
    compiler = PillarCompiler(agent_id, grains, opts, settings, pillarenv)
    result: dict[str, Any] = {}
    for env, entries in compiler.matches({}).items():
        run = sls.SlsRun(settings, env, {}, [])
        result[env] = [{"target": entry.target, "match": entry.match, "sls": list(entry.sls),
                        "files": {name: files.sls_path(run.roots, name)
                                  for pattern in entry.sls for name in run.expand(pattern)}}
                       for entry in entries]
    if compiler.errors:
        result[ERRORS_KEY] = compiler.errors
    return result

"""The pillar top files: which SLS files apply to an agent, per environment.

As Salt's pillar: each environment's top file (rendered ``jinja|yaml``)
maps environments to targets and targets to SLS names; a target's list may
hold ``{match: TYPE}`` (default ``compound``), ``{order: N}`` and
``{ignore_missing: True}``.  Top files are read in the order of
``pillar_roots`` (Salt iterates a set, so its order between environments is
not fixed); a later definition of the same target replaces the earlier one;
targets are then sorted by ``order`` (stable).  With a ``pillarenv`` only
that environment counts; with the ``none`` merging strategy only
``pillarenv`` or ``base``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hearth.agent import targeting
from hearth.common import exception
from hearth.pillar import files
from hearth.pillar.render import render_file
from hearth.pillar.settings import PillarSettings

LOG = logging.getLogger(__name__)

DEFAULT_MATCH = "compound"


@dataclass
class TopEntry:
    """One target of a top file: how to match it, its order, its SLS names."""

    target: str
    match: str = DEFAULT_MATCH
    order: int = 0
    sls: list[str] = field(default_factory=list)
    ignore_missing: bool = False


@dataclass
class Tops:
    """The merged top data: ``{env: {target: TopEntry}}`` plus rendering errors."""

    envs: dict[str, dict[str, TopEntry]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def environments(settings: PillarSettings, pillarenv: str | None) -> list[str]:
    """Return the environments whose top files are read, in order."""
    if pillarenv:
        return [pillarenv] if pillarenv in settings.roots else []
    if settings.strategy == "none":
        return ["base"] if "base" in settings.roots else []
    return list(settings.roots)


def _entry(target: str, items: Any) -> TopEntry:
    entry = TopEntry(str(target))
    for item in items if isinstance(items, list) else [items]:
        if isinstance(item, str):
            if item not in entry.sls:
                entry.sls.append(item)
        elif isinstance(item, Mapping):
            entry.match = str(item.get("match", entry.match))
            if "order" in item:
                try:
                    entry.order = int(item["order"])
                except (TypeError, ValueError):
                    entry.order = 0
            entry.ignore_missing = entry.ignore_missing or bool(item.get("ignore_missing"))
    return entry


def _add_top(tops: Tops, data: Any, source: str) -> None:
    if data is None:
        return
    if not isinstance(data, Mapping):
        tops.errors.append(f"Top file {source} does not render to a dictionary")
        return
    for env, targets in data.items():
        if env == "include" or not isinstance(targets, Mapping):
            continue
        env_top = tops.envs.setdefault(str(env), {})
        for target, items in targets.items():
            env_top[str(target)] = _entry(target, items)


def read_tops(settings: PillarSettings, context: Mapping[str, Any],
              pillarenv: str | None = None) -> Tops:
    """Render and merge the top files (and the top files they include)."""
    tops = Tops()
    for env in environments(settings, pillarenv):
        roots = settings.roots[env]
        path = files.file_root(roots, settings.top_file)
        if path is None:
            continue
        pending, done = [(settings.top_file[:-len(".sls")], path)], set()
        while pending:
            sls, where = pending.pop(0)
            done.add(sls)
            try:
                data = render_file(where, sls, roots, {**context, "saltenv": env, "sls": sls})
            except exception.PillarRenderError as error:
                tops.errors.append(f"Rendering Top file {where} failed: {error.kwargs['reason']}")
                continue
            if isinstance(data, Mapping):
                for included in data.get("include") or []:
                    found = files.sls_path(roots, str(included))
                    if str(included) not in done and found:
                        pending.append((str(included), found))
            _add_top(tops, data, where)
    for env, targets in tops.envs.items():
        tops.envs[env] = dict(sorted(targets.items(), key=lambda item: item[1].order))
    return tops


def _parse_nodegroups(value: Any) -> dict[str, Any]:
    if isinstance(value, Mapping):
        return dict(value)
    groups = {}
    for line in value or []:
        name, _, expression = str(line).partition("=")
        groups[name.strip()] = expression.strip()
    return groups


def target_matches(entry: TopEntry, agent_id: str, grains: Mapping[str, Any],
                   pillar: Mapping[str, Any], nodegroups: Any = None) -> bool:
    """Return whether ``entry``'s target selects the agent (the agents' targeting rules)."""
    facts = targeting.AgentFacts(agent_id, grains, pillar)
    return bool(targeting.matches(entry.target, entry.match, facts,
                                  _parse_nodegroups(nodegroups)))


def top_matches(tops: Tops, agent_id: str, grains: Mapping[str, Any],
                pillar: Mapping[str, Any], pillarenv: str | None = None,
                nodegroups: Any = None) -> dict[str, list[TopEntry]]:
    """Return ``{env: [matching TopEntry]}`` in top-file order."""
    found: dict[str, list[TopEntry]] = {}
    for env, targets in tops.envs.items():
        if pillarenv and env != pillarenv:
            continue
        for entry in targets.values():
            try:
                selected = target_matches(entry, agent_id, grains, pillar, nodegroups)
            except exception.HearthException as error:
                tops.errors.append(f"Top file target {entry.target!r} ({entry.match}) in "
                                   f"environment {env!r}: {error}")
                continue
            if selected:
                found.setdefault(env, []).append(entry)
    return found


def sls_names(matched: list[TopEntry]) -> list[str]:
    """Return the distinct SLS names of matched entries, first appearance first."""
    names: list[str] = []
    for entry in matched:
        names += [sls for sls in entry.sls if sls not in names]
    return names

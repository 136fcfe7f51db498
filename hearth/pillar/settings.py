"""Pillar settings: Salt-style master opts from Hearth's configuration, and their reading.

Compiling takes a plain ``opts`` dict in the shape of Salt's master
configuration (``pillar_roots``, ``ext_pillar``, ``ext_pillar_first``, ...),
so that the same YAML file serves Salt and Hearth.  :func:`master_opts`
builds it from the ``[pillar]`` section and its YAML ``config_file``;
:class:`PillarSettings` is the typed view the compiler reads.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from hearth.common import config, exception
from hearth.loader import opts_from_conf
from hearth.pillar.merge import strategy_for

#: [pillar] options copied into the opts under the same (Salt) name.
SECTION_KEYS = ("ext_pillar_first", "pillar_source_merging_strategy", "pillar_merge_lists",
                "pillar_cache", "pillar_cache_ttl")


def parse_roots(lines: list[str]) -> dict[str, list[str]]:
    """Turn ``ENV=DIR`` lines into ``{env: [dirs]}`` (an environment may repeat)."""
    roots: dict[str, list[str]] = {}
    for line in lines:
        env, sep, directory = str(line).partition("=")
        if not sep or not env.strip() or not directory.strip():
            raise exception.PillarConfigError(
                message=f"[pillar] pillar_roots: {line!r} is not ENV=DIR")
        roots.setdefault(env.strip(), []).append(directory.strip())
    return roots


def read_config_file(path: str) -> dict[str, Any]:
    """Return the YAML pillar configuration at ``path`` ({} when the file does not exist)."""
    try:
        with open(path, encoding="utf-8") as stream:
            data = yaml.safe_load(stream)
    except FileNotFoundError:
        return {}
    except (OSError, yaml.YAMLError) as error:
        raise exception.PillarConfigError(
            message=f"Cannot read the pillar configuration {path}: {error}") from error
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise exception.PillarConfigError(
            message=f"The pillar configuration {path} must be a mapping, not "
                    f"{type(data).__name__}")
    return data


def master_opts(conf: Any = None) -> dict[str, Any]:
    """Return the opts pillar compiling reads, from Hearth's configuration.

    The execution-module opts (:func:`hearth.loader.opts_from_conf`), the
    ``[pillar]`` options under Salt's names, ``pillar_dirs`` (the
    ``pillar`` folder of ``[DEFAULT] extension_modules``), then every key
    of the YAML ``[pillar] config_file`` on top.
    """
    conf = conf if conf is not None else config.CONF
    opts = opts_from_conf(conf)
    section = conf.pillar
    opts["pillar_roots"] = parse_roots(list(section.pillar_roots))
    opts.update({key: section[key] for key in SECTION_KEYS})
    opts["pillar_fail_on_errors"] = section.fail_on_errors
    opts["extension_modules"] = conf.extension_modules
    opts["pillar_dirs"] = [os.path.join(conf.extension_modules, "pillar")]
    opts["ext_pillar"] = []
    opts.update(read_config_file(section.config_file))
    return opts


class MasterOpts:
    """:func:`master_opts`, read again only when the YAML ``config_file`` changes.

    A master compiles the pillar of every agent that connects, thousands
    after a restart; reading the configuration for each took longer than
    compiling.  The file's size and modification time are checked at each
    :meth:`current` (the rest of the configuration is fixed for the process).
    """

    def __init__(self, conf: Any = None) -> None:
        self._conf = conf
        self._signature: tuple[Any, ...] | None = None
        self._opts: dict[str, Any] = {}

    def current(self) -> dict[str, Any]:
        """Return the opts (the same dict until the file changes: do not modify it)."""
        conf = self._conf if self._conf is not None else config.CONF
        path = conf.pillar.config_file
        try:
            status = os.stat(path)
            signature: tuple[Any, ...] = (path, status.st_mtime_ns, status.st_size)
        except OSError:
            signature = (path, None, None)
        if signature != self._signature:
            self._opts, self._signature = master_opts(conf), signature
        return self._opts


@dataclass(frozen=True)
class PillarSettings:
    """The options compiling reads, checked and typed."""

    roots: dict[str, list[str]]
    ext_pillar: list[Any]
    ext_pillar_first: bool = False
    strategy: str = "smart"
    merge_lists: bool = False
    renderer: str = "jinja|yaml"
    includes_override_sls: bool = False
    top_file: str = "top.sls"
    cache: bool = False
    cache_ttl: float = 3600.0

    @classmethod
    def from_opts(cls, opts: Mapping[str, Any]) -> PillarSettings:
        """Read and check the settings in ``opts`` (Salt's master option names)."""
        roots = opts.get("pillar_roots") or {}
        if not isinstance(roots, Mapping) or not all(
                isinstance(dirs, (list, tuple)) for dirs in roots.values()):
            raise exception.PillarConfigError(
                message="pillar_roots must map each environment to a list of directories")
        ext = opts.get("ext_pillar") or []
        strategy = str(opts.get("pillar_source_merging_strategy") or "smart")
        renderer = str(opts.get("renderer") or "jinja|yaml")
        strategy_for(strategy, renderer)  # an unknown name fails here, with its choices
        return cls(
            roots={str(env): [str(d) for d in dirs] for env, dirs in roots.items()},
            ext_pillar=ext,
            ext_pillar_first=bool(opts.get("ext_pillar_first", False)),
            strategy=strategy,
            merge_lists=bool(opts.get("pillar_merge_lists", False)),
            renderer=renderer,
            includes_override_sls=bool(opts.get("pillar_includes_override_sls", False)),
            top_file=str(opts.get("state_top") or "top.sls").removeprefix("salt://"),
            cache=bool(opts.get("pillar_cache", False)),
            cache_ttl=float(opts.get("pillar_cache_ttl", 3600)),
        )

    def merge(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
        """Merge ``new`` over ``old`` by the configured strategy."""
        return strategy_for(self.strategy, self.renderer)(old, new, self.merge_lists)

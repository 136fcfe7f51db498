"""Read the pillar data given to this host (``__pillar__``), as Salt's ``pillar`` module.

``get``, ``item`` and ``raw`` read the pillar held in memory; ``items``
compiles afresh (through the agent's master, or in-process without one).
A held pillar nothing has filled yet is fetched on first use.  Answers are masked as Salt 3008.3
masks them (:mod:`hearth.pillar.mask`) unless ``unmask=True``.  A pillar
with ``_errors`` makes these functions fail with those errors while
``[pillar] fail_on_errors`` is on (``items`` still shows them); ``[pillar]
mask_output = False`` changes the default of ``items`` only.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from hearth.common import config, document_bounds
from hearth.common.exception import CommandExecutionError
from hearth.pillar import ERRORS_KEY, compile_pillar, master_opts
from hearth.pillar.mask import shown
from hearth.pillar.merge import merge_recurse
from hearth.pillar.refresh import local_fetch, replace_held
from hearth.utils.data import traverse


def _fetch() -> Any:
    """Return how to compile this host's pillar: ask the agent's master, else in-process."""
    channel = __opts__.get("agent_channel")  # noqa: F821
    if channel is not None:
        return lambda pillar_override=None: channel.request(
            "pillar", **({"pillar_override": dict(pillar_override)} if pillar_override else {}))
    return local_fetch(__opts__, __grains__)  # noqa: F821


def _held() -> dict[str, Any]:
    """Return the in-memory pillar, fetched first when nothing has filled it yet.

    Without an agent that is the first compile (as ``salt-call --local`` at
    start); on an agent, a job that runs before the pillar fetched at
    connection arrived asks the master itself.
    """
    pillar = __pillar__  # noqa: F821
    if not pillar and "__compiled" not in __context__:  # noqa: F821
        __context__["__compiled"] = True  # noqa: F821
        replace_held(pillar, _fetch()())
    return pillar


def _option(name: str, section_option: str) -> bool:
    """Return ``__opts__[name]`` when set, else the ``[pillar]`` option of this process."""
    if name in __opts__:  # noqa: F821
        return bool(__opts__[name])  # noqa: F821

    config.register_opts(config.CONF)
    return bool(config.CONF.pillar[section_option])


def _checked(pillar: Mapping[str, Any]) -> Mapping[str, Any]:
    errors = pillar.get(ERRORS_KEY)
    if errors and _option("pillar_fail_on_errors", "fail_on_errors"):
        raise CommandExecutionError(
            f"Pillar has errors: {'; '.join(str(e) for e in errors)}", info={ERRORS_KEY: errors})
    return pillar


def get(key: str, default: Any = "", merge: bool = False, merge_nested_lists: bool = False,
        delimiter: str = ":", unmask: bool = False) -> Any:
    """Return the pillar value ``key`` (``a:b:c`` paths); ``default`` when missing.

    With ``merge`` and a dict (or list) ``default``, the value is merged over
    the default.  CLI Example: ``stackctl call pillar.get db:creds:user``
    """
    value = traverse(_checked(_held()), key, None, delimiter)
    if value is None:
        return copy.deepcopy(default)
    if merge and isinstance(default, dict) and isinstance(value, dict):
        value = merge_recurse(default, value, merge_nested_lists)
    elif merge and isinstance(default, list) and isinstance(value, list):
        value = default + [item for item in value if item not in default]
    return shown(copy.deepcopy(value), unmask)


def items(*args: Any, pillar: Mapping[str, Any] | None = None,
          unmask: bool | None = None) -> dict[str, Any]:
    """Return the pillar compiled afresh (``pillar=`` overrides values for this call)."""
    data = dict(_fetch()(pillar) if pillar else _fetch()())
    if unmask is None:
        unmask = not _option("pillar_mask_output", "mask_output")
    return shown(data, unmask)


def item(*keys: str, default: Any = "", delimiter: str = ":",
         unmask: bool = False) -> dict[str, Any]:
    """Return ``{key: value}`` for each named key (``a:b`` paths)."""
    held = _checked(_held())
    return {key: shown(copy.deepcopy(traverse(held, key, default, delimiter)), unmask)
            for key in keys}


def raw(key: str | None = None, unmask: bool = True) -> Any:
    """Return the in-memory pillar (or one key of it) as held, unmasked by default."""
    held = _held()
    return shown(copy.deepcopy(dict(held) if key is None else held.get(key)), unmask)


def ext(external: Any, pillar: Mapping[str, Any] | None = None,
        unmask: bool = False) -> dict[str, Any]:
    """Compile the pillar with one more ext_pillar entry, e.g. ``{file_tree: {root_dir: /x}}``.

    Only modules listed in the ``on_demand_ext_pillar`` option may be named
    (none by default), as in Salt: an ext_pillar runs with the compiling
    side's rights.
    """
    if isinstance(external, str):

        external = document_bounds.load_yaml(external)
    if not isinstance(external, Mapping) or not external:
        raise CommandExecutionError("pillar.ext takes a map of ext_pillar name to arguments")
    allowed = list(__opts__.get("on_demand_ext_pillar") or [])  # noqa: F821
    refused = sorted(name for name in external if name not in allowed)
    if refused:
        raise CommandExecutionError(
            f"ext_pillar {', '.join(refused)} may not run on demand; list it in "
            f"on_demand_ext_pillar (allowed now: {allowed or 'none'})")

    opts = {**master_opts(), **__opts__}  # noqa: F821
    opts["ext_pillar"] = [*(opts.get("ext_pillar") or []), dict(external)]
    agent = str(__opts__.get("id") or __grains__.get("id") or "local")  # noqa: F821
    return shown(compile_pillar(agent, dict(__grains__), opts,  # noqa: F821
                                pillar_override=pillar), unmask)


def ls() -> list[str]:
    """Return the sorted top-level pillar keys."""
    return sorted(_checked(_held()))


def keys(key: str, delimiter: str = ":") -> list[str]:
    """Return the keys of the dict at ``key``."""
    value = traverse(_checked(_held()), key, None, delimiter)
    if not isinstance(value, dict):
        raise CommandExecutionError(f"Pillar key {key!r} is not a dict")
    return list(value)

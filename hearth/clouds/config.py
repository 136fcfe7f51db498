"""Salt Cloud's configuration: providers, profiles, global options, and lookups.

Under ``[cloud] config_dir``:

- ``cloud``: global options (``filter_events``, ``minion``/``agent``
  defaults, ...), optional;
- ``cloud.providers`` and ``cloud.providers.d/*.conf``: ``alias: {driver:
  <driver>, <credentials>...}`` (or a list of such blocks; ``provider:`` is
  the old spelling of ``driver:``);
- ``cloud.profiles`` and ``cloud.profiles.d/*.conf``: ``name: {provider:
  alias[:driver], image, size, location, agent, grains, ...}``.

``extends:`` copies another provider or profile and overrides its keys
(nested mappings merge, lists replace).  The result is Salt's ``__opts__``
shape: ``providers`` as ``{alias: {driver: conf}}`` and ``profiles``.
:func:`get_cloud_config_value`, :func:`is_provider_configured` and
:func:`check_driver_dependencies` are the lookups drivers call, as in
``salt.config``.
"""

from __future__ import annotations

import copy
import glob
import logging
import os
from collections.abc import Mapping, Sequence
from typing import Any

import yaml

from hearth.common import exception

LOG = logging.getLogger(__name__)

#: Keys that merge from global → provider → profile → vm_ instead of replacing.
MERGED_KEYS = frozenset({"agent", "minion", "grains", "tags"})

#: Options every cloud ``__opts__`` has unless configured otherwise: those Salt's
#: own drivers read without a default (``__opts__["sock_dir"]`` on every event,
#: ``__opts__["transport"]``, ``update_cachedir``...), with Salt's defaults.
DEFAULT_OPTS: dict[str, Any] = {
    "sock_dir": ".",
    "transport": "zeromq",
    "update_cachedir": False,
    "delete_sshkeys": False,
    "keysize": 4096,
    "os": "",
    "start_action": None,
    "enable_hard_maps": False,
    "bootstrap_delay": 0,
    "parallel": False,
    "query.selection": [],
}


def read_yaml(path: str) -> dict[str, Any]:
    """Return the mapping in the YAML file ``path`` (empty for an empty file)."""
    try:
        with open(path, encoding="utf-8") as stream:
            data = yaml.safe_load(stream)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{path}, line {mark.line + 1}" if mark is not None else path
        raise exception.CloudConfigError(f"{where}: not valid YAML: "
                                         f"{getattr(error, 'problem', error)}") from error
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise exception.CloudConfigError(f"{path}: expected a mapping of names, "
                                         f"not {type(data).__name__}")
    return data


def config_files(config_dir: str, kind: str) -> list[str]:
    """Return ``<dir>/cloud.<kind>`` and ``<dir>/cloud.<kind>.d/*.conf`` that exist, in order."""
    single = os.path.join(config_dir, f"cloud.{kind}")
    found = [single] if os.path.isfile(single) else []
    return found + sorted(glob.glob(os.path.join(config_dir, f"cloud.{kind}.d", "*.conf")))


def merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``base`` deep-copied with ``over`` on top: mappings merge, lists replace."""
    merged = copy.deepcopy(dict(base))
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def _collect(files: Sequence[str], kind: str) -> dict[str, tuple[str, Any]]:
    """Return ``{name: (file, block)}`` over ``files``; a name defined twice is an error."""
    entries: dict[str, tuple[str, Any]] = {}
    for path in files:
        for name, block in read_yaml(path).items():
            if name in entries:
                raise exception.CloudConfigError(
                    f"{path}: {kind} '{name}' is already defined in {entries[name][0]}")
            entries[str(name)] = (path, block)
    return entries


def _resolve_extends(entries: dict[str, tuple[str, Any]], kind: str,
                     name: str, seen: tuple[str, ...] = ()) -> dict[str, Any]:
    """Return entry ``name`` with its ``extends:`` chain applied (cycles are errors)."""
    path, block = entries[name]
    parent = block.get("extends")
    if parent is None:
        return dict(block)
    parent = str(parent).partition(":")[0] if kind == "provider" else str(parent)
    if parent in seen or parent == name:
        chain = " -> ".join((*seen, name, parent))
        raise exception.CloudConfigError(f"{path}: {kind}s extend each other in a cycle: "
                                         f"{chain}")
    if parent not in entries:
        raise exception.CloudConfigError(
            f"{path}: {kind} '{name}' extends unknown {kind} '{parent}'."
            f"{exception.did_you_mean(parent, entries)}")
    base = _resolve_extends(entries, kind, parent, (*seen, name))
    base.pop("extends", None)
    own = {key: value for key, value in block.items() if key != "extends"}
    return merge(base, own)


def _provider_blocks(path: str, alias: str, value: Any) -> list[dict[str, Any]]:
    """Return the driver blocks of one provider alias (a mapping or a list of them)."""
    blocks = value if isinstance(value, list) else [value]
    result = []
    for block in blocks:
        if not isinstance(block, dict):
            raise exception.CloudConfigError(
                f"{path}: provider '{alias}' must be a mapping with a 'driver' key")
        block = dict(block)
        if "driver" not in block and "provider" in block:
            block["driver"] = block.pop("provider")
        if "driver" not in block and "extends" not in block:
            raise exception.CloudConfigError(f"{path}: provider '{alias}' names no driver "
                                             "(add 'driver: <name>')")
        result.append(block)
    return result


def load_providers(config_dir: str) -> dict[str, dict[str, dict[str, Any]]]:
    """Return the providers under ``config_dir`` as ``{alias: {driver: conf}}``."""
    raw = _collect(config_files(config_dir, "providers"), "provider")
    flat: dict[str, tuple[str, Any]] = {}
    for alias, (path, value) in raw.items():
        for block in _provider_blocks(path, alias, value):
            key = alias if not isinstance(value, list) else f"{alias}:{block.get('driver')}"
            flat[key] = (path, block)
    providers: dict[str, dict[str, dict[str, Any]]] = {}
    for key in flat:
        conf = _resolve_extends(flat, "provider", key)
        alias = key.partition(":")[0]
        driver = str(conf["driver"])
        providers.setdefault(alias, {})[driver] = conf
    return providers


def load_profiles(config_dir: str) -> dict[str, dict[str, Any]]:
    """Return the profiles under ``config_dir``, each with its ``extends:`` applied."""
    entries = _collect(config_files(config_dir, "profiles"), "profile")
    profiles = {}
    for name, (path, block) in entries.items():
        if not isinstance(block, dict):
            raise exception.CloudConfigError(f"{path}: profile '{name}' must be a mapping")
        profile = _resolve_extends(entries, "profile", name)
        if "provider" not in profile:
            raise exception.CloudConfigError(f"{path}: profile '{name}' names no provider "
                                             "(add 'provider: <alias>')")
        profile["profile"] = name
        profiles[name] = profile
    return profiles


def load_cloud_opts(config_dir: str, base: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Return the cloud ``__opts__``: defaults, ``base``, the ``cloud`` file, providers, profiles.

    ``conf_file`` names the global ``cloud`` file (read when it exists) and
    ``cachedir`` defaults to ``<config_dir>/cache``.
    """
    opts = {**DEFAULT_OPTS, "cachedir": os.path.join(config_dir, "cache"), **dict(base or {})}
    main = os.path.join(config_dir, "cloud")
    if os.path.isfile(main):
        opts.update(read_yaml(main))
    opts["config_dir"] = config_dir
    opts["conf_file"] = main
    opts["providers"] = load_providers(config_dir)
    opts["profiles"] = load_profiles(config_dir)
    return opts


def split_provider(reference: str, providers: Mapping[str, Mapping[str, Any]]) -> tuple[str, str]:
    """Return ``(alias, driver)`` of a provider reference ``alias`` or ``alias:driver``.

    Raises :class:`CloudConfigError` naming the configured aliases when it is unknown.
    """
    alias, _, driver = str(reference).partition(":")
    drivers = providers.get(alias)
    if not drivers:
        known = ", ".join(sorted(providers)) or "none"
        raise exception.CloudConfigError(f"Unknown cloud provider '{alias}' (configured: "
                                         f"{known}).{exception.did_you_mean(alias, providers)}")
    if driver:
        if driver not in drivers:
            raise exception.CloudConfigError(
                f"Cloud provider '{alias}' has no '{driver}' driver "
                f"(it has: {', '.join(sorted(drivers))})")
        return alias, driver
    if len(drivers) > 1:
        raise exception.CloudConfigError(
            f"Cloud provider '{alias}' has several drivers ({', '.join(sorted(drivers))}): "
            f"name one as '{alias}:<driver>'")
    return alias, next(iter(drivers))


def _provider_of(vm_: Mapping[str, Any], opts: Mapping[str, Any]) -> Mapping[str, Any]:
    reference = vm_.get("driver") if ":" in str(vm_.get("driver") or "") \
        else vm_.get("provider")
    if not reference:
        return {}
    alias, _, driver = str(reference).partition(":")
    drivers = (opts.get("providers") or {}).get(alias) or {}
    if driver:
        return drivers.get(driver) or {}
    return next(iter(drivers.values()), {}) if len(drivers) == 1 else {}


def is_true(value: Any) -> bool:
    """Return whether a yes/no option is set: a boolean, or ``1``, ``true``, ``yes`` in any case."""
    return value if isinstance(value, bool) else str(value).lower() in ("1", "true", "yes")


def get_cloud_config_value(name: str, vm_: Mapping[str, Any] | None, opts: Mapping[str, Any],
                           default: Any = None, search_global: bool = True) -> Any:
    """Return option ``name`` for ``vm_``: vm_ over profile over provider over global opts.

    Mappings of :data:`MERGED_KEYS` (``agent``, ``grains``, ``tags``...)
    merge across the levels instead of replacing.
    """
    vm_ = vm_ or {}
    profile = (opts.get("profiles") or {}).get(vm_.get("profile") or "") or {}
    levels = [opts if search_global else {}, _provider_of(vm_, opts), profile, vm_]
    value: Any = None
    found = False
    for level in levels:
        if name not in level or level[name] is None:
            continue
        if name in MERGED_KEYS and isinstance(value, Mapping) and isinstance(level[name], Mapping):
            value = merge(value, level[name])
        else:
            value = copy.deepcopy(level[name])
        found = True
    return value if found else default


def is_provider_configured(opts: Mapping[str, Any], provider: str,
                           required_keys: Sequence[str] = (), log_message: bool = True,
                           aliases: Sequence[str] = ()) -> Any:
    """Return the provider's configuration, or False when it lacks a required key.

    ``provider`` is ``alias:driver`` (one provider) or a driver name (the
    first alias using that driver with every required key wins).
    """
    providers = opts.get("providers") or {}
    alias, _, driver = str(provider).partition(":")
    if driver:
        candidates = [(alias, driver, (providers.get(alias) or {}).get(driver))]
    else:
        names = {alias, *aliases}
        candidates = [(a, d, conf) for a, drivers in providers.items()
                      for d, conf in drivers.items() if d in names]
    for found_alias, found_driver, conf in candidates:
        if conf is None:
            continue
        missing = [key for key in required_keys if conf.get(key) in (None, "")]
        if not missing:
            return conf
        if log_message:
            # debug only: every loader asks this of each driver module it imports, and the
            # refusing driver's reason already names the missing options
            LOG.debug("cloud provider %s:%s is missing the required option(s) %s",
                      found_alias, found_driver, ", ".join(missing))
    return False


def is_profile_configured(opts: Mapping[str, Any], provider: str, profile_name: str,
                          vm_: Mapping[str, Any] | None = None,
                          required_keys: Sequence[str] = ("image", "size")) -> bool:
    """Return whether profile ``profile_name`` (with ``vm_``) names what a create needs.

    ``provider`` is ``alias:driver``.  A required key (``image`` and
    ``size`` unless told otherwise) may come from the provider, the profile
    or ``vm_``; the missing ones are logged and False returned, as Salt's.
    """
    alias, _, driver = str(provider).partition(":")
    conf = ((opts.get("providers") or {}).get(alias) or {}).get(driver) or {}
    profile = (opts.get("profiles") or {}).get(profile_name) or {}
    levels = (conf, profile, vm_ or {})
    missing = [key for key in required_keys
               if all(level.get(key) in (None, "") for level in levels)]
    if missing:
        LOG.error("cloud profile %s (provider %s) is missing the required option(s) %s",
                  profile_name, provider, ", ".join(missing))
        return False
    return True


def check_driver_dependencies(driver: str, dependencies: Mapping[str, bool]) -> bool:
    """Return whether every dependency of ``driver`` is available; log the missing ones."""
    missing = [name for name, present in dependencies.items() if not present]
    for name in missing:
        LOG.warning("cloud driver %s: missing dependency '%s'", driver, name)
    return not missing


def missing_keys(conf: Mapping[str, Any], required_keys: Sequence[str]) -> list[str]:
    """Return the required keys absent from a provider's configuration."""
    return [key for key in required_keys if conf.get(key) in (None, "")]

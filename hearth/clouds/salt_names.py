"""Salt's names for what a Salt Cloud driver uses, so that it runs with only its imports changed.

A driver written for Salt Cloud changes its import lines only::

    import salt.config as config          ->  from hearth.clouds.salt_names import config
    import salt.utils.cloud               ->  from hearth.clouds.salt_names import salt
    import salt.utils.json (files, yaml,  ->  (the same line: ``salt.utils.json.loads``...)
        stringutils, data, dictupdate)
    from salt.exceptions import (         ->  from hearth.clouds.salt_names import (
        SaltCloudSystemExit, ...)                 SaltCloudSystemExit, ...)

The loader gives every driver the ``__opts__`` keys Salt's drivers read
(``sock_dir``, ``transport``, ``cachedir``, ``update_cachedir``,
``query.selection``, ``providers``, ``profiles``...; see
:data:`hearth.clouds.config.DEFAULT_OPTS`) and the ``__utils__`` of
:func:`utils_for`: the ``cloud.*`` helpers and the few others Salt's drivers
call through ``__utils__``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from types import SimpleNamespace
from typing import Any

import yaml

from hearth.clouds import config, deploy, utils
from hearth.common import exception

SaltCloudException = exception.CloudError
SaltCloudSystemExit = exception.CloudSystemExit
SaltCloudConfigError = exception.CloudConfigError
SaltCloudExecutionFailure = exception.CloudExecutionFailure
SaltCloudExecutionTimeout = exception.CloudExecutionTimeout
SaltCloudNotFound = exception.CloudNotFound
SaltInvocationError = exception.CloudSystemExit


def dict_update(dest: dict[str, Any], upd: Mapping[str, Any], recursive_update: bool = True,
                merge_lists: bool = False) -> dict[str, Any]:
    """Update ``dest`` with ``upd`` in place, nested mappings merged; return it (dictupdate)."""
    for key, value in upd.items():
        if recursive_update and isinstance(value, Mapping) and isinstance(dest.get(key), dict):
            dict_update(dest[key], value, recursive_update, merge_lists)
        elif merge_lists and isinstance(value, list) and isinstance(dest.get(key), list):
            dest[key] = dest[key] + [item for item in value if item not in dest[key]]
        else:
            dest[key] = value
    return dest


def to_unicode(value: Any, encoding: str = "utf-8", errors: str = "strict") -> Any:
    """Return bytes decoded, anything else as it is."""
    return value.decode(encoding, errors) if isinstance(value, bytes) else value


def to_bytes(value: Any, encoding: str = "utf-8", errors: str = "strict") -> Any:
    """Return text encoded, anything else as it is."""
    return value.encode(encoding, errors) if isinstance(value, str) else value


def _yaml() -> SimpleNamespace:
    return SimpleNamespace(safe_load=yaml.safe_load, safe_dump=yaml.safe_dump)


salt = SimpleNamespace(
    config=config,
    exceptions=SimpleNamespace(**{name: value for name, value in globals().items()
                                  if name.startswith("Salt")}),
    utils=SimpleNamespace(
        cloud=utils,
        json=SimpleNamespace(loads=json.loads, dumps=json.dumps, load=json.load,
                             dump=json.dump),
        files=SimpleNamespace(fopen=open),
        stringutils=SimpleNamespace(to_unicode=to_unicode, to_str=to_unicode,
                                    to_bytes=to_bytes),
        data=SimpleNamespace(simple_types_filter=utils.simple_types,
                             decode=lambda data, *args, **kwargs: data),
        dictupdate=SimpleNamespace(update=dict_update),
        yaml=_yaml()))


#: ``__utils__`` keys -> the helper (those taking the options get them bound).
CLOUD_UTILS = ("fire_event", "is_public_ip", "wait_for_ip", "wait_for_fun", "wait_for_port",
               "check_name", "list_nodes_select", "cache_node", "cache_node_list",
               "delete_minion_cachedir", "get_salt_interface", "userdata_template",
               "minion_config", "salt_config_to_yaml", "os_script", "remove_sshkey")


def utils_for(opts: Mapping[str, Any]) -> dict[str, Callable[..., Any]]:
    """Return the ``__utils__`` mapping a cloud driver sees (``cloud.fire_event``...)."""
    table: dict[str, Callable[..., Any]] = {
        f"cloud.{name}": getattr(utils, name) for name in CLOUD_UTILS}
    table.update({
        "cloud.filter_event": functools.partial(utils.filter_event, opts=opts),
        "cloud.bootstrap": deploy.bootstrap,
        "cloud.cachedir_index_add": functools.partial(utils.cachedir_index_add,
                                                      base=opts.get("cachedir")),
        "cloud.cachedir_index_del": functools.partial(utils.cachedir_index_del,
                                                      base=opts.get("cachedir")),
        "dictupdate.update": dict_update,
        "json.loads": json.loads,
        "json.dumps": json.dumps,
        "files.fopen": open,
    })
    return table

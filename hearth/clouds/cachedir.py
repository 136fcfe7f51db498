"""Salt Cloud's node cache under the ``cachedir`` (the helpers of ``salt.utils.cloud``).

- ``<cachedir>/index.json``: ``{name: {id, profile, driver, provider}}`` of
  the nodes created here (:func:`cachedir_index_add`, :func:`cachedir_index_del`),
  kept whatever ``update_cachedir`` says, as Salt's index;
- ``<cachedir>/active/<driver>/<alias>/<name>.json``: each node's last known
  details, written only when the ``update_cachedir`` option is true
  (:func:`cache_node`, :func:`cache_node_list`, :func:`delete_minion_cachedir`).

Files are JSON (Salt's are msgpack) and written whole through a rename, so
a reader never sees half a file.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from typing import Any

from hearth.common import exception

INDEX = "index.json"
#: One writer of the index at a time within a process (a map's parallel creates).
_INDEX_LOCK = threading.Lock()


def _write(path: str, data: Any) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    temporary = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
    with open(temporary, "w", encoding="utf-8") as stream:
        json.dump(data, stream, default=str)
    os.replace(temporary, path)


def _read(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as stream:
            data = json.load(stream)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        raise exception.CloudConfigError(f"cloud cache file {path} is unreadable: "
                                         f"{error}") from error
    return data if isinstance(data, dict) else {}


def _base(base: str | None, opts: Mapping[str, Any] | None = None) -> str:
    base = base or (opts or {}).get("cachedir")
    if not base:
        raise exception.CloudConfigError("the cloud cachedir is not set (the 'cachedir' option)")
    return str(base)


def cachedir_index_add(minion_id: str, profile: str | None, driver: str, provider: str,
                       base: str | None = None) -> None:
    """Record node ``minion_id`` (its profile, driver and provider alias) in the index."""
    path = os.path.join(_base(base), INDEX)
    with _INDEX_LOCK:
        index = _read(path)
        index[minion_id] = {"id": minion_id, "profile": profile, "driver": driver,
                            "provider": str(provider).partition(":")[0]}
        _write(path, index)


def cachedir_index_del(minion_id: str, base: str | None = None) -> None:
    """Remove node ``minion_id`` from the index."""
    path = os.path.join(_base(base), INDEX)
    with _INDEX_LOCK:
        index = _read(path)
        if index.pop(minion_id, None) is not None:
            _write(path, index)


def cachedir_index(base: str | None = None) -> dict[str, Any]:
    """Return the index of the nodes created here."""
    return _read(os.path.join(_base(base), INDEX))


def _node_dir(opts: Mapping[str, Any], provider: str, base: str | None = None) -> str | None:
    """Return the active-node directory of ``provider`` (``alias`` or ``alias:driver``)."""
    if not opts.get("update_cachedir"):
        return None
    alias, _, driver = str(provider).partition(":")
    if not driver:
        driver = next(iter((opts.get("providers") or {}).get(alias) or {}), "")
    return os.path.join(_base(base, opts), "active", driver, alias)


def cache_node(node: Mapping[str, Any], provider: str, opts: Mapping[str, Any]) -> None:
    """Write one node's details (``node['name']``) when ``update_cachedir`` is on."""
    directory = _node_dir(opts, provider)
    if directory is not None:
        _write(os.path.join(directory, f"{node['name']}.json"), dict(node))


def cache_node_list(nodes: Mapping[str, Mapping[str, Any]], provider: str,
                    opts: Mapping[str, Any]) -> None:
    """Write every node of a listing and drop the cached ones no longer listed."""
    directory = _node_dir(opts, provider)
    if directory is None:
        return
    for name, node in nodes.items():
        _write(os.path.join(directory, f"{name}.json"), dict(node))
    for entry in os.listdir(directory) if os.path.isdir(directory) else ():
        if entry.endswith(".json") and entry[:-len(".json")] not in nodes:
            os.remove(os.path.join(directory, entry))


def delete_minion_cachedir(minion_id: str, provider: str, opts: Mapping[str, Any],
                           base: str | None = None) -> None:
    """Forget a destroyed node's cached details (when ``update_cachedir`` is on)."""
    directory = _node_dir(opts, provider, base)
    if directory is None:
        return
    try:
        os.remove(os.path.join(directory, f"{minion_id}.json"))
    except FileNotFoundError:
        pass

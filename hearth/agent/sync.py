"""Fetch the master's module files into the agent's extension directory, by hash.

The master lists ``{relative name: sha256}``; a file whose local copy
differs is fetched, its content checked against both the listed hash and
the hash sent with it, and written atomically.  Files the master no longer
lists are removed.  Names are checked so nothing is written outside the
directory.
"""

from __future__ import annotations

import base64
import hashlib
import os
from typing import Any

from hearth.common import exception


def _safe_path(directory: str, name: str) -> str:
    path = os.path.normpath(os.path.join(directory, name))
    if os.path.isabs(name) or not path.startswith(os.path.normpath(directory) + os.sep):
        raise exception.CommandExecutionError(f"the master offered a module file outside the "
                                              f"modules directory: {name!r}")
    return path


def _local_digests(directory: str) -> dict[str, str]:
    found = {}
    for root, dirs, names in os.walk(directory):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in names:
            path = os.path.join(root, name)
            with open(path, "rb") as handle:
                found[os.path.relpath(path, directory)] = hashlib.sha256(handle.read()).hexdigest()
    return found


def sync_files(channel: Any, directory: str) -> list[str]:
    """Make ``directory`` hold exactly the master's module files; return the changed names."""
    offered = channel.request("modules_list") or {}
    local = _local_digests(directory)
    changed = []
    for name, digest in sorted(offered.items()):
        path = _safe_path(directory, name)
        if local.get(name) == digest:
            continue
        reply = channel.request("module_get", name=name)
        content = base64.b64decode(reply["content"])
        actual = hashlib.sha256(content).hexdigest()
        if actual != digest or actual != reply.get("sha256"):
            raise exception.CommandExecutionError(
                f"module file {name!r} from the master does not match its hash "
                f"(listed {digest}, received {actual}); nothing written")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(f"{path}.tmp", "wb") as handle:
            handle.write(content)
        os.replace(f"{path}.tmp", path)
        changed.append(_module_name(name))
    for name in sorted(set(local) - set(offered)):
        os.unlink(_safe_path(directory, name))
        changed.append(_module_name(name))
    return sorted(set(changed))


def _module_name(relative: str) -> str:
    """Return the module a file belongs to (``pkg/x.py`` → ``pkg``, ``m.zip`` → ``m``)."""
    top = relative.split(os.sep, 1)[0]
    return top.rsplit(".", 1)[0] if "." in top else top

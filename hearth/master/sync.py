"""Module files the master serves to agents (``saltutil.sync_modules``), with hashes.

Every ``.py`` file, ``.zip`` archive and package directory (its files) at
the top of the master's ``[master] module_dirs`` is offered by relative
path and SHA-256; an earlier directory wins a name clash.  Names are
checked so that a request can never read outside those directories.
"""

from __future__ import annotations

import base64
import hashlib
import os

from hearth.common import exception

SUFFIXES = (".py", ".zip")


def _digest(path: str) -> str:
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def _files(directory: str) -> dict[str, str]:
    """Return ``{relative name: path}`` of the servable files in ``directory``."""
    found: dict[str, str] = {}
    try:
        entries = sorted(os.listdir(directory))
    except OSError:
        return found
    for entry in entries:
        path = os.path.join(directory, entry)
        if entry.startswith(("_", ".")) and entry != "__init__.py":
            continue
        if os.path.isfile(path) and entry.endswith(SUFFIXES):
            found[entry] = path
        elif os.path.isfile(os.path.join(path, "__init__.py")):
            for root, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                for name in sorted(names):
                    if name.endswith(".py"):
                        full = os.path.join(root, name)
                        found[os.path.relpath(full, directory)] = full
    return found


def _catalogue(module_dirs: list[str]) -> dict[str, str]:
    catalogue: dict[str, str] = {}
    for directory in module_dirs:
        for name, path in _files(directory).items():
            catalogue.setdefault(name, path)
    return catalogue


def list_modules(module_dirs: list[str]) -> dict[str, str]:
    """Return ``{relative name: sha256}`` of every file the agents may fetch."""
    return {name: _digest(path) for name, path in _catalogue(module_dirs).items()}


def read_module(module_dirs: list[str], name: str) -> dict[str, str]:
    """Return one served file as ``{"name", "sha256", "content"}`` (content in base64)."""
    path = _catalogue(module_dirs).get(name)
    if path is None:
        raise exception.NotFound(message=f"No module file {name!r} in the master's "
                                         "module_dirs")
    with open(path, "rb") as handle:
        content = handle.read()
    return {"name": name, "sha256": hashlib.sha256(content).hexdigest(),
            "content": base64.b64encode(content).decode()}

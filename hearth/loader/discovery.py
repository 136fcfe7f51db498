"""Find the module sources of a family: built-ins, module_dirs, zip archives.

Discovery only lists files; nothing is imported here.  A source's *rank*
orders precedence: built-ins first, then each configured directory in turn,
and a later source overrides an earlier one under the same virtual name.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class ModuleSource:
    """One importable module: where it is, what kind it is, how much it weighs."""

    name: str
    path: str
    kind: str
    origin: str
    rank: int


def _kind_of(path: str, zip_enabled: bool) -> str | None:
    """Return the source kind of ``path``, or None when it is not a module."""
    if os.path.isdir(path):
        return "package" if os.path.isfile(os.path.join(path, "__init__.py")) else None
    if path.endswith(".py"):
        return "file"
    if path.endswith(".zip") and zip_enabled:
        return "zip"
    return None


def _module_name(entry: str) -> str:
    """Return the module name of a directory entry (its name without suffix)."""
    for suffix in (".py", ".zip"):
        if entry.endswith(suffix):
            return entry[: -len(suffix)]
    return entry


def scan_directory(directory: str, origin: str, zip_enabled: bool,
                   first_rank: int = 0) -> list[ModuleSource]:
    """List the module sources in one directory, sorted by file name.

    Names starting with an underscore or a dot are skipped, as are entries
    that are not modules.  A missing directory yields nothing.
    """
    try:
        entries = sorted(os.listdir(directory))
    except OSError:
        return []
    sources = []
    for entry in entries:
        if entry.startswith(("_", ".")):
            continue
        path = os.path.join(directory, entry)
        kind = _kind_of(path, zip_enabled)
        if kind is None:
            continue
        name = _module_name(entry)
        if not name.isidentifier():
            continue
        sources.append(ModuleSource(name, path, kind, origin, first_rank + len(sources)))
    return sources


def discover(builtin_dirs: Sequence[str], module_dirs: Sequence[str],
             zip_enabled: bool) -> list[ModuleSource]:
    """List every source: built-in directories first, then ``module_dirs`` in order.

    Zip archives are only taken from ``module_dirs`` (and only when enabled).
    """
    sources: list[ModuleSource] = []
    for directory in builtin_dirs:
        sources += scan_directory(directory, "int", False, len(sources))
    for directory in module_dirs:
        sources += scan_directory(directory, "ext", zip_enabled, len(sources))
    return sources

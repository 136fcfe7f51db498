"""A digest of what decides agents' pillar on a master, so that masters sharing a database compare.

Masters that share a database (:mod:`hearth.master.peers`) share keys and
jobs, but each compiles pillar from its own files: its ``[pillar]``
options, its YAML ``config_file`` (``ext_pillar`` ...) and the SLS files of
its ``pillar_roots``.  An agent that fails over from one to the other must
get the same pillar, so each master records :func:`pillar_digest` with
its heartbeats and warns when a live peer's differs.

The digest covers the options that shape compiling (:data:`OPTIONS`) and
every file under each environment's roots, by environment, path relative
to its root and content: the same tree at another absolute path on
another machine gives the same digest.  :class:`PillarDigest` re-reads a
file only when its size or modification time changed.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping
from typing import Any

#: The opts (Salt's names) that change what compiling gives, beside the roots' files
#: (:class:`hearth.pillar.settings.PillarSettings` reads them).
OPTIONS = ("ext_pillar", "ext_pillar_first", "pillar_source_merging_strategy",
           "pillar_merge_lists", "renderer", "pillar_includes_override_sls", "state_top")


class PillarDigest:
    """Compute the digest of the opts ``current()`` returns, caching file hashes by stat."""

    def __init__(self, current: Callable[[], Mapping[str, Any]]) -> None:
        self._current = current
        #: path -> ((size, mtime_ns), sha256 hex of the content)
        self._files: dict[str, tuple[tuple[int, int], str]] = {}

    def __call__(self) -> str:
        """Return the digest now (hex, 64 characters)."""
        opts = self._current()
        digest = hashlib.sha256()
        shown = {key: opts.get(key) for key in OPTIONS}
        digest.update(json.dumps(shown, sort_keys=True, default=str).encode())
        seen: dict[str, tuple[tuple[int, int], str]] = {}
        roots = opts.get("pillar_roots") or {}
        for env in sorted(roots):
            for number, root in enumerate(roots[env]):
                for relative, path in _files(root):
                    content = self._hash(path, seen)
                    digest.update(f"\0{env}\0{number}\0{relative}\0{content}".encode())
        self._files = seen
        return digest.hexdigest()

    def _hash(self, path: str, seen: dict[str, tuple[tuple[int, int], str]]) -> str:
        try:
            status = os.stat(path)
        except OSError:
            return "unreadable"
        signature = (status.st_size, status.st_mtime_ns)
        cached = self._files.get(path)
        if cached is not None and cached[0] == signature:
            seen[path] = cached
            return cached[1]
        try:
            with open(path, "rb") as stream:
                content = hashlib.sha256(stream.read()).hexdigest()
        except OSError:
            return "unreadable"
        seen[path] = (signature, content)
        return content


def _files(root: str) -> list[tuple[str, str]]:
    """Return ``(path relative to root, path)`` of every file under ``root``, sorted."""
    found = []
    for directory, subdirs, files in os.walk(root, followlinks=True):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
        for name in files:
            if name.startswith("."):
                continue
            path = os.path.join(directory, name)
            found.append((os.path.relpath(path, root).replace(os.sep, "/"), path))
    return sorted(found)

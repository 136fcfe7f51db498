"""Find pillar SLS files in an environment's roots.

``a.b`` is ``a/b.sls`` or ``a/b/init.sls`` in the first root holding
either, as Salt's file client finds it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence


def sls_path(roots: Sequence[str], sls: str) -> str | None:
    """Return the file of SLS ``sls`` in ``roots``, or None when no root has it."""
    relative = sls.replace(".", "/")
    for root in roots:
        for candidate in (f"{relative}.sls", f"{relative}/init.sls"):
            path = os.path.join(root, candidate)
            if os.path.isfile(path):
                return path
    return None


def available(roots: Sequence[str], top_file: str = "top.sls") -> list[str]:
    """Return every SLS name found under ``roots`` (sorted, the top file left out)."""
    names: set[str] = set()
    for root in roots:
        for directory, subdirs, files in os.walk(root, followlinks=True):
            subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
            relative = os.path.relpath(directory, root)
            parts = [] if relative == "." else relative.split(os.sep)
            for name in files:
                if not name.endswith(".sls") or (not parts and name == top_file):
                    continue
                stem = name[:-len(".sls")]
                names.add(".".join(parts if stem == "init" and parts else [*parts, stem]))
    return sorted(names)


def file_root(roots: Sequence[str], name: str) -> str | None:
    """Return the path of the plain file ``name`` in the first root holding it."""
    for root in roots:
        path = os.path.join(root, name)
        if os.path.isfile(path):
            return path
    return None

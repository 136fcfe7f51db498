"""The local engine's description file: written by the engine, read by stackctl.

One JSON object per engine in the user's runtime directory: its pid, its
socket, its home (state directory), its configuration files, its log and
when it started (:mod:`hearth.api.local_server` writes it once it serves;
:mod:`hearth.cli.local_engine` reads it to find, reuse and stop engines).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from typing import Any


def read_info(path: str) -> dict[str, Any] | None:
    """Return an engine's description, or None when it is gone."""
    try:
        with open(path, encoding="utf-8") as handle:
            info = json.load(handle)
    except (OSError, ValueError):
        return None
    return info if isinstance(info, dict) else None


def write_info(path: str, socket_path: str, config_files: Sequence[str] | None,
               state_path: str) -> None:
    """Describe this process, the local engine serving ``socket_path``, in the file ``path``."""
    info = {"pid": os.getpid(), "socket": socket_path, "home": os.path.realpath(state_path),
            "config_files": list(config_files or []),
            "log": os.path.join(state_path, "local-engine.log"), "started": time.time()}
    temporary = f"{path}.{os.getpid()}"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(info, handle)
    os.replace(temporary, path)

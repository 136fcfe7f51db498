"""Manage system services through systemd (only where systemd is running)."""

from __future__ import annotations

import os
import shutil
from typing import Any


def __virtual__() -> Any:
    if shutil.which("systemctl") and os.path.isdir("/run/systemd/system"):
        return True
    return (False, "The service module needs a running systemd (no /run/systemd/system).")


def _systemctl(*args: str) -> int:
    return __salt__["cmd.retcode"](["systemctl", *args], ignore_retcode=True)  # noqa: F821


def start(name: str) -> bool:
    """Start the service ``name``."""
    return _systemctl("start", name) == 0


def stop(name: str) -> bool:
    """Stop the service ``name``."""
    return _systemctl("stop", name) == 0


def restart(name: str) -> bool:
    """Restart the service ``name``."""
    return _systemctl("restart", name) == 0


def reload_(name: str) -> bool:
    """Reload the service ``name``."""
    return _systemctl("reload", name) == 0


def status(name: str, sig: str | None = None) -> bool:
    """Return whether the service ``name`` is running (False when unknown)."""
    return _systemctl("is-active", "--quiet", name) == 0


def enabled(name: str, **kwargs: Any) -> bool:
    """Return whether the service ``name`` starts at boot."""
    return _systemctl("is-enabled", "--quiet", name) == 0


def enable(name: str, **kwargs: Any) -> bool:
    """Make the service ``name`` start at boot."""
    return _systemctl("enable", name) == 0


def disable(name: str, **kwargs: Any) -> bool:
    """Stop the service ``name`` from starting at boot."""
    return _systemctl("disable", name) == 0


__func_alias__ = {"reload_": "reload"}

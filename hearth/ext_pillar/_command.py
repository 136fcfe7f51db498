"""Run an ext_pillar's command through the master's ``cmd`` functions (not a module)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.common.exception import CommandExecutionError


def run_command(salt: Mapping[str, Any], command: str, python_shell: bool) -> str:
    """Run ``command`` with ``cmd.run_all``; return its stdout, or raise with its stderr."""
    result = salt["cmd.run_all"](command, python_shell=python_shell)
    if result["retcode"]:
        detail = result["stderr"] or result["stdout"]
        raise CommandExecutionError(
            f"command {command!r} exited with {result['retcode']}: {detail}")
    return result["stdout"]

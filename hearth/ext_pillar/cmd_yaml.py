"""ext_pillar cmd_yaml: run a shell command and read its output as YAML.

``- cmd_yaml: 'cat /srv/pillar-data/%s.yaml'``: ``%s`` becomes the agent id;
the command runs through the shell, as Salt's.  A failing command or output
that is not a YAML mapping is an error naming the command (Salt swallows it).
"""

from __future__ import annotations

from typing import Any

import yaml

from hearth.common import document_bounds
from hearth.common.exception import CommandExecutionError
from hearth.ext_pillar._command import run_command


def ext_pillar(minion_id: str, pillar: Any, command: str) -> dict[str, Any]:
    """Return the YAML mapping printed by ``command`` (``%s`` replaced by the agent id)."""
    command = command.replace("%s", minion_id)
    output = run_command(__salt__, command, python_shell=True)  # noqa: F821
    try:
        data = document_bounds.load_yaml(output)
    except yaml.YAMLError as error:
        raise CommandExecutionError(
            f"YAML data from {command!r} failed to parse: {error}") from error
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise CommandExecutionError(
            f"YAML data from {command!r} is a {type(data).__name__}, not a mapping")
    return data

"""ext_pillar cmd_json: run a command and read its output as JSON.

``- cmd_json: 'cat /srv/pillar-data/%s.json'``: ``%s`` becomes the agent id;
the command runs without a shell, as Salt's.  Unlike Salt (which logs and
returns nothing), a command that fails or prints something that is not a
JSON object is an error naming the command, so the pillar shows it.
"""

from __future__ import annotations

import json
from typing import Any

from hearth.common.exception import CommandExecutionError
from hearth.ext_pillar._command import run_command


def ext_pillar(minion_id: str, pillar: Any, command: str) -> dict[str, Any]:
    """Return the JSON object printed by ``command`` (``%s`` replaced by the agent id)."""
    command = command.replace("%s", minion_id)
    output = run_command(__salt__, command, python_shell=False)  # noqa: F821
    try:
        data = json.loads(output)
    except ValueError as error:
        raise CommandExecutionError(
            f"JSON data from {command!r} failed to parse: {error}") from error
    if not isinstance(data, dict):
        raise CommandExecutionError(
            f"JSON data from {command!r} is a {type(data).__name__}, not an object")
    return data

"""ext_pillar hearth_stack: the outputs of named Hearth stacks as pillar data.

So one stack can feed the configuration of the agents of another::

    ext_pillar:
      - hearth_stack:
          stacks: [network, database]    # names (or ids); '%s' becomes the agent id
          project: admin                 # default: the option hearth_stack.project
          key: stacks                    # default 'stacks'; null merges at the top

gives ``{stacks: {network: {<output>: <value>, ...}, database: {...}}}``.
Outputs are read from the database the way stack-show reads them (hidden
parameters stay masked).  A missing stack or an output that fails to
resolve is an error naming the stack and the output.
"""

from __future__ import annotations

from typing import Any

from hearth.common import exception

DEFAULT_PROJECT = "admin"


def stack_outputs(name: str, project: str, database_url: str | None = None) -> dict[str, Any]:
    """Return ``{output_key: value}`` of the stack ``name`` in ``project``."""
    from hearth.db import api_stacks
    from hearth.db.session import get_database
    from hearth.engine.registry.types import default_registry
    from hearth.engine.stacks import outputs
    from hearth.engine.stacks.loader import load_stack

    db = get_database(database_url)
    row = api_stacks.stack_find(db, name, project)
    stack = load_stack(db, row, default_registry())
    values = {}
    for output in outputs.resolve_outputs(stack):
        if "output_error" in output:
            raise exception.CommandExecutionError(
                f"hearth_stack: output {output['output_key']} of stack {name} failed: "
                f"{output['output_error']}")
        values[output["output_key"]] = output.get("output_value")
    return values


def ext_pillar(minion_id: str, pillar: Any, stacks: Any = None, project: str | None = None,
               key: str | None = "stacks", database_url: str | None = None) -> dict[str, Any]:
    """Return the outputs of ``stacks`` under ``key`` (or merged at the top when null)."""
    names = [stacks] if isinstance(stacks, str) else list(stacks or [])
    if not names:
        raise exception.CommandExecutionError("hearth_stack: no stacks named")
    project = project or __opts__.get("hearth_stack.project") or DEFAULT_PROJECT  # noqa: F821
    found: dict[str, Any] = {}
    for name in (str(n).replace("%s", minion_id) for n in names):
        try:
            found[name] = stack_outputs(name, project, database_url)
        except exception.StackNotFound as error:
            raise exception.CommandExecutionError(
                f"hearth_stack: {error} (project {project})") from error
    if key:
        return {key: found}
    merged: dict[str, Any] = {}
    for values in found.values():
        merged.update(values)
    return merged

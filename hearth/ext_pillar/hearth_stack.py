"""ext_pillar hearth_stack: the outputs of named Hearth stacks as pillar data.

So one stack can feed the configuration of the agents of another::

    ext_pillar:
      - hearth_stack:
          stacks: [network, database]    # names (or ids); '%s' becomes the agent id
          project: admin                 # default: the option hearth_stack.project
          key: stacks                    # default 'stacks'; null merges at the top

gives ``{stacks: {network: {<output>: <value>, ...}, database: {...}}}``.
Outputs are read through the engine's stack reads, as stack-show reads them
(hidden parameters stay masked).  A missing stack or an output that fails to
resolve is an error naming the stack and the output.

A project's outputs never reach an agent whose pillar that project may not
read: where a publisher_acl is configured (``[api] publisher_acl_file`` of
the compiling side: give hearth-master the API's), the JobService checks
that the project may run ``pillar.items`` on the agent, matched on what the
compile knows of it.  So a stack named after an agent (``'%s'``) cannot be
read by whoever names an agent after another project's stack.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.common import exception
from hearth.common.context import RequestContext
from hearth.engine.service.reads import StackReads
from hearth.jobservice.service import JobService

DEFAULT_PROJECT = "admin"


def stack_outputs(name: str, project: str, database_url: str | None = None,
                  agent_id: str | None = None,
                  grains: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Return ``{output_key: value}`` of the stack ``name`` in ``project``.

    ``agent_id`` and ``grains``: the agent whose pillar gets them; the
    JobService decides whether the project's data may go there.
    """
    if agent_id is not None:
        JobService().pillar.check_pillar_feed(project, agent_id, dict(grains or {}))
    stack = StackReads(database_url).show_stack(RequestContext.local(project), name)
    values = {}
    for output in stack.get("outputs") or []:
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
            found[name] = stack_outputs(name, project, database_url, minion_id,
                                        __grains__)  # noqa: F821
        except exception.JobRefused as error:
            raise exception.CommandExecutionError(f"hearth_stack: {error}") from error
        except exception.StackNotFound as error:
            raise exception.CommandExecutionError(
                f"hearth_stack: {error} (project {project})") from error
    if key:
        return {key: found}
    merged: dict[str, Any] = {}
    for values in found.values():
        merged.update(values)
    return merged

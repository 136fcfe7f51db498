"""The engine's own host: its execution modules and its pillar configuration, used in place.

What the JobService does here rather than through a master: run an
execution function as a job (one job runner per process, one loader of
execution modules, as Salt's ``salt-call --local``: ``stackctl call``,
``Hearth::Exec::Call`` without a target), and compile an agent's pillar or
show its top with this host's pillar configuration (where no master is
configured, and ``pillar-top``).  Whoever may do so is the JobService's
decision (the engine-host right), not this module's.

The loader of execution modules and the pillar compiler (Jinja, the YAML
renderers) are loaded with this module, which the JobService loads once,
at its first use of the host (:attr:`JobService.engine_host
<hearth.jobservice.service.JobService.engine_host>`): ``stackctl`` holds a
JobService and never loads them for its other commands.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from hearth.grains import load_grains
from hearth.jobs import JobRunner
from hearth.loader import job_runner, opts_from_conf
from hearth.pillar import compile_pillar, master_opts, pillar_top


@functools.lru_cache(maxsize=1)
def process_runner() -> JobRunner:
    """Return this process's job runner over the configured execution modules."""
    return job_runner(opts_from_conf())


class EngineHost:
    """The engine host's execution modules and pillar configuration (see the module docstring).

    ``runner_factory`` returns the job runner (default: this process's).
    """

    def __init__(self, runner_factory: Callable[[], JobRunner] | None = None) -> None:
        self._runner_factory = runner_factory or process_runner

    def runner(self) -> JobRunner:
        """Return the job runner of this host's execution modules."""
        return self._runner_factory()

    def compile_pillar(self, agent_id: str, pillarenv: str | None = None,
                       grains: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Compile ``agent_id``'s pillar with this host's configuration.

        ``grains`` default to this host's (with ``agent_id`` as the id).
        """
        if grains is None:
            grains = {**load_grains(opts_from_conf()), "id": agent_id}
        return compile_pillar(agent_id, dict(grains), master_opts(), pillarenv=pillarenv)

    def pillar_top(self, agent_id: str, grains: Mapping[str, Any]) -> dict[str, Any]:
        """Return which of this host's top-file targets select ``agent_id`` (with ``grains``)."""
        return pillar_top(agent_id, dict(grains), master_opts())

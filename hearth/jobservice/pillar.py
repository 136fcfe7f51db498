"""PillarService: who may read which agent's pillar, and the one path that reads it.

An agent's pillar is secret data (passwords, keys).  It is read for
``stackctl pillar-show`` and ``pillar-top`` (locally, or ``--url`` through
hearth-api's ``GET /agents/{agent_id}/pillar``), the console's agent page,
``Hearth::Pillar::Data`` and the ``hearth_stack`` ext_pillar, all here:

* the local user reads any agent's pillar, as root does with Salt;
* an API project reads an agent's pillar only where its publisher_acl lets
  it run ``pillar.items`` on that agent, matched on what the master holds
  true of the agent; any other agent, known or not, is a refusal (403), so
  the answer never tells a project which agents exist.

The master compiles the pillar from its own facts about the agent; where no
master is configured it is compiled here, which is the engine-host right.
Nothing here logs or publishes a pillar value: a refusal names the agent
and the rule, never the data.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hearth.agent.targeting import AgentFacts
from hearth.common import exception
from hearth.jobservice import agents as agent_facts
from hearth.jobservice.callers import ApiProject, Caller
from hearth.jobservice.publisher_acl import read_acl_file

if TYPE_CHECKING:
    from hearth.jobservice.service import JobService


class PillarService:
    """Pillar reads with the JobService's callers, master and rights (``jobs.pillar``)."""

    def __init__(self, jobs: JobService) -> None:
        self.jobs = jobs

    def agent_pillar(self, caller: Caller, agent_id: str, pillarenv: str | None = None,
                     grains: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Return ``agent_id``'s compiled pillar, if ``caller`` may read it (blocking).

        With a master configured the master compiles it, from its own facts
        about the agent; reading it needs the right to run ``pillar.items``
        there.  Without one it is compiled here, with ``grains`` (default:
        this host's), which is the engine-host right.

        :raises JobRefused: the caller may not read that agent's pillar.
        :raises AgentKeyNotFound: (the local user) no accepted agent has that id.
        """
        if not self.jobs.has_master():
            self.jobs.authorize_engine_host(caller, f"compile the pillar of agent {agent_id} "
                                            "on the engine's own host", "pillar.items")
            return self.jobs.engine_host.compile_pillar(agent_id, pillarenv, grains)
        with self.jobs.master_client() as client:
            self._authorize(client, caller, agent_id)
            return dict(client.agent_pillar(agent_id) or {})

    def pillar_top(self, caller: Caller, agent_id: str) -> dict[str, Any]:
        """Return which top-file targets select ``agent_id``, and their SLS files.

        The top files are this host's pillar configuration; the agent's
        grains are those the master holds true of it (what its compile
        matches).  The same right as reading its pillar.

        :raises JobRefused: the caller may not read that agent's pillar.
        :raises AgentKeyNotFound: (the local user) no accepted agent has that id.
        """
        with self.jobs.master_client() as client:
            self._authorize(client, caller, agent_id)
            listing = client.list_agents()
        found = [entry for entry in listing if entry["id"] == agent_id]
        if not found:
            raise exception.AgentKeyNotFound(agent_id, " among the accepted agents")
        record = agent_facts.AgentRecord.from_listing(found[0])
        facts = record.trusted_facts(self.jobs.settings.trust_agent_grains)
        return self.jobs.engine_host.pillar_top(agent_id, facts.grains)

    def check_pillar_feed(self, project: str, agent_id: str,
                          grains: Mapping[str, Any]) -> None:
        """Return if ``project``'s stack data may enter ``agent_id``'s pillar; else raise.

        The ``hearth_stack`` ext_pillar asks before it reads a stack: the
        project must be allowed to read that agent's pillar (its
        publisher_acl, matched on ``grains``: what the compile holds true of
        the agent).  Where no publisher_acl is configured no project may run
        anything, and the pillar configuration is the operator's alone.

        :raises JobRefused: the project may not read the agent's pillar.
        """
        settings = self.jobs.settings
        if not settings.acl_file:
            return
        facts = [AgentFacts(agent_id, {**grains, "id": agent_id})]
        read_acl_file(settings.acl_file).check_pillar_read(
            project, agent_id, facts, settings.nodegroups)

    def _authorize(self, client: Any, caller: Caller, agent_id: str) -> None:
        """Return if ``caller`` may read ``agent_id``'s pillar; else raise JobRefused."""
        if not isinstance(caller, ApiProject):
            return
        jobs = self.jobs
        acl = jobs.acl_for(caller, f"read the pillar of agent {agent_id}", "pillar.items",
                           agent_id)
        agents = jobs.agent_records(client, [(agent_id, "glob")], acl)
        acl.check_pillar_read(caller.project_id, agent_id, jobs.trusted(agents),
                              jobs.settings.nodegroups)

"""The operations the console calls: the one seam between its pages and the API.

Every page reads and acts through a :class:`ConsoleCalls`, which forwards
each call to an API client (the backend ``stackctl`` uses: the REST API's
operations, with the session's token on ``hearth-api``, or the local
engine's over its Unix socket).  So a console action is the same operation
as ``stackctl``'s and the REST API's: same policy (the token's project,
publisher_acl), same answers and same errors (a template's file, line and
property path).  The console has no other way into the engine.

Each method is one operation of the API's declared table
(:mod:`hearth.api.operations`), called through the
:class:`~hearth.cli.backend.Backend` derived from it: an operation renamed
or added there changes this file only, of the whole console.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hearth.api.readers import job_request

if TYPE_CHECKING:
    from hearth.cli.backend import Backend

#: Stack actions a page may ask for (Heat's ``POST .../actions`` bodies, and cancels).
STACK_ACTIONS = ("suspend", "resume", "check", "cancel_update", "cancel_without_rollback")
#: Most events one read returns to a page or a stream.
EVENT_PAGE = 200


class ConsoleCalls:
    """The API operations of one console request, made with its session's rights."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    # --- stacks: reads --------------------------------------------------------
    def list_stacks(self, filters: Mapping[str, Any] | None = None,
                    **options: Any) -> list[dict[str, Any]]:
        """Return the project's stacks (Heat's list items)."""
        return self.backend.list_stacks(dict(filters or {}), **options)

    def show_stack(self, identity: str) -> dict[str, Any]:
        """Return one stack with its outputs resolved."""
        return self.backend.show_stack(identity)

    def stack_summary(self, identity: str) -> dict[str, Any]:
        """Return the stack without resolving its outputs (its status is what a stream needs)."""
        return self.backend.show_stack(identity, resolve_outputs=False)

    def list_resources(self, identity: str) -> list[dict[str, Any]]:
        """Return the stack's resources."""
        return self.backend.list_resources(identity)

    def list_events(self, identity: str, marker: str | None = None,
                    newest_first: bool = False, limit: int = EVENT_PAGE) -> list[dict[str, Any]]:
        """Return the stack's events after ``marker`` (oldest first unless ``newest_first``)."""
        return self.backend.list_events(identity, marker=marker, limit=limit,
                                        sort_dir="desc" if newest_first else "asc")

    def stack_graph(self, identity: str) -> dict[str, Any]:
        """Return the stack's graph (the engine's one graph, as data)."""
        return self.backend.stack_graph(identity)

    def get_template(self, identity: str) -> dict[str, Any]:
        """Return the stack's template."""
        return self.backend.get_template(identity)

    def get_environment(self, identity: str) -> dict[str, Any]:
        """Return the stack's environment."""
        return self.backend.get_environment(identity)

    # --- stacks: actions ------------------------------------------------------
    def validate_template(self, template: Any, files: Mapping[str, str] | None = None,
                          environment: Any = None) -> dict[str, Any]:
        """Return Heat's validation of a template: its parameters, labels and constraints."""
        return self.backend.validate_template(template, files=dict(files or {}),
                                              environment=environment)

    def create_stack(self, name: str, template: Any, **request: Any) -> dict[str, Any]:
        """Create a stack; return ``{"id", "stack_name"}``."""
        return self.backend.create_stack(name, template, **request)

    def preview_stack(self, name: str, template: Any, **request: Any) -> dict[str, Any]:
        """Return what creating the stack would make."""
        return self.backend.preview_stack(name, template, **request)

    def update_stack(self, identity: str, **request: Any) -> Any:
        """Update a stack (``existing``: keep what the request leaves out)."""
        return self.backend.update_stack(identity, **request)

    def preview_update(self, identity: str, **request: Any) -> dict[str, Any]:
        """Return what updating the stack would change."""
        return self.backend.preview_update_stack(identity, **request)

    def delete_stack(self, identity: str) -> None:
        """Delete a stack."""
        self.backend.delete_stack(identity)

    def stack_action(self, identity: str, action: str) -> None:
        """Suspend, resume, check or cancel (one of :data:`STACK_ACTIONS`)."""
        if action not in STACK_ACTIONS:
            raise ValueError(f"unknown stack action {action!r}")
        self.backend.stack_action(identity, action)

    # --- jobs and agents ------------------------------------------------------
    def list_jobs(self, limit: int | None = None) -> list[dict[str, Any]]:
        """Return the caller's jobs, newest first."""
        return self.backend.list_jobs(limit=limit)

    def show_job(self, jid: str) -> dict[str, Any]:
        """Return one of the caller's jobs with each agent's return and the missing ones."""
        return self.backend.show_job(jid)

    def publish_job(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """Publish a job without waiting; return ``{"jid", "targeted"}``."""
        published = self.backend.publish(job_request(dict(request)))
        return {"jid": published.jid, "targeted": published.targeted}

    def list_agents(self) -> list[dict[str, Any]]:
        """Return the accepted agents the caller may target, with grains and last seen."""
        return self.backend.list_agents()

    def agent_pillar(self, agent_id: str) -> dict[str, Any]:
        """Return an agent's compiled pillar (a project: where it may run pillar.items there)."""
        return self.backend.agent_pillar(agent_id)

    # --- agent keys (salt-key) --------------------------------------------------
    def list_keys(self) -> dict[str, list[str]]:
        """Return the agent ids by Salt's key category (a project: with a '@wheel' grant)."""
        return self.backend.list_keys()

    def act_on_key(self, verb: str, agent_id: str) -> list[str]:
        """Accept, reject or delete the key of ``agent_id`` alone; return the ids acted on."""
        pattern = exact_pattern(agent_id)
        if verb == "accept":
            return self.backend.accept_keys(pattern)
        if verb == "reject":
            return self.backend.reject_keys(pattern)
        if verb == "delete":
            return self.backend.delete_keys(pattern)
        raise ValueError(f"unknown key action {verb!r}")


def exact_pattern(agent_id: str) -> str:
    """Return the glob that matches ``agent_id`` alone (its wildcards taken literally)."""
    return "".join(f"[{char}]" if char in "*?[]" else char for char in agent_id)

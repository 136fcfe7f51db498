"""Who asks the JobService: the local user, or a project of the REST API.

The identity is a type, never a flag on a shared record: code that holds a
:class:`LocalUser` holds every right, code that holds an :class:`ApiProject`
holds what the configuration grants that project.

* The **local user** owns the engine (stackctl's local engine behind a
  socket only they can reach, ``stackctl --in-process``) and holds the
  master's client key: they may run any function on any agent and on the
  engine's own host, and read any pillar, as root may with Salt.
* An **API project** (a token's project on hearth-api) may publish only what
  ``[api] publisher_acl_file`` allows it, may read the pillar of an agent
  only where it may run ``pillar.items``, and may run functions on the
  engine's own host only when ``[api] engine_host_projects`` names it.

A stack's resources act with the identity of the stack's owner
(:meth:`hearth.jobservice.service.JobService.caller_for`).
"""

from __future__ import annotations

import getpass
import os
from dataclasses import dataclass


@dataclass(frozen=True)
class LocalUser:
    """The user who owns this engine and the master's client key (every right)."""

    name: str

    @classmethod
    def current(cls) -> LocalUser:
        """Return the user this process runs as."""
        try:
            return cls(getpass.getuser())
        except (KeyError, OSError):  # no passwd entry (a container's arbitrary uid)
            return cls(f"uid {os.getuid()}")

    @property
    def recorded_as(self) -> str | None:
        """Return the job cache's ``user`` of this caller's jobs (None: the local user's)."""
        return None

    def __str__(self) -> str:
        return f"the local user {self.name}"


@dataclass(frozen=True)
class ApiProject:
    """A project of hearth-api (the project of the request's token, or a stack's owner)."""

    project_id: str

    @property
    def recorded_as(self) -> str | None:
        """Return the job cache's ``user`` of this caller's jobs: the project id."""
        return self.project_id

    def __str__(self) -> str:
        return f"project {self.project_id}"


#: Everyone who may ask the JobService for something.
Caller = LocalUser | ApiProject

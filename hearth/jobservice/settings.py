"""What the JobService reads from the configuration, and how it reaches the master."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hearth.common.configured import configured
from hearth.master.settings import MasterSettings
from hearth.transport.keys import key_paths

if TYPE_CHECKING:
    from hearth.master.client import MasterClient


@dataclass(frozen=True)
class JobSettings:
    """What the JobService reads from the configuration (a record; tests build their own).

    ``acl_file`` is ``[api] publisher_acl_file`` (None: no project may
    publish); ``engine_host_projects`` the project globs of ``[api]
    engine_host_projects``; ``trust_agent_grains`` is ``[master]
    trust_agent_grains``; ``nodegroups`` and ``timeout`` are the master's.
    """

    acl_file: str | None = None
    engine_host_projects: tuple[str, ...] = ()
    trust_agent_grains: bool = False
    nodegroups: dict[str, str] = field(default_factory=dict)
    timeout: float = 5.0

    @classmethod
    def from_conf(cls, conf: Any = None) -> JobSettings:
        """Read the settings from a loaded oslo.config object (default: Hearth's)."""
        conf = configured(conf)
        master = MasterSettings.from_conf(conf)
        return cls(acl_file=conf.api.publisher_acl_file or None,
                   engine_host_projects=tuple(conf.api.engine_host_projects),
                   trust_agent_grains=conf.master.trust_agent_grains,
                   nodegroups=master.nodegroups, timeout=master.timeout)


def master_client(master: MasterSettings | None = None) -> MasterClient:
    """Return a client of ``master`` (default: the master of this process's configuration).

    The JobService's one door to the master: its ZeroMQ client is loaded
    here, when a request is about to be sent, so that the processes that
    only hold a JobService (stackctl talking to its local engine) never load it.
    """
    # lazy: ZeroMQ (the master client, 50 ms) only when a master is asked; stackctl loads this
    from hearth.master.client import MasterClient

    return MasterClient(master)


def master_configured() -> bool:
    """Return whether this host holds the client key of a hearth-master."""
    pki_dir = os.path.expanduser(configured().master.pki_dir)
    return os.path.exists(key_paths(pki_dir, "client")[1])

"""What the JobService reads from the configuration, and how it reaches the master."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

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
        # lazy: oslo.config only to read settings; stackctl loads JobService
        from hearth.common import config

        if conf is None:
            config.register_opts()
            conf = config.CONF
        master = MasterSettings.from_conf(conf)
        return cls(acl_file=conf.api.publisher_acl_file or None,
                   engine_host_projects=tuple(conf.api.engine_host_projects),
                   trust_agent_grains=conf.master.trust_agent_grains,
                   nodegroups=master.nodegroups, timeout=master.timeout)


def default_client() -> MasterClient:
    """Return a client of the master of this process's configuration."""
    # lazy: ZeroMQ only to reach a master (stackctl imports JobService)
    from hearth.master.client import MasterClient

    return MasterClient()


def master_configured() -> bool:
    """Return whether this host holds the client key of a hearth-master."""
    # lazy: oslo.config only to read settings; stackctl loads JobService
    from hearth.common.config import CONF, register_opts

    register_opts(CONF)
    return os.path.exists(key_paths(os.path.expanduser(CONF.master.pki_dir), "client")[1])

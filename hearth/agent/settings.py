"""The agent's settings, read once from ``[agent]`` into a plain record."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field
from typing import Any

from hearth.agent.masters import STR, MasterAddress, parse_masters


@dataclass
class AgentSettings:
    """Everything hearth-agent needs from the configuration."""

    id: str
    master: str = "127.0.0.1"
    master_port: int = 4510
    master_auth_port: int = 4511
    master_finger: str | None = None
    master_pubkey: str | None = None
    enrollment_key_file: str | None = None
    root_dir: str = "agent"
    acceptance_wait_time: float = 2.0
    random_startup_delay: float = 0.0
    recon_default: int = 100
    recon_max: int = 2000
    recon_randomize: bool = True
    random_reauth_delay: float = 3.0
    reconnect_delay: float = 0.2
    reconnect_delay_max: float = 5.0
    ping_interval: float = 1.0
    master_alive_timeout: float = 4.0
    return_retry_interval: float = 5.0
    max_message_size: int = 32 * 1024 * 1024
    #: every master the agent may serve, in order (``[agent] master`` read whole)
    masters: tuple[MasterAddress, ...] = field(default=())
    master_type: str = STR
    master_alive_interval: float = 0.0
    master_failback: bool = False
    master_failback_interval: float = 0.0
    random_master: bool = False
    retry_dns: float = 30.0
    retry_dns_count: int | None = None
    jid_queue_hwm: int = 100

    def __post_init__(self) -> None:
        if not self.masters:
            self.masters = (MasterAddress(self.master, self.master_port,
                                          self.master_auth_port),)

    @classmethod
    def from_conf(cls, conf: Any) -> AgentSettings:
        """Read ``[agent]`` of a loaded oslo.config object."""
        section = conf.agent
        masters = parse_masters(section.master, section.master_port,
                                section.master_auth_port, section.master_type)
        return cls(id=section.id or conf.minion_id or socket.gethostname(),
                   master=masters[0].host, master_port=masters[0].port,
                   master_auth_port=masters[0].auth_port, masters=masters,
                   master_type=section.master_type,
                   master_alive_interval=section.master_alive_interval,
                   master_failback=section.master_failback,
                   master_failback_interval=section.master_failback_interval,
                   random_master=section.random_master, retry_dns=section.retry_dns,
                   retry_dns_count=section.retry_dns_count,
                   jid_queue_hwm=section.minion_jid_queue_hwm,
                   master_finger=section.master_finger, master_pubkey=section.master_pubkey,
                   enrollment_key_file=section.enrollment_key_file,
                   root_dir=os.path.abspath(os.path.expanduser(section.root_dir)),
                   acceptance_wait_time=section.acceptance_wait_time,
                   random_startup_delay=section.random_startup_delay,
                   recon_default=section.recon_default, recon_max=section.recon_max,
                   recon_randomize=section.recon_randomize,
                   random_reauth_delay=section.random_reauth_delay,
                   reconnect_delay=section.reconnect_delay,
                   reconnect_delay_max=section.reconnect_delay_max,
                   ping_interval=section.ping_interval,
                   master_alive_timeout=section.master_alive_timeout,
                   return_retry_interval=section.return_retry_interval,
                   max_message_size=section.max_message_size)

    @property
    def failover_after(self) -> float:
        """Return the seconds an unreachable master is waited for before the next one."""
        return self.master_alive_interval or self.master_alive_timeout

    @property
    def failback_interval(self) -> float:
        """Return the seconds between two checks of the first master (master_failback)."""
        return self.master_failback_interval or self.failover_after

    @property
    def pki_dir(self) -> str:
        """Return the directory of the agent's keys and the cached master key."""
        return os.path.join(self.root_dir, "pki")

    @property
    def extmods_dir(self) -> str:
        """Return the directory of the modules synced from the master."""
        return os.path.join(self.root_dir, "extmods", "modules")


def loader_opts(settings: AgentSettings, conf: Any) -> dict[str, Any]:
    """Return the ``__opts__`` of the agent's execution modules."""
    opts: dict[str, Any] = {
        "id": settings.id,
        "state_path": settings.root_dir,
        "root_dir": settings.root_dir,
        "cachedir": os.path.join(settings.root_dir, "cache"),
        "extension_modules": settings.extmods_dir,
        "module_dirs": [settings.extmods_dir, *conf.module_dirs],
        "enable_zip_modules": conf.enable_zip_modules,
    }
    opts.update(conf.module_opts)
    return opts

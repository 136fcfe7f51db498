"""The agent's settings, read once from ``[agent]`` into a plain record."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from typing import Any


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

    @classmethod
    def from_conf(cls, conf: Any) -> AgentSettings:
        """Read ``[agent]`` of a loaded oslo.config object."""
        section = conf.agent
        return cls(id=section.id or conf.minion_id or socket.gethostname(),
                   master=section.master, master_port=section.master_port,
                   master_auth_port=section.master_auth_port,
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

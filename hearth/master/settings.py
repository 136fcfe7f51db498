"""The master's settings, read once from ``[master]`` into a plain record."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from hearth.agent.masters import parse_master
from hearth.common import exception


@dataclass
class MasterSettings:
    """Everything the master daemon and its clients need from the configuration."""

    interface: str = "127.0.0.1"
    port: int = 4510
    auth_port: int = 4511
    pki_dir: str = "pki/master"
    auto_accept: bool = False
    keep_jobs_seconds: int = 86400
    timeout: float = 5.0
    nodegroups: dict[str, str] = field(default_factory=dict)
    module_dirs: list[str] = field(default_factory=list)
    worker_threads: int = 4
    agent_timeout: float = 4.0
    reconnect_grace: float = 30.0
    ping_rate: int = 1000
    client_timeout: float = 10.0
    max_message_size: int = 32 * 1024 * 1024
    trust_agent_grains: bool = False
    key_store: str = "files"
    heartbeat_interval: float = 1.0
    peer_timeout: float = 5.0
    #: ``[master] masters``: where clients reach the masters (empty: interface and port)
    masters: tuple[str, ...] = ()

    @classmethod
    def from_conf(cls, conf: Any) -> MasterSettings:
        """Read ``[master]`` of a loaded oslo.config object."""
        section = conf.master
        return cls(interface=section.interface, port=section.port, auth_port=section.auth_port,
                   pki_dir=os.path.abspath(os.path.expanduser(section.pki_dir)),
                   auto_accept=section.auto_accept,
                   keep_jobs_seconds=section.keep_jobs_seconds, timeout=section.timeout,
                   nodegroups=parse_nodegroups(section.nodegroups),
                   module_dirs=[os.path.expanduser(d) for d in section.module_dirs],
                   worker_threads=section.worker_threads, agent_timeout=section.agent_timeout,
                   reconnect_grace=section.reconnect_grace, ping_rate=section.ping_rate,
                   client_timeout=section.client_timeout,
                   max_message_size=section.max_message_size,
                   trust_agent_grains=section.trust_agent_grains,
                   key_store=section.key_store,
                   heartbeat_interval=section.heartbeat_interval,
                   peer_timeout=section.peer_timeout,
                   masters=tuple(item.strip() for item in section.masters if item.strip()))

    @property
    def client_host(self) -> str:
        """Return the address a client on this host connects to."""
        return {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(
            self.interface, self.interface)

    def client_addresses(self, override: str | None = None) -> list[str]:
        """Return the ``HOST:PORT`` of each master a client may use, in order.

        ``override`` is ``$HEARTH_MASTER`` (the same list as ``[master]
        masters``); without either, this host's master.  Raise BadRequest
        naming a bad item.
        """
        items = [item for item in (override or "").split(",") if item.strip()] or \
            list(self.masters)
        if not items:
            return [f"{self.client_host}:{self.port}"]
        option = "$HEARTH_MASTER" if override and override.strip() else "[master] masters"
        addresses = [str(parse_master(item, self.port, self.auth_port, option=option))
                     for item in items]
        if len(set(addresses)) != len(addresses):
            raise exception.BadRequest(message=f"{option} names the same master twice")
        return addresses


def parse_nodegroups(lines: list[str]) -> dict[str, str]:
    """Turn ``NAME=EXPRESSION`` lines into ``{name: expression}``."""
    groups = {}
    for line in lines:
        name, sep, expression = line.partition("=")
        if not sep or not name.strip() or not expression.strip():
            raise exception.BadRequest(
                message=f"[master] nodegroups: {line!r} is not NAME=EXPRESSION")
        groups[name.strip()] = expression.strip()
    return groups

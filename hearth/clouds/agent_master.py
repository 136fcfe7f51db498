"""What a deploy asks of hearth-master: keys made in advance, its contact, a first ping.

The master is the one named by the provider's ``master_config`` (a Hearth
configuration file), else by this process's own ``[master]`` section.
Each call opens a short-lived client on the calling (worker) thread.

Waiting for the new agent asks the JobService
(:meth:`~hearth.jobservice.service.JobService.wait_for_agent`), which publishes
``test.ping`` to that one agent once it is connected.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Mapping
from typing import Any

from hearth.clouds import config
from hearth.clouds.agent_files import MasterContact
from hearth.clouds.local_nodes import master_settings
from hearth.common import exception
from hearth.jobservice.service import JobService
from hearth.master.client import MasterClient
from hearth.transport import keys

WILDCARDS = ("0.0.0.0", "::", "")


def settings_for(vm_: Mapping[str, Any], opts: Mapping[str, Any] | None = None) -> Any:
    """Return the MasterSettings of the node's master (``master_config``, else Hearth's)."""
    return master_settings(config.get_cloud_config_value("master_config", vm_, opts or {}))


def _client(settings: Any, timeout: float | None = None) -> Any:
    return MasterClient(settings, timeout=timeout)


def contact(vm_: Mapping[str, Any], settings: Any) -> MasterContact:
    """Return how the node reaches the master.

    The address is the profile's ``agent: {master: ...}`` (or Salt's
    ``minion: {master: ...}``), else the master's interface, else (a
    wildcard interface) this host's name.
    """
    agent = {**dict(vm_.get("minion") or {}), **dict(vm_.get("agent") or {})}
    address = agent.get("master") or (
        settings.interface if settings.interface not in WILDCARDS else socket.getfqdn())
    with _client(settings) as client:
        finger = client.master_finger()["fingerprint"]
    return MasterContact(str(address), int(agent.get("master_port") or settings.port),
                         int(agent.get("master_auth_port") or settings.auth_port), finger)


def preseed(settings: Any, agent_id: str) -> keys.KeyPair:
    """Have the master make and accept the agent's key pair; return it."""
    with _client(settings) as client:
        return client.preseed_key(agent_id)


def enroll(settings: Any, agent_id: str, ttl: float) -> keys.KeyPair:
    """Have the master make a single-use enrollment key pair for the agent; return it."""
    with _client(settings) as client:
        return client.enroll_key(agent_id, ttl)


def wait_answering(settings: Any, agent_id: str, timeout: float,
                   sleep: Callable[[float], None] = time.sleep,
                   clock: Callable[[], float] = time.monotonic) -> float:
    """Wait until the agent answers; return the seconds it took (raise after ``timeout``).

    :raises AgentNotAnswering: (a CloudExecutionTimeout) it did not answer in time.
    """
    started = clock()
    JobService.for_master(settings).wait_for_agent(agent_id, timeout, interval=0.5,
                                                    clock=clock, sleep=sleep)
    return clock() - started


def record_grains(settings: Any, agent_id: str, grains: Mapping[str, Any]) -> None:
    """Record the new agent's grains at the master: what it holds true about the agent."""
    with _client(settings) as client:
        client.record_grains(agent_id, grains)


def forget(settings: Any, agent_id: str) -> None:
    """Delete the agent's key at the master (nothing when there is none or no master)."""
    try:
        with _client(settings, timeout=3) as client:
            client.delete_key(agent_id)
    except exception.HearthException:
        pass


def grains_of(vm_: Mapping[str, Any]) -> dict[str, Any]:
    """Return the agent's static grains: the profile's plus ``hearth-cloud`` (Salt's salt-cloud)."""
    provider = vm_.get("driver") or vm_.get("provider")
    return {**dict(vm_.get("grains") or {}),
            "hearth-cloud": {"driver": provider, "provider": provider,
                             "profile": vm_.get("profile")}}


def recorded_grains_of(vm_: Mapping[str, Any]) -> dict[str, Any]:
    """Return the grains the master records as true about the new agent.

    All its static grains (:func:`grains_of`), unless ``vm_`` names
    ``recorded_grains`` (Hearth::Cloud::Server does: a project's own grains
    are not the master's word); ``hearth-cloud`` always.
    """
    grains = grains_of(vm_)
    recorded = vm_.get("recorded_grains")
    if recorded is None:
        return grains
    return {**dict(recorded), "hearth-cloud": grains["hearth-cloud"]}

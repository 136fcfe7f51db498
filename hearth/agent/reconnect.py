"""When an agent knocks on its master again: random spreads, so a fleet never knocks at once.

A master that restarts, or comes back after an outage, would otherwise see
every agent of its fleet reconnect within ZeroMQ's 100 ms reconnect
interval, each with a CURVE handshake, a hello and a pillar request.
Salt's minion options, with Salt's names and meanings:

``random_startup_delay``
    Seconds: an agent that starts waits a random time up to this before its
    first contact (machines booted together).
``recon_default``, ``recon_max``, ``recon_randomize``
    Milliseconds: ZeroMQ's reconnect interval of the agent's sockets and its
    ceiling.  With ``recon_randomize`` each agent picks its interval once,
    at random between ``recon_default`` and ``recon_default + recon_max``,
    so after a master restart the fleet's knocks are spread over that span.
``random_reauth_delay``
    Seconds: an agent that lost its master (silent ``master_alive_timeout``
    seconds) waits a random time up to this before authenticating again.

The real agent and the fleet simulator both take their waits from
:class:`ReconnectPolicy`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from hearth.agent.settings import AgentSettings


@dataclass
class ReconnectPolicy:
    """One agent's reconnect waits (its random interval is drawn once, at construction)."""

    recon_default: int = 100
    recon_max: int = 2000
    recon_randomize: bool = True
    random_reauth_delay: float = 3.0
    random_startup_delay: float = 0.0
    rng: random.Random = field(default_factory=random.Random, repr=False)
    interval: int = field(init=False)

    def __post_init__(self) -> None:
        self.interval = self.recon_default
        if self.recon_randomize and self.recon_max > 0:
            self.interval = self.rng.randint(self.recon_default,
                                             self.recon_default + self.recon_max)

    @classmethod
    def from_settings(cls, settings: AgentSettings,
                      rng: random.Random | None = None) -> ReconnectPolicy:
        """Return the policy of an agent's settings."""
        return cls(recon_default=settings.recon_default, recon_max=settings.recon_max,
                   recon_randomize=settings.recon_randomize,
                   random_reauth_delay=settings.random_reauth_delay,
                   random_startup_delay=settings.random_startup_delay,
                   rng=rng or random.Random())

    def socket_options(self) -> dict[str, Any]:
        """Return the ZeroMQ options of a socket to the master (its reconnect interval)."""
        options = {"reconnect_ivl": self.interval}
        if self.recon_max > self.interval:
            options["reconnect_ivl_max"] = self.recon_max
        return options

    def startup_delay(self) -> float:
        """Return the seconds to wait before the first contact."""
        return self.rng.uniform(0.0, self.random_startup_delay)

    def reauth_delay(self) -> float:
        """Return the seconds to wait before authenticating again after losing the master."""
        return self.rng.uniform(0.0, self.random_reauth_delay)

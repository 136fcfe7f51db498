"""Whether the first master answers again, asked while the agent serves another (failback).

With ``master_failback`` an agent that failed over asks its first master,
every ``master_failback_interval`` seconds, the question it asks at every
authentication: is this key accepted?  The question goes to the auth port
over a socket of its own, so the agent keeps serving its current master
meanwhile.  A probe is made only while the agent runs no job and keeps no
return (each job's returns then reach the master that sent it), and is
given up when the first master stays unreachable ``master_alive_interval``
seconds.
"""

from __future__ import annotations

from typing import Any

import zmq

from hearth.agent import session
from hearth.agent.masters import MasterAddress
from hearth.agent.reconnect import ReconnectPolicy
from hearth.agent.settings import AgentSettings
from hearth.transport import curve, keys, wire
from hearth.transport.gate import Gate


class FailbackProbe:
    """One auth request to the first master, stepped by the agent's loop without blocking."""

    def __init__(self, context: zmq.Context, master: MasterAddress, agent_keys: keys.KeyPair,
                 settings: AgentSettings, policy: ReconnectPolicy, gate: Gate) -> None:
        self.master = master
        self._gate = gate
        self._peer = f"the master at {master}"
        self.socket = curve.client_socket(
            context, zmq.DEALER, curve.tcp_endpoint(master.host, master.auth_port),
            agent_keys, keys.AUTH_BOOTSTRAP.public, **session.auth_socket_options(settings),
            **policy.socket_options())
        self._attempt = session.AuthAttempt(wire.encode(session.auth_request(settings.id)),
                                            settings, failover=True)
        #: the master's answer (``status``, ``master_pub``) once in; None until then or never
        self.answer: dict[str, Any] | None = None

    @property
    def events(self) -> int:
        """Return the socket events worth waiting for now."""
        return zmq.POLLIN if self._attempt.sent else zmq.POLLIN | zmq.POLLOUT

    def step(self) -> float | None:
        """Read the answer or send the request; return seconds to the next step, None when over.

        Over means answered (:attr:`answer`) or given up (the master stayed
        unreachable; :attr:`answer` None).
        """
        while True:
            events = self.socket.getsockopt(zmq.EVENTS)
            if not events & zmq.POLLIN:
                break
            self.answer = session.read_auth_reply(self._gate, self.socket.recv(), self._peer)
            if self.answer is not None:
                return None
            self._attempt.unreadable()
        return self._attempt.step(bool(events & zmq.POLLOUT), self._transmit)

    def _transmit(self, frame: bytes) -> bool:
        try:
            self.socket.send(frame, zmq.NOBLOCK)
        except zmq.Again:
            return False
        return True

    def close(self) -> None:
        """Close the probe's socket."""
        self.socket.close()

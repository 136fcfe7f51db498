"""An agent's conversation with its master, without the I/O: what it sends, when, and its answers.

The real agent (:class:`~hearth.agent.connection.MasterConnection`: one
thread, blocking sockets) and the fleet simulator (thousands of agents as
coroutines in one process, :mod:`tests.fixtures.fleet`) drive the same
objects, so a simulated agent says exactly what a real one says:

* :func:`auth_request`, :class:`AuthAttempt` and :func:`read_auth_reply`:
  the auth port's exchange.
* :class:`AgentSession`, one per connection to the job port:
  :meth:`~AgentSession.open` says ``hello`` with the grains;
  :meth:`~AgentSession.tick` pings every ``ping_interval`` (or as seldom as
  the master asks: a large fleet pings less often) with the running jobs
  and how many of the master's messages it dropped, and at once when a job
  has been running for ``ping_interval`` without being reported; it resends
  every return not acknowledged after ``return_retry_interval``, and tells
  when the master is gone;
  :meth:`~AgentSession.receive` passes each frame through the gate
  (:data:`hearth.protocol.MASTER`) and answers it: ``job`` runs,
  ``ack`` forgets a kept return, ``welcome`` or ``pong`` with a boot not seen
  before (a restarted master) means hello again, resend every kept return
  and fetch the pillar, ``rep`` answers a request, ``reauth`` ends the
  connection (the key is no longer accepted: authenticate again);
  :meth:`~AgentSession.send` never sends what the master would refuse unread
  (larger or deeper than it announced): a return becomes an error return.
* :func:`return_message` and :func:`request_message`: the shapes of a job's
  return and of a request to the master.

The caller owns the socket and the clock's thread: it gives the session a
``transmit(frame)`` that sends without blocking and says whether it could,
and tells :meth:`~AgentSession.tick` whether the socket is writable now.
The socket (:func:`job_socket_options`) queues messages only to a completed
connection (ZeroMQ's ``immediate``), so a master that comes back is not
greeted with every ping it missed, and a ``hello`` that found no connection
yet is said once the socket is writable (:attr:`AgentSession.greeting`).
With several masters it checks the connection with ZeroMQ's heartbeats,
which a master's ZeroMQ thread answers even while its own loop is busy, so
that a writable socket means a live master.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Protocol

from hearth import protocol
from hearth.agent.settings import AgentSettings
from hearth.transport import wire
from hearth.transport.gate import Gate

LOG = logging.getLogger(__name__)

#: A master whose connection is alive but who has said nothing for this many
#: ``master_alive_timeout`` periods is given up all the same (its loop is stuck).
PATIENCE = 10


class ReturnKeeper(Protocol):
    """Where an agent keeps its returns until the master acknowledges them."""

    def save(self, ret: dict[str, Any]) -> None:
        """Keep ``ret`` until its jid is acknowledged."""

    def acknowledge(self, jid: str) -> None:
        """Forget the return of ``jid``."""

    def sent(self, jid: str) -> None:
        """Note that the return of ``jid`` was just sent."""

    def due(self, older_than: float | None = None) -> list[dict[str, Any]]:
        """Return the kept returns not sent in the last ``older_than`` seconds (all if None)."""


def return_message(jid: str, agent_id: str, fun: str, args: list[Any], ret: Any,
                   retcode: int, success: bool, out: str | None = None) -> dict[str, Any]:
    """Return the ``ret`` message of one job (Salt's return shape)."""
    message = {"cmd": "ret", "jid": jid, "id": agent_id, "fun": fun, "fun_args": args,
               "return": ret, "retcode": retcode, "success": success}
    if out:
        message["out"] = out
    return message


def request_message(rid: int, op: str, **payload: Any) -> dict[str, Any]:
    """Return an agent's request to the master (``pillar``, ``modules_list``, ``module_get``)."""
    return {"cmd": "req", "rid": rid, "op": op, **payload}


def auth_request(agent_id: str, enroll_public: bytes | None = None) -> dict[str, Any]:
    """Return what an agent sends the auth port (with its own new key when enrolling)."""
    request = {"id": agent_id}
    if enroll_public is not None:
        request["enroll"] = enroll_public.decode()
    return request


def read_auth_reply(gate: Gate, frame: bytes, peer: str) -> dict[str, Any] | None:
    """Return the master's answer on the auth port; None when the gate dropped it."""
    admitted = gate.admit(protocol.AUTH_REPLY.name, frame, peer)
    return admitted[1] if admitted else None


def _link_options(settings: AgentSettings, failover: bool) -> dict[str, Any]:
    """Return the options of a socket to the master: queue only to a live connection.

    With another master to go to, the connection is checked with ZeroMQ
    heartbeats, so that a master that stopped answering (a host gone, a
    stopped process) is told apart quickly from a slow one.  With one master
    there is nothing to gain: a master whose ZeroMQ thread is busy with a
    fleet's reconnections would miss heartbeats and have connections
    dropped and made again, the very load it is behind on.
    """
    options: dict[str, Any] = {"immediate": 1}
    if failover:
        options.update(heartbeat_ivl=max(1, int(settings.ping_interval * 1000)),
                       heartbeat_timeout=max(1, int(settings.master_alive_timeout * 1000)))
    return options


def job_socket_options(settings: AgentSettings, failover: bool = False) -> dict[str, Any]:
    """Return the ZeroMQ options of an agent's socket to the job port (see the module docstring)."""
    return {**_link_options(settings, failover), "sndhwm": 10000,
            "maxmsgsize": settings.max_message_size}


def auth_socket_options(settings: AgentSettings, failover: bool = False) -> dict[str, Any]:
    """Return the ZeroMQ options of an agent's socket to the auth port."""
    return {**_link_options(settings, failover), "maxmsgsize": protocol.AUTH_MAX_MESSAGE_SIZE}


class AuthAttempt:
    """One request on the auth port, without the I/O: when to send it, how long to wait.

    The request goes out once the socket has a live connection; it is sent
    again only if the connection was down when checked, if the answer could
    not be read, or after waits that double from ``master_alive_timeout`` (a
    request lost to a master that restarted meanwhile).  While this is the
    agent's only master, the attempt is given up only when no connection
    has been made for :data:`PATIENCE` times ``master_alive_timeout``: a new
    socket sooner would only add a handshake to the queue of a master busy
    with a fleet reconnecting at once, while ZeroMQ reconnects this one by
    itself (but never one it closed for a protocol error: an answer over
    the size limit, a handshake refused).  With another master to try
    (``failover``) it is given up when this one has been unreachable for
    ``master_alive_interval`` (:attr:`~hearth.agent.settings.AgentSettings.failover_after`),
    or silent for :data:`PATIENCE` times ``master_alive_timeout``.
    """

    def __init__(self, frame: bytes, settings: AgentSettings, failover: bool = False,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._frame = frame
        self._timeout = settings.master_alive_timeout
        self._failover_after = settings.failover_after
        self._failover = failover
        self._clock = clock
        self._started = self._linked = clock()
        self._sent_at: float | None = None
        self._resend_after = self._timeout

    @property
    def sent(self) -> bool:
        """Return whether the request is out (so the caller waits for the answer only)."""
        return self._sent_at is not None

    def unreadable(self) -> None:
        """Note an answer the gate dropped: the request is said again at the next step."""
        self._sent_at = None

    def step(self, writable: bool, transmit: Callable[[bytes], bool]) -> float | None:
        """Send the request when due; return seconds until the next step, None to give up."""
        now = self._clock()
        if writable:
            self._linked = now
        elif self._sent_at is not None:
            self._sent_at = None  # the connection dropped after sending: say it again
        unlinked_limit = self._failover_after if self._failover else self._timeout * PATIENCE
        if now - self._linked > unlinked_limit or (
                self._failover and now - self._started > self._timeout * PATIENCE):
            return None
        if self._sent_at is not None and now - self._sent_at > self._resend_after:
            self._sent_at = None
            self._resend_after = min(self._resend_after * 2, self._timeout * PATIENCE)
        if self._sent_at is None and writable and transmit(self._frame):
            self._sent_at = now
        if self._sent_at is None:  # waits for the socket to be writable, too
            return max(0.0, min(self._timeout, self._linked + unlinked_limit - now))
        return max(0.0, min(self._sent_at + self._resend_after, now + self._timeout) - now)


def agent_gate(log: logging.Logger = LOG) -> Gate:
    """Return the gate of what an agent accepts from its master (both ports)."""
    return Gate((protocol.MASTER, protocol.AUTH_REPLY), log)


class AgentSession:
    """One connection's conversation with the master's job port (see the module docstring)."""

    def __init__(self, settings: AgentSettings, gate: Gate, returns: ReturnKeeper,
                 transmit: Callable[[bytes], bool], *,
                 grains: Callable[[], dict[str, Any]], running: Callable[[], list[str]],
                 on_job: Callable[[dict[str, Any]], None],
                 on_reply: Callable[[dict[str, Any]], None] = lambda reply: None,
                 on_connected: Callable[[], None] = lambda: None, failover: bool = False,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self._failover = failover
        self.gate = gate
        self.returns = returns
        self._transmit = transmit
        self._grains = grains
        self._running = running
        self._on_connected = on_connected
        self._clock = clock
        #: who the gate names in its log lines (the master served now)
        self.peer = f"the master at {settings.masters[0]}"
        self._master_limit = settings.max_message_size
        self._handlers = {"job": on_job, "ack": self._ack, "welcome": self._master_boot,
                          "pong": self._master_boot, "rep": on_reply,
                          "reauth": self._reauth}
        self.boot: str | None = None
        self.interval = settings.ping_interval
        self._running_since: dict[str, float] = {}
        self._reported: frozenset[str] = frozenset()
        self.answered = False
        self.greeting = False
        self.refused = False
        self.last_heard = self._next_ping = self._next_retry = 0.0

    @property
    def handled(self) -> list[str]:
        """Return the message types this session answers, sorted (one per schema)."""
        return sorted(self._handlers)

    def open(self) -> None:
        """Start a new connection: the master does not know this agent yet; say hello."""
        now = self._clock()
        self.boot = None
        self.refused = False
        self.interval = self.settings.ping_interval
        self.last_heard = self._next_ping = now
        self._next_retry = now + self.settings.return_retry_interval
        self.hello()

    def hello(self) -> None:
        """Say hello with the grains (again once the socket is writable, if it is not yet)."""
        self.greeting = not self.send({"cmd": "hello", "grains": self._grains()})

    def tick(self, writable: bool) -> float | None:
        """Send what is due; return seconds until something is due again, None when gone.

        ``writable`` says whether the socket has a live connection now.  The
        master is gone when it asked this agent to authenticate again
        (``reauth``: its key is no longer accepted), when it has said nothing
        for :data:`PATIENCE` times
        ``master_alive_timeout``; with another master to go to
        (``failover``), already when it has said nothing for
        ``master_alive_interval`` (:attr:`~hearth.agent.settings.AgentSettings.failover_after`)
        and the connection is down.  Until then
        ZeroMQ reconnects the socket by itself (a master that restarted, with
        the reconnect interval of :mod:`hearth.agent.reconnect`), and a master
        that is only slow is waited for, not left for a new authentication
        that would load it more.  On None the caller drops the connection
        and starts again.
        """
        now = self._clock()
        silent = now - self.last_heard
        timeout = max(self.settings.master_alive_timeout, 2 * self.interval)
        if self.refused or silent > timeout * PATIENCE or (
                self._failover and silent > self.settings.failover_after and not writable):
            return None
        if writable and self.greeting:
            self.hello()
        running = self._running()
        due = self._report_due(running, now)
        if now >= min(self._next_ping, due):
            if not self.greeting:  # no connection yet: a ping would be dropped
                self.send(self._ping(running))
                self._reported = frozenset(running)
            self._next_ping = now + self.interval
            due = self._report_due(running, now)
        if now >= self._next_retry:
            self.resend(self.settings.return_retry_interval)
            self._next_retry = now + self.settings.return_retry_interval
        return max(0.0, min(self._next_ping, self._next_retry, due) - now)

    def _report_due(self, running: list[str], now: float) -> float:
        """Return when a job not yet reported will have run ``ping_interval`` (inf if none).

        The master gives up an agent silent past a job's timeout unless it
        reported the job as running: a long job is reported soon, even when
        the master asked for rare pings; a short one is done before that.
        """
        self._running_since = {jid: self._running_since.get(jid, now) for jid in running}
        waiting = [since for jid, since in self._running_since.items()
                   if jid not in self._reported]
        return min(waiting) + self.settings.ping_interval if waiting else float("inf")

    def receive(self, frame: bytes) -> None:
        """Answer one frame from the master (any frame, even a refused one, is a sign of life)."""
        self.last_heard = self._clock()
        self.answered = True
        admitted = self.gate.admit(protocol.MASTER.name, frame, self.peer)
        if admitted is None:
            return
        cmd, message = admitted
        try:
            self._handlers[cmd](message)
        except Exception:  # noqa: BLE001 - one message never ends the loop
            self.gate.failed(protocol.MASTER.name, cmd, self.peer)

    def deliver(self, ret: dict[str, Any]) -> None:
        """Send a job's return (already kept by the caller)."""
        self.returns.sent(ret["jid"])
        self.send(ret)

    def resend(self, older_than: float | None) -> None:
        """Send again the kept returns not sent in the last ``older_than`` seconds (all if None)."""
        for ret in self.returns.due(older_than):
            self.deliver(ret)

    def send(self, message: dict[str, Any]) -> bool:
        """Send ``message``, or what may replace it when the master would refuse it unread.

        Return whether it went out (False: no connection, or not sent at all).
        """
        frame = wire.encode(message)
        problem = self._misfit(message, frame)
        if problem:
            if message.get("cmd") != "ret":
                LOG.warning("agent %s did not send its %s: %s", self.settings.id,
                            message.get("cmd"), problem)
                return False
            LOG.warning("job %s: %s; an error return is sent instead", message.get("jid"),
                        problem)
            message = return_message(message.get("jid"), message.get("id"), message.get("fun"),
                                     [], f"The return was not sent: {problem}.", 1, False)
            self.returns.save(message)
            frame = wire.encode(message)
        return self._transmit(frame)

    def _misfit(self, message: dict[str, Any], frame: bytes) -> str:
        """Return why the master would refuse ``message`` unread ('' when it fits)."""
        if len(frame) + protocol.FRAME_OVERHEAD > self._master_limit:
            return (f"it is {len(frame)} bytes, more than the master's max_message_size "
                    f"({self._master_limit} bytes)")
        if wire.depth(message) > wire.MAX_DEPTH:
            return f"it nests deeper than {wire.MAX_DEPTH} levels"
        return ""

    def _ping(self, running: list[str]) -> dict[str, Any]:
        """Return a ping: the running jobs, and how many master messages were dropped."""
        counts = self.gate.stats()
        dropped = sum(n for table in ("dropped", "failed") for kinds in counts[table].values()
                      for n in kinds.values())
        return {"cmd": "ping", "running": running, **({"dropped": dropped}
                                                      if dropped else {})}

    # --- the master's messages ----------------------------------------------

    def _reauth(self, message: dict[str, Any]) -> None:
        LOG.warning("agent %s: the master no longer accepts this agent's key; authenticating "
                    "again", self.settings.id)
        self.refused = True

    def _ack(self, message: dict[str, Any]) -> None:
        self.returns.acknowledge(message["jid"])

    def _master_boot(self, message: dict[str, Any]) -> None:
        self._master_limit = message.get("max_message_size") or self.settings.max_message_size
        self.interval = max(self.settings.ping_interval, message.get("ping_interval") or 0)
        boot = message["boot"]
        if boot == self.boot:
            return
        if self.boot is not None or message.get("cmd") == "pong":
            self.hello()  # a master that restarted does not know this agent
        self.boot = boot
        self.resend(None)
        self._on_connected()

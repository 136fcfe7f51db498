"""The agent's link to its master: authenticate, receive jobs, return, reconnect.

1. **Authenticate** on the master's auth port (a CURVE socket whose server
   key is public by design): present the agent id (the key is proven by
   CURVE), learn the status (accepted, pending, rejected, denied) and the
   master's real public key, which must match ``master_pubkey``,
   ``master_finger`` or the copy cached on first contact
   (``<root_dir>/pki/master.pub``); a mismatch refuses the master for good.
   While pending, try again every ``acceptance_wait_time``.  With an
   ``enrollment_key_file`` (a cloud-init deploy), the first attempt is
   made with that single-use key, presenting the agent's own key to be
   accepted; the file is deleted after the master's answer, whatever it is.
2. **Serve** over a DEALER socket to the master's job port: say ``hello``
   with the grains, ping every ``ping_interval`` with the running jobs,
   run jobs, send returns (and resend the ones not acknowledged after
   ``return_retry_interval``), answer ``pong`` changes (a restarted master)
   with a new hello and every kept return.
3. When the master has been silent ``master_alive_timeout`` seconds, start
   again at 1 after a back-off that doubles up to ``reconnect_delay_max``.
   With several masters (``master_type = failover``,
   :mod:`hearth.agent.masters`), start again at 1 with the next master as
   soon as this one stays unreachable ``master_alive_interval`` seconds,
   after a random wait up to ``random_reauth_delay`` (so that a fleet
   reaches the next master spread out); a master that never answers is
   left for the next one the same way; a master whose key is not the
   pinned one is dropped from the list.  With ``master_failback``, while on
   another master, ask the first one every ``master_failback_interval``
   whether it accepts this agent again (:mod:`hearth.agent.failback`) and
   go back to it once it does and no job runs.

A master's host name is resolved before each authentication
(:mod:`hearth.agent.dns`): one that does not resolve is skipped for the
next master, or, with no other, tried again after ``retry_dns`` seconds,
``retry_dns_count`` times at most (then the agent stops, saying why).

Every message from the master passes a :class:`~hearth.transport.gate.Gate`
(size bounded by ``max_message_size``, depth bounded, checked against
:data:`hearth.protocol.MASTER`); a bad one is dropped, logged and counted,
and a handler's failure never ends the loop.  Messages the agent sends are
kept within the limits the master announces: a return too large or too
deep for it is replaced by an error return saying so.

One thread owns the sockets; job threads and modules reach it through an
outbox (:class:`AgentChannel`).
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any

import zmq

from hearth.agent import dns, session
from hearth.agent.failback import FailbackProbe
from hearth.agent.masters import MasterAddress, MasterRotation
from hearth.agent.reconnect import ReconnectPolicy
from hearth.agent.settings import AgentSettings
from hearth.common import exception
from hearth.transport import certificates, curve, keys, wire

LOG = logging.getLogger(__name__)


class AgentChannel:
    """What modules running in the agent may ask of the master (``__opts__['agent_channel']``)."""

    def __init__(self, outbox: wire.Outbox, timeout: float = 30.0) -> None:
        self._outbox = outbox
        self._timeout = timeout
        self._rids = itertools.count(1)
        self._waiting: dict[int, list[Any]] = {}
        self._lock = threading.Lock()

    def fire_event(self, tag: str, data: dict[str, Any]) -> None:
        """Send an event to the master's bus."""
        self._outbox.put(("send", {"cmd": "event", "tag": tag, "data": data}))

    def request(self, op: str, timeout: float | None = None, **payload: Any) -> Any:
        """Ask the master (``pillar``, ``modules_list``, ``module_get``); return its answer."""
        rid = next(self._rids)
        done = threading.Event()
        with self._lock:
            self._waiting[rid] = [done, None]
        self._outbox.put(("send", session.request_message(rid, op, **payload)))
        if not done.wait(self._timeout if timeout is None else timeout):
            with self._lock:
                self._waiting.pop(rid, None)
            raise exception.MasterRequestFailed(
                message=f"the master did not answer the {op} request in time")
        reply = self._waiting.pop(rid)[1]
        if reply.get("error"):
            error = reply["error"]
            raise exception.MasterRequestFailed(
                message=error.get("message") if isinstance(error, dict) else str(error))
        return reply.get("data")

    def answered(self, reply: dict[str, Any]) -> None:
        """Hand the master's ``rep`` to the waiting request (connection thread)."""
        with self._lock:
            waiting = self._waiting.get(reply.get("rid"))
            if waiting is None:
                return
            waiting[1] = reply
        waiting[0].set()


def verify_master_key(settings: AgentSettings, offered: bytes,
                      master: MasterAddress | None = None) -> None:
    """Check the master's key against the pinned one; cache it on first contact.

    Every master of a failover list must present the same key (the masters
    share one key pair): the key pinned at first contact with any of them
    is the one all must match.
    """
    cached_path = os.path.join(settings.pki_dir, "master.pub")
    master = master or settings.masters[0]
    address = f"{master.host}:{master.auth_port}"
    actual = keys.fingerprint(offered)
    if settings.master_pubkey:
        expected, source = keys.fingerprint(settings.master_pubkey.strip()), \
            "[agent] master_pubkey"
    elif settings.master_finger:
        expected, source = settings.master_finger.strip().lower(), "[agent] master_finger"
    elif os.path.exists(cached_path):
        with open(cached_path, "rb") as handle:
            expected = keys.fingerprint(handle.read().strip())
        source = f"the key cached at first contact in {cached_path}"
    else:
        expected, source = actual, ""
    if actual != expected:
        raise exception.MasterKeyMismatch(address=address, actual=actual, expected=expected,
                                          source=source)
    if not os.path.exists(cached_path):
        with open(cached_path, "wb") as handle:
            handle.write(offered + b"\n")


#: How :meth:`MasterConnection._serve` ended: the master went silent after answering,
#: never answered, or the agent goes back to its first master.
LOST, SILENT, FAILBACK = "lost", "silent", "failback"


class MasterConnection:
    """The agent's connection loop (see the module docstring)."""

    def __init__(self, settings: AgentSettings, agent_keys: keys.KeyPair,
                 outbox: wire.Outbox, channel: AgentChannel,
                 on_job: Callable[[dict[str, Any]], None],
                 grains: Callable[[], dict[str, Any]], running: Callable[[], list[str]],
                 returns: Any, on_connected: Callable[[], None] = lambda: None,
                 policy: ReconnectPolicy | None = None) -> None:
        self.settings = settings
        self.keys = agent_keys
        self.outbox = outbox
        self.channel = channel
        self.returns = returns
        self.policy = policy or ReconnectPolicy.from_settings(settings)
        self.masters = MasterRotation(settings.masters, settings.master_failback,
                                      settings.random_master, self.policy.rng)
        self._running = running
        self._context = zmq.Context()
        self._stopping = False
        self._held: list[tuple] = []
        self.gate = session.agent_gate(LOG)
        self.session = session.AgentSession(
            settings, self.gate, returns, self._transmit, grains=grains, running=running,
            on_job=on_job, on_reply=channel.answered, on_connected=on_connected,
            failover=self.masters.failover)

    def stop(self) -> None:
        """Ask the loop to end (safe from any thread or a signal handler)."""
        self.outbox.put(("stop",))

    def run(self) -> None:
        """Authenticate and serve until stopped; reconnect (or fail over) in between.

        Raise MasterKeyMismatch when no master presents the pinned key, and
        MasterUnresolvable when the masters' names stop resolving for good.
        """
        delay, failures, unresolved = self.settings.reconnect_delay, 0, 0
        self._sleep(self.policy.startup_delay())
        while not self._stopping:
            master = self.masters.current
            if not self._resolves(master, unresolved):
                unresolved += 1
                continue
            unresolved = 0
            try:
                master_public = self._authenticate(master)
            except exception.MasterKeyMismatch as error:
                if not self.masters.failover:
                    raise
                LOG.error("agent %s: %s It is left for the other masters.", self.settings.id,
                          error)
                self.masters.refuse(master, error)
                continue
            if self._stopping:
                break
            outcome = SILENT if master_public is None else self._serve(master, master_public)
            if self._stopping:
                break
            if outcome == FAILBACK:
                LOG.warning("agent %s goes back to its first master %s", self.settings.id,
                            self.masters.fail_back())
                delay, failures = self.settings.reconnect_delay, 0
                continue
            failures = 0 if outcome == LOST else failures + 1
            if outcome == LOST:
                delay = self.settings.reconnect_delay
            # the same master again: back off; another master: only the random spread, unless
            # every master failed in a row
            back_off = delay if not self.masters.failover or \
                failures >= len(self.masters.order) else 0.0
            wait = back_off + self.policy.reauth_delay()
            following = self.masters.advance() if self.masters.failover else master
            LOG.warning("master %s %s; %s %s in %.1f s", master,
                        "went silent" if outcome == LOST else "did not answer",
                        "trying" if following == master else "moving to the master",
                        following, wait)
            self._sleep(wait)
            if back_off:
                delay = min(delay * 2, self.settings.reconnect_delay_max)
        self._context.destroy(linger=0)
        counts = self.gate.stats()
        if counts["dropped"] or counts["failed"]:
            LOG.warning("agent %s dropped messages from its master: %s; its handlers failed "
                        "on: %s", self.settings.id, counts["dropped"] or "none",
                        counts["failed"] or "none")

    def _resolves(self, master: MasterAddress, failed: int) -> bool:
        """Return whether ``master``'s host name resolves (waiting as ``retry_dns`` says).

        ``failed`` counts the lookups that failed in a row before this one.
        With other masters an unresolvable one is skipped at once, until a
        whole round of them failed; then, as with a single master, the agent
        waits ``retry_dns`` seconds before the next try, and stops (raising
        MasterUnresolvable) when ``retry_dns`` is 0 or ``retry_dns_count``
        tries are spent.
        """
        error = dns.resolve_error(master.host, master.port, self._wait_lookup)
        if not error:
            return True  # resolved (or the agent stops: the loop ends)
        following = self.masters.advance()
        per_round = len(self.masters.order) if self.masters.failover else 1
        if (failed + 1) % per_round:
            LOG.error("master %s: its host name does not resolve (%s); trying %s", master,
                      error, following)
            return False
        retries, limit = (failed + 1) // per_round, self.settings.retry_dns_count
        if not self.settings.retry_dns or (limit is not None and retries > limit):
            raise exception.MasterUnresolvable(host=master.host, reason=error)
        LOG.error("master %s: its host name does not resolve (%s); retrying in %g s", master,
                  error, self.settings.retry_dns)
        self._sleep(self.settings.retry_dns)
        return False

    def _wait_lookup(self, lookup: dns.Lookup) -> bool:
        """Wait for a host name lookup; return False when the agent stops meanwhile."""
        while not lookup.done(0):
            self._sleep(0.05)
            if self._stopping:
                return False
        return True

    def _sleep(self, seconds: float) -> None:
        """Wait ``seconds`` unless a stop arrives; other outbox items are held."""
        deadline = time.monotonic() + seconds
        poller = zmq.Poller()
        poller.register(self.outbox.fileno, zmq.POLLIN)
        while not self._stopping and (remaining := deadline - time.monotonic()) > 0:
            if poller.poll(remaining * 1000):
                self._take_outbox()

    def _take_outbox(self) -> None:
        """Move the outbox's items to the held list; note a stop request."""
        for item in self.outbox.drain():
            if item[0] == "stop":
                self._stopping = True
            else:
                self._held.append(item)

    # --- 1. authentication -----------------------------------------------

    def _authenticate(self, master: MasterAddress) -> bytes | None:
        """Return ``master``'s public key once it accepts this agent.

        None when stopped, or, with other masters to try, when this one
        stays unreachable ``master_alive_interval`` seconds.
        """
        last_status = None
        endpoint = curve.tcp_endpoint(master.host, master.auth_port)
        while not self._stopping:
            enrollment = self._enrollment_key()
            request = session.auth_request(self.settings.id,
                                           self.keys.public if enrollment else None)
            socket = curve.client_socket(self._context, zmq.DEALER, endpoint,
                                         enrollment or self.keys, keys.AUTH_BOOTSTRAP.public,
                                         **session.auth_socket_options(
                                             self.settings, self.masters.failover),
                                         **self.policy.socket_options())
            try:
                reply = self._ask(socket, session.AuthAttempt(
                    wire.encode(request), self.settings, failover=self.masters.failover),
                    f"the master at {endpoint}")
            finally:
                socket.close()
            if reply is None:
                if self.masters.failover:
                    return None  # unreachable for master_alive_interval: the next master
                continue  # unreachable for a long while: a new socket, a new attempt
            status = reply["status"]
            if enrollment is not None:
                self._forget_enrollment(status)
            if status == "accepted":
                offered = reply["master_pub"].encode()
                verify_master_key(self.settings, offered, master)
                LOG.info("agent %s accepted by the master at %s", self.settings.id, master)
                return offered
            if status != last_status:
                LOG.warning("agent %s: the master says its key is %s; waiting to be accepted",
                            self.settings.id, status)
                last_status = status
            self._sleep(self.settings.acceptance_wait_time)
        return None

    def _enrollment_key(self) -> keys.KeyPair | None:
        """Return the enrollment key pair while its file exists (None without one)."""
        path = self.settings.enrollment_key_file
        if not path or not os.path.exists(path):
            return None
        try:
            pair = certificates.load_certificate(path)
        except exception.KeyFileError as error:
            LOG.error("agent %s: unusable enrollment key: %s", self.settings.id, error)
            return None
        return pair if pair.secret else None

    def _forget_enrollment(self, status: Any) -> None:
        """Delete the single-use enrollment key after the master answered it."""
        if status != "accepted":
            LOG.warning("agent %s: the master refused the enrollment key (%s); waiting for "
                        "its own key to be accepted", self.settings.id, status)
        try:
            os.unlink(str(self.settings.enrollment_key_file))
        except FileNotFoundError:
            pass

    def _ask(self, socket: zmq.Socket, attempt: session.AuthAttempt,
             peer: str) -> dict[str, Any] | None:
        """Return the master's answer to ``attempt``; None when given up or stopped."""
        def transmit(frame: bytes) -> bool:
            try:
                socket.send(frame, zmq.NOBLOCK)
            except zmq.Again:
                return False
            return True

        while not self._stopping:
            events = socket.getsockopt(zmq.EVENTS)
            if events & zmq.POLLIN:
                reply = session.read_auth_reply(self.gate, socket.recv(), peer)
                if reply is not None:
                    return reply
                attempt.unreadable()
                continue
            wait = attempt.step(bool(events & zmq.POLLOUT), transmit)
            if wait is None:
                return None
            self._poll(socket, wait, zmq.POLLIN if attempt.sent else zmq.POLLIN | zmq.POLLOUT)
        return None

    def _poll(self, socket: zmq.Socket, seconds: float, events: int = zmq.POLLIN) -> bool:
        """Wait for ``events`` on ``socket``; a stop request ends the wait."""
        poller = zmq.Poller()
        poller.register(socket, events)
        poller.register(self.outbox.fileno, zmq.POLLIN)
        deadline = time.monotonic() + seconds
        while (remaining := deadline - time.monotonic()) > 0:
            ready = dict(poller.poll(remaining * 1000))
            if socket in ready:
                return True
            if self.outbox.fileno in ready:
                self._take_outbox()
                if self._stopping:
                    return False
        return False

    # --- 2. serving --------------------------------------------------------

    def _serve(self, master: MasterAddress, master_public: bytes) -> str:
        """Serve jobs until the master goes silent; return LOST, SILENT or FAILBACK."""
        endpoint = curve.tcp_endpoint(master.host, master.port)
        self._socket = curve.client_socket(self._context, zmq.DEALER, endpoint, self.keys,
                                           master_public,
                                           **session.job_socket_options(
                                               self.settings, self.masters.failover),
                                           **self.policy.socket_options())
        poller = zmq.Poller()
        poller.register(self._socket, zmq.POLLIN)
        poller.register(self.outbox.fileno, zmq.POLLIN)
        self.session.peer = f"the master at {master}"
        self.session.open()
        failback = Failback(self) if self.masters.failback and \
            not self.masters.on_primary else None
        try:
            while not self._stopping:
                writable = bool(self._socket.getsockopt(zmq.EVENTS) & zmq.POLLOUT)
                wait = self.session.tick(writable)
                if wait is None:
                    return LOST if self.session.answered else SILENT
                if failback is not None:
                    if failback.step():
                        return FAILBACK
                    wait = min(wait, failback.wait)
                # a hello that found no connection yet is said once the socket is writable
                poller.register(self._socket, zmq.POLLIN | (
                    zmq.POLLOUT if self.session.greeting else 0))
                if failback is not None and failback.probe is not None:
                    poller.register(failback.probe.socket, failback.probe.events)
                ready = dict(poller.poll(wait * 1000))
                if ready.get(self._socket, 0) & zmq.POLLIN:
                    self._receive()
                if self.outbox.fileno in ready or self._held:
                    self._take_outbox()
                    self._send_held()
            return LOST if self.session.answered else SILENT
        finally:
            if failback is not None:
                failback.close()
            self._socket.close()

    def probe(self, master: MasterAddress) -> FailbackProbe:
        """Return a new probe asking ``master`` whether it accepts this agent."""
        return FailbackProbe(self._context, master, self.keys, self.settings, self.policy,
                             self.gate)

    def idle(self) -> bool:
        """Return whether the agent runs no job and keeps no return (it may change masters)."""
        return not self._running() and not self.returns.due(None)

    def _receive(self) -> None:
        while True:
            try:
                frame = self._socket.recv(zmq.NOBLOCK)
            except zmq.Again:
                return
            self.session.receive(frame)

    def _transmit(self, frame: bytes) -> bool:
        try:
            self._socket.send(frame, zmq.NOBLOCK)
        except zmq.Again:
            LOG.debug("the master is not reachable now; a message is dropped (pings are "
                      "sent again, returns resent)")
            return False
        return True

    def _send_held(self) -> None:
        held, self._held = self._held, []
        for item in held:
            if item[0] == "ret":
                self.session.deliver(item[1])
            else:
                self.session.send(item[1])


class Failback:
    """While on another master, probe the first one now and then (``master_failback``).

    :meth:`step` starts a :class:`~hearth.agent.failback.FailbackProbe`
    every ``master_failback_interval`` seconds while the agent is idle (a
    busy agent is checked again every ``ping_interval``), and says when the
    first master accepted this agent with the pinned key.
    """

    def __init__(self, connection: MasterConnection) -> None:
        self._connection = connection
        self._interval = connection.settings.failback_interval
        self._next = time.monotonic() + self._interval
        self.probe: FailbackProbe | None = None
        #: seconds until the next step is due
        self.wait = self._interval

    def step(self) -> bool:
        """Advance the probe; return True when the agent should go back to its first master."""
        connection, now = self._connection, time.monotonic()
        if not connection.masters.failback:
            self.wait = self._interval  # the first master was refused meanwhile
            return False
        if self.probe is None:
            if now < self._next:
                self.wait = self._next - now
                return False
            if not connection.idle():
                self.wait = min(self._interval, connection.settings.ping_interval)
                self._next = now + self.wait
                return False
            self.probe = connection.probe(connection.masters.primary)
        wait = self.probe.step()
        if wait is not None:
            self.wait = wait
            return False
        answer, primary = self.probe.answer, self.probe.master
        self.close()
        self._next, self.wait = now + self._interval, self._interval
        if not answer or answer.get("status") != "accepted":
            return False
        try:
            verify_master_key(connection.settings, answer["master_pub"].encode(), primary)
        except exception.MasterKeyMismatch as error:
            LOG.error("agent %s: %s It is left for the other masters.",
                      connection.settings.id, error)
            connection.masters.refuse(primary, error)
            return False
        return connection.idle()

    def close(self) -> None:
        """Close the probe's socket, if one is open."""
        if self.probe is not None:
            self.probe.close()
            self.probe = None

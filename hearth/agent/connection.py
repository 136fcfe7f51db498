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

from hearth.agent import session
from hearth.agent.reconnect import ReconnectPolicy
from hearth.agent.settings import AgentSettings
from hearth.common import exception
from hearth.transport import curve, keys, wire

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


def verify_master_key(settings: AgentSettings, offered: bytes) -> None:
    """Check the master's key against the pinned one; cache it on first contact."""
    cached_path = os.path.join(settings.pki_dir, "master.pub")
    address = f"{settings.master}:{settings.master_auth_port}"
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
        self._context = zmq.Context()
        self._stopping = False
        self._held: list[tuple] = []
        self.gate = session.agent_gate(LOG)
        self.session = session.AgentSession(
            settings, self.gate, returns, self._transmit, grains=grains, running=running,
            on_job=on_job, on_reply=channel.answered, on_connected=on_connected)

    def stop(self) -> None:
        """Ask the loop to end (safe from any thread or a signal handler)."""
        self.outbox.put(("stop",))

    def run(self) -> None:
        """Authenticate and serve until stopped; reconnect with back-off in between."""
        delay = self.settings.reconnect_delay
        self._sleep(self.policy.startup_delay())
        while not self._stopping:
            master_public = self._authenticate()
            if master_public is None:
                break
            if self._serve(master_public):
                delay = self.settings.reconnect_delay
            if self._stopping:
                break
            wait = delay + self.policy.reauth_delay()
            LOG.warning("master %s went silent; reconnecting in %.1f s",
                        self.settings.master, wait)
            self._sleep(wait)
            delay = min(delay * 2, self.settings.reconnect_delay_max)
        self._context.destroy(linger=0)
        counts = self.gate.stats()
        if counts["dropped"] or counts["failed"]:
            LOG.warning("agent %s dropped messages from its master: %s; its handlers failed "
                        "on: %s", self.settings.id, counts["dropped"] or "none",
                        counts["failed"] or "none")

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

    def _authenticate(self) -> bytes | None:
        """Return the master's public key once this agent is accepted (None when stopped)."""
        last_status = None
        endpoint = curve.tcp_endpoint(self.settings.master, self.settings.master_auth_port)
        while not self._stopping:
            enrollment = self._enrollment_key()
            request = session.auth_request(self.settings.id,
                                           self.keys.public if enrollment else None)
            socket = curve.client_socket(self._context, zmq.DEALER, endpoint,
                                         enrollment or self.keys, keys.AUTH_BOOTSTRAP.public,
                                         **session.auth_socket_options(self.settings),
                                         **self.policy.socket_options())
            try:
                reply = self._ask(socket, session.AuthAttempt(wire.encode(request),
                                                              self.settings),
                                  f"the master at {endpoint}")
            finally:
                socket.close()
            if reply is None:
                continue  # unreachable for master_alive_timeout: a new socket, a new attempt
            status = reply["status"]
            if enrollment is not None:
                self._forget_enrollment(status)
            if status == "accepted":
                offered = reply["master_pub"].encode()
                verify_master_key(self.settings, offered)
                LOG.info("agent %s accepted by the master at %s", self.settings.id,
                         self.settings.master)
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
            pair = keys.load_certificate(path)
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

    def _serve(self, master_public: bytes) -> bool:
        """Serve jobs until the master goes silent; return whether it ever answered."""
        endpoint = curve.tcp_endpoint(self.settings.master, self.settings.master_port)
        self._socket = curve.client_socket(self._context, zmq.DEALER, endpoint, self.keys,
                                           master_public,
                                           **session.job_socket_options(self.settings),
                                           **self.policy.socket_options())
        poller = zmq.Poller()
        poller.register(self._socket, zmq.POLLIN)
        poller.register(self.outbox.fileno, zmq.POLLIN)
        self.session.open()
        try:
            while not self._stopping:
                writable = bool(self._socket.getsockopt(zmq.EVENTS) & zmq.POLLOUT)
                wait = self.session.tick(writable)
                if wait is None:
                    return self.session.answered
                # a hello that found no connection yet is said once the socket is writable
                poller.register(self._socket, zmq.POLLIN | (
                    zmq.POLLOUT if self.session.greeting else 0))
                ready = dict(poller.poll(wait * 1000))
                if ready.get(self._socket, 0) & zmq.POLLIN:
                    self._receive()
                if self.outbox.fileno in ready or self._held:
                    self._take_outbox()
                    self._send_held()
            return self.session.answered
        finally:
            self._socket.close()

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

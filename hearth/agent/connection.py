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

from hearth import protocol
from hearth.agent.settings import AgentSettings
from hearth.common import exception
from hearth.transport import curve, keys, wire
from hearth.transport.gate import Gate

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
        self._outbox.put(("send", {"cmd": "req", "rid": rid, "op": op, **payload}))
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
                 returns: Any, on_connected: Callable[[], None] = lambda: None) -> None:
        self.settings = settings
        self.keys = agent_keys
        self.outbox = outbox
        self.channel = channel
        self._on_job = on_job
        self._grains = grains
        self._running = running
        self.returns = returns
        self._on_connected = on_connected
        self._context = zmq.Context()
        self._stopping = False
        self._boot: str | None = None
        self._held: list[tuple] = []
        self.gate = Gate((protocol.MASTER, protocol.AUTH_REPLY), LOG)
        self._master_limit = settings.max_message_size
        self._handlers = {"job": self._job, "ack": self._ack, "welcome": self._master_boot,
                          "pong": self._master_boot, "rep": lambda m: channel.answered(m)}

    def stop(self) -> None:
        """Ask the loop to end (safe from any thread or a signal handler)."""
        self.outbox.put(("stop",))

    def run(self) -> None:
        """Authenticate and serve until stopped; reconnect with back-off in between."""
        delay = self.settings.reconnect_delay
        while not self._stopping:
            master_public = self._authenticate()
            if master_public is None:
                break
            if self._serve(master_public):
                delay = self.settings.reconnect_delay
            if self._stopping:
                break
            LOG.warning("master %s went silent; reconnecting in %.1f s",
                        self.settings.master, delay)
            self._sleep(delay)
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
        last_status, delay = None, self.settings.reconnect_delay
        endpoint = curve.tcp_endpoint(self.settings.master, self.settings.master_auth_port)
        while not self._stopping:
            enrollment = self._enrollment_key()
            request = {"id": self.settings.id}
            if enrollment is not None:
                request["enroll"] = self.keys.public.decode()
            socket = curve.client_socket(self._context, zmq.DEALER, endpoint,
                                         enrollment or self.keys, keys.AUTH_BOOTSTRAP.public,
                                         maxmsgsize=protocol.AUTH_MAX_MESSAGE_SIZE)
            # the wait for an answer is the back-off: a master that comes back meanwhile
            # gets the request as soon as ZeroMQ reconnects, and answers at once
            wait = max(self.settings.master_alive_timeout, delay)
            try:
                socket.send(wire.encode(request))
                admitted = self.gate.admit(protocol.AUTH_REPLY.name, socket.recv(),
                                           f"the master at {endpoint}") \
                    if self._poll(socket, wait) else None
            finally:
                socket.close()
            reply = admitted[1] if admitted else None
            if reply is None:
                delay = min(delay * 2, self.settings.reconnect_delay_max)
                continue
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

    def _poll(self, socket: zmq.Socket, seconds: float) -> bool:
        """Wait for ``socket`` to be readable; a stop request ends the wait."""
        poller = zmq.Poller()
        poller.register(socket, zmq.POLLIN)
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
                                           master_public, sndhwm=10000,
                                           maxmsgsize=self.settings.max_message_size)
        self._boot = None
        poller = zmq.Poller()
        poller.register(self._socket, zmq.POLLIN)
        poller.register(self.outbox.fileno, zmq.POLLIN)
        heard = answered = False
        last_heard = next_ping = time.monotonic()
        next_retry = last_heard + self.settings.return_retry_interval
        self._send({"cmd": "hello", "grains": self._grains()})
        try:
            while not self._stopping:
                now = time.monotonic()
                if now - last_heard > self.settings.master_alive_timeout:
                    return answered
                if now >= next_ping:
                    self._send(self._ping())
                    next_ping = now + self.settings.ping_interval
                if now >= next_retry:
                    self._resend(self.settings.return_retry_interval)
                    next_retry = now + self.settings.return_retry_interval
                ready = dict(poller.poll(max(0.0, next_ping - now) * 1000))
                if self._socket in ready:
                    heard = self._receive()
                    if heard:
                        last_heard, answered = time.monotonic(), True
                if self.outbox.fileno in ready or self._held:
                    self._take_outbox()
                    self._send_held()
            return answered
        finally:
            self._socket.close()

    def _ping(self) -> dict[str, Any]:
        """Return a ping: the running jobs, and how many master messages were dropped."""
        counts = self.gate.stats()
        dropped = sum(n for table in ("dropped", "failed") for kinds in counts[table].values()
                      for n in kinds.values())
        return {"cmd": "ping", "running": self._running(), **({"dropped": dropped}
                                                               if dropped else {})}

    def _receive(self) -> bool:
        heard = False
        peer = f"the master at {self.settings.master}:{self.settings.master_port}"
        while True:
            try:
                frame = self._socket.recv(zmq.NOBLOCK)
            except zmq.Again:
                return heard
            heard = True
            admitted = self.gate.admit(protocol.MASTER.name, frame, peer)
            if admitted is None:
                continue
            cmd, message = admitted
            try:
                self._handlers[cmd](message)
            except Exception:  # noqa: BLE001 - one message never ends the loop
                self.gate.failed(protocol.MASTER.name, cmd, peer)

    def _send(self, message: dict[str, Any]) -> None:
        frame = wire.encode(message)
        problem = self._misfit(message, frame)
        if problem:
            if message.get("cmd") != "ret":
                LOG.warning("agent %s did not send its %s: %s", self.settings.id,
                            message.get("cmd"), problem)
                return
            LOG.warning("job %s: %s; an error return is sent instead", message.get("jid"),
                        problem)
            message = {**{key: message.get(key) for key in ("cmd", "jid", "id", "fun")},
                       "fun_args": [], "return": f"The return was not sent: {problem}.",
                       "retcode": 1, "success": False}
            self.returns.save(message)
            frame = wire.encode(message)
        try:
            self._socket.send(frame, zmq.NOBLOCK)
        except zmq.Again:
            LOG.debug("send queue full; %s dropped (returns are resent)", message.get("cmd"))

    def _misfit(self, message: dict[str, Any], frame: bytes) -> str:
        """Return why the master would refuse ``message`` unread ('' when it fits)."""
        if len(frame) + protocol.FRAME_OVERHEAD > self._master_limit:
            return (f"it is {len(frame)} bytes, more than the master's max_message_size "
                    f"({self._master_limit} bytes)")
        if wire.depth(message) > wire.MAX_DEPTH:
            return f"it nests deeper than {wire.MAX_DEPTH} levels"
        return ""

    def _send_held(self) -> None:
        held, self._held = self._held, []
        for item in held:
            if item[0] == "ret":
                self.returns.sent(item[1]["jid"])
            self._send(item[1])

    def _resend(self, older_than: float | None) -> None:
        for ret in self.returns.due(older_than):
            self.returns.sent(ret["jid"])
            self._send(ret)

    # --- master messages ---------------------------------------------------

    def _job(self, message: dict[str, Any]) -> None:
        self._on_job(message)

    def _ack(self, message: dict[str, Any]) -> None:
        self.returns.acknowledge(message["jid"])

    def _master_boot(self, message: dict[str, Any]) -> None:
        self._master_limit = message.get("max_message_size") or self.settings.max_message_size
        boot = message["boot"]
        if boot == self._boot:
            return
        if self._boot is not None or message.get("cmd") == "pong":
            self._send({"cmd": "hello", "grains": self._grains()})
        self._boot = boot
        self._resend(None)
        self._on_connected()

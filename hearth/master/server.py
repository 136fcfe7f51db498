"""hearth-master's I/O loop: its sockets, who may speak on them, and agent messages.

Two CURVE server sockets (ROUTER):

``port`` (ZAP domain ``hearth-master``)
    Admits only accepted agent keys and the master's client key.  Agents
    send ``hello`` (grains), ``ping`` (running jobs), ``ret``, ``event`` and
    ``req`` (pillar, module files; :mod:`hearth.master.agent_messages`); the
    master sends them ``job``, ``ack``, ``welcome``, ``pong`` and ``rep``.
    Clients send requests (:mod:`hearth.master.requests`).  A message is attributed by the key
    that sent it, never by what it claims, and a key deleted or rejected
    while connected is dropped at its next message, answered with
    ``reauth``: the agent authenticates again and learns its key's status.
``auth_port`` (ZAP domain ``hearth-auth``)
    Admits any CURVE key (the bootstrap server key is public) but carries
    only authentication: an agent presents its id, the master records the
    key (pending, accepted, rejected or denied) and answers with its
    status and the master's real public key.  An agent connected with its
    single-use enrollment key presents its own new key as ``enroll``
    (:meth:`~hearth.master.keys.KeyStore.redeem`).

Every message passes a :class:`~hearth.transport.gate.Gate` first: bounded
in size by ZeroMQ (``[master] max_message_size``; a few KiB on the auth
port) and in depth, then checked against its type's schema in
:mod:`hearth.protocol`.  A message that fails is dropped, logged with its
sender and counted (the ``stats`` request); a handler that fails is logged
and counted too, and the loop goes on.

One thread owns the sockets; other threads (the job-cache writer, request
workers, signal handlers) reach it through an :class:`~hearth.transport.wire.Outbox`.
"""

from __future__ import annotations

import errno
import logging
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import zmq

from hearth import bus, protocol
from hearth.common.exception import DaemonStartFailed, MessageRefused
from hearth.db import api_agents
from hearth.master import storage
from hearth.master.agent_messages import AgentMessages
from hearth.master.agents import AgentRegistry
from hearth.master.cache import JobCacheWriter
from hearth.master.jobs import JobState, JobTable
from hearth.master.peers import MasterPeers, peer_record
from hearth.master.pillar_digest import PillarDigest
from hearth.master.requests import ClientRequests
from hearth.master.settings import MasterSettings
from hearth.master.takeover import adopt
from hearth.pillar import compile_pillar
from hearth.pillar.settings import MasterOpts
from hearth.transport import certificates, curve, keys, wire
from hearth.transport.gate import Gate

LOG = logging.getLogger(__name__)

DOMAIN_MASTER = "hearth-master"
DOMAIN_AUTH = "hearth-auth"
TICK = 0.25
READ_BURST = 200
IO_THREADS = 2


class Master:
    """The master daemon: construct, :meth:`start`, then :meth:`serve` until :meth:`stop`."""

    def __init__(self, settings: MasterSettings, database: Any = None) -> None:
        self.settings = settings
        self.boot = uuid.uuid4().hex
        self.keys, self.recorded_grains = storage.key_stores(settings)  # start() may move them
        self.master_keys = certificates.load_or_create(settings.pki_dir, "master")
        self.client_keys = certificates.load_or_create(settings.pki_dir, "client")
        self.agents = AgentRegistry(settings.agent_timeout)
        self.jobs = JobTable()
        self.bus = bus.Bus()
        self.outbox = wire.Outbox()
        self.gate = Gate((protocol.AUTH, protocol.AGENT, protocol.CLIENT), LOG)
        self.workers = ThreadPoolExecutor(settings.worker_threads, thread_name_prefix="master")
        self._database = database
        self._stopping = False
        #: Why the master stopped by itself (a thread died), or "" when asked to.
        self.failure = ""
        self._last_tick = 0.0
        self._started = self._caught_up = time.monotonic()
        self._last_arrival = 0.0
        # two ZeroMQ threads: a fleet's CURVE handshakes and encryption use both cores
        self._context = zmq.Context(io_threads=IO_THREADS)
        #: when this master last took over a stopped master's jobs (their agents are on the way)
        self.adopted_at = 0.0
        self.peers: MasterPeers | None = None
        self.requests = ClientRequests(self)
        self._pillar_opts = MasterOpts()
        self.agent_messages = AgentMessages(self)

    # --- life cycle ------------------------------------------------------

    def start(self) -> None:
        """Bind the sockets, open the database and start the helper threads.

        Raises DaemonStartFailed with the reason (a port taken, a database
        that cannot be opened); whatever was opened is closed again.
        """
        try:
            database = self._open_database()
            self.zap = curve.ZapHandler(self._context, self._authorize, on_death=self._died)
            self.socket = self._bind(self.settings.port, "port", self.master_keys,
                                     DOMAIN_MASTER, router_mandatory=1, sndhwm=100000,
                                     maxmsgsize=self.settings.max_message_size)
            self.auth_socket = self._bind(self.settings.auth_port, "auth_port",
                                          keys.AUTH_BOOTSTRAP, DOMAIN_AUTH,
                                          maxmsgsize=protocol.AUTH_MAX_MESSAGE_SIZE)
            self.writer = JobCacheWriter(database, self.settings.keep_jobs_seconds,
                                         lambda stored: self.later(self._send_acks, stored),
                                         on_death=self._died)
            self.peers = MasterPeers(
                database, peer_record(self.boot, self.settings, self.master_keys.public),
                self.settings, self.keys, on_death=self._died,
                on_adopt=lambda *args: self.later(adopt, self, *args),
                on_keys_gone=lambda agent_ids: self.later(self.cut_off, agent_ids),
                on_fenced=lambda: self.later(self.check_jobs_owned),
                pillar_digest=PillarDigest(MasterOpts().current))
        except BaseException:
            self._close()
            raise
        LOG.info("master listening on %s ports %s (jobs) and %s (auth), key fingerprint %s",
                 self.settings.interface, self.settings.port, self.settings.auth_port,
                 keys.fingerprint(self.master_keys.public))

    def _bind(self, port: int, option: str, key_pair: keys.KeyPair, domain: str,
              **options: Any) -> zmq.Socket:
        """Return a server socket on ``port``; raise DaemonStartFailed naming the option."""
        endpoint = curve.tcp_endpoint(self.settings.interface, port)
        try:
            return curve.server_socket(self._context, zmq.ROUTER, endpoint, key_pair, domain,
                                       **options)
        except zmq.ZMQError as error:
            hint = " (another hearth-master?)" if error.errno == errno.EADDRINUSE else ""
            raise DaemonStartFailed(reason=f"cannot listen on {endpoint} ([master] {option}): "
                                           f"{zmq.strerror(error.errno)}{hint}") from None

    def _open_database(self) -> Any:
        """Open the database, choose where agents' keys live, recall the known agents.

        Before the loop and the ZAP handler run: nothing else touches the agents yet.
        """
        if self._database is None:
            self._database = storage.open_database(self.settings.peer_timeout)
        database = self._database
        self.keys, self.recorded_grains = storage.key_stores(self.settings, database)
        try:
            known = {record["id"]: record for record in api_agents.agents_list(database)}
        except Exception as error:  # noqa: BLE001 - the master runs without the history
            LOG.error("cannot read the known agents from the job cache: %s", error)
            known = {}
        for agent_id in self.keys.accepted_ids():
            self.agents.get(agent_id).recorded_grains = self.recorded_grains.get(agent_id)
            if agent_id in known:
                self.agents.remember(agent_id, known[agent_id]["grains"],
                                     known[agent_id]["last_seen"])
        return database

    def later(self, function: Any, *args: Any) -> None:
        """Have the I/O thread run ``function(*args)`` (safe from any thread)."""
        self.outbox.put(("call", function, *args))

    def _died(self, reason: str) -> None:
        """Stop the master because one of its threads died (called from that thread)."""
        self.outbox.put(("died", reason))

    def stats(self) -> dict[str, Any]:
        """Return what an operator checks: uptime, agents, jobs and the message counters."""
        return {"boot": self.boot, "uptime": round(time.monotonic() - self._started, 1),
                "agents": {"accepted": len(self.keys.accepted_ids()),
                           "connected": len(self.agents.connected_ids())},
                "agents_dropping": self.agents.dropping(),
                "jobs_active": len(self.jobs.active()),
                "max_message_size": self.settings.max_message_size,
                "messages": self.gate.stats(), "key_store": self.settings.key_store,
                "masters": self.peers.view if self.peers else []}

    def stop(self) -> None:
        """Ask the loop to drain and stop (safe from any thread or a signal handler)."""
        self.outbox.put(("stop",))

    def serve(self) -> None:
        """Run the I/O loop until :meth:`stop`; then drain the job cache and close."""
        poller = zmq.Poller()
        poller.register(self.socket, zmq.POLLIN)
        poller.register(self.auth_socket, zmq.POLLIN)
        poller.register(self.outbox.fileno, zmq.POLLIN)
        while not self._stopping:
            ready = dict(poller.poll(TICK * 1000))
            if self.socket not in ready or self._read(self.socket, self._on_frames):
                self._caught_up = time.monotonic()
            if self.auth_socket in ready:
                self._read(self.auth_socket, self._on_auth_frames)
            if self.outbox.fileno in ready:
                self._guarded("internal work", self._on_internal, self.outbox.drain())
            self._guarded("the periodic check", self._tick)
            self._guarded("pushing returns", self.requests.flush_returns)
            self._guarded("sending events", self.requests.flush_events)
        self._shutdown()

    @staticmethod
    def _guarded(what: str, step: Any, *args: Any) -> None:
        """Run one step of the loop; a failure is Hearth's bug, logged, never the loop's end."""
        try:
            step(*args)
        except Exception:  # noqa: BLE001 - the master keeps serving its agents
            LOG.exception("master: %s failed", what)

    def _shutdown(self) -> None:
        self.writer.close()
        self._on_internal(self.outbox.drain())
        if self.peers is not None:
            self.peers.close()  # after the last writes: the others take over at once
        self._close()
        if self.failure:
            LOG.error("master stopped: %s", self.failure)
        else:
            LOG.info("master stopped")

    def _close(self) -> None:
        """Close what :meth:`start` opened (any part of it)."""
        self.workers.shutdown(wait=False, cancel_futures=True)
        if hasattr(self, "writer") and self.peers is None:  # a start that failed
            self.writer.close()
        if hasattr(self, "zap"):
            self.zap.close()
        for socket in (getattr(self, "socket", None), getattr(self, "auth_socket", None)):
            if socket is not None:
                socket.close(linger=500)
        self._context.term()
        self.outbox.close()

    # --- reading ---------------------------------------------------------

    def _read(self, socket: zmq.Socket, on_frames: Any) -> bool:
        """Handle up to READ_BURST messages; return whether none is left waiting."""
        for _ in range(READ_BURST):
            try:
                frames = socket.recv_multipart(zmq.NOBLOCK, copy=False)
            except zmq.Again:
                return True
            on_frames(frames)
        return False

    def _authorize(self, domain: str, key: bytes) -> bool:
        """Answer the ZAP handler (its thread): who may connect in ``domain``."""
        if domain == DOMAIN_AUTH:
            return True
        return key == self.client_keys.public or self.keys.agent_of(key) is not None

    def _admit(self, channel: str, frames: list[zmq.Frame], peer: str
               ) -> tuple[str, dict[str, Any]]:
        """Return the ``(type, message)`` that ``frames`` carry; raise MessageRefused."""
        if len(frames) != 2:
            error = MessageRefused("frames", f"{len(frames) - 1} frames instead of one")
            self.gate.refuse(channel, peer, error)
            raise error
        return self.gate.check(channel, frames[1].bytes, peer)

    def _on_frames(self, frames: list[zmq.Frame]) -> None:
        """Dispatch one message of the job port by the key that sent it."""
        route, key = frames[0].bytes, curve.peer_key(frames[-1])
        if key == self.client_keys.public:
            self._on_client(route, frames)
            return
        agent_id = self.keys.agent_of(key)
        if agent_id is None:  # its key was deleted or rejected after it connected
            self.send(route, {"cmd": "reauth"})
            return
        if self.agents.seen(agent_id, route):
            self._last_arrival = time.monotonic()
            self.fire("hearth/presence/change", {"new": [agent_id], "lost": []})
            for job in self.jobs.release(agent_id):
                self.send_owned(job, [agent_id])
        peer = f"agent {agent_id}"
        try:
            cmd, message = self._admit(protocol.AGENT.name, frames, peer)
        except MessageRefused:
            return
        try:
            self.agent_messages.handle(cmd, agent_id, route, message)
        except Exception:  # noqa: BLE001 - one message never ends the loop
            self.gate.failed(protocol.AGENT.name, cmd, peer)

    def _on_client(self, route: bytes, frames: list[zmq.Frame]) -> None:
        """Answer a client's request; a refused one is answered with the reason."""
        try:
            op, request = self._admit(protocol.CLIENT.name, frames, "a client")
        except MessageRefused as error:
            rid = error.decoded.get("rid") if error.decoded else None
            self.send(route, {"rid": rid, "error": {"type": "BadRequest",
                                                    "message": str(error)}})
            return
        try:
            self.requests.handle(route, request)
        except Exception:  # noqa: BLE001 - one request never ends the loop
            self.gate.failed(protocol.CLIENT.name, op, "a client")
            self.send(route, {"rid": request["rid"], "error": {
                "type": "InternalError", "message": f"the master failed to answer {op}; "
                                                    "see its log"}})

    def _on_auth_frames(self, frames: list[zmq.Frame]) -> None:
        key = curve.peer_key(frames[-1])
        try:
            _, message = self._admit(protocol.AUTH.name, frames, f"the key {key.decode()}")
        except MessageRefused:
            return
        try:
            self.agent_messages.authenticate(frames[0].bytes, key, message)
        except Exception:  # noqa: BLE001 - one message never ends the loop
            self.gate.failed(protocol.AUTH.name, "auth", f"the key {key.decode()}")

    def _on_internal(self, items: list[tuple]) -> None:
        for item in items:
            if item[0] == "stop":
                self._stopping = True
            elif item[0] == "died":
                self._stopping, self.failure = True, item[1]
                LOG.error("hearth-master stops: %s", item[1])
            elif item[0] == "call":  # work of another thread for this one (peers, writer)
                item[1](*item[2:])

    # --- sending ---------------------------------------------------------

    def send(self, route: bytes, message: dict[str, Any] | bytes) -> bool:
        """Send ``message`` (or its encoded frame) over ``route``; False when that peer is gone."""
        frame = message if isinstance(message, bytes) else wire.encode(message)
        try:
            self.socket.send_multipart([route, frame], zmq.NOBLOCK)
        except zmq.ZMQError as error:
            LOG.debug("could not send a message: %s", error)
            return False
        return True

    def send_to_agent(self, agent_id: str, message: dict[str, Any] | bytes) -> bool:
        """Send ``message`` to a connected agent; return False when it is not reachable."""
        route = self.agents.route(agent_id)
        if route is None:
            return False
        if self.send(route, message):
            return True
        self._lost([agent_id])
        return False

    def fire(self, tag: str, data: dict[str, Any]) -> None:
        """Publish an event on the master bus."""
        self.bus.publish(tag, data)

    # --- agents ----------------------------------------------------------

    def run_in_worker(self, route: bytes, reply: dict[str, Any], work: Any) -> None:
        """Run ``work()`` on a worker thread; send ``reply`` with its result or error."""
        def job() -> None:
            try:
                answer = {**reply, "data": work()}
            except Exception as error:  # noqa: BLE001 - the requester gets the reason
                LOG.debug("request failed", exc_info=True)
                answer = {**reply, "error": {"type": type(error).__name__,
                                             "message": str(error)}}
            self.later(self.send, route, answer)

        self.workers.submit(job)

    def record_grains(self, agent_id: str, grains: dict[str, Any]) -> dict[str, Any]:
        """Record grains of ``agent_id`` master-side; return all it has recorded."""
        recorded = self.recorded_grains.update(agent_id, grains)
        self.agents.get(agent_id).recorded_grains = recorded
        LOG.info("agent %s: recorded grains %s", agent_id, ", ".join(sorted(grains)))
        return recorded

    def compile_pillar(self, agent_id: str, pillar_override: Any = None) -> dict[str, Any]:
        """Return the pillar of ``agent_id``, compiled by :mod:`hearth.pillar`.

        The compile sees the grains the master holds true (recorded ones and
        the id; the agent's own report only with ``trust_agent_grains``), so
        an agent cannot claim its way into another role's pillar.  A
        ``pillar_override`` (one call's ``pillar=``) is merged in last and the
        result is not kept as the agent's pillar.
        """
        state = self.agents.get(agent_id)
        state.recorded_grains = self.recorded_grains.get(agent_id)  # pre-seeded meanwhile?
        override = pillar_override if isinstance(pillar_override, dict) else None
        grains = state.trusted_grains(self.settings.trust_agent_grains)
        pillar = compile_pillar(agent_id, grains, {**self._pillar_opts.current(), "id": agent_id},
                                pillar_override=override)
        if override:
            return dict(pillar or {})
        state.pillar = dict(pillar or {})
        return state.pillar

    def _lost(self, agent_ids: list[str]) -> None:
        lost = [agent_id for agent_id in agent_ids if self.agents.disconnect(agent_id)]
        if lost:
            self.fire("hearth/presence/change", {"new": [], "lost": lost})

    def cut_off(self, agent_ids: list[str]) -> None:
        """Forget agents whose keys were deleted or rejected: they get nothing more."""
        self._lost(agent_ids)
        for agent_id in agent_ids:
            self.agents.forget(agent_id)

    # --- jobs ------------------------------------------------------------

    @property
    def database(self) -> Any:
        """Return the job cache's database (waits while it is being opened)."""
        return self.writer.database

    def dispatch(self, job: JobState) -> None:
        """Send ``job`` to the agents whose turn it is (batch slots free), if still ours."""
        self.send_owned(job, self.next_agents(job))

    def send_owned(self, job: JobState, agent_ids: list[str]) -> None:
        """Send ``job`` to ``agent_ids`` once the job cache says it is still this master's.

        The fence of a master judged dead while it was only paused (SIGSTOP,
        a VM frozen past ``peer_timeout``): another master took its jobs
        over meanwhile, and it must send them to no more agents
        (:meth:`lose`).
        """
        if not agent_ids:
            return

        def answer(owned: bool) -> None:  # on the writer's thread
            self.later(self._send_if_owned, job, agent_ids, owned)

        self.writer.owned(job.jid, self.boot, answer)

    def _send_if_owned(self, job: JobState, agent_ids: list[str], owned: bool) -> None:
        if not owned:
            self.lose(job)
        elif self.jobs.get(job.jid) is job:
            self.send_job(job, agent_ids)
            self.finish_if_done(job)

    def lose(self, job: JobState) -> None:
        """Forget ``job``: another master took it over (this one was taken for dead).

        It is sent to no more agents and never recorded as this master's;
        returns that still come here are stored as any job's (once each),
        and the clients waiting here are told to follow it in the job cache.
        """
        if self.jobs.get(job.jid) is not job:
            return
        self.jobs.forget(job.jid)
        LOG.warning("job %s (%s) is another master's now: this master was taken for dead "
                    "(silent longer than [master] peer_timeout: paused?) and another one took "
                    "the job over; it sends it to no more agents", job.jid, job.fun)
        self.requests.notify_lost(job)

    def check_jobs_owned(self) -> None:
        """Ask whether each active job is still this master's (after being taken for dead)."""
        for job in self.jobs.active():
            self.writer.owned(job.jid, self.boot,
                              lambda owned, job=job: self.later(self._lose_unless, job, owned))

    def _lose_unless(self, job: JobState, owned: bool) -> None:
        if not owned:
            self.lose(job)

    def next_agents(self, job: JobState) -> list[str]:
        """Take the agents whose turn it is; hold the absent ones that are on their way."""
        return self.jobs.next_agents(job, self.agents.is_connected, self._in_grace)

    def _in_grace(self, agent_id: str) -> bool:
        """Return whether jobs wait for ``agent_id`` to connect: it is on its way.

        After a start, an accepted agent the master has not heard from yet is
        most likely reconnecting (agents spread their reconnections over a
        few seconds, :mod:`hearth.agent.reconnect`), not gone: jobs wait for
        such agents while agents keep coming back, at most
        ``reconnect_grace`` seconds after the start; the wait ends once
        ``agent_timeout`` seconds pass with no agent coming back.  So is one
        whose key was just accepted (it joins at its next try, within its
        ``acceptance_wait_time``): ``key-accept`` then ``run`` reaches it.
        """
        now, grace = time.monotonic(), self.settings.agent_timeout
        since = max(self._started, self.adopted_at)  # the agents of a master taken over too
        quiet = now - max(since, self._last_arrival)
        restarting = now - since < self.settings.reconnect_grace and quiet < grace
        return restarting or self.keys.accepted_within(agent_id, grace)

    def send_job(self, job: JobState, agent_ids: list[str]) -> None:
        """Send ``job`` to ``agent_ids``; those unreachable count as not connected."""
        if not agent_ids:
            return
        frame = wire.encode({"cmd": "job", "jid": job.jid, "fun": job.fun, "arg": job.args,
                             "kwarg": job.kwargs, "tgt": job.target,
                             "tgt_type": job.target_type, "user": job.user})
        for agent_id in agent_ids:  # one message for all: encoded once
            if not self.send_to_agent(agent_id, frame):
                job.in_flight.pop(agent_id, None)
                job.not_connected.add(agent_id)

    def store_job(self, job: JobState, then: Any = None) -> None:
        """Record ``job`` (as this master's) in the job cache; ``then(owned)`` once written.

        ``owned`` is False when another master holds the job now.
        """
        self.writer.job({**job.record(), "master_id": self.boot}, then)

    def publish(self, job: JobState, agent_ids: list[str]) -> None:
        """Send a new job to ``agent_ids`` once its record is in the job cache.

        So another master sharing the database can always take the job over
        (and store its returns), should this one die in between.
        """
        def send(owned: bool) -> None:  # on the I/O thread
            if not owned:
                self.lose(job)
                return
            self.send_job(job, agent_ids)
            self.finish_if_done(job)

        self.store_job(job, lambda owned: self.later(send, owned))

    def finish_if_done(self, job: JobState) -> None:
        """Record the job finished once it is done; then tell its watchers.

        A job another master took over meanwhile is lost instead: its
        record stays the other master's, and its watchers follow it there.
        """
        if job.finished is None and job.done:
            self.jobs.finish(job)

            def recorded(owned: bool) -> None:  # on the I/O thread
                if owned:
                    self.requests.notify_done(job)
                else:
                    self.lose(job)

            self.store_job(job, lambda owned: self.later(recorded, owned))

    def _send_acks(self, stored: list[dict[str, Any]]) -> None:
        for ret in stored:
            self.send_to_agent(ret["id"], {"cmd": "ack", "jid": ret["jid"]})

    def _tick(self) -> None:
        now = time.monotonic()
        if now - self._last_tick < TICK:
            return
        self._last_tick = now
        interval = self.agent_messages.pace(self.agents.connected_count())
        self.agents.timeout = max(self.settings.agent_timeout, 3 * interval)
        # silence counts up to the last moment every waiting message was read: a master
        # behind on its messages (a fleet reconnecting) does not lose agents it has not read
        self._lost(self.agents.expire(self._caught_up))
        if self.jobs.active():
            self.jobs.give_up_held(self._in_grace)
        for job in self.jobs.time_out(self.agents.is_running):
            self.dispatch(job)
        for job in self.jobs.active():
            self.finish_if_done(job)
        self.jobs.forget_old()

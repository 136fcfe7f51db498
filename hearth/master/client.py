"""MasterClient: how stackctl, hearth-api and the engine's plug-ins talk to hearth-master.

A plain blocking object over one CURVE DEALER socket, authenticated with
the client key pair in the master's pki dir (like Salt's local client, it
needs the master's files).  It is not thread-safe: use one per thread, and
run it off the engine's green threads.

It is the protocol, not the authority: it publishes to the agents it is
given (``targeted``, resolved by :class:`~hearth.jobservice.service.JobService`,
which every caller goes through) and checks no rights; holding the client
key is holding every right.

``wait`` follows Salt's meaning of a timeout: it is how long to wait, not a
kill.  When it expires, agents the master still sees running the job get
another ``timeout``; the others are reported missing, ``No response`` or
``Not connected``.
"""

from __future__ import annotations

import collections
import itertools
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import zmq

from hearth.common import config, exception
from hearth.master import client_choice
from hearth.master.job_status import JobStatus, PublishResult
from hearth.master.settings import MasterSettings
from hearth.transport import certificates, keys, wire

#: Seconds without a push after which a client following a job asks whether its master
#: still answers (with several masters listed), and the longest it waits for that answer.
LIVENESS = 1.0
LIVENESS_TIMEOUT = 3.0
#: Seconds between two status requests while a job is followed on another master.
FOLLOW_POLL = 0.3


class MasterClient:
    """A client of hearth-master (see the module docstring)."""

    def __init__(self, conf: Any = None, *, address: str | None = None,
                 timeout: float | None = None) -> None:
        """Read the settings (``conf``: MasterSettings or oslo.config, default Hearth's).

        ``address`` (``$HEARTH_MASTER``) overrides ``[master] masters``: one
        ``HOST:PORT`` or several, comma-separated.  With several, the master
        is chosen at the first request (:mod:`hearth.master.client_choice`).
        """
        if isinstance(conf, MasterSettings):
            settings = conf
        else:

            if conf is None:
                config.register_opts()
                conf = config.CONF
            settings = MasterSettings.from_conf(conf)
        self.settings = settings
        self.timeout = settings.client_timeout if timeout is None else timeout
        self.addresses = settings.client_addresses(address)
        self.address = self.addresses[0]
        self._client_keys = certificates.load_pair(settings.pki_dir, "client")
        self._master_public = certificates.load_public(
            keys.key_paths(settings.pki_dir, "master")[0])
        self._context = zmq.Context.instance()
        self._socket: zmq.Socket | None = None
        if len(self.addresses) == 1:
            self._socket = client_choice.connect(self._context, self.address,
                                                 self._client_keys, self._master_public)
        self._rids = itertools.count(1)
        self._pushes: collections.deque[dict[str, Any]] = collections.deque()

    # --- plumbing --------------------------------------------------------

    def close(self) -> None:
        """Close the connection."""
        if self._socket is not None:
            self._socket.close(linger=100)

    def __enter__(self) -> MasterClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def socket(self) -> zmq.Socket:
        """Return the connection to the master, choosing one first when several are listed."""
        if self._socket is None:
            self.address, self._socket = client_choice.choose(
                self._context, self.addresses, self._client_keys, self._master_public,
                self.timeout)
        return self._socket

    def reconnect(self, exclude: str | None = None) -> str:
        """Choose a master again, among the listed ones but ``exclude``; return its address.

        What was pushed on the old connection is dropped.  Raise
        MasterUnreachable when none of them answers.
        """
        if self._socket is not None:
            self._socket.close(linger=0)
            self._socket = None
        self._pushes.clear()
        others = [address for address in self.addresses if address != exclude]
        self.address, self._socket = client_choice.choose(
            self._context, others or self.addresses, self._client_keys, self._master_public,
            self.timeout)
        return self.address

    def _send(self, op: str, **payload: Any) -> int:
        rid = next(self._rids)
        self.socket.send(wire.encode({"rid": rid, "op": op, **payload}))
        return rid

    def _receive(self, timeout: float) -> dict[str, Any] | None:
        socket = self.socket
        if not socket.poll(max(0, int(timeout * 1000))):
            return None
        return wire.decode(socket.recv(), max_depth=None)  # it relays agents' returns

    def _request(self, op: str, **payload: Any) -> Any:
        """Send one request and return its answer's data (pushes meanwhile are kept)."""
        rid = self._send(op, **payload)
        # the wait is the client's own: a "timeout" in the payload is the job's (publish)
        deadline = time.monotonic() + self.timeout
        while (remaining := deadline - time.monotonic()) > 0:
            message = self._receive(remaining)
            if message is None:
                break
            if "push" in message:
                self._pushes.append(message)
            elif message.get("rid") == rid:
                return self._answer(message)
        raise exception.MasterUnreachable(
            address=self.address, timeout=self.timeout,
            hint="is hearth-master running, with the same [master] port and pki_dir?")

    @staticmethod
    def _answer(message: dict[str, Any]) -> Any:
        error = message.get("error")
        if not error:
            return message.get("data")
        if error.get("type") == "NoAgentsMatched":
            failure = exception.NoAgentsMatched(target="", target_type="")
            failure.message = error.get("message", "")
            raise failure
        if error.get("type") == "JobNotFound":
            failure = exception.JobNotFound("")
            failure.message = error.get("message", "")
            raise failure
        if error.get("type") == "AgentKeyNotFound":
            failure = exception.AgentKeyNotFound("")
            failure.message = error.get("message", "")
            raise failure
        raise exception.MasterRequestFailed(message=error.get("message", str(error)))

    def _next_push(self, timeout: float) -> dict[str, Any] | None:
        if self._pushes:
            return self._pushes.popleft()
        message = self._receive(timeout)
        return message if message is not None and "push" in message else None

    # --- jobs ------------------------------------------------------------

    def publish(self, target: Any, fun: str, args: Sequence[Any] = (),
                kwargs: Mapping[str, Any] | None = None, *, targeted: Sequence[str],
                target_type: str = "glob", timeout: float | None = None,
                batch: str | int | None = None, user: str | None = None,
                watch: bool = False) -> PublishResult:
        """Publish a job to the agents ``targeted`` (resolved from ``target`` by the caller).

        ``target`` and ``target_type`` are recorded with the job; the master
        sends it to the accepted agents among ``targeted`` and raises
        :class:`~hearth.common.exception.NoAgentsMatched` when there are
        none.  ``watch`` makes the master push this job's returns to this
        client (see :meth:`follow`).  A master that does not answer the
        publish itself raises MasterLostDuringPublish: the job may have been
        published, and is never published again here.
        """
        connected = self._socket is not None
        try:
            data = self._request("publish", target=target, target_type=target_type, fun=fun,
                                 args=list(args), kwargs=dict(kwargs or {}),
                                 targeted=list(targeted), timeout=timeout, batch=batch,
                                 user=user, watch=watch)
        except exception.MasterUnreachable:
            if not connected and self._socket is None:
                raise  # no master answered: nothing was sent
            # sent, never answered: never published again (it could run twice)
            raise exception.MasterLostDuringPublish(address=self.address, function=fun,
                                                    timeout=self.timeout) from None
        return PublishResult(data["jid"], list(data["targeted"]))

    def job_status(self, jid: str) -> JobStatus:
        """Return a snapshot of job ``jid`` (never waits for returns)."""
        return JobStatus.from_snapshot(self._request("status", jid=jid))

    def wait(self, jid: str, timeout: float | None = None) -> JobStatus:
        """Wait for job ``jid`` up to ``timeout`` seconds (Salt's meaning); return its status."""
        snapshot = self._request("watch", jid=jid)
        return self.follow(JobStatus.from_snapshot(snapshot), timeout)

    def follow(self, status: JobStatus, timeout: float | None) -> JobStatus:
        """Collect the pushed returns of a watched job into ``status`` until it is done.

        ``timeout`` is Salt's: when it passes, agents still running the job
        are waited for again; the others are reported missing.  With several
        masters listed, a master silent for :data:`LIVENESS` seconds is asked
        whether it still answers; one that does not is left for the others
        (:meth:`_follow_elsewhere`).
        """
        wait_for = self.settings.timeout if timeout is None else timeout
        deadline = time.monotonic() + wait_for
        quiet_since = time.monotonic()
        while not status.done:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                final = self._at_deadline(status, wait_for)
                if final is not None:
                    return final
                deadline = time.monotonic() + wait_for  # still running somewhere: wait again
                continue
            push = self._next_push(min(remaining, LIVENESS))
            if push is None:
                if len(self.addresses) > 1 and time.monotonic() - quiet_since >= LIVENESS:
                    if not self._answers():
                        return self._follow_elsewhere(status, wait_for)
                    quiet_since = time.monotonic()
                continue
            quiet_since = time.monotonic()
            if push.get("jid") != status.jid:
                continue
            if push["push"] == "rets":
                status.returns.update(push["rets"])
            elif push["push"] == "lost":  # another master took the job over
                return self._follow_elsewhere(status, wait_for, leave=False)
            elif push["push"] == "done":
                status.done, status.missing = True, dict(push.get("missing") or {})
        return self._unwatched(status)

    def _unwatched(self, status: JobStatus) -> JobStatus:
        """Stop watching ``status``'s job; return it, missing only who did not return."""
        self._send("unwatch", jid=status.jid)
        status.missing = {a: r for a, r in status.missing.items() if a not in status.returns}
        return status

    def _at_deadline(self, status: JobStatus, wait_for: float) -> JobStatus | None:
        """Return the job's status when the client's wait is over; None to wait again.

        Salt's meaning: agents the master still sees running the job are
        waited for again, the others are reported missing.  A job this
        master no longer holds (it died, or another master took the job
        over) is followed where it went.
        """
        try:
            fresh = self._request("status", jid=status.jid)
        except exception.MasterUnreachable:
            return self._follow_elsewhere(status, wait_for)
        held = fresh.get("held", True)
        if fresh["done"] or held and not fresh.get("running"):
            return self._unwatched(JobStatus.from_snapshot(fresh))
        if not held:  # another master took it over meanwhile
            return self._follow_elsewhere(status, wait_for, leave=False)
        return None

    def _answers(self) -> bool:
        """Return whether the master answers a ping within LIVENESS_TIMEOUT seconds."""
        timeout, self.timeout = self.timeout, min(self.timeout, LIVENESS_TIMEOUT)
        try:
            self._request("ping")
        except exception.MasterUnreachable:
            return False
        finally:
            self.timeout = timeout
        return True

    def _follow_elsewhere(self, status: JobStatus, wait_for: float,
                          leave: bool = True) -> JobStatus:
        """Follow ``status``'s job on the other masters after its own stopped answering.

        The masters share the job cache: the other one answers from it
        (the returns stored so far) until it takes the job over after
        ``[master] peer_timeout``, then from its memory until the job is
        done.  Nothing is published again.  Raise MasterLostDuringJob when
        no other master is listed, or none holds the job and its returns
        stop coming for longer than the takeover takes.  ``leave`` False:
        the master answers but another one took the job over; it is
        followed in the job cache from here.
        """
        lost = self.address if leave else ""
        if leave and len(self.addresses) < 2:
            raise exception.MasterLostDuringJob(address=lost, jid=status.jid)
        if not leave:
            self._send("unwatch", jid=status.jid)
        grace = wait_for + 3 * self.settings.peer_timeout + self.timeout
        progress, since = (False, len(status.returns)), time.monotonic()
        while True:
            try:
                if self.address == lost or self._socket is None:
                    self.reconnect(exclude=lost)
                fresh = self._request("status", jid=status.jid)
            except exception.JobNotFound:
                raise exception.MasterLostDuringJob(address=lost or self.address,
                                                    jid=status.jid) from None
            except exception.MasterUnreachable:
                lost, fresh = self.address, None  # that one went too: ask the others
            now = time.monotonic()
            if fresh is not None and fresh["done"]:
                break
            seen = (bool(fresh and fresh.get("held")),
                    len(fresh["returns"]) if fresh else progress[1])
            if seen[0] or seen != progress:
                progress, since = seen, now
            elif now - since > grace:
                raise exception.MasterLostDuringJob(address=lost or self.address,
                                                    jid=status.jid)
            time.sleep(FOLLOW_POLL)
        done = JobStatus.from_snapshot(fresh)
        done.returns = {**status.returns, **done.returns}
        done.missing = {a: r for a, r in done.missing.items() if a not in done.returns}
        return done

    def list_jobs(self, limit: int | None = None) -> list[dict[str, Any]]:
        """Return the job cache's jobs, newest first."""
        return self._request("list_jobs", limit=limit)

    def find_job(self, jid: str) -> list[str]:
        """Return the agents still running job ``jid`` (as their pings report)."""
        return list(self._request("status", jid=jid).get("running") or [])

    def term_job(self, jid: str, kill: bool = False) -> PublishResult:
        """Ask the agents running ``jid`` to stop it (SIGKILL-like with ``kill``)."""
        running = self.find_job(jid)
        if not running:
            raise exception.NoAgentsMatched(target=jid, target_type="running job")
        fun = "saltutil.kill_job" if kill else "saltutil.term_job"
        return self.publish(running, fun, [jid], target_type="list", targeted=running)

    def kill_job(self, jid: str) -> PublishResult:
        """Kill job ``jid`` on the agents still running it."""
        return self.term_job(jid, kill=True)

    # --- agents, keys, pillar, events -------------------------------------

    def ping(self) -> dict[str, Any]:
        """Return the master's boot id (raises MasterUnreachable when it does not answer)."""
        return self._request("ping")

    def stats(self) -> dict[str, Any]:
        """Return the master's counters: uptime, agents, jobs, messages received and dropped."""
        return self._request("stats")

    def list_agents(self, pillar: bool = False, grains: bool = True) -> list[dict[str, Any]]:
        """Return the accepted agents: id, grains, recorded_grains, last_seen, connected.

        With ``pillar`` each also has the pillar the master last compiled for it;
        ``grains`` False leaves both kinds of grains out.
        """
        return self._request("agents", pillar=pillar, grains=grains)

    def list_keys(self) -> dict[str, list[str]]:
        """Return the agent ids by key category (accepted, pending, rejected, denied)."""
        return self._request("keys")

    def key_fingers(self, pattern: str = "*") -> dict[str, Any]:
        """Return the fingerprints of the keys matching ``pattern``, by category.

        ``local`` is the master's own key (:meth:`master_finger`).
        """
        return self._request("key_finger", pattern=pattern)

    def accept_key(self, pattern: str, include_rejected: bool = False,
                   grains: Mapping[str, Any] | None = None) -> list[str]:
        """Accept the pending keys matching the glob ``pattern``; return their ids.

        ``grains`` are recorded master-side for each accepted agent.
        """
        return self._request("key_accept", pattern=pattern, include_rejected=include_rejected,
                             grains=dict(grains or {}))

    def record_grains(self, agent_id: str, grains: Mapping[str, Any]) -> dict[str, Any]:
        """Record grains of an accepted agent master-side; return all it has recorded."""
        return self._request("agent_grains", id=agent_id, grains=dict(grains))

    def reject_key(self, pattern: str) -> list[str]:
        """Reject the keys matching ``pattern``; connected agents are cut off."""
        return self._request("key_reject", pattern=pattern)

    def delete_key(self, pattern: str) -> list[str]:
        """Delete the keys matching ``pattern``; connected agents are cut off."""
        return self._request("key_delete", pattern=pattern)

    def preseed_key(self, agent_id: str) -> keys.KeyPair:
        """Have the master make and accept a key pair for ``agent_id``; return it (a secret)."""
        data = self._request("key_preseed", id=agent_id)
        return keys.KeyPair(data["public"].encode(), data["secret"].encode())

    def enroll_key(self, agent_id: str, ttl: float) -> keys.KeyPair:
        """Have the master make a single-use enrollment key pair, valid ``ttl`` seconds."""
        data = self._request("key_enroll", id=agent_id, ttl=ttl)
        return keys.KeyPair(data["public"].encode(), data["secret"].encode())

    def master_finger(self) -> dict[str, str]:
        """Return the master's public key and its fingerprint."""
        return self._request("finger")

    def agent_pillar(self, agent_id: str) -> dict[str, Any]:
        """Return the pillar the master compiles for ``agent_id``."""
        return self._request("agent_pillar", id=agent_id)

    def events(self, tag: str = "", timeout: float | None = None
               ) -> Iterator[tuple[str, dict[str, Any]]]:
        """Yield ``(tag, data)`` of master bus events matching ``tag`` (prefix or glob).

        Stops after ``timeout`` seconds without an event (never when None).  The
        subscription starts before this returns: no event fired afterwards is
        missed.
        """
        self._request("events", tag=tag)
        return self._follow_events(timeout)

    def _follow_events(self, timeout: float | None) -> Iterator[tuple[str, dict[str, Any]]]:
        try:
            while True:
                push = self._next_push(3600.0 if timeout is None else timeout)
                if push is None:
                    if timeout is not None:
                        return
                    continue
                if push.get("push") == "event":
                    yield push["tag"], push["data"]
        finally:
            if self._socket is not None and not self._socket.closed:
                self._send("events_stop")


def client_from_args(config_files: Sequence[str] | None = None,
                     timeout: float | None = None) -> MasterClient:
    """Load the configuration (``--config-file``) and return a client of its master."""
    return clients_from_args(config_files, timeout)()


def clients_from_args(config_files: Sequence[str] | None = None,
                      timeout: float | None = None) -> Callable[[], MasterClient]:
    """Load the configuration (``--config-file``); return a maker of clients of its master.

    ``$HEARTH_MASTER`` (``host:port``) overrides the master's address.
    """
    config.load(config_files=config_files)
    address = os.environ.get("HEARTH_MASTER") or None
    return lambda: MasterClient(config.CONF, address=address, timeout=timeout)

"""What clients (stackctl, hearth-api, the engine's plug-ins) may ask the master.

A request is ``{"rid": N, "op": NAME, ...}``, checked against its schema in
:data:`hearth.protocol.CLIENT` before it gets here; the answer is ``{"rid": N,
"data": ...}`` or ``{"rid": N, "error": {"type", "message"}}``.  Besides
answers the master pushes to a client: ``{"push": "rets", "jid": J, "rets":
{agent: return}}`` with the returns of a job it watches that arrived since
the last push (one message for many returns: a job to thousands of agents
would otherwise cost a message per agent on both sides),
``{"push": "done", ...}`` when that job is done (after its last returns),
``{"push": "lost", "jid": J}`` when another master took that job over
(this one was taken for dead), and ``{"push": "event", ...}`` for bus
events it subscribed to.
"""

from __future__ import annotations

import collections
import logging
from typing import TYPE_CHECKING, Any

from hearth import jobs as job_ids
from hearth.agent import batch
from hearth.common import exception
from hearth.db import job_cache
from hearth.master.jobs import JobState, snapshot_from_cache
from hearth.transport import keys, wire

if TYPE_CHECKING:
    from hearth.bus import Subscription
    from hearth.master.server import Master

LOG = logging.getLogger(__name__)

KEY_ACTIONS = {"key_accept": "accept", "key_reject": "reject", "key_delete": "delete"}


class ClientRequests:
    """Answer client requests on the master's I/O thread."""

    def __init__(self, master: Master) -> None:
        self.master = master
        self._subscriptions: dict[bytes, Subscription] = {}
        self._returns: dict[str, tuple[JobState, dict[str, dict[str, Any]]]] = {}
        self._ops = {"ping": self._ping, "stats": self._stats, "publish": self._publish,
                     "status": self._status,
                     "watch": self._watch, "unwatch": self._unwatch,
                     "list_jobs": self._list_jobs, "agents": self._agents,
                     "keys": self._keys, "key_finger": self._key_finger,
                     "key_accept": self._key_action,
                     "key_reject": self._key_action, "key_delete": self._key_action,
                     "agent_pillar": self._agent_pillar, "agent_grains": self._agent_grains,
                     "events": self._events,
                     "events_stop": self._events_stop, "finger": self._finger,
                     "key_preseed": self._key_made, "key_enroll": self._key_made}

    def handle(self, route: bytes, request: dict[str, Any]) -> None:
        """Answer one request (some answer later, from a worker thread)."""
        reply = {"rid": request.get("rid")}
        operation = self._ops.get(request.get("op"))
        try:
            if operation is None:
                raise exception.BadRequest(message=f"unknown request {request.get('op')!r}")
            data = operation(route, request)
        except exception.HearthException as error:
            self.master.send(route, {**reply, "error": {"type": error.error_type,
                                                        "message": str(error)}})
            return
        if data is not _LATER:
            self.master.send(route, {**reply, "data": data})

    # --- jobs ------------------------------------------------------------

    def _publish(self, route: bytes, request: dict[str, Any]) -> dict[str, Any]:
        """Publish to the agents the client resolved (the JobService targets, not the master).

        Of ``targeted``, only accepted agents get the job.
        """
        master = self.master
        target, target_type = request.get("target"), request.get("target_type") or "glob"
        accepted = set(master.keys.accepted_ids())
        targeted = sorted({agent_id for agent_id in request["targeted"]
                           if agent_id in accepted})
        if not targeted:
            raise exception.NoAgentsMatched(target=target, target_type=target_type)
        size = batch.batch_size(request["batch"], len(targeted)) if request.get("batch") else None
        job = JobState(jid=job_ids.gen_jid(), fun=str(request.get("fun")),
                       args=list(request.get("args") or []),
                       kwargs=dict(request.get("kwargs") or {}), target=target,
                       target_type=target_type, targeted=list(targeted),
                       user=request.get("user"), batch=size,
                       timeout=float(request.get("timeout") or master.settings.timeout),
                       waiting=collections.deque(targeted))
        master.jobs.add(job)
        if request.get("watch"):
            job.watchers.add(route)
        master.publish(job, master.next_agents(job))
        master.fire(f"hearth/job/{job.jid}/new",
                    {"jid": job.jid, "tgt": target, "tgt_type": target_type, "fun": job.fun,
                     "arg": job.args, "minions": job.targeted, "user": job.user})
        return {"jid": job.jid, "targeted": job.targeted}

    def _snapshot(self, job: JobState) -> dict[str, Any]:
        agents = self.master.agents
        return job.snapshot(agents.is_connected, agents.is_running)

    def _status(self, route: bytes, request: dict[str, Any]) -> Any:
        jid = str(request.get("jid"))
        job = self.master.jobs.get(jid)
        if job is not None:
            return self._snapshot(job)
        return self._from_cache(route, request, jid)

    def _from_cache(self, route: bytes, request: dict[str, Any], jid: str) -> Any:
        def read() -> dict[str, Any]:
            data = job_cache.job_get(self.master.database, jid)
            if data.get("targeted") is None:
                raise exception.JobNotFound(jid)
            return snapshot_from_cache(data)

        self.master.run_in_worker(route, {"rid": request.get("rid")}, read)
        return _LATER

    def _watch(self, route: bytes, request: dict[str, Any]) -> Any:
        jid = str(request.get("jid"))
        job = self.master.jobs.get(jid)
        if job is None:
            return self._from_cache(route, request, jid)
        job.watchers.add(route)
        return self._snapshot(job)

    def _unwatch(self, route: bytes, request: dict[str, Any]) -> None:
        job = self.master.jobs.get(str(request.get("jid")))
        if job is not None:
            job.watchers.discard(route)

    def notify_return(self, job: JobState, agent_id: str, ret: dict[str, Any]) -> None:
        """Queue an agent's return for the job's watchers (see :meth:`flush_returns`)."""
        if job.watchers:
            self._returns.setdefault(job.jid, (job, {}))[1][agent_id] = ret

    def flush_returns(self, jid: str | None = None) -> None:
        """Push the queued returns (of job ``jid``, or of every job) to their watchers."""
        if jid is None:
            queued, self._returns = self._returns, {}
        else:
            queued = {jid: self._returns.pop(jid)} if jid in self._returns else {}
        for job, rets in queued.values():
            self._push(job, {"push": "rets", "jid": job.jid, "rets": rets})

    def notify_done(self, job: JobState) -> None:
        """Tell the job's watchers it is done (with who is missing), after its last returns."""
        self.flush_returns(job.jid)
        self._push(job, {"push": "done", "jid": job.jid,
                         "missing": job.missing()})

    def notify_lost(self, job: JobState) -> None:
        """Tell the job's watchers another master holds it now (they follow it in the cache)."""
        self.flush_returns(job.jid)
        self._push(job, {"push": "lost", "jid": job.jid})
        job.watchers.clear()

    def _push(self, job: JobState, message: dict[str, Any]) -> None:
        frame = wire.encode(message)
        for route in list(job.watchers):
            if not self.master.send(route, frame):
                job.watchers.discard(route)

    def _list_jobs(self, route: bytes, request: dict[str, Any]) -> Any:
        limit = request.get("limit")
        self.master.run_in_worker(route, {"rid": request.get("rid")},
                                  lambda: job_cache.job_list(self.master.database, limit=limit))
        return _LATER

    # --- agents and keys -------------------------------------------------

    def _ping(self, route: bytes, request: dict[str, Any]) -> dict[str, Any]:
        """Answer the master's boot id and how many agents it serves (clients choose by it)."""
        return {"boot": self.master.boot, "connected": self.master.agents.connected_count()}

    def _stats(self, route: bytes, request: dict[str, Any]) -> dict[str, Any]:
        return self.master.stats()

    def _finger(self, route: bytes, request: dict[str, Any]) -> dict[str, Any]:

        public = self.master.master_keys.public
        return {"public": public.decode(), "fingerprint": keys.fingerprint(public)}

    def _agents(self, route: bytes, request: dict[str, Any]) -> list[dict[str, Any]]:
        return self.master.agents.listing(self.master.keys.accepted_ids(),
                                          pillar=bool(request.get("pillar")),
                                          grains=request.get("grains", True))

    def _keys(self, route: bytes, request: dict[str, Any]) -> dict[str, list[str]]:
        return self.master.keys.listing()

    def _key_finger(self, route: bytes, request: dict[str, Any]) -> dict[str, Any]:
        fingers = self.master.keys.fingerprints(str(request.get("pattern") or "*"))
        return {**fingers, "local": self._finger(route, request)}

    def _key_action(self, route: bytes, request: dict[str, Any]) -> list[str]:
        action = KEY_ACTIONS[request["op"]]
        pattern = str(request.get("pattern") or "")
        store = self.master.keys
        grains = request.get("grains") or {}
        if action == "accept":
            ids = store.accept(pattern, bool(request.get("include_rejected")))
            for agent_id in ids:
                if grains:
                    self.master.record_grains(agent_id, grains)
        else:
            ids = getattr(store, action)(pattern)
            self.master.cut_off(ids)
            if action == "delete":
                self.master.writer.forget_agents(ids)
                self.master.recorded_grains.forget(ids)
        for agent_id in ids:
            self.master.fire("hearth/key", {"id": agent_id, "act": action})
        LOG.info("keys %s: %s", action, ", ".join(ids))
        return ids

    def _key_made(self, route: bytes, request: dict[str, Any]) -> dict[str, Any]:
        """Make a key pair in advance for a cloud deploy (pre-seeded or enrollment).

        The answer carries the secret half: only the master's own client key
        may ask, over CURVE, and neither the log nor the bus sees it.
        """
        agent_id = str(request.get("id") or "")
        if request["op"] == "key_preseed":
            pair, act = self.master.keys.preseed(agent_id), "preseed"
        else:
            try:
                ttl = float(request.get("ttl") or 0)
            except (TypeError, ValueError):
                raise exception.BadRequest(message="ttl must be a number of seconds") from None
            pair, act = self.master.keys.enroll(agent_id, ttl), "enroll"
        self.master.fire("hearth/key", {"id": agent_id, "act": act})
        return {"id": agent_id, "public": pair.public.decode(),
                "secret": (pair.secret or b"").decode()}

    def _agent_grains(self, route: bytes, request: dict[str, Any]) -> dict[str, Any]:
        """Record grains of an agent master-side; answer all it has recorded.

        The agent need not be accepted yet: a cloud deploy records them before
        its agent first runs (they go when its key is deleted).
        """
        return self.master.record_grains(request["id"], request["grains"])

    def _agent_pillar(self, route: bytes, request: dict[str, Any]) -> Any:
        agent_id = str(request.get("id"))
        if agent_id not in self.master.keys.accepted_ids():
            raise exception.AgentKeyNotFound(agent_id, " among the accepted agents")
        self.master.run_in_worker(route, {"rid": request.get("rid")},
                                  lambda: self.master.compile_pillar(agent_id))
        return _LATER

    # --- events ----------------------------------------------------------

    def _events(self, route: bytes, request: dict[str, Any]) -> dict[str, Any]:
        self._events_stop(route, request)
        self._subscriptions[route] = self.master.bus.subscribe(str(request.get("tag") or ""))
        return {"subscribed": True}

    def _events_stop(self, route: bytes, request: dict[str, Any]) -> None:
        subscription = self._subscriptions.pop(route, None)
        if subscription is not None:
            subscription.close()

    def flush_events(self) -> None:
        """Send the buffered bus events to their subscribed clients."""
        for route, subscription in list(self._subscriptions.items()):
            for event in subscription.drain():
                if not self.master.send(route, {"push": "event", "tag": event.tag,
                                                "data": event.data}):
                    self._events_stop(route, {})
                    break


_LATER = object()

"""What agents tell the master, and how it answers: hello, ping, ret, event, req, auth.

Each message reaches a handler only after the master's gate admitted it
against its schema in :data:`hearth.protocol.AGENT` (the job port) or
:data:`hearth.protocol.AUTH` (the auth port), so the handlers rely on the
declared types.  A message is attributed to the agent whose key sent it,
never to what it claims.  Everything runs on the master's I/O thread
(:mod:`hearth.master.server`); slow work (pillar, module files) goes to a
worker thread.
"""

from __future__ import annotations

import datetime
import logging
from typing import TYPE_CHECKING, Any

import zmq

from hearth.master import sync
from hearth.transport import wire

if TYPE_CHECKING:
    from hearth.master.server import Master

LOG = logging.getLogger(__name__)

AUTH_ACTS = {"accepted": "accept", "pending": "pend", "rejected": "reject", "denied": "denied"}


class AgentMessages:
    """Handle the admitted messages of agents, on the master's I/O thread."""

    def __init__(self, master: Master) -> None:
        self.master = master
        #: one handler per message type of :data:`hearth.protocol.AGENT`
        self.handlers = {"hello": self._hello, "ping": self._ping, "ret": self._return,
                         "event": self._event, "req": self._request}
        self.ping_interval = 0.0
        self._welcome = self._pong = b""
        self.pace(0)

    def pace(self, connected: int) -> float:
        """Ask agents to ping at most ``ping_rate`` times a second in all; return the interval.

        The interval (seconds, 0 while the fleet is small: the agents' own
        ``ping_interval`` then) goes with every welcome and pong, which are
        the same for every agent: encoded once per change.
        """
        interval = round(connected / self.master.settings.ping_rate * 2) / 2  # 0.5 s steps
        if interval != self.ping_interval or not self._pong:
            self.ping_interval = interval
            self._welcome, self._pong = (wire.encode({
                "cmd": cmd, "boot": self.master.boot,
                "max_message_size": self.master.settings.max_message_size,
                "ping_interval": interval}) for cmd in ("welcome", "pong"))
        return interval

    def handle(self, cmd: str, agent_id: str, route: bytes, message: dict[str, Any]) -> None:
        """Act on one admitted ``cmd`` message of ``agent_id``."""
        self.handlers[cmd](agent_id, route, message)

    def _hello(self, agent_id: str, route: bytes, message: dict[str, Any]) -> None:
        master = self.master
        state = master.agents.get(agent_id)
        state.grains = message["grains"]
        # recorded before the agent first ran (a cloud profile's, with its pre-seeded key)
        state.recorded_grains = master.recorded_grains.get(agent_id)
        master.writer.agent({"id": agent_id, "grains": state.grains,
                             "last_seen": datetime.datetime.now(datetime.UTC)})
        master.send(route, self._welcome)
        master.fire(f"hearth/agent/{agent_id}/start", {"id": agent_id})

    def _ping(self, agent_id: str, route: bytes, message: dict[str, Any]) -> None:
        master = self.master
        state = master.agents.get(agent_id)
        state.running, state.dropped = frozenset(message["running"]), message.get("dropped", 0)
        master.send(route, self._pong)

    def _event(self, agent_id: str, route: bytes, message: dict[str, Any]) -> None:
        data = message.get("data")
        self.master.fire(message["tag"], {**(data if isinstance(data, dict) else {"data": data}),
                                          "id": agent_id})

    def _request(self, agent_id: str, route: bytes, message: dict[str, Any]) -> None:
        master, rid, op = self.master, message["rid"], message["op"]
        module_dirs = master.settings.module_dirs
        work = {"pillar": lambda: master.compile_pillar(agent_id,
                                                        message.get("pillar_override")),
                "modules_list": lambda: sync.list_modules(module_dirs),
                "module_get": lambda: sync.read_module(module_dirs, message["name"])}.get(op)
        if work is None:
            master.send(route, {"cmd": "rep", "rid": rid, "error": f"unknown request {op!r}"})
            return
        master.run_in_worker(route, {"cmd": "rep", "rid": rid}, work)

    def _return(self, agent_id: str, route: bytes, message: dict[str, Any]) -> None:
        master, jid = self.master, message["jid"]
        ret = {"return": message["return"], "retcode": message["retcode"],
               "success": message["success"], "out": message.get("out")}
        job = master.jobs.get(jid)
        if job is not None and not job.is_targeted(agent_id):
            LOG.warning("agent %s returned for job %s, which did not target it: ignored",
                        agent_id, jid)
            master.send(route, {"cmd": "ack", "jid": jid})
            return
        if job is None:  # maybe a job of a master that stopped, not taken over yet
            master.jobs.orphan(jid, agent_id, ret)
        if job is None or master.jobs.returned(job, agent_id, ret):
            master.fire(f"hearth/job/{jid}/ret/{agent_id}",
                        {"cmd": "_return", "id": agent_id, "jid": jid,
                         "fun": message.get("fun"), "fun_args": message.get("fun_args"), **ret})
            if job is not None:
                master.requests.notify_return(job, agent_id, ret)
                master.dispatch(job)
                master.finish_if_done(job)
        master.writer.ret({**ret, "jid": jid, "id": agent_id,
                           "received_at": datetime.datetime.now(datetime.UTC)})

    def authenticate(self, route: bytes, key: bytes, message: dict[str, Any]) -> None:
        """Answer an auth request: record the key's status and send it with the master's key.

        An agent connected with its single-use enrollment key presents its own
        new key as ``enroll`` (:meth:`~hearth.master.keys.KeyStore.redeem`).
        """
        master, agent_id = self.master, message["id"]
        enroll = message.get("enroll")
        if enroll is not None:
            decision = master.keys.redeem(agent_id, key, enroll.encode())
            key = enroll.encode() if decision.status == "accepted" else key
        else:
            decision = master.keys.authenticate(agent_id, key)
        master.fire("hearth/auth", {"id": agent_id, "act": AUTH_ACTS[decision.status],
                                    "pub": key.decode()})
        if decision.status == "denied":
            LOG.warning("agent %s denied: its key differs from the one on record", agent_id)
        try:
            master.auth_socket.send_multipart([route, wire.encode(
                {"status": decision.status, "master_pub": master.master_keys.public.decode()})],
                zmq.NOBLOCK)
        except zmq.ZMQError:
            pass

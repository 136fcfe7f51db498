"""The master's side of the job cache: published jobs, agents' returns, known agents.

A job published by hearth-master is one ``job`` row (its target, who was
targeted, who was not connected) and one ``job_return`` row per agent that
answered; :func:`hearth.db.job_cache.job_get` shows both.  Writes come in
batches from the master's cache writer thread.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import insert, select, update

from hearth.db import models
from hearth.db.session import Database

LOG = logging.getLogger(__name__)


def _naive(moment: datetime.datetime) -> datetime.datetime:
    if moment.tzinfo is None:
        return moment
    return moment.astimezone(datetime.UTC).replace(tzinfo=None)


def _target_text(target: Any) -> str:
    """Return a target as text (a list target as Salt writes it: ``a,b,c``)."""
    return ",".join(map(str, target)) if isinstance(target, list | tuple) else str(target)


def jobs_publish_store(db: Database, jobs: Sequence[Mapping[str, Any]]) -> set[str]:
    """Store published jobs; return the jids of those another master holds now (fenced).

    Each is a mapping of jid, fun, args, kwargs, target, target_type,
    targeted, not_connected, user, started_at and expires_at, and
    optionally master_id (the master running it), batch, timeout and
    finished_at (once it is done).  A record with a ``master_id`` updates
    the job's row only while the row is that master's: once another
    master took the job over (:func:`hearth.db.api_masters.jobs_claim`,
    a master judged dead that was only paused), its record is refused,
    so it can neither take the job back nor mark it finished.
    """
    lost: set[str] = set()
    with db.session_scope(write=True) as session:
        for job in jobs:
            values = _job_values(job)
            owner = job.get("master_id")
            if owner is None:
                session.merge(models.Job(**values))
                continue
            found = session.execute(update(models.Job).where(
                models.Job.jid == job["jid"], models.Job.master_id == owner)
                .values(**values)).rowcount
            if found:
                continue
            if session.get(models.Job, job["jid"]) is None:
                session.add(models.Job(**values))
            else:
                lost.add(job["jid"])
    return lost


def _job_values(job: Mapping[str, Any]) -> dict[str, Any]:
    """Return the ``job`` row's columns of a published job's record."""
    return {"jid": job["jid"], "function": job["fun"], "args": list(job["args"]),
            "kwargs": dict(job["kwargs"]), "target": _target_text(job["target"]),
            "target_type": job["target_type"], "targeted": list(job["targeted"]),
            "not_connected": list(job["not_connected"]), "user": job.get("user"),
            "started_at": _naive(job["started_at"]),
            "expires_at": _naive(job["expires_at"]) if job.get("expires_at") else None,
            "master_id": job.get("master_id"), "batch": job.get("batch"),
            "timeout": job.get("timeout"),
            "finished_at": _naive(job["finished_at"]) if job.get("finished_at") else None}


def jobs_owned(db: Database, jids: Iterable[str], master_id: str) -> set[str]:
    """Return which of ``jids`` are ``master_id``'s jobs (not taken over by another master)."""
    wanted = sorted(set(jids))
    with db.session_scope() as session:
        return set(session.scalars(select(models.Job.jid).where(
            models.Job.jid.in_(wanted), models.Job.master_id == master_id)))


def job_returns_store(db: Database, returns: Sequence[Mapping[str, Any]]) -> list[Mapping]:
    """Store agents' returns (jid, id, return, retcode, success, out, received_at).

    A return already stored is kept as it is (agents resend until
    acknowledged); a return for a jid the cache does not hold (expired, or
    never published by this master), or from an agent the job did not
    target, is skipped.  Return the stored ones.  One batch is one insert of
    many rows (a job to thousands of agents returns in a few batches).
    """
    jids = {ret["jid"] for ret in returns}
    with db.session_scope(write=True) as session:
        targeted = {jid: set(agents or ()) for jid, agents in session.execute(
            select(models.Job.jid, models.Job.targeted).where(models.Job.jid.in_(jids)))}
        known = set(targeted)
        present: set[tuple[str, str]] = set()  # of this batch's agents only
        agent_ids = sorted({ret["id"] for ret in returns})
        for start in range(0, len(agent_ids), _CHUNK):
            present.update(session.execute(
                select(models.JobReturn.jid, models.JobReturn.agent_id)
                .where(models.JobReturn.jid.in_(jids),
                       models.JobReturn.agent_id.in_(agent_ids[start:start + _CHUNK])))
                .tuples())
        stored, rows = [], []
        for ret in returns:
            key = (ret["jid"], ret["id"])
            if ret["jid"] not in known or key in present or ret["id"] not in targeted[ret["jid"]]:
                continue
            present.add(key)
            rows.append({"jid": ret["jid"], "agent_id": ret["id"], "return": ret.get("return"),
                         "retcode": int(ret.get("retcode") or 0),
                         "success": bool(ret.get("success", True)), "out": ret.get("out"),
                         "received_at": _naive(ret["received_at"])})
            stored.append(ret)
        if rows:  # a Core insert: no ORM object per row
            session.execute(insert(models.JobReturn.__table__), rows)
    unknown = jids - known
    if unknown:
        LOG.info("returns for jobs not in the job cache were dropped: %s", sorted(unknown))
    return stored


def job_returns(session: Any, jid: str) -> dict[str, dict[str, Any]]:
    """Return ``{agent_id: {return, retcode, success, out}}`` of one job (in ``session``)."""
    rows = session.scalars(select(models.JobReturn).where(models.JobReturn.jid == jid)
                           .order_by(models.JobReturn.agent_id))
    return {row.agent_id: {"return": row.return_, "retcode": row.retcode,
                           "success": row.success, "out": row.out} for row in rows}


def agents_store(db: Database, agents: Iterable[Mapping[str, Any]]) -> None:
    """Record agents (id, grains, last_seen); ``grains`` None keeps the stored grains.

    A batch is a few statements whatever its size (a fleet saying hello
    after a master restart is thousands of records).
    """
    latest: dict[str, dict[str, Any]] = {}
    for agent in agents:
        record = latest.setdefault(agent["id"], {"id": agent["id"], "grains": None})
        record["last_seen"] = _naive(agent["last_seen"])
        if agent.get("grains") is not None:
            record["grains"] = agent["grains"]
    if not latest:
        return
    with db.session_scope(write=True) as session:
        known: set[str] = set()
        ids = list(latest)
        for start in range(0, len(ids), _CHUNK):
            known.update(session.scalars(select(models.Agent.id).where(
                models.Agent.id.in_(ids[start:start + _CHUNK]))))
        new = [{"id": r["id"], "grains": r["grains"] or {}, "first_seen": r["last_seen"],
                "last_seen": r["last_seen"]} for r in latest.values() if r["id"] not in known]
        if new:
            session.execute(insert(models.Agent.__table__), new)
        for with_grains in (True, False):  # one executemany per set of columns
            changes = [{"id": r["id"], "last_seen": r["last_seen"],
                        **({"grains": r["grains"]} if with_grains else {})}
                       for r in latest.values()
                       if r["id"] in known and (r["grains"] is not None) == with_grains]
            if changes:
                session.execute(update(models.Agent), changes)


#: Ids per ``IN (...)`` query (well under every database's limit of bound parameters).
_CHUNK = 500


def agents_list(db: Database) -> list[dict[str, Any]]:
    """Return every recorded agent (id, grains, first_seen, last_seen), by id."""
    with db.session_scope() as session:
        return [{"id": row.id, "grains": row.grains, "first_seen": row.first_seen,
                 "last_seen": row.last_seen}
                for row in session.scalars(select(models.Agent).order_by(models.Agent.id))]


def agents_delete(db: Database, agent_ids: Iterable[str]) -> None:
    """Forget agents (their keys were deleted)."""
    ids = list(agent_ids)
    with db.session_scope(write=True) as session:
        for row in session.scalars(select(models.Agent).where(models.Agent.id.in_(ids))):
            session.delete(row)

"""Masters sharing one database: who they are, their heartbeats, the jobs one hands over.

Each hearth-master registers a row (:func:`master_register`) and counts
heartbeats in it (:func:`master_beat`).  A master that stops says so
(:func:`master_stop`); one that dies just stops beating.  Another master
then claims the jobs it left unfinished, each job by exactly one master
(:func:`jobs_claim`: a conditional update), reads them back with their
returns (:func:`jobs_load`) and forgets the dead master
(:func:`master_forget`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import delete, select, update

from hearth.db import models
from hearth.db.api_agents import job_returns
from hearth.db.session import Database
from hearth.db.timeutils import utcnow

#: The columns of a master's record, as :func:`masters_list` returns them.
MASTER_FIELDS = ("id", "host", "pid", "address", "fingerprint", "pillar_digest", "beats",
                 "started_at", "beat_at", "stopped")


def master_register(db: Database, record: Mapping[str, Any]) -> None:
    """Record a starting master (``id``, ``host``, ``pid``, ``address``, ``fingerprint``...)."""
    now = utcnow()
    with db.session_scope(write=True) as session:
        session.merge(models.Master(**{key: record[key] for key in record
                                       if key in MASTER_FIELDS},
                                    beats=0, started_at=now, beat_at=now, stopped=False))


def master_beat(db: Database, master_id: str, pillar_digest: str | None = None) -> bool:
    """Count one heartbeat of ``master_id``; return False when its row is gone.

    A row is gone when another master judged this one dead (it was stopped
    longer than ``peer_timeout``, a paused process) and took its jobs over.
    """
    values: dict[str, Any] = {"beats": models.Master.beats + 1, "beat_at": utcnow()}
    if pillar_digest is not None:
        values["pillar_digest"] = pillar_digest
    with db.session_scope(write=True) as session:
        found = session.execute(update(models.Master).where(models.Master.id == master_id)
                                .values(**values)).rowcount
    return bool(found)


def master_stop(db: Database, master_id: str) -> None:
    """Record that a master stopped (its unfinished jobs are for the others at once)."""
    with db.session_scope(write=True) as session:
        session.execute(update(models.Master).where(models.Master.id == master_id)
                        .values(stopped=True, beat_at=utcnow()))


def masters_list(db: Database) -> list[dict[str, Any]]:
    """Return every registered master, oldest first."""
    with db.session_scope() as session:
        rows = session.scalars(select(models.Master).order_by(models.Master.started_at,
                                                              models.Master.id))
        return [{field: getattr(row, field) for field in MASTER_FIELDS} for row in rows]


def master_forget(db: Database, master_id: str) -> None:
    """Remove a master's row (it stopped, and its jobs were taken over)."""
    with db.session_scope(write=True) as session:
        session.execute(delete(models.Master).where(models.Master.id == master_id))


def jobs_claim(db: Database, dead_id: str, master_id: str) -> list[str]:
    """Make ``master_id`` the master of ``dead_id``'s unfinished jobs; return their jids.

    A job is claimed by one master only, however many try at once: each
    update applies only while the job is still the dead master's.
    """
    with db.session_scope(write=True) as session:
        return sorted(session.scalars(
            update(models.Job)
            .where(models.Job.master_id == dead_id, models.Job.finished_at.is_(None))
            .values(master_id=master_id).returning(models.Job.jid)))


def jobs_load(db: Database, jids: Sequence[str]) -> list[dict[str, Any]]:
    """Return the records of jobs ``jids`` with the returns stored so far, by jid."""
    with db.session_scope() as session:
        rows = session.scalars(select(models.Job).where(models.Job.jid.in_(list(jids)))
                               .order_by(models.Job.jid))
        return [{"jid": row.jid, "fun": row.function, "args": list(row.args or []),
                 "kwargs": dict(row.kwargs or {}), "target": row.target,
                 "target_type": row.target_type or "glob",
                 "targeted": list(row.targeted or []),
                 "not_connected": list(row.not_connected or []), "user": row.user,
                 "batch": row.batch, "timeout": row.timeout, "started_at": row.started_at,
                 "returns": job_returns(session, row.jid)} for row in rows]

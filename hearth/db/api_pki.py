"""The masters' pki store in the database (``[master] key_store = database``).

What Salt keeps as files in the master's pki directory (one file per agent
id in ``accepted/``, ``pending/``, ...), as rows ``(category, name,
value)``, so that every master using the database shares the agents' keys
and what is recorded with them.  Each change also counts one more
revision (:func:`pki_revision`), so that a master notices another's
change with one small read.
"""

from __future__ import annotations

from sqlalchemy import delete, insert, select, update

from hearth.db import models
from hearth.db.session import Database
from hearth.db.timeutils import utcnow


def _bump(session) -> None:
    """Count one more revision (the row is made again if it was removed)."""
    found = session.execute(update(models.PkiRevision).where(models.PkiRevision.id == 1)
                            .values(revision=models.PkiRevision.revision + 1)).rowcount
    if not found:
        session.execute(insert(models.PkiRevision).values(id=1, revision=1))


def pki_read(db: Database, category: str, name: str) -> str | None:
    """Return the value of ``category``/``name``, or None."""
    with db.session_scope() as session:
        row = session.get(models.PkiEntry, (category, name))
        return None if row is None else row.value


def pki_write(db: Database, category: str, name: str, value: str) -> None:
    """Set the value of ``category``/``name`` (made or replaced)."""
    with db.session_scope(write=True) as session:
        row = session.get(models.PkiEntry, (category, name))
        if row is None:
            session.add(models.PkiEntry(category=category, name=name, value=value,
                                        updated_at=utcnow()))
        else:
            row.value, row.updated_at = value, utcnow()
        _bump(session)


def pki_remove(db: Database, category: str, name: str) -> bool:
    """Remove ``category``/``name``; return whether it was there."""
    with db.session_scope(write=True) as session:
        found = session.execute(delete(models.PkiEntry).where(
            models.PkiEntry.category == category, models.PkiEntry.name == name)).rowcount
        if found:
            _bump(session)
    return bool(found)


def pki_names(db: Database, category: str) -> list[str]:
    """Return the names recorded in ``category``, sorted."""
    with db.session_scope() as session:
        return list(session.scalars(select(models.PkiEntry.name)
                                    .where(models.PkiEntry.category == category)
                                    .order_by(models.PkiEntry.name)))


def pki_values(db: Database, category: str) -> dict[str, str]:
    """Return ``{name: value}`` of ``category`` (every accepted key at once)."""
    with db.session_scope() as session:
        rows = session.execute(select(models.PkiEntry.name, models.PkiEntry.value)
                               .where(models.PkiEntry.category == category))
        return {name: value for name, value in rows}


def pki_revision(db: Database) -> int:
    """Return how many changes the store has seen."""
    with db.session_scope() as session:
        return session.scalar(select(models.PkiRevision.revision)
                              .where(models.PkiRevision.id == 1)) or 0

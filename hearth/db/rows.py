"""Row look-ups shared by the db API modules."""

from __future__ import annotations

from typing import Any, TypeVar

from sqlalchemy import Select
from sqlalchemy.orm import Session

from hearth.common import exception

Row = TypeVar("Row")


def get_or_raise(session: Session, model: type[Row], key: Any, entity: str) -> Row:
    """Return the ``model`` row with primary key ``key``; EntityNotFound names ``entity``."""
    row = session.get(model, key)
    if row is None:
        raise exception.EntityNotFound(entity=entity, name=key)
    return row


def first_or_raise(session: Session, query: Select, entity: str, name: Any) -> Any:
    """Return the first row of ``query``; EntityNotFound names ``entity`` and ``name``."""
    row = session.scalars(query).first()
    if row is None:
        raise exception.EntityNotFound(entity=entity, name=name)
    return row

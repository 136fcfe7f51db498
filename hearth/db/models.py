"""SQLAlchemy 2 declarative models: every table of Hearth's database.

Timestamps are timezone-naive UTC (:func:`hearth.db.timeutils.utcnow`).
Stacks are soft-deleted (``deleted_at``); everything else is deleted for
real.  The alembic migrations in ``hearth/db/migrations`` create exactly
these tables (a test compares them).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from hearth.db.timeutils import utcnow

# Named constraints, so that migrations can refer to them on every dialect.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# Python None is stored as SQL NULL, not as the JSON text "null".
Json = JSON(none_as_null=True)


def new_uuid() -> str:
    """Return a new random UUID as a string (the id of stacks, events, snapshots)."""
    return str(uuid.uuid4())


class Base(DeclarativeBase):
    """Declarative base of every Hearth table."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)

    def to_dict(self) -> dict[str, Any]:
        """Return the column values as a plain dict."""
        return {column.key: getattr(self, column.key) for column in self.__mapper__.columns}

    def set_columns(self, values: Mapping[str, Any]) -> None:
        """Set column values by attribute name; an unknown name is a programming error."""
        columns = self.__mapper__.columns.keys()
        for key, value in values.items():
            if key not in columns:
                raise TypeError(f"{type(self).__name__} has no column {key!r}")
            setattr(self, key, value)

    def __repr__(self) -> str:
        keys = [column.key for column in self.__mapper__.primary_key]
        ident = ", ".join(f"{key}={getattr(self, key)!r}" for key in keys)
        return f"<{type(self).__name__} {ident}>"


class TimestampMixin:
    """``created_at`` and ``updated_at`` columns (updated_at set on every update)."""

    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, nullable=False)
    updated_at: Mapped[datetime | None] = mapped_column(DateTime, onupdate=utcnow)


class RawTemplate(Base):
    """A stack's template with the files and environment it was given."""

    __tablename__ = "raw_template"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    template: Mapped[Any] = mapped_column(Json, nullable=False)
    files: Mapped[Any] = mapped_column(Json, nullable=False, default=dict)
    environment: Mapped[Any] = mapped_column(Json, nullable=False, default=dict)


class Stack(TimestampMixin, Base):
    """A stack (top-level or nested); soft-deleted through ``deleted_at``."""

    __tablename__ = "stack"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_uuid)
    name: Mapped[str] = mapped_column(String(255), nullable=False)
    raw_template_id: Mapped[int] = mapped_column(ForeignKey("raw_template.id"), nullable=False)
    prev_raw_template_id: Mapped[int | None] = mapped_column(ForeignKey("raw_template.id"))
    project_id: Mapped[str] = mapped_column(String(256), nullable=False)
    username: Mapped[str | None] = mapped_column(String(256))
    owner_id: Mapped[str | None] = mapped_column(String(36), index=True)
    parent_resource_name: Mapped[str | None] = mapped_column(String(255))
    nested_depth: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    timeout_mins: Mapped[int | None] = mapped_column(Integer)
    disable_rollback: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    tags: Mapped[list[str]] = mapped_column(Json, nullable=False, default=list)
    action: Mapped[str] = mapped_column(String(255), nullable=False, default="INIT")
    status: Mapped[str] = mapped_column(String(255), nullable=False, default="COMPLETE")
    status_reason: Mapped[str] = mapped_column(Text, nullable=False, default="")
    backup: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    deleted_at: Mapped[datetime | None] = mapped_column(DateTime)

    __table_args__ = (
        # A name is unique in its project among the stacks that are not deleted.
        Index("uq_stack_project_name_live", "project_id", "name", unique=True,
              sqlite_where=text("deleted_at IS NULL"),
              postgresql_where=text("deleted_at IS NULL")),
        Index("ix_stack_status", "status", "action"),
        Index("ix_stack_created_at", "created_at", "id"),
    )


class StackTag(Base):
    """One tag of a stack: the queryable copy of ``Stack.tags`` for tag filters."""

    __tablename__ = "stack_tag"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    stack_id: Mapped[str] = mapped_column(ForeignKey("stack.id", ondelete="CASCADE"),
                                          nullable=False, index=True)
    tag: Mapped[str] = mapped_column(String(80), nullable=False, index=True)


class Resource(TimestampMixin, Base):
    """A resource of a stack; replacements share the name (``replaces``/``replaced_by``)."""

    __tablename__ = "resource"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    uuid: Mapped[str] = mapped_column(String(36), nullable=False, unique=True, default=new_uuid)
    name: Mapped[str] = mapped_column(String(255), nullable=False)
    stack_id: Mapped[str] = mapped_column(ForeignKey("stack.id"), nullable=False)
    type: Mapped[str] = mapped_column(String(255), nullable=False)
    physical_resource_id: Mapped[str | None] = mapped_column(String(255))
    metadata_: Mapped[Any] = mapped_column("metadata", Json, nullable=False, default=dict)
    properties_data: Mapped[Any] = mapped_column(Json, nullable=True)
    attr_data: Mapped[Any] = mapped_column(Json, nullable=True)
    action: Mapped[str] = mapped_column(String(255), nullable=False, default="INIT")
    status: Mapped[str] = mapped_column(String(255), nullable=False, default="COMPLETE")
    status_reason: Mapped[str] = mapped_column(Text, nullable=False, default="")
    requires: Mapped[list[int]] = mapped_column(Json, nullable=False, default=list)
    replaces: Mapped[int | None] = mapped_column(Integer)
    replaced_by: Mapped[int | None] = mapped_column(Integer)
    #: the template snippet describing a resource a stopped update left behind (a
    #: replaced original, not in the stack's template); None for every other resource
    definition: Mapped[Any] = mapped_column(Json, nullable=True)

    __table_args__ = (
        Index("ix_resource_stack_name", "stack_id", "name"),
        Index("ix_resource_physical_id", "physical_resource_id"),
    )


class ResourceData(Base):
    """A key/value pair of a resource's private data; ``redact`` hides it from listings."""

    __tablename__ = "resource_data"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    resource_id: Mapped[int] = mapped_column(ForeignKey("resource.id", ondelete="CASCADE"),
                                             nullable=False)
    key: Mapped[str] = mapped_column(String(255), nullable=False)
    value: Mapped[str | None] = mapped_column(Text)
    redact: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)

    __table_args__ = (
        Index("uq_resource_data_resource_key", "resource_id", "key", unique=True),
    )


class Event(Base):
    """One state change of a stack or resource; ``id`` orders events."""

    __tablename__ = "event"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    uuid: Mapped[str] = mapped_column(String(36), nullable=False, unique=True, default=new_uuid)
    stack_id: Mapped[str] = mapped_column(ForeignKey("stack.id"), nullable=False)
    resource_name: Mapped[str | None] = mapped_column(String(255))
    physical_resource_id: Mapped[str | None] = mapped_column(String(255))
    resource_action: Mapped[str | None] = mapped_column(String(255))
    resource_status: Mapped[str | None] = mapped_column(String(255))
    resource_status_reason: Mapped[str | None] = mapped_column(Text)
    resource_type: Mapped[str | None] = mapped_column(String(255))
    resource_properties: Mapped[Any] = mapped_column(Json, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, nullable=False)

    __table_args__ = (
        Index("ix_event_stack_id", "stack_id", "id"),
    )


class Snapshot(TimestampMixin, Base):
    """A saved copy of a stack's resource data."""

    __tablename__ = "snapshot"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_uuid)
    stack_id: Mapped[str] = mapped_column(ForeignKey("stack.id"), nullable=False, index=True)
    name: Mapped[str | None] = mapped_column(String(255))
    data: Mapped[Any] = mapped_column(Json, nullable=True)
    action: Mapped[str] = mapped_column(String(255), nullable=False, default="SNAPSHOT")
    status: Mapped[str] = mapped_column(String(255), nullable=False, default="IN_PROGRESS")
    status_reason: Mapped[str] = mapped_column(Text, nullable=False, default="")


class StackLock(Base):
    """Which engine acts on a stack right now (one row per locked stack)."""

    __tablename__ = "stack_lock"

    stack_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    engine_id: Mapped[str] = mapped_column(String(36), nullable=False, index=True)
    acquired_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, nullable=False)


class Engine(TimestampMixin, Base):
    """A running (or dead) engine; ``heartbeat_at`` tells whether it is alive."""

    __tablename__ = "engine"

    engine_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    host: Mapped[str] = mapped_column(String(255), nullable=False)
    hostname: Mapped[str] = mapped_column(String(255), nullable=False)
    pid: Mapped[int] = mapped_column(Integer, nullable=False)
    binary: Mapped[str] = mapped_column(String(255), nullable=False)
    topic: Mapped[str] = mapped_column(String(255), nullable=False, default="engine")
    report_interval: Mapped[float] = mapped_column(nullable=False, default=0.5)
    heartbeat_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, nullable=False)
    deleted_at: Mapped[datetime | None] = mapped_column(DateTime)


class Token(Base):
    """An API token, stored as the sha256 hex digest of its secret."""

    __tablename__ = "token"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_uuid)
    token_hash: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)
    project_id: Mapped[str] = mapped_column(String(256), nullable=False)
    user: Mapped[str] = mapped_column(String(256), nullable=False)
    roles: Mapped[list[str]] = mapped_column(Json, nullable=False, default=list)
    description: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, nullable=False)
    expires_at: Mapped[datetime | None] = mapped_column(DateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime)


class Job(Base):
    """A Salt-style job of the execution layer, with its return (the job cache)."""

    __tablename__ = "job"

    jid: Mapped[str] = mapped_column(String(20), primary_key=True)
    function: Mapped[str] = mapped_column(String(255), nullable=False)
    args: Mapped[Any] = mapped_column(Json, nullable=False, default=list)
    kwargs: Mapped[Any] = mapped_column(Json, nullable=False, default=dict)
    target: Mapped[str | None] = mapped_column(Text)
    retcode: Mapped[int | None] = mapped_column(Integer)
    return_: Mapped[Any] = mapped_column("return", Json, nullable=True)
    success: Mapped[bool | None] = mapped_column(Boolean)
    started_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, nullable=False)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime)
    expires_at: Mapped[datetime | None] = mapped_column(DateTime, index=True)
    # jobs published by hearth-master (None for local calls)
    target_type: Mapped[str | None] = mapped_column(String(32))
    targeted: Mapped[Any] = mapped_column(Json, nullable=True)
    not_connected: Mapped[Any] = mapped_column(Json, nullable=True)
    user: Mapped[str | None] = mapped_column(String(255))
    # the master running the job (None once finished); its batch size and timeout, so that
    # another master sharing the database can take over a job its master left unfinished
    master_id: Mapped[str | None] = mapped_column(String(32), index=True)
    batch: Mapped[int | None] = mapped_column(Integer)
    timeout: Mapped[float | None] = mapped_column(Float)


class JobReturn(Base):
    """One agent's return to a job published by hearth-master."""

    __tablename__ = "job_return"

    jid: Mapped[str] = mapped_column(String(20), ForeignKey("job.jid", ondelete="CASCADE"),
                                     primary_key=True)
    agent_id: Mapped[str] = mapped_column(String(255), primary_key=True)
    return_: Mapped[Any] = mapped_column("return", Json, nullable=True)
    retcode: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    success: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    out: Mapped[str | None] = mapped_column(String(64))
    received_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, nullable=False)


class Agent(Base):
    """What the master last learnt about an agent: its grains and when it was seen."""

    __tablename__ = "agent"

    id: Mapped[str] = mapped_column(String(255), primary_key=True)
    grains: Mapped[Any] = mapped_column(Json, nullable=False, default=dict)
    first_seen: Mapped[datetime] = mapped_column(DateTime, default=utcnow, nullable=False)
    last_seen: Mapped[datetime] = mapped_column(DateTime, default=utcnow, nullable=False)


class Master(Base):
    """A hearth-master using this database, and its heartbeat (masters sharing one database).

    ``beats`` counts the master's heartbeats: a peer judges a master dead when
    the count stops moving for ``[master] peer_timeout`` seconds of its own
    clock, so that the masters' clocks need not agree.
    """

    __tablename__ = "master"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    host: Mapped[str] = mapped_column(String(255), nullable=False)
    pid: Mapped[int] = mapped_column(Integer, nullable=False)
    address: Mapped[str] = mapped_column(String(300), nullable=False)
    fingerprint: Mapped[str] = mapped_column(String(128), nullable=False)
    pillar_digest: Mapped[str | None] = mapped_column(String(64))
    beats: Mapped[int] = mapped_column(BigInteger, nullable=False, default=0)
    started_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, nullable=False)
    beat_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, nullable=False)
    stopped: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)


class PkiEntry(Base):
    """One record of the masters' pki store when it is the database (``[master] key_store``).

    ``category`` is what Salt keeps as a directory of the master's pki dir
    (``accepted``, ``pending``, ``rejected``, ``denied``, ``enroll``,
    ``grains``), ``name`` the agent id, ``value`` the file's text.
    """

    __tablename__ = "pki_entry"

    category: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(255), primary_key=True)
    value: Mapped[str] = mapped_column(Text, nullable=False)
    updated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, nullable=False)


class PkiRevision(Base):
    """One row counting the changes of the pki store, so masters notice another's change."""

    __tablename__ = "pki_revision"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    revision: Mapped[int] = mapped_column(BigInteger, nullable=False, default=0)


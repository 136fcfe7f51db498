"""Raw templates and stacks: create, look up, list (filters, tags, sort, pages), update, delete."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Select, and_, delete, exists, func, not_, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from hearth.common import exception
from hearth.db import api_resources, models, pagination, rows
from hearth.db.session import Database
from hearth.db.timeutils import utcnow

_EPOCH = datetime(1970, 1, 1)

# API sort key -> column expression (nullable ones coalesced, see pagination).
STACK_SORT_KEYS = {
    "stack_name": models.Stack.name,
    "stack_status": models.Stack.status,
    "creation_time": models.Stack.created_at,
    "updated_time": func.coalesce(models.Stack.updated_at, _EPOCH),
    # the database's own column names are accepted too
    "name": models.Stack.name,
    "status": models.Stack.status,
    "created_at": models.Stack.created_at,
    "updated_at": func.coalesce(models.Stack.updated_at, _EPOCH),
}
STACK_DEFAULT_SORT = ("creation_time",)
STATUSES = ("IN_PROGRESS", "COMPLETE", "FAILED")


# --- raw templates -----------------------------------------------------------

def raw_template_create(db: Database, template: Any, files: Mapping[str, Any] | None = None,
                        environment: Any = None) -> models.RawTemplate:
    """Store a template with its files and environment; return the row (with ``id``)."""
    row = models.RawTemplate(template=template, files=dict(files or {}),
                             environment=environment or {})
    with db.session_scope(write=True) as session:
        session.add(row)
    return row


def raw_template_get(db: Database, template_id: int) -> models.RawTemplate:
    """Return a raw template (EntityNotFound if it does not exist)."""
    with db.session_scope() as session:
        row = rows.get_or_raise(session, models.RawTemplate, template_id, "Template")
    return row


def raw_template_get_many(db: Database, template_ids: Iterable[int]
                          ) -> dict[int, models.RawTemplate]:
    """Return ``{id: raw template}`` of the templates that exist among ``template_ids``."""
    ids = list(set(template_ids))
    if not ids:
        return {}
    query = select(models.RawTemplate).where(models.RawTemplate.id.in_(ids))
    with db.session_scope() as session:
        return {row.id: row for row in session.scalars(query)}


def raw_template_update(db: Database, template_id: int, **values: Any) -> models.RawTemplate:
    """Change ``template``, ``files`` or ``environment`` of a raw template."""
    with db.session_scope(write=True) as session:
        row = rows.get_or_raise(session, models.RawTemplate, template_id, "Template")
        row.set_columns(values)
    return row


def raw_template_delete(db: Database, template_id: int) -> None:
    """Delete a raw template (no error if it is already gone)."""
    with db.session_scope(write=True) as session:
        session.execute(delete(models.RawTemplate).where(models.RawTemplate.id == template_id))


# --- stacks ----------------------------------------------------------------------

def _write_tags(session: Session, stack_id: str, tags: Sequence[str]) -> None:
    session.execute(delete(models.StackTag).where(models.StackTag.stack_id == stack_id))
    session.add_all(models.StackTag(stack_id=stack_id, tag=tag) for tag in tags)


def stack_create(db: Database, values: Mapping[str, Any]) -> models.Stack:
    """Store a new stack; ``values`` are column values (``id`` is made when missing).

    Raises StackExists when a live stack of that name is in the project.
    """
    row = models.Stack()
    row.set_columns({"tags": [], **values})
    try:
        with db.session_scope(write=True) as session:
            session.add(row)
            session.flush()
            _write_tags(session, row.id, row.tags)
    except IntegrityError as error:
        if _name_taken(db, row.project_id, row.name):
            raise exception.StackExists(stack_name=row.name) from error
        raise
    return row


def _name_taken(db: Database, project_id: str, name: str) -> bool:
    query = select(models.Stack.id).where(models.Stack.project_id == project_id,
                                          models.Stack.name == name,
                                          models.Stack.deleted_at.is_(None))
    with db.session_scope() as session:
        return session.execute(query).first() is not None


def _scoped(query: Select, project_id: str | None, show_deleted: bool) -> Select:
    if project_id is not None:
        query = query.where(models.Stack.project_id == project_id)
    if not show_deleted:
        query = query.where(models.Stack.deleted_at.is_(None))
    return query


def stack_get(db: Database, stack_id: str, project_id: str | None = None,
              show_deleted: bool = False) -> models.Stack:
    """Return a stack by id, in ``project_id`` when given (StackNotFound otherwise)."""
    query = _scoped(select(models.Stack).where(models.Stack.id == stack_id),
                    project_id, show_deleted)
    with db.session_scope() as session:
        row = session.scalars(query).first()
    if row is None:
        raise exception.StackNotFound(stack_id)
    return row


def stack_resource_data(db: Database, project_id: str, stack_id: str, stack_name: str,
                        resource_name: str, key: str) -> str | None:
    """Return data item ``key`` of live resource ``resource_name`` of a live stack.

    The stack is ``stack_id``, in ``project_id`` and named ``stack_name``;
    None when it, the resource or the item is not there.
    """
    try:
        stack = stack_get(db, stack_id, project_id=project_id)
        if stack.name != stack_name:
            return None
        row = api_resources.resource_get_by_name(db, stack_id, resource_name)
        return api_resources.resource_data_get(db, row.id, key)
    except exception.NotFound:
        return None


def stack_get_live(db: Database, stack_id: str) -> models.Stack | None:
    """Return a stack that is not deleted, or None."""
    with db.session_scope() as session:
        return session.scalars(select(models.Stack).where(
            models.Stack.id == stack_id, models.Stack.deleted_at.is_(None))).first()


def stack_get_by_name(db: Database, name: str, project_id: str | None = None,
                      show_deleted: bool = False) -> models.Stack:
    """Return the live stack named ``name`` (the newest one when deleted ones are shown)."""
    query = _scoped(select(models.Stack).where(models.Stack.name == name),
                    project_id, show_deleted)
    query = query.order_by(models.Stack.deleted_at.is_not(None), models.Stack.created_at.desc())
    with db.session_scope() as session:
        row = session.scalars(query).first()
    if row is None:
        raise exception.StackNotFound(name)
    return row


def stack_find(db: Database, identity: str, project_id: str | None = None,
               show_deleted: bool = False) -> models.Stack:
    """Return the stack named ``identity``, else the one with that id (StackNotFound)."""
    name, _, stack_id = identity.partition("/")
    if stack_id:
        row = stack_get(db, stack_id, project_id, show_deleted)
        if row.name != name:
            raise exception.StackNotFound(identity)
        return row
    lookups = (stack_get, stack_get_by_name) if _is_uuid(identity) else \
        (stack_get_by_name, stack_get)
    try:
        return lookups[0](db, identity, project_id, show_deleted)
    except exception.StackNotFound:
        return lookups[1](db, identity, project_id, show_deleted)


def _is_uuid(text: str) -> bool:
    """Return whether ``text`` reads as a UUID (a stack id rather than a name, most likely)."""
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


def stack_get_all_by_owner(db: Database, owner_id: str) -> list[models.Stack]:
    """Return the live nested stacks whose parent is ``owner_id``."""
    query = select(models.Stack).where(models.Stack.owner_id == owner_id,
                                       models.Stack.deleted_at.is_(None))
    with db.session_scope() as session:
        return list(session.scalars(query.order_by(models.Stack.created_at, models.Stack.id)))


def stack_get_all_by_owners(db: Database, owner_ids: Sequence[str],
                            show_deleted: bool = False) -> list[models.Stack]:
    """Return the nested stacks whose parent is one of ``owner_ids`` (one level, one query).

    Ordered by creation (id as tie-break); deleted ones too with ``show_deleted``.
    """
    if not owner_ids:
        return []
    query = _scoped(select(models.Stack).where(models.Stack.owner_id.in_(list(owner_ids))),
                    None, show_deleted)
    with db.session_scope() as session:
        return list(session.scalars(query.order_by(models.Stack.created_at, models.Stack.id)))


def stack_update(db: Database, stack_id: str, **values: Any) -> models.Stack:
    """Change column values of a live stack (``tags`` too); return the stack."""
    with db.session_scope(write=True) as session:
        row = session.scalars(select(models.Stack).where(
            models.Stack.id == stack_id, models.Stack.deleted_at.is_(None))).first()
        if row is None:
            raise exception.StackNotFound(stack_id)
        row.set_columns(values)
        if "tags" in values:
            _write_tags(session, stack_id, values["tags"] or [])
    return row


def stack_update_if(db: Database, stack_id: str, expected: Mapping[str, Any],
                    **values: Any) -> bool:
    """Change column values of a live stack only while it still has the ``expected`` ones.

    One conditional UPDATE: when several processes race to change the same
    stack from the same state (engines failing a dead engine's stack),
    exactly one of them does; return whether this call did.  ``updated_at``
    becomes now unless ``values`` gives it.
    """
    conditions = [getattr(models.Stack, key) == value for key, value in expected.items()]
    with db.session_scope(write=True) as session:
        return bool(session.execute(
            update(models.Stack)
            .where(models.Stack.id == stack_id, models.Stack.deleted_at.is_(None), *conditions)
            .values(**{"updated_at": utcnow(), **values})).rowcount)


def stack_delete(db: Database, stack_id: str) -> None:
    """Soft-delete a stack and delete its resources, their data and its snapshots.

    Events, tags and templates stay, so ``show_deleted`` listings still work.
    """
    now = utcnow()
    with db.session_scope(write=True) as session:
        found = session.execute(
            update(models.Stack)
            .where(models.Stack.id == stack_id, models.Stack.deleted_at.is_(None))
            .values(deleted_at=now, updated_at=now)).rowcount
        if not found:
            raise exception.StackNotFound(stack_id)
        api_resources.delete_stack_resources(session, stack_id)
        session.execute(delete(models.Snapshot).where(models.Snapshot.stack_id == stack_id))
        session.execute(delete(models.StackLock).where(models.StackLock.stack_id == stack_id))


# --- listing -------------------------------------------------------------------

def _status_clause(value: str):
    """``CREATE_COMPLETE`` matches action and status; ``COMPLETE`` the status alone."""
    for status in STATUSES:
        if value.endswith("_" + status):
            action = value[: -len(status) - 1]
            return (models.Stack.action == action) & (models.Stack.status == status)
    return models.Stack.status == value


def _any_of(values: Any) -> list[Any]:
    return list(values) if isinstance(values, (list, tuple, set, frozenset)) else [values]


def _column_filter(column):
    return lambda values: column.in_(_any_of(values))


# Filter key -> clause builder taking the filter's value (a value or a list of values).
STACK_FILTERS = {
    "id": _column_filter(models.Stack.id),
    "name": _column_filter(models.Stack.name),
    "stack_name": _column_filter(models.Stack.name),
    "action": _column_filter(models.Stack.action),
    "tenant": _column_filter(models.Stack.project_id),
    "project_id": _column_filter(models.Stack.project_id),
    "username": _column_filter(models.Stack.username),
    "owner_id": _column_filter(models.Stack.owner_id),
    "status": lambda values: or_(*[_status_clause(v) for v in _any_of(values)]),
}
STACK_FILTERS["stack_status"] = STACK_FILTERS["status"]


def _has_tag(tag: str):
    return exists().where(models.StackTag.stack_id == models.Stack.id, models.StackTag.tag == tag)


def _tag_clauses(tags: Sequence[str] | None, tags_any: Sequence[str] | None,
                 not_tags: Sequence[str] | None, not_tags_any: Sequence[str] | None) -> list:
    """Heat's four tag filters: all of, any of, not all of, none of."""
    clauses = []
    if tags:
        clauses.append(and_(*[_has_tag(t) for t in tags]))
    if tags_any:
        clauses.append(or_(*[_has_tag(t) for t in tags_any]))
    if not_tags:
        clauses.append(not_(and_(*[_has_tag(t) for t in not_tags])))
    if not_tags_any:
        clauses.append(not_(or_(*[_has_tag(t) for t in not_tags_any])))
    return clauses


def _stack_query(columns, project_id: str | None, filters: Mapping[str, Any] | None,
                 show_deleted: bool, show_nested: bool, tags, tags_any, not_tags,
                 not_tags_any) -> Select:
    query = _scoped(select(columns), project_id, show_deleted)
    query = query.where(models.Stack.backup.is_(False))
    if not show_nested:
        query = query.where(models.Stack.owner_id.is_(None))
    for key, value in (filters or {}).items():
        if key not in STACK_FILTERS:
            raise exception.InvalidFilter(key, sorted(STACK_FILTERS))
        query = query.where(STACK_FILTERS[key](value))
    return query.where(*_tag_clauses(tags, tags_any, not_tags, not_tags_any))


def stack_list(db: Database, project_id: str | None = None,
               filters: Mapping[str, Any] | None = None, limit: int | None = None,
               marker: str | None = None, sort_keys: Sequence[str] | None = None,
               sort_dir: str | None = None, show_deleted: bool = False,
               show_nested: bool = False, tags: Sequence[str] | None = None,
               tags_any: Sequence[str] | None = None, not_tags: Sequence[str] | None = None,
               not_tags_any: Sequence[str] | None = None) -> list[models.Stack]:
    """Return stacks of ``project_id`` (all projects when None), filtered, sorted, paged.

    ``filters`` keys are those of :data:`STACK_FILTERS`, each with one value
    or a list (any of).  ``sort_keys`` are those of :data:`STACK_SORT_KEYS`
    (default ``creation_time`` descending, id as tie-break).  ``marker`` is
    the id of the last stack of the previous page; one that names no stack
    is ignored (the first page), as Heat does.
    """
    direction = pagination.check_sort_dir(sort_dir, "desc")
    expressions = pagination.sort_expressions(sort_keys, STACK_SORT_KEYS, STACK_DEFAULT_SORT)
    query = _stack_query(models.Stack, project_id, filters, show_deleted, show_nested,
                         tags, tags_any, not_tags, not_tags_any)
    with db.session_scope() as session:
        return pagination.fetch_page(session, query, expressions, models.Stack.id, direction,
                                     limit, marker, models.Stack.id, "Stack marker",
                                     unknown_marker="ignore")


def stack_count(db: Database, project_id: str | None = None,
                filters: Mapping[str, Any] | None = None, show_deleted: bool = False,
                show_nested: bool = False, tags: Sequence[str] | None = None,
                tags_any: Sequence[str] | None = None, not_tags: Sequence[str] | None = None,
                not_tags_any: Sequence[str] | None = None) -> int:
    """Return how many stacks :func:`stack_list` would return without paging."""
    query = _stack_query(func.count(models.Stack.id), project_id, filters, show_deleted,
                         show_nested, tags, tags_any, not_tags, not_tags_any)
    with db.session_scope() as session:
        return int(session.scalar(query))


def stack_count_by_project(db: Database, project_id: str) -> int:
    """Return the live top-level stacks of a project (for ``max_stacks_per_tenant``)."""
    return stack_count(db, project_id=project_id)

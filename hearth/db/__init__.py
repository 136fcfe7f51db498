"""Persistence: the only place SQL lives.

How to use it (one style everywhere)::

    from hearth.db import api
    db = api.get_database()            # or get_database(url); one shared handle per URL
    stack = api.stack_create(db, {"name": "web", "raw_template_id": t.id, ...})
    api.stack_update(db, stack.id, action="CREATE", status="IN_PROGRESS")

Every function of :mod:`hearth.db.api` takes the :class:`~hearth.db.session.Database`
handle first, runs in its own short transaction and returns detached model
objects (:mod:`hearth.db.models`) or plain values; callers never see a
session or build a query.  Missing rows raise ``EntityNotFound``.

Modules: ``models`` (tables), ``session`` (engines, sessions, SQLite/eventlet
settings), ``migration`` + ``migrations/`` (alembic), ``api`` (the facade
over ``api_stacks``, ``api_resources``, ``api_events``, ``api_snapshots``,
``api_locks``, ``api_engines``), ``pagination`` (sort and marker paging),
``redaction`` (masking of secret resource data), ``timeutils`` (the clock).
"""

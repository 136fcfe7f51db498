"""Persistence: the only place SQL lives.

How to use it: import the module of the rows you touch, one per noun, so
that a module's imports say which tables it reads::

    from hearth.db import api_stacks
    from hearth.db.session import get_database
    db = get_database()                # or get_database(url); one shared handle per URL
    stack = api_stacks.stack_create(db, {"name": "web", "raw_template_id": t.id, ...})
    api_stacks.stack_update(db, stack.id, action="CREATE", status="IN_PROGRESS")

Every ``<noun>_<verb>`` function takes the :class:`~hearth.db.session.Database`
handle first, runs in its own short transaction and returns detached model
objects (:mod:`hearth.db.models`) or plain values; callers never see a
session or build a query.  Missing rows raise ``EntityNotFound``.
:mod:`hearth.db.api` gathers the functions of every noun module in one
namespace, for tests and scripts.

Modules: ``models`` (tables), ``session`` (engines, sessions, SQLite/eventlet
settings), ``migration`` + ``migrations/`` (alembic), ``api_<noun>`` (the
functions, one module per noun: ``api_stacks``, ``api_resources``,
``api_events``, ``api_locks``...), ``api`` (all of them in one namespace),
``pagination`` (sort and marker paging), ``redaction`` (masking of secret
resource data), ``timeutils`` (the clock).
"""

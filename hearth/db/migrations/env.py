"""Alembic environment: migrate the connection hearth.db.migration passes in."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from hearth.db import models

config = context.config


def run_migrations() -> None:
    """Run the migrations on the given connection, or on a new one for the URL."""
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = create_engine(config.get_main_option("sqlalchemy.url"))
    with engine.connect() as new_connection:
        _run(new_connection)
        new_connection.commit()
    engine.dispose()


def _run(connection) -> None:
    context.configure(connection=connection, target_metadata=models.Base.metadata,
                      render_as_batch=connection.dialect.name == "sqlite",
                      compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


run_migrations()

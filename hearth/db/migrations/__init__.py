"""Alembic migrations of Hearth's schema (env.py, versions/)."""

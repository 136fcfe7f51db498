"""``hearth-manage db-sync`` and ``db-version``: the database schema."""

from __future__ import annotations

import argparse

from hearth.cli import command
from hearth.common import config
from hearth.db import migration


def _url(args: argparse.Namespace) -> str:
    config.load(config_files=args.config_file)
    return config.database_url()


def do_db_sync(args: argparse.Namespace) -> int:
    """Create or upgrade the configured database's schema to the newest revision."""
    revision = migration.db_sync(_url(args))
    print(f"Database schema is at revision {revision}.")
    return 0


def do_db_version(args: argparse.Namespace) -> int:
    """Print the configured database's schema revision and the code's newest."""
    revision = migration.current_revision(_url(args))
    print(f"Database schema revision: {revision or 'none (empty database)'}; "
          f"newest known: {migration.head_revision()}")
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add db-sync and db-version."""
    command.add_command(subparsers, "db-sync", do_db_sync)
    command.add_command(subparsers, "db-version", do_db_version)

"""What the master keeps in the server database: opening it, and where agents' keys live.

The database holds the job cache and the known agents, and, with
``[master] key_store = database``, the agents' keys and recorded grains
(:class:`DatabasePki`, a :class:`~hearth.master.pki_store.PkiStore` of rows),
so that masters sharing it share them.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url

from hearth.common import config
from hearth.common.exception import DaemonStartFailed
from hearth.db import api_pki
from hearth.db.session import get_database
from hearth.master.keys import KeyStore
from hearth.master.recorded_grains import RecordedGrains
from hearth.master.settings import MasterSettings

#: The shortest time PostgreSQL lets a master's transaction sit idle (see end_paused).
MIN_IDLE_IN_TRANSACTION = 10.0


def open_database(peer_timeout: float = 5.0) -> Any:
    """Open the configured database; raise DaemonStartFailed naming it (password hidden)."""
    url = config.database_url()
    try:
        database = get_database(url)
    except Exception as error:  # noqa: BLE001 - SQLAlchemy, alembic, OS errors

        shown = make_url(url).render_as_string(hide_password=True)
        reason = str(getattr(error, "orig", None) or error).splitlines()[0]
        raise DaemonStartFailed(reason=f"cannot open the job cache's database "
                                       f"{shown}: {reason}") from None
    if database.dialect == "postgresql":
        end_paused(database.engine, max(MIN_IDLE_IN_TRANSACTION, 2 * peer_timeout))
    return database


def end_paused(engine: Any, seconds: float) -> None:
    """Have PostgreSQL end this master's transactions left idle ``seconds`` (and their locks).

    A master paused in the middle of a write (SIGSTOP, a frozen machine)
    keeps its transaction open and its row locks taken: the master that
    takes its jobs over would wait on them as long as the pause lasts,
    storing no return at all.  PostgreSQL's
    ``idle_in_transaction_session_timeout`` ends such a session; the
    paused master finds its write failed when it runs again (its returns
    are not acknowledged; the agents send them again), and is fenced.
    """
    milliseconds = int(seconds * 1000)

    @event.listens_for(engine, "connect")
    def limit(dbapi_connection: Any, record: Any) -> None:
        autocommit = dbapi_connection.autocommit
        dbapi_connection.autocommit = True
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"SET SESSION idle_in_transaction_session_timeout = {milliseconds}")
        finally:
            cursor.close()
            dbapi_connection.autocommit = autocommit

    engine.dispose()  # the connections opened before get it too


class DatabasePki:
    """Records as rows of the server database, shared by the masters that use it."""

    shared = True

    def __init__(self, database: Any) -> None:
        self._database = database

    def read(self, category: str, name: str) -> str | None:
        """Return the row's value, or None."""
        return api_pki.pki_read(self._database, category, name)

    def write(self, category: str, name: str, value: str, private: bool = False) -> None:
        """Make or replace the row (rows are as private as the database)."""
        api_pki.pki_write(self._database, category, name, value)

    def remove(self, category: str, name: str) -> bool:
        """Delete the row; return whether it existed."""
        return api_pki.pki_remove(self._database, category, name)

    def names(self, category: str) -> list[str]:
        """Return the names of the category's rows, sorted."""
        return api_pki.pki_names(self._database, category)

    def values(self, category: str) -> dict[str, str]:
        """Return ``{name: value}`` of the category's rows."""
        return api_pki.pki_values(self._database, category)

    def revision(self) -> int:
        """Return the store's revision (changed by every write on any master)."""
        return api_pki.pki_revision(self._database)


def key_stores(settings: MasterSettings,
               database: Any = None) -> tuple[KeyStore, RecordedGrains]:
    """Return the agents' key store and recorded grains as ``[master] key_store`` chooses.

    Without ``database`` (a master not started yet), the files.
    """
    shared = database is not None and settings.key_store == "database"
    store = DatabasePki(database) if shared else None
    return (KeyStore(settings.pki_dir, settings.auto_accept, store=store),
            RecordedGrains(settings.pki_dir, store))

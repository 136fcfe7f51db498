"""What the master keeps in the server database: opening it, and where agents' keys live.

The database holds the job cache and the known agents, and, with
``[master] key_store = database``, the agents' keys and recorded grains
(:mod:`hearth.master.pki_store`), so that masters sharing it share them.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.engine import make_url

from hearth.common import config
from hearth.common.exception import DaemonStartFailed
from hearth.db.session import get_database
from hearth.master.keys import KeyStore
from hearth.master.pki_store import DatabasePki
from hearth.master.recorded_grains import RecordedGrains
from hearth.master.settings import MasterSettings


def open_database() -> Any:
    """Open the configured database; raise DaemonStartFailed naming it (password hidden)."""
    url = config.database_url()
    try:
        return get_database(url)
    except Exception as error:  # noqa: BLE001 - SQLAlchemy, alembic, OS errors

        shown = make_url(url).render_as_string(hide_password=True)
        reason = str(getattr(error, "orig", None) or error).splitlines()[0]
        raise DaemonStartFailed(reason=f"cannot open the job cache's database "
                                       f"{shown}: {reason}") from None


def key_stores(settings: MasterSettings,
               database: Any = None) -> tuple[KeyStore, RecordedGrains]:
    """Return the agents' key store and recorded grains as ``[master] key_store`` chooses.

    Without ``database`` (a master not started yet), the files.
    """
    shared = database is not None and settings.key_store == "database"
    store = DatabasePki(database) if shared else None
    return (KeyStore(settings.pki_dir, settings.auto_accept, store=store),
            RecordedGrains(settings.pki_dir, store))

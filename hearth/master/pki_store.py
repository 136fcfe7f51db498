"""Where the master keeps agents' keys and what goes with them: files, or the database.

``[master] key_store`` chooses:

``files`` (the default)
    Salt's layout: one file per agent id in a directory per category under
    the master's pki dir (``accepted/web1`` holds web1's public key).  One
    master's own; an operator may drop a key file in by hand.
``database``
    The same records as rows of the server database (:mod:`hearth.db.api_pki`),
    shared by every master that uses it: a key accepted, rejected or deleted
    on one master is so on all (each notices within a heartbeat, through the
    store's revision).  That store, :class:`~hearth.master.storage.DatabasePki`,
    lives with the rest of what a master keeps in the database, so that this
    module (which ``stackctl``'s cloud commands load) imports no database code.

Both hold text values by ``(category, name)``; :class:`~hearth.master.keys.KeyStore`
and :class:`~hearth.master.recorded_grains.RecordedGrains` keep their
meaning on top.
"""

from __future__ import annotations

import os
from typing import Protocol


class PkiStore(Protocol):
    """Text records by category and agent id (see the module docstring)."""

    #: whether other masters see this store (its changes must be watched)
    shared: bool

    def read(self, category: str, name: str) -> str | None:
        """Return the record, or None."""

    def write(self, category: str, name: str, value: str, private: bool = False) -> None:
        """Make or replace the record (``private``: readable by the master's user only)."""

    def remove(self, category: str, name: str) -> bool:
        """Remove the record; return whether it was there."""

    def names(self, category: str) -> list[str]:
        """Return the names of the category's records, sorted."""

    def values(self, category: str) -> dict[str, str]:
        """Return ``{name: value}`` of the category."""

    def revision(self) -> int:
        """Return a number that changes with every change of the store."""


class FilePki:
    """Records as files: ``<pki_dir>/<category>/<name>``."""

    shared = False

    def __init__(self, pki_dir: str, categories: tuple[str, ...] = ()) -> None:
        self.pki_dir = pki_dir
        for category in categories:
            os.makedirs(os.path.join(pki_dir, category), mode=0o700, exist_ok=True)

    def path(self, category: str, name: str) -> str:
        """Return the file of a record (``name`` is a checked agent id)."""
        return os.path.join(self.pki_dir, category, name)

    def read(self, category: str, name: str) -> str | None:
        """Return the file's text, or None when it is missing or unreadable."""
        try:
            with open(self.path(category, name), encoding="utf-8") as handle:
                return handle.read()
        except (OSError, ValueError):
            return None

    def write(self, category: str, name: str, value: str, private: bool = False) -> None:
        """Write the file atomically (a temporary file renamed over it)."""
        os.makedirs(os.path.join(self.pki_dir, category), mode=0o700, exist_ok=True)
        path = self.path(category, name)
        temporary = f"{path}.tmp"
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                             0o600 if private else 0o644)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(value)
        os.replace(temporary, path)

    def remove(self, category: str, name: str) -> bool:
        """Delete the file; return whether it existed."""
        try:
            os.unlink(self.path(category, name))
        except FileNotFoundError:
            return False
        return True

    def names(self, category: str) -> list[str]:
        """Return the file names of the category's directory (hidden and temporary ones not)."""
        try:
            return sorted(name for name in os.listdir(os.path.join(self.pki_dir, category))
                          if not name.startswith(".") and not name.endswith(".tmp"))
        except OSError:
            return []

    def values(self, category: str) -> dict[str, str]:
        """Return every readable file of the category by name."""
        found = {name: self.read(category, name) for name in self.names(category)}
        return {name: value for name, value in found.items() if value is not None}

    def revision(self) -> int:
        """Files are one master's own: nothing to watch."""
        return 0

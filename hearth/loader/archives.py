"""Zip archive modules: each archive imports itself under its own name, privately.

Salt's documented zip module (``lumberjack.zip`` holding
``lumberjack/__init__.py`` and the bundled packages ``lumberjack/sleep/``,
``lumberjack/work/``) imports its bundled packages by the archive's bare
name: ``from lumberjack import sleep, work``.  The loader imports the
archive under a private dotted name instead (``hearth.loaded...lumberjack``),
so the bare name would not resolve.

Putting the bare name in ``sys.modules`` would make it global: a second
archive of the same name (another module directory, another loader, a
re-synced version) would then be handed the first one's bundled packages,
and an archive could shadow an installed package.  So the bare name is
resolved per module instead: every module of an archive gets its own
``__import__`` (through its ``__builtins__``) that maps the bare name to the
archive's private name, at import time and at call time alike.  Modules of
other archives, and the rest of the process, never see it.

:data:`ARCHIVE_FINDER` (installed on ``sys.meta_path`` when the first
archive is registered) finds the archive's sub-modules so that they get the
same ``__import__``.
"""

from __future__ import annotations

import builtins
import importlib.abc
import os
import sys
import threading
import zipimport
from collections.abc import Callable
from dataclasses import dataclass
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any


@dataclass(frozen=True)
class Archive:
    """One zip archive module: its file, its bare name and its private dotted name."""

    path: str
    bare: str
    fullname: str

    def private_name(self, name: str) -> str | None:
        """Return the private name of ``name`` when it is the bare name or under it."""
        if name == self.bare or name.startswith(self.bare + "."):
            return self.fullname + name[len(self.bare):]
        return None

    def importer(self, name: str) -> zipimport.zipimporter:
        """Return the zipimporter of the directory holding the module ``name``."""
        inner = [self.bare, *name[len(self.fullname) + 1:].split(".")[:-1]] \
            if name != self.fullname else []
        return zipimport.zipimporter(os.path.join(self.path, *inner))


def scoped_import(archive: Archive) -> Callable[..., ModuleType]:
    """Return an ``__import__`` resolving the archive's bare name to its private name."""
    def archive_import(name: str, globals: Any = None, locals: Any = None,
                       fromlist: Any = (), level: int = 0) -> ModuleType:
        private = archive.private_name(name) if level == 0 else None
        if private is None:
            return builtins.__import__(name, globals, locals, fromlist, level)
        module = builtins.__import__(private, globals, locals, fromlist, 0)
        # ``import lumberjack.sleep`` binds ``lumberjack``: the archive's own package
        return module if fromlist else sys.modules[archive.fullname]
    return archive_import


class ArchiveLoader(importlib.abc.Loader):
    """Execute a module of an archive with the archive's scoped ``__import__``."""

    def __init__(self, archive: Archive, importer: zipimport.zipimporter) -> None:
        self.archive = archive
        self.importer = importer

    def create_module(self, spec: ModuleSpec) -> None:
        """Use the default module creation."""
        return None

    def exec_module(self, module: ModuleType) -> None:
        """Give the module the archive's ``__import__``, then run its code."""
        module.__builtins__ = {**builtins.__dict__,  # type: ignore[attr-defined]
                               "__import__": scoped_import(self.archive)}
        self.importer.exec_module(module)

    def __getattr__(self, name: str) -> Any:
        # get_source, get_filename, is_package, get_resource_reader... are the archive's
        return getattr(self.importer, name)


class ArchiveFinder(importlib.abc.MetaPathFinder):
    """Find the modules of registered archives by their private names."""

    def __init__(self) -> None:
        self._archives: dict[str, Archive] = {}
        self._lock = threading.Lock()

    def register(self, archive: Archive) -> None:
        """Make ``archive``'s modules findable (installs the finder on first use)."""
        with self._lock:
            self._archives[archive.fullname] = archive
            if self not in sys.meta_path:
                sys.meta_path.insert(0, self)

    def forget(self, prefix: str) -> None:
        """Drop the archives whose private name is ``prefix`` or under it."""
        with self._lock:
            for fullname in [name for name in self._archives
                             if name == prefix or name.startswith(prefix + ".")]:
                del self._archives[fullname]

    def archive_of(self, name: str) -> Archive | None:
        """Return the registered archive holding the module ``name``."""
        parts = name.split(".")
        for end in range(len(parts), 0, -1):
            found = self._archives.get(".".join(parts[:end]))
            if found is not None:
                return found
        return None

    def find_spec(self, fullname: str, path: Any = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        """Return the spec of a module inside a registered archive, else None."""
        archive = self.archive_of(fullname)
        if archive is None:
            return None
        importer = archive.importer(fullname)
        spec = importer.find_spec(fullname if fullname != archive.fullname else archive.bare)
        if spec is None or spec.loader is None:  # absent, or a directory without __init__
            return None
        is_package = spec.submodule_search_locations is not None
        inner = os.path.join(archive.path, archive.bare,
                             *fullname[len(archive.fullname) + 1:].split(".")) \
            if fullname != archive.fullname else os.path.join(archive.path, archive.bare)
        found = ModuleSpec(fullname, ArchiveLoader(archive, importer), is_package=is_package,
                           origin=os.path.join(inner, "__init__.py") if is_package
                           else inner + ".py")
        found.has_location = True
        if is_package:
            found.submodule_search_locations = [inner]
        return found


#: The one finder of every loader's archives.
ARCHIVE_FINDER = ArchiveFinder()


def archive_spec(path: str, bare: str, fullname: str) -> ModuleSpec | None:
    """Register the archive ``path`` (holding ``<bare>/``) as ``fullname``; return its spec.

    Returns None when the archive holds no package ``<bare>/``.
    """
    if not zipimport.zipimporter(path).is_package(bare):
        return None
    ARCHIVE_FINDER.register(Archive(path, bare, fullname))
    return ARCHIVE_FINDER.find_spec(fullname)

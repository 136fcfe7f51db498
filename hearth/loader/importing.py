"""Import one module source under the loader's own namespace.

Every route (plain file, package directory, zip archive) only builds an
import *spec*; :func:`import_source` then runs the same steps for all of
them, so no route can skip a rule.  Modules are imported under a dotted name
private to the loader and to the source
(``hearth.loaded.<family><n>.<origin><rank>.<name>``), so functions defined
in a package's sub-modules (a zip's bundled packages too) keep a
``__module__`` inside the module's own name, and neither two loaders nor two
same-named sources of one loader ever share a module object.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import sys
from collections.abc import Callable
from importlib.machinery import ModuleSpec
from types import ModuleType

from hearth.common import exception
from hearth.loader import archives
from hearth.loader.discovery import ModuleSource

LOG = logging.getLogger(__name__)


def _file_spec(source: ModuleSource, fullname: str) -> ModuleSpec | None:
    return importlib.util.spec_from_file_location(fullname, source.path)


def _package_spec(source: ModuleSource, fullname: str) -> ModuleSpec | None:
    return importlib.util.spec_from_file_location(
        fullname, os.path.join(source.path, "__init__.py"),
        submodule_search_locations=[source.path])


def _zip_spec(source: ModuleSource, fullname: str) -> ModuleSpec | None:
    """Build the spec of the package ``<name>/`` inside ``<name>.zip`` (see :mod:`.archives`)."""
    return archives.archive_spec(source.path, source.name, fullname)


#: The spec builder of each source kind.
SPEC_BUILDERS: dict[str, Callable[[ModuleSource, str], ModuleSpec | None]] = {
    "file": _file_spec,
    "package": _package_spec,
    "zip": _zip_spec,
}


def _import_reason(error: BaseException) -> str:
    """Word an import failure as Salt does (an ImportError reads as its message)."""
    if isinstance(error, ImportError):
        return str(error)
    return f"Failed to import module: {type(error).__name__}: {error}"


def forget(fullname: str) -> None:
    """Remove a loaded module and its sub-modules from ``sys.modules`` (and archives)."""
    archives.ARCHIVE_FINDER.forget(fullname)
    for name in [n for n in sys.modules if n == fullname or n.startswith(fullname + ".")]:
        del sys.modules[name]


def import_source(source: ModuleSource, fullname: str) -> ModuleType:
    """Import ``source`` as ``fullname`` and return the module.

    Raises :class:`~hearth.common.exception.ModuleNotAvailable` with the
    reason when the source cannot be imported (the module is then absent
    from ``sys.modules``).
    """
    try:
        spec = SPEC_BUILDERS[source.kind](source, fullname)
        if spec is None or spec.loader is None:
            raise ImportError(f"{source.path} holds no importable module '{source.name}'")
        module = importlib.util.module_from_spec(spec)
        sys.modules[fullname] = module
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as error:  # noqa: BLE001 - kept as the module's reason
        forget(fullname)
        LOG.debug("module %s (%s) failed to import", source.name, source.path, exc_info=True)
        raise exception.ModuleNotAvailable(name=source.name, reason=_import_reason(error)) \
            from error
    return module

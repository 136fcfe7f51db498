"""Find resource plug-in modules and collect their type → class mappings.

Loading is a list of small steps, each testable alone:

1. *discover* module sources: the built-in package ``hearth.plugins``, the
   ``.py`` files under each directory of ``CONF.plugin_dirs`` (a ``tests``
   folder is never entered) and the stevedore entry points of the group
   ``hearth.resources``;
2. *import* each source (a failure becomes a :class:`PluginLoadError` kept
   as a record, logged with its reason; the traceback only at debug);
3. *read* its mapping: ``resource_mapping()`` and
   ``available_resource_mapping()`` of a module, or the mapping a callable
   entry point returns;
4. *register* every type (the same code for every route): a second module
   claiming a type is recorded as a :class:`ResourceTypeConflict` naming
   both modules, and the first one keeps the type.

:meth:`PluginManager.from_mappings` builds a manager from in-memory lists
for tests.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import logging
import os
import pkgutil
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from stevedore import extension

from hearth.common import config, exception
from hearth.engine.registry.plugin_class import PluginClass

LOG = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "hearth.resources"
BUILTIN_PACKAGE = "hearth.plugins"
SKIPPED_DIRS = frozenset({"tests", "__pycache__"})
MAPPING_FUNCTIONS = ("resource_mapping", "available_resource_mapping")


@dataclass(frozen=True)
class PluginSource:
    """Where one plug-in comes from: ``name`` for messages, ``load`` imports it."""

    name: str
    load: Callable[[], Any]


@dataclass
class PluginManager:
    """The registered classes (type name → class), their modules, and the failures."""

    classes: dict[str, type[PluginClass]] = field(default_factory=dict)
    modules: dict[str, str] = field(default_factory=dict)
    failures: list[exception.HearthException] = field(default_factory=list)

    @classmethod
    def from_mappings(cls, mappings: Iterable[tuple[str, Mapping[str, type]]]) -> PluginManager:
        """Build a manager from in-memory ``(module name, mapping)`` pairs."""
        manager = cls()
        for name, mapping in mappings:
            manager.register(name, mapping)
        return manager

    @classmethod
    def load(cls, plugin_dirs: Iterable[str] | None = None,
             include_builtin: bool = True,
             entry_point_group: str | None = ENTRY_POINT_GROUP) -> PluginManager:
        """Discover, import and register every plug-in (never raises for a bad one)."""
        manager = cls()
        sources: list[PluginSource] = []
        if include_builtin:
            sources.extend(builtin_sources())
        sources.extend(directory_sources(_plugin_dirs(plugin_dirs)))
        if entry_point_group:
            sources.extend(entry_point_sources(entry_point_group, manager.failures))
        for source in sources:
            manager.load_source(source)
        return manager

    def load_source(self, source: PluginSource) -> None:
        """Import one source and register its types; record a failure instead of raising."""
        try:
            mapping = read_mapping(source.load())
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - a plug-in's error is its own
            self.record_failure(exception.PluginLoadError(
                module=source.name, reason=f"{type(exc).__name__}: {exc}"))
            LOG.debug("Plug-in %s failed to load", source.name, exc_info=True)
            return
        self.register(source.name, mapping)

    def register(self, module_name: str, mapping: Mapping[str, type[PluginClass]]) -> None:
        """Register each type of ``mapping``; a type already taken is a recorded conflict."""
        for type_name, resource_class in mapping.items():
            first = self.modules.get(type_name)
            if first is not None and self.classes[type_name] is not resource_class:
                self.record_failure(exception.ResourceTypeConflict(
                    type_name=type_name, first=first, second=module_name))
                continue
            self.classes[type_name] = resource_class
            self.modules[type_name] = module_name
            # (a mapping may name a class not derived from Resource: it gets the attribute here)
            if getattr(resource_class, "resource_type", None) is None:
                resource_class.resource_type = type_name

    def record_failure(self, error: exception.HearthException) -> None:
        """Keep ``error`` for ``resource-type-list --all`` and log its reason."""
        self.failures.append(error)
        LOG.warning("%s", error)


def read_mapping(loaded: Any) -> dict[str, type]:
    """Return the type mapping a plug-in module (or callable entry point) provides."""
    if isinstance(loaded, ModuleType):
        mapping: dict[str, type] = {}
        functions = [getattr(loaded, n) for n in MAPPING_FUNCTIONS if hasattr(loaded, n)]
        if not functions:
            raise ValueError("defines neither resource_mapping() nor "
                             "available_resource_mapping()")
        for mapping_function in functions:
            mapping.update(mapping_function() or {})
        return _checked(mapping)
    if isinstance(loaded, Mapping):
        return _checked(dict(loaded))
    if callable(loaded):
        return _checked(dict(loaded() or {}))
    raise TypeError(f"expected a module, a mapping or a callable, got {type(loaded).__name__}")


def _checked(mapping: dict[str, type]) -> dict[str, type]:
    for type_name, value in mapping.items():
        if not isinstance(value, type):
            raise TypeError(f"type {type_name} maps to {value!r}, not a class")
    return mapping


# --- discovery: one generator per route --------------------------------------

def builtin_sources(package: str = BUILTIN_PACKAGE) -> Iterator[PluginSource]:
    """Yield the modules of the built-in plug-in package."""
    module = importlib.import_module(package)
    for info in sorted(pkgutil.iter_modules(module.__path__), key=lambda i: i.name):
        if info.name.startswith("_") or info.name in SKIPPED_DIRS:
            continue
        name = f"{package}.{info.name}"
        yield PluginSource(name, functools.partial(importlib.import_module, name))


def _plugin_dirs(plugin_dirs: Iterable[str] | None) -> list[str]:
    if plugin_dirs is not None:
        return list(plugin_dirs)

    config.register_opts()
    return list(config.CONF.plugin_dirs)


def directory_sources(directories: Iterable[str]) -> Iterator[PluginSource]:
    """Yield the ``.py`` files under each directory (``tests`` folders never entered)."""
    for directory in directories:
        directory = os.path.abspath(os.path.expanduser(directory))
        if not os.path.isdir(directory):
            continue
        for root, dirs, files in os.walk(directory):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
            for file_name in sorted(files):
                if file_name.endswith(".py") and not file_name.startswith("_"):
                    path = os.path.join(root, file_name)
                    yield PluginSource(path, functools.partial(import_file, path))


def import_file(path: str) -> ModuleType:
    """Import the module at ``path`` under a name unique to that path."""
    stem = os.path.splitext(os.path.basename(path))[0]
    digest = format(zlib.crc32(os.path.dirname(path).encode()), "08x")
    name = f"hearth_plugin_dir_{digest}.{stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _loaded(plugin: Any) -> Any:
    """Return an entry point's plug-in (stevedore loaded it already)."""
    return plugin


def entry_point_sources(group: str, failures: list[exception.HearthException]
                        ) -> Iterator[PluginSource]:
    """Yield one source per entry point of ``group`` (loaded through stevedore)."""
    def on_failure(manager: Any, entry_point: Any, error: BaseException) -> None:
        failures.append(exception.PluginLoadError(
            module=f"{entry_point.name} ({entry_point.value})",
            reason=f"{type(error).__name__}: {error}"))
        LOG.warning("%s", failures[-1])
        LOG.debug("Entry point %s failed to load", entry_point.name, exc_info=True)

    manager = extension.ExtensionManager(group, invoke_on_load=False,
                                         on_load_failure_callback=on_failure)
    for ext in manager:
        name = f"{ext.name} ({ext.entry_point.value})"
        yield PluginSource(name, functools.partial(_loaded, ext.plugin))

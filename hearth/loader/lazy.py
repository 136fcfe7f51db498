"""The loader: a lazy, read-only mapping of ``module.function`` to callables.

Looking up ``mod.fun`` first imports every source of the configured module
directories (they may override a built-in under its virtual name), then the
built-in source whose file name is ``mod`` (a built-in's file name is its
virtual name, so no unrelated module is ever imported to find one).  Each
source goes through the same steps: import (:mod:`.importing`), inject the
family's dunders (:mod:`.dunders`), ``__init__``/``__virtual__``
(:mod:`.virtual`), export selection (:mod:`.exports`), then
:meth:`Loader._register`.  A module that fails any step is kept with its
reason, an exception object shown when one of its functions is asked for.
"""

from __future__ import annotations

import importlib
import itertools
import logging
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from hearth.common import exception
from hearth.loader import dunders, importing
from hearth.loader.discovery import ModuleSource, discover
from hearth.loader.exports import LoadedFunction, exported_functions
from hearth.loader.family import ModuleFamily
from hearth.loader.virtual import run_init, virtual_name

LOG = logging.getLogger(__name__)

_LOADER_NUMBERS = itertools.count()


@dataclass(frozen=True)
class LoadedModule:
    """A module registered under its virtual name."""

    name: str
    source: ModuleSource
    module: ModuleType
    functions: tuple[str, ...]


class _ModuleView:
    """Attribute-style cross calls: ``__salt__.test.ping()``."""

    def __init__(self, loader: Loader, module: str) -> None:
        self._loader = loader
        self._module = module

    def __getattr__(self, function: str) -> Callable[..., Any]:
        return self._loader[f"{self._module}.{function}"]


class Loader(Mapping[str, Callable[..., Any]]):
    """Load the modules of one family lazily and hand out their functions.

    ``opts`` is the configuration the modules see as ``__opts__`` (the
    family's ``dirs_option`` key, ``module_dirs`` for execution modules, and
    ``enable_zip_modules`` choose the extra sources); ``pack`` holds the
    other dunders (``__grains__``, ``__pillar__``).  ``context`` is the
    ``__context__`` dict shared by the modules (a fresh dict by default).
    ``sources`` replaces discovery (a test seam).
    """

    def __init__(self, family: ModuleFamily, opts: Mapping[str, Any] | None = None,
                 pack: Mapping[str, Any] | None = None,
                 sources: Sequence[ModuleSource] | None = None,
                 context: dict[str, Any] | None = None) -> None:
        self.family = family
        self.opts = dict(opts or {})
        self.pack = dict(pack or {})
        self.context: dict[str, Any] = context if context is not None else {}
        self._given_sources = list(sources) if sources is not None else None
        self._namespace = f"hearth.loaded.{family.name}{next(_LOADER_NUMBERS)}"
        # Jobs run on several threads: loading is serialized, so a thread never sees a
        # module half-loaded by another (taken from the pending list, not yet registered).
        self._lock = threading.RLock()
        self._reset()

    # --- state ---------------------------------------------------------------

    def _reset(self) -> None:
        self._sources = (self._given_sources if self._given_sources is not None
                         else self._discover())
        self._pending = list(self._sources)
        self._externals_loaded = False
        self._functions: dict[str, LoadedFunction] = {}
        self._modules: dict[str, LoadedModule] = {}
        self._failures: dict[str, exception.HearthException] = {}
        self._failed_virtual: dict[str, exception.HearthException] = {}

    def _discover(self) -> list[ModuleSource]:
        package = importlib.import_module(self.family.builtin_package)
        return discover(list(package.__path__),
                        list(self.opts.get(self.family.dirs_option) or ()),
                        bool(self.opts.get("enable_zip_modules")))

    def refresh(self) -> None:
        """Forget every module and re-discover: refused modules are evaluated afresh.

        ``__context__`` is cleared, as Salt's module refresh does.
        """
        with self._lock:
            importing.forget(self._namespace)
            self.context.clear()
            self._reset()

    # --- loading -------------------------------------------------------------

    def _load_pending(self, wanted: Callable[[ModuleSource], bool]) -> None:
        chosen = [source for source in self._pending if wanted(source)]
        self._pending = [source for source in self._pending if not wanted(source)]
        for source in chosen:
            self._load_source(source)

    def _load_named(self, name: str) -> None:
        if not self._externals_loaded:
            self._externals_loaded = True
            self._load_pending(lambda source: source.origin == "ext")
        self._load_pending(lambda source: source.name == name)

    def load_all(self) -> None:
        """Load every source not loaded yet (listings need them all)."""
        with self._lock:
            self._externals_loaded = True
            self._load_pending(lambda source: True)

    def _dunder_values(self, module: ModuleType) -> dict[str, Any]:
        values: dict[str, Any] = {"__context__": self.context, **self.pack,
                                  "__opts__": dunders.module_opts(module, self.opts)}
        if self.family.self_dunder:
            values[self.family.self_dunder] = self
        return values

    def _load_source(self, source: ModuleSource) -> None:
        fullname = f"{self._namespace}.{source.origin}{source.rank}.{source.name}"
        module = None
        try:
            module = importing.import_source(source, fullname)
            dunders.inject(module, self.family, self._dunder_values(module))
            run_init(module, source.name, module.__dict__.get("__opts__", self.opts))
            virtual = virtual_name(module, source.name)
        except exception.ModuleNotAvailable as error:
            self._record_failure(source, module, error)
            return
        self._register(source, module, virtual, exported_functions(module, virtual))

    def _record_failure(self, source: ModuleSource, module: ModuleType | None,
                        error: exception.ModuleNotAvailable) -> None:
        LOG.debug("%s module %s not loaded: %s", self.family.name, source.name, error)
        self._failures[source.name] = error
        static = getattr(module, "__virtualname__", None) if module is not None else None
        if static:
            self._failed_virtual[static] = error

    def _register(self, source: ModuleSource, module: ModuleType, virtual: str,
                  functions: dict[str, LoadedFunction]) -> None:
        """Register ``functions`` under ``virtual``; the higher-ranked source wins."""
        existing = self._modules.get(virtual)
        if existing is not None:
            if existing.source.rank > source.rank:
                LOG.debug("module %s (%s) is overridden by %s", source.name, virtual,
                          existing.source.path)
                return
            for key in existing.functions:
                self._functions.pop(key, None)
        self._modules[virtual] = LoadedModule(virtual, source, module, tuple(functions))
        self._functions.update(functions)

    # --- lookups -------------------------------------------------------------

    def function(self, key: str) -> LoadedFunction:
        """Return the record of ``key`` (``module.function``), loading as needed.

        Raises :class:`~hearth.common.exception.ModuleNotAvailable` with the
        module's reason when it was refused or failed to import, otherwise
        :class:`~hearth.common.exception.FunctionNotFound`.
        """
        found = self._functions.get(key)
        if found is None:
            with self._lock:
                self._load_named(key.partition(".")[0])
                found = self._functions.get(key)
            if found is None:
                raise self.missing_reason(key)
        return found

    def missing_reason(self, key: str) -> exception.HearthException:
        """Return the error that explains why ``key`` is not available."""
        module_name = key.partition(".")[0]
        if module_name not in self._modules:
            reason = self._failed_virtual.get(module_name) or self._failures.get(module_name)
            if reason is not None:
                return reason
        return exception.FunctionNotFound(name=key)

    def __getitem__(self, key: str) -> Callable[..., Any]:
        return self.function(key).function

    def __contains__(self, key: object) -> bool:
        try:
            self.function(str(key))
        except exception.HearthException:
            return False
        return True

    def get(self, key: str, default: Any = None) -> Any:
        """Return the function ``key`` or ``default`` when it is not available."""
        try:
            return self.function(key).function
        except exception.HearthException:
            return default

    def __iter__(self) -> Iterator[str]:
        self.load_all()
        return iter(sorted(self._functions))

    def __len__(self) -> int:
        self.load_all()
        return len(self._functions)

    def __getattr__(self, name: str) -> _ModuleView:
        if name.startswith("_"):
            raise AttributeError(name)
        return _ModuleView(self, name)

    def call(self, key: str, *args: Any, **kwargs: Any) -> Any:
        """Call ``key`` with the arguments and return what it returns."""
        return self[key](*args, **kwargs)

    @property
    def modules(self) -> dict[str, LoadedModule]:
        """Return the loaded modules by virtual name (after loading them all)."""
        self.load_all()
        return dict(sorted(self._modules.items()))

    @property
    def failures(self) -> dict[str, exception.HearthException]:
        """Return the reason of every module that did not load, by file name."""
        self.load_all()
        return dict(sorted(self._failures.items()))

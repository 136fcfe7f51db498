"""Module families: the small config records the loader reads.

A family says where its built-in modules live, which dunders its modules
receive and under which dunder the loader hands itself to its own modules
(execution modules get it as ``__salt__`` for cross calls).  The loader never
branches on a family's name: a new family (cloud drivers, ext_pillar) is a
new record here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModuleFamily:
    """Describe one kind of loadable module.

    ``builtin_package`` is the dotted name of the package holding the
    built-in modules; each built-in's file name is its virtual name, so a
    lookup by name finds it without importing its siblings.
    ``dunders`` lists the names injected into every module of the family;
    ``self_dunder`` is the one among them bound to the loader itself.
    ``dirs_option`` is the key of ``__opts__`` listing the family's extra
    directories (searched after the built-ins).
    """

    name: str
    builtin_package: str
    dunders: tuple[str, ...]
    self_dunder: str | None = None
    dirs_option: str = "module_dirs"


EXECUTION = ModuleFamily(
    name="execution",
    builtin_package="hearth.modules",
    dunders=("__salt__", "__opts__", "__grains__", "__pillar__", "__context__"),
    self_dunder="__salt__",
)

CLOUD = ModuleFamily(
    name="clouds",
    builtin_package="hearth.clouds.drivers",
    dunders=("__opts__", "__active_provider_name__", "__utils__", "__context__"),
    dirs_option="cloud_dirs",
)

PILLAR = ModuleFamily(
    name="pillar",
    builtin_package="hearth.ext_pillar",
    dunders=("__salt__", "__opts__", "__grains__", "__pillar__", "__context__",
             "__ext_pillar__"),
    self_dunder="__ext_pillar__",
    dirs_option="pillar_dirs",
)

"""Salt Cloud map files: which nodes to make from which profiles, in which order.

A map is ``profile: [name, {name: {overrides...}}, ...]``.  Overrides may
set any profile key, and ``requires: [other, ...]`` makes a node wait for
the named nodes of the same map (Salt's ordering inside a map).  Nodes
are created in *waves*: each wave holds the nodes whose requirements are
all made; with ``parallel`` a wave's nodes are created at once.  Nodes that
already exist are left alone, so running a map again makes only what is
missing.
"""

from __future__ import annotations

import graphlib
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from hearth.clouds import config
from hearth.common import exception


@dataclass(frozen=True)
class MapEntry:
    """One node of a map: its name, profile, overrides and requirements."""

    name: str
    profile: str
    overrides: dict[str, Any] = field(default_factory=dict)
    requires: tuple[str, ...] = ()


def _entry(path: str, profile: str, item: Any) -> MapEntry:
    if isinstance(item, str):
        return MapEntry(item, profile)
    if isinstance(item, Mapping) and len(item) == 1:
        name, overrides = next(iter(item.items()))
        overrides = dict(overrides or {})
        requires = overrides.pop("requires", None) or ()
        requires = (requires,) if isinstance(requires, str) else tuple(map(str, requires))
        return MapEntry(str(name), profile, overrides, requires)
    raise exception.CloudConfigError(f"{path}: profile '{profile}': each node is a name or "
                                     f"'name: {{overrides}}', not {item!r}")


def read_map(path: str) -> list[MapEntry]:
    """Return the nodes of the map file ``path``; duplicates and unknown requirements are errors."""
    entries: list[MapEntry] = []
    for profile, items in config.read_yaml(path).items():
        if not isinstance(items, list):
            raise exception.CloudConfigError(f"{path}: profile '{profile}' must list its nodes")
        entries += [_entry(path, str(profile), item) for item in items]
    names = [entry.name for entry in entries]
    for entry in entries:
        if names.count(entry.name) > 1:
            raise exception.CloudConfigError(f"{path}: node '{entry.name}' is listed twice")
        for required in entry.requires:
            if required not in names:
                raise exception.CloudConfigError(
                    f"{path}: node '{entry.name}' requires '{required}', which the map does "
                    f"not list.{exception.did_you_mean(required, names)}")
    return entries


def creation_waves(entries: Sequence[MapEntry]) -> list[list[MapEntry]]:
    """Return the entries in waves: each needs only nodes of earlier waves."""
    by_name = {entry.name: entry for entry in entries}
    sorter = graphlib.TopologicalSorter({e.name: e.requires for e in entries})
    try:
        sorter.prepare()
    except graphlib.CycleError as error:
        cycle = " -> ".join(error.args[1])
        raise exception.CloudConfigError(f"The map's requires form a cycle: {cycle}") from error
    waves = []
    while sorter.is_active():
        ready = sorted(sorter.get_ready())
        waves.append([by_name[name] for name in ready])
        sorter.done(*ready)
    return waves


def existing_nodes(cloud: Any) -> set[str]:
    """Return the names of every node of every provider."""
    return {name for drivers in cloud.query("list_nodes").values()
            for nodes in drivers.values() for name in nodes}


def run_map(cloud: Any, entries: Sequence[MapEntry], parallel: bool = False) -> dict[str, Any]:
    """Create the map's missing nodes wave by wave; answer ``{name: node}``.

    A node that already exists answers ``{"exists": True}``; a wave's failure
    stops the map after that wave (its error is raised).
    """
    present = existing_nodes(cloud)
    answer: dict[str, Any] = {}
    for wave in creation_waves(entries):
        todo = [e for e in wave if e.name not in present]
        answer.update({e.name: {"exists": True} for e in wave if e.name in present})
        vms = [cloud.profile_vm(e.profile, e.name, e.overrides) for e in todo]
        if parallel and len(vms) > 1:
            for vm_ in vms:  # load each driver before the threads share the client
                cloud.driver_function(*cloud.resolve(vm_["driver"]), "create")
            with ThreadPoolExecutor(max_workers=len(vms)) as pool:
                made = list(pool.map(cloud.create, vms))
        else:
            made = [cloud.create(vm_) for vm_ in vms]
        answer.update({vm_["name"]: node for vm_, node in zip(vms, made, strict=True)})
    return answer


def destroy_map(cloud: Any, entries: Sequence[MapEntry]) -> dict[str, Any]:
    """Destroy every node of the map that exists, later waves first."""
    present = existing_nodes(cloud)
    order = [e.name for wave in reversed(creation_waves(entries)) for e in wave
             if e.name in present]
    return cloud.destroy(order) if order else {}

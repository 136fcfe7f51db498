"""The nested stack tree of the nested-reads tests, and what every path must show of it.

``parent.yaml`` (with ``env.yaml``) makes::

    par: top, stk (OS::Heat::Stack of inner.yaml), prov (mid.yaml), reg (My::Inner)
      stk -> leaf            prov -> deep (inner.yaml) -> leaf, mnone      reg -> leaf
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
PARENT = str(HERE / "parent.yaml")
ENV = str(HERE / "env.yaml")

#: (holder path, resource) of ``resource-list --nested-depth 2`` in Heat's order: the
#: stack's own resources, then each holder's nested stack, depth first
RESOURCES_DEPTH_2 = [("", "top"), ("", "stk"), ("", "prov"), ("", "reg"),
                     ("stk", "leaf"), ("prov", "deep"), ("prov", "mnone"),
                     ("prov.deep", "leaf"), ("reg", "leaf")]
RESOURCES_DEPTH_1 = [item for item in RESOURCES_DEPTH_2 if item[0] != "prov.deep"]
#: the resources holding a nested stack
HOLDERS = {"stk", "prov", "reg", "deep"}


def holder_paths(resources: list[dict[str, Any]], stacks: list[dict[str, Any]],
                 root: str = "par") -> dict[str, str]:
    """Return ``{stack name: holder path}``.

    ``resources`` is a nested resource listing (holders before their
    stack's resources, as Heat lists them), ``stacks`` a ``show_nested``
    stack listing (the names of the nested stacks by id).
    """
    names = {stack["id"]: stack["stack_name"] for stack in stacks}
    paths = {root: ""}
    for item in resources:
        nested = names.get(item["physical_resource_id"])
        if nested:
            prefix = paths[item["stack_name"]]
            paths[nested] = f"{prefix}.{item['resource_name']}" if prefix \
                else item["resource_name"]
    return paths


def listed(resources: list[dict[str, Any]], stacks: list[dict[str, Any]],
           root: str = "par") -> list[tuple[str, str]]:
    """Return ``(holder path, resource)`` of a nested resource listing."""
    paths = holder_paths(resources, stacks, root)
    return [(paths[item["stack_name"]], item["resource_name"]) for item in resources]

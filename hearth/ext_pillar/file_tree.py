"""ext_pillar file_tree: a directory tree as pillar data, as Salt's.

``<root_dir>/hosts/<agent id>/a/b`` holding ``x`` gives ``{a: {b: "x"}}``;
``<root_dir>/nodegroups/<group>/...`` applies to the agents of that
nodegroup (host data wins).  A file's last newline is dropped unless
``keep_newline`` is True or a list of globs matching its path (relative to
the host or nodegroup directory, ``./name`` at its top, as Salt).  With
``template: True`` each file is rendered with Jinja then YAML first.

Values are text (Salt gives bytes); bytes that are not UTF-8 are kept with
replacement characters.  A relative ``root_dir`` is taken under each of the
pillarenv's roots.  A missing ``root_dir`` is an error (Salt logs it and
returns nothing); a missing host directory is not.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Mapping, Sequence
from typing import Any

from hearth.common.exception import CommandExecutionError
from hearth.pillar.merge import merge_recurse
from hearth.pillar.render import render_text
from hearth.pillar.top import TopEntry, target_matches


def _strip_newline(relative: str, keep_newline: bool | Sequence[str]) -> bool:
    if isinstance(keep_newline, bool):
        return not keep_newline
    return not any(fnmatch.fnmatch(relative, pattern) for pattern in keep_newline)


def _value(path: str, relative: str, keep_newline: Any, template: bool) -> Any:
    with open(path, "rb") as stream:
        contents = stream.read()
    if contents.endswith(b"\n") and _strip_newline(relative, keep_newline):
        contents = contents[:-1]
    text = contents.decode("utf-8", errors="replace")
    if template:

        return render_text(text, [os.path.dirname(path)],
                           {"grains": __grains__, "opts": __opts__,  # noqa: F821
                            "pillar": __pillar__})  # noqa: F821
    return text


def tree(top: str, follow_dir_links: bool, keep_newline: Any, template: bool) -> dict[str, Any]:
    """Return the pillar data of one directory tree."""
    data: dict[str, Any] = {}
    for directory, subdirs, names in os.walk(top, followlinks=follow_dir_links):
        relative = os.path.relpath(directory, top)
        node = data
        for part in [] if relative == "." else relative.split(os.sep):
            node = node.setdefault(part, {})
        for subdir in sorted(subdirs):
            node.setdefault(subdir, {})
        for name in sorted(names):
            path = os.path.join(directory, name)
            if os.path.isfile(path):
                node[name] = _value(path, os.path.join(relative, name), keep_newline, template)
    return data


def _nodegroup_data(minion_id: str, root: str, options: tuple[Any, ...]) -> dict[str, Any]:
    groups_dir = os.path.join(root, "nodegroups")
    groups = __opts__.get("nodegroups") or {}  # noqa: F821
    if not os.path.isdir(groups_dir) or not isinstance(groups, Mapping):
        return {}

    data: dict[str, Any] = {}
    for group in sorted(os.listdir(groups_dir)):
        entry = TopEntry(group, match="nodegroup")
        if group in groups and target_matches(entry, minion_id, __grains__, {}, groups):  # noqa: F821
            data = merge_recurse(data, tree(os.path.join(groups_dir, group), *options))
    return data


def _roots(root_dir: str) -> list[str]:
    if os.path.isabs(root_dir):
        return [root_dir]
    env = __opts__.get("pillarenv")  # noqa: F821
    roots = (__opts__.get("pillar_roots") or {}).get(env) if env else None  # noqa: F821
    if not roots:
        raise CommandExecutionError(
            f"file_tree: root_dir {root_dir!r} is relative but no pillarenv with "
            "pillar_roots is set")
    return [os.path.normpath(os.path.join(root, root_dir)) for root in roots]


def ext_pillar(minion_id: str, pillar: Any, root_dir: str | None = None,
               follow_dir_links: bool = False, debug: bool = False,
               keep_newline: bool | list[str] = False, render_default: Any = None,
               renderer_blacklist: Any = None, renderer_whitelist: Any = None,
               template: bool = False) -> dict[str, Any]:
    """Return the data of ``<root_dir>/nodegroups/*`` and ``<root_dir>/hosts/<minion_id>``."""
    if not root_dir:
        raise CommandExecutionError("file_tree: no root_dir specified")
    if not isinstance(keep_newline, (bool, list)):
        raise CommandExecutionError(
            "file_tree: keep_newline must be either True/False or a list of file globs")
    options = (bool(follow_dir_links), keep_newline, bool(template))
    result: dict[str, Any] = {}
    for root in _roots(root_dir):
        if not os.path.isdir(root):
            raise CommandExecutionError(
                f"file_tree: root_dir {root} does not exist or is not a directory")
        data = _nodegroup_data(minion_id, root, options)
        host_dir = os.path.join(root, "hosts", minion_id)
        if os.path.isdir(host_dir):
            data = merge_recurse(data, tree(host_dir, *options))
        result = merge_recurse(result, data)
    return result

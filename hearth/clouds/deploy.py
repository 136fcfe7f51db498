"""The deploy step: putting an agent on a new node (Salt Cloud's bootstrap).

``deploy: False`` is the default of every shipped driver except ``local``
(whose nodes are agents from the start), so :func:`bootstrap` returns at
once.  With ``deploy: True`` the profile names a *deploy hook*, the
extension point: ``deploy_hook: package.module:function``, called as
``function(vm_, opts)`` after the ``deploying`` event, returning a dict
merged into the node's answer.  Hearth ships no SSH deployer (no host is
reachable from its tests); a site plugs its own in here.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from hearth.common import exception


def deploy_wanted(vm_: Mapping[str, Any], default: bool = False) -> bool:
    """Return whether ``vm_`` asks for the deploy step."""
    value = vm_.get("deploy", default)
    return value if isinstance(value, bool) else str(value).lower() in ("1", "true", "yes")


def load_hook(reference: str) -> Any:
    """Return the callable named ``package.module:function``."""
    module_name, _, attribute = str(reference).partition(":")
    if not module_name or not attribute:
        raise exception.CloudConfigError(
            f"deploy_hook {reference!r}: expected 'package.module:function'")
    try:
        return getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as error:
        raise exception.CloudConfigError(f"deploy_hook {reference!r} cannot be loaded: "
                                         f"{error}") from error


def bootstrap(vm_: Mapping[str, Any], opts: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Run the deploy step of ``vm_``; return what it reports (``{'deployed': False}`` when off)."""
    from hearth.clouds import utils

    if not deploy_wanted(vm_):
        return {"deployed": False}
    hook = vm_.get("deploy_hook")
    if not hook:
        raise exception.CloudSystemExit(
            f"{vm_.get('name')}: deploy is on but no deploy_hook is configured; Hearth ships "
            "no SSH deployer. Set 'deploy: False' or 'deploy_hook: package.module:function'.")
    function = load_hook(hook)
    utils.cloud_event(vm_["name"], "deploying",
                      {"name": vm_["name"], "host": vm_.get("ssh_host")}, opts,
                      "executing deploy hook")
    result = function(dict(vm_), dict(opts or {}))
    return {"deployed": True, **(result if isinstance(result, Mapping) else {})}


def render_script(vm_: Mapping[str, Any], opts: Mapping[str, Any] | None = None) -> str:
    """Return the deploy script ``vm_['script']`` rendered with Jinja (``vm`` in scope).

    A relative name is looked up in ``<config_dir>/deploy.d``; no script
    gives an empty string.
    """
    import os

    import jinja2

    name = vm_.get("script")
    if not name:
        return ""
    path = name if os.path.isabs(name) else os.path.join(
        (opts or {}).get("config_dir") or ".", "deploy.d", name)
    try:
        with open(path, encoding="utf-8") as stream:
            source = stream.read()
    except OSError as error:
        raise exception.CloudConfigError(f"deploy script {path}: {error.strerror}") from error
    return jinja2.Template(source).render(vm=dict(vm_))

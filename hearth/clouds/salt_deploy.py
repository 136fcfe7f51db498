"""The deploy helpers of ``salt.utils.cloud`` that Salt's drivers call, over Hearth's deploy.

A Salt driver's ``script(vm_)`` renders its deploy script with
:func:`os_script`, :func:`salt_config_to_yaml` and :func:`minion_config`;
its ``create`` may wait for SSH (:func:`wait_for_port`), choose the address
to deploy to (:func:`get_salt_interface`), render its user data
(:func:`userdata_template`) and forget a host key (:func:`remove_sshkey`).
Each answers as Salt's does, with Hearth's agent standing for the minion.
"""

from __future__ import annotations

import logging
import subprocess
from collections.abc import Mapping
from typing import Any

import yaml

from hearth.clouds import agent_files, config, ssh
from hearth.common import exception

LOG = logging.getLogger(__name__)


def minion_config(opts: Mapping[str, Any], vm_: Mapping[str, Any]) -> dict[str, Any]:
    """Return the agent configuration of node ``vm_``: its id, ``agent``/``minion``, grains.

    ``master_finger`` is added when configured; the options merge from the
    global options to the node's own, as Salt's minion configuration.
    """
    agent: dict[str, Any] = {"id": vm_["name"]}
    finger = config.get_cloud_config_value("master_finger", vm_, opts)
    if finger is not None:
        agent["master_finger"] = finger
    for key in ("minion", "agent"):
        agent.update(config.get_cloud_config_value(key, vm_, opts, default={}) or {})
    grains = config.get_cloud_config_value("grains", vm_, opts, default={}) or {}
    agent.setdefault("grains", {}).update(grains)
    return agent


def salt_config_to_yaml(configuration: Mapping[str, Any], line_break: str = "\n") -> str:
    """Return a configuration mapping as YAML (block style)."""
    return yaml.safe_dump(dict(configuration), line_break=line_break, default_flow_style=False)


def os_script(os_: str, vm_: Mapping[str, Any] | None = None,
              opts: Mapping[str, Any] | None = None, minion: Any = "") -> str:
    """Return the deploy script ``os_`` rendered for ``vm_`` (Hearth's deploy.d lookup)."""
    if not os_:
        return ""
    return agent_files.render_script({**dict(vm_ or {}), "script": os_}, opts,
                                     minion=minion)


def get_salt_interface(vm_: Mapping[str, Any], opts: Mapping[str, Any]) -> str:
    """Return which addresses the agent is reached on: ``public_ips`` or ``private_ips``."""
    chosen = config.get_cloud_config_value("salt_interface", vm_, opts, default=False,
                                           search_global=False)
    if chosen is False:
        chosen = config.get_cloud_config_value("ssh_interface", vm_, opts,
                                               default="public_ips", search_global=False)
    return str(chosen)


def wait_for_port(host: str, port: int = 22, timeout: float = 900, gateway: Any = None,
                  **_: Any) -> bool:
    """Return True once ``host:port`` accepts connections, False after ``timeout`` seconds."""
    try:
        ssh.wait_for_port(host, int(port), float(timeout), gateway)
    except exception.CloudExecutionTimeout as error:
        LOG.debug("%s", error)
        return False
    return True


def userdata_template(opts: Mapping[str, Any], vm_: Mapping[str, Any],
                      userdata: str | None) -> str | None:
    """Return ``userdata`` rendered by the ``userdata_template`` renderer (``jinja``).

    No renderer configured (or ``false``) leaves the text as it is; the
    template sees the options and the node's settings.
    """
    if userdata is None:
        return None
    renderer = config.get_cloud_config_value("userdata_template", vm_, opts,
                                             search_global=False)
    if renderer is None:
        renderer = opts.get("userdata_template")
    if renderer in (None, False):
        return userdata
    if str(renderer) != "jinja":
        raise exception.CloudConfigError(
            f"userdata_template: Hearth renders user data with 'jinja' only, not {renderer!r}")
    # lazy: jinja2 only for user data rendered as a template (the engine loads this at start)
    import jinja2

    try:
        return jinja2.Template(userdata).render(**{**dict(opts), **dict(vm_)})
    except jinja2.TemplateError as error:
        raise exception.CloudConfigError(f"{vm_.get('name')}: user data template: "
                                         f"{error}") from error


def remove_sshkey(host: str, known_hosts: str | None = None) -> None:
    """Forget ``host``'s key in ``known_hosts`` (``ssh-keygen -R``), as Salt's destroy does."""
    command = ["ssh-keygen", "-R", host]
    if known_hosts:
        command += ["-f", known_hosts]
    try:
        subprocess.run(command, capture_output=True, check=False, timeout=30)
    except OSError as error:
        LOG.warning("cannot forget the SSH key of %s: %s", host, error)

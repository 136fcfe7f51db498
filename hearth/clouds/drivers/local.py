"""The ``local`` driver: every node is a real hearth-agent process on this machine.

Provider configuration::

    local:
      driver: local
      master_config: /etc/hearth/master.conf  # the master's config (default: Hearth's own)
      nodes_dir: /var/lib/hearth/nodes         # default: <state_path>/cloud/local/<alias>
      agent: {ping_interval: 0.5}              # [agent] options of every node

Profiles (or a server's properties) may add ``agent:`` options and
``grains:`` (the agent's static grains; every node also gets the grain
``hearth-cloud: {driver, provider, profile}``, as Salt Cloud's
``salt-cloud`` grain).  The grains are also recorded at the master, as
what it holds true about the agent (pillar targets match those); a
``recorded_grains`` map in ``vm_`` (Hearth::Cloud::Server sets it) records
only those (and ``hearth-cloud``) instead.  Creating a node is Salt Cloud's create plus its
deploy step with preseeded keys (:mod:`hearth.clouds.local_nodes`); the
node counts as running once its agent answers ``test.ping`` through the
master.  ``stop`` terminates the agent and ``start`` runs it again; the
node keeps its directory and key meanwhile.  ``image`` and ``size`` are
recorded only.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from hearth.clouds import config
from hearth.clouds import utils as cloud_utils
from hearth.clouds.agent_master import recorded_grains_of
from hearth.clouds.local_nodes import AGENT_PROGRAM, LocalSite, master_settings
from hearth.common import exception

__virtualname__ = "local"
__opts__: dict[str, Any] = {}
__active_provider_name__: str | None = None
__utils__: dict[str, Any] = {}
__context__: dict[str, Any] = {}


def __virtual__() -> Any:
    """Load when hearth-agent is installed and the master's keys are readable."""
    if not get_dependencies():
        return False, f"hearth-agent is not installed ({AGENT_PROGRAM} is missing)"
    if not get_configured_provider():
        return False, f"the provider {_provider()} is not configured"
    try:
        site = _site()
    except exception.HearthException as error:
        return False, str(error)
    master_key = os.path.join(site.master.pki_dir, "master.key")
    if not os.path.isfile(master_key):
        return False, (f"the master's public key {master_key} is missing: has hearth-master "
                       "run with this configuration?")
    return __virtualname__


def get_configured_provider() -> Any:
    """Return the provider's configuration, or False when it has none."""
    return config.is_provider_configured(__opts__, _provider(), ())


def get_dependencies() -> bool:
    """Return whether the hearth-agent program is installed."""
    return config.check_driver_dependencies(
        __virtualname__, {"hearth-agent": os.access(AGENT_PROGRAM, os.X_OK)})


def _provider() -> str:
    return __active_provider_name__ or __virtualname__


def _site() -> LocalSite:
    """Return the nodes' site of this provider (made once per loader)."""
    if "site" not in __context__:
        conf = get_configured_provider()
        alias = _provider().partition(":")[0]
        nodes_dir = conf.get("nodes_dir") or os.path.join(
            __opts__.get("state_path") or ".", "cloud", "local", alias)
        __context__["site"] = LocalSite(nodes_dir, master_settings(conf.get("master_config")),
                                        dict(conf.get("agent") or {}))
    return __context__["site"]


def _describe(site: LocalSite, name: str) -> dict[str, Any]:
    record = site.read_node(name)
    process = site.process(name)
    node = cloud_utils.node_record(record["id"], record["image"], record["size"],
                                   site.state(name, record), ["127.0.0.1"], [])
    return {**node, "name": name, "agent_id": name, "pid": process.pid if process else None,
            "root_dir": os.path.join(site.node_dir(name), "root"),
            "created": record["created"]}


def _wait_answering(site: LocalSite, vm_: Mapping[str, Any], name: str) -> None:
    def answered() -> Any:
        if site.process(name) is None:
            return False
        return True if site.answers(name) else None

    cloud_utils.wait_for_ip(
        answered, timeout=config.get_cloud_config_value("wait_for_ip_timeout", vm_, __opts__, 60),
        interval=config.get_cloud_config_value("wait_for_ip_interval", vm_, __opts__, 0.2),
        max_failures=3)


def _check_choice(kind: str, wanted: Any, available: Mapping[str, Any]) -> None:
    if wanted is not None and str(wanted) not in available:
        raise exception.CloudSystemExit(f"The specified {kind}, '{wanted}', could not be found "
                                        f"(available: {', '.join(available)}).")


# --- create and destroy ------------------------------------------------------------

def create(vm_: Mapping[str, Any]) -> dict[str, Any]:
    """Make node ``vm_['name']``: preseed its key, start its agent, wait until it answers."""
    name = vm_["name"]
    cloud_utils.check_name(name, "A-Za-z0-9_.@-")
    site = _site()
    if site.exists(name):
        raise exception.CloudNodeExists(name, _provider())
    site.remove(name)  # what a create that crashed before its record may have left
    cloud_utils.cloud_event(name, "creating", {**vm_, "provider": _provider()}, __opts__,
                            "starting create")
    _check_choice("image", vm_.get("image"), avail_images("function"))
    _check_choice("size", vm_.get("size"), avail_sizes("function"))
    cloud_utils.cloud_event(name, "requesting", {"name": name, "image": vm_.get("image"),
                                                 "size": vm_.get("size")}, __opts__)
    grains = {**(config.get_cloud_config_value("grains", vm_, __opts__) or {}),
              "hearth-cloud": {"driver": _provider(), "provider": _provider(),
                               "profile": vm_.get("profile")}}
    agent = config.get_cloud_config_value("agent", vm_, __opts__) or {}
    cloud_utils.cloud_event(name, "deploying", {"name": name, "host": "127.0.0.1"}, __opts__,
                            "preseeding keys and starting hearth-agent")
    recorded = recorded_grains_of({**vm_, "grains": grains})
    site.prepare(name, vm_.get("image"), vm_.get("size"), agent, grains, recorded)
    pid = site.start(name)
    cloud_utils.cloud_event(name, "querying", {"instance_id": pid}, __opts__,
                            "waiting for the agent to answer")
    _wait_answering(site, vm_, name)
    cloud_utils.cloud_event(name, "created", {**vm_, "provider": _provider(),
                                              "instance_id": name}, __opts__, "created instance")
    return {**_describe(site, name), "deployed": True}


def destroy(name: str, call: str | None = None) -> bool:
    """Stop node ``name``'s agent, delete its key and its directory."""
    cloud_utils.require_action("destroy", call)
    site = _site()
    site.read_node(name)
    cloud_utils.cloud_event(name, "destroying", {"name": name, "instance_id": name}, __opts__,
                            "destroying instance")
    site.remove(name)
    cloud_utils.cloud_event(name, "destroyed", {"name": name, "instance_id": name}, __opts__,
                            "destroyed instance")
    return True


# --- queries -----------------------------------------------------------------------

def list_nodes(call: str | None = None) -> dict[str, dict[str, Any]]:
    """Return ``{name: {id, image, size, state, private_ips, public_ips}}``."""
    cloud_utils.require_function("list_nodes", call)
    return cloud_utils.basic_nodes(list_nodes_full("function"))


def list_nodes_full(call: str | None = None) -> dict[str, dict[str, Any]]:
    """Return every node with its pid, agent id and root directory."""
    cloud_utils.require_function("list_nodes_full", call)
    site = _site()
    return {name: _describe(site, name) for name in site.names()}


def list_nodes_select(call: str | None = None) -> dict[str, dict[str, Any]]:
    """Return the fields of ``query.selection`` of every node."""
    return cloud_utils.list_nodes_select(list_nodes_full("function"),
                                         __opts__.get("query.selection"), call)


def show_instance(name: str, call: str | None = None) -> dict[str, Any]:
    """Return every field of node ``name``."""
    cloud_utils.require_action("show_instance", call)
    return _describe(_site(), name)


def avail_images(call: str | None = None) -> dict[str, dict[str, Any]]:
    """Return the one image: hearth-agent."""
    cloud_utils.require_function("avail_images", call)
    return {"hearth-agent": {"id": "hearth-agent", "name": "hearth-agent",
                             "program": AGENT_PROGRAM}}


def avail_sizes(call: str | None = None) -> dict[str, dict[str, Any]]:
    """Return the one size: default (a process has no size)."""
    cloud_utils.require_function("avail_sizes", call)
    return {"default": {"id": "default", "name": "default"}}


def avail_locations(call: str | None = None) -> dict[str, dict[str, Any]]:
    """Return the one location: this machine."""
    cloud_utils.require_function("avail_locations", call)
    return {"localhost": {"id": "localhost", "name": "localhost"}}


# --- actions -----------------------------------------------------------------------

def stop(name: str, call: str | None = None) -> dict[str, Any]:
    """Terminate node ``name``'s agent (its directory and key stay)."""
    cloud_utils.require_action("stop", call)
    site = _site()
    site.read_node(name)
    cloud_utils.cloud_event(name, "stopping", {"name": name, "instance_id": name}, __opts__)
    site.mark(name, stopped=True)
    site.stop(name)
    return {"name": name, "action": "stop", "state": "STOPPED", "success": True}


def start(name: str, call: str | None = None) -> dict[str, Any]:
    """Run node ``name``'s agent again and wait until it answers."""
    cloud_utils.require_action("start", call)
    site = _site()
    site.read_node(name)
    cloud_utils.cloud_event(name, "starting", {"name": name, "instance_id": name}, __opts__)
    if site.process(name) is None:
        site.start(name)
    site.mark(name, stopped=False)
    _wait_answering(site, {"name": name}, name)
    return {"name": name, "action": "start", "state": "RUNNING", "success": True}


def reboot(name: str, call: str | None = None) -> dict[str, Any]:
    """Restart node ``name``'s agent and wait until it answers."""
    cloud_utils.require_action("reboot", call)
    site = _site()
    site.read_node(name)
    cloud_utils.cloud_event(name, "rebooting", {"name": name, "instance_id": name}, __opts__)
    site.stop(name)
    site.start(name)
    _wait_answering(site, {"name": name}, name)
    return {"name": name, "action": "reboot", "state": "RUNNING", "success": True}


def capabilities(call: str | None = None) -> list[str]:
    """Return the optional actions this driver supports (no resize: a process has no size)."""
    cloud_utils.require_function("capabilities", call)
    return ["start", "stop"]


def script(vm_: Mapping[str, Any]) -> str:
    """Return the node's agent configuration, as a deploy script would write it."""
    site = _site()
    path = os.path.join(site.node_dir(vm_["name"]), "agent.conf")
    return open(path, encoding="utf-8").read() if os.path.isfile(path) else ""

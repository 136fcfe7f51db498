"""The deploy step: putting an agent on a new node, as Salt Cloud's bootstrap does.

A driver's ``create`` calls :func:`bootstrap` once its node runs.  With
``deploy: True`` (off by default on every driver but ``local``), the node
gets an agent that joins the master, in stages, each named in the error
when it fails (:class:`~hearth.common.exception.CloudDeployFailed`):

``address``  the node's address (``ssh_host``, else the driver's);
``port``     wait until its SSH port opens (``ssh_connect_timeout``);
``login``    log in, trying each ``ssh_username`` (``wait_for_passwd_*``);
``keys``     the master makes and accepts the agent's key pair in advance;
``upload``   the agent's configuration (master address, ``master_finger``),
             keys, grains, the rendered ``script`` and any ``wheelhouse``
             go to ``tmp_dir``;
``install``  run the script (``bootstrap-hearth`` installs this Hearth
             version and starts ``hearth-agent`` as a service);
``agent``    wait until the agent answers ``test.ping`` through the master.

With ``deploy_method: cloud-init`` nothing logs in: :func:`prepare_user_data`
puts a bootstrap with a single-use enrollment key in the node's user data
before it is created, and :func:`bootstrap` only waits for the agent.  The
``deploying`` event carries the deploy arguments without secrets, as the
node's ``deploy_kwargs`` do.  ``deploy_hook: package.module:function``
replaces all of this with a site's own deployer, called as
``function(vm_, opts)``.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import shlex
import time
from collections.abc import Iterator, Mapping
from typing import Any

from hearth.clouds import agent_files, agent_master, config, ssh, user_data, utils
from hearth.clouds.deploy_settings import DeploySettings, node_address
from hearth.common import exception

LOG = logging.getLogger(__name__)


def deploy_wanted(vm_: Mapping[str, Any], default: bool = False) -> bool:
    """Return whether ``vm_`` asks for the deploy step."""
    return config.is_true(vm_.get("deploy", default))


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


def prepare_user_data(vm_: Mapping[str, Any],
                      opts: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
    """Return ``vm_`` with a cloud-init bootstrap in its user data (``deploy_method: cloud-init``).

    Anything else is returned unchanged.
    """
    if not deploy_wanted(vm_) or vm_.get("deploy_hook"):
        return vm_

    with stage(str(vm_["name"]), "settings"):
        settings = DeploySettings.from_vm(vm_, opts, host="")
        if settings.method != "cloud-init":
            return vm_
        return user_data.with_bootstrap(vm_, opts, settings)


def render_script(vm_: Mapping[str, Any], opts: Mapping[str, Any] | None = None) -> str:
    """Return the node's deploy script rendered (a driver's ``script(vm_)``)."""
    return agent_files.render_script(vm_, opts)


@contextlib.contextmanager
def stage(node: str, name: str, output: str = "") -> Iterator[None]:
    """Turn a failure inside the block into CloudDeployFailed naming stage ``name``."""
    try:
        yield
    except exception.CloudDeployFailed:
        raise
    except (exception.HearthException, OSError) as error:
        raise exception.CloudDeployFailed(node, name, str(error), output) from error


def bootstrap(vm_: Mapping[str, Any], opts: Mapping[str, Any] | None = None,
              node: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Deploy the agent of node ``vm_`` (``node``: what the driver knows of it).

    Return what the node's details gain: ``deployed``, ``agent_id`` and
    ``deploy_kwargs`` (``{'deployed': False}`` when deploy is off).
    """
    if not deploy_wanted(vm_):
        return {"deployed": False}
    name = str(vm_["name"])
    if vm_.get("deploy_hook"):
        return _run_hook(vm_, opts, node)
    with stage(name, "address"):
        settings = DeploySettings.from_vm(vm_, opts, node_address(vm_, node, opts))
    public = settings.public()
    utils.cloud_event(name, "deploying", {"name": name, "host": settings.host,
                                          "kwargs": public}, opts, "deploying the agent")
    started = time.monotonic()
    master = agent_master.settings_for(vm_, opts)
    details: dict[str, Any] = {}
    if settings.method == "ssh":
        details = deploy_over_ssh(vm_, opts, settings, master)
    with stage(name, "agent"):
        agent_master.wait_answering(master, name, settings.agent_timeout)
    return {"deployed": True, "agent_id": name, "deploy_kwargs": public,
            "deploy_seconds": round(time.monotonic() - started, 2), **details}


def _run_hook(vm_: Mapping[str, Any], opts: Mapping[str, Any] | None,
              node: Mapping[str, Any] | None) -> dict[str, Any]:

    function = load_hook(vm_["deploy_hook"])
    host = node_address(vm_, node, opts)
    utils.cloud_event(vm_["name"], "deploying", {"name": vm_["name"], "host": host}, opts,
                      "executing deploy hook")
    result = function({**dict(vm_), "ssh_host": host}, dict(opts or {}))
    return {"deployed": True, **(result if isinstance(result, Mapping) else {})}


def deploy_over_ssh(vm_: Mapping[str, Any], opts: Mapping[str, Any] | None,
                    settings: DeploySettings, master: Any) -> dict[str, Any]:
    """Run the SSH stages (address to install); return the host key seen."""
    name = settings.name
    with stage(name, "address"):
        if not settings.host:
            raise exception.CloudExecutionFailure(
                "the node has no address to deploy to (set ssh_host or ssh_interface)")
    with stage(name, "port"):
        ssh.wait_for_port(settings.host, settings.port, settings.ssh_connect_timeout,
                          settings.gateway)
    with stage(name, "login"):
        session = ssh.login_with_retries(settings.logins(), settings.login_tries)
    with session:
        with stage(name, "keys"):
            contact = agent_master.contact(vm_, master)
            files = agent_files.upload_files(vm_, opts, name, contact,
                                             agent_master.preseed(master, name),
                                             grains=agent_master.grains_of(vm_))
            agent_master.record_grains(master, name, agent_master.recorded_grains_of(vm_))
        with stage(name, "upload"):
            files.update(agent_files.wheel_files(settings.wheelhouse))
            session.upload(settings.tmp_dir, files)
        run_script(session, settings)
    return {"ssh_host_key": session.host_key, "deploy_user": session.login.username}


def deploy_command(settings: DeploySettings, username: str) -> str:
    """Return the shell command that runs the uploaded script (with sudo when not root)."""
    directory = shlex.quote(settings.tmp_dir)
    env = [f"{key}={shlex.quote(value)}" for key, value in settings.script_env.items()]
    command = " ".join(["env", *env, "sh", f"{directory}/deploy.sh", "-c", directory,
                        settings.script_args]).strip()
    sudo = settings.sudo if settings.sudo is not None else username != "root"
    cleanup = "" if settings.keep_tmp else f"; status=$?; rm -rf {directory}; exit $status"
    return f"{'sudo -n ' if sudo else ''}sh -c {shlex.quote(command + cleanup)}"


def run_script(session: ssh.Session, settings: DeploySettings) -> ssh.Outcome:
    """Run the deploy script; raise CloudDeployFailed (stage install) with its output's tail."""
    command = deploy_command(settings, session.login.username)
    with stage(settings.name, "install"):
        outcome = session.run(command, timeout=settings.agent_timeout + 600)
    LOG.debug("deploy script of %s exited %s:\n%s", settings.name, outcome.status,
              outcome.output)
    if outcome.status != 0:
        raise exception.CloudDeployFailed(settings.name, "install",
                                          f"the deploy script exited with status "
                                          f"{outcome.status}", outcome.tail())
    return outcome

"""Deploy without SSH: the node's user data carries the bootstrap, run by cloud-init.

For machines no SSH reaches (private networks, no public address), the
deploy goes in the node's user data instead: a shell script cloud-init runs
once at first boot (as root), which writes the same files an SSH deploy
uploads into a private directory (``tmp_dir``) and runs the same
bootstrap script there, then removes the directory.

The key differs: user data stays readable (the metadata service, the
provider's API) for the machine's whole life, so it carries a *single-use
enrollment key* the master issued for this agent, valid ``enrollment_ttl``
seconds, instead of the agent's own key.  The agent makes its own key pair
at first start and has it accepted by proving the enrollment key once
(:meth:`hearth.master.keys.KeyStore.redeem`); the master refuses that key
from then on.  A wheelhouse cannot travel in user data (16 KB on EC2):
the node installs from a package index (``index_url``), a wheel directory
it can reach (``script_args: -f URL``), or an image with Hearth installed.

A node's own ``user_data`` is kept: both parts go in a MIME multipart
archive, which cloud-init runs in order.
"""

from __future__ import annotations

import base64
import shlex
from collections.abc import Mapping
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from typing import Any

from hearth.clouds import agent_files, agent_master
from hearth.common import exception


def bootstrap_script(files: Mapping[str, bytes], work_dir: str, script_args: str = "",
                     script_env: Mapping[str, str] | None = None) -> str:
    """Return the user-data shell script that writes ``files`` and runs ``deploy.sh``."""
    directory = shlex.quote(work_dir)
    lines = ["#!/bin/sh", "# Hearth agent deploy, run once by cloud-init at first boot.",
             "set -eu", "umask 077", f"rm -rf {directory}", f"mkdir -p {directory}"]
    for name, content in files.items():
        target = shlex.quote(f"{work_dir}/{name}")
        encoded = base64.encodebytes(content).decode()
        lines += [f"base64 -d > {target} <<'HEARTH_FILE'", encoded.rstrip("\n"), "HEARTH_FILE"]
    env = [f"{key}={shlex.quote(value)}" for key, value in (script_env or {}).items()]
    command = " ".join(["env", *env, "sh", f"{directory}/deploy.sh", "-c", directory,
                        script_args]).strip()
    lines += ["status=0", f"{command} || status=$?", f"rm -rf {directory}", "exit $status"]
    return "\n".join(lines) + "\n"


def combine(own: str | None, script: str) -> str:
    """Return ``script``, or a MIME multipart of the node's own user data and ``script``."""
    if not own:
        return script
    archive = MIMEMultipart()
    first_line = own.lstrip().split("\n", 1)[0]
    subtype = "cloud-config" if first_line.startswith("#cloud-config") else "x-shellscript"
    for text, kind in ((own, subtype), (script, "x-shellscript")):
        charset = "us-ascii" if text.isascii() else "utf-8"  # ASCII stays readable, unencoded
        archive.attach(MIMEText(text, kind, charset))
    return archive.as_string()


def with_bootstrap(vm_: Mapping[str, Any], opts: Mapping[str, Any] | None,
                   settings: Any) -> dict[str, Any]:
    """Return ``vm_`` whose ``user_data`` deploys its agent (an enrollment key issued)."""
    name = str(vm_["name"])
    if settings.wheelhouse:
        raise exception.CloudConfigError(
            f"node {name}: a wheelhouse cannot travel in user data; with deploy_method "
            "cloud-init use index_url, script_args '-f <wheel URL>' or an image with Hearth")
    master = agent_master.settings_for(vm_, opts)
    contact = agent_master.contact(vm_, master)
    pair = agent_master.enroll(master, name, settings.enrollment_ttl)
    agent_master.record_grains(master, name, agent_master.recorded_grains_of(vm_))
    files = agent_files.upload_files(vm_, opts, name, contact, pair, key_name="enroll",
                                     grains=agent_master.grains_of(vm_))
    script = bootstrap_script(files, settings.tmp_dir, settings.script_args,
                              settings.script_env)
    return {**dict(vm_), "user_data": combine(vm_.get("user_data"), script)}

"""The nodes of the ``local`` cloud driver: hearth-agent processes on this machine.

A node named N lives in ``<nodes_dir>/N/``: ``agent.conf`` (its ``[agent]``
section: id N, the master's address and public key), ``node.json`` (what
the driver knows: id, image, size, created, stopped), ``root/`` (the agent's
root directory, with ``root/pki/agent.key*``, its key pair, and
``root/grains.json``, its static grains), ``agent.pid`` and ``agent.log``.

Keys are *preseeded* as Salt Cloud's deploy step does: the node's key pair
is generated here and its public key written to the master's
``accepted/N``, so the agent is admitted without a pending step.  The
node's grains are recorded master-side at the same time
(:mod:`hearth.master.recorded_grains`): what the master holds true about the
agent, whatever it later reports.  A node
runs as a detached ``hearth-agent`` daemon; *stop* terminates the process
(keeping its directory and key, as a stopped machine keeps its disk) and
*start* runs it again.  Destroying a node stops it, deletes its key at the
master and removes its directory.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
from oslo_config import cfg

from hearth.clouds.agent_files import ini_text
from hearth.common import config, exception
from hearth.jobservice.service import JobService
from hearth.master.client import MasterClient
from hearth.master.recorded_grains import RecordedGrains
from hearth.master.settings import MasterSettings
from hearth.transport import certificates, keys

AGENT_PROGRAM = str(Path(sys.executable).with_name("hearth-agent"))
#: [agent] options every node gets unless its profile says otherwise (quick to notice a master).
AGENT_DEFAULTS = {"ping_interval": 0.5, "acceptance_wait_time": 0.2, "reconnect_delay": 0.1,
                  "reconnect_delay_max": 1.0, "master_alive_timeout": 2.0}


def master_settings(config_file: str | None) -> Any:
    """Return the MasterSettings of ``config_file`` (or of Hearth's own configuration)."""
    if not config_file:
        config.register_opts()
        return MasterSettings.from_conf(config.CONF)
    if not os.path.isfile(config_file):
        raise exception.CloudConfigError(f"master_config {config_file}: no such file")
    return MasterSettings.from_conf(config.load(conf=cfg.ConfigOpts(),
                                                config_files=[config_file]))


@dataclass
class LocalSite:
    """Where the nodes of one ``local`` provider live, and the master they report to."""

    nodes_dir: str
    master: Any
    agent_options: dict[str, Any] = field(default_factory=dict)

    # --- files -------------------------------------------------------------

    def node_dir(self, name: str) -> str:
        """Return the directory of node ``name``."""
        return os.path.join(self.nodes_dir, name)

    def _path(self, name: str, entry: str) -> str:
        return os.path.join(self.node_dir(name), entry)

    def read_node(self, name: str) -> dict[str, Any]:
        """Return node ``name``'s record; raise CloudNodeNotFound when there is none."""
        try:
            with open(self._path(name, "node.json"), encoding="utf-8") as stream:
                return json.load(stream)
        except (OSError, ValueError):
            raise exception.CloudNodeNotFound(name, f"local nodes under {self.nodes_dir}") \
                from None

    def _write_node(self, name: str, record: Mapping[str, Any]) -> None:
        temporary = self._path(name, "node.json.tmp")
        with open(temporary, "w", encoding="utf-8") as stream:
            json.dump(record, stream, indent=1)
        os.replace(temporary, self._path(name, "node.json"))

    def exists(self, name: str) -> bool:
        """Return whether node ``name`` has a record."""
        return os.path.isfile(self._path(name, "node.json"))

    def names(self) -> list[str]:
        """Return the names of every node, sorted."""
        try:
            entries = sorted(os.listdir(self.nodes_dir))
        except OSError:
            return []
        return [n for n in entries if os.path.isfile(self._path(n, "node.json"))]

    # --- making a node -------------------------------------------------------

    def prepare(self, name: str, image: str | None, size: str | None,
                agent: Mapping[str, Any], grains: Mapping[str, Any],
                recorded_grains: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Write node ``name``'s directory, config, grains and preseeded key; return its record.

        ``recorded_grains`` (default: all of ``grains``) are recorded at the
        master as the agent's trusted grains.
        """
        root = self._path(name, "root")
        os.makedirs(root, mode=0o700, exist_ok=True)
        pair = certificates.load_or_create(os.path.join(root, "pki"), "agent")
        accepted = os.path.join(self.master.pki_dir, "accepted")
        os.makedirs(accepted, mode=0o700, exist_ok=True)
        with open(os.path.join(accepted, name), "wb") as stream:
            stream.write(pair.public + b"\n")
        recorded = RecordedGrains(self.master.pki_dir)
        recorded.forget([name])
        recorded.update(name, dict(grains if recorded_grains is None else recorded_grains))
        master_public = certificates.load_public(keys.key_paths(self.master.pki_dir, "master")[0])
        options = {**AGENT_DEFAULTS, **self.agent_options, **dict(agent)}
        options.update(id=name, master=self.master.client_host,
                       master_port=self.master.port, master_auth_port=self.master.auth_port,
                       master_pubkey=master_public.decode(), root_dir=root)
        with open(self._path(name, "agent.conf"), "w", encoding="utf-8") as stream:
            stream.write(ini_text({"DEFAULT": {"state_path": self.node_dir(name)},
                               "agent": options}))
        with open(os.path.join(root, "grains.json"), "w", encoding="utf-8") as stream:
            json.dump(dict(grains), stream, indent=2, sort_keys=True)
        record = {"id": str(uuid.uuid4()), "name": name, "image": image or "hearth-agent",
                  "size": size or "default", "created": time.time(), "stopped": False}
        self._write_node(name, record)
        return record

    # --- the process -------------------------------------------------------------

    def process(self, name: str) -> Any:
        """Return node ``name``'s agent process (psutil), or None when it does not run."""
        try:
            with open(self._path(name, "agent.pid"), encoding="utf-8") as stream:
                pid = int(stream.read().strip())
            process = psutil.Process(pid)
            if self._path(name, "agent.conf") not in process.cmdline() or \
                    process.status() == psutil.STATUS_ZOMBIE:
                return None
        except (OSError, ValueError, psutil.Error):
            return None
        return process

    def start(self, name: str, timeout: float = 30) -> int:
        """Start node ``name``'s agent as a daemon; return its pid."""
        pid_file = self._path(name, "agent.pid")
        if os.path.exists(pid_file):
            os.unlink(pid_file)
        env = {k: v for k, v in os.environ.items()
               if k not in ("HEARTH_CONFIG", "HEARTH_URL", "HEARTH_MASTER")}
        launcher = subprocess.run(
            [AGENT_PROGRAM, "--config-file", self._path(name, "agent.conf"),
             "--pid-file", pid_file, "--log-file", self._path(name, "agent.log")],
            env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
        if launcher.returncode != 0:
            raise exception.CloudExecutionFailure(
                f"hearth-agent for node {name} did not start: {launcher.stderr.strip()}")
        deadline = time.monotonic() + timeout
        while (process := self.process(name)) is None:
            if time.monotonic() > deadline:
                raise exception.CloudExecutionTimeout(
                    f"hearth-agent for node {name} wrote no pid within {timeout:g} seconds "
                    f"(see {self._path(name, 'agent.log')})")
            time.sleep(0.05)
        return process.pid

    def stop(self, name: str, timeout: float = 10) -> None:
        """Terminate node ``name``'s agent (SIGTERM, then SIGKILL) and wait until it is gone."""
        process = self.process(name)
        if process is None:
            return
        for number in (signal.SIGCONT, signal.SIGTERM):
            try:
                process.send_signal(number)
            except psutil.NoSuchProcess:
                return
        try:
            process.wait(timeout)
        except psutil.TimeoutExpired:
            process.kill()
            process.wait(timeout)

    def mark(self, name: str, stopped: bool) -> None:
        """Record whether node ``name`` was stopped on purpose."""
        record = self.read_node(name)
        record["stopped"] = stopped
        self._write_node(name, record)

    def state(self, name: str, record: Mapping[str, Any]) -> str:
        """Return RUNNING, STOPPED (on purpose) or ERROR (its agent died)."""
        if record.get("stopped"):
            return "STOPPED"
        return "RUNNING" if self.process(name) is not None else "ERROR"

    # --- the master --------------------------------------------------------------

    def answers(self, name: str, timeout: float = 2.0) -> bool:
        """Return whether node ``name``'s agent answers test.ping through the master."""
        return JobService.for_master(self.master).agent_answers(name, timeout)

    def forget_key(self, name: str) -> None:
        """Delete node ``name``'s key at the master (through it when it runs, else on disk)."""
        try:
            with MasterClient(self.master, timeout=3) as client:
                client.delete_key(name)
        except exception.HearthException:
            pass  # no such key, or no master running: the files below are the truth
        for category in ("accepted", "pending", "rejected", "denied"):
            try:
                os.unlink(os.path.join(self.master.pki_dir, category, name))
            except FileNotFoundError:
                pass

        RecordedGrains(self.master.pki_dir).forget([name])

    def remove(self, name: str) -> None:
        """Stop node ``name``, delete its key and its directory."""
        self.stop(name)
        self.forget_key(name)
        shutil.rmtree(self.node_dir(name), ignore_errors=True)

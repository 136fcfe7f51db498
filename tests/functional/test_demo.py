"""The demo of ``make run``, run the way make runs it, as subprocesses.

``tools/demo.py run`` installs the demo's cloud provider and profile and its
pillar configuration where Hearth looks by default, starts the demo's
hearth-master in the background and creates the stack from
``templates/demo.yaml``: three ``local`` servers (real hearth-agents), their
pillar compiled from ``templates/demo/pillar``, a configuration file rendered
from it on each, a command and grains by grain target.  A second run updates
the same stack and reuses the master.  A plain ``stackctl stack-delete`` (no
configuration, same HEARTH_HOME) then leaves no agent, node directory or key,
and ``tools/demo.py stop`` stops the master and removes the demo's files.

The master's ports are moved (HEARTH_DEMO_PORT) so that the test runs beside
other masters; the commands that talk to the master directly are given the
demo master's settings (``--config-file``), the others none.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from tests.fixtures.clouds import agent_processes, kill_agents

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
TIMEOUT = 240
EXPECTED = {"web": ("[web]", "port = 8080", "workers = 4", "log_level = warning"),
            "db": ("[db]", "port = 5432", "workers = 1", "log_level = info")}


def two_free_ports() -> int:
    """Return a port P such that P and P + 1 are free on 127.0.0.1 now."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        try:
            with socket.socket() as second:
                second.bind(("127.0.0.1", port + 1))
            return port
        except OSError:
            continue
    raise AssertionError("no two consecutive free ports")


class DemoSite:
    """A fresh HEARTH_HOME and the demo commands run in it."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.config = home / "demo" / "hearth.conf"
        self.env = dict(os.environ, HEARTH_HOME=str(home), PYTHONWARNINGS="ignore",
                        HEARTH_DEMO_PORT=str(two_free_ports()))
        for name in ("HEARTH_CONFIG", "HEARTH_URL", "HEARTH_TOKEN"):
            self.env.pop(name, None)

    def demo(self, action: str) -> subprocess.CompletedProcess:
        """Run ``tools/demo.py ACTION`` as make does (make adds MAKEFLAGS and MAKELEVEL)."""
        env = dict(self.env, MAKEFLAGS=" -- DEMO=demo", MAKELEVEL="1")
        return subprocess.run([sys.executable, str(ROOT / "tools" / "demo.py"), action],
                              cwd=ROOT, env=env, text=True, capture_output=True,
                              stdin=subprocess.DEVNULL, timeout=TIMEOUT)

    def engine_pids(self) -> set[int]:
        """Return the pids of the local engines serving this home."""
        from hearth.cli import local_engine
        return {info["pid"] for info in local_engine.engines()
                if info.get("home") == os.path.realpath(self.home)}

    def stackctl(self, *args: str, master: bool = False) -> subprocess.CompletedProcess:
        """Run a plain stackctl (with the moved master's settings when ``master``)."""
        config = ["--config-file", str(self.config)] if master else []
        return subprocess.run([str(BIN / "stackctl"), *config, *args],
                              env=self.env, text=True, capture_output=True,
                              stdin=subprocess.DEVNULL, timeout=TIMEOUT)

    def installed(self) -> list[Path]:
        """Return the demo's files in Hearth's default places that exist."""
        paths = [self.home / "cloud" / "cloud.providers.d" / "demo.conf",
                 self.home / "cloud" / "cloud.profiles.d" / "demo.conf",
                 self.home / "pillar.yaml"]
        return [path for path in paths if path.exists()]

    def master(self) -> psutil.Process | None:
        """Return the demo's master process, or None."""
        try:
            pid = int((self.home / "demo" / "hearth-master.pid").read_text())
            process = psutil.Process(pid)
            if str(self.config) in process.cmdline():
                return process
        except (OSError, ValueError, psutil.Error):
            pass
        return None

    def outputs(self) -> dict:
        """Return the demo stack's outputs."""
        shown = self.stackctl("stack-show", "demo", "--format", "json")
        assert shown.returncode == 0, shown.stderr
        return {o["output_key"]: o.get("output_value") for o in json.loads(shown.stdout)["outputs"]}

    def nodes(self) -> list[Path]:
        """Return the node directories of the demo's local provider."""
        nodes_dir = self.home / "cloud" / "local" / "demo-local"
        return sorted(nodes_dir.iterdir()) if nodes_dir.is_dir() else []

    def clean_up(self) -> None:
        """Kill what a failed test may have left running."""
        kill_agents(self.home)
        master = self.master()
        if master is not None:
            master.kill()


@pytest.fixture
def site(tmp_path):
    demo = DemoSite(tmp_path / "home")
    yield demo
    demo.clean_up()


def check_every_node(outputs: dict) -> None:
    """Each of the three agents wrote its pillar's file, ran the command, gave its grains."""
    agents = outputs["agents"]
    assert len(set(agents)) == 3, outputs
    assert sorted(outputs["config_files"]) == sorted(agents)
    for agent in agents:
        grains = outputs["grains"][agent]
        assert grains["id"] == agent and grains["demo"] == "demo"
        config = outputs["config_files"][agent]
        assert f"written by Hearth from the pillar of {agent}" in config
        for line in EXPECTED[grains["role"]]:
            assert line in config.splitlines(), (agent, config)
        assert outputs["command"][agent].startswith(f"run by agent pid {grains['pid']} ")
    roles = sorted(outputs["grains"][agent]["role"] for agent in agents)
    assert roles == ["db", "web", "web"]


def test_make_run_twice_then_delete_and_stop(site):
    first = site.demo("run")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "hearth-master started" in first.stdout
    assert len(site.installed()) == 3
    assert "[web1]: CREATE_IN_PROGRESS  Cloud node demo-web1-" in first.stdout  # live events
    assert "Stack demo CREATE_COMPLETE" in first.stdout
    outputs = site.outputs()
    check_every_node(outputs)
    for agent in outputs["agents"]:  # the report names each node and shows its file
        assert f"== {agent} (role " in first.stdout
    master = site.master()
    assert master is not None and len(agent_processes(site.home)) == 3
    assert len(site.nodes()) == 3

    again = site.demo("run")
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"hearth-master already running (pid {master.pid}" in again.stdout
    assert "Stack demo UPDATE_COMPLETE" in again.stdout
    listed = json.loads(site.stackctl("stack-list", "--format", "json").stdout)
    assert [stack["stack_name"] for stack in listed] == ["demo"]
    assert site.outputs()["agents"] == outputs["agents"]   # updated, nothing replaced
    assert len(agent_processes(site.home)) == 3
    accepted = site.home / "pki" / "master" / "accepted"   # the master's default keys
    assert sorted(path.name for path in accepted.iterdir()) == sorted(outputs["agents"])

    # The demo's pillar is Hearth's default one: a plain local compile finds it.
    pillar = site.stackctl("pillar-show", "web9", "--local", "--grains", '{"role": "web"}',
                           "--unmask", "--format", "json")
    assert pillar.returncode == 0, pillar.stderr
    assert json.loads(pillar.stdout)["web9"]["app"] == {
        "greeting": "Hello from Hearth", "agent": "web9", "log_level": "warning", "workers": 4,
        "port": "8080", "service": "web"}
    pinged = site.stackctl("run", "-G", "demo:demo", "test.ping", "--format", "json",
                           master=True)
    assert json.loads(pinged.stdout) == {agent: True for agent in outputs["agents"]}

    deleted = site.stackctl("stack-delete", "-y", "demo")
    assert "Stack demo DELETE_COMPLETE" in deleted.stdout, deleted.stdout + deleted.stderr
    assert agent_processes(site.home) == []
    assert site.nodes() == []
    assert list(accepted.iterdir()) == []

    stopped = site.demo("stop")
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    assert f"hearth-master (pid {master.pid}) stopped." in stopped.stdout
    assert not master.is_running() or master.status() == psutil.STATUS_ZOMBIE
    assert site.master() is None
    assert site.installed() == []
    # The home did not exist: what the demo made there (configuration, database, the
    # master's keys) went with its files, and the home with them.
    assert f"Removed {site.home / 'hearth.db'}." in stopped.stdout
    assert f"Removed {site.home / 'pki' / 'master'}." in stopped.stdout
    assert not site.home.exists()


def test_make_stop_deletes_the_stack_and_a_second_stop_finds_nothing(site):
    site.home.mkdir()
    mine = site.home / "notes.txt"   # the home is the user's: it stays, with their file
    mine.write_text("mine\n")
    started = site.demo("run")
    assert started.returncode == 0, started.stdout + started.stderr
    master = site.master()
    engines = site.engine_pids()
    assert engines   # make run's stack commands went to the local engine
    seen: set[int] = set()
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            seen.update(site.engine_pids())
            time.sleep(0.05)
    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        stopped = site.demo("stop")
    finally:
        done.set()
        watcher.join()
    assert seen <= engines   # make stop used make run's engine, never one of its own
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    assert "Stack demo DELETE_COMPLETE" in stopped.stdout
    assert agent_processes(site.home) == [] and site.nodes() == []
    assert not master.is_running() or master.status() == psutil.STATUS_ZOMBIE
    # the home stays (it was the user's): only the stopped engine's log and socket remain
    assert {path.name for path in site.home.iterdir()} <= {
        "notes.txt", "local-engine.log", "bus.sock"}
    assert not (site.home / "hearth.db").exists() and not (site.home / "pki").exists()
    assert not (site.home / "demo").exists() and mine.read_text() == "mine\n"
    again = site.demo("stop")   # nothing left to stop: it says so, and starts no engine
    assert "No demo hearth-master runs." in again.stdout
    assert site.engine_pids() == set() and not (site.home / "hearth.db").exists()


def test_a_file_that_is_not_the_demos_is_never_replaced(site):
    mine = site.home / "pillar.yaml"
    mine.parent.mkdir(parents=True)
    mine.write_text("ext_pillar: []\n")
    refused = site.demo("run")
    assert refused.returncode != 0
    assert refused.stderr.strip().splitlines()[-1].startswith(
        f"{mine} exists and is not the demo's: the demo would replace it. Move it away")
    assert "Traceback" not in refused.stderr
    assert mine.read_text() == "ext_pillar: []\n"
    assert site.installed() == [mine] and site.master() is None

"""``make run`` and ``make stop``: the demo's hearth-master, and the demo stack.

``python tools/demo.py run [NAME]`` writes the demo's configuration
(``$HEARTH_HOME/demo/hearth.conf``: the master on 127.0.0.1, the cloud
profiles of ``templates/demo/cloud`` and the pillar of
``templates/demo/pillar``), starts ``hearth-master`` in the background
unless it already runs (pid file and log beside the configuration), then
creates the stack NAME (default ``demo``) from ``templates/demo.yaml``, or
updates it when it exists, and prints what each node did.  Stacks stay in
Hearth's usual database under ``$HEARTH_HOME``.

``python tools/demo.py stop [NAME]`` deletes the stack (which stops its
agents and removes their directories and keys) and stops the master.

``HEARTH_DEMO_PORT`` moves the master's ports (default 4510, and the next
one for keys), e.g. for tests running beside another master.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
TEMPLATE = ROOT / "templates" / "demo.yaml"
DEMO_FILES = ROOT / "templates" / "demo"
READY_TIMEOUT = 30.0
STOP_TIMEOUT = 15.0


def hearth_home() -> Path:
    """Return ``$HEARTH_HOME`` (Hearth's default when unset)."""
    return Path(os.environ.get("HEARTH_HOME")
                or Path.home() / ".local" / "share" / "hearth")


class Demo:
    """Where the demo's master keeps its files, and how to reach it."""

    def __init__(self, name: str = "demo") -> None:
        self.name = name
        self.directory = hearth_home() / "demo"
        self.config = self.directory / "hearth.conf"
        self.pid_file = self.directory / "hearth-master.pid"
        self.log = self.directory / "hearth-master.log"
        self.port = int(os.environ.get("HEARTH_DEMO_PORT", "4510"))

    def config_text(self) -> str:
        """Return the demo's configuration file (master, cloud profiles, pillar)."""
        return (
            "# Written by make run (tools/demo.py): the demo's hearth-master and what\n"
            "# stackctl needs to reach it.  Use it with --config-file or HEARTH_CONFIG.\n"
            "[master]\ninterface = 127.0.0.1\n"
            f"port = {self.port}\nauth_port = {self.port + 1}\n"
            f"pki_dir = {self.directory / 'pki'}\n"
            "[cloud]\n"
            f"config_dir = {DEMO_FILES / 'cloud'}\n"
            "[pillar]\n"
            f"pillar_roots = base={DEMO_FILES / 'pillar'}\n"
            f"config_file = {DEMO_FILES / 'pillar.yaml'}\n")

    # --- the master ----------------------------------------------------------------

    def master_pid(self) -> int | None:
        """Return the pid of the demo's running master, or None."""
        import psutil

        try:
            pid = int(self.pid_file.read_text().strip())
            process = psutil.Process(pid)
            if str(self.config) in process.cmdline() and \
                    process.status() != psutil.STATUS_ZOMBIE:
                return pid
        except (OSError, ValueError, psutil.Error):
            pass
        return None

    def ensure_master(self) -> tuple[int, bool]:
        """Start the master unless it runs with this configuration; return (pid, started)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        wanted = self.config_text()
        current = self.config.read_text() if self.config.exists() else None
        pid = self.master_pid()
        if pid is not None and current == wanted:
            self.wait_ready(pid)
            return pid, False
        if pid is not None:
            self.stop_master()
        self.config.write_text(wanted)
        subprocess.run([str(BIN / "hearth-master"), "--config-file", str(self.config),
                        "--pid-file", str(self.pid_file), "--log-file", str(self.log)],
                       check=True, stdin=subprocess.DEVNULL, env=_environment())
        deadline = time.monotonic() + READY_TIMEOUT
        while (pid := self.master_pid()) is None:
            if time.monotonic() > deadline:
                raise SystemExit(f"hearth-master did not start; see {self.log}")
            time.sleep(0.05)
        self.wait_ready(pid)
        return pid, True

    def wait_ready(self, pid: int) -> None:
        """Wait until the master answers a client."""
        from hearth.clouds.local_nodes import master_settings
        from hearth.master.client import MasterClient

        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            try:
                with MasterClient(master_settings(str(self.config)), timeout=1) as client:
                    client.ping()
                return
            except Exception as error:  # noqa: BLE001 - not up yet, or gone: said below
                if self.master_pid() != pid or time.monotonic() > deadline:
                    raise SystemExit(f"hearth-master (pid {pid}) does not answer ({error}); "
                                     f"see {self.log}") from None
            time.sleep(0.1)

    def stop_master(self) -> int | None:
        """Stop the demo's master (SIGTERM, then SIGKILL); return the pid it had."""
        import psutil

        pid = self.master_pid()
        if pid is not None:
            process = psutil.Process(pid)
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(STOP_TIMEOUT)
            except psutil.TimeoutExpired:
                process.kill()
                process.wait(STOP_TIMEOUT)
        self.pid_file.unlink(missing_ok=True)
        return pid

    # --- the stack -------------------------------------------------------------------

    def stackctl(self, *args: str, capture: bool = False) -> subprocess.CompletedProcess:
        """Run stackctl with the demo's configuration (output streamed unless ``capture``)."""
        return subprocess.run([str(BIN / "stackctl"), "--config-file", str(self.config), *args],
                              env=_environment(), text=True, capture_output=capture,
                              stdin=subprocess.DEVNULL)

    def stack_status(self) -> str | None:
        """Return the demo stack's status, or None when there is no such stack."""
        shown = self.stackctl("stack-show", self.name, "--format", "json", capture=True)
        if shown.returncode != 0:
            return None
        return json.loads(shown.stdout)["stack_status"]

    def create_or_update(self) -> int:
        """Update the demo stack when it exists (else, or if that fails, create it)."""
        if self.stack_status() is not None:
            print(f"The stack {self.name} exists: updating it from {_shown(TEMPLATE)}.")
            if self.stackctl("stack-update", "-f", str(TEMPLATE), self.name).returncode == 0:
                return 0
            print(f"The update failed: deleting {self.name} and creating it again.")
            self.stackctl("stack-delete", "-y", self.name)
        return self.stackctl("stack-create", "-f", str(TEMPLATE), self.name).returncode

    def outputs(self) -> dict:
        """Return the demo stack's outputs by key."""
        shown = self.stackctl("stack-show", self.name, "--format", "json", capture=True)
        return {output["output_key"]: output.get("output_value")
                for output in json.loads(shown.stdout).get("outputs") or []}


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    for name in ("HEARTH_CONFIG", "HEARTH_URL", "HEARTH_TOKEN"):
        env.pop(name, None)
    return env


def _shown(path: Path) -> str:
    """Return ``path`` relative to the checkout when it is inside it."""
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def report(outputs: dict) -> str:
    """Return what each node did, from the demo stack's outputs."""
    lines = []
    for agent in outputs.get("agents") or []:
        grains = (outputs.get("grains") or {}).get(agent) or {}
        lines.append(f"== {agent} (role {grains.get('role')}, agent pid {grains.get('pid')})")
        lines.append(f"   command: {(outputs.get('command') or {}).get(agent)}")
        lines.append("   app.conf, read back on the node:")
        config = (outputs.get("config_files") or {}).get(agent) or ""
        lines += [f"     {line}" for line in config.splitlines()]
    return "\n".join(lines)


def run(demo: Demo) -> int:
    """Bring up the master and the demo stack; print what the nodes did."""
    pid, started = demo.ensure_master()
    print(f"hearth-master {'started' if started else 'already running'} (pid {pid}, "
          f"log {demo.log})")
    began = time.monotonic()
    code = demo.create_or_update()
    if code != 0:
        print(f"The demo stack failed: see 'stackctl --config-file {demo.config} "
              f"event-list {demo.name}' and {demo.log}.", file=sys.stderr)
        return code
    print(f"\nThe stack {demo.name} is ready in {time.monotonic() - began:.1f} s. "
          "Outputs, node by node:")
    print(report(demo.outputs()))
    print(f"\nThe master and the three agents keep running. Try:\n"
          f"  export HEARTH_CONFIG={demo.config}\n"
          f"  {_shown(BIN / 'stackctl')} run -G demo:{demo.name} test.ping\n"
          f"  {_shown(BIN / 'stackctl')} output-show {demo.name} --all\n"
          f"  {_shown(BIN / 'stackctl')} stack-graph {demo.name} --format png --output "
          f"{demo.name}.png\n"
          f"'make stop' deletes the stack {demo.name} (its agents) and stops the master.")
    return 0


def stop(demo: Demo) -> int:
    """Delete the demo stack (its agents), then stop the master."""
    code = 0
    if demo.config.exists() and demo.stack_status() is not None:
        code = demo.stackctl("stack-delete", "-y", demo.name).returncode
    pid = demo.stop_master()
    print(f"hearth-master (pid {pid}) stopped." if pid else "No demo hearth-master runs.")
    return code


def main(argv: list[str]) -> int:
    """Run ``run`` or ``stop`` for the stack named by the second argument."""
    if not argv or argv[0] not in ("run", "stop"):
        print("usage: demo.py run|stop [STACK_NAME]", file=sys.stderr)
        return 2
    demo = Demo(argv[1] if len(argv) > 1 else "demo")
    return run(demo) if argv[0] == "run" else stop(demo)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

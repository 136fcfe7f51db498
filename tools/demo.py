"""``make run`` and ``make stop``: the demo's hearth-master, and the demo stack.

The demo runs on Hearth's defaults, so that a plain ``stackctl`` (no
``--config-file``, no ``HEARTH_CONFIG``) in the same ``$HEARTH_HOME`` knows
the demo's cloud, pillar and master.  ``python tools/demo.py run [NAME]``
installs the demo's files where Hearth looks by default (the provider and
profile ``demo.conf`` of ``templates/demo/cloud`` in the ``[cloud]
config_dir``, and ``templates/demo/pillar.yaml``, with the pillar roots of
``templates/demo/pillar``, as the ``[pillar] config_file``); a file there
that is not the demo's is never overwritten: the demo stops and says so.
It then starts ``hearth-master`` in the background on the default ports and
keys, listening on 127.0.0.1 (its own settings, pid file and log in
``$HEARTH_HOME/demo/``), unless it already runs, and creates the stack NAME
(default ``demo``) from ``templates/demo.yaml``, or updates it when it
exists, and prints what each node did.

``python tools/demo.py stop [NAME]`` deletes the stack (which stops its
agents and removes their directories and keys), stops the master and
removes what the demo installed: its files, its master's settings, and
the database and master keys when the first ``run`` made them (a database
still holding another stack is kept).  It talks to the local engine that
runs for this setting, or runs the engine in its own process when none does:
it never starts one.

``HEARTH_DEMO_PORT`` moves the master's ports (default: ``[master] port``,
and the next one for keys), e.g. for tests running beside another master.
The demo's provider then names the demo master's settings, so that
``stackctl stack-delete`` still reaches it; other commands that talk to the
master need ``--config-file $HEARTH_HOME/demo/hearth.conf``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
import socket
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
#: The first line of every file the demo installs: how it knows its own files.
MARK = "# Installed by make run (tools/demo.py); make stop removes it."
#: Variables that would point stackctl at another configuration or server.
FOREIGN = ("HEARTH_CONFIG", "HEARTH_URL", "HEARTH_TOKEN", "HEARTH_MASTER")
#: What the demo may make in HEARTH_HOME beside its own files: the database (and its
#: SQLite companions) and the master's keys; recorded when the first run makes them.
MADE = {"database": ("hearth.db", "hearth.db-wal", "hearth.db-shm", "hearth.db.migrate-lock"),
        "keys": ("pki/master",)}
#: What the local engine leaves in its home once stopped.
ENGINE_LEFTOVERS = frozenset({"bus.sock", "local-engine.log"})


def hearth_home() -> Path:
    """Return ``$HEARTH_HOME`` (Hearth's default when unset)."""
    return Path(os.environ.get("HEARTH_HOME")
                or Path.home() / ".local" / "share" / "hearth")


def _environment() -> dict[str, str]:
    return {name: value for name, value in os.environ.items() if name not in FOREIGN}


def hearth_defaults():
    """Return Hearth's configuration as a plain ``stackctl`` loads it (no HEARTH_CONFIG)."""
    from oslo_config import cfg

    from hearth.common import config

    saved = os.environ.pop("HEARTH_CONFIG", None)
    try:
        return config.load(conf=cfg.ConfigOpts()), config.default_config_files()
    finally:
        if saved is not None:
            os.environ["HEARTH_CONFIG"] = saved


class Demo:
    """Where the demo's files and master live, and how to reach it."""

    def __init__(self, name: str = "demo") -> None:
        from hearth.master.settings import MasterSettings

        self.name = name
        self.directory = hearth_home() / "demo"
        self.config = self.directory / "hearth.conf"
        self.pid_file = self.directory / "hearth-master.pid"
        self.log = self.directory / "hearth-master.log"
        self.made_file = self.directory / "made.json"
        self.in_process = False
        conf, self.config_files = hearth_defaults()
        self.cloud_dir = Path(conf.cloud.config_dir)
        from hearth.common.config import database_url
        url = database_url(conf)
        self.database = Path(url[len("sqlite:///"):]) if url.startswith("sqlite:///") else None
        self.pillar_file = Path(conf.pillar.config_file)
        defaults = MasterSettings.from_conf(conf)
        moved = os.environ.get("HEARTH_DEMO_PORT")
        self.moved = moved is not None and int(moved) != defaults.port
        port = int(moved) if moved else defaults.port
        self.master = dataclasses.replace(
            defaults, port=port, auth_port=port + 1 if moved else defaults.auth_port,
            interface=defaults.client_host)

    # --- the demo's files --------------------------------------------------------

    def master_text(self) -> str:
        """Return the demo master's own settings (what differs from Hearth's defaults)."""
        text = ("# Written by make run (tools/demo.py): the demo master's own settings, read\n"
                "# after Hearth's configuration files. A plain stackctl needs none of it.\n"
                f"[master]\ninterface = {self.master.interface}\n")
        if self.moved:
            text += f"port = {self.master.port}\nauth_port = {self.master.auth_port}\n"
        return text

    def installed(self) -> dict[Path, str]:
        """Return {path: content} of the files the demo installs in Hearth's default places."""
        source = DEMO_FILES / "cloud"
        provider = (source / "cloud.providers.d" / "demo.conf").read_text()
        if self.moved:
            provider = provider.replace("  driver: local\n", "  driver: local\n"
                                        f"  master_config: {self.config}\n")
        pillar = ((DEMO_FILES / "pillar.yaml").read_text()
                  + f"# Where the demo's pillar files are (the checkout's).\n"
                    f"pillar_roots:\n  base:\n    - {DEMO_FILES / 'pillar'}\n")
        return {
            self.cloud_dir / "cloud.providers.d" / "demo.conf": f"{MARK}\n{provider}",
            self.cloud_dir / "cloud.profiles.d" / "demo.conf":
                f"{MARK}\n{(source / 'cloud.profiles.d' / 'demo.conf').read_text()}",
            self.pillar_file: f"{MARK}\n{pillar}",
        }

    def install(self) -> None:
        """Install the demo's files; stop when one would replace a file that is not the demo's."""
        files = self.installed()
        for path, text in files.items():
            if path.exists() and not _is_demo_file(path) and path.read_text() != text:
                raise SystemExit(
                    f"{path} exists and is not the demo's: the demo would replace it. Move it "
                    "away, or run the demo in another Hearth home, e.g. "
                    "'HEARTH_HOME=/tmp/hearth-demo make run'.")
        for path, text in files.items():
            if not path.exists() or path.read_text() != text:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)

    def uninstall(self) -> list[Path]:
        """Remove the demo's files (those still marked as the demo's); return them."""
        removed = [path for path in self.installed() if _is_demo_file(path)]
        for path in removed:
            path.unlink()
        for path in removed:   # the directories the demo's files needed, once empty
            for parent in path.parents:
                if parent == hearth_home() or not _remove_empty(parent):
                    break
        return removed

    def record_made(self) -> None:
        """Record, at the first run, which of :data:`MADE` do not exist yet."""
        if self.made_file.exists():
            return
        home = hearth_home()
        made = [kind for kind, names in MADE.items() if not (home / names[0]).exists()]
        if not home.exists():
            made.append("home")
        self.directory.mkdir(parents=True, exist_ok=True)
        self.made_file.write_text(json.dumps(made))

    def remove_made(self) -> list[Path]:
        """Remove what the first run made (a database only once no stack is left in it)."""
        try:
            made = json.loads(self.made_file.read_text())
        except (OSError, ValueError):
            made = []
        if "database" in made:
            listed = self.stackctl("stack-list", "--format", "json", capture=True)
            if listed.returncode != 0 or json.loads(listed.stdout):
                made.remove("database")   # someone else's stacks live there now
            elif not self.in_process:
                self.stackctl("engine-stop", capture=True)   # it serves that database
        removed = []
        for kind in made:
            for name in MADE.get(kind, ()):
                path = hearth_home() / name
                if path.is_dir():
                    shutil.rmtree(path)
                elif path.exists():
                    path.unlink()
                else:
                    continue
                removed.append(path)
        _remove_empty(hearth_home() / "pki")
        home = hearth_home()
        if "home" in made and "database" in made and home.is_dir() and \
                {path.name for path in home.iterdir()} <= ENGINE_LEFTOVERS | {"demo"}:
            shutil.rmtree(home)
            removed.append(home)
        return removed

    def engine_serves(self) -> bool:
        """Return whether a local engine runs for the demo's setting (none is started)."""
        shown = self.stackctl("engine-status", "--format", "json", capture=True)
        return shown.returncode == 0 and any(row.get("this_setting")
                                             for row in json.loads(shown.stdout))

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
        """Start the master unless it runs with these settings; return (pid, started)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        wanted = self.master_text()
        current = self.config.read_text() if self.config.exists() else None
        pid = self.master_pid()
        if pid is not None and current == wanted:
            self.wait_ready(pid)
            return pid, False
        if pid is not None:
            self.stop_master()
        self.check_ports()
        self.config.write_text(wanted)
        files = [arg for path in [*self.config_files, str(self.config)]
                 for arg in ("--config-file", path)]
        subprocess.run([str(BIN / "hearth-master"), *files,
                        "--pid-file", str(self.pid_file), "--log-file", str(self.log)],
                       check=True, stdin=subprocess.DEVNULL, env=_environment())
        deadline = time.monotonic() + READY_TIMEOUT
        while (pid := self.master_pid()) is None:
            if time.monotonic() > deadline:
                raise SystemExit(f"hearth-master did not start; see {self.log}")
            time.sleep(0.05)
        self.wait_ready(pid)
        return pid, True

    def check_ports(self) -> None:
        """Stop with a clear message when the master's ports are taken."""
        for port in (self.master.port, self.master.auth_port):
            with socket.socket() as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                try:
                    probe.bind((self.master.interface, port))
                except OSError as error:
                    raise SystemExit(
                        f"Port {port} on {self.master.interface} is in use ({error.strerror}): "
                        "another hearth-master? Stop it, or give the demo other ports "
                        "(HEARTH_DEMO_PORT=4610 make run).") from None

    def wait_ready(self, pid: int) -> None:
        """Wait until the master answers a client."""
        from hearth.master.client import MasterClient

        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            try:
                with MasterClient(self.master, timeout=1) as client:
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

    def stackctl_command(self) -> list[str]:
        """Return stackctl as the user runs it: plain, unless the ports were moved."""
        command = [str(BIN / "stackctl")]
        if self.in_process:
            command.append("--in-process")
        return command + ["--config-file", str(self.config)] if self.moved else command

    def stackctl(self, *args: str, capture: bool = False) -> subprocess.CompletedProcess:
        """Run stackctl (output streamed unless ``capture``)."""
        return subprocess.run([*self.stackctl_command(), *args], env=_environment(), text=True,
                              capture_output=capture, stdin=subprocess.DEVNULL)

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


def _is_demo_file(path: Path) -> bool:
    try:
        with path.open(encoding="utf-8") as stream:
            return stream.readline().rstrip("\n") == MARK
    except (OSError, UnicodeDecodeError):
        return False


def _remove_empty(directory: Path) -> bool:
    """Remove ``directory`` and its empty subdirectories if it holds no file; say if it did."""
    if not directory.is_dir() or any(path.is_file() or path.is_symlink()
                                     for path in directory.rglob("*")):
        return False
    shutil.rmtree(directory)
    return True


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


def hints(demo: Demo, agents: list[str]) -> str:
    """Return what to try next, as the user types it."""
    stackctl = " ".join(_shown(Path(part)) if part.startswith("/") else part
                        for part in demo.stackctl_command())
    lines = ["The master and the three agents keep running. Try:"]
    if any(os.environ.get(name) for name in FOREIGN):
        lines.append(f"  unset {' '.join(FOREIGN)}")
    lines += [f"  {stackctl} run -G demo:{demo.name} test.ping",
              f"  {stackctl} pillar-show {agents[0] if agents else 'AGENT'} --unmask",
              f"  {stackctl} output-show {demo.name} --all",
              f"  {stackctl} stack-graph {demo.name} --format png --output {demo.name}.png",
              f"  {stackctl} stack-delete -y {demo.name}     # stops the agents, removes "
              "their directories and keys",
              f"'make stop' deletes the stack {demo.name} (its agents), stops the master and "
              "removes the demo's files."]
    return "\n".join(lines)


def run(demo: Demo) -> int:
    """Bring up the master and the demo stack; print what the nodes did."""
    demo.record_made()
    demo.install()
    pid, started = demo.ensure_master()
    print(f"hearth-master {'started' if started else 'already running'} (pid {pid}, "
          f"{demo.master.interface}:{demo.master.port}, log {demo.log})")
    began = time.monotonic()
    code = demo.create_or_update()
    if code != 0:
        print(f"The demo stack failed: see '{' '.join(demo.stackctl_command())} "
              f"event-list {demo.name}' and {demo.log}.", file=sys.stderr)
        return code
    print(f"\nThe stack {demo.name} is ready in {time.monotonic() - began:.1f} s. "
          "Outputs, node by node:")
    outputs = demo.outputs()
    print(report(outputs))
    print("\n" + hints(demo, list(outputs.get("agents") or [])))
    return 0


def stop(demo: Demo) -> int:
    """Delete the demo stack (its agents), stop the master, remove what the demo installed."""
    demo.in_process = not demo.engine_serves()
    code = 0
    no_database = demo.database is not None and not demo.database.exists()
    if not no_database and demo.stack_status() is not None:
        code = demo.stackctl("stack-delete", "-y", demo.name).returncode
    pid = demo.stop_master()
    print(f"hearth-master (pid {pid}) stopped." if pid else "No demo hearth-master runs.")
    if code == 0:
        for path in [*demo.uninstall(), *demo.remove_made()]:
            print(f"Removed {path}.")
        if demo.directory.is_dir():   # not when the whole home went
            shutil.rmtree(demo.directory)
            print(f"Removed {demo.directory} (the demo master's settings and log).")
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

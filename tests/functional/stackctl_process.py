"""Run ``stackctl`` as a real subprocess on a private HEARTH_HOME (helpers for tests)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

STACKCTL = str(Path(sys.executable).with_name("stackctl"))
#: The checkout (its templates/ are what a user runs).
ROOT = Path(__file__).resolve().parents[2]

SLOW_TEMPLATE = """
heat_template_version: 2018-08-31
resources:
  first: {type: OS::Heat::None}
  slow:
    type: OS::Heat::TestResource
    depends_on: first
    properties: {action_wait_secs: {create: 30}}
"""


def environment(home: Path, config: Path | None = None) -> dict[str, str]:
    """Return the environment of a stackctl process using ``home`` (and ``config``)."""
    env = dict(os.environ, HEARTH_HOME=str(home), PYTHONWARNINGS="ignore")
    env.pop("HEARTH_URL", None)
    if config is not None:
        env["HEARTH_CONFIG"] = str(config)
    else:
        env.pop("HEARTH_CONFIG", None)
    return env


def run(home: Path, *args: str, config: Path | None = None,
        timeout: float = 60, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run ``stackctl *args`` (in ``cwd``) to its end; return the completed process."""
    return subprocess.run([STACKCTL, *args], env=environment(home, config), text=True,
                          capture_output=True, stdin=subprocess.DEVNULL, timeout=timeout,
                          cwd=cwd)


def start(home: Path, *args: str, config: Path | None = None) -> subprocess.Popen:
    """Start ``stackctl *args``; its stdout is a line-buffered text pipe."""
    return subprocess.Popen([STACKCTL, *args], env=environment(home, config), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, bufsize=1)


def read_until(process: subprocess.Popen, needle: str, timeout: float = 30) -> list[str]:
    """Read ``process``'s stdout lines until one contains ``needle``; return them all."""
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            raise AssertionError(f"stackctl ended before {needle!r}: {lines}"
                                 f"{process.stderr.read()}")
        lines.append(line)
        if needle in line:
            return lines
    raise AssertionError(f"{needle!r} not seen in time: {lines}")


def kill_engine(home: Path, process: subprocess.Popen) -> None:
    """SIGKILL ``process`` (a stackctl following an action) and the engine acting for it.

    The engine is the local engine serving ``home`` (stackctl runs none in
    its own process); stackctl goes first, so that it cannot start a new one.
    """
    import signal

    from hearth.cli import local_engine
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=30)
    for info in local_engine.engines():
        if info.get("home") == os.path.realpath(home):
            os.kill(info["pid"], signal.SIGKILL)
            while local_engine.pid_alive(info["pid"]):
                time.sleep(0.02)

"""stackctl's local engine: a resident engine per user and configuration.

Without ``--url``, stackctl does not run the engine in its own process: it
talks to a *local engine*, a ``hearth-api`` application serving this user
only, on a Unix socket in a private runtime directory
(``$XDG_RUNTIME_DIR/hearth`` or ``/tmp/hearth-<uid>``, mode 0700), on the
embedded SQLite database (or whatever ``[database] connection`` names).
Heat's CLI talks to heat-engine and Salt's to salt-master the same way; the
difference is that stackctl starts the engine itself on first use, and the
engine stops itself once idle (``[cli] local_engine_idle_timeout``).

One engine serves one *setting*: the same configuration files, state
directory (``HEARTH_HOME``) and the environment variables that change what
an engine does (:data:`ENGINE_VARIABLES`: Hearth's own, PYTHONPATH, the
cloud libraries'); not the working directory (a relative path in a
configuration file is taken from that file's directory) nor the rest of the
environment.  The socket's name is a digest of that setting, so a command
run with another configuration reaches (or starts) another engine.  Before
its first request, a command asks the engine whether its setting is still
current (configuration files, plug-in and module directories, Hearth's
code, the database file): a stale engine retires (it finishes what it
runs, then exits) and a fresh one starts in its place.

``--in-process`` (or ``HEARTH_IN_PROCESS=1``) runs the engine inside
stackctl instead, as a short-lived engine for that one command.

This module uses the standard library only: it is what every stackctl
command pays for before reaching the engine.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import select
import signal
import stat
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any

from hearth.api.local_info import read_info
from hearth.cli.backend_local import LocalTransport
from hearth.cli.local_http import NOT_SERVED, UnixSession
from hearth.common import exception, paths

RUNTIME_DIR_ENV = "HEARTH_RUNTIME_DIR"
IN_PROCESS_ENV = "HEARTH_IN_PROCESS"
#: The environment variables that change what an engine does, beside ``HEARTH_HOME`` and
#: the configuration files (whose names and content the setting holds): Hearth's own,
#: the code it may import (PYTHONPATH), and those the libraries of its cloud drivers
#: read (boto3's AWS_*, the proxies).  Any other variable (the terminal's, PATH, the
#: working directory, make's) is the client's: an engine keeps those it started with.
ENGINE_VARIABLES = frozenset({"PYTHONPATH", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY",
                              "http_proxy", "https_proxy", "no_proxy"})
ENGINE_VARIABLE_PREFIXES = ("HEARTH_", "AWS_")
#: Hearth's variables that only stackctl reads (or that the setting holds resolved).
CLIENT_VARIABLES = frozenset({"HEARTH_URL", "HEARTH_TOKEN", "HEARTH_IN_PROCESS",
                              "HEARTH_RUNTIME_DIR", "HEARTH_LOCAL_ENGINES", "HEARTH_HOME",
                              "HEARTH_CONFIG", "HEARTH_DEMO_PORT"})
#: Seconds a starting engine gets to say it is ready.
START_TIMEOUT = 120.0
#: Seconds one request may take (a create answers once stored, not once done).
REQUEST_TIMEOUT = 300.0
#: Seconds a stopped engine gets to end (finishing its actions) before it is killed.
STOP_TIMEOUT = 30.0
#: The project of the local admin, as in the in-process mode.
LOCAL_PROJECT = "admin"
#: Most engines of one user kept running: starting another retires the least
#: recently used idle ones.
MAX_ENGINES_ENV = "HEARTH_LOCAL_ENGINES"
DEFAULT_MAX_ENGINES = 4


class LocalEngineError(exception.HearthException):
    """The local engine could not be started or reached."""

    msg_fmt = "%(message)s"


@dataclass(frozen=True)
class Setting:
    """What an engine is started with; its digest names the engine."""

    config_files: tuple[str, ...]
    home: str
    environment: tuple[tuple[str, str], ...]

    @classmethod
    def current(cls, config_files: list[str] | None) -> Setting:
        """Return this process's setting (``config_files`` from ``--config-file``)."""
        files = [os.path.abspath(path) for path in config_files or ()]
        if not files:
            files = [os.path.abspath(path) for path in paths.default_config_files()]
        return cls(tuple(files), os.path.realpath(paths.hearth_home()),
                   engine_environment(os.environ))

    @property
    def key(self) -> str:
        """Return the digest naming this setting's engine."""
        text = json.dumps([sys.executable, self.config_files, self.home, self.environment])
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


def engine_environment(environ: Any) -> tuple[tuple[str, str], ...]:
    """Return the variables of ``environ`` that change what an engine does, sorted."""
    return tuple(sorted(
        (name, value) for name, value in environ.items()
        if (name in ENGINE_VARIABLES or name.startswith(ENGINE_VARIABLE_PREFIXES))
        and name not in CLIENT_VARIABLES))


def runtime_dir() -> str:
    """Return (making it) this user's private directory of engine sockets."""
    path = os.environ.get(RUNTIME_DIR_ENV)
    if not path:
        base = os.environ.get("XDG_RUNTIME_DIR")
        path = os.path.join(base, "hearth") if base else f"/tmp/hearth-{os.getuid()}"
    try:
        paths.ensure_directory(path, "the local engine's runtime directory", 0o700)
    except exception.DirectoryUnusable as error:
        raise LocalEngineError(message=f"{error}; move it away or set {RUNTIME_DIR_ENV}"
                               ) from None
    status = os.lstat(path)
    if (not stat.S_ISDIR(status.st_mode) or status.st_uid != os.getuid()
            or status.st_mode & 0o077):
        raise LocalEngineError(message=f"{path} must be a directory of yours that nobody "
                                       "else may read (mode 0700); fix it or set "
                                       f"{RUNTIME_DIR_ENV}")
    return path


@dataclass(frozen=True)
class Address:
    """The files of one engine in the runtime directory."""

    directory: str
    key: str

    @property
    def socket(self) -> str:
        """Return the engine's Unix socket path."""
        return os.path.join(self.directory, f"{self.key}.sock")

    @property
    def info(self) -> str:
        """Return the path of the engine's description (pid, home, log)."""
        return os.path.join(self.directory, f"{self.key}.json")

    @property
    def lock(self) -> str:
        """Return the path of the lock held while an engine starts."""
        return os.path.join(self.directory, f"{self.key}.lock")


def engines(directory: str | None = None) -> list[dict[str, Any]]:
    """Return the descriptions of this user's engines whose process is alive."""
    directory = directory or runtime_dir()
    found = []
    for name in sorted(os.listdir(directory)) if os.path.isdir(directory) else ():
        if name.endswith(".json"):
            info = read_info(os.path.join(directory, name))
            if info and pid_alive(info.get("pid", 0)):
                found.append(info)
    return found


def pid_alive(pid: int) -> bool:
    """Return whether a process of that id exists and has not ended.

    An engine this process started (stackctl run as a library, ``main.main``)
    is its child: once it ends it stays a zombie, which signal 0 still finds,
    until it is reaped; it is reaped here.
    """
    if pid <= 0:
        return False
    try:
        ended, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:  # another process's: signal 0 tells
        pass
    else:
        return ended != pid
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return pid > 0


class LocalEngine:
    """Find, check and start the engine of one setting."""

    def __init__(self, setting: Setting) -> None:
        self.setting = setting
        self.address = Address(runtime_dir(), setting.key)

    def session(self) -> UnixSession:
        """Return a :class:`~hearth.cli.local_http.UnixSession` on a fresh engine."""
        session = UnixSession(self.address.socket, REQUEST_TIMEOUT, reconnect=self.restart)
        if not self._fresh(session):
            self._retire(session)
            session.close()
            self.start()
        return session

    def _fresh(self, session: UnixSession) -> bool:
        """Ask the engine whether its setting is current (False: none answers, or stale)."""
        try:
            response = session.request("GET", "/local/status")
        except NOT_SERVED:
            session.close()
            return False
        if response.status_code != 200:
            return False
        return bool(response.json().get("fresh"))

    @staticmethod
    def _retire(session: UnixSession) -> None:
        try:
            session.request("POST", "/local/retire")
        except NOT_SERVED:
            pass

    def restart(self) -> str:
        """Start an engine if none answers (the last one stopped); return its socket."""
        self.start()
        return self.address.socket

    def start(self) -> None:
        """Start an engine for this setting unless another command just did."""
        with open(self.address.lock, "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                if self._answers():
                    return
                evict_idle_engines(self.address)
                self._spawn()
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _answers(self) -> bool:
        probe = UnixSession(self.address.socket, 5.0)
        try:
            return self._fresh(probe)
        finally:
            probe.close()

    def _spawn(self) -> None:
        command = [sys.executable, "-m", "hearth.api.local_server",
                   "--socket", self.address.socket, "--info", self.address.info]
        for path in self.setting.config_files:
            command += ["--config-file", path]
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True,
            env=dict(os.environ, EVENTLET_NO_GREENDNS="yes", HEARTH_HOME=self.setting.home))
        assert process.stdout is not None
        readable, _, _ = select.select([process.stdout], [], [], START_TIMEOUT)
        line = process.stdout.readline().decode("utf-8", "replace").strip() if readable else ""
        process.stdout.close()
        if line == "ready":
            return
        kind, _, message = line.partition(" ")
        if kind == "error":
            raise LocalEngineError(message=message)
        raise LocalEngineError(message="The local engine did not start "
                                       f"(exit status {process.poll()}); run the command "
                                       "with --in-process to see why")


def evict_idle_engines(address: Address) -> None:
    """Retire the least recently used idle engines beyond the per-user maximum."""
    limit = int(os.environ.get(MAX_ENGINES_ENV) or DEFAULT_MAX_ENGINES)
    others = [info for info in engines(address.directory) if info.get("socket") != address.socket]

    def last_used(info: dict[str, Any]) -> float:
        try:
            return os.stat(info["socket"]).st_mtime
        except OSError:
            return 0.0
    others.sort(key=last_used)
    for info in others[:max(0, len(others) - limit + 1)]:
        session = UnixSession(info["socket"], 5.0)
        try:
            session.request("POST", "/local/retire", params={"idle_only": "true"})
        except NOT_SERVED:
            pass
        finally:
            session.close()


def in_process_requested(args: Any) -> bool:
    """Return whether the command asked to run the engine in its own process."""
    flag = os.environ.get(IN_PROCESS_ENV, "").lower() in ("1", "true", "yes")
    return bool(getattr(args, "in_process", False)) or flag


def local_transport(args: Any) -> LocalTransport:
    """Return the transport to this setting's local engine (started if need be)."""
    engine = LocalEngine(Setting.current(getattr(args, "config_file", None)))
    return LocalTransport(f"http://localhost/v1/{LOCAL_PROJECT}", engine.session())


def stop_engines(infos: list[dict[str, Any]], timeout: float = STOP_TIMEOUT) -> list[int]:
    """Stop these engines (SIGTERM: running actions get the graceful timeout); return pids.

    An engine still alive after ``timeout`` seconds is killed.
    """
    pids = [info["pid"] for info in infos]
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + timeout
    while any(pid_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in pids:
        if pid_alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:  # it ended in between
                pass
    return pids

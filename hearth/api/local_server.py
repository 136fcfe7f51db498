"""The local engine: Hearth's API for one user's stackctl, on a Unix socket.

Started by stackctl (:mod:`hearth.cli.local_engine`) as
``python -m hearth.api.local_server --socket PATH --info PATH [--config-file F]...``.
It is the same application as ``hearth-api`` (the REST routes, the engine
on green threads, one process), with these differences:

* it listens on a Unix socket in the user's private runtime directory, and
  every caller is the local admin (only this user can reach the socket);
* ``GET /local/pause?seconds=S`` waits up to S seconds, less when a stack
  action ends here: a follower's wait between two polls;
* it also serves the operations of the table that are the local engine's
  alone (the plug-ins that failed to load, for ``stackctl resource-type-list
  --all``; Heat's API has no such route);
* ``GET /local/status`` says whether the engine's *setting* is current (its
  configuration files, plug-in and module directories, Hearth's code and
  the database file are as they were when it started), and
  ``POST /local/retire`` makes it retire: it stops taking new connections
  and exits once nothing runs in it;
* it exits on its own after ``[cli] local_engine_idle_timeout`` seconds with
  no request and no stack action, or as soon as it is idle once retired or
  once its database file is gone.

It prints one line on its standard output, ``ready`` or ``error MESSAGE``,
and then logs to ``<state_path>/local-engine.log``.  It does not
monkey-patch: the engine runs as it does inside stackctl (``--in-process``),
green where Hearth makes it so (:mod:`hearth.common.green`), real threads
and select elsewhere (the event bus's ZeroMQ forwarder, the local cloud
driver's children).
"""

from __future__ import annotations

import gc

if __name__ == "__main__":
    # Start-up builds some 120,000 objects that live as long as the process (modules,
    # plug-ins, the application): collecting while they are made only scans them again and
    # again (a tenth of the start's CPU).  main() collects once, freezes them, and re-enables.
    gc.disable()

import argparse
import hashlib
import json
import os
import socket
import sys
import sysconfig
import time
import urllib.parse
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import eventlet
import eventlet.event

import hearth
from hearth.api import serving
from hearth.api.local_info import read_info, write_info
from hearth.api.server import serve
from hearth.common import config, daemon, exception, paths

#: Seconds between two checks of idleness and of the database file.
WATCH_INTERVAL = 1.0
#: Longest wait of ``GET /local/pause`` (seconds).
MAX_PAUSE = 5.0
#: Most files one directory walk looks at for the setting's signature.
MAX_WALKED = 5000


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the local engine."""
    parser = argparse.ArgumentParser(prog="hearth-local-engine",
                                     description="Serve Hearth's API to this user's stackctl.")
    parser.add_argument("--socket", required=True, help="Unix socket to listen on.")
    parser.add_argument("--info", required=True,
                        help="Where to write the engine's description (JSON).")
    parser.add_argument("--config-file", action="append", metavar="FILE", default=None,
                        help="Configuration file (repeatable).")
    return parser


def _walk(directory: str) -> Iterable[tuple[str, int, int]]:
    """Yield (path, mtime_ns, size) of a directory's entries, depth first, bounded."""
    seen = 0
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in [".", *sorted(files)]:
            path = os.path.join(root, name)
            try:
                status = os.stat(path)
            except OSError:
                continue
            yield path, status.st_mtime_ns, status.st_size
            seen += 1
            if seen >= MAX_WALKED:
                return


def setting_signature(conf: Any, db_url: str) -> str:
    """Return a digest of what the engine loaded: a change means it is stale."""
    parts: list[Any] = []
    directories = [os.path.dirname(hearth.__file__), *conf.plugin_dirs, *conf.module_dirs,
                   *conf.cloud_dirs, conf.extension_modules, *(conf.config_dir or [])]
    for path in [*(conf.config_file or []), sysconfig.get_paths()["purelib"]]:
        try:
            status = os.stat(path)
            parts.append((path, status.st_mtime_ns, status.st_size))
        except OSError:
            parts.append((path, None))
    for directory in directories:
        if directory and os.path.isdir(directory):
            parts.extend(_walk(directory))
    database = sqlite_path(db_url)
    if database is not None:
        try:
            status = os.stat(database)
            parts.append(("db", status.st_dev, status.st_ino))
        except OSError:
            parts.append(("db", None))
    return hashlib.sha256(repr(parts).encode("utf-8")).hexdigest()


def working_directory(config_files: Sequence[str] | None, state_path: str) -> str:
    """Return where the engine works, whoever started it (made if need be).

    The directory of its most specific configuration file (the last one), so
    that a relative path in the files beside it (a pillar configuration's
    ext_pillar arguments) means what it means there; else its state
    directory.  Never the directory of the command that happened to start it.
    """
    if config_files:
        return os.path.dirname(os.path.abspath(config_files[-1]))
    return paths.ensure_directory(state_path, "the state directory")


def sqlite_path(db_url: str) -> str | None:
    """Return the file of an SQLite database URL (None for another database)."""
    prefix = "sqlite:///"
    return db_url[len(prefix):] if db_url.startswith(prefix) else None


class LocalEngine:
    """Wrap the API application: the ``/local`` routes, idleness and retirement."""

    def __init__(self, app: Any, service: Any, socket_path: str, idle_timeout: float,
                 signature: Callable[[], str]) -> None:
        self.app = app
        self.service = service
        self.socket_path = socket_path
        self.socket_inode = os.stat(socket_path).st_ino
        self.idle_timeout = idle_timeout
        self.signature = signature
        self.started_signature = signature()
        self.in_flight = 0
        self.last_activity = time.monotonic()
        self.retired = False
        self.stopping = eventlet.event.Event()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        """Serve one request (WSGI)."""
        path = environ.get("PATH_INFO", "")
        if path == "/local/status":
            self._touch_socket()
            return self._answer(start_response, "200 OK", {
                "fresh": not self.retired and self.signature() == self.started_signature,
                "pid": os.getpid()})
        if path == "/local/retire" and environ.get("REQUEST_METHOD") == "POST":
            if "idle_only=true" in environ.get("QUERY_STRING", "") and self.busy():
                return self._answer(start_response, "409 Conflict", {"retired": False})
            self.retire()
            return self._answer(start_response, "200 OK", {"retired": True})
        self.in_flight += 1
        try:
            if path == "/local/pause":
                return self._pause(environ, start_response)
            return self.app(environ, start_response)
        finally:
            self.in_flight -= 1
            self.last_activity = time.monotonic()

    def _pause(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        """Wait up to ``seconds`` (at most :data:`MAX_PAUSE`), less if an action ends here."""
        query = urllib.parse.parse_qs(environ.get("QUERY_STRING", ""))
        try:
            seconds = min(MAX_PAUSE, max(0.0, float(query.get("seconds", ["0"])[0])))
        except ValueError:
            return self._answer(start_response, "400 Bad Request", {"error": "seconds"})
        self.service.pause(seconds)
        return self._answer(start_response, "200 OK", {})

    @staticmethod
    def _answer(start_response: Callable[..., Any], status: str, body: Any) -> list[bytes]:
        data = json.dumps(body).encode("utf-8")
        start_response(status, [("Content-Type", "application/json"),
                                ("Content-Length", str(len(data)))])
        return [data]

    def _touch_socket(self) -> None:
        """Mark the socket used now (the least recently used engines are retired first)."""
        try:
            os.utime(self.socket_path)
        except OSError:
            pass

    def busy(self) -> bool:
        """Return whether a request or a stack action is running here."""
        return self.in_flight > 0 or self.service.acting

    def retire(self) -> None:
        """Take no new connections (the socket's name is freed); exit once idle."""
        self.retired = True
        try:
            if os.stat(self.socket_path).st_ino == self.socket_inode:
                os.unlink(self.socket_path)
        except OSError:
            pass

    def database_gone(self) -> bool:
        """Return whether the engine's SQLite database file was removed."""
        database = sqlite_path(config.database_url())
        return database is not None and not os.path.exists(database)

    def watch(self) -> None:
        """Stop the server when idle too long, or idle once retired or orphaned."""
        while not self.stopping.ready():
            eventlet.sleep(WATCH_INTERVAL)
            if self.busy():
                continue
            idle = time.monotonic() - self.last_activity
            if self.retired or self.database_gone() or idle >= self.idle_timeout:
                self.retire()
                self.stopping.send("idle")
                return


def listen(path: str) -> Any:
    """Listen on a Unix socket at ``path`` (mode 0600), replacing a dead one's file."""
    temporary = f"{path}.{os.getpid()}"
    old_mask = os.umask(0o177)
    try:
        listener = eventlet.listen(temporary, family=socket.AF_UNIX)
    finally:
        os.umask(old_mask)
    os.replace(temporary, path)
    return listener


def _say(line: str) -> None:
    """Tell the starting stackctl one line, then stop writing to it."""
    print(line, flush=True)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, sys.stdout.fileno())
    os.close(null)


def _describe(error: BaseException) -> str:
    if isinstance(error, exception.HearthException):
        return str(error)
    return f"The local engine could not start ({type(error).__name__}): {error}"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the local engine; return the exit code."""
    args = build_parser().parse_args(argv)
    try:
        config.load(config_files=args.config_file)
        os.chdir(working_directory(args.config_file, config.CONF.state_path))
        daemon.setup_logging("hearth-local-engine",
                             os.path.join(config.CONF.state_path, "local-engine.log"), False)
        app, service = serving.build_application(noauth=True, local_user=True)
        listener = listen(args.socket)
        engine = LocalEngine(app, service, args.socket, config.CONF.cli.local_engine_idle_timeout,
                             lambda: setting_signature(config.CONF, config.database_url()))
    except Exception as error:  # noqa: BLE001 - the starting stackctl prints the reason
        _say("error " + _describe(error).replace("\n", " "))
        return 1
    write_info(args.info, args.socket, args.config_file, config.CONF.state_path)
    # What start-up built (modules, plug-ins, the application) lives as long as the
    # process: frozen, the collector's older-generation passes no longer scan it.
    gc.collect()
    gc.freeze()
    gc.enable()
    _say("ready")
    eventlet.spawn(engine.watch)
    serve(listener, engine, service, stopping=engine.stopping)
    engine.retire()
    if (read_info(args.info) or {}).get("pid") == os.getpid():
        os.unlink(args.info)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

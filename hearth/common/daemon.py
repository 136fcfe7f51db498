"""What hearth-master and hearth-agent share as daemons: options, logging, start and stop.

A daemon's life, as an operator sees it:

* **Start.**  Without ``--foreground`` the command forks; the daemon
  detaches (new session, stdio on /dev/null) and opens what it needs (pid
  file, keys, database, ports), and the command waits: it returns 0 once
  the daemon reports it serves (:meth:`Startup.ready`), or prints the
  reason on stderr and returns 1 when it could not start
  (:meth:`Startup.failed`, or the daemon died meanwhile).  In the
  foreground the same failures are printed and end the process with 1.
* **Pid file.**  ``--pid-file`` is locked (``flock``) for the daemon's whole
  life and holds its pid; a pid file locked by a live process, or naming a
  live process of the same program, is never taken.  It is removed when
  the daemon ends.
* **Stop.**  SIGTERM and SIGINT call the daemon's ``stop``, which drains
  and returns; should that take longer than :data:`STOP_SECONDS`, the
  process ends anyway with exit code 1 and a logged reason.
"""

from __future__ import annotations

import argparse
import errno
import fcntl
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from hearth.common import config, exception, paths

LOG = logging.getLogger(__name__)

#: Seconds a daemon has, after SIGTERM, before it is ended regardless.
STOP_SECONDS = 9.0

_READY = b"ready\n"
_FAILED = b"failed\n"


def build_parser(prog: str, description: str) -> argparse.ArgumentParser:
    """Return the argument parser every Hearth daemon shares."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--config-file", action="append", metavar="FILE", default=None,
                        help="Configuration file (repeatable).")
    parser.add_argument("--foreground", action="store_true",
                        help="Stay in the foreground and log to stderr.")
    parser.add_argument("--log-file", metavar="FILE", default=None,
                        help="Log to FILE (default when detached: <state_path>/<prog>.log).")
    parser.add_argument("--pid-file", metavar="FILE", default=None,
                        help="Write the process id to FILE, locked while the daemon runs "
                             "(refused when a running daemon holds it).")
    parser.add_argument("--debug", action="store_true", help="Log debug messages.")
    return parser


def setup_logging(prog: str, log_file: str | None, debug: bool) -> None:
    """Log to ``log_file`` (or stderr) at INFO, or DEBUG with ``debug``."""
    handler: logging.Handler
    if log_file:
        paths.ensure_directory(os.path.dirname(os.path.abspath(log_file)),
                               "the log file's directory")
        handler = logging.FileHandler(log_file)
    else:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(
        f"%(asctime)s {prog}[%(process)d] %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if debug else logging.INFO)
    logging.getLogger("alembic").setLevel(logging.WARNING)


def load_settings(prog: str, config_files: Sequence[str] | None,
                  from_conf: Callable[[Any], Any]) -> tuple[Any, Any]:
    """Load the configuration files and build a daemon's settings from them.

    A bad configuration is reported on stderr as ``PROG: reason`` (never a
    traceback) and ends the process with exit code 2.
    """
    try:
        conf = config.load(config_files=config_files)
        return conf, from_conf(conf)
    except Exception as error:  # noqa: BLE001 - a bad configuration is reported, not traced
        print(f"{prog}: {error}", file=sys.stderr)
        raise SystemExit(2) from None


class Startup:
    """A starting daemon's line back to the command that started it (see the module docstring)."""

    def __init__(self, prog: str, log_file: str | None, report_fd: int | None) -> None:
        self.prog = prog
        self.log_file = log_file
        self._report_fd = report_fd
        self._pid_file: PidFile | None = None

    def take_pid_file(self, path: str | None) -> None:
        """Lock and write the pid file ``path`` (none when None); raise DaemonStartFailed."""
        if path:
            self._pid_file = PidFile(path, self.prog)

    def ready(self) -> None:
        """Tell the starting command that the daemon serves (it then returns 0)."""
        LOG.info("%s serves (pid %d)", self.prog, os.getpid())
        self._report(_READY)

    def failed(self, reason: Any) -> int:
        """Report why the daemon cannot start; return the exit code (1)."""
        LOG.error("%s cannot start: %s", self.prog, reason)
        self.release()  # before the report: the command returns with no pid file left
        if self._report_fd is None:
            print(f"{self.prog}: {reason}", file=sys.stderr)
        self._report(_FAILED + str(reason).encode(errors="replace"))
        return 1

    def release(self) -> None:
        """Remove the pid file (the daemon ends)."""
        if self._pid_file is not None:
            self._pid_file.release()
            self._pid_file = None

    def _report(self, data: bytes) -> None:
        if self._report_fd is None:
            return
        try:
            os.write(self._report_fd, data)
        except OSError:
            pass  # the command was killed meanwhile: nobody to tell
        os.close(self._report_fd)
        self._report_fd = None


def start(args: argparse.Namespace, prog: str, default_log: str) -> Startup:
    """Detach unless ``--foreground``, set up logging and take the pid file.

    Returns the :class:`Startup` through which the daemon reports that it
    serves or why it cannot; the command that started a detached daemon
    waits for that report.  A pid file that cannot be taken is reported at
    once (the process ends with 1).
    """
    log_file = args.log_file
    report_fd = None
    if not args.foreground:
        log_file = log_file or default_log
        report_fd = _detach(prog, log_file)
    setup_logging(prog, log_file, args.debug)
    startup = Startup(prog, log_file, report_fd)
    try:
        startup.take_pid_file(args.pid_file)
    except exception.DaemonStartFailed as error:
        raise SystemExit(startup.failed(error)) from None
    return startup


def _detach(prog: str, log_file: str) -> int:
    """Detach (double fork, new session, stdio on /dev/null); return the report pipe's end.

    The process that called this waits in :func:`_await_report` and never returns.
    """
    read_fd, write_fd = os.pipe()
    if os.fork() > 0:
        os.close(write_fd)
        _await_report(prog, read_fd, log_file)
    os.close(read_fd)
    os.setsid()
    if os.fork() > 0:
        os._exit(0)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    return write_fd


def _await_report(prog: str, read_fd: int, log_file: str) -> NoReturn:
    """Wait for the detached daemon's report; exit 0 when it serves, else 1 with the reason."""
    chunks = []
    while chunk := os.read(read_fd, 65536):
        chunks.append(chunk)
    report = b"".join(chunks)
    try:
        os.wait()  # the intermediate child, which exits at once
    except ChildProcessError:
        pass
    if report == _READY:
        os._exit(0)
    reason = report[len(_FAILED):].decode(errors="replace") if report.startswith(_FAILED) \
        else f"it exited while starting; see {log_file}"
    sys.stderr.write(f"{prog}: {reason}\n")
    sys.stderr.flush()
    os._exit(1)


class PidFile:
    """A pid file locked for the life of the process (see the module docstring)."""

    def __init__(self, path: str, prog: str) -> None:
        self.path = os.path.abspath(path)
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        try:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise exception.DaemonStartFailed(
                reason=f"cannot open the pid file {self.path}: {error.strerror}") from None
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            owner = self._recorded_pid()
            os.close(self._fd)
            if error.errno not in (errno.EAGAIN, errno.EACCES):
                raise exception.DaemonStartFailed(
                    reason=f"cannot lock the pid file {self.path}: {error.strerror}") from None
            raise exception.DaemonStartFailed(
                reason=f"the pid file {self.path} is held by running process {owner}: is "
                       f"another {prog} running with it?") from None
        owner = self._recorded_pid()
        if owner and owner != os.getpid() and _runs(owner, prog):
            os.close(self._fd)
            raise exception.DaemonStartFailed(
                reason=f"the pid file {self.path} names running process {owner} ({prog}); "
                       f"stop it first, or give this {prog} another --pid-file")
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, f"{os.getpid()}\n".encode(), 0)

    def _recorded_pid(self) -> int | None:
        try:
            os.lseek(self._fd, 0, os.SEEK_SET)
            return int(os.read(self._fd, 64).split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def release(self) -> None:
        """Remove the pid file if it is still this process's, and unlock it."""
        try:
            if self._recorded_pid() == os.getpid():
                os.unlink(self.path)
        except OSError:
            pass
        os.close(self._fd)


def _runs(pid: int, prog: str) -> bool:
    """Return whether process ``pid`` lives and runs ``prog``."""
    import psutil  # lazy: 30 ms of every daemon's start, only when a pid file names a pid

    try:
        process = psutil.Process(pid)
        return process.status() != psutil.STATUS_ZOMBIE and \
            any(prog in part for part in process.cmdline())
    except psutil.Error:
        return False


def on_termination(stop: Callable[[], None],
                   signals: Sequence[int] = (signal.SIGTERM, signal.SIGINT),
                   deadline: float = STOP_SECONDS) -> None:
    """Call ``stop`` when the process is asked to terminate; end it after ``deadline`` s.

    ``stop`` only asks the daemon's loop to drain and return; should
    anything hold the process longer (a stuck thread), it ends with exit
    code 1 and says so in the log.
    """
    def terminate(number: int, frame: Any) -> None:
        LOG.info("%s received: stopping", signal.Signals(number).name)
        stop()
        timer = threading.Timer(deadline, _stop_now, args=(deadline,))
        timer.daemon = True
        timer.start()

    for number in signals:
        signal.signal(number, terminate)


def _stop_now(deadline: float) -> None:
    LOG.error("not stopped %s s after the request to stop: exiting now", deadline)
    logging.shutdown()
    os._exit(1)


def watch_thread(name: str, target: Callable[[], None],
                 on_death: Callable[[str], None]) -> threading.Thread:
    """Start ``target`` on a daemon thread; should it raise, call ``on_death(reason)``.

    A daemon whose internal thread died must not stay half alive: the
    callback stops it with the reason.
    """
    def run() -> None:
        try:
            target()
        except BaseException as error:  # noqa: BLE001 - reported, then the daemon stops
            LOG.debug("thread %s died", name, exc_info=True)
            on_death(f"its {name} thread died: {type(error).__name__}: {error}")

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    return thread

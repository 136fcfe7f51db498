"""Run a child process and collect its output, as cheaply as the request allows.

The common case (no cwd, user, stdin or timeout) goes straight to
``os.posix_spawn`` with pipes, which costs little more than the child
itself; anything else goes through :class:`subprocess.Popen`.  Both return
the same :class:`ProcessResult`.
"""

from __future__ import annotations

import os
import selectors
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

READ_SIZE = 65536


@dataclass(frozen=True)
class ProcessResult:
    """What a finished child process left: pid, exit code and output."""

    pid: int
    retcode: int
    stdout: str
    stderr: str
    timed_out: bool = False


def _drain(pipes: dict[int, list[bytes]]) -> None:
    """Read every pipe in ``pipes`` to its end (several at once without deadlock)."""
    if len(pipes) == 1:
        (fd, chunks), = pipes.items()
        while data := os.read(fd, READ_SIZE):
            chunks.append(data)
        return
    with selectors.DefaultSelector() as selector:
        for fd in pipes:
            selector.register(fd, selectors.EVENT_READ)
        remaining = len(pipes)
        while remaining:
            for key, _ in selector.select():
                data = os.read(key.fd, READ_SIZE)
                if data:
                    pipes[key.fd].append(data)
                else:
                    selector.unregister(key.fd)
                    remaining -= 1


def spawn(argv: Sequence[str], env: Mapping[str, str] | None = None,
          redirect_stderr: bool = False) -> ProcessResult:
    """Run ``argv`` (``argv[0]`` an absolute path) with stdin from /dev/null; wait for it."""
    out_read, out_write = os.pipe()
    actions = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
               (os.POSIX_SPAWN_DUP2, out_write, 1)]
    err_read = err_write = None
    if redirect_stderr:
        actions.append((os.POSIX_SPAWN_DUP2, out_write, 2))
    else:
        err_read, err_write = os.pipe()
        actions.append((os.POSIX_SPAWN_DUP2, err_write, 2))
    pipes: dict[int, list[bytes]] = {out_read: []}
    if err_read is not None:
        pipes[err_read] = []
    try:
        pid = os.posix_spawn(argv[0], list(argv), env if env is not None else os.environ,
                             file_actions=actions)
    except OSError:
        for fd in pipes:
            os.close(fd)
        raise
    finally:
        os.close(out_write)
        if err_write is not None:
            os.close(err_write)
    try:
        _drain(pipes)
    finally:
        for fd in pipes:
            os.close(fd)
        _, status = os.waitpid(pid, 0)
    text = {fd: b"".join(chunks).decode(errors="replace") for fd, chunks in pipes.items()}
    return ProcessResult(pid, os.waitstatus_to_exitcode(status), text[out_read],
                         text.get(err_read, "") if err_read is not None else "")


def popen(argv: Sequence[str], cwd: str | None = None, env: Mapping[str, str] | None = None,
          user: str | None = None, stdin: str | None = None, timeout: float | None = None,
          redirect_stderr: bool = False) -> ProcessResult:
    """Run ``argv`` with the full set of options; kill it after ``timeout`` seconds."""
    process = subprocess.Popen(
        list(argv), cwd=cwd, env=env, user=user,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT if redirect_stderr else subprocess.PIPE,
        text=True)
    try:
        stdout, stderr = process.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        return ProcessResult(process.pid, 1, "", "", timed_out=True)
    return ProcessResult(process.pid, process.returncode, stdout or "", stderr or "")


def run_process(argv: Sequence[str], cwd: str | None = None,
                env: Mapping[str, str] | None = None, user: str | None = None,
                stdin: str | None = None, timeout: float | None = None,
                redirect_stderr: bool = False) -> ProcessResult:
    """Run ``argv`` by the cheapest route that honours the options given."""
    if cwd is None and user is None and stdin is None and timeout is None and \
            os.path.isabs(argv[0]):
        return spawn(argv, env, redirect_stderr)
    return popen(argv, cwd, env, user, stdin, timeout, redirect_stderr)

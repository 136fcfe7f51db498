"""Run commands: ``cmd.run``, ``run_all``, ``run_stdout``, ``run_stderr``, ``retcode``, ``script``.

Without ``python_shell`` a command string is split like a shell would split
it and run directly (no shell, and the cheapest spawn the platform offers);
``python_shell=True`` runs it through ``shell -c``.  ``env`` is never
modified.  The exit code goes to ``__context__['retcode']``, so a failing
command fails its job.
"""

from __future__ import annotations

import logging
import os
import pwd
import shlex
import shutil
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from hearth.common.exception import CommandExecutionError
from hearth.utils.spawn import run_process

LOG = logging.getLogger(__name__)
DEFAULT_SHELL = "/bin/sh"


@lru_cache(maxsize=256)
def _which(program: str) -> str:
    """Return ``program``'s absolute path (cached: posix_spawn needs one)."""
    return shutil.which(program) or program


def _argv(cmd: str | Sequence[str], shell: str, python_shell: bool | None) -> list[str]:
    if python_shell:
        line = cmd if isinstance(cmd, str) else shlex.join(cmd)
        return [shell, "-c", line]
    argv = list(_split(cmd)) if isinstance(cmd, str) else [str(part) for part in cmd]
    if not argv:
        raise CommandExecutionError("No command given to run.")
    if os.sep not in argv[0]:
        argv[0] = _which(argv[0])
    return argv


@lru_cache(maxsize=256)
def _split(line: str) -> tuple[str, ...]:
    """Split a command line like a shell (cached: jobs repeat their commands)."""
    return tuple(shlex.split(line))


def _environment(env: Mapping[str, Any] | None, clean_env: bool) -> dict[str, str] | None:
    if not env and not clean_env:
        return None
    base = {} if clean_env else dict(os.environ)
    base.update({str(k): str(v) for k, v in (env or {}).items()})
    return base


def _user_of(runas: str | None) -> str | None:
    if not runas:
        return None
    if os.geteuid() != 0:

        if pwd.getpwuid(os.geteuid()).pw_name == runas:
            return None
        raise CommandExecutionError(f"Cannot run as user {runas!r}: runas needs root.")
    return runas


def _run(cmd: str | Sequence[str], cwd: str | None = None, stdin: str | None = None,
         runas: str | None = None, shell: str = DEFAULT_SHELL, python_shell: bool | None = None,
         env: Mapping[str, Any] | None = None, clean_env: bool = False, rstrip: bool = True,
         timeout: float | None = None, ignore_retcode: bool = False,
         redirect_stderr: bool = False, success_retcodes: Sequence[int] | None = None,
         **_ignored: Any) -> dict[str, Any]:
    """Run a command; return Salt's ``run_all`` dict and set ``__context__['retcode']``."""
    argv = _argv(cmd, shell, python_shell)
    try:
        result = run_process(argv, cwd=cwd, env=_environment(env, clean_env),
                             user=_user_of(runas), stdin=stdin, timeout=timeout,
                             redirect_stderr=redirect_stderr)
    except OSError as error:
        raise CommandExecutionError(f"Unable to run command {argv!r}: {error}") from error
    retcode, stdout, stderr = result.retcode, result.stdout, result.stderr
    if result.timed_out:
        stdout = f"{argv} : Timed out after {timeout} seconds"
    if success_retcodes and retcode in success_retcodes:
        retcode = 0
    if retcode and not ignore_retcode:
        LOG.error("Command %r failed with return code: %s", argv, retcode)
    __context__["retcode"] = retcode  # noqa: F821 - injected by the loader
    if rstrip:
        stdout, stderr = stdout.rstrip(), stderr.rstrip()
    return {"pid": result.pid, "retcode": retcode, "stdout": stdout, "stderr": stderr}


def run(cmd: str, **kwargs: Any) -> str:
    """Run ``cmd`` and return its output (stdout and stderr combined).

    Options: cwd, stdin, runas (root only), shell, python_shell, env,
    clean_env, rstrip, timeout, ignore_retcode, redirect_stderr (default
    True), success_retcodes.

    CLI Example: ``stackctl call cmd.run 'echo hi'``
    """
    kwargs.setdefault("redirect_stderr", True)
    result = _run(cmd, **kwargs)
    if result["stderr"]:
        return f"{result['stdout']}\n{result['stderr']}" if result["stdout"] else result["stderr"]
    return result["stdout"]


def run_all(cmd: str, **kwargs: Any) -> dict[str, Any]:
    """Run ``cmd``; return ``{"pid", "retcode", "stdout", "stderr"}``."""
    return _run(cmd, **kwargs)


def run_stdout(cmd: str, **kwargs: Any) -> str:
    """Run ``cmd`` and return its standard output."""
    return _run(cmd, **kwargs)["stdout"]


def run_stderr(cmd: str, **kwargs: Any) -> str:
    """Run ``cmd`` and return its standard error."""
    return _run(cmd, **kwargs)["stderr"]


def retcode(cmd: str, **kwargs: Any) -> int:
    """Run ``cmd`` and return its exit code."""
    kwargs.setdefault("rstrip", False)
    return _run(cmd, **kwargs)["retcode"]


def shell(cmd: str, **kwargs: Any) -> str:
    """Run ``cmd`` through the shell (``python_shell=True``) and return its output."""
    return run(cmd, python_shell=True, **kwargs)


def script(source: str, args: str | None = None, cwd: str | None = None,
           **kwargs: Any) -> dict[str, Any]:
    """Run the local script ``source`` with ``args``; return like ``run_all``.

    The script runs directly when it is executable, through the shell otherwise.
    """
    if "://" in source:
        raise CommandExecutionError(f"Only local script paths are supported, not {source!r}.")
    if not os.path.isfile(source):
        raise CommandExecutionError(f"Script {source!r} does not exist.")
    runner = [source] if os.access(source, os.X_OK) else [kwargs.get("shell", DEFAULT_SHELL),
                                                          source]
    return _run([*runner, *shlex.split(args or "")], cwd=cwd, **kwargs)


def which(cmd: str) -> str | None:
    """Return the full path of the program ``cmd``, or None."""
    return shutil.which(cmd)


def has_exec(cmd: str) -> bool:
    """Return whether the program ``cmd`` can be run."""
    return shutil.which(cmd) is not None

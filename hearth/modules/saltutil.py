"""Look at and stop running jobs (Salt's ``saltutil`` job functions), refresh modules."""

from __future__ import annotations

import fnmatch
import os
import signal as signals
from typing import Any

from hearth.agent.sync import sync_files
from hearth.common import exception
from hearth.jobs import ProcTable
from hearth.pillar.refresh import REFRESH_COMPLETE_TAG


def _table() -> ProcTable:
    cachedir = __opts__.get("cachedir") or os.path.join(  # noqa: F821
        __opts__.get("state_path") or ".", "cache")  # noqa: F821
    return ProcTable(os.path.join(cachedir, "proc"))


def running() -> list[dict[str, Any]]:
    """Return the records (fun, pid, jid, tgt) of the jobs running on this host."""
    return _table().running()


def is_running(fun: str) -> list[dict[str, Any]]:
    """Return the running jobs whose function matches the glob ``fun``."""
    return [job for job in running() if fnmatch.fnmatchcase(job.get("fun", ""), fun)]


def find_job(jid: str) -> dict[str, Any]:
    """Return the record of the running job ``jid``, or ``{}``."""
    return _table().find(str(jid))


def signal_job(jid: str, sig: int) -> str:
    """Send the signal ``sig`` to the process running job ``jid``; say what happened."""
    job = find_job(jid)
    if not job:
        return ""
    pid = int(job["pid"])
    if pid == os.getpid():
        control = __opts__.get("job_control")  # noqa: F821 - an agent's job threads
        if control is None:
            return f"Job {jid} runs inside this process (pid {pid}) and cannot be signalled"
        return control.signal(str(jid), int(sig))
    try:
        os.kill(pid, int(sig))
    except ProcessLookupError:
        _table().remove(str(jid))
        return f"Job {jid} was not running and job data has been cleaned up"
    return f"Signal {int(sig)} sent to job {jid} at pid {pid}"


def term_job(jid: str) -> str:
    """Send SIGTERM to the process running job ``jid``."""
    return signal_job(jid, signals.SIGTERM)


def kill_job(jid: str) -> str:
    """Send SIGKILL to the process running job ``jid``."""
    return signal_job(jid, signals.SIGKILL)


def refresh_modules(**kwargs: Any) -> bool:
    """Reload every execution module; return True."""
    __salt__.refresh()  # noqa: F821
    return True


def _channel() -> Any:
    channel = __opts__.get("agent_channel")  # noqa: F821
    if channel is None:
        raise exception.CommandExecutionError(
            "no master to sync from: saltutil.sync_* and refresh_pillar work on agents "
            "(hearth-agent)")
    return channel


def sync_modules(refresh: bool = True, **kwargs: Any) -> list[str]:
    """Fetch the master's execution modules (``[master] module_dirs``); return what changed.

    Each file is checked against the SHA-256 the master lists before it is
    written; files the master no longer serves are removed.  With
    ``refresh`` the modules are reloaded.
    """
    changed = sync_files(_channel(), __opts__["extension_modules"])  # noqa: F821
    if changed and refresh:
        __salt__.refresh()  # noqa: F821
    return [f"modules.{name}" for name in changed]


def sync_all(refresh: bool = True, **kwargs: Any) -> dict[str, list[str]]:
    """Sync every module type the master serves (execution modules); return what changed."""
    return {"modules": sync_modules(refresh=refresh)}


def refresh_pillar(wait: bool = True, timeout: float | None = None, **kwargs: Any) -> bool:
    """Fetch this agent's pillar from the master again, in place; return True.

    Fires ``hearth/agent/pillar_refresh_complete`` once the new pillar is held
    (Salt's ``minion_pillar_refresh_complete``).  Hearth always waits.
    """
    channel = _channel()
    pillar = channel.request("pillar", timeout=timeout)
    __pillar__.clear()  # noqa: F821
    __pillar__.update(pillar or {})  # noqa: F821
    channel.fire_event(REFRESH_COMPLETE_TAG, {"complete": True})
    return True

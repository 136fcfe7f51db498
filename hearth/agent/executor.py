"""Run the master's jobs on threads, through the one loader, and keep each return.

Every job gets its own thread, so several run at once and
``saltutil.running`` / ``find_job`` see them (the running-job table under
the agent's cache dir).  A return is saved to the
:class:`~hearth.agent.returns.ReturnStore` before it is handed to the
connection, so it survives until the master acknowledges it.

A job is run once even when it is sent again (by a master that took over
the jobs of one that stopped, not knowing who got them): the executor
remembers the last ``minion_jid_queue_hwm`` job ids it started (Salt's
jid queue), and answers a job sent again with its kept return, if the
master has not acknowledged it yet.
"""

from __future__ import annotations

import collections
import ctypes
import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from hearth.agent.returns import ReturnStore
from hearth.agent.session import return_message
from hearth.common import exception
from hearth.jobs import JobRunner, ProcTable

LOG = logging.getLogger(__name__)


class JobTerminated(Exception):  # noqa: N818 - named as what happened to the job
    """Raised inside a job's thread by ``saltutil.term_job`` / ``kill_job``."""

    def __str__(self) -> str:
        return "the job was terminated (saltutil.term_job or kill_job)"


def _thread_children(native_id: int) -> list[int]:
    """Return the processes started by one thread of this process (Linux ``/proc``)."""
    try:
        with open(f"/proc/self/task/{native_id}/children", encoding="ascii") as handle:
            return [int(pid) for pid in handle.read().split()]
    except OSError:
        return []


class JobExecutor:
    """Run job messages on threads; hand each return to ``deliver``."""

    def __init__(self, loader: Any, agent_id: str, returns: ReturnStore,
                 deliver: Callable[[dict[str, Any]], None], remember: int = 100) -> None:
        self.loader = loader
        self.agent_id = agent_id
        self.returns = returns
        self._deliver = deliver
        self._proc = ProcTable(os.path.join(loader.opts["cachedir"], "proc"))
        self._runner = JobRunner(loader, agent_id, publish=lambda tag, data: None,
                                 proc=self._proc)
        self._running: dict[str, threading.Thread] = {}
        self._started: collections.OrderedDict[str, None] = collections.OrderedDict()
        self._remember = remember
        self._lock = threading.Lock()

    def submit(self, message: dict[str, Any]) -> None:
        """Start the job described by a ``job`` message, unless it was started already.

        A job still running is left to finish; one that finished has its
        return sent again while it is kept (not yet acknowledged).
        """
        jid = str(message.get("jid"))
        with self._lock:
            if jid in self._running:
                return
            again = jid in self._started
            if not again:
                self._started[jid] = None
                while len(self._started) > self._remember:
                    self._started.popitem(last=False)
                thread = threading.Thread(target=self._run, args=(message,),
                                          name=f"job-{jid}", daemon=True)
                self._running[jid] = thread
        if not again:
            thread.start()
            return
        kept = self.returns.kept(jid)
        LOG.info("job %s was sent again; it ran already (%s)", jid,
                 "its return is sent again" if kept else "its return was acknowledged")
        if kept is not None:
            self._deliver(kept)

    def signal(self, jid: str, sig: int) -> str:
        """Stop job ``jid``: signal the processes its thread started, then end the thread.

        The thread's child processes (``cmd.*``) get ``sig`` at once; the
        job's own Python code is interrupted at its next step with
        :class:`JobTerminated`, which becomes the job's return.
        """
        with self._lock:
            thread = self._running.get(jid)
        if thread is None or thread.native_id is None:
            return ""
        for child in _thread_children(thread.native_id):
            try:
                os.kill(child, sig)
            except ProcessLookupError:
                pass
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident),
                                                   ctypes.py_object(JobTerminated))
        return f"Signal {sig} sent to job {jid} at pid {os.getpid()}"

    def drain(self, timeout: float) -> list[str]:
        """Wait up to ``timeout`` seconds for running jobs; return the jids still running.

        Their returns are kept on disk as they finish, so the next start sends them.
        """
        deadline = time.monotonic() + timeout
        while (remaining := deadline - time.monotonic()) > 0:
            with self._lock:
                threads = list(self._running.values())
            if not threads:
                return []
            threads[0].join(remaining)
        return self.running()

    def running(self) -> list[str]:
        """Return the jids of the jobs running now."""
        with self._lock:
            return list(self._running)

    def _run(self, message: dict[str, Any]) -> None:
        jid, fun = str(message["jid"]), str(message.get("fun"))
        args, kwargs = list(message.get("arg") or []), dict(message.get("kwarg") or {})
        try:
            ret = self._execute(jid, fun, args, kwargs, message.get("tgt"))
            self.returns.save(ret)
            self._deliver(ret)
        except Exception:  # noqa: BLE001 - an agent bug must not kill the agent
            LOG.exception("job %s (%s) could not be run", jid, fun)
        finally:
            with self._lock:
                self._running.pop(jid, None)

    def _execute(self, jid: str, fun: str, args: list[Any], kwargs: dict[str, Any],
                 target: Any) -> dict[str, Any]:
        """Run one function; return the return message (Salt's return shape)."""
        try:
            job = self._runner.run(fun, args, kwargs, jid=jid, target=str(target))
        except (exception.FunctionNotFound, exception.ModuleNotAvailable) as error:
            return return_message(jid, self.agent_id, fun, args, str(error), 254, False)
        LOG.debug("job %s (%s) finished with retcode %s", jid, fun, job.retcode)
        return return_message(jid, self.agent_id, fun, args, job.ret, job.retcode, job.success,
                              job.out)

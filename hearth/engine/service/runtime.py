"""One engine's runtime: its registration, heartbeat, stack locks and running actions.

An engine registers itself, beats on a green thread, and acts on a stack
only while it holds the stack's lock (:mod:`hearth.db.api_locks`), or the
lock of a stack above it: a lock held by a live engine gives
:class:`ActionInProgress`, one held by a dead engine is stolen.  Work that
acts outside a stack action (a signal whose handler resizes a group's
nested stack) holds the signalled stack's lock while it runs
(:meth:`EngineRuntime.holding`).  At start, and at every beat, the engine
takes over the stacks that dead engines left IN_PROGRESS
(:mod:`hearth.engine.service.recovery`): it finishes their actions
(:meth:`EngineRuntime.take_over`), or fails them as Heat does, so no stack
is ever stuck; a stack acted on under a live engine's lock is never one of them.
"""

from __future__ import annotations

import gc
import logging
import os
import socket
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from hearth import bus
from hearth.common import exception
from hearth.common.config import CONF
from hearth.db import api_batch, api_engines, api_locks, api_stacks
from hearth.db.models import Stack as StackRow
from hearth.db.session import Database
from hearth.engine import scheduler
from hearth.engine.service import recovery
from hearth.engine.stacks import engine_down
from hearth.engine.states import FAILED, IN_PROGRESS

if TYPE_CHECKING:
    from hearth.engine.service.stack_layer import StackLayer
    from hearth.engine.stacks.stack import Stack

LOG = logging.getLogger(__name__)

#: Seconds a new action waits for a finished one (its end stored) to release the lock.
SETTLE_TIMEOUT = 1.0

#: How many life check timeouts without a beat make an engine dead for the periodic checks.
PERIODIC_LIFE_FACTOR = 3

#: How often, and how long apart (seconds), a preemption looks for the action's walk.
PREEMPT_ATTEMPTS, PREEMPT_RETRY = 500, 0.01

#: Longest :meth:`EngineRuntime.pause` while no action runs here (seconds).
IDLE_PAUSE = 0.05

#: Python's thresholds of the two older generations, kept as they are.
_OLDER_GC_THRESHOLDS = (10, 10)


def tune_garbage_collector(young_threshold: int) -> None:
    """Collect the young generation every ``young_threshold`` allocations (0: leave it).

    A process-wide setting: an engine is its process's main job.
    """
    if young_threshold:
        gc.set_threshold(young_threshold, *_OLDER_GC_THRESHOLDS)


class EngineRuntime:
    """Register, beat, lock and run stack actions on green threads."""

    def __init__(self, db: Database, engine_id: str | None = None,
                 stacks: Callable[[], StackLayer] | None = None) -> None:
        """Register and start beating.

        ``stacks()`` returns the service's stack layer, which loads the
        stacks to take over and continues their actions (None: this
        runtime takes nothing over).  It is asked for at the first
        takeover: the stack layer's modules (networkx, jsonschema: 0.3 s)
        are not loaded at a server's start.
        """
        self.db = db
        self._stacks = stacks
        tune_garbage_collector(CONF.gc_young_threshold)
        self.engine_id = engine_id or str(uuid.uuid4())
        self.running: dict[str, Any] = {}      # stack id -> green thread
        self.live_stacks: dict[str, Stack] = {}  # stack id -> Stack acting now (for cancel)
        self._holds: dict[str, int] = {}       # stack id -> works holding its lock here
        #: sent when an action ends, then replaced (see :meth:`pause`)
        self._action_ended = scheduler.Event()
        api_engines.engine_register(db, self.engine_id, socket.gethostname(), os.getpid(),
                                    "hearth-engine")
        self._beating = True
        self._heart = scheduler.spawn(self._beat)
        self.recover()
        self._publish_events()

    def _publish_events(self) -> None:
        """Offer this engine's events to other processes (``stackctl event-listen``).

        The bus is optional: its socket may not be creatable here (a path
        too long for a Unix socket, a directory that is not writable); the
        engine runs on without it, and says so.
        """
        try:
            publisher = bus.serve_zmq()
        except Exception as error:  # noqa: BLE001 - publishing must never stop the engine
            LOG.warning("engine %s: the event bus is not published (stackctl event-listen "
                        "hears nothing): %s", self.engine_id, error)
            LOG.debug("engine %s: event bus failure", self.engine_id, exc_info=True)
        else:
            LOG.info("engine %s: events published on ipc://%s", self.engine_id,
                     publisher.path)

    def _beat(self) -> None:
        """Beat; and at every beat, take over what dead engines left.

        A long-lived engine (hearth-api, stackctl's local engine) otherwise
        recovers only at its start: a stack whose engine died after that, or
        whose engine still looked alive then, would stay IN_PROGRESS.  These
        checks count an engine dead only after :data:`PERIODIC_LIFE_FACTOR`
        times the life check timeout, so that a live engine whose beats were
        held up (a long blocking step, a loaded machine) is not taken for dead;
        checking at every beat takes a dead engine's stacks over at most a
        beat after that.
        """
        while self._beating:
            try:
                api_engines.engine_heartbeat(self.db, self.engine_id)
            except Exception:  # noqa: BLE001 - a missed beat is retried next time
                LOG.debug("engine %s heartbeat failed", self.engine_id, exc_info=True)
            try:
                self._stop_lost_actions()
                recovery.recover(self.db, self.dead_after(), self)
            except Exception:  # noqa: BLE001 - retried at the next check
                LOG.warning("engine %s: taking over dead engines' stacks failed",
                            self.engine_id, exc_info=True)
            scheduler.green_sleep(CONF.engine_heartbeat_interval)

    @staticmethod
    def dead_after() -> float:
        """Return the seconds without a beat after which a periodic check counts an engine dead.

        :data:`PERIODIC_LIFE_FACTOR` life check timeouts less two beat
        intervals (the beat that was due when the engine died, and the one
        at which the checks run): a dead engine's stacks are taken over at
        most that many life check timeouts after it died.  A live engine
        would have to miss ten beats in a row with the defaults; never less
        than two life check timeouts (a heartbeat interval set close to it).
        """
        life, beat = float(CONF.engine_life_check_timeout), float(CONF.engine_heartbeat_interval)
        return max(life * PERIODIC_LIFE_FACTOR - 2 * beat, 2 * life)

    def _stop_lost_actions(self) -> None:
        """Stop at once the actions whose stack's lock another engine took (fencing).

        Taken for dead (its beats held up longer than the others wait), this
        engine lost the lock to one that finishes the action; every state
        write of the stopped walk is refused already (the writes hold only
        under the lock: :class:`hearth.db.api_batch.Fence`), and the walk
        stops as a handed-over one, recording nothing.
        """
        if not self.live_stacks:
            return
        held = api_locks.locks_of(self.db, self.engine_id)
        for stack_id, stack in list(self.live_stacks.items()):
            walker = stack.walker
            if stack_id not in held and stack_id in self.running and walker is not None:
                LOG.error("engine %s: stack %s was taken over by another engine (this one "
                          "was taken for dead); its action stops here", self.engine_id,
                          stack.name)
                walker.cancel(exception.ForcedCancel(handed_over=True))

    def recover(self) -> list[str]:
        """Take over (or fail) the stacks dead engines left IN_PROGRESS; return those taken.

        At an engine's start an engine silent for ``engine_life_check_timeout``
        counts dead when its stacks are failed; one whose actions would be
        finished here must be silent as long as for the periodic checks
        (finishing the action of an engine that is only slow would run it twice).
        """
        timeout = self.dead_after() if recovery.resuming() else None
        return recovery.recover(self.db, timeout, self)

    def take_over(self, stack_id: str, timeout: float) -> bool:
        """Take the lock of a stack a dead engine left and finish its action here; return whether.

        The lock moves with a conditional UPDATE (or is INSERTed when there
        is none), so of several engines taking the same stack over exactly
        one gets it; the stack is read again under the lock (another engine
        may have finished it and released the lock meanwhile).  A stack
        this engine cannot build (a type it does not know) is failed with
        the reason.
        """
        if stack_id in self.running or api_locks.lock_take(
                self.db, stack_id, self.engine_id, timeout) is not None:
            return False
        row: StackRow | None = api_stacks.stack_get_live(self.db, stack_id)
        if row is None or row.status != IN_PROGRESS or self._stacks is None:
            self._release(stack_id)
            return False
        try:
            layer = self._stacks()
            stack = layer.load(row)
        except Exception as error:  # noqa: BLE001 - the stack must not stay stuck
            LOG.warning("stack %s: cannot take over its %s (%s)", row.name, row.action, error)
            engine_down.fail_left(self.db, row, f"{engine_down.went_down_reason(row.action)}"
                                   f"; it cannot be continued: {error}", self.engine_id)
            self._release(stack_id)
            return False
        self.start(stack, layer.continuation(stack, self.engine_id))
        return True

    def lock(self, stack_id: str, stack_name: str, action: str) -> None:
        """Take the stack's lock or raise ActionInProgress."""
        if stack_id in self.running:
            self._settle(stack_id)
        holder = api_locks.lock_take(self.db, stack_id, self.engine_id,
                                     CONF.engine_life_check_timeout)
        if holder is not None and holder != self.engine_id:
            raise exception.ActionInProgress(stack_name=stack_name, action=action)
        if holder == self.engine_id and stack_id in self.running:
            raise exception.ActionInProgress(stack_name=stack_name, action=action)

    def _settle(self, stack_id: str) -> None:
        """Let an action whose end is stored finish returning (its lock is released next).

        A client that saw ``<ACTION>_COMPLETE`` may ask for the next action
        before the finished one's thread has released the lock.
        """
        stack = self.live_stacks.get(stack_id)
        if stack is None:
            return
        stored = api_stacks.stack_get(self.db, stack_id, stack.row.project_id,
                                      show_deleted=True)
        if stored.status != IN_PROGRESS:  # the live object learns it a moment later
            self.wait(stack_id, SETTLE_TIMEOUT)

    def start(self, stack: Stack, work: Callable[[], Any]) -> None:
        """Run ``work`` for ``stack`` on a green thread; release the lock at its end."""
        def runner() -> None:
            try:
                work()
            except exception.EngineFenced as fenced:
                LOG.warning("stack %s: %s", stack.name, fenced)
            except Exception:  # noqa: BLE001 - logged; the stack state tells the user
                LOG.exception("stack %s: action failed unexpectedly", stack.name)
                try:
                    stack.state_set(stack.action, FAILED, "Internal error: see the engine log")
                except exception.EngineFenced as fenced:
                    LOG.warning("stack %s: %s", stack.name, fenced)
            finally:
                self.running.pop(stack.id, None)
                self.live_stacks.pop(stack.id, None)
                self._release(stack.id)
                ended, self._action_ended = self._action_ended, scheduler.Event()
                ended.send(True)
        stack.fence = api_batch.Fence(stack.id, self.engine_id)  # writes only under the lock
        self.live_stacks[stack.id] = stack
        self.running[stack.id] = scheduler.spawn(runner)

    @contextmanager
    def holding(self, stack_id: str) -> Iterator[None]:
        """Hold the stack's lock for this engine while the block runs, as an action does.

        For work that acts on the stack's nested stacks outside any action (a
        signal's handler): what it leaves IN_PROGRESS is under a live
        engine's lock, so recovery leaves it alone.  A lock this engine holds
        already (an action, another hold) is shared; one another live engine
        holds covers the work as well and is left to it.
        """
        holder = api_locks.lock_take(self.db, stack_id, self.engine_id,
                                     CONF.engine_life_check_timeout)
        mine = holder is None or holder == self.engine_id
        if mine:
            self._holds[stack_id] = self._holds.get(stack_id, 0) + 1
        try:
            yield
        finally:
            if mine:
                self._holds[stack_id] -= 1
                if not self._holds[stack_id]:
                    del self._holds[stack_id]
                self._release(stack_id)

    def _release(self, stack_id: str) -> None:
        """Release the stack's lock unless an action or a hold of this engine still needs it."""
        if stack_id not in self.running and stack_id not in self._holds:
            api_locks.lock_release(self.db, stack_id, self.engine_id)

    def wait(self, stack_id: str, timeout: float | None = None) -> None:
        """Wait (green) until the stack's action in this engine ends."""
        thread = self.running.get(stack_id)
        if thread is None:
            return
        done = scheduler.Event()
        thread.link(lambda _thread: done.send(True))
        done.wait(timeout)

    def pause(self, seconds: float) -> None:
        """Wait (green) ``seconds``, or less: until an action of this engine ends.

        With no action running here, at most :data:`IDLE_PAUSE` (one may just
        have ended, its end already stored).
        """
        if self.running:
            self._action_ended.wait(seconds)
        else:
            scheduler.green_sleep(min(seconds, IDLE_PAUSE))

    def cancel(self, stack_id: str, with_rollback: bool, grace: float = 0.0) -> bool:
        """Throw ForcedCancel into the stack's running walk; return whether one ran here.

        Running resources get ``grace`` seconds to finish first
        (:meth:`hearth.engine.scheduler.GraphWalker.cancel`).
        """
        stack = self.live_stacks.get(stack_id)
        walker = stack.walker if stack is not None else None
        if walker is None:
            return False
        walker.cancel(exception.ForcedCancel(with_rollback=with_rollback), grace)
        return True

    def preempt(self, stack_id: str) -> bool:
        """Stop the stack's running action here at once for a new update; return whether it ran.

        As a cancel without rollback, but the resources in progress are
        interrupted now and the stopped action records no end (the update
        that follows does).  Returns once the action's thread has ended.
        """
        stack = self.live_stacks.get(stack_id)
        preemption = exception.ForcedCancel(with_rollback=False, preempted=True)
        for _ in range(PREEMPT_ATTEMPTS):  # between two walks of an action there is none
            if stack_id not in self.running:
                return stack is not None
            walker = stack.walker if stack is not None else None
            if walker is not None:
                walker.cancel(preemption)
                break
            scheduler.green_sleep(PREEMPT_RETRY)
        self.wait(stack_id)
        return True

    def stop(self) -> None:
        """Hand the running actions over (or cancel them), stop beating, deregister.

        Under ``engine_takeover = resume`` each running walk stops where it
        is, recording nothing, and deregistering releases its lock: another
        engine takes the action over at its next beat (a stopping engine
        loses no work; a rolling restart fails nothing).  Under ``fail``
        the actions are cancelled and end FAILED, as Heat's.
        """
        handing_over = recovery.resuming()
        for stack_id, stack in list(self.live_stacks.items()):
            walker = stack.walker
            if not handing_over:
                self.cancel(stack_id, with_rollback=False)
            elif walker is not None:
                LOG.info("stack %s: its %s is handed over to the other engines", stack.name,
                         stack.action)
                walker.cancel(exception.ForcedCancel(handed_over=True))
        for stack_id in list(self.running):
            self.wait(stack_id, timeout=CONF.api.graceful_shutdown_timeout)
        self._beating = False
        api_engines.engine_deregister(self.db, self.engine_id)

"""Run stack actions cooperatively: task runners and the one graph walker.

A *task* is a plain generator.  It yields wherever it is willing to pause;
yielding a number asks to be polled again no sooner than that many seconds.
:class:`TaskRunner` steps one task on its own green thread, waiting between
steps with a poll interval that starts at ``CONF.poll_interval_min`` and
grows geometrically up to ``CONF.poll_interval_max``: a resource that needs
no waiting finishes without a single sleep, a slow one is not spun on.
Timeouts and cancellation are exceptions thrown *into* the generator
(:class:`~hearth.common.exception.StackTimeout`,
:class:`~hearth.common.exception.ForcedCancel`) so the task can clean up.

:class:`GraphWalker` is the one walker every stack action uses.  It takes a
dependency map, a direction and a per-node task factory, keeps a count of
unfinished predecessors per node (nothing is rescanned), starts every ready
node on its own green thread within the concurrency limits, and on failure
skips the dependents (they are not reported as failures of their own) while
independent running nodes get ``error_wait_time`` to finish.

Green threads come from :mod:`hearth.common.green` (the one eventlet seam);
:func:`spawn`, :class:`Event`, :func:`green_sleep` and :func:`run_blocking`
are re-exported here for plug-ins.
"""

from __future__ import annotations

import enum
import logging
import time
from collections import deque
from collections.abc import Callable, Generator, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from hearth.common import exception
from hearth.common.config import poll_limits
from hearth.common.green import Event, Queue, green_sleep, run_blocking, spawn

__all__ = ["BACKOFF_FACTOR", "Direction", "Event", "GraphWalker", "NodeState", "Task",
           "TaskRunner", "WalkResult", "green_sleep", "ordered_edges", "run_blocking",
           "spawn"]

LOG = logging.getLogger(__name__)

Task = Generator[Any, None, Any]
#: A node of a walk (a resource name, or a (name, row id) of a leftover).
N = TypeVar("N", bound=Hashable)
Clock = Callable[[], float]
Sleep = Callable[[float], None]

#: How much the poll interval grows after every unfinished step.
BACKOFF_FACTOR = 2.0


class TaskRunner:
    """Step one generator task to its end, with backoff, timeout and cancel.

    ``deadline`` is an absolute time on ``clock``; once passed, the runner
    throws ``deadline_exc`` (a :class:`StackTimeout` by default) into the
    task.  :meth:`cancel_at` moves the deadline earlier with another
    exception, which is how cancellation and the error grace period work.
    """

    def __init__(self, task: Task, clock: Clock = time.monotonic, sleep: Sleep = green_sleep,
                 poll_min: float | None = None, poll_max: float | None = None,
                 deadline: float | None = None) -> None:
        if poll_min is None or poll_max is None:
            default_min, default_max = poll_limits()
            poll_min = default_min if poll_min is None else poll_min
            poll_max = default_max if poll_max is None else poll_max
        self.task = task
        self.clock = clock
        self.sleep = sleep
        self.poll_min = poll_min
        self.poll_max = max(poll_max, poll_min)
        self.deadline = deadline
        self.deadline_exc: BaseException = exception.StackTimeout()
        self.steps = 0

    def cancel_at(self, when: float, exc: BaseException) -> None:
        """Throw ``exc`` into the task at ``when`` unless it finishes first."""
        if self.deadline is None or when <= self.deadline:
            self.deadline = when
            self.deadline_exc = exc

    def cancel(self, exc: BaseException | None = None) -> None:
        """Throw ``exc`` (default :class:`ForcedCancel`) into the task at its next step."""
        self.cancel_at(self.clock(), exc or exception.ForcedCancel())

    def _expired(self) -> bool:
        return self.deadline is not None and self.clock() >= self.deadline

    def run(self) -> Any:
        """Drive the task to its end; return its return value or raise its error.

        A thrown timeout or cancel that the task does not handle propagates
        as that exception.
        """
        interval = self.poll_min
        try:
            request = next(self.task)
            while True:
                self.steps += 1
                delay = float(request) if isinstance(request, (int, float)) else interval
                interval = min(interval * BACKOFF_FACTOR, self.poll_max)
                if self.deadline is not None:
                    delay = min(delay, max(self.deadline - self.clock(), 0.0))
                self.sleep(delay)
                expired = self._expired()
                request = self.task.throw(self.deadline_exc) if expired else next(self.task)
        except StopIteration as stop:
            return stop.value


class NodeState(enum.Enum):
    """What happened to one node of a walk."""

    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"        # a requirement failed or the walk stopped first
    CANCELLED = "cancelled"    # thrown out by a timeout, cancel or the error grace period


@dataclass
class WalkResult:
    """The outcome of a walk: each node's state and the errors at their root."""

    states: dict[Hashable, NodeState] = field(default_factory=dict)
    errors: dict[Hashable, BaseException] = field(default_factory=dict)
    interrupted: BaseException | None = None

    @property
    def ok(self) -> bool:
        """Return whether every node finished and nothing interrupted the walk."""
        return not self.errors and self.interrupted is None

    def nodes(self, state: NodeState) -> list[Hashable]:
        """Return the nodes that ended in ``state``, in the order they ended."""
        return [node for node, value in self.states.items() if value is state]

    def first_error(self) -> BaseException | None:
        """Return the interruption, else the first root error, else None."""
        if self.interrupted is not None:
            return self.interrupted
        return next(iter(self.errors.values()), None)


class Direction(enum.Enum):
    """Which way a walk goes along the ``requires`` edges."""

    FORWARD = "forward"    # requirements first (create, update, resume, check)
    REVERSE = "reverse"    # dependents first (delete, suspend, rollback of a create)


def ordered_edges(requires: Mapping[N, Iterable[N]], direction: Direction
                  ) -> tuple[dict[N, int], dict[N, list[N]]]:
    """Return (unfinished predecessor count, successors) per node for ``direction``.

    ``requires`` maps each node to the nodes that must be done before it in
    the forward direction; names not in the map are ignored.
    """
    pending = {node: 0 for node in requires}
    successors: dict[N, list[N]] = {node: [] for node in requires}
    for node, needs in requires.items():
        for need in set(needs):
            if need not in pending:
                continue
            before, after = (need, node) if direction is Direction.FORWARD else (node, need)
            successors[before].append(after)
            pending[after] += 1
    return pending, successors


class GraphWalker(Generic[N]):
    """Run one task per node of a dependency map, as the graph allows.

    ``task_factory(node)`` returns the node's generator.  ``group_of(node)``
    names its concurrency group (the resource type) for ``per_group_limits``;
    ``max_concurrent`` caps all running nodes (0 = unlimited).  With
    ``aggregate_errors`` (CHECK) a failure only skips the failed node's
    dependents; otherwise no new node starts after a failure and running
    nodes get ``error_wait_time`` seconds before they are cancelled.
    """

    def __init__(self, requires: Mapping[N, Iterable[N]],
                 task_factory: Callable[[N], Task],
                 direction: Direction = Direction.FORWARD, *,
                 clock: Clock = time.monotonic, sleep: Sleep = green_sleep,
                 timeout: float | None = None, max_concurrent: int = 0,
                 group_of: Callable[[N], str] | None = None,
                 per_group_limits: Mapping[str, int] | None = None,
                 error_wait_time: float = 0.0, aggregate_errors: bool = False,
                 poll_min: float | None = None, poll_max: float | None = None) -> None:
        self.pending, self.successors = ordered_edges(requires, direction)
        self.task_factory = task_factory
        self.clock = clock
        self.sleep = sleep
        self.deadline = None if timeout is None else clock() + timeout
        self.max_concurrent = max_concurrent
        self.group_of = group_of or (lambda node: "")
        self.per_group_limits = dict(per_group_limits or {})
        self.error_wait_time = error_wait_time
        self.aggregate_errors = aggregate_errors
        if poll_min is None or poll_max is None:  # read once, not once per node
            default_min, default_max = poll_limits()
            poll_min = default_min if poll_min is None else poll_min
            poll_max = default_max if poll_max is None else poll_max
        self.poll_min, self.poll_max = poll_min, poll_max
        self.result = WalkResult()
        self._ready: deque[N] = deque(n for n, count in self.pending.items() if not count)
        self._running: dict[N, TaskRunner] = {}
        self._group_running: dict[str, int] = {}
        self._finished = Queue()
        self._stopping = False

    # --- public -----------------------------------------------------------
    def cancel(self, exc: BaseException | None = None, grace: float = 0.0) -> None:
        """Stop starting nodes; throw ``exc`` (default ForcedCancel) into running ones.

        Running nodes get ``grace`` seconds to finish on their own first (a
        cancel without rollback lets the resources in progress end, as Heat's
        stopped traversal does; one stuck past the grace is interrupted).
        """
        exc = exc or exception.ForcedCancel()
        if self.result.interrupted is None:
            self.result.interrupted = exc
        self._stop_all(self.clock() + grace, exc)

    def run(self) -> WalkResult:
        """Walk the whole graph; return what happened to every node."""
        self._start_ready()
        while self._running:
            node, error = self._finished.get()
            self._finish(node, error)
            self._start_ready()
        for node in self.pending:
            self.result.states.setdefault(node, NodeState.SKIPPED)
        return self.result

    # --- bookkeeping ------------------------------------------------------
    def _can_start(self, node: N) -> bool:
        if self.max_concurrent and len(self._running) >= self.max_concurrent:
            return False
        group = self.group_of(node)
        limit = self.per_group_limits.get(group)
        return not limit or self._group_running.get(group, 0) < limit

    def _start_ready(self) -> None:
        if self._stopping:
            return
        deferred: deque[N] = deque()
        while self._ready:
            node = self._ready.popleft()
            if self.result.states.get(node) is NodeState.SKIPPED:
                continue
            if self._can_start(node):
                self._start(node)
            else:
                deferred.append(node)
        self._ready = deferred

    def _start(self, node: N) -> None:
        runner = TaskRunner(self.task_factory(node), clock=self.clock, sleep=self.sleep,
                            poll_min=self.poll_min, poll_max=self.poll_max,
                            deadline=self.deadline)
        self._running[node] = runner
        group = self.group_of(node)
        self._group_running[group] = self._group_running.get(group, 0) + 1
        spawn(self._run_node, node, runner)

    def _run_node(self, node: N, runner: TaskRunner) -> None:
        try:
            runner.run()
        except BaseException as error:  # noqa: BLE001 - every outcome is reported to run()
            self._finished.put((node, error))
        else:
            self._finished.put((node, None))

    def _finish(self, node: N, error: BaseException | None) -> None:
        self._running.pop(node)
        group = self.group_of(node)
        self._group_running[group] -= 1
        if error is None:
            self.result.states[node] = NodeState.DONE
            for successor in self.successors[node]:
                self.pending[successor] -= 1
                if not self.pending[successor]:
                    self._ready.append(successor)
            return
        if isinstance(error, (exception.ForcedCancel, exception.StackTimeout)):
            self.result.states[node] = NodeState.CANCELLED
            if self.result.interrupted is None and isinstance(error, exception.StackTimeout):
                self.result.interrupted = error
                self._stop_all(self.clock(), error)
            return
        if isinstance(error, (KeyboardInterrupt, SystemExit, GeneratorExit)):
            self.result.interrupted = error
            self.result.states[node] = NodeState.CANCELLED
            self._stop_all(self.clock(), exception.ForcedCancel(with_rollback=False))
            return
        LOG.debug("walk node %s failed: %s", node, error)
        self.result.states[node] = NodeState.FAILED
        self.result.errors[node] = error
        self._skip_dependents(node)
        if not self.aggregate_errors:
            self._stop_all(self.clock() + self.error_wait_time, exception.ForcedCancel())

    def _skip_dependents(self, node: N) -> None:
        stack = list(self.successors[node])
        while stack:
            successor = stack.pop()
            if self.result.states.get(successor) is NodeState.SKIPPED:
                continue
            self.result.states[successor] = NodeState.SKIPPED
            stack.extend(self.successors[successor])

    def _stop_all(self, when: float, exc: BaseException) -> None:
        self._stopping = True
        self._ready.clear()
        for runner in self._running.values():
            runner.cancel_at(when, exc)


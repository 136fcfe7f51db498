"""Tests of the task runner and the graph walker, on named graph shapes."""

import pytest

from hearth.common import exception
from hearth.engine import scheduler
from hearth.engine.scheduler import Direction, GraphWalker, NodeState, TaskRunner
from tests.fixtures.clock import VirtualClock

SINGLE = {"a": []}
CHAIN = {"a": [], "b": ["a"], "c": ["b"]}
DIAMOND = {"top": [], "left": ["top"], "right": ["top"], "bottom": ["left", "right"]}
DISJOINT = {"a": [], "b": ["a"], "x": [], "y": ["x"]}


class Recorder:
    """Task factory that records start/end of every node; waits ``waits[node]`` polls."""

    def __init__(self, waits=None, fail=(), clock=None):
        self.log = []
        self.waits = waits or {}
        self.fail = set(fail)
        self.clock = clock

    def __call__(self, node):
        return self.task(node)

    def task(self, node):
        self.log.append(("start", node))
        for _ in range(self.waits.get(node, 0)):
            yield
        if node in self.fail:
            self.log.append(("fail", node))
            raise RuntimeError(f"{node} broke")
        self.log.append(("end", node))


def run(shape, recorder, direction=Direction.FORWARD, **options):
    clock = VirtualClock()
    options.setdefault("poll_min", 0.01)
    options.setdefault("poll_max", 1.0)
    walker = GraphWalker(shape, recorder, direction, clock=clock, sleep=clock.sleep, **options)
    return walker.run(), clock


def test_single():
    recorder = Recorder()
    result, _ = run(SINGLE, recorder)
    assert recorder.log == [("start", "a"), ("end", "a")]
    assert result.ok and result.states == {"a": NodeState.DONE}


def test_chain_forward_and_reverse():
    recorder = Recorder()
    run(CHAIN, recorder)
    assert recorder.log == [("start", "a"), ("end", "a"), ("start", "b"), ("end", "b"),
                            ("start", "c"), ("end", "c")]
    recorder = Recorder()
    run(CHAIN, recorder, Direction.REVERSE)
    assert [n for kind, n in recorder.log if kind == "start"] == ["c", "b", "a"]


def test_diamond_runs_the_middle_in_parallel():
    recorder = Recorder(waits={"left": 2, "right": 1})
    result, _ = run(DIAMOND, recorder)
    assert recorder.log == [("start", "top"), ("end", "top"), ("start", "left"),
                            ("start", "right"), ("end", "right"), ("end", "left"),
                            ("start", "bottom"), ("end", "bottom")]
    assert result.ok


def test_disjoint_failure_skips_only_dependents_when_aggregating():
    recorder = Recorder(fail={"a"})
    result, _ = run(DISJOINT, recorder, aggregate_errors=True)
    assert result.states == {"a": NodeState.FAILED, "b": NodeState.SKIPPED,
                             "x": NodeState.DONE, "y": NodeState.DONE}
    assert list(result.errors) == ["a"]
    assert str(result.first_error()) == "a broke"


def test_failure_lets_running_nodes_finish_within_grace_then_skips_the_rest():
    recorder = Recorder(waits={"x": 2}, fail={"a"})
    result, _ = run(DISJOINT, recorder, error_wait_time=100)
    assert result.states["x"] is NodeState.DONE
    assert result.states["y"] is NodeState.SKIPPED
    assert result.states["b"] is NodeState.SKIPPED
    assert list(result.errors) == ["a"]


def test_failure_cancels_running_nodes_after_grace():
    recorder = Recorder(waits={"x": 50}, fail={"a"})
    result, clock = run(DISJOINT, recorder, error_wait_time=0.5)
    assert result.states["x"] is NodeState.CANCELLED
    assert ("end", "x") not in recorder.log
    assert list(result.errors) == ["a"]


def test_reverse_diamond_order():
    recorder = Recorder()
    run(DIAMOND, recorder, Direction.REVERSE)
    starts = [n for kind, n in recorder.log if kind == "start"]
    assert starts[0] == "bottom" and starts[-1] == "top"


def test_max_concurrent_limits_running_nodes():
    shape = {name: [] for name in "abcd"}
    recorder = Recorder(waits={name: 1 for name in "abcd"})
    run(shape, recorder, max_concurrent=2)
    assert recorder.log[:4] == [("start", "a"), ("start", "b"), ("end", "a"), ("end", "b")]


def test_per_group_limit():
    shape = {"s1": [], "s2": [], "n1": []}
    recorder = Recorder(waits={"s1": 1, "s2": 1, "n1": 1})
    run(shape, recorder, group_of=lambda node: node[0], per_group_limits={"s": 1})
    starts = [(kind, n) for kind, n in recorder.log]
    assert starts.index(("start", "s2")) > starts.index(("end", "s1"))
    assert starts.index(("start", "n1")) < starts.index(("end", "s1"))


def test_timeout_cancels_and_is_reported():
    recorder = Recorder(waits={"a": 1000})
    result, clock = run(CHAIN, recorder, timeout=5)
    assert isinstance(result.interrupted, exception.StackTimeout)
    assert result.states == {"a": NodeState.CANCELLED, "b": NodeState.SKIPPED,
                             "c": NodeState.SKIPPED}
    assert 1005 <= clock() < 1006.5


def test_cancel_from_outside():
    clock = VirtualClock()
    recorder = Recorder(waits={"a": 1000})
    walker = GraphWalker(CHAIN, recorder, clock=clock, sleep=clock.sleep,
                         poll_min=0.01, poll_max=0.1)

    def canceller():
        clock.sleep(1)
        walker.cancel()

    scheduler.spawn(canceller)
    result = walker.run()
    assert isinstance(result.interrupted, exception.ForcedCancel)
    assert result.states["a"] is NodeState.CANCELLED


def test_cancel_with_grace_lets_running_nodes_finish_and_starts_nothing():
    clock = VirtualClock()
    recorder = Recorder(waits={"a": 30})  # about 2.5 s of polls: past the cancel
    walker = GraphWalker(CHAIN, recorder, clock=clock, sleep=clock.sleep,
                         poll_min=0.01, poll_max=0.1)

    def canceller():
        clock.sleep(1)
        walker.cancel(grace=10)

    scheduler.spawn(canceller)
    result = walker.run()
    assert isinstance(result.interrupted, exception.ForcedCancel)
    assert result.states == {"a": NodeState.DONE, "b": NodeState.SKIPPED,
                             "c": NodeState.SKIPPED}


def test_cancel_with_grace_interrupts_a_node_still_running_after_it():
    clock = VirtualClock()
    start = clock()
    recorder = Recorder(waits={"a": 1000})
    walker = GraphWalker(CHAIN, recorder, clock=clock, sleep=clock.sleep,
                         poll_min=0.01, poll_max=0.1)

    def canceller():
        clock.sleep(1)
        walker.cancel(grace=5)

    scheduler.spawn(canceller)
    result = walker.run()
    assert result.states["a"] is NodeState.CANCELLED
    assert start + 6 <= clock() < start + 7


def test_runner_backs_off_and_honours_requested_delay():
    clock = VirtualClock(start=0.0)
    wakeups = []

    def task():
        for request in (None, None, None, 0.5, None):
            wakeups.append(round(clock(), 4))
            yield request
        wakeups.append(round(clock(), 4))
        return "value"

    runner = TaskRunner(task(), clock=clock, sleep=clock.sleep, poll_min=0.01, poll_max=0.03)
    assert runner.run() == "value"
    # 0.01, 0.02, 0.03 (capped), then the requested 0.5, then the cap again
    assert wakeups == [0.0, 0.01, 0.03, 0.06, 0.56, 0.59]


def test_runner_without_yield_never_sleeps():
    def task():
        return 7
        yield  # pragma: no cover

    slept = []
    runner = TaskRunner(task(), sleep=slept.append, poll_min=0.01, poll_max=1)
    assert runner.run() == 7 and slept == []


def test_task_may_clean_up_on_timeout():
    clock = VirtualClock(start=0.0)
    seen = []

    def task():
        try:
            while True:
                yield
        except exception.StackTimeout:
            seen.append("cleanup")
            raise

    runner = TaskRunner(task(), clock=clock, sleep=clock.sleep, poll_min=0.1, poll_max=0.1,
                        deadline=0.35)
    with pytest.raises(exception.StackTimeout):
        runner.run()
    assert seen == ["cleanup"] and clock() == pytest.approx(0.35)


def test_run_blocking_returns_result():
    assert scheduler.run_blocking(sum, [1, 2, 3]) == 6


def test_event_wait_times_out_and_delivers():
    event = scheduler.Event()
    assert event.wait(0.001) is None
    event.send(5)
    event.send(6)
    assert event.ready() and event.wait() == 5

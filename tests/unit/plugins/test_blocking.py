"""BlockingCall: blocking work on a real thread never stalls the green threads."""

import _imp
import threading
import time

import pytest

from hearth.common import exception, green
from hearth.engine import scheduler
from hearth.plugins._blocking import RUNNING, BlockingCall


class Stack:
    """The clock a BlockingCall reads and the OS threads it starts, as a running stack's."""

    def __init__(self):
        self.now = 0.0

    def clock(self):
        return self.now

    def start_thread(self, fn, *args):
        green.start_os_thread(fn, *args)


def test_the_call_runs_elsewhere_even_while_another_thread_imports():
    # eventlet's tpool ran the call in the caller's thread whenever some thread held
    # the import lock, which stalled every green thread until the call returned
    held, release = threading.Event(), threading.Event()

    def importer():
        _imp.acquire_lock()
        held.set()
        release.wait(5)
        _imp.release_lock()

    thread = threading.Thread(target=importer)
    thread.start()
    held.wait(5)
    try:
        call = BlockingCall.start(Stack(), "nap", None, time.sleep, 1.0)
        began = time.monotonic()
        ticker = scheduler.spawn(lambda: [scheduler.green_sleep(0.05) for _ in range(4)])
        ticker.wait()
        ticking = time.monotonic() - began
    finally:
        release.set()
        thread.join()
    assert ticking < 0.6  # 0.2 s of green sleeps; the call run inline would take 1 s
    assert call.poll(Stack()) is RUNNING
    while call.poll(Stack()) is RUNNING:
        scheduler.green_sleep(0.05)
    assert call.done()


def test_result_error_and_timeout():
    stack = Stack()
    ok = BlockingCall.start(stack, "add", None, lambda a, b: a + b, 2, 3)
    failing = BlockingCall.start(stack, "fail", None, lambda: 1 / 0)
    while not (ok.done() and failing.done()):
        time.sleep(0.01)
    assert ok.poll(stack) == 5
    with pytest.raises(ZeroDivisionError):
        failing.poll(stack)
    slow = BlockingCall.start(stack, "create of node n1", 10, time.sleep, 1)
    stack.now = 10
    with pytest.raises(exception.CommandExecutionError) as error:
        slow.poll(stack)
    assert str(error.value) == "create of node n1 did not finish within 10 seconds"

"""Ctrl-C during an action: the cancel request is repeated until the engine takes it."""

import io

import pytest

from hearth.cli import progress
from hearth.common import exception


class RefusingBackend:
    """An engine that refuses to cancel until its walk has started."""

    def __init__(self, refusals: int, status: str = "CREATE_IN_PROGRESS") -> None:
        self.refusals = refusals
        self.status = status
        self.cancels = 0
        self.sleeps: list[float] = []

    def stack_action(self, stack_identity: str, action: str) -> None:
        self.cancels += 1
        if self.cancels <= self.refusals:
            raise exception.NotSupported(feature="Cancelling before the walk started")

    def list_stacks(self, filters: dict, **_kwargs) -> list[dict]:
        return [{"id": filters["id"], "stack_status": self.status}]

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)


def printer(backend):
    return progress.ProgressPrinter(backend, "s", None, io.StringIO())


def test_a_refused_cancel_is_asked_again_until_taken():
    backend = RefusingBackend(refusals=3)
    printer(backend).cancel(lambda: backend.stack_action("s", "cancel_without_rollback"))
    assert backend.cancels == 4
    assert backend.sleeps == [progress.CANCEL_RETRY_DELAY] * 3


def test_no_retry_once_the_action_has_ended():
    backend = RefusingBackend(refusals=99, status="CREATE_COMPLETE")
    printer(backend).cancel(lambda: backend.stack_action("s", "cancel_without_rollback"))
    assert backend.cancels == 1


def test_a_cancel_refused_for_good_reports_the_engine_error():
    backend = RefusingBackend(refusals=10_000)
    with pytest.raises(exception.NotSupported, match="Cancelling before the walk started"):
        printer(backend).cancel(lambda: backend.stack_action("s", "cancel_without_rollback"))
    assert backend.cancels == progress.CANCEL_ATTEMPTS + 1

"""Following an action: a failing display is reported and given up; following goes on."""

import io

import pytest

from hearth.cli import progress

EVENT = {"id": "e1", "event_time": "2026-01-01T00:00:00Z", "resource_name": "a",
         "resource_status": "CREATE_COMPLETE", "resource_status_reason": "state changed"}


class Backend:
    """A stack that runs for ``polls`` status reads; its events fail to list ``failures`` times."""

    poll_interval = 0.0

    def __init__(self, polls: int, failures: int, error: Exception) -> None:
        self.polls = polls
        self.failures = failures
        self.error = error
        self.event_calls = 0
        self.status_reads = 0
        self.closed = False

    def list_stacks(self, filters: dict, **_kwargs) -> list[dict]:
        self.status_reads += 1
        done = self.status_reads > self.polls
        return [{"id": filters["id"], "stack_name": "s",
                 "stack_status": "CREATE_COMPLETE" if done else "CREATE_IN_PROGRESS"}]

    def list_events(self, stack_identity: str, marker=None, sort_dir=None) -> list[dict]:
        self.event_calls += 1
        if self.event_calls <= self.failures:
            raise self.error
        return [EVENT] if marker is None else []

    def sleep(self, _seconds: float) -> None:
        """Polls do not wait in these tests."""

    def close(self) -> None:
        self.closed = True


def follow(backend: Backend, stream=None) -> tuple[dict, str, str]:
    out, err = stream or io.StringIO(), io.StringIO()
    printer = progress.ProgressPrinter(backend, "s/s-id", None, out, err)
    final = printer.follow()
    return final, out.getvalue() if stream is None else "", err.getvalue()


def test_the_status_is_read_from_the_stack_list_by_id():
    backend = Backend(polls=0, failures=0, error=ValueError())
    assert progress.stack_status(backend, "s/s-id")["id"] == "s-id"


def test_a_passing_failure_of_the_display_loses_no_line():
    final, out, err = follow(Backend(polls=5, failures=3, error=ValueError("flaky")))
    assert final["stack_status"] == "CREATE_COMPLETE"
    assert out == "2026-01-01 00:00:00Z [a]: CREATE_COMPLETE  state changed\n"
    assert err == ""


def test_a_display_that_keeps_failing_is_given_up_and_the_action_followed_to_its_end():
    backend = Backend(polls=progress.DISPLAY_ATTEMPTS + 10, failures=10_000,
                      error=RuntimeError("cannot list"))
    final, out, err = follow(backend)
    assert final["stack_status"] == "CREATE_COMPLETE"
    assert backend.status_reads == progress.DISPLAY_ATTEMPTS + 11
    assert backend.event_calls == progress.DISPLAY_ATTEMPTS
    assert out == ""
    assert err == ("WARNING: progress display stopped (RuntimeError: cannot list); "
                   "the action goes on to its end.\n")


class ClosedStream(io.StringIO):
    """An output whose reader went away."""

    def write(self, _text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_closed_output_stops_the_display_at_once_and_following_goes_on():
    backend = Backend(polls=4, failures=0, error=ValueError())
    final, _out, err = follow(backend, ClosedStream())
    assert final["stack_status"] == "CREATE_COMPLETE"
    assert backend.status_reads == 5
    assert "progress display stopped (the output was closed)" in err


class BrokenStatusBackend(Backend):
    """An engine whose stack status can never be read."""

    def list_stacks(self, filters: dict, **_kwargs) -> list[dict]:
        raise RuntimeError("database unreadable")


def test_following_that_fails_closes_the_backend_before_raising(monkeypatch):
    """An in-process engine then cancels the action cleanly instead of dying with stackctl."""
    from hearth.cli.commands import stacks
    monkeypatch.setattr(progress, "STATUS_ATTEMPTS", 3)
    backend = BrokenStatusBackend(polls=0, failures=0, error=ValueError())
    with pytest.raises(RuntimeError, match="database unreadable"):
        stacks.run_action(backend, None, lambda: {"id": "x", "stack_name": "s"}, "CREATE")
    assert backend.closed

"""How progress shows: options by terminal/env/flags, colour, the live summary, quiet."""

from __future__ import annotations

import argparse
import io

import pytest

from hearth.cli import progress_display
from hearth.cli.progress import format_event_line
from hearth.cli.progress_display import DisplayOptions, ProgressDisplay


class Terminal(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def args(**values) -> argparse.Namespace:
    return argparse.Namespace(**{"quiet": False, "no_color": False, **values})


def event(name: str, status: str, reason: str = "state changed") -> dict:
    return {"id": f"{name}-{status}", "event_time": "2026-01-02T03:04:05Z",
            "resource_name": name, "resource_status": status,
            "resource_status_reason": reason}


@pytest.mark.parametrize(("stream", "flags", "environ", "expected"), [
    (Terminal(), {}, {"TERM": "xterm"}, DisplayOptions(False, True, True)),
    (io.StringIO(), {}, {"TERM": "xterm"}, DisplayOptions(False, False, False)),
    (Terminal(), {"no_color": True}, {}, DisplayOptions(False, False, True)),
    (Terminal(), {}, {"NO_COLOR": "1"}, DisplayOptions(False, False, True)),
    (Terminal(), {}, {"NO_COLOR": ""}, DisplayOptions(False, True, True)),
    (Terminal(), {}, {"TERM": "dumb"}, DisplayOptions(False, False, False)),
    (Terminal(), {"quiet": True}, {}, DisplayOptions(True, True, False)),
    (io.StringIO(), {"quiet": True}, {}, DisplayOptions(True, False, False)),
    (Terminal(), {"format": "json"}, {}, DisplayOptions(False, False, False)),
    (Terminal(), {"format": "table"}, {}, DisplayOptions(False, True, True)),
])
def test_extras_only_on_a_terminal_and_when_wanted(stream, flags, environ, expected):
    assert progress_display.display_options(args(**flags), stream, environ) == expected


def test_plain_options_mean_no_display_at_all():
    assert progress_display.make_display(None, "s", DisplayOptions(), format_event_line) is None
    assert progress_display.make_display(None, "s", None, format_event_line) is None


def live_display(stream, clock, total=3, colour=False):
    options = DisplayOptions(quiet=False, colour=colour, live=True)
    return ProgressDisplay(options, format_event_line, "stack", lambda: total, stream, clock)


def test_the_summary_counts_and_is_erased_before_each_line():
    stream, clock = Terminal(), Clock()
    display = live_display(stream, clock)
    display.event(event("stack", "CREATE_IN_PROGRESS", "Stack CREATE started"))
    display.event(event("a", "CREATE_IN_PROGRESS"))
    clock.now += 75
    display.tick()
    display.event(event("a", "CREATE_COMPLETE"))
    display.event(event("b", "CREATE_FAILED", "boom"))
    assert display.summary() == "[ 1/3 done | 0 in progress | 1 failed | 01:15 ]"
    display.event(event("stack", "CREATE_FAILED", "Resource CREATE failed"))
    text = stream.getvalue()
    assert text.startswith("2026-01-02 03:04:05Z [stack]: CREATE_IN_PROGRESS  Stack CREATE "
                           "started\n[ 0/3 done | 0 in progress | 0 failed | 00:00 ]\r\x1b[2K")
    assert "[ 0/3 done | 1 in progress | 0 failed | 01:15 ]\r\x1b[2K2026-01-02 03:04:05Z [a]: "\
           "CREATE_COMPLETE" in text
    # the stack's final event erased the line: the screen ends with the plain line
    assert text.endswith("\r\x1b[2K2026-01-02 03:04:05Z [stack]: CREATE_FAILED  Resource "
                         "CREATE failed\n")


def test_an_unchanged_summary_is_not_redrawn():
    stream, clock = Terminal(), Clock()
    display = live_display(stream, clock)
    display.tick()
    written = stream.getvalue()
    display.tick()
    assert stream.getvalue() == written
    clock.now += 1
    display.tick()
    assert stream.getvalue() == written + "\r\x1b[2K[ 0/3 done | 0 in progress | 0 failed | 00:01 ]"


def test_colour_paints_the_status_word_only():
    stream = Terminal()
    display = ProgressDisplay(DisplayOptions(colour=True), format_event_line, stream=stream)
    display.event(event("COMPLETE", "CREATE_COMPLETE", "CREATE_COMPLETE is the word"))
    assert stream.getvalue() == ("2026-01-02 03:04:05Z [COMPLETE]: \x1b[32mCREATE_COMPLETE"
                                 "\x1b[0m  CREATE_COMPLETE is the word\n")


def test_quiet_shows_nothing():
    stream = Terminal()
    display = ProgressDisplay(DisplayOptions(quiet=True, colour=True), format_event_line,
                              stream=stream)
    display.event(event("a", "CREATE_COMPLETE"))
    display.tick()
    display.close()
    assert stream.getvalue() == ""


def test_the_total_is_asked_again_while_resources_appear_but_not_at_every_poll():
    calls = []
    clock = Clock()

    def count() -> int:
        calls.append(clock.now)
        return len(calls)           # the stack grows as the engine stores resources

    display = ProgressDisplay(DisplayOptions(live=True), format_event_line, "stack", count,
                              Terminal(), clock)
    display.event(event("a", "CREATE_IN_PROGRESS"))   # total 1, 1 seen: settled
    display.event(event("b", "CREATE_IN_PROGRESS"))   # 2 seen > 1, but asked just now
    assert calls == [100.0]
    clock.now += progress_display.TOTAL_REFRESH_INTERVAL
    display.tick()
    assert calls == [100.0, 100.5] and display.total == 2


def test_a_failing_resource_count_never_fails_the_action():
    def broken() -> int:
        raise ConnectionError("gone")

    display = ProgressDisplay(DisplayOptions(live=True), format_event_line, "s", broken,
                              Terminal(), Clock())
    display.event(event("a", "CREATE_IN_PROGRESS"))
    assert display.summary() == "[ 0/1 done | 1 in progress | 0 failed | 00:00 ]"


@pytest.mark.parametrize(("seconds", "text"), [(0, "00:00"), (61.9, "01:01"),
                                               (3725, "1:02:05")])
def test_elapsed_time(seconds, text):
    assert progress_display.format_elapsed(seconds) == text

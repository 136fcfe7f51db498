"""stackctl's progress on a real terminal (a pty) and through a pipe.

On a terminal: coloured status words and a live summary line that is
always erased, so the screen ends with exactly the plain lines.  Through a
pipe: the plain lines and nothing else.  ``--quiet``, ``--no-color`` and
``NO_COLOR`` as users expect.
"""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import time

import pytest

from tests.functional import stackctl_process

TEMPLATE = """
heat_template_version: 2021-04-16
resources:
  slow: {type: OS::Heat::TestResource, properties: {action_wait_secs: {create: 1}}}
  quick: {type: OS::Heat::None}
"""
EVENT_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ \[(\w+)\]: ([A-Z_]+)  .+$")
COLOUR = re.compile(r"\x1b\[[0-9;]*m")
SUMMARY = re.compile(r"\[ \d+/\d+ done \| \d+ in progress \| \d+ failed \| \d\d:\d\d \]")


def run_on_terminal(home, *args: str, extra_env: dict | None = None,
                    timeout: float = 60) -> str:
    """Run stackctl with a pty as stdout and stderr; return all it wrote."""
    master, slave = pty.openpty()
    env = stackctl_process.environment(home)
    env.pop("NO_COLOR", None)
    env.update({"TERM": "xterm", **(extra_env or {})})
    process = subprocess.Popen([stackctl_process.STACKCTL, *args], env=env, stdout=slave,
                               stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    chunks, deadline = [], time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1)
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                data = os.read(master, 65536)
            except OSError:     # the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
        process.wait(timeout=30)
    assert process.returncode == 0, b"".join(chunks).decode()
    return b"".join(chunks).decode().replace("\r\n", "\n")


def screen(written: str) -> list[str]:
    """Return the lines a terminal shows at the end: erased lines gone, colours off."""
    lines, current = [], ""
    for token in re.split(r"(\n|\r\x1b\[2K)", written):
        if token == "\n":
            lines.append(current)
            current = ""
        elif token == "\r\x1b[2K":
            current = ""
        else:
            current += token
    if current:
        lines.append(current)
    return [COLOUR.sub("", line) for line in lines]


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """Return the module's HEARTH_HOME: one local engine serves its tests (stacks of their own)."""
    return tmp_path_factory.mktemp("progress-home")


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    path = tmp_path_factory.mktemp("progress") / "progress.yaml"
    path.write_text(TEMPLATE)
    return str(path)


def check_plain_lines(lines: list[str], stack: str) -> None:
    """Every line is an event line, then the final status; the resources all complete."""
    assert lines[-1] == f"Stack {stack} CREATE_COMPLETE"
    events = [EVENT_LINE.match(line) for line in lines[:-1]]
    assert all(events), lines
    finals = {match.group(1) for match in events if match.group(2) == "CREATE_COMPLETE"}
    assert finals == {stack, "slow", "quick"}


@pytest.mark.slow
def test_a_terminal_gets_colour_and_a_live_summary_that_leaves_no_trace(home, template):
    written = run_on_terminal(home, "stack-create", "-f", template, "tty")
    assert "\x1b[32mCREATE_COMPLETE\x1b[0m" in written
    assert "\x1b[33mCREATE_IN_PROGRESS\x1b[0m" in written
    summaries = SUMMARY.findall(COLOUR.sub("", written))
    assert summaries, written
    assert any(s.startswith("[ 1/2 done | 1 in progress") for s in summaries), summaries
    shown = screen(written)
    assert not any(SUMMARY.search(line) for line in shown), shown
    check_plain_lines(shown, "tty")


def test_a_pipe_gets_the_plain_lines_only(home, template):
    result = stackctl_process.run(home, "stack-create", "-f", template, "piped")
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout and "\r" not in result.stdout
    check_plain_lines(result.stdout.splitlines(), "piped")


@pytest.mark.slow
def test_quiet_prints_only_the_final_status(home, template):
    piped = stackctl_process.run(home, "stack-create", "--quiet", "-f", template, "q1")
    assert (piped.returncode, piped.stdout) == (0, "Stack q1 CREATE_COMPLETE\n")
    on_terminal = run_on_terminal(home, "stack-delete", "-y", "-q", "q1")
    assert on_terminal == "Stack q1 DELETE_COMPLETE\n"


@pytest.mark.slow
@pytest.mark.parametrize(("flags", "extra_env", "stack"), [(("--no-color",), {}, "plain"),
                                                           ((), {"NO_COLOR": "1"}, "plain_env")])
def test_no_color_keeps_the_summary_but_no_colour(home, template, flags, extra_env, stack):
    written = run_on_terminal(home, "stack-create", *flags, "-f", template, stack,
                              extra_env=extra_env)
    assert "\x1b[3" not in written and "\x1b[2m" not in written
    assert SUMMARY.search(written)
    check_plain_lines(screen(written), stack)

"""``stackctl console`` as a user runs it: loopback only, a one-time link, stopped by a signal."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time

import requests

from tests.fixtures.agents import STACKCTL


def _run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([STACKCTL, *args], capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL, env=dict(os.environ))


def test_it_refuses_to_listen_beyond_the_loopback(hearth_home):
    refused = _run("console", "--host", "0.0.0.0")
    assert refused.returncode == 2
    assert refused.stderr == ("ERROR: stackctl console listens on a loopback address only "
                              "(it acts with your rights), not on 0.0.0.0.\n")


def test_the_help_says_what_it_serves_and_how_one_logs_in():
    helped = _run("console", "--help")
    assert helped.returncode == 0
    text = " ".join(helped.stdout.split())
    assert "one-time login" in text or "logs one browser in, once" in text
    assert "--port" in text and "--host" in text


def test_its_link_logs_in_once_and_sigterm_stops_it_at_once(hearth_home):
    process = subprocess.Popen([STACKCTL, "console"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    try:
        lines = [process.stdout.readline() for _ in range(3)]
        assert re.fullmatch(r"Hearth console for \S+ at http://127\.0\.0\.1:\d+/console\n",
                            lines[0]), lines
        link = lines[2].strip()
        session = requests.Session()
        first = session.get(link, timeout=30, allow_redirects=False)
        assert first.status_code == 303 and first.headers["Location"] == "/console/stacks"
        assert session.get(link.split("/login")[0] + "/stacks", timeout=30).status_code == 200
        again = requests.get(link, timeout=30, allow_redirects=False)
        assert again.status_code == 200 and "used already" in again.text
        process.send_signal(signal.SIGTERM)
        started = time.monotonic()
        assert process.wait(timeout=15) == 0
        # the server gives requests in flight a few seconds; nothing holds it longer
        assert time.monotonic() - started < 6
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()

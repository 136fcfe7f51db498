"""Run OpenStack Heat's own functional suite, unmodified, against Hearth; judge it against Heat.

The suite is ``heat_integrationtests/functional`` of openstack-heat 27.0.1,
driven by unmodified python-heatclient (see ``suite.py``).  This script

1. makes the suite's virtualenv (``--venv``; once): openstack-heat 27.0.1,
   python-heatclient 5.3.0, testtools, fixtures, testscenarios from PyPI;
2. starts ``hearth-api --noauth`` on a free port of 127.0.0.1 in a fresh
   HEARTH_HOME, with the options of Heat's functional gate (stack adopt and
   abandon on, ``max_stacks_per_tenant`` 256), its log in ``OUT/server.log``;
3. runs the suite against it (``OUT/results.json``), then stops the server;
4. compares with real Heat's results on the same suite
   (``heat-27.0.1.json``): every test that passes on Heat must pass here,
   and the server log must hold no 5xx answer and no traceback.

Exit status 0 when both hold (for the tests selected), 1 otherwise; the
verdict is also in ``OUT/verdict.txt``.  Run from the project root::

    .venv/bin/python tools/heat_functional/run.py                 # about 15 min on 2 cores
    .venv/bin/python tools/heat_functional/run.py --filter test_template_resource
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
HEAT_RESULTS = HERE / "heat-27.0.1.json"
SUITE_PACKAGES = ("openstack-heat==27.0.1", "python-heatclient==5.3.0", "testtools",
                  "fixtures", "testscenarios")
#: Heat's functional gate (openstack/heat .zuul.yaml) switches these on
GATE_OPTIONS = ("[DEFAULT]\nenable_stack_abandon = true\nenable_stack_adopt = true\n"
                "max_stacks_per_tenant = 256\n")
STATUSES = ("pass", "fail", "error", "skip", "timeout")
SERVER_ERROR = re.compile(r'"(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) [^"]*" 5\d\d ')


def ensure_suite_venv(venv: Path) -> Path:
    """Return the suite virtualenv's python, making the virtualenv first if needed."""
    python = venv / "bin" / "python"
    stamp = venv / ".installed"
    if stamp.exists() and stamp.read_text() == "\n".join(SUITE_PACKAGES):
        return python
    print(f"heat-functional: installing {', '.join(SUITE_PACKAGES)} into {venv}", flush=True)
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", *SUITE_PACKAGES], check=True)
    stamp.write_text("\n".join(SUITE_PACKAGES))
    return python


def start_server(hearth_api: str, home: Path, log: Path) -> tuple[subprocess.Popen, str]:
    """Start hearth-api with the gate options; return the process and its tenant URL."""
    config = home / "hearth.conf"
    config.write_text(GATE_OPTIONS)
    stream = open(log, "w")  # noqa: SIM115 - the server writes to it until stopped
    process = subprocess.Popen(
        [hearth_api, "--config-file", str(config), "--host", "127.0.0.1", "--port", "0",
         "--noauth", "--debug"],
        cwd=home, env={**os.environ, "HEARTH_HOME": str(home)},
        stdout=stream, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        found = re.search(r"listening on (http://\S+)", log.read_text())
        if found:
            return process, f"{found.group(1)}/v1/admin"
        if process.poll() is not None:
            break
        time.sleep(0.2)
    process.kill()
    raise SystemExit(f"heat-functional: hearth-api did not start (see {log})")


def stop_server(process: subprocess.Popen) -> None:
    """Stop hearth-api (SIGTERM, then SIGKILL after 30 s)."""
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def server_problems(log: Path) -> list[str]:
    """Return the 5xx access-log lines and the first line of each traceback of a log."""
    lines = log.read_text(errors="replace").splitlines()
    problems = [line for line in lines if SERVER_ERROR.search(line)]
    for number, line in enumerate(lines):
        if line.startswith("Traceback"):
            tail = next((later for later in lines[number + 1:] if not later.startswith(" ")),
                        "")
            problems.append(f"traceback: {tail}")
    return problems


def verdict(results: dict[str, dict], heat: dict[str, str], problems: list[str]) -> tuple[
        bool, str]:
    """Return (whether Hearth does what Heat does, the report text)."""
    heat = {test: status for test, status in heat.items() if test in results}
    counts = {"real Heat 27.0.1": collections.Counter(heat.values()),
              "Hearth": collections.Counter(r["status"] for r in results.values())}
    lines = ["| run | " + " | ".join(STATUSES) + " |",
             "|---|" + "---:|" * len(STATUSES)]
    lines += [f"| {name} | " + " | ".join(str(count[s]) for s in STATUSES) + " |"
              for name, count in counts.items()]
    behind = sorted(test for test, status in heat.items()
                    if status == "pass" and results[test]["status"] != "pass")
    lines.append("")
    lines.append(f"Tests passing on Heat and not on Hearth: {len(behind)}")
    for test in behind:
        detail = results[test]["detail"].strip().splitlines()
        lines.append(f"  {results[test]['status']:8} {test}: {detail[-1][:200] if detail else ''}")
    ahead = sorted(test for test, status in heat.items()
                   if status != "pass" and results[test]["status"] == "pass")
    lines.append(f"Tests passing on Hearth and not on Heat: {len(ahead)}")
    lines.extend(f"  {test} (Heat: {heat[test]})" for test in ahead)
    lines.append(f"5xx answers and tracebacks in Hearth's log: {len(problems)}")
    lines.extend(f"  {problem[:240]}" for problem in problems[:50])
    return not behind and not problems, "\n".join(lines)


def main() -> int:
    """Run the suite against a fresh hearth-api; print and write the verdict."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=".heat-functional/results",
                        help="results directory (default: %(default)s)")
    parser.add_argument("--venv", default=".heat-functional/venv",
                        help="the suite's virtualenv, made when missing (default: %(default)s)")
    parser.add_argument("--hearth-api", default=str(Path(sys.executable).parent / "hearth-api"),
                        help="the hearth-api to test (default: the one beside this python)")
    parser.add_argument("--filter", help="run only test ids matching this regex")
    parser.add_argument("--exclude", help="skip test ids matching this regex")
    parser.add_argument("--timeout", type=int, default=180, help="seconds per test")
    parser.add_argument("--build-timeout", type=int, default=60,
                        help="seconds the suite waits for a stack status")
    args = parser.parse_args()

    python = ensure_suite_venv(Path(args.venv).resolve())
    out = Path(args.out).resolve()
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    home = Path(tempfile.mkdtemp(prefix="hearth-heat-functional-"))
    process, url = start_server(args.hearth_api, home, out / "server.log")
    print(f"heat-functional: hearth-api at {url} (HEARTH_HOME {home})", flush=True)
    command = [str(python), "-W", "ignore", str(HERE / "suite.py"), "--url", url,
               "--out", str(out), "--timeout", str(args.timeout),
               "--build-timeout", str(args.build_timeout)]
    command += ["--filter", args.filter] if args.filter else []
    command += ["--exclude", args.exclude] if args.exclude else []
    try:
        subprocess.run(command, check=True)
    finally:
        stop_server(process)
        shutil.rmtree(home, ignore_errors=True)
    results = json.loads((out / "results.json").read_text())["results"]
    heat = json.loads(HEAT_RESULTS.read_text())["results"]
    good, report = verdict(results, heat, server_problems(out / "server.log"))
    (out / "verdict.txt").write_text(report + "\n")
    print(report)
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())

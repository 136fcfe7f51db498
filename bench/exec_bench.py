"""Benchmark the execution layer against Salt's figures (reference/salt.md section 7).

1. Cold: ``stackctl call test.ping`` as a fresh process (hyperfine when installed,
   else a timed loop).  Salt: ``salt-call --local test.ping`` 0.545 s median.
2. Warm, in-process: ``cmd.run 'echo hi'`` and ``test.ping`` through one loader.
   Salt: 1.0-1.5 ms and 0.016 ms medians.

Writes the figures into bench/RESULTS.md under "Execution modules (issue 6)"
(only that section) with --write.

Usage: .venv/bin/python bench/exec_bench.py [--runs 40] [--warm-runs 2000] [--write]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STACKCTL = os.path.join(os.path.dirname(sys.executable), "stackctl")
SECTION = "## Execution modules (issue 6)"
SALT_COLD_S, SALT_WARM_CMD_MS, SALT_WARM_PING_MS = 0.545, (1.0, 1.5), 0.016


def cold_hyperfine(runs: int, env: dict) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".json") as export:
        subprocess.run(["hyperfine", "--warmup", "3", "--runs", str(runs), "-N",
                        "--export-json", export.name, f"{STACKCTL} call test.ping"],
                       check=True, env=env, stdout=subprocess.DEVNULL)
        with open(export.name) as handle:
            result = json.load(handle)["results"][0]
    return {"tool": "hyperfine", "median": result["median"], "min": result["min"],
            "max": result["max"], "runs": runs, "cpu": result["user"] + result["system"]}


def cold_loop(runs: int, env: dict) -> dict:
    times = []
    for _ in range(runs + 3):
        start = time.perf_counter()
        subprocess.run([STACKCTL, "call", "test.ping"], check=True, env=env,
                       stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    times = times[3:]
    return {"tool": "loop", "median": statistics.median(times), "min": min(times),
            "max": max(times), "runs": runs, "cpu": None}


def warm(runs: int) -> dict:
    sys.path.insert(0, ROOT)
    from hearth.jobs import JobRunner
    from hearth.loader import execution_loader

    loader = execution_loader({"state_path": tempfile.mkdtemp()})
    runner = JobRunner(loader, "bench")
    results = {}
    for label, call, args in (("cmd.run 'echo hi'", loader["cmd.run"], ("echo hi",)),
                              ("test.ping", loader["test.ping"], ()),
                              ("job test.ping", runner.run, ("test.ping",))):
        for _ in range(50):
            call(*args)
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            call(*args)
            times.append(time.perf_counter() - start)
        times.sort()
        results[label] = {"median_ms": statistics.median(times) * 1000,
                          "p95_ms": times[int(len(times) * 0.95)] * 1000}
    return results


def load_average() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def render(cold: dict, warm_results: dict, command: str) -> str:
    cmd_run, ping = warm_results["cmd.run 'echo hi'"], warm_results["test.ping"]
    job = warm_results["job test.ping"]
    return "\n".join([
        SECTION, "",
        f"Command: `{command}` (cold start via {cold['tool']}, {cold['runs']} runs after "
        "3 warm-ups; warm calls in-process through one loader, after 50 warm-up calls). "
        f"Load average while measuring: {load_average()} on {os.cpu_count()} cores.",
        "",
        "| Measure | Hearth | Salt 3008.5 | Target |",
        "|---|---|---|---|",
        f"| cold `stackctl call test.ping` (median) | {cold['median']:.3f} s "
        f"(min {cold['min']:.3f}, max {cold['max']:.3f}"
        + (f"; CPU user+sys {cold['cpu']:.3f}" if cold["cpu"] else "")
        + f") | {SALT_COLD_S} s "
        "(`salt-call --local`) | <= 0.25 s |",
        f"| warm `cmd.run 'echo hi'` (median) | {cmd_run['median_ms']:.3f} ms "
        f"(p95 {cmd_run['p95_ms']:.3f}) | {SALT_WARM_CMD_MS[0]}-{SALT_WARM_CMD_MS[1]} ms "
        "| <= 1 ms |",
        f"| warm `test.ping` (median) | {ping['median_ms'] * 1000:.2f} us "
        f"(p95 {ping['p95_ms'] * 1000:.2f}), the bare function | "
        f"{SALT_WARM_PING_MS * 1000:.0f} us (`Caller.cmd`) | - |",
        f"| warm `test.ping` as a job (JID, new/ret events, success rule) | "
        f"{job['median_ms'] * 1000:.1f} us (p95 {job['p95_ms'] * 1000:.1f}) | "
        f"{SALT_WARM_PING_MS * 1000:.0f} us | - |",
        "",
        "`cmd.run` without `python_shell` spawns the program directly with `posix_spawn` "
        "(no shell); most of the warm figure is the child process itself (`/usr/bin/echo`). "
        "The cold start imports only the standard library, oslo.config and the loader; "
        "grains are gathered lazily (test.ping never reads them).",
        "",
    ])


def write_section(text: str) -> None:
    path = os.path.join(ROOT, "bench", "RESULTS.md")
    with open(path) as handle:
        content = handle.read()
    start = content.index(SECTION)
    following = content.find("\n## ", start + len(SECTION))
    tail = content[following + 1:] if following != -1 else ""
    with open(path, "w") as handle:
        handle.write(content[:start] + text + ("\n" + tail if tail else ""))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--warm-runs", type=int, default=2000)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    env = {**os.environ, "HEARTH_HOME": tempfile.mkdtemp(prefix="hearth-bench-")}
    cold = (cold_hyperfine if shutil.which("hyperfine") else cold_loop)(args.runs, env)
    warm_results = warm(args.warm_runs)
    command = " ".join(["python bench/exec_bench.py", f"--runs {args.runs}",
                        f"--warm-runs {args.warm_runs}"] + (["--write"] if args.write else []))
    text = render(cold, warm_results, command)
    print(text)
    if args.write:
        write_section(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

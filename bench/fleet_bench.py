"""Benchmark hearth-master with a simulated fleet of thousands of agents (issue 24).

Real agents cost about 18 MB each, so a fleet of 100, 1,000 or 5,000 is
simulated by ``tests/fixtures/fleet.py``: agents that speak the real
protocol (each its own CURVE key, accepted at the master beforehand;
authentication, hello, pings, jobs and returns through the real agent's
session code and reconnect policy), many per process.  For each size:

1. the fleet started until every agent talks with the master;
2. the master's CPU while the fleet is idle (pings only);
3. ``stackctl run '*' test.ping --format json``: whole processes and, in
   the benchmark's own process, stackctl's ``main`` (no interpreter start),
   medians of ``--repeats``; every agent must have returned ``True``;
4. returns per second, jobs back to back (through the JobService, as stackctl);
5. the master's RSS (largest seen) and CPU seconds per job;
6. a master restart (SIGTERM, started again at once): a job published as
   soon as the new master answers must reach every agent; the seconds
   until every agent is back and until that job has all its returns.

``--profile DIR`` records the master with py-spy during steps 3-4 and
prints its hottest functions.  The anchor is Salt's figure measured on
this machine kind (``../shared/reference/salt-remote-figures.md``).

Usage: .venv/bin/python bench/fleet_bench.py [--agents 100,1000,5000] [--repeats 5]
       [--seconds 10] [--profile DIR]
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import psutil  # noqa: E402

from tests.fixtures import fleet  # noqa: E402
from tests.fixtures.agents import STACKCTL, MasterProcess, _environment  # noqa: E402

#: Salt 3008.5 here: about 64 ms per minion for ``salt '*' test.ping``.
SALT_PER_AGENT = 0.064
#: Seconds the fleet is left alone before measuring (first pillar fetches, records written).
SETTLE_SECONDS = 3.0
TARGETS = {"run": {1000: "≤ 1.0 s", 5000: "≤ 3 s"}, "rss": {5000: "≤ 600 MB"},
           "restart": {5000: "≤ 30 s, first job reaches all"}}


class Sampler:
    """Sample a process's RSS every 0.1 s in a thread; keep the largest."""

    def __init__(self, pid: int) -> None:
        self.process = psutil.Process(pid)
        self.largest = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.1):
            with contextlib.suppress(psutil.Error):
                self.largest = max(self.largest, self.process.memory_info().rss)

    def cpu(self) -> float:
        """Return the process's CPU seconds so far."""
        times = self.process.cpu_times()
        return times.user + times.system

    def stop(self) -> None:
        """Stop sampling."""
        self._stop.set()
        self._thread.join()


def stackctl_process(master: MasterProcess, count: int) -> float:
    """Return the wall time of one ``stackctl run '*' test.ping`` process; check every return."""
    started = time.perf_counter()
    result = subprocess.run([STACKCTL, "--config-file", str(master.config), "run", "*",
                             "test.ping", "--format", "json", "--timeout", "30"],
                            env=_environment(master.directory), capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    check_returns(result.returncode, result.stdout, count, result.stderr)
    return elapsed


def stackctl_in_process(master: MasterProcess, count: int) -> float:
    """Return the wall time of stackctl's ``main`` for the same command, in this process."""
    from hearth.cli.main import main

    output = io.StringIO()
    os.environ.update(_environment(master.directory))
    started = time.perf_counter()
    with contextlib.redirect_stdout(output):
        code = main(["--config-file", str(master.config), "run", "*", "test.ping",
                     "--format", "json", "--timeout", "30"])
    elapsed = time.perf_counter() - started
    check_returns(code, output.getvalue(), count)
    return elapsed


#: Agents a run reported without their return, by run (a figure of its own, not a crash).
SHORT: list[str] = []


def check_returns(code: int, stdout: str, count: int, stderr: str = "") -> None:
    """Note the run unless every one of ``count`` agents returned True; fail if it failed."""
    returns = json.loads(stdout) if stdout.strip() else {}
    answered = sum(value is True for value in returns.values())
    if answered < count * 0.99 or len(returns) != count:
        raise RuntimeError(f"run: exit {code}, {answered}/{count} returned True; "
                           f"{stderr[-500:]}")
    if answered != count:
        other = collections.Counter(str(value) for value in returns.values() if value is not True)
        SHORT.append(f"{answered}/{count} ({dict(other)}; {stderr.strip()[:120]})")


def returns_per_second(master: MasterProcess, seconds: float) -> float:
    """Return returns/s of ``test.ping`` jobs to ``*`` run one after the other."""
    from hearth.jobservice.request import JobRequest

    service = master.jobs()
    returns, started = 0, time.monotonic()
    while time.monotonic() - started < seconds:
        returns += len(service.run(service.host_owner, JobRequest(
            "test.ping", [], {}, "*", "glob", 30, None)).returns)
    return returns / (time.monotonic() - started)


def master_connected(master: MasterProcess) -> int:
    """Return how many agents the master counts as connected (0 while it does not answer)."""
    try:
        with master.client(timeout=2) as client:
            return int(client.stats()["agents"]["connected"])
    except Exception:  # noqa: BLE001 - not up yet
        return 0


def restart(master: MasterProcess, swarm: fleet.FleetProcess, count: int
            ) -> dict[str, float | int]:
    """Restart the master; return when every agent was back and what the first job reached."""
    master.stop()
    started = time.monotonic()
    master.start()
    master.wait_ready(timeout=120)
    answering = time.monotonic() - started
    published = master.publish("*", "test.ping", timeout=30)
    with master.client(timeout=60) as client:
        status = client.wait(published.jid, 60)
    first_job = time.monotonic() - started
    while master_connected(master) < count and time.monotonic() - started < 120:
        time.sleep(0.2)
    all_back = time.monotonic() - started
    return {"answering": answering, "first_job": first_job, "all_back": all_back,
            "reached": sum(ret.get("return") is True for ret in status.returns.values()),
            "fleet_auths": swarm.status().get("auths", 0)}


def profile(pid: int, seconds: float, path: Path) -> subprocess.Popen:
    """Start py-spy recording ``pid`` for ``seconds`` into ``path`` (raw collapsed stacks)."""
    return subprocess.Popen([os.path.join(os.path.dirname(sys.executable), "py-spy"), "record",
                             "--pid", str(pid), "--duration", str(int(seconds)), "--rate", "200",
                             "--format", "raw", "--output", str(path), "--nonblocking"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def hottest(path: Path, top: int = 25) -> list[tuple[str, float]]:
    """Return the functions with most samples in a raw py-spy file (inclusive), as shares."""
    inclusive: collections.Counter[str] = collections.Counter()
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        samples = int(count)
        total += samples
        for frame in set(stack.split(";")):
            inclusive[frame] += samples
    return [(frame, samples / max(total, 1)) for frame, samples in inclusive.most_common(top)]


def measure(count: int, args: argparse.Namespace, base: Path) -> dict[str, object]:
    """Run every step for a fleet of ``count`` agents; return the figures."""
    from hearth.transport import certificates

    directory = base / f"n{count}"
    master = MasterProcess(directory / "master", auto_accept=False, fast=False)
    pairs = fleet.make_keys(f"sim{number:05d}" for number in range(count))
    master.start()
    swarm = None
    sampler = None
    figures: dict[str, object] = {"agents": count}
    try:
        master.wait_ready()
        fleet.preaccept(master.pki_dir, pairs)
        public = certificates.load_public(str(master.pki_dir / "master.key")).decode()
        swarm = fleet.FleetProcess(directory / "fleet", pairs, [fleet.MasterEndpoint(
            "127.0.0.1", master.port, master.auth_port, public)])
        sampler = Sampler(master.process.pid)
        swarm.start()
        figures["start"] = swarm.wait_connected(timeout=600)
        time.sleep(SETTLE_SECONDS)
        cpu, fleet_cpu = sampler.cpu(), swarm.status()["cpu_seconds"]
        time.sleep(5.0)
        figures["idle_cpu"] = (sampler.cpu() - cpu) / 5.0
        figures["fleet_idle_cpu"] = (swarm.status()["cpu_seconds"] - fleet_cpu) / 5.0
        recorder = None
        if args.profile:
            Path(args.profile).mkdir(parents=True, exist_ok=True)
            profile_path = Path(args.profile) / f"master-{count}.txt"
            profile_path.unlink(missing_ok=True)
            recorder = profile(master.process.pid, 600, profile_path)
        stackctl_process(master, count)  # warm-up: the master's first job, the CLI's caches
        figures["process"] = [stackctl_process(master, count) for _ in range(args.repeats)]
        stackctl_in_process(master, count)
        cpu, fleet_cpu = sampler.cpu(), swarm.status()["cpu_seconds"]
        figures["in_process"] = [stackctl_in_process(master, count)
                                 for _ in range(args.repeats)]
        figures["cpu_per_job"] = (sampler.cpu() - cpu) / args.repeats
        time.sleep(fleet.STATUS_INTERVAL * 2)
        figures["fleet_cpu_per_job"] = (swarm.status()["cpu_seconds"] - fleet_cpu) / args.repeats
        figures["returns_per_second"] = returns_per_second(master, args.seconds)
        figures["rss"] = sampler.largest
        if recorder is not None:
            recorder.send_signal(signal.SIGINT)  # py-spy writes what it has on SIGINT
            recorder.wait()
            figures["hottest"] = hottest(profile_path) if profile_path.exists() else []
        sampler.stop()
        figures["restart"] = restart(master, swarm, count)
        sampler = Sampler(master.process.pid)
        time.sleep(2.0)
        figures["rss_after_restart"] = sampler.largest
    finally:
        if sampler is not None:
            sampler.stop()
        if swarm is not None:
            swarm.stop()
        master.stop()
    return figures


def report(all_figures: list[dict[str, object]], args: argparse.Namespace) -> None:
    """Print the figures as Markdown tables."""
    print(f"repeats: {args.repeats}, load average at the end: {os.getloadavg()[0]:.1f}")
    print("| agents | measure | Hearth | Salt here | target |")
    print("|---|---|---|---|---|")
    for figures in all_figures:
        count = figures["agents"]
        process, in_process = figures["process"], figures["in_process"]
        restarted = figures["restart"]
        rows = [
            ("fleet started until all talk with the master", f"{figures['start']:.1f} s", "", ""),
            ("master CPU with the fleet idle (pings)", f"{figures['idle_cpu']:.0%} of a core "
             f"(fleet process {figures['fleet_idle_cpu']:.0%})", "", ""),
            ("`stackctl run '*' test.ping`, whole process",
             f"{statistics.median(process):.2f} s ({min(process):.2f}–{max(process):.2f})",
             f"≈ {SALT_PER_AGENT * count:.0f} s", TARGETS["run"].get(count, "")),
            ("the same, stackctl's main in-process",
             f"{statistics.median(in_process):.2f} s ({min(in_process):.2f}–"
             f"{max(in_process):.2f})", "", ""),
            ("CPU per job: master (fleet process)", f"{figures['cpu_per_job']:.2f} s "
             f"({figures['fleet_cpu_per_job']:.2f} s)", "", ""),
            ("returns/s, jobs back to back", f"{figures['returns_per_second']:.0f}", "13–16", ""),
            ("master RSS (largest)", f"{figures['rss'] / 1e6:.0f} MB", "≈ 290 MB PSS (50)",
             TARGETS["rss"].get(count, "")),
            ("master restart: answering again", f"{restarted['answering']:.1f} s", "", ""),
            ("master restart: first job's returns",
             f"{restarted['reached']}/{count} in {restarted['first_job']:.1f} s",
             "34/50", "all"),
            ("master restart: every agent back", f"{restarted['all_back']:.1f} s",
             "18–22 s (50)", TARGETS["restart"].get(count, "")),
        ]
        for row in rows:
            print(f"| {count} | " + " | ".join(row) + " |")
    for figures in all_figures:
        if figures.get("hottest"):
            print(f"\nmaster profile at {figures['agents']} agents (inclusive share of samples):")
            for frame, share in figures["hottest"]:
                print(f"  {share:6.1%}  {frame}")


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark for each fleet size and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", default="100,1000,5000",
                        help="fleet sizes, comma-separated (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--profile", help="directory for py-spy profiles of the master")
    args = parser.parse_args(argv)
    base = Path(tempfile.mkdtemp(prefix="hearth-fleet-bench-"))
    results, failed = [], []
    for size in args.agents.split(","):
        try:
            results.append(measure(int(size), args, base))
        except Exception as error:  # noqa: BLE001 - the other sizes are still measured
            failed.append(f"{size} agents: {error}")
        else:
            report(results[-1:], args)  # each size as soon as it is measured
    if len(results) > 1:
        report(results, args)
    for short in SHORT:
        print(f"a run short of returns: {short}")
    for failure in failed:
        print(f"FAILED: {failure}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

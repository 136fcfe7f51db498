"""Benchmark the REST API: list/show throughput and latency, create-to-complete time.

Starts a real ``hearth-api --noauth`` on 127.0.0.1 (free port, temporary
HEARTH_HOME), fills it with ``--stacks`` stacks, then runs ``--clients``
concurrent clients, each making ``--requests`` requests (bounded loops) of
stack list and stack show; and measures the time from POST to
CREATE_COMPLETE (and DELETE to gone) for a stack of 100 OS::Heat::None
(fan-out and chain), compared with real Heat's figures
(../shared/reference/heat-figures.md).

    .venv/bin/python bench/api_bench.py [--stacks 1000] [--clients 4] [--requests 200]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable

import requests

HEAT_FIGURES = {"fanout": {"create": 4.8, "delete": 3.3}, "chain": {"create": 5.9,
                                                                   "delete": 5.7}}
POLL = 0.01


def start_server(home: str, stacks: int) -> tuple[subprocess.Popen, str]:
    """Start hearth-api --noauth allowing ``stacks`` stacks; return the process and URL."""
    binary = os.path.join(os.path.dirname(sys.executable), "hearth-api")
    config = os.path.join(home, "bench.conf")
    with open(config, "w") as handle:
        handle.write(f"[DEFAULT]\nmax_stacks_per_tenant = {stacks + 10}\n")
    process = subprocess.Popen([binary, "--noauth", "--host", "127.0.0.1", "--port", "0",
                                "--config-file", config],
                               env={**os.environ, "HEARTH_HOME": home},
                               stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    root = line.split("listening on ", 1)[1].split()[0]
    return process, f"{root}/v1/bench"


def none_template(count: int, shape: str) -> dict:
    """Return a template of ``count`` OS::Heat::None in a fan-out or a chain."""
    resources = {}
    for index in range(count):
        resource = {"type": "OS::Heat::None"}
        if shape == "chain" and index:
            resource["depends_on"] = [f"r{index - 1}"]
        resources[f"r{index}"] = resource
    return {"heat_template_version": "2021-04-16", "resources": resources}


def wait_for(session: requests.Session, url: str, done: Callable[[requests.Response], bool],
             timeout: float = 600) -> None:
    """Poll ``url`` until ``done(response)``."""
    deadline = time.monotonic() + timeout
    while not done(session.get(url, params={"resolve_outputs": "false"})):
        if time.monotonic() > deadline:
            raise TimeoutError(url)
        time.sleep(POLL)


def _status(response: requests.Response) -> str:
    return response.json()["stack"]["stack_status"] if response.ok else "GONE"


def fill(base: str, count: int) -> list[str]:
    """Create ``count`` one-resource stacks; return their canonical URLs."""
    session = requests.Session()
    template = none_template(1, "fanout")
    urls = []
    for index in range(count):
        response = session.post(f"{base}/stacks", json={"stack_name": f"s{index:04d}",
                                                         "template": template})
        response.raise_for_status()
        urls.append(response.headers["Location"])
    wait_for(session, urls[-1], lambda r: _status(r).endswith("COMPLETE"))
    return urls


def load(clients: int, requests_each: int, make_url: Callable[[int], str]) -> dict:
    """Run bounded request loops on ``clients`` threads; return rps and percentiles (ms)."""
    latencies: list[float] = []
    lock = threading.Lock()

    def client(number: int) -> None:
        session = requests.Session()
        mine = []
        for index in range(requests_each):
            started = time.perf_counter()
            session.get(make_url(number * requests_each + index)).raise_for_status()
            mine.append(time.perf_counter() - started)
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    cuts = statistics.quantiles(latencies, n=100)
    return {"rps": len(latencies) / elapsed, "p50": cuts[49] * 1000, "p90": cuts[89] * 1000,
            "p99": cuts[98] * 1000}


def create_delete(base: str, shape: str, count: int) -> tuple[float, float]:
    """Return seconds from POST to CREATE_COMPLETE and from DELETE to gone."""
    session = requests.Session()
    started = time.perf_counter()
    response = session.post(f"{base}/stacks", json={"stack_name": f"big-{shape}",
                                                    "template": none_template(count, shape)})
    response.raise_for_status()
    url = response.headers["Location"]
    wait_for(session, url, lambda r: _status(r) in ("CREATE_COMPLETE", "CREATE_FAILED"))
    created = time.perf_counter() - started
    started = time.perf_counter()
    session.delete(url).raise_for_status()
    wait_for(session, url, lambda r: _status(r) in ("DELETE_COMPLETE", "GONE", "DELETE_FAILED"))
    return created, time.perf_counter() - started


def main() -> int:
    """Run the benchmark and print a Markdown report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stacks", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    home = tempfile.mkdtemp(prefix="hearth-api-bench-")
    process, base = start_server(home, args.stacks)
    try:
        started = time.perf_counter()
        urls = fill(base, args.stacks)
        print(f"filled {args.stacks} stacks in {time.perf_counter() - started:.1f} s")
        print("| request | clients | requests/s | p50 ms | p90 ms | p99 ms |")
        print("|---|---:|---:|---:|---:|---:|")
        cases = {"stack list (limit=20)": lambda i: f"{base}/stacks?limit=20",
                 f"stack list (all {args.stacks})": lambda i: f"{base}/stacks",
                 "stack show": lambda i: urls[i % len(urls)]}
        for name, make_url in cases.items():
            result = load(args.clients, args.requests, make_url)
            print(f"| {name} | {args.clients} | {result['rps']:.0f} | {result['p50']:.1f} | "
                  f"{result['p90']:.1f} | {result['p99']:.1f} |")
        print("\n| 100 x OS::Heat::None | create | delete | Heat create | Heat delete | ratio |")
        print("|---|---:|---:|---:|---:|---:|")
        for shape in ("fanout", "chain"):
            created, deleted = create_delete(base, shape, 100)
            heat = HEAT_FIGURES[shape]
            print(f"| {shape} | {created:.2f} s | {deleted:.2f} s | {heat['create']} s | "
                  f"{heat['delete']} s | {heat['create'] / created:.0f}x / "
                  f"{heat['delete'] / deleted:.0f}x |")
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
    return 0


if __name__ == "__main__":
    sys.exit(main())

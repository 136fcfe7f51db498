"""Benchmark Hearth::Cloud::Server on the local driver: 20 hearth-agent nodes.

1. Engine: one stack of N ``Hearth::Cloud::Server`` (local driver) created
   and deleted through an in-process EngineService; per node, the time from
   the driver's ``creating`` event to ``created`` (agent answering
   ``test.ping`` through the master), and the stack's total create and
   delete times.
2. Plain loop: N nodes created one after the other with the same driver
   (``Cloud.create``), then destroyed: the per-node cost without any engine.
3. Threaded loop: N nodes created at once on N threads (the parallelism the
   engine gets from its worker threads), then destroyed.

The engine's overhead is (1) against (3); (2) shows what parallel creation
buys.  A real hearth-master runs for the whole benchmark.

Usage: .venv/bin/python bench/cloud_bench.py [--nodes 20] [--write]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SECTION = "## Cloud servers on the local driver (issue 12)"


def template(count: int) -> str:
    """Return a HOT template of ``count`` local servers."""
    servers = "".join(f"  s{i}:\n    type: Hearth::Cloud::Server\n"
                      f"    properties: {{profile: agent}}\n" for i in range(count))
    return f"heat_template_version: 2018-08-31\nresources:\n{servers}"


def summary(seconds: list[float]) -> str:
    """Return 'median / min / max' of ``seconds``."""
    return (f"{statistics.median(seconds):.2f} / {min(seconds):.2f} / {max(seconds):.2f}"
            if seconds else "n/a")


def per_node(events: list, prefix: str) -> list[float]:
    """Return each node's creating-to-created time from the bus events."""
    import datetime

    started, ended = {}, {}
    for event in events:
        parts = event.tag.split("/")
        if len(parts) != 4 or not parts[2].startswith(prefix):
            continue
        stamp = datetime.datetime.fromisoformat(event.data["_stamp"]).timestamp()
        if parts[3] == "creating":
            started[parts[2]] = stamp
        elif parts[3] == "created":
            ended[parts[2]] = stamp
    return [ended[name] - started[name] for name in ended if name in started]


def engine_run(count: int, db_url: str) -> dict:
    """Create and delete one stack of ``count`` servers; return the timings."""
    from hearth import bus
    from hearth.common.context import RequestContext
    from hearth.engine.service.engine import EngineService

    ctx = RequestContext.local()
    subscription = bus.subscribe("hearth/cloud/")
    service = EngineService(db_url=db_url)
    try:
        start = time.perf_counter()
        created = service.create_stack(ctx, "bench", template(count))
        stack = service.wait(ctx, created["id"])
        create_total = time.perf_counter() - start
        assert stack["stack_status"] == "CREATE_COMPLETE", stack["stack_status_reason"]
        nodes = per_node(subscription.drain(), "bench-")
        start = time.perf_counter()
        service.delete_stack(ctx, created["id"])
        deleted = service.wait(ctx, created["id"])
        delete_total = time.perf_counter() - start
        assert deleted["stack_status"] == "DELETE_COMPLETE", deleted["stack_status_reason"]
    finally:
        subscription.close()
        service.stop()
    return {"create_total": create_total, "delete_total": delete_total, "per_node": nodes}


def loop_run(count: int, threaded: bool) -> dict:
    """Create then destroy ``count`` nodes with the driver alone; return the timings."""
    from hearth.clouds.cloud import Cloud

    label = "thread" if threaded else "loop"
    names = [f"{label}-{i}" for i in range(count)]
    timings: dict[str, float] = {}

    def create(name: str) -> None:
        cloud = Cloud.from_conf()  # one client per thread, as each server resource has
        began = time.perf_counter()
        cloud.create(cloud.profile_vm("agent", name))
        timings[name] = time.perf_counter() - began

    def destroy(name: str) -> None:
        Cloud.from_conf().call_action("here", "destroy", name)

    results = {}
    for phase, work in (("create_total", create), ("delete_total", destroy)):
        start = time.perf_counter()
        if threaded:
            threads = [threading.Thread(target=work, args=(n,)) for n in names]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        else:
            for name in names:
                work(name)
        results[phase] = time.perf_counter() - start
    results["per_node"] = list(timings.values())
    return results


def setup(base: Path) -> object:
    """Start a master, write the cloud configuration, load Hearth's configuration."""
    sys.path.insert(0, str(ROOT))
    from hearth.common import config
    from tests.fixtures.agents import MasterProcess
    from tests.fixtures.clouds import hearth_conf, write_cloud_config

    os.environ["HEARTH_HOME"] = str(base / "home")
    master = MasterProcess(base / "master", auto_accept=False)
    master.start()
    master.wait_ready()
    cloud_dir = write_cloud_config(
        base / "cloud", {"here": {"driver": "local", "master_config": str(master.config)}},
        {"agent": {"provider": "here"}})
    conf = hearth_conf(base / "hearth.conf", cloud_dir)
    config.load(config_files=[str(conf)])
    return master


def render(count: int, engine: dict, loop: dict, threaded: dict, command: str) -> str:
    """Return the RESULTS.md section."""
    load = os.getloadavg()
    rows = [("Engine: stack of Hearth::Cloud::Server", engine),
            ("Plain loop, one node after the other", loop),
            ("Threaded loop, all nodes at once", threaded)]
    lines = [SECTION, "", f"Command: `{command}`", "",
             f"{count} local nodes (hearth-agent processes, keys preseeded) reporting to one "
             "hearth-master on this machine; *per node* is the time from the driver's "
             "`creating` event to `created`, i.e. until the agent answers `test.ping` "
             "through the master (median / min / max, seconds).",
             "", "| Run | create, total (s) | per node (s) | delete, total (s) |",
             "|---|---|---|---|"]
    lines += [f"| {label} | {result['create_total']:.2f} | {summary(result['per_node'])} | "
              f"{result['delete_total']:.2f} |" for label, result in rows]
    overhead = engine["create_total"] - threaded["create_total"]
    lines += ["", f"Engine overhead on create against the same parallelism without an engine: "
                  f"{overhead:+.2f} s in total ({overhead / count:+.3f} s per node).", "",
              f"Conditions: 2 shared cores, load average {load[0]:.1f} / {load[1]:.1f} / "
              f"{load[2]:.1f} when the run ended, other engineers' test suites running: the "
              "figures are noisy and to be re-taken on a quiet machine.", ""]
    return "\n".join(lines)


def write_section(text: str) -> None:
    """Replace (or append) this benchmark's section of bench/RESULTS.md."""
    path = ROOT / "bench" / "RESULTS.md"
    content = path.read_text()
    if SECTION not in content:
        path.write_text(content.rstrip("\n") + "\n\n" + text)
        return
    start = content.index(SECTION)
    following = content.find("\n## ", start + len(SECTION))
    tail = content[following + 1:] if following != -1 else ""
    path.write_text(content[:start] + text + ("\n" + tail if tail else ""))


def main() -> int:
    """Run the benchmark; print (and with --write record) the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=20)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hearth-cloud-bench-") as directory:
        base = Path(directory)
        master = setup(base)
        try:
            engine = engine_run(args.nodes, f"sqlite:///{base / 'hearth.db'}")
            loop = loop_run(args.nodes, threaded=False)
            threaded = loop_run(args.nodes, threaded=True)
        finally:
            from tests.fixtures.clouds import kill_agents

            kill_agents(base)
            master.stop()
    command = "python bench/cloud_bench.py" + (f" --nodes {args.nodes}") + \
        (" --write" if args.write else "")
    text = render(args.nodes, engine, loop, threaded, command)
    print(text)
    if args.write:
        write_section(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

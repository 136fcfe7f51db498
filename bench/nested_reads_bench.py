"""Cost of reading a nested stack tree: resource-list and event-list --nested-depth, stack-list.

A stack holds an ``OS::Heat::ResourceGroup`` of N provider-template members
(each a nested stack of one ``OS::Heat::None``), so ``nested_depth 2``
reads N + 2 stacks.  The reads run on an in-process EngineService
(StackReads: database only), SQLite file database in a temporary
HEARTH_HOME; figures are medians of ``--repeats``, except the first
``-n 2`` listing (each stored template's requirements read once, then kept).

    PYTHONWARNINGS=ignore .venv/bin/python bench/nested_reads_bench.py --n 10,100 --repeats 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time

MEMBER = {"heat_template_version": "2021-04-16",
          "parameters": {"index": {"type": "string", "default": "0"}},
          "resources": {"leaf": {"type": "OS::Heat::None"}}}


def _template(count: int) -> dict:
    return {"heat_template_version": "2021-04-16", "resources": {
        "group": {"type": "OS::Heat::ResourceGroup", "properties": {
            "count": count,
            "resource_def": {"type": "member.yaml", "properties": {"index": "%index%"}}}}}}


def _median(call, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(count: int, repeats: int) -> dict:
    """Create the tree of ``count`` members; return the median time of each read."""
    from hearth.common.context import RequestContext
    from hearth.engine.service.engine import EngineService
    ctx = RequestContext.local()
    service = EngineService()
    try:
        created = service.create_stack(ctx, f"tree{count}", _template(count),
                                       files={"member.yaml": json.dumps(MEMBER)})
        stack = service.wait(ctx, created["id"])
        assert stack["stack_status"] == "CREATE_COMPLETE", stack["stack_status_reason"]
        name = stack["stack_name"]
        reads = {
            "resource-list": lambda: service.list_resources(ctx, name),
            "resource-list -n 2": lambda: service.list_resources(ctx, name, nested_depth=2),
            "event-list": lambda: service.list_events(ctx, name),
            "event-list -n 2": lambda: service.list_events(ctx, name, nested_depth=2),
            "stack-list --show-nested": lambda: service.list_stacks(ctx, show_nested=True),
        }
        start = time.perf_counter()
        rows = len(service.list_resources(ctx, name, nested_depth=2))
        first = time.perf_counter() - start
        result = {read: _median(call, repeats) for read, call in reads.items()}
        result.update({"rows -n 2": rows, "first -n 2": first})
        return result
    finally:
        service.stop()


def main() -> None:
    """Print one markdown row per N."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", default="10,100", help="member counts, comma separated")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    os.environ.setdefault("HEARTH_HOME", tempfile.mkdtemp(prefix="nested-reads-bench-"))
    from hearth.common import config
    config.load(config_files=[])
    print("| N members | rows (-n 2) | resource-list | resource-list -n 2 (first) "
          "| resource-list -n 2 | per row (-n 2) | event-list | event-list -n 2 "
          "| stack-list --show-nested |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for count in (int(item) for item in args.n.split(",")):
        got = measure(count, args.repeats)
        per_row = got["resource-list -n 2"] / got["rows -n 2"] * 1000
        print(f"| {count} | {got['rows -n 2']} | {got['resource-list']:.3f} s "
              f"| {got['first -n 2']:.3f} s | {got['resource-list -n 2']:.3f} s | {per_row:.2f} ms "
              f"| {got['event-list']:.3f} s | {got['event-list -n 2']:.3f} s "
              f"| {got['stack-list --show-nested']:.3f} s |", flush=True)


if __name__ == "__main__":
    main()

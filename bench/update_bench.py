"""Benchmark stack updates in-process: what comparing each resource costs.

Runs an EngineService (the engine in this process) on a SQLite file
database in a temporary HEARTH_HOME and measures, as medians of
``--repeats`` runs, for each N of ``--sizes`` and two shapes of
``OS::Heat::Value``:

* ``fanout``: every resource's ``value`` reads a parameter;
* ``chain``: each resource's ``value`` reads the previous one's attribute
  (``get_attr``), the first one the parameter;

the wall and CPU time (the process's, engine included) of ``create_stack``
to CREATE_COMPLETE, of an update with the same template and parameters
(every resource compared, none changed), of an update giving the parameter
a new value (every resource updated: in the chain, each because the
attribute it reads changed) and of the delete; ``updated`` counts the
resources the two updates updated (UPDATE_COMPLETE events) in the last run.
``--json`` prints one JSON object per row instead of the table, to pair
runs of two trees.

``--baseline TREE`` compares with another checkout: each repeat runs
this tree, then TREE, each in a process of its own (A B A B ...), and the
table gives both medians and the median of the pairs' ratios, which a
machine whose speed drifts moves less than either:

    .venv/bin/python bench/update_bench.py [--sizes 100 1000] [--repeats 3] [--json]
    .venv/bin/python bench/update_bench.py --baseline /path/to/other/checkout
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

#: the columns of the report, in order
STEPS = ("create", "same", "changed", "delete")


def value_template(shape: str, count: int) -> str:
    """Return a template of ``count`` OS::Heat::Value in ``shape`` (fanout or chain)."""
    lines = ["heat_template_version: 2018-08-31",
             "parameters: {v: {type: string, default: one}}", "resources:"]
    for index in range(count):
        source = ("{get_param: v}" if shape == "fanout" or not index
                  else f"{{get_attr: [r{index - 1}, value]}}")
        lines.append(f"  r{index}: {{type: OS::Heat::Value, properties: {{value: {source}}}}}")
    return "\n".join(lines) + "\n"


def timed(action: Callable[[], object]) -> tuple[float, float]:
    """Return the wall and CPU time of ``action()`` in seconds."""
    started, cpu = time.perf_counter(), time.process_time()
    action()
    return time.perf_counter() - started, time.process_time() - cpu


class Bench:
    """One engine on a fresh database; :meth:`cycle` times one stack's four steps."""

    def __init__(self, home: str) -> None:
        os.environ["HEARTH_HOME"] = home
        from hearth.common import config
        from hearth.common.context import RequestContext
        from hearth.engine.service.engine import EngineService
        config.load(config_files=[])
        self.ctx = RequestContext.local()
        self.service = EngineService(db_url="sqlite:///" + os.path.join(home, "hearth.db"))
        self.counter = 0
        self.updated = 0  # resources the last cycle's updates updated

    def _wait(self, stack_id: str, expect: str) -> None:
        status = self.service.wait(self.ctx, stack_id)["stack_status"]
        assert status == expect, status

    def cycle(self, template: str) -> dict[str, tuple[float, float]]:
        """Create, update the same, update changed, delete one stack; return each (wall, CPU)."""
        self.counter += 1
        holder: dict[str, str] = {}
        service, ctx = self.service, self.ctx

        def create() -> None:
            holder.update(service.create_stack(ctx, f"bench{self.counter}", template))
            self._wait(holder["id"], "CREATE_COMPLETE")

        def update(value: str) -> None:
            service.update_stack(ctx, holder["id"], template=template, params={"v": value})
            self._wait(holder["id"], "UPDATE_COMPLETE")

        def delete() -> None:
            service.delete_stack(ctx, holder["id"])
            self._wait(holder["id"], "DELETE_COMPLETE")

        times = {"create": timed(create), "same": timed(lambda: update("one")),
                 "changed": timed(lambda: update("two"))}
        self.updated = self._updated(holder["id"])
        times["delete"] = timed(delete)
        return times

    def _updated(self, stack_id: str) -> int:
        """Return how many resources of the stack reached UPDATE_COMPLETE."""
        events = self.service.list_events(self.ctx, stack_id, limit=100000)
        return sum(1 for event in events if event["resource_status"] == "UPDATE_COMPLETE"
                   and event["resource_name"].startswith("r"))

    def stop(self) -> None:
        """Stop the engine."""
        self.service.stop()


def paired(args: argparse.Namespace) -> None:
    """Alternate this tree and ``args.baseline``, a process a run; print both and the ratios."""
    script = Path(__file__).resolve()
    trees = {"this": str(script.parents[1]), "baseline": args.baseline}
    rows: dict[tuple[str, int], dict[str, list[dict]]] = {}
    for _ in range(args.repeats):
        for label, tree in trees.items():
            command = [sys.executable, str(script), "--json", "--repeats", "1",
                       "--sizes", *map(str, args.sizes), "--shapes", *args.shapes]
            out = subprocess.run(command, env={**os.environ, "PYTHONPATH": tree},
                                 cwd=tempfile.gettempdir(), capture_output=True, text=True,
                                 check=True).stdout
            for line in out.splitlines():
                row = json.loads(line)
                rows.setdefault((row["shape"], row["n"]), {}).setdefault(label, []).append(row)
    print(f"this: {trees['this']}, baseline: {trees['baseline']}; wall (CPU) s, medians of "
          f"{args.repeats} runs each; this/baseline: the median of the pairs' ratios\n")
    print("| shape | N | step | this | baseline | this/baseline | updated (this, baseline) |")
    print("|---|---:|---|---:|---:|---:|---|")
    for (shape, count), runs in rows.items():
        for step in STEPS:
            cells = [" ".join((f"{statistics.median(r[step][0] for r in runs[label]):.3f}",
                               f"({statistics.median(r[step][1] for r in runs[label]):.3f})"))
                     for label in trees]
            ratios = [statistics.median(a[step][index] / b[step][index] for a, b in zip(
                runs["this"], runs["baseline"], strict=True)) for index in (0, 1)]
            updated = f"{runs['this'][-1]['updated']}, {runs['baseline'][-1]['updated']}"
            print(f"| {shape} | {count} | {step} | {cells[0]} | {cells[1]} | {ratios[0]:.2f} "
                  f"({ratios[1]:.2f}) | {updated} |", flush=True)


def main() -> None:
    """Run the benchmark and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--shapes", nargs="+", default=["fanout", "chain"],
                        choices=["fanout", "chain"])
    parser.add_argument("--json", action="store_true", help="one JSON object per row")
    parser.add_argument("--baseline", metavar="TREE",
                        help="another checkout to compare with, run by turns")
    args = parser.parse_args()
    if args.baseline:
        paired(args)
        return
    import hearth
    tree = os.path.dirname(hearth.__file__)
    bench = Bench(tempfile.mkdtemp(prefix="hearth-update-bench-"))
    bench.cycle(value_template("chain", 10))  # warm-up: imports, caches, the schema
    if not args.json:
        print(f"hearth from {tree}\n\nwall (CPU), medians of {args.repeats}\n")
        print("| shape | N | create | update, same | update, changed | delete | updated |")
        print("|---|---:|---:|---:|---:|---:|---:|")
    for shape in args.shapes:
        for count in args.sizes:
            runs = [bench.cycle(value_template(shape, count)) for _ in range(args.repeats)]
            medians = {step: [statistics.median(run[step][index] for run in runs)
                              for index in (0, 1)] for step in STEPS}
            if args.json:
                print(json.dumps({"tree": tree, "shape": shape, "n": count,
                                  "updated": bench.updated, **medians}), flush=True)
                continue
            cells = " | ".join(f"{wall:.3f} s ({cpu:.3f})" for wall, cpu in medians.values())
            print(f"| {shape} | {count} | {cells} | {bench.updated} |", flush=True)
    bench.stop()


if __name__ == "__main__":
    main()

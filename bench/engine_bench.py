"""Benchmark the engine in-process: create and delete, validate, parallel waiting.

Runs an EngineService (embedded mode: the engine in this process) on a
SQLite file database in a temporary HEARTH_HOME and measures, as medians of
``--repeats`` runs:

* create then delete a stack of N ``OS::Heat::None`` for each N of ``--sizes``
  in two shapes: ``fanout`` (independent) and ``chain`` (each depends on the
  previous); create is timed from ``create_stack`` (parse, store, load) to
  CREATE_COMPLETE, delete from ``delete_stack`` to DELETE_COMPLETE;
* the engine overhead per resource (create + delete time / N / 2);
* the validate time of the largest chain template (parse, structure,
  parameters, functions, graph and every resource's plug-in validation);
* a stack of ``--waiters`` ``OS::Heat::TestResource`` with ``wait_secs: 1``
  (the wall time shows how well waiting resources overlap).

Ratios compare with real Heat's figures (../shared/reference/heat-figures.md).

    .venv/bin/python bench/engine_bench.py [--sizes 10 100 1000] [--repeats 3] [--waiters 200]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable

#: Heat 27 in-process figures (seconds): (shape, N) -> (create, delete).
HEAT_FIGURES = {("chain", 10): (0.11, 0.09), ("chain", 100): (1.01, 0.67),
                ("chain", 1000): (17.19, 8.99), ("fanout", 10): (0.12, 0.08),
                ("fanout", 100): (0.91, 0.73), ("fanout", 1000): (11.33, 5.95)}
HEAT_VALIDATE_1000 = 3.0


def none_template(shape: str, count: int) -> str:
    """Return a HOT template of ``count`` OS::Heat::None in ``shape`` (fanout or chain)."""
    lines = ["heat_template_version: 2018-08-31", "resources:"]
    for index in range(count):
        needs = f", depends_on: r{index - 1}" if shape == "chain" and index else ""
        lines.append(f"  r{index}: {{type: OS::Heat::None{needs}}}")
    return "\n".join(lines) + "\n"


def waiter_template(count: int, seconds: float) -> str:
    """Return a template of ``count`` independent TestResources waiting ``seconds``."""
    lines = ["heat_template_version: 2018-08-31", "resources:"]
    lines += [f"  w{index}: {{type: OS::Heat::TestResource, properties: "
              f"{{wait_secs: {seconds}}}}}" for index in range(count)]
    return "\n".join(lines) + "\n"


def timed(action: Callable[[], object]) -> float:
    """Return the wall time of ``action()`` in seconds."""
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


class Bench:
    """One engine on a fresh database; each method times one operation."""

    def __init__(self, home: str) -> None:
        os.environ["HEARTH_HOME"] = home
        from hearth.common import config
        from hearth.common.context import RequestContext
        from hearth.engine.service.engine import EngineService
        config.load(config_files=[])
        self.ctx = RequestContext.local()
        self.service = EngineService(db_url="sqlite:///" + os.path.join(home, "hearth.db"))
        self.counter = 0

    def create_delete(self, template: str, expect: str = "CREATE_COMPLETE"
                      ) -> tuple[float, float]:
        """Create then delete one stack; return (create seconds, delete seconds)."""
        self.counter += 1
        name = f"bench{self.counter}"
        holder: dict[str, str] = {}

        def create() -> None:
            holder.update(self.service.create_stack(self.ctx, name, template))
            status = self.service.wait(self.ctx, holder["id"])["stack_status"]
            assert status == expect, status

        def delete() -> None:
            self.service.delete_stack(self.ctx, holder["id"])
            status = self.service.wait(self.ctx, holder["id"])["stack_status"]
            assert status == "DELETE_COMPLETE", status

        return timed(create), timed(delete)

    def validate(self, template: str) -> float:
        """Return the time of the catalog's ``validate_template`` (plug-ins included)."""
        return timed(lambda: self.service.catalog.validate_template(self.ctx, template))

    def stop(self) -> None:
        """Stop the engine."""
        self.service.stop()


def median_pair(pairs: list[tuple[float, float]]) -> tuple[float, float]:
    """Return the medians of the first and second items."""
    return (statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs))


def main() -> None:
    """Run the benchmark and print a Markdown report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--waiters", type=int, default=200)
    args = parser.parse_args()
    bench = Bench(tempfile.mkdtemp(prefix="hearth-bench-"))
    print("| shape | N | create | delete | overhead/resource | Heat create | Heat delete "
          "| × create | × delete |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for shape in ("fanout", "chain"):
        for count in args.sizes:
            template = none_template(shape, count)
            create, delete = median_pair([bench.create_delete(template)
                                          for _ in range(args.repeats)])
            overhead = (create + delete) / count / 2 * 1000
            heat = HEAT_FIGURES.get((shape, count))
            ratios = (f"{heat[0]:.2f} s | {heat[1]:.2f} s | {heat[0] / create:.0f}× | "
                      f"{heat[1] / delete:.0f}×" if heat else "– | – | – | –")
            print(f"| {shape} | {count} | {create:.3f} s | {delete:.3f} s | "
                  f"{overhead:.2f} ms | {ratios} |", flush=True)
    largest = max(args.sizes)
    validate = statistics.median(bench.validate(none_template("chain", largest))
                                 for _ in range(args.repeats))
    ratio = f" ({HEAT_VALIDATE_1000 / validate:.0f}× Heat's {HEAT_VALIDATE_1000} s)" \
        if largest == 1000 else ""
    print(f"\nvalidate, chain of {largest}: {validate:.3f} s{ratio}")
    waits = [bench.create_delete(waiter_template(args.waiters, 1))
             for _ in range(args.repeats)]
    create, delete = median_pair(waits)
    print(f"{args.waiters} × TestResource wait_secs 1: create {create:.2f} s, "
          f"delete {delete:.2f} s (wall)")
    bench.stop()


if __name__ == "__main__":
    main()

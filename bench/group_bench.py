"""Benchmark a 1000-member ``OS::Heat::ResourceGroup`` beside a flat 1000-resource stack.

Both stacks hold ``--size`` ``OS::Heat::None``: the flat one as independent
resources of one stack, the group as the members of its nested stack.  Each
is created and deleted

* through whole ``stackctl`` processes (embedded SQLite, a private
  HEARTH_HOME and bytecode cache; :mod:`cli_bench`'s measurement: wall, CPU
  and peak RSS of each process, medians of ``--repeats`` after a warm-up);
* in-process, through one EngineService (:mod:`engine_bench`'s ``Bench``:
  from the call to the final state, medians of ``--repeats``; the CPU time
  of this process over the create and the delete together).

The cost per resource is (create + delete) / size, in milliseconds, of wall
and of CPU time (in-process: this process's CPU over both); the group's
extra cost is what a nested stack adds.  ``max_resources_per_stack``
is lifted for both (the group and its members count as one tree, 1001 >
1000, as in Heat).

    .venv/bin/python bench/group_bench.py [--repeats 3] [--size 1000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import cli_bench
import engine_bench

UNLIMITED = "[DEFAULT]\nmax_resources_per_stack = -1\n"


def group_template(size: int) -> str:
    """Return a template of one ResourceGroup of ``size`` OS::Heat::None."""
    return ("heat_template_version: 2018-08-31\nresources:\n  group:\n"
            "    type: OS::Heat::ResourceGroup\n"
            f"    properties: {{count: {size}, resource_def: {{type: OS::Heat::None}}}}\n")


def templates(size: int) -> dict[str, str]:
    """Return the two stacks measured: the flat one and the group."""
    return {"flat": engine_bench.none_template("fanout", size), "group": group_template(size)}


def per_resource(create: float, delete: float, size: int) -> str:
    """Return the cost per resource of one create and one delete, in ms."""
    return f"{(create + delete) / size * 1000:.2f} ms"


def processes(size: int, repeats: int, base: Path) -> list[str]:
    """Return the table rows of whole stackctl processes."""
    config = base / "unlimited.conf"
    config.write_text(UNLIMITED)
    rows = []
    for label, text in templates(size).items():
        create, delete = cli_bench.measure_template(label, text, repeats, base,
                                                    base / "pycache", config)
        rows.append(f"| stackctl, {label} | {create.wall:.2f} s | {create.cpu:.2f} s | "
                    f"{delete.wall:.2f} s | {delete.cpu:.2f} s | "
                    f"{max(create.peak_mib, delete.peak_mib):.0f} MiB | "
                    f"{per_resource(create.wall, delete.wall, size)} | "
                    f"{per_resource(create.cpu, delete.cpu, size)} |")
    return rows


def in_process(size: int, repeats: int, base: Path) -> list[str]:
    """Return the table rows of one in-process engine."""
    from hearth.common import config
    bench = engine_bench.Bench(str(base / "in-process"))
    config.CONF.set_override("max_resources_per_stack", -1)
    rows = []
    try:
        for label, text in templates(size).items():
            runs, cpu = [], []
            for _ in range(repeats):
                started = time.process_time()
                runs.append(bench.create_delete(text))
                cpu.append(time.process_time() - started)
            create, delete = engine_bench.median_pair(runs)
            rows.append(f"| in-process, {label} | {create:.2f} s | | {delete:.2f} s | | | "
                        f"{per_resource(create, delete, size)} | "
                        f"{per_resource(statistics.median(cpu), 0, size)} |")
    finally:
        bench.stop()
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print a Markdown table of medians."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--size", type=int, default=1000)
    options = parser.parse_args(argv)
    lines = [f"| N = {options.size} × OS::Heat::None | create wall | create CPU | delete wall | "
             "delete CPU | peak RSS | wall per resource | CPU per resource |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    with tempfile.TemporaryDirectory(prefix="hearth-group-bench-") as directory:
        base = Path(directory)
        lines += processes(options.size, options.repeats, base)
        lines += in_process(options.size, options.repeats, base)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark what a nested stack costs: N provider-template resources beside N plain ones.

Three stacks of ``--size`` resources each, created and deleted in-process
through one EngineService (:mod:`engine_bench`'s ``Bench``; medians of
``--repeats``, after one warm-up): ``flat`` holds N ``OS::Heat::None``;
``provider`` N resources of a provider template holding one
``OS::Heat::None`` (each a nested stack); ``stack`` N ``OS::Heat::Stack``
of the same template.  The extra cost of one nested stack is
(nested − flat) / N for create + delete, in milliseconds.

    .venv/bin/python bench/nested_bench.py [--repeats 3] [--size 100]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections.abc import Sequence

import engine_bench

MEMBER_URL = "file:///bench/member.yaml"
MEMBER = ("heat_template_version: 2018-08-31\nresources:\n  none: {type: OS::Heat::None}\n"
          "outputs:\n  ref: {value: {get_resource: none}}\n")


def templates(size: int) -> dict[str, str]:
    """Return the three stacks measured, by label."""
    head = "heat_template_version: 2018-08-31\nresources:\n"
    member = f"{{type: OS::Heat::Stack, properties: {{template: {{get_file: '{MEMBER_URL}'}}}}}}"
    return {
        "flat": head + "".join(f"  r{i}: {{type: OS::Heat::None}}\n" for i in range(size)),
        "provider": head + "".join(f"  r{i}: {{type: '{MEMBER_URL}'}}\n" for i in range(size)),
        "stack": head + "".join(f"  r{i}: {member}\n" for i in range(size)),
    }


def create_delete(bench: engine_bench.Bench, name: str, template: str) -> tuple[float, float]:
    """Create then delete one stack (with the member template in files); return seconds."""
    service, ctx, holder = bench.service, bench.ctx, {}

    def create() -> None:
        holder.update(service.create_stack(ctx, name, template, files={MEMBER_URL: MEMBER}))
        status = service.wait(ctx, holder["id"])["stack_status"]
        assert status == "CREATE_COMPLETE", status

    def delete() -> None:
        service.delete_stack(ctx, holder["id"])
        assert service.wait(ctx, holder["id"])["stack_status"] == "DELETE_COMPLETE"

    return engine_bench.timed(create), engine_bench.timed(delete)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print a Markdown table of medians."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--size", type=int, default=100)
    options = parser.parse_args(argv)
    rows = [f"| N = {options.size} | create | delete | per resource (create + delete) | "
            "extra per nested stack |", "|---|---:|---:|---:|---:|"]
    with tempfile.TemporaryDirectory(prefix="hearth-nested-bench-") as directory:
        bench = engine_bench.Bench(directory)
        try:
            results = {}
            for label, text in templates(options.size).items():
                create_delete(bench, f"warm-{label}", text)
                runs = [create_delete(bench, f"{label}{n}", text)
                        for n in range(options.repeats)]
                results[label] = (statistics.median(r[0] for r in runs),
                                  statistics.median(r[1] for r in runs))
        finally:
            bench.stop()
    flat = sum(results["flat"])
    for label, (create, delete) in results.items():
        extra = "" if label == "flat" else \
            f"{(create + delete - flat) / options.size * 1000:.1f} ms"
        rows.append(f"| {label} | {create:.2f} s | {delete:.2f} s | "
                    f"{(create + delete) / options.size * 1000:.1f} ms | {extra} |")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())

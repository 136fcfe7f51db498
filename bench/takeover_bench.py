"""Kill the engine acting on a 300-resource create, 20 times: each stack must finish by itself.

Three ``hearth-api`` engines on a private PostgreSQL server (127.0.0.1),
``engine_takeover = resume``, the default ``engine_life_check_timeout``
(2 s) and heartbeat (0.5 s).  A stack of ``--resources`` OS::Heat::TestResource
(counted: tests/fixtures/counting_plugins) in ``--layers`` layers, each
waiting ``--wait`` seconds, is created once undisturbed (its duration D),
then ``--kills`` times with the acting engine SIGKILLed at a moment drawn
uniformly over D (tests/fixtures/engine_kills.py; a new engine is started
in its place).  Each round must end CREATE_COMPLETE with no user action,
every resource created exactly once; the figures are when another engine
took over (from the kill) and when the stack completed, against the
target 3 × engine_life_check_timeout + the work that was left (D minus the
moment of the kill).  Exits 1 when a round fails its checks.

    .venv/bin/python bench/takeover_bench.py [--kills 20] [--resources 300] [--seed 24]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

from tests.fixtures.engine_kills import (  # noqa: E402
    check_round,
    kill_rounds,
    layered_template,
    undisturbed_duration,
)
from tests.fixtures.engines import COUNTING_PLUGINS, EngineCluster, private_postgres  # noqa: E402

LIFE = 2.0  # engine_life_check_timeout's default
BEAT = 0.5  # engine_heartbeat_interval's default


def main(argv: Sequence[str] | None = None) -> int:
    """Run the rounds, print a Markdown table and the summary; 1 if a round failed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--resources", type=int, default=300)
    parser.add_argument("--layers", type=int, default=10)
    parser.add_argument("--wait", type=float, default=1.0)
    parser.add_argument("--engines", type=int, default=3)
    parser.add_argument("--seed", type=int, default=24)
    args = parser.parse_args(argv)
    template = layered_template(args.resources, args.layers, args.wait)
    failures = 0
    with tempfile.TemporaryDirectory(prefix="hearth-takeover-") as work, \
            private_postgres() as db_url:
        markers = Path(work) / "markers"
        markers.mkdir()
        cluster = EngineCluster(
            Path(work) / "engines", db_url,
            {"engine_life_check_timeout": LIFE, "engine_heartbeat_interval": BEAT,
             "plugin_dirs": COUNTING_PLUGINS},
            env={"HEARTH_TEST_MARKERS": str(markers)})
        try:
            cluster.start(args.engines)
            undisturbed_duration(cluster, template, "warm-up")
            duration = undisturbed_duration(cluster, template)
            print(f"{args.engines} engines, {args.resources} resources in {args.layers} layers "
                  f"waiting {args.wait} s; undisturbed create D = {duration:.2f} s; "
                  f"engine_life_check_timeout {LIFE} s, heartbeat {BEAT} s\n")
            print("| kill | at | taken over | complete | left (D - at) | 3T + left | met | "
                  "re-run handles |")
            print("|---:|---:|---:|---:|---:|---:|---|---:|")
            started = time.monotonic()
            results = kill_rounds(cluster, markers, "killed", template, duration, args.kills,
                                  random.Random(args.seed))
            for number, result in enumerate(results, 1):
                try:
                    check_round(result, args.resources)
                    ok = result.completed <= 3 * LIFE + result.remaining
                except AssertionError as error:
                    print(f"round {number} FAILED its checks: {error}", file=sys.stderr)
                    failures += 1
                    ok = False
                print(f"| {number} | {result.killed_at:.2f} s | {result.taken_over:.2f} s | "
                      f"{result.completed:.2f} s | {result.remaining:.2f} s | "
                      f"{3 * LIFE + result.remaining:.2f} s | {'yes' if ok else 'no'} | "
                      f"{result.adopted} |")
            complete = sum(r.status == "CREATE_COMPLETE" for r in results)
            met = sum(r.completed <= 3 * LIFE + r.remaining for r in results)
            taken = [r.taken_over for r in results if r.taken_over is not None]
            print(f"\n{complete}/{len(results)} stacks CREATE_COMPLETE with no user action, "
                  f"{sum(not r.made_twice and r.created == args.resources for r in results)}"
                  f"/{len(results)} with every resource created exactly once; "
                  f"{met}/{len(results)} within 3 × {LIFE} s + the work left.")
            print(f"taken over after the kill: median {statistics.median(taken):.2f} s, "
                  f"max {max(taken):.2f} s (3 × {LIFE} s = {3 * LIFE:.1f} s); "
                  f"completed after the kill minus the work left: median "
                  f"{statistics.median(r.completed - r.remaining for r in results):.2f} s; "
                  f"{time.monotonic() - started:.0f} s in all")
        finally:
            cluster.stop()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

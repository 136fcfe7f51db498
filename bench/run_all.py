"""Run every benchmark of bench/ (each ``*_bench.py``), one process each, and keep the output.

Benchmarks are discovered, not listed: a new ``bench/<name>_bench.py`` runs
here as soon as it exists.  Each runs with this interpreter and its default
arguments; its output is shown as it comes and saved to
``<output>/<name>.txt`` (default ``bench/last-run/``).  A benchmark that
fails does not stop the others; the exit status is 1 when any failed.

Figures belong in bench/RESULTS.md, each table with the command that
produced it: copy them from the saved outputs (a benchmark with a
``--write`` option updates its own section there).

    .venv/bin/python bench/run_all.py [--list] [--only NAME ...] [--output DIR]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SUFFIX = "_bench.py"


def discover(directory: str) -> list[str]:
    """Return the benchmark names (``engine`` for ``engine_bench.py``) in ``directory``."""
    return sorted(entry[: -len(SUFFIX)] for entry in os.listdir(directory)
                  if entry.endswith(SUFFIX) and not entry.startswith(("_", ".")))


def run_one(directory: str, name: str, output: str) -> tuple[int, float]:
    """Run one benchmark, echo and save its output; return (exit status, seconds)."""
    path = os.path.join(directory, name + SUFFIX)
    started = time.monotonic()
    with open(os.path.join(output, name + ".txt"), "w", encoding="utf-8") as saved:
        process = subprocess.Popen([sys.executable, path], cwd=ROOT, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
        assert process.stdout is not None
        for line in process.stdout:
            sys.stdout.write(line)
            saved.write(line)
        status = process.wait()
    return status, time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    """Run the chosen benchmarks; return 0 when all succeeded."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="list the benchmarks and stop")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these benchmarks")
    parser.add_argument("--output", default=os.path.join(HERE, "last-run"),
                        help="directory for each benchmark's output (default bench/last-run)")
    parser.add_argument("--directory", default=HERE, help=argparse.SUPPRESS)  # test seam
    args = parser.parse_args(argv)
    names = discover(args.directory)
    if args.list:
        print("\n".join(names))
        return 0
    unknown = sorted(set(args.only or ()) - set(names))
    if unknown:
        parser.error(f"no such benchmark: {', '.join(unknown)} (have: {', '.join(names)})")
    chosen = [name for name in names if not args.only or name in args.only]
    os.makedirs(args.output, exist_ok=True)
    failed = []
    for name in chosen:
        print(f"=== {name}{SUFFIX}", flush=True)
        status, seconds = run_one(args.directory, name, args.output)
        print(f"=== {name}{SUFFIX}: {'ok' if status == 0 else f'FAILED ({status})'} "
              f"in {seconds:.1f} s", flush=True)
        if status:
            failed.append(name)
    print(f"Outputs saved in {args.output}/<name>.txt; record the figures, with the command "
          f"that produced them, in {os.path.join(HERE, 'RESULTS.md')}.")
    if failed:
        print(f"Failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

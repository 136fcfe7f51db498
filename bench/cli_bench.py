"""Benchmark whole ``stackctl`` processes, as a user runs them (embedded SQLite default).

Each figure is one ``stackctl`` process from its start to its exit: Python's
start-up, imports, configuration, the database, the action and its
progress display (printed to a pipe that is read and thrown away).
Measured, as medians of ``--repeats`` runs:

* ``stack-create`` and ``stack-delete`` of 1000 ``OS::Heat::None`` as a
  chain (each depends on the previous) and as a fan-out (all under one
  root), against Heat's in-process figures (../shared/reference/heat-figures.md);
* ``template-validate`` of the 1000-resource chain;
* ``stackctl --version`` and ``stack-list`` on an empty (migrated) database;
* the CPU time (user + system) and the peak RSS of each process, read from
  the operating system's accounting of the finished child (``wait4``).

Every run uses a private HEARTH_HOME under a temporary directory, and a
private bytecode cache (``PYTHONPYCACHEPREFIX``) filled by one warm-up run
of each command, so that the figures are those of an installed Hearth, not
of a tree whose modules are compiled on every start.

stackctl talks to its local engine (:mod:`hearth.cli.local_engine`), which
the warm-up run starts: the engine's own CPU time during each command
(read from ``/proc``) and its peak RSS are reported beside the process's,
and "first command" rows time a command that has to start the engine.
``--in-process`` measures the same rows with the engine inside each
stackctl process instead (the mode before the local engine).

    .venv/bin/python bench/cli_bench.py [--repeats 5] [--size 1000] [--in-process]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

STACKCTL = str(Path(sys.executable).with_name("stackctl"))
#: Heat 27 in-process figures for 1000 resources (seconds): shape -> (create, delete).
HEAT_1000 = {"chain": (17.19, 8.99), "fanout": (11.33, 5.95)}
#: Targets of issue 10: create and delete at least this many times faster than Heat.
RATIO_TARGET = 20
VALIDATE_TARGET = 0.3
QUICK_TARGET = 0.15


@dataclass
class Run:
    """One finished process: wall and CPU seconds, peak resident memory (MiB).

    ``engine_cpu``: CPU seconds the local engine spent meanwhile;
    ``engine_peak_mib``: the engine's peak RSS so far.
    """

    wall: float
    cpu: float
    peak_mib: float
    engine_cpu: float = 0.0
    engine_peak_mib: float = 0.0


def engine_pid(env: dict[str, str]) -> int | None:
    """Return the pid of the local engine serving ``env``'s HEARTH_HOME, if one runs."""
    from hearth.cli import local_engine
    home = os.path.realpath(env["HEARTH_HOME"])
    for info in local_engine.engines(env["HEARTH_RUNTIME_DIR"]):
        if info.get("home") == home:
            return info["pid"]
    return None


def process_cpu(pid: int | None) -> float:
    """Return the CPU seconds (user + system) of a live process (0 when gone)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except (OSError, TypeError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def process_peak_mib(pid: int | None) -> float:
    """Return the peak RSS (VmHWM) of a live process in MiB (0 when gone)."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (OSError, TypeError):
        pass
    return 0.0


def none_template(shape: str, count: int) -> str:
    """Return ``count`` OS::Heat::None as a ``chain`` or a ``fanout`` under a root."""
    lines = ["heat_template_version: 2018-08-31", "resources:"]
    for index in range(count):
        if shape == "chain":
            needs = f", depends_on: r{index - 1}" if index else ""
        else:
            needs = ", depends_on: r0" if index else ""
        lines.append(f"  r{index}: {{type: OS::Heat::None{needs}}}")
    return "\n".join(lines) + "\n"


def environment(home: Path, cache: Path, in_process: bool = False) -> dict[str, str]:
    """Return a stackctl environment on ``home`` with a private bytecode cache.

    The local engines live in a runtime directory beside the cache;
    ``in_process`` runs the engine inside each stackctl instead.
    """
    env = dict(os.environ, HEARTH_HOME=str(home), PYTHONPYCACHEPREFIX=str(cache),
               PYTHONWARNINGS="ignore", HEARTH_RUNTIME_DIR=str(cache.parent / "run"))
    for name in ("HEARTH_URL", "HEARTH_CONFIG", "PYTHONDONTWRITEBYTECODE",
                 "HEARTH_IN_PROCESS"):
        env.pop(name, None)
    if in_process:
        env["HEARTH_IN_PROCESS"] = "1"
    return env


def run_stackctl(args: Sequence[str], env: dict[str, str]) -> Run:
    """Run ``stackctl args`` to its end; return its figures (its exit must be 0)."""
    engine = engine_pid(env)
    engine_before = process_cpu(engine)
    with tempfile.TemporaryFile() as errors:
        started = time.perf_counter()
        process = subprocess.Popen([STACKCTL, *args], env=env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=errors)
        output = process.stdout.read()
        _pid, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            errors.seek(0)
            raise RuntimeError(f"stackctl {' '.join(args)} failed ({process.returncode}): "
                               f"{errors.read().decode()[-500:]}{output.decode()[-300:]}")
    engine = engine or engine_pid(env)
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024,
               process_cpu(engine) - engine_before, process_peak_mib(engine))


def median(runs: list[Run]) -> Run:
    """Return the median of each figure."""
    return Run(statistics.median(r.wall for r in runs), statistics.median(r.cpu for r in runs),
               statistics.median(r.peak_mib for r in runs),
               statistics.median(r.engine_cpu for r in runs),
               max(r.engine_peak_mib for r in runs))


def measure_actions(shape: str, size: int, repeats: int, base: Path, cache: Path,
                    in_process: bool = False) -> tuple[Run, Run]:
    """Create then delete a stack ``repeats`` times (after one warm-up); return the medians."""
    return measure_template(shape, none_template(shape, size), repeats, base, cache,
                            in_process=in_process)


def measure_template(label: str, text: str, repeats: int, base: Path, cache: Path,
                     config: Path | None = None, in_process: bool = False
                     ) -> tuple[Run, Run]:
    """Create then delete a stack of ``text`` ``repeats`` times (after a warm-up); medians.

    ``config`` is a configuration file the processes read (``HEARTH_CONFIG``).
    """
    home = base / f"home-{label}"
    env = environment(home, cache, in_process)
    if config is not None:
        env["HEARTH_CONFIG"] = str(config)
    template = base / f"{label}.yaml"
    template.write_text(text)
    run_stackctl(["stack-list"], env)  # creates and migrates the database
    creates, deletes = [], []
    for index in range(repeats + 1):
        name = f"{label}{index}"
        created = run_stackctl(["stack-create", "-f", str(template), name], env)
        deleted = run_stackctl(["stack-delete", "-y", name], env)
        if index:  # the first pair is the warm-up
            creates.append(created)
            deletes.append(deleted)
    return median(creates), median(deletes)


def measure(args: Sequence[str], repeats: int, env: dict[str, str]) -> Run:
    """Run one command ``repeats`` times after a warm-up; return the medians."""
    run_stackctl(args, env)
    return median([run_stackctl(args, env) for _ in range(repeats)])


def measure_first(args: Sequence[str], repeats: int, base: Path, cache: Path) -> Run:
    """Run ``args`` as the first command of fresh homes (it starts the engine); medians."""
    runs = []
    for index in range(repeats + 1):
        run = run_stackctl(args, environment(base / f"home-first-{index}", cache))
        if index:
            runs.append(run)
    return median(runs)


def row(label: str, run: Run, heat: float | None = None, target: str = "") -> str:
    """Return one table row: wall, CPU, peak RSS, the engine's, Heat's figure and the ratio."""
    ratio = f"{heat / run.wall:.1f}×" if heat else ""
    heat_text = f"{heat:.2f} s" if heat else ""
    engine = (f"{run.engine_cpu:.3f} s | {run.engine_peak_mib:.0f} MiB"
              if run.engine_peak_mib else "– | –")
    return (f"| {label} | {run.wall:.3f} s | {run.cpu:.3f} s | {run.peak_mib:.0f} MiB | "
            f"{engine} | {heat_text} | {ratio} | {target} |")


def ratio_target(heat: float | None) -> str:
    """Return the target cell of a create or delete row."""
    return f"≥ {RATIO_TARGET}× (≤ {heat / RATIO_TARGET:.2f} s)" if heat else ""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print a Markdown table of medians."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--shapes", nargs="+", default=["chain", "fanout"])
    parser.add_argument("--in-process", action="store_true",
                        help="Run the engine inside each stackctl (no local engine).")
    options = parser.parse_args(argv)
    lines = [f"| stackctl process (N = {options.size}) | wall | CPU | peak RSS | "
             "engine CPU | engine peak RSS | Heat in-process | × Heat | target |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    with tempfile.TemporaryDirectory(prefix="hearth-cli-bench-") as directory:
        base = Path(directory)
        cache = base / "pycache"
        try:
            run_rows(options, base, cache, lines)
        finally:
            from hearth.cli import local_engine
            local_engine.stop_engines(local_engine.engines(str(base / "run")))
    print("\n".join(lines))
    return 0


def run_rows(options: argparse.Namespace, base: Path, cache: Path, lines: list[str]) -> None:
    """Measure every row of the table into ``lines``."""
    in_process = options.in_process
    for shape in options.shapes:
        create, delete = measure_actions(shape, options.size, options.repeats, base, cache,
                                         in_process)
        # Heat's figures are for 1000 resources: no ratio for another size
        heat_create, heat_delete = (HEAT_1000[shape] if options.size == 1000
                                    else (None, None))
        lines.append(row(f"{shape} stack-create", create, heat_create,
                         ratio_target(heat_create)))
        lines.append(row(f"{shape} stack-delete", delete, heat_delete,
                         ratio_target(heat_delete)))
    chain = base / "validate.yaml"
    chain.write_text(none_template("chain", options.size))
    empty = environment(base / "home-empty", cache, in_process)
    lines.append(row("template-validate (chain)", measure(
        ["template-validate", "-f", str(chain)], options.repeats, empty),
        target=f"≤ {VALIDATE_TARGET} s"))
    lines.append(row("--version", measure(["--version"], options.repeats, empty),
                     target=f"≤ {QUICK_TARGET} s"))
    lines.append(row("stack-list (empty database)", measure(
        ["stack-list"], options.repeats, empty), target=f"≤ {QUICK_TARGET} s"))
    if not in_process:
        lines.append(row("first command: stack-list (starts the engine)", measure_first(
            ["stack-list"], options.repeats, base, cache)))


if __name__ == "__main__":
    sys.exit(main())

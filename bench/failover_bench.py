"""Kill the master the agents serve, again and again: how fast they are served by the other.

Two ``hearth-master`` processes on a private PostgreSQL server (127.0.0.1)
share the database and its key store (``[master] key_store = database``)
and one key pair; ``--agents`` real ``hearth-agent`` processes list both
(``master = M1, M2``, ``master_type = failover``).  Every timing is
Hearth's default (agents: ``master_alive_timeout`` 4 s,
``random_reauth_delay`` 3 s; masters: ``heartbeat_interval`` 1 s,
``peer_timeout`` 5 s) unless ``--fast`` gives the tests' short ones.

Each round publishes a batch job on the master the agents serve with a
waiting ``stackctl run`` that lists both masters (``[master] masters``;
``cmd.run`` sleeping ``--seconds``, ``--batch`` agents at a time), SIGKILLs
that master once the first batch returned (tests/fixtures/master_kills.py),
and measures from the kill: the first and the last agent talking with the
other master, a new ``test.ping`` on the other master answered by every
agent, the interrupted job holding every return, and the waiting client
done (having followed the job to the other master).  Every round must
record each agent's return once, each agent having run the job once, and
the client must print every agent's return.  The
killed master is started again and the next round kills the other one.
``--pause`` SIGSTOPs the master instead and SIGCONTs it once the other
one finished the job: it must drop the job it lost (its record stays the
other master's).  Exits 1 when a round fails its checks.

    .venv/bin/python bench/failover_bench.py [--kills 5] [--agents 20] [--batch 5]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

from tests.fixtures.agents import start_agents, stop_all, wait_answering  # noqa: E402
from tests.fixtures.engines import private_postgres  # noqa: E402
from tests.fixtures.master_kills import KillResult, kill_during_batch, start_masters  # noqa: E402

#: The tests' short timings (``--fast``): masters and agents notice a death within 2 s.
FAST_MASTERS = "heartbeat_interval = 0.5\npeer_timeout = 2\n"
TARGET = 10.0  # issue 24: agent failover to the second master within 10 s


def check(result: KillResult, paused: bool = False) -> list[str]:
    """Return what went wrong in a round (nothing when every return landed once)."""
    problems = []
    if result.lost or result.missing:
        problems.append(f"returns lost: {result.lost or sorted(result.missing)}")
    if result.ran_twice:
        problems.append(f"ran twice: {result.ran_twice}")
    if result.recorded != result.agents:
        problems.append(f"{result.recorded} returns recorded for {result.agents} agents")
    if paused and result.fenced is None:
        problems.append("the paused master did not drop the job, or recorded it as its own")
    if result.client_code != 0 or sorted(result.client_returns) != sorted(result.runs):
        problems.append(f"the waiting client exited {result.client_code}: "
                        f"{result.client_returns}")
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    """Run the rounds, print a Markdown table and the medians; 1 if a round failed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--agents", type=int, default=20)
    parser.add_argument("--batch", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=2.0,
                        help="how long the job runs on each agent")
    parser.add_argument("--fast", action="store_true",
                        help="the tests' short timings instead of Hearth's defaults")
    parser.add_argument("--pause", action="store_true",
                        help="SIGSTOP the master instead of SIGKILL, and SIGCONT it once the "
                             "other one finished the job: it must drop the job (fencing)")
    parser.add_argument("--work", help="keep the masters' and agents' directories (logs) here "
                                       "instead of a temporary directory")
    args = parser.parse_args(argv)
    ids = [f"agent{number:03d}" for number in range(args.agents)]
    failures, results = 0, []
    with (contextlib.nullcontext(args.work) if args.work else
          tempfile.TemporaryDirectory(prefix="hearth-failover-")) as work, \
            private_postgres() as db_url:
        masters = start_masters(Path(work), db_url, extra=FAST_MASTERS if args.fast else "",
                                fast=args.fast)
        agents = start_agents(masters[0], Path(work) / "agents", ids, fast=args.fast,
                              failover=masters[1:])
        try:
            started = time.monotonic()
            wait_answering(masters[0], ids, timeout=300)
            print(f"{args.agents} agents, 2 masters on PostgreSQL, "
                  f"{'the tests' if args.fast else 'default'} timings; each round a "
                  f"cmd.run of {args.seconds} s in batches of {args.batch}, the master "
                  f"{'SIGSTOPped' if args.pause else 'SIGKILLed'} once the first batch "
                  f"returned (fleet up in {time.monotonic() - started:.1f} s)\n")
            print("| kill | returned before | first agent moved | all moved | "
                  "first job answered by all | interrupted job complete | "
                  "its waiting client done | "
                  f"{'SIGCONT to job dropped | ' if args.pause else ''}checks |")
            print(f"|---:|---:|---:|---:|---:|---:|---:|{'---:|' if args.pause else ''}---|")
            active, standby = masters
            for number in range(1, args.kills + 1):
                result = kill_during_batch(active, standby, agents, db_url, args.batch,
                                           seconds=args.seconds, timeout=300,
                                           pause=args.pause)
                problems = check(result, args.pause)
                failures += bool(problems)
                results.append(result)
                print(f"| {number} ({result.jid}) | "
                      f"{result.returned_before_kill}/{result.agents} | "
                      f"{result.first_failover:.2f} s | {result.failover:.2f} s | "
                      f"{result.first_job:.2f} s | {result.job_done:.2f} s | "
                      f"{result.client_done:.2f} s | "
                      f"{'' if not args.pause else f'{result.fenced or 0:.2f} s | '}"
                      f"{'; '.join(problems) or 'every return once, run once, reported'} |",
                      flush=True)
                if not args.pause:  # a paused master runs on, as the standby
                    active.start()      # back, for the next round to kill the other one
                    active.wait_ready()
                active, standby = standby, active
        finally:
            stop_all([*agents, *masters])
    if results:
        def median(name: str) -> float:
            return statistics.median(getattr(result, name) for result in results)

        print(f"\nmedians over {len(results)} kills: first agent moved "
              f"{median('first_failover'):.2f} s, all moved {median('failover'):.2f} s, "
              f"first job answered by all {median('first_job'):.2f} s (max "
              f"{max(r.first_job for r in results):.2f} s; target {TARGET:.0f} s), "
              f"interrupted job complete {median('job_done'):.2f} s, its waiting client "
              f"done {median('client_done'):.2f} s; "
              f"{len(results) - failures}/{len(results)} rounds with every return once")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

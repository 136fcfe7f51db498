"""Targeting: how long selecting agents takes, Hearth vs Salt's matchers, per expression.

For N synthetic agents (grains: id-derived ``role``, ``os``, ``num_cpus``,
``ipv4``; pillar: ``env``) every expression is evaluated for every agent:

- Hearth: ``hearth.agent.targeting.select`` (the expression is compiled
  once, then one predicate call per agent) -- what hearth-master does per
  publish.
- Salt: the matcher of the same target type from ``salt.loader.matchers``,
  called once per minion with that minion's opts (what each Salt minion
  does when a job arrives), when Salt's Python is at hand (``--salt-venv``,
  a throwaway virtualenv outside the repository).

Both sides must select the same agents; the script stops if they do not.
Medians of ``--repeats`` runs, milliseconds for all agents.

    .venv/bin/python bench/targeting_bench.py [--agents 100,1000,10000] [--repeats 5]
        [--salt-venv /tmp/saltvenv]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from hearth.agent.targeting import AgentFacts, select  # noqa: E402

EXPRESSIONS = [
    ("glob", "web*"),
    ("list", "web1,db2,web30,db400"),
    ("pcre", r"web\d+5$"),
    ("grain", "os:Ubuntu"),
    ("grain", "roles:front*"),
    ("pillar", "env:prod"),
    ("ipcidr", "10.0.0.0/24"),
    ("compound", "G@os:Ubuntu and web* or ( I@env:prod and not E@db\\d+0$ )"),
]

SALT_SNIPPET = textwrap.dedent("""
    import json, logging, statistics, sys, time
    logging.disable(logging.CRITICAL)
    import salt.config, salt.loader
    agents, expressions, repeats = json.load(open(sys.argv[1]))
    base = salt.config.minion_config(None)
    base.update(file_client="local", id="bench")
    matchers = salt.loader.matchers(base)
    opts = {name: dict(base, id=name, grains=data["grains"], pillar=data["pillar"])
            for name, data in agents.items()}
    out = []
    for target_type, target in expressions:
        match = matchers[target_type + "_match.match"]
        times, chosen = [], []
        for _ in range(repeats):
            start = time.perf_counter()
            chosen = sorted(n for n, o in opts.items() if match(target, opts=o, minion_id=n))
            times.append(time.perf_counter() - start)
        out.append([statistics.median(times), chosen])
    print(json.dumps(out))
""")


def make_agents(count: int) -> dict[str, dict]:
    """Return ``count`` synthetic agents: half web, half db, varied grains and pillar."""
    agents = {}
    for number in range(count):
        role = "web" if number % 2 else "db"
        name = f"{role}{number}"
        agents[name] = {
            "grains": {"os": ("Ubuntu", "Debian", "CentOS")[number % 3], "num_cpus": number % 16,
                       "roles": [role, "front"] if role == "web" and number % 4 == 1 else [role],
                       "ipv4": [f"10.0.{number // 250 % 4}.{number % 250 + 1}", "127.0.0.1"]},
            "pillar": {"env": ("prod", "dev", "staging")[number % 3]},
        }
    return agents


def time_hearth(agents: dict[str, dict], repeats: int) -> list[tuple[float, list[str]]]:
    """Return (median seconds, selected ids) per expression for Hearth's select."""
    facts = [AgentFacts(name, data["grains"], data["pillar"]) for name, data in agents.items()]
    results = []
    for target_type, target in EXPRESSIONS:
        times, chosen = [], []
        for _ in range(repeats):
            start = time.perf_counter()
            chosen = select(target, target_type, facts)
            times.append(time.perf_counter() - start)
        results.append((statistics.median(times), chosen))
    return results


def time_salt(salt_python: str, agents: dict[str, dict], repeats: int
              ) -> list[tuple[float, list[str]]] | None:
    """Return Salt's figures, or None without Salt's Python."""
    if not os.path.exists(salt_python):
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as data:
        json.dump([agents, EXPRESSIONS, repeats], data)
    try:
        done = subprocess.run([salt_python, "-c", SALT_SNIPPET, data.name], text=True,
                              capture_output=True, check=True)
    finally:
        os.unlink(data.name)
    return [(seconds, chosen) for seconds, chosen in json.loads(done.stdout)]


def main() -> int:
    """Run the benchmark and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--agents", default="100,1000,10000")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--salt-venv", default="/tmp/saltvenv")
    args = parser.parse_args()
    salt_python = os.path.join(args.salt_venv, "bin", "python")
    print("| agents | target type | expression | selected | Hearth | Salt | × |")
    print("|---:|---|---|---:|---:|---:|---:|")
    for count in (int(n) for n in args.agents.split(",")):
        agents = make_agents(count)
        hearth = time_hearth(agents, args.repeats)
        salt = time_salt(salt_python, agents, args.repeats)
        for index, (target_type, target) in enumerate(EXPRESSIONS):
            seconds, chosen = hearth[index]
            salt_cell, ratio = "–", "–"
            if salt is not None:
                salt_seconds, salt_chosen = salt[index]
                if salt_chosen != chosen:
                    raise SystemExit(f"{target_type} {target!r}: Salt selected "
                                     f"{len(salt_chosen)} agents, Hearth {len(chosen)}")
                salt_cell = f"{salt_seconds * 1000:.2f} ms"
                ratio = f"{salt_seconds / seconds:.0f}×"
            print(f"| {count} | {target_type} | `{target}` | {len(chosen)} | "
                  f"{seconds * 1000:.2f} ms | {salt_cell} | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

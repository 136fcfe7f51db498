"""Pillar compile time: 100 agents, five pillar files, three ext_pillars, Hearth vs Salt.

The same files serve both: a top file giving every agent five SLS files
(one with an include, Jinja on grains and the agent id), and the ext_pillars
``cmd_json`` (a ``cat`` of a per-agent JSON file), ``cmd_yaml`` (a shell
``cat``) and ``file_tree`` (a per-host tree of three files).

Measured:

- Hearth in-process: ``hearth.pillar.compile_pillar`` for every agent
  (what hearth-master does for each agent), total and per agent.
- Hearth CLI: ``stackctl pillar-show AGENT --local`` as a process, per call
  (a sample of agents).
- Salt: ``salt-call --local --id AGENT pillar.items`` as a process, per call
  (the same sample), and, when Salt's Python is at hand, Salt's
  ``Pillar.compile_pillar`` in-process for every agent (what its master does).

Salt comes from a throwaway virtualenv outside the repository
(``--salt-venv``, default /tmp/saltvenv); without it only Hearth is measured.

    .venv/bin/python bench/pillar_bench.py [--agents 100] [--sample 10] [--salt-venv DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
STACKCTL = os.path.join(os.path.dirname(sys.executable), "stackctl")

FILES = {
    "top.sls": "base:\n  '*':\n    - common\n    - users\n    - network\n    - app\n"
               "  'agent-*':\n    - match: glob\n    - monitoring\n",
    "common.sls": "common:\n  id: {{ opts['id'] }}\n  os: {{ grains.get('os', 'unknown') }}\n"
                  "  timezone: UTC\n",
    "users.sls": "users:\n{% for n in range(10) %}  user{{ n }}: {uid: {{ 1000 + n }}, "
                 "shell: /bin/bash}\n{% endfor %}",
    "network.sls": "network:\n  dns: [10.0.0.2, 10.0.0.3]\n  mtu: 1500\n",
    "app/init.sls": "include:\n  - .settings\napp:\n  version: 3\n  ports: [80, 443]\n",
    "app/settings.sls": "app:\n  workers: 4\n  log_level: info\n",
    "monitoring.sls": "monitoring:\n  enabled: true\n  interval: 60\n",
}

SALT_IN_PROCESS = textwrap.dedent("""
    import json, sys, time
    import salt.config, salt.pillar
    conf, agents = sys.argv[1], json.loads(sys.argv[2])
    opts = salt.config.minion_config(conf)
    opts["file_client"] = "local"
    times = []
    for agent in agents:
        opts["id"] = agent
        start = time.perf_counter()
        pillar = salt.pillar.get_pillar(opts, {"os": "Debian"}, agent, saltenv="base")
        data = pillar.compile_pillar()
        times.append(time.perf_counter() - start)
        assert "_errors" not in data, data["_errors"]
    print(json.dumps(times))
""")


def build_site(root: str, agents: list[str]) -> dict:
    """Write the pillar files and the ext_pillar data; return the Salt-shaped options."""
    for name, text in FILES.items():
        path = os.path.join(root, "pillar", name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as stream:
            stream.write(text)
    for agent in agents:
        data = os.path.join(root, "data")
        os.makedirs(data, exist_ok=True)
        with open(os.path.join(data, f"{agent}.json"), "w", encoding="utf-8") as stream:
            json.dump({"cmdb": {"rack": agent[-2:], "owner": "ops"}}, stream)
        with open(os.path.join(data, f"{agent}.yaml"), "w", encoding="utf-8") as stream:
            yaml.safe_dump({"inventory": {"serial": f"SN-{agent}"}}, stream)
        host = os.path.join(root, "tree", "hosts", agent, "secrets")
        os.makedirs(host, exist_ok=True)
        for name in ("db_password", "api_token", "tls_key"):
            with open(os.path.join(host, name), "w", encoding="utf-8") as stream:
                stream.write(f"{name}-{agent}\n")
    return {"pillar_roots": {"base": [os.path.join(root, "pillar")]},
            "ext_pillar": [{"cmd_json": f"cat {root}/data/%s.json"},
                           {"cmd_yaml": f"cat {root}/data/%s.yaml"},
                           {"file_tree": {"root_dir": os.path.join(root, "tree")}}]}


def hearth_in_process(opts: dict, agents: list[str]) -> list[float]:
    """Return the compile time of each agent, compiled in this process."""
    from hearth.pillar import compile_pillar

    times = []
    for agent in agents:
        start = time.perf_counter()
        pillar = compile_pillar(agent, {"os": "Debian"}, opts)
        times.append(time.perf_counter() - start)
        assert "_errors" not in pillar, pillar["_errors"]
        assert pillar["secrets"]["api_token"] == f"api_token-{agent}"
    return times


def timed_processes(argvs: list[list[str]], env: dict | None = None) -> list[float]:
    """Return the wall time of each command (each must succeed)."""
    times = []
    for argv in argvs:
        start = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True, env=env)
        times.append(time.perf_counter() - start)
    return times


def hearth_cli(root: str, opts: dict, agents: list[str]) -> list[float]:
    """Return the wall time of ``stackctl pillar-show --local`` per sampled agent."""
    with open(os.path.join(root, "pillar.yaml"), "w", encoding="utf-8") as stream:
        yaml.safe_dump({"ext_pillar": opts["ext_pillar"]}, stream)
    with open(os.path.join(root, "hearth.conf"), "w", encoding="utf-8") as stream:
        stream.write(f"[pillar]\npillar_roots = base={root}/pillar\n"
                     f"config_file = {root}/pillar.yaml\n")
    env = dict(os.environ, HEARTH_HOME=os.path.join(root, "home"),
               HEARTH_CONFIG=os.path.join(root, "hearth.conf"))
    return timed_processes([[STACKCTL, "pillar-show", agent, "--local", "--grains",
                             '{"os": "Debian"}', "--format", "json"] for agent in agents], env)


def salt_config(root: str, opts: dict) -> str:
    """Write a minion configuration for salt-call; return its directory."""
    conf = os.path.join(root, "salt", "conf")
    os.makedirs(conf, exist_ok=True)
    work = os.path.join(root, "salt")
    with open(os.path.join(conf, "minion"), "w", encoding="utf-8") as stream:
        yaml.safe_dump({**opts, "file_client": "local", "root_dir": work,
                        "pki_dir": f"{work}/pki", "cachedir": f"{work}/cache",
                        "sock_dir": f"{work}/sock", "log_file": f"{work}/minion.log",
                        "grains": {"os": "Debian"}}, stream)
    return conf


def summary(name: str, times: list[float]) -> str:
    """Return one line: total, median and mean per item."""
    return (f"| {name} | {len(times)} | {sum(times):.3f} s | {statistics.median(times) * 1000:.1f}"
            f" ms | {statistics.mean(times) * 1000:.1f} ms |")


def main() -> int:
    """Run the benchmark and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=100)
    parser.add_argument("--sample", type=int, default=10,
                        help="Agents compiled through a process per call (stackctl, salt-call).")
    parser.add_argument("--salt-venv", default="/tmp/saltvenv")
    args = parser.parse_args()
    agents = [f"agent-{n:03d}" for n in range(args.agents)]
    sample = agents[:args.sample]
    root = tempfile.mkdtemp(prefix="pillar-bench-")
    try:
        opts = build_site(root, agents)
        rows = [summary("Hearth compile_pillar, in-process", hearth_in_process(opts, agents)),
                summary("Hearth `stackctl pillar-show --local`, one process per agent",
                        hearth_cli(root, opts, sample))]
        salt_python = os.path.join(args.salt_venv, "bin", "python")
        if os.path.exists(salt_python):
            conf = salt_config(root, opts)
            done = subprocess.run([salt_python, "-c", SALT_IN_PROCESS, os.path.join(conf, "minion"),
                                   json.dumps(agents)], check=True, capture_output=True,
                                  text=True)
            rows.append(summary("Salt Pillar.compile_pillar, in-process",
                                json.loads(done.stdout)))
            salt_call = os.path.join(args.salt_venv, "bin", "salt-call")
            rows.append(summary("Salt `salt-call --local pillar.items`, one process per agent",
                                timed_processes([[salt_call, "--local", "--config-dir", conf,
                                                  "--id", agent, "pillar.items", "--out",
                                                  "json"] for agent in sample])))
        else:
            rows.append(f"| Salt | - | not measured: no {salt_python} | | |")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"{args.agents} agents, 5 pillar files (+1 included), 3 ext_pillars "
          f"(cmd_json, cmd_yaml, file_tree); load average {os.getloadavg()[0]:.1f}")
    print("| what | agents | total | median per agent | mean per agent |")
    print("|---|---:|---:|---:|---:|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())

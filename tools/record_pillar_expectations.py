"""Record what Salt's pillar compiler makes of tests/functional/pillar/scenario.

Run with a throwaway Salt outside the repository, e.g.::

    python3 -m venv /tmp/saltvenv && /tmp/saltvenv/bin/pip install 'salt==3008.*'
    .venv/bin/python tools/record_pillar_expectations.py /tmp/saltvenv/bin/salt-call

For every case (a set of options) and agent id it runs
``salt-call --local --id ID pillar.items unmask=True --out json`` with a
minion configuration pointing ``pillar_roots`` and ``ext_pillar`` at a copy
of the scenario, and writes the outputs to
``tests/functional/pillar/salt3008_expected.json``: figures, not Salt's code.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "..", "tests", "functional", "pillar", "scenario")
OUTPUT = os.path.join(HERE, "..", "tests", "functional", "pillar", "salt3008_expected.json")

OVERRIDE = {"db": {"host": "override"}, "ovr": 1}

#: case name -> (options, pillar override or None, ext_pillar file)
CASES: dict[str, tuple[dict, dict | None, str]] = {
    "default": ({}, None, "ext_pillar.yaml"),
    "recurse": ({"pillar_source_merging_strategy": "recurse"}, None, "ext_pillar.yaml"),
    "merge_lists": ({"pillar_merge_lists": True}, None, "ext_pillar.yaml"),
    "ext_pillar_first": ({"ext_pillar_first": True}, None, "ext_pillar.yaml"),
    "ext_first_merge_lists": ({"ext_pillar_first": True, "pillar_merge_lists": True}, None,
                              "ext_pillar.yaml"),
    "overwrite": ({"pillar_source_merging_strategy": "overwrite"}, None, "ext_pillar.yaml"),
    "aggregate": ({"pillar_source_merging_strategy": "aggregate"}, None, "ext_pillar.yaml"),
    "none": ({"pillar_source_merging_strategy": "none"}, None, "ext_pillar.yaml"),
    "none_merge_lists": ({"pillar_source_merging_strategy": "none",
                          "pillar_merge_lists": True}, None, "ext_pillar.yaml"),
    "pillarenv_dev": ({"pillarenv": "dev"}, None, "ext_pillar.yaml"),
    "override": ({}, OVERRIDE, "ext_pillar.yaml"),
    "override_ext_first": ({"ext_pillar_first": True}, OVERRIDE, "ext_pillar.yaml"),
    "files_only": ({}, None, ""),
    "broken": ({"pillarenv": "broken", "pillar_safe_render_error": False}, None,
               "ext_pillar_broken.yaml"),
}
AGENTS = ("web1", "db1")


def environments(options: dict) -> tuple[str, ...]:
    """Return the pillar environments of a case (``broken`` only when it is asked for)."""
    return ("base", "dev", "broken") if options.get("pillarenv") == "broken" else ("base", "dev")


def minion_config(root: str, work: str, options: dict, ext_file: str) -> dict:
    """Return the minion configuration of one case."""
    config = {
        "file_client": "local",
        "root_dir": work,
        "pki_dir": os.path.join(work, "pki"),
        "cachedir": os.path.join(work, "cache"),
        "sock_dir": os.path.join(work, "sock"),
        "log_file": os.path.join(work, "minion.log"),
        "pillar_roots": {env: [os.path.join(root, env)] for env in environments(options)},
        "file_roots": {"base": [os.path.join(work, "files")]},
    }
    if ext_file:
        with open(os.path.join(root, ext_file), encoding="utf-8") as stream:
            config.update(yaml.safe_load(stream.read().replace("{root}", root)))
    config.update(options)
    return config


def run_case(salt_call: str, root: str, agent: str, options: dict, override: dict | None,
             ext_file: str) -> dict:
    """Run salt-call for one case and agent; return its pillar."""
    work = tempfile.mkdtemp(prefix="salt-pillar-case-")
    try:
        os.makedirs(os.path.join(work, "conf"))
        with open(os.path.join(work, "conf", "minion"), "w", encoding="utf-8") as stream:
            yaml.safe_dump(minion_config(root, work, options, ext_file), stream)
        argv = [salt_call, "--local", "--config-dir", os.path.join(work, "conf"), "--id", agent,
                "pillar.items", "unmask=True", "--out", "json", "--log-level", "quiet"]
        if override is not None:
            argv.append(f"pillar={json.dumps(override)}")
        done = subprocess.run(argv, capture_output=True, text=True, check=True)
        return json.loads(done.stdout)["local"]
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str]) -> int:
    """Record every case for every agent."""
    salt_call = argv[1] if len(argv) > 1 else "salt-call"
    version = subprocess.run([salt_call, "--version"], capture_output=True, text=True,
                             check=True).stdout.strip()
    root = tempfile.mkdtemp(prefix="salt-pillar-scenario-")
    try:
        shutil.copytree(SCENARIO, root, dirs_exist_ok=True)
        results = {
            name: {"options": options, "override": override, "ext_pillar_file": ext_file,
                   "agents": {agent: run_case(salt_call, root, agent, options, override,
                                              ext_file) for agent in AGENTS}}
            for name, (options, override, ext_file) in CASES.items()}
    finally:
        shutil.rmtree(root, ignore_errors=True)
    record = {"salt_version": version, "scenario_root_placeholder": "{root}",
              "command": "salt-call --local --id ID pillar.items unmask=True --out json",
              "cases": results}
    text = json.dumps(record, indent=2, sort_keys=True).replace(root, "{root}")
    with open(OUTPUT, "w", encoding="utf-8") as stream:
        stream.write(text + "\n")
    print(f"recorded {len(CASES)} cases x {len(AGENTS)} agents with {version} in {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

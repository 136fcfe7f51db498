"""Hearth's pillar compiler against figures recorded from real Salt 3008.

``salt3008_expected.json`` holds what ``salt-call --local pillar.items``
compiled from ``scenario/`` for each case (merging strategy, list merging,
ext_pillar_first, pillarenv, override) and agent
(``tools/record_pillar_expectations.py`` re-records it).  Hearth compiles
the same files with the same options and must give the same data.

Three differences are deliberate and asserted as such:

- file_tree values: Salt gives bytes (shown as ``b'...'``), Hearth text.
- The template's ``pillar``: under ``salt-call --local`` Salt renders with
  the minion's previous in-memory pillar; Hearth renders as Salt's master
  does, with ``{}`` (or the ext_pillar data with ``ext_pillar_first``).
  The scenario's ``seen_*`` keys show it.
- Errors: Salt drops a missing ext_pillar and a cmd_json that does not
  parse without a word in ``_errors``; Hearth reports both.
"""

from __future__ import annotations

import json
import os
import re
import shutil

import pytest
import yaml

from hearth.pillar import compile_pillar

HERE = os.path.dirname(__file__)
with open(os.path.join(HERE, "salt3008_expected.json"), encoding="utf-8") as _stream:
    RECORD = json.load(_stream)
CASES = RECORD["cases"]
SEEN_KEYS = ("seen_by_common", "seen_common_host")
BYTES_REPR = re.compile(r"^b'(.*)'$", re.DOTALL)


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    """Copy the scenario where its commands can find their data files."""
    root = tmp_path_factory.mktemp("pillar-scenario")
    shutil.copytree(os.path.join(HERE, "scenario"), root, dirs_exist_ok=True)
    return str(root)


def case_opts(case: dict, root: str) -> dict:
    """Return the opts of a recorded case, paths pointing at ``root``."""
    options = dict(case["options"])
    envs = ("base", "dev", "broken") if options.get("pillarenv") == "broken" else ("base", "dev")
    opts = {"pillar_roots": {env: [os.path.join(root, env)] for env in envs}, "ext_pillar": []}
    if case["ext_pillar_file"]:
        with open(os.path.join(root, case["ext_pillar_file"]), encoding="utf-8") as stream:
            opts.update(yaml.safe_load(stream.read().replace("{root}", root)))
    opts.update(options)
    return opts


def as_text(value):
    """Return Salt's figures with file_tree's bytes shown as the text Hearth gives."""
    if isinstance(value, dict):
        return {key: as_text(item) for key, item in value.items()}
    if isinstance(value, list):
        return [as_text(item) for item in value]
    if isinstance(value, str) and BYTES_REPR.match(value):
        return BYTES_REPR.match(value).group(1)
    return value


def compiled(case: dict, agent: str, root: str) -> dict:
    """Compile ``agent``'s pillar in Hearth with the case's options."""
    opts = case_opts(case, root)
    return compile_pillar(agent, {}, opts, pillarenv=opts.get("pillarenv"),
                          pillar_override=case["override"])


@pytest.mark.parametrize("agent", ["web1", "db1"])
@pytest.mark.parametrize("name", sorted(n for n in CASES if n != "broken"))
def test_data_matches_salt(name, agent, scenario):
    case = CASES[name]
    expected = as_text(case["agents"][agent])
    got = compiled(case, agent, scenario)
    assert "_errors" not in got and "_errors" not in expected
    if not case["options"].get("ext_pillar_first"):
        for key in SEEN_KEYS:
            expected.pop(key, None)
            assert got.pop(key, "absent") == "absent", key
    assert got == expected


@pytest.mark.parametrize("agent", ["web1", "db1"])
def test_broken_sources_report_every_error(agent, scenario):
    case = CASES["broken"]
    expected = as_text(case["agents"][agent])
    got = compiled(case, agent, scenario)
    expected_errors, errors = expected.pop("_errors"), got.pop("_errors")
    assert got == expected
    # Salt's three SLS errors, each naming the SLS, in the same order ...
    salt_names = [re.search(r"SLS '([^']+)'", e).group(1) for e in expected_errors]
    assert salt_names == ["missing_sls", "bad_jinja", "bad_yaml"]
    sls_errors = [e for e in errors if "ext_pillar" not in e]
    assert [re.search(r"SLS '([^']+)'", e).group(1) for e in sls_errors] == salt_names
    assert "is not available" in sls_errors[0]
    assert "no_such_variable" in sls_errors[1] and "bad_jinja.sls" in sls_errors[1]
    assert "YAML error" in sls_errors[2] and "line 2" in sls_errors[2]
    # ... and the two ext_pillar failures Salt keeps silent.
    ext_errors = [e for e in errors if "ext_pillar" in e]
    assert len(ext_errors) == 2
    assert ext_errors[0].startswith("Failed to load ext_pillar no_such_ext_pillar "
                                    "(ext_pillar entry 1): ext_pillar interface named "
                                    "no_such_ext_pillar is unavailable")
    assert ext_errors[1].startswith("Failed to load ext_pillar cmd_json (ext_pillar entry 2): "
                                    "JSON data from 'cat ")
    assert "not-json.txt' failed to parse" in ext_errors[1]


def test_salt_figures_are_those_of_3008():
    assert RECORD["salt_version"].startswith("salt-call 3008")
    assert len(CASES) >= 14

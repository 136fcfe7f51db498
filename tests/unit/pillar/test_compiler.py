"""Compiling: top targets, includes, ext_pillar call shapes and failures, cache, settings."""

from __future__ import annotations

import textwrap

import pytest

from hearth.pillar import cache as pillar_cache
from hearth.pillar import compile_pillar, pillar_top

# An ext_pillar written to Salt's documented contract; only imports would differ.
GUIDE_MODULE = '''
import logging

log = logging.getLogger(__name__)
__virtualname__ = "inventory"


def __virtual__():
    return __virtualname__


def ext_pillar(minion_id, pillar, *args, **kwargs):
    """Say who asked, with what, and what the pillar so far holds."""
    return {"inventory": {"id": minion_id, "args": list(args), "kwargs": kwargs,
                          "os": __grains__.get("os"), "seen": sorted(pillar),
                          "opt": __opts__.get("inventory.setting"),
                          "ping": __salt__["test.ping"]()}}
'''

MODULES = {
    "refuses.py": "def __virtual__():\n    return (False, 'needs the frobnicator')\n"
                  "def ext_pillar(minion_id, pillar):\n    return {}\n",
    "raises.py": "def ext_pillar(minion_id, pillar):\n    raise RuntimeError('db down')\n",
    "listy.py": "def ext_pillar(minion_id, pillar):\n    return [1, 2]\n",
    "counter.py": "def ext_pillar(minion_id, pillar, step=1):\n"
                  "    return {'count': pillar.get('count', 0) + step}\n",
}


def write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


@pytest.fixture
def roots(tmp_path):
    base = tmp_path / "base"
    write(base, {
        "top.sls": """\
            base:
              '*':
                - common
              'os:Debian':
                - match: grain
                - debian
              'web* and G@role:front':
                - match: compound
                - front
              'nodes':
                - match: nodegroup
                - grouped
              'x*':
                - ignore_missing: true
                - absent
              'late*':
                - order: 10
                - late
              'early*':
                - order: -1
                - early
            """,
        "common.sls": "common: {{ grains.get('os', 'none') }}\nlayer: common\n",
        "debian.sls": "debian: true\nlayer: debian\n",
        "front.sls": "front: true\n",
        "grouped.sls": "grouped: true\n",
        "early.sls": "layer: early\n",
        "late.sls": "layer: late\n",
        "inc/init.sls": """\
            include:
              - .child
              - 'glob_*'
              - keyed:
                  key: nested:here
                  defaults: {colour: red}
            own: init
            shared: from-init
            """,
        "inc/child.sls": "child: true\nshared: from-child\n",
        "glob_a.sls": "glob_a: 1\n",
        "glob_b.sls": "glob_b: 2\n",
        "keyed.sls": "colour: {{ colour }}\n",
    })
    return {"base": [str(base)]}


def opts_with(roots, tmp_path, **extra):
    ext_dir = tmp_path / "extmods" / "pillar"
    write(ext_dir, {"inventory_module.py": GUIDE_MODULE, **MODULES})
    return {"pillar_roots": roots, "pillar_dirs": [str(ext_dir)], "ext_pillar": [],
            "nodegroups": {"nodes": "L@web1,db1"}, **extra}


def test_top_target_types(roots, tmp_path):
    opts = opts_with(roots, tmp_path)
    web = compile_pillar("web1", {"os": "Debian", "role": "front"}, opts)
    assert web == {"common": "Debian", "layer": "debian", "debian": True, "front": True,
                   "grouped": True}
    other = compile_pillar("db2", {"os": "Arch"}, opts)
    assert other == {"common": "Arch", "layer": "common"}


def test_top_order_and_ignore_missing(roots, tmp_path):
    opts = opts_with(roots, tmp_path)
    # 'early*' sorts first (order -1), then the unordered targets, 'late*' last.
    assert compile_pillar("early-late", {}, opts)["layer"] == "common"
    assert compile_pillar("late1", {}, opts)["layer"] == "late"
    assert "_errors" not in compile_pillar("x1", {}, opts)
    top = pillar_top("late1", {}, opts)
    assert [entry["target"] for entry in top["base"]] == ["*", "late*"]
    assert top["base"][1]["files"] == {"late": str(tmp_path / "base" / "late.sls")}
    (tmp_path / "base" / "top.sls").write_text("base:\n  '*':\n    - 'glob_*'\n    - gone\n")
    assert pillar_top("a", {}, opts)["base"][0]["files"] == {
        "glob_a": str(tmp_path / "base" / "glob_a.sls"),
        "glob_b": str(tmp_path / "base" / "glob_b.sls"), "gone": None}


def test_include_forms(roots, tmp_path):
    (tmp_path / "base" / "top.sls").write_text("base:\n  '*':\n    - inc\n")
    pillar = compile_pillar("a", {}, opts_with(roots, tmp_path))
    assert pillar == {"child": True, "glob_a": 1, "glob_b": 2,
                      "nested": {"here": {"colour": "red"}}, "own": "init",
                      "shared": "from-init"}


def test_call_shapes_and_repeats(roots, tmp_path):
    opts = opts_with(roots, tmp_path, ext_pillar=[
        {"inventory": "one"}, {"inventory": ["a", "b"]}, {"inventory": {"k": "v"}},
        {"counter": {"step": 2}}, {"counter": {"step": 3}}],
        **{"inventory.setting": "configured"})
    pillar = compile_pillar("web1", {"os": "Debian"}, opts)
    # The three inventory entries run in order; the last one wins (recurse merge).
    assert pillar["inventory"] == {"id": "web1", "args": [], "kwargs": {"k": "v"},
                                   "os": "Debian", "seen": ["common", "debian", "grouped",
                                                            "inventory", "layer"],
                                   "opt": "configured", "ping": True}
    assert pillar["count"] == 5  # each call saw the pillar so far


def test_failures_are_named_in_errors(roots, tmp_path, caplog):
    opts = opts_with(roots, tmp_path, ext_pillar=[
        {"nosuch": 1}, {"refuses": {}}, {"raises": {}}, {"listy": {}}, "bare",
        {"counter": {"step": 1}}])
    pillar = compile_pillar("a", {}, opts)
    assert pillar["count"] == 1
    assert pillar["_errors"] == [
        'The "ext_pillar" option is malformed: entry 5 (\'bare\') is not a map of module '
        'name to arguments',
        "Failed to load ext_pillar nosuch (ext_pillar entry 1): ext_pillar interface named "
        "nosuch is unavailable: 'nosuch.ext_pillar' is not available.",
        "Failed to load ext_pillar refuses (ext_pillar entry 2): ext_pillar interface named "
        "refuses is unavailable: 'refuses' __virtual__ returned False: needs the frobnicator",
        "Failed to load ext_pillar raises (ext_pillar entry 3): RuntimeError: db down",
        "Failed to load ext_pillar listy (ext_pillar entry 4): it returned list, not a mapping",
    ]
    assert "db down" in caplog.text


def test_a_scalar_value_is_one_positional_argument(roots, tmp_path):
    opts = opts_with(roots, tmp_path, ext_pillar=[{"raises": None}])
    assert compile_pillar("a", {}, opts)["_errors"] == [
        "Failed to load ext_pillar raises (ext_pillar entry 1): TypeError: ext_pillar() takes "
        "2 positional arguments but 3 were given"]


def test_unknown_nodegroup_in_top_is_an_error(roots, tmp_path):
    opts = opts_with(roots, tmp_path, nodegroups={})
    assert compile_pillar("a", {}, opts)["_errors"] == [
        "Top file target 'nodes' (nodegroup) in environment 'base': Invalid target 'nodes' "
        "(nodegroup): unknown nodegroup 'nodes'; known: none are configured."]


def test_bad_settings_are_errors_not_exceptions(roots, tmp_path):
    opts = opts_with(roots, tmp_path, pillar_source_merging_strategy="deep")
    assert compile_pillar("a", {}, opts) == {"_errors": [
        "Unknown pillar_source_merging_strategy 'deep'; use one of smart, recurse, "
        "overwrite, aggregate, none."]}
    opts = opts_with(roots, tmp_path, ext_pillar={"cmd_json": "x"})
    assert compile_pillar("a", {}, opts)["_errors"] == [
        'The "ext_pillar" option is malformed: it must be a list of one-key maps, not dict']


def test_cache_serves_until_ttl(roots, tmp_path, monkeypatch):
    now = [100.0]
    monkeypatch.setattr(pillar_cache, "PILLAR_CACHE", pillar_cache.PillarCache(lambda: now[0]))
    opts = opts_with(roots, tmp_path, pillar_cache=True, pillar_cache_ttl=60)
    assert compile_pillar("a", {}, opts)["layer"] == "common"
    (tmp_path / "base" / "common.sls").write_text("layer: changed\n")
    now[0] += 59
    assert compile_pillar("a", {}, opts)["layer"] == "common"
    assert compile_pillar("a", {}, opts, pillar_override={"x": 1})["layer"] == "changed"
    now[0] += 1
    assert compile_pillar("a", {}, opts)["layer"] == "changed"
    assert compile_pillar("a", {}, {**opts, "pillar_cache": False})["layer"] == "changed"


def test_top_files_include_others_and_environments_are_chosen(roots, tmp_path):
    base = tmp_path / "base"
    (base / "top.sls").write_text("include:\n  - more_top\nbase:\n  '*':\n    - common\n")
    (base / "more_top.sls").write_text("base:\n  'a':\n    - early\n")
    dev = tmp_path / "dev"
    dev.mkdir()
    (dev / "top.sls").write_text("dev:\n  '*':\n    - devdata\n")
    (dev / "devdata.sls").write_text("dev: true\n")
    opts = opts_with({**roots, "dev": [str(dev)]}, tmp_path)
    assert compile_pillar("a", {}, opts) == {"common": "none", "layer": "early", "dev": True}
    assert compile_pillar("a", {}, opts, pillarenv="dev") == {"dev": True}
    assert compile_pillar("a", {}, {**opts, "pillar_source_merging_strategy": "none"}) == {
        "common": "none", "layer": "early"}


def test_includes_override_sls(roots, tmp_path):
    (tmp_path / "base" / "top.sls").write_text("base:\n  '*':\n    - inc\n")
    opts = opts_with(roots, tmp_path, pillar_includes_override_sls=True)
    assert compile_pillar("a", {}, opts)["shared"] == "from-child"


def test_include_cycles_end(roots, tmp_path):
    base = tmp_path / "base"
    (base / "top.sls").write_text("base:\n  '*':\n    - ping\n")
    (base / "ping.sls").write_text("include: [pong]\nping: 1\n")
    (base / "pong.sls").write_text("include: [ping]\npong: 1\n")
    assert compile_pillar("a", {}, opts_with(roots, tmp_path)) == {"ping": 1, "pong": 1}

"""Pillar options from hearth.conf and the YAML pillar configuration."""

import pytest
from oslo_config import cfg

from hearth.common import config, exception
from hearth.pillar.settings import master_opts, parse_roots


def conf_with(tmp_path, pillar_lines: str):
    path = tmp_path / "hearth.conf"
    path.write_text(f"[DEFAULT]\nstate_path = {tmp_path}\nextension_modules = {tmp_path}/ext\n"
                    f"[pillar]\n{pillar_lines}")
    conf = cfg.ConfigOpts()
    return config.load(conf=conf, config_files=[str(path)])


def test_ini_options_then_the_yaml_file_on_top(tmp_path):
    (tmp_path / "pillar.yaml").write_text(
        "ext_pillar:\n  - cmd_json: cat x\npillar_merge_lists: true\nhearth_stack.project: ops\n")
    lines = ("pillar_roots = base=/srv/a\npillar_roots = base=/srv/b\n"
             "pillar_roots = dev=/srv/dev\next_pillar_first = true\n")
    opts = master_opts(conf_with(tmp_path, lines))
    assert opts["pillar_roots"] == {"base": ["/srv/a", "/srv/b"], "dev": ["/srv/dev"]}
    assert opts["ext_pillar"] == [{"cmd_json": "cat x"}]
    assert (opts["ext_pillar_first"], opts["pillar_merge_lists"]) == (True, True)
    assert opts["pillar_source_merging_strategy"] == "smart"
    assert opts["pillar_dirs"] == [f"{tmp_path}/ext/pillar"]
    assert opts["hearth_stack.project"] == "ops"


def test_a_missing_yaml_file_means_no_ext_pillar(tmp_path):
    assert master_opts(conf_with(tmp_path, ""))["ext_pillar"] == []


@pytest.mark.parametrize(("text", "message"), [
    ("- a\n- b\n", "must be a mapping, not list"),
    ("a: [1,\n", "Cannot read the pillar configuration"),
])
def test_bad_yaml_files_are_named(tmp_path, text, message):
    (tmp_path / "pillar.yaml").write_text(text)
    with pytest.raises(exception.PillarConfigError) as caught:
        master_opts(conf_with(tmp_path, ""))
    assert str(tmp_path / "pillar.yaml") in str(caught.value) and message in str(caught.value)


def test_roots_lines_must_be_env_equals_dir():
    with pytest.raises(exception.PillarConfigError) as caught:
        parse_roots(["base=/srv", "/srv/other"])
    assert str(caught.value) == "[pillar] pillar_roots: '/srv/other' is not ENV=DIR"

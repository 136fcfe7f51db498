"""A relative path in a configuration file is taken from that file's directory."""

from __future__ import annotations

import os

from oslo_config import cfg

from hearth.common import config


def test_relative_paths_are_taken_from_the_file_that_gives_them(tmp_path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    (site / "hearth.conf").write_text(
        "[DEFAULT]\nstate_path = state\nmodule_dirs = mods,/abs/mods\n"
        "[cloud]\nconfig_dir = demo/cloud\n"
        "[pillar]\npillar_roots = base=demo/pillar\npillar_roots = dev=/srv/pillar\n")
    monkeypatch.chdir(tmp_path)   # not the file's directory
    conf = config.load(conf=cfg.ConfigOpts(), config_files=["site/hearth.conf"])
    assert conf.state_path == str(site / "state")
    assert conf.module_dirs == [str(site / "mods"), "/abs/mods"]
    assert conf.cloud.config_dir == str(site / "demo" / "cloud")
    assert conf.pillar.pillar_roots == [f"base={site / 'demo' / 'pillar'}", "dev=/srv/pillar"]
    # a default built on a resolved path follows it
    assert conf.pillar.config_file == str(site / "state" / "pillar.yaml")


def test_a_reload_forgets_the_paths_of_the_previous_files(tmp_path):
    (tmp_path / "a.conf").write_text("[DEFAULT]\nstate_path = here\n")
    (tmp_path / "b.conf").write_text("[cloud]\nconfig_dir = /etc/clouds\n")
    conf = cfg.ConfigOpts()
    config.load(conf=conf, config_files=[str(tmp_path / "a.conf")])
    assert conf.state_path == str(tmp_path / "here")
    config.load(conf=conf, config_files=[str(tmp_path / "b.conf")])
    assert conf.state_path == config.hearth_home()
    assert conf.cloud.config_dir == "/etc/clouds"


def test_home_relative_and_absolute_values_are_kept(tmp_path):
    (tmp_path / "h.conf").write_text("[DEFAULT]\nstate_path = /var/lib/hearth\n"
                                     "[agent]\nroot_dir = $state_path/agent\n")
    conf = config.load(conf=cfg.ConfigOpts(), config_files=[str(tmp_path / "h.conf")])
    assert conf.state_path == "/var/lib/hearth"
    assert conf.agent.root_dir == os.path.join("/var/lib/hearth", "agent")

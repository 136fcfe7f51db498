"""opts_from_conf and execution_loader: configuration reaches modules' __opts__."""

from oslo_config import cfg

from hearth.common import config
from hearth.loader import execution_loader, opts_from_conf


def test_module_options_from_the_configuration_file_win(tmp_path):
    modules = tmp_path / "mods"
    modules.mkdir()
    (modules / "echoargs.py").write_text(
        "__opts__ = {'echoargs.opt': 'module-default'}\n\n"
        "def opt():\n    return __opts__['echoargs.opt']\n\n"
        "def os_grain():\n    return __grains__['os'], __grains__['id']\n")
    conf_file = tmp_path / "hearth.conf"
    conf_file.write_text(f"[DEFAULT]\nmodule_dirs = {modules}\n"
                         "module_opts = echoargs.opt:from-config\nminion_id = web-7\n"
                         f"state_path = {tmp_path}\n")
    conf = cfg.ConfigOpts()
    config.load(conf=conf, config_files=[str(conf_file)])
    opts = opts_from_conf(conf)
    assert opts["id"] == "web-7" and opts["echoargs.opt"] == "from-config"
    assert opts["cachedir"] == f"{tmp_path}/cache"
    loader = execution_loader(opts)
    assert loader["echoargs.opt"]() == "from-config"
    assert loader["echoargs.os_grain"]()[1] == "web-7"


def test_explicit_grains_and_pillar(tmp_path):
    loader = execution_loader({}, grains={"os": "X"}, pillar={"a": {"b": 1}})
    assert loader["grains.get"]("os") == "X"
    assert loader["pillar.get"]("a:b", unmask=True) == 1

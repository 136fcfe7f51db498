"""register_opts: every option once per configuration object, however often readers call it."""

import gc

from oslo_config import cfg

from hearth.common import config
from hearth.common.configured import configured


def test_each_configuration_object_gets_every_option():
    first = cfg.ConfigOpts()
    config.register_opts(first)
    config.register_opts(first)  # again: nothing changes, nothing is refused
    first([], default_config_files=[])
    assert first.max_template_size == 524288
    assert first.bus.buffer_size == configured().bus.buffer_size
    del first
    gc.collect()
    # a new object (it may even get the old one's id) is registered for itself
    second = cfg.ConfigOpts()
    assert configured(second) is second
    second([], default_config_files=[])
    assert second.database.auto_migrate is True


def test_a_registered_object_registers_no_option_again(monkeypatch):
    conf = cfg.ConfigOpts()
    config.register_opts(conf)
    calls = []
    monkeypatch.setattr(conf, "register_opts", lambda *args, **kwargs: calls.append(args))
    config.register_opts(conf)
    assert configured(conf) is conf
    assert calls == []

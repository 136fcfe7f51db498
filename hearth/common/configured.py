"""The one door through which modules on stackctl's light paths read Hearth's configuration.

Reading a setting needs oslo.config and every option declaration of
:mod:`hearth.common.config`: about 100 ms of imports.  The bus, the request
limits, the loader's ``__opts__`` and the JobService's settings are loaded by
processes that never read a setting (``stackctl stack-list`` talking to its
local engine, ``stackctl --version``), so they import this module, which
costs nothing, and call :func:`configured` where they read: only a process
that reads a setting loads the configuration, and it does so here, once.
Modules that need the configuration anyway (the daemons' start-up, the
database) import :mod:`hearth.common.config` directly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from oslo_config.cfg import ConfigOpts


def configured(conf: ConfigOpts | None = None) -> ConfigOpts:
    """Return ``conf`` (default: Hearth's ``CONF``) with every option of Hearth registered."""
    # lazy: oslo.config and the option declarations (100 ms), only where a setting is read
    from hearth.common import config

    conf = config.CONF if conf is None else conf
    config.register_opts(conf)
    return conf

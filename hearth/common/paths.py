"""Where Hearth's state and configuration live, without loading the configuration.

These answers are needed before oslo.config is imported (``stackctl``
finds its local engine with them), so they use the standard library only;
:mod:`hearth.common.config` builds on them.
"""

from __future__ import annotations

import os


def hearth_home() -> str:
    """Return the directory for embedded state (``$HEARTH_HOME``)."""
    return os.environ.get("HEARTH_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "share", "hearth")


def default_config_files() -> list[str]:
    """Return the configuration files that exist, in Hearth's search order.

    ``$HEARTH_CONFIG`` first, then ``~/.config/hearth/hearth.conf``, then
    ``/etc/hearth/hearth.conf``: oslo.config gives later files precedence, so
    the list is returned reversed (system first, the most specific last).
    """
    candidates = [
        os.environ.get("HEARTH_CONFIG"),
        os.path.join(os.path.expanduser("~"), ".config", "hearth", "hearth.conf"),
        "/etc/hearth/hearth.conf",
    ]
    found = [path for path in candidates if path and os.path.isfile(path)]
    return list(reversed(found))

"""Where Hearth's state and configuration live, without loading the configuration.

These answers are needed before oslo.config is imported (``stackctl``
finds its local engine with them), so they use the standard library only;
:mod:`hearth.common.config` builds on them.  :func:`ensure_directory`
makes the directories Hearth keeps its state in, and says plainly why one
cannot be made (a file in its place, no permission).
"""

from __future__ import annotations

import os
import stat

from hearth.common import exception


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


def _obstacle(path: str) -> str | None:
    """Return what stands where ``path`` or one of its parents should be a directory."""
    current = os.path.abspath(path)
    while True:
        try:
            mode = os.stat(current).st_mode
        except OSError:
            mode = None
        if mode is not None and not stat.S_ISDIR(mode):
            kind = "a file" if stat.S_ISREG(mode) else "something else"
            return f"{current} is {kind}, not a directory"
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def ensure_directory(path: str, purpose: str, mode: int = 0o777) -> str:
    """Make the directory ``path`` (and its parents) unless it exists; return ``path``.

    ``purpose`` says what the directory is for, in the error
    (:class:`~hearth.common.exception.DirectoryUnusable`) raised when it
    cannot be made: a file in its place or in a parent's, no permission.
    """
    try:
        os.makedirs(path, mode=mode, exist_ok=True)
    except OSError as exc:
        reason = _obstacle(path) or exc.strerror or str(exc)
        raise exception.DirectoryUnusable(path=path, purpose=purpose, reason=reason) from None
    return path

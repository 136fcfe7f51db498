"""stackctl engine-status and engine-stop: the local engines stackctl starts.

Without ``--url`` stackctl talks to a local engine it starts on first use
(:mod:`hearth.cli.local_engine`); these commands show and stop them.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from hearth.cli import command, local_engine, output

COLUMNS = ("pid", "home", "config_files", "uptime", "this_setting")


def _engines(args: argparse.Namespace) -> list[dict[str, Any]]:
    setting = local_engine.Setting.current(getattr(args, "config_file", None))
    current = local_engine.Address(local_engine.runtime_dir(), setting.key).socket
    found = []
    for info in local_engine.engines():
        found.append(dict(info, this_setting=info["socket"] == current,
                          uptime=f"{time.time() - info.get('started', time.time()):.0f}s"))
    return found


def do_engine_status(args: argparse.Namespace) -> int:
    """List this user's running local engines."""
    output.listing(_engines(args), COLUMNS, args.format)
    return 0


def do_engine_stop(args: argparse.Namespace) -> int:
    """Stop the local engine of this setting (or every one with --all)."""
    engines = [info for info in _engines(args) if args.all or info["this_setting"]]
    stopped = local_engine.stop_engines(engines)
    print(f"Stopped {len(stopped)} local engine(s).")
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add engine-status and engine-stop."""
    command.add_command(
        subparsers, "engine-status", do_engine_status,
        description="List the local engines stackctl started for you: without --url, "
                    "stackctl talks to a resident engine serving your configuration, "
                    "started on first use and stopped after [cli] "
                    "local_engine_idle_timeout seconds without work.",
        formats=output.ALL_FORMATS)
    parser = command.add_command(
        subparsers, "engine-stop", do_engine_stop)
    parser.add_argument("--all", action="store_true",
                        help="Stop every local engine of yours, whatever its configuration.")

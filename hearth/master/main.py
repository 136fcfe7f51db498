"""``hearth-master``: run the master daemon.

The command returns once the master serves (its keys, database and both
ports open), or exits 1 with the reason on stderr when it cannot start
(:mod:`hearth.common.daemon`).  It exits 1 as well when the master stops
by itself because one of its threads died.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Sequence

from hearth.common import daemon
from hearth.master.server import Master
from hearth.master.settings import MasterSettings

LOG = logging.getLogger("hearth.master")


def main(argv: Sequence[str] | None = None) -> int:
    """Run hearth-master until SIGTERM; return the exit code."""
    parser = daemon.build_parser(
        "hearth-master", "Publish jobs to hearth-agents, collect their returns into the job "
                         "cache, keep their keys and serve their pillar and modules. Without "
                         "--foreground the command returns once the master serves, or exits "
                         "1 with the reason when it cannot start.")
    args = parser.parse_args(argv)

    conf, settings = daemon.load_settings("hearth-master", args.config_file,
                                          MasterSettings.from_conf)
    startup = daemon.start(args, "hearth-master",
                           os.path.join(conf.state_path, "hearth-master.log"))
    try:
        master = Master(settings)
        master.start()
    except Exception as error:  # noqa: BLE001 - DaemonStartFailed, HearthException, OSError
        LOG.debug("start failed", exc_info=True)
        return startup.failed(error)
    daemon.on_termination(master.stop)
    startup.ready()
    try:
        master.serve()
    except Exception:  # noqa: BLE001 - Hearth's bug: logged with its traceback, exit 1
        LOG.exception("hearth-master stops: its loop failed")
        return 1
    finally:
        startup.release()
    return 1 if master.failure else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""``hearth-master``: run the master daemon."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Sequence

from hearth.common import daemon

LOG = logging.getLogger("hearth.master")


def main(argv: Sequence[str] | None = None) -> int:
    """Run hearth-master until SIGTERM; return the exit code."""
    parser = daemon.build_parser(
        "hearth-master", "Publish jobs to hearth-agents, collect their returns into the job "
                         "cache, keep their keys and serve their pillar and modules.")
    args = parser.parse_args(argv)
    from hearth.master.server import Master
    from hearth.master.settings import MasterSettings

    conf, settings = daemon.load_settings("hearth-master", args.config_file,
                                          MasterSettings.from_conf)
    daemon.start(args, "hearth-master", os.path.join(conf.state_path, "hearth-master.log"))
    try:
        master = Master(settings)
        master.start()
    except Exception as error:  # noqa: BLE001 - HearthException, OSError, zmq.ZMQError (in use)
        LOG.error("hearth-master cannot start: %s", error)
        print(f"hearth-master: {error}", file=sys.stderr)
        return 1
    daemon.on_termination(master.stop)
    master.serve()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

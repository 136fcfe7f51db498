"""``hearth-master``: run the master daemon."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Sequence

from hearth.common import daemon, exception

LOG = logging.getLogger("hearth.master")


def main(argv: Sequence[str] | None = None) -> int:
    """Run hearth-master until SIGTERM; return the exit code."""
    parser = daemon.build_parser(
        "hearth-master", "Publish jobs to hearth-agents, collect their returns into the job "
                         "cache, keep their keys and serve their pillar and modules.")
    args = parser.parse_args(argv)
    from hearth.common import config
    from hearth.master.server import Master
    from hearth.master.settings import MasterSettings

    try:
        conf = config.load(config_files=args.config_file)
        settings = MasterSettings.from_conf(conf)
    except Exception as error:  # noqa: BLE001 - a bad configuration is reported, not traced
        print(f"hearth-master: {error}", file=sys.stderr)
        return 2
    daemon.start(args, "hearth-master", os.path.join(conf.state_path, "hearth-master.log"))
    try:
        master = Master(settings)
        master.start()
    except (exception.HearthException, OSError) as error:
        LOG.error("hearth-master cannot start: %s", error)
        print(f"hearth-master: {error}", file=sys.stderr)
        return 1
    except Exception as error:  # noqa: BLE001 - e.g. zmq.ZMQError: address in use
        LOG.error("hearth-master cannot start: %s", error)
        print(f"hearth-master: {error}", file=sys.stderr)
        return 1
    daemon.on_termination(master.stop)
    master.serve()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""``hearth-agent``: run one agent (Salt's minion) until SIGTERM.

The agent stays small: it imports ZeroMQ, the configuration and the loader,
never the engine, SQLAlchemy or eventlet.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import threading
from collections.abc import Sequence
from typing import Any

from hearth.agent.connection import AgentChannel, MasterConnection
from hearth.agent.executor import JobExecutor
from hearth.agent.returns import ReturnStore
from hearth.agent.settings import AgentSettings, loader_opts
from hearth.common import daemon, exception
from hearth.grains import load_grains
from hearth.loader import execution_loader
from hearth.transport import certificates, wire

LOG = logging.getLogger("hearth.agent")

#: Seconds a stopping agent waits for its running jobs (their returns are kept on disk).
DRAIN_SECONDS = 5.0


class Agent:
    """One agent: its keys, loader, job executor and connection to the master."""

    def __init__(self, settings: Any, conf: Any) -> None:
        self.settings = settings
        os.makedirs(settings.root_dir, mode=0o700, exist_ok=True)
        os.makedirs(settings.extmods_dir, exist_ok=True)
        agent_keys = certificates.load_or_create(settings.pki_dir, "agent")
        outbox = wire.Outbox()
        self.channel = AgentChannel(outbox)
        opts = loader_opts(settings, conf)
        opts["agent_channel"] = self.channel
        self.loader = execution_loader(opts, load_grains(opts))
        returns = ReturnStore(os.path.join(settings.root_dir, "returns"))
        self.executor = JobExecutor(self.loader, settings.id, returns,
                                    lambda ret: outbox.put(("ret", ret)),
                                    settings.jid_queue_hwm)
        self.loader.opts["job_control"] = self.executor
        self.connection = MasterConnection(
            settings, agent_keys, outbox, self.channel, self.executor.submit,
            grains=lambda: dict(self.loader.pack["__grains__"]),
            running=self.executor.running, returns=returns, on_connected=self._fetch_pillar)

    def _fetch_pillar(self) -> None:
        """Ask the master for this agent's pillar, off the connection's thread."""
        def fetch() -> None:
            try:
                pillar = self.channel.request("pillar")
            except exception.HearthException as error:
                LOG.warning("agent %s could not get its pillar: %s", self.settings.id, error)
                return
            current = self.loader.pack["__pillar__"]
            current.clear()
            current.update(pillar or {})

        threading.Thread(target=fetch, name="pillar", daemon=True).start()

    def run(self) -> None:
        """Serve the master until stopped; then give running jobs a moment to finish."""
        self.connection.run()
        left = self.executor.drain(DRAIN_SECONDS)
        if left:
            LOG.warning("agent %s stopped with jobs still running: %s", self.settings.id,
                        ", ".join(left))

    def stop(self) -> None:
        """Stop (safe from a signal handler)."""
        self.connection.stop()


def main(argv: Sequence[str] | None = None) -> int:
    """Run hearth-agent; return the exit code."""
    parser = daemon.build_parser(
        "hearth-agent", "Connect to hearth-master, run the jobs it sends with the execution "
                        "modules, and return their results. Without --foreground the command "
                        "returns once the agent runs (its keys, directories and modules "
                        "loaded), or exits 1 with the reason when it cannot start.")
    args = parser.parse_args(argv)

    conf, settings = daemon.load_settings("hearth-agent", args.config_file,
                                          AgentSettings.from_conf)
    startup = daemon.start(args, "hearth-agent",
                           os.path.join(settings.root_dir, "hearth-agent.log"))
    try:
        agent = Agent(settings, conf)
    except (exception.HearthException, OSError) as error:
        LOG.debug("start failed", exc_info=True)
        return startup.failed(f"agent {settings.id}: {error}")
    daemon.on_termination(agent.stop)
    startup.ready()
    try:
        agent.run()
    except exception.MasterKeyMismatch as error:
        return _stopped(args, str(error))
    except (exception.HearthException, OSError) as error:
        return _stopped(args, f"agent {settings.id} cannot run: {error}")
    except Exception as error:  # noqa: BLE001 - Hearth's bug: logged with its traceback
        LOG.debug("the agent failed", exc_info=True)
        return _stopped(args, f"agent {settings.id} failed: {type(error).__name__}: {error}")
    finally:
        startup.release()
    return 0


def _stopped(args: argparse.Namespace, reason: str) -> int:
    """Log why the agent stopped (and print it in the foreground); return 1."""
    LOG.error("hearth-agent stops: %s", reason)
    if args.foreground:
        print(f"hearth-agent: {reason}", file=sys.stderr)
    return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

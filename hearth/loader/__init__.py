"""One loader for every module family (execution modules, cloud drivers, ext_pillars).

Public names: :class:`Loader`, :class:`ModuleFamily`, :data:`EXECUTION`, :data:`PILLAR`,
:class:`LoadedFunction`, :func:`execution_loader`, :func:`job_runner`, :func:`opts_from_conf`.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from typing import Any

from hearth.common.configured import configured
from hearth.grains import LazyGrains
from hearth.jobs import CallContext, JobRunner, ProcTable
from hearth.loader.exports import LoadedFunction
from hearth.loader.family import CLOUD, EXECUTION, PILLAR, ModuleFamily
from hearth.loader.lazy import Loader

__all__ = ["CLOUD", "EXECUTION", "PILLAR", "LoadedFunction", "Loader", "ModuleFamily",
           "execution_loader", "job_runner", "opts_from_conf"]


def opts_from_conf(conf: Any = None) -> dict[str, Any]:
    """Build the ``__opts__`` dict from Hearth's configuration.

    Per-module options (``[DEFAULT] module_opts``) become flat
    ``module.option`` keys, as in Salt's minion configuration.
    """
    conf = configured(conf)
    opts: dict[str, Any] = {
        "id": conf.minion_id,
        "state_path": conf.state_path,
        "cachedir": f"{conf.state_path}/cache",
        "module_dirs": list(conf.module_dirs),
        "enable_zip_modules": conf.enable_zip_modules,
    }
    opts.update(conf.module_opts)
    return opts


def execution_loader(opts: Mapping[str, Any], grains: Mapping[str, Any] | None = None,
                     pillar: Mapping[str, Any] | None = None) -> Loader:
    """Return a loader of execution modules with ``__grains__`` and ``__pillar__`` packed.

    Without ``grains`` the core grains are computed on first use (cached).
    ``__context__`` keeps each thread's ``retcode`` apart, so jobs may run
    on several threads at once.
    """
    if grains is None:

        grains = LazyGrains(opts)
    return Loader(EXECUTION, opts, pack={"__grains__": grains, "__pillar__": dict(pillar or {})},
                  context=CallContext())


def job_runner(opts: Mapping[str, Any]) -> JobRunner:
    """Return a job runner over the execution modules ``opts`` configures (``salt-call --local``).

    Its jobs are named after ``opts["id"]`` (default: this host's name) and
    tracked in the proc table under ``opts["cachedir"]``.
    """
    return JobRunner(execution_loader(opts), opts.get("id") or socket.gethostname(),
                     proc=ProcTable(os.path.join(opts["cachedir"], "proc")))

"""What a deploy puts on a new node: the agent's configuration, keys, grains, script, wheels.

:func:`agent_config` writes the ``[agent]`` section (id, the master's
address, ports and ``master_finger``, then the profile's ``agent:``
options); the bootstrap script adds where the agent keeps its state, which
only the node knows.  :func:`render_script` renders a script of
``deploy.d`` with Jinja: the user's ``<config_dir>/deploy.d`` first, then
Hearth's own (``bootstrap-hearth``).  :func:`upload_files` is the whole
upload of one deploy, as ``{relative path: bytes}``.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import hearth
from hearth.common import exception
from hearth.transport import keys

#: Hearth's own deploy scripts.
SHIPPED_DEPLOY_D = Path(__file__).with_name("deploy.d")
#: [agent] options a deployed agent gets unless its profile says otherwise.
AGENT_DEFAULTS = {"acceptance_wait_time": 1.0, "reconnect_delay_max": 5.0}


@dataclass(frozen=True)
class MasterContact:
    """How a new agent reaches its master: address, ports and the key's fingerprint."""

    address: str
    port: int
    auth_port: int
    finger: str


def ini_text(sections: Mapping[str, Mapping[str, Any]]) -> str:
    """Return an oslo.config file of ``sections`` (``$`` doubled: oslo would interpolate it)."""
    lines = []
    for section, values in sections.items():
        lines.append(f"[{section}]")
        lines += [f"{key} = {str(value).replace('$', '$$')}" for key, value in values.items()
                  if value is not None]
    return "\n".join(lines) + "\n"


def agent_config(agent_id: str, master: MasterContact,
                 options: Mapping[str, Any] | None = None) -> str:
    """Return the agent's configuration file (``[agent]`` only; the script adds the rest)."""
    settings = {**AGENT_DEFAULTS, **{k: v for k, v in dict(options or {}).items()
                                     if k not in ("grains", "master")}}
    settings.update(id=agent_id, master=master.address, master_port=master.port,
                    master_auth_port=master.auth_port, master_finger=master.finger)
    return ini_text({"agent": settings})


def script_path(name: str, opts: Mapping[str, Any] | None = None) -> Path:
    """Return the deploy script ``name``: absolute, else from the user's or Hearth's deploy.d."""
    if os.path.isabs(name):
        candidates = [Path(name)]
    else:
        user_dir = Path((opts or {}).get("config_dir") or ".") / "deploy.d"
        candidates = [user_dir / name, SHIPPED_DEPLOY_D / name]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise exception.CloudConfigError(
        f"deploy script {name!r} not found (looked in {', '.join(map(str, candidates))})")


def render_script(vm_: Mapping[str, Any], opts: Mapping[str, Any] | None = None,
                  **context: Any) -> str:
    """Return the deploy script ``vm_['script']`` rendered with Jinja.

    The template sees ``vm`` (the node's settings), ``version`` (Hearth's)
    and ``agent_id``, plus ``context``; the ``quote`` filter quotes a value
    for the shell.
    """
    # lazy: jinja2 only when a deploy script is rendered (the engine loads this module at start)
    import jinja2

    path = script_path(str(vm_.get("script") or "bootstrap-hearth"), opts)
    environment = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    environment.filters["quote"] = lambda value: shlex.quote(str(value))
    try:
        template = environment.from_string(path.read_text(encoding="utf-8"))
        return template.render(vm=dict(vm_), version=hearth.__version__,
                               agent_id=vm_.get("name"), **context)
    except (OSError, jinja2.TemplateError) as error:
        raise exception.CloudConfigError(f"deploy script {path}: {error}") from error


def key_files(pair: keys.KeyPair, name: str) -> dict[str, bytes]:
    """Return the certificate files of ``pair`` as ``{<name>.key, <name>.key_secret}``."""
    public, secret = keys.certificate_texts(pair)
    return {f"{name}.key": public.encode(), f"{name}.key_secret": secret.encode()}


def wheel_files(wheelhouse: str | None) -> dict[str, bytes]:
    """Return the wheels of ``wheelhouse`` as ``{wheelhouse/<file>: bytes}`` (none without one)."""
    if not wheelhouse:
        return {}
    wheels = sorted(p for p in Path(wheelhouse).iterdir() if p.suffix == ".whl")
    if not wheels:
        raise exception.CloudConfigError(f"wheelhouse {wheelhouse} holds no wheel")
    return {f"wheelhouse/{p.name}": p.read_bytes() for p in wheels}


def upload_files(vm_: Mapping[str, Any], opts: Mapping[str, Any] | None, agent_id: str,
                 master: MasterContact, pair: keys.KeyPair, key_name: str = "agent",
                 grains: Mapping[str, Any] | None = None) -> dict[str, bytes]:
    """Return the upload of one deploy: script, configuration, keys and grains."""
    options = dict(vm_.get("agent") or {})
    options.update(dict(vm_.get("minion") or {}))
    return {"deploy.sh": render_script(vm_, opts).encode(),
            "agent.conf": agent_config(agent_id, master, options).encode(),
            "grains.json": json.dumps(dict(grains or {}), indent=2, sort_keys=True).encode(),
            **key_files(pair, key_name)}

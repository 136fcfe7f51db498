"""The deploy arguments of a node: where to log in, what to run, what to install.

Read once from the node's ``vm_`` (profile, provider, then the global cloud
options, as :func:`~hearth.clouds.config.get_cloud_config_value` looks
them up) into a :class:`DeploySettings` record, with Salt Cloud's names
and defaults where Salt has them:

======================== ======================================================
``ssh_host``             the address to deploy to (default: the node's public
                         address, or private with ``ssh_interface: private_ips``)
``ssh_port``             22
``ssh_username``         a name or a list tried in turn (default ``root``)
``private_key``          a private key file (``ssh_keyfile`` is the same)
``password``             the login's password
``ssh_gateway``          a jump host (``ssh_gateway_port``, ``_username``,
                         ``_private_key``, ``_password``)
``known_hosts_file``     check the host key against it (default: accept it)
``ssh_connect_timeout``  seconds to wait for the SSH port (300)
``wait_for_passwd_timeout``  seconds one login attempt may take (15)
``wait_for_passwd_maxtries`` login attempts before giving up (15)
``script``               the bootstrap script in ``deploy.d`` (``bootstrap-hearth``)
``script_args``          extra arguments of the script (a string)
``script_env``           environment variables of the script (a mapping)
``tmp_dir``              the upload directory (``/tmp/.hearth-<uuid>``)
``sudo``                 run the script with sudo (default: when not root)
``keep_tmp``             leave the upload directory on the node
``wheelhouse``           a local directory of wheels uploaded for offline installs
``index_url``            the package index the node installs Hearth from
``wait_for_agent_timeout`` seconds until the agent must answer test.ping (300)
``deploy_method``        ``ssh`` (default) or ``cloud-init`` (user data)
``enrollment_ttl``       seconds a cloud-init enrollment key stays valid (1800)
``keep_on_failure``      keep a node whose deploy failed (default: destroy it)
======================== ======================================================
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from hearth.clouds import config, ssh, utils
from hearth.common import exception

DEPLOY_METHODS = ("ssh", "cloud-init")


def _value(vm_: Mapping[str, Any], opts: Mapping[str, Any], name: str,
           default: Any = None) -> Any:
    return config.get_cloud_config_value(name, vm_, opts, default)


def _number(vm_: Mapping[str, Any], opts: Mapping[str, Any], name: str,
            default: float) -> float:
    raw = _value(vm_, opts, name, default)
    try:
        number = float(raw)
    except (TypeError, ValueError):
        raise exception.CloudConfigError(
            f"node {vm_.get('name')}: {name} must be a number, not {raw!r}") from None
    if number <= 0:
        raise exception.CloudConfigError(f"node {vm_.get('name')}: {name} must be positive")
    return number


def _port(vm_: Mapping[str, Any], opts: Mapping[str, Any], name: str) -> int:
    raw = _value(vm_, opts, name, 22)
    try:
        port = int(raw)
    except (TypeError, ValueError):
        port = 0
    if not 0 < port < 65536:
        raise exception.CloudConfigError(f"{name} must be a port number, not {raw!r}")
    return port


def _usernames(vm_: Mapping[str, Any], opts: Mapping[str, Any]) -> list[str]:
    raw = _value(vm_, opts, "ssh_username", "root")
    names = [str(n) for n in raw] if isinstance(raw, (list, tuple)) else [str(raw)]
    return [n for n in names if n] or ["root"]


def _gateway(vm_: Mapping[str, Any], opts: Mapping[str, Any],
             timeout: float) -> ssh.Login | None:
    host = _value(vm_, opts, "ssh_gateway")
    if not host:
        return None
    return ssh.Login(str(host), _port(vm_, opts, "ssh_gateway_port"),
                     str(_value(vm_, opts, "ssh_gateway_username", "root")),
                     _value(vm_, opts, "ssh_gateway_private_key"),
                     _value(vm_, opts, "ssh_gateway_password"), timeout,
                     _value(vm_, opts, "known_hosts_file"))


def node_address(vm_: Mapping[str, Any], node: Mapping[str, Any] | None = None,
                 opts: Mapping[str, Any] | None = None) -> str | None:
    """Return the address to deploy to: ``ssh_host``, else the node's chosen interface."""
    opts = opts or {}
    explicit = _value(vm_, opts, "ssh_host")
    if explicit:
        return str(explicit)
    node = node or {}
    interface = str(_value(vm_, opts, "ssh_interface", "public_ips"))
    if interface not in ("public_ips", "private_ips"):
        raise exception.CloudConfigError(f"node {vm_.get('name')}: ssh_interface must be "
                                         f"public_ips or private_ips, not {interface!r}")
    other = "private_ips" if interface == "public_ips" else "public_ips"
    for key in (interface, other):
        if node.get(key):
            return str(node[key][0])
    return None


@dataclass
class DeploySettings:
    """Everything one deploy needs, read from the node's ``vm_`` (see the module docstring)."""

    name: str
    host: str | None
    port: int = 22
    usernames: list[str] = field(default_factory=lambda: ["root"])
    private_key: str | None = None
    password: str | None = None
    gateway: ssh.Login | None = None
    known_hosts_file: str | None = None
    ssh_connect_timeout: float = 300.0
    login_timeout: float = 15.0
    login_tries: int = 15
    script: str = "bootstrap-hearth"
    script_args: str = ""
    script_env: dict[str, str] = field(default_factory=dict)
    tmp_dir: str = ""
    sudo: bool | None = None
    keep_tmp: bool = False
    wheelhouse: str | None = None
    index_url: str | None = None
    agent_timeout: float = 300.0
    method: str = "ssh"
    enrollment_ttl: float = 1800.0
    keep_on_failure: bool = False

    @classmethod
    def from_vm(cls, vm_: Mapping[str, Any], opts: Mapping[str, Any] | None = None,
                host: str | None = None) -> DeploySettings:
        """Read the deploy arguments of ``vm_`` (``host`` is the node's address)."""
        opts = opts or {}
        name = str(vm_["name"])
        login_timeout = _number(vm_, opts, "wait_for_passwd_timeout", 15)
        method = str(_value(vm_, opts, "deploy_method", "ssh"))
        if method not in DEPLOY_METHODS:
            raise exception.CloudConfigError(
                f"node {name}: deploy_method must be one of {', '.join(DEPLOY_METHODS)}, "
                f"not {method!r}")
        env = _value(vm_, opts, "script_env") or {}
        if not isinstance(env, Mapping):
            raise exception.CloudConfigError(f"node {name}: script_env must be a mapping")
        wheelhouse = _value(vm_, opts, "wheelhouse")
        if wheelhouse and not os.path.isdir(os.path.expanduser(str(wheelhouse))):
            raise exception.CloudConfigError(f"node {name}: wheelhouse {wheelhouse} is not a "
                                             "directory")
        sudo = _value(vm_, opts, "sudo")
        return cls(
            name=name, host=host or node_address(vm_, None, opts),
            port=_port(vm_, opts, "ssh_port"), usernames=_usernames(vm_, opts),
            private_key=_value(vm_, opts, "private_key") or _value(vm_, opts, "ssh_keyfile"),
            password=_value(vm_, opts, "password"),
            gateway=_gateway(vm_, opts, login_timeout),
            known_hosts_file=_value(vm_, opts, "known_hosts_file"),
            ssh_connect_timeout=_number(vm_, opts, "ssh_connect_timeout", 300),
            login_timeout=login_timeout,
            login_tries=int(_number(vm_, opts, "wait_for_passwd_maxtries", 15)),
            script=str(_value(vm_, opts, "script", "bootstrap-hearth")),
            script_args=str(_value(vm_, opts, "script_args", "") or ""),
            script_env={str(k): str(v) for k, v in env.items()},
            tmp_dir=str(_value(vm_, opts, "tmp_dir") or f"/tmp/.hearth-{uuid.uuid4()}"),
            sudo=None if sudo is None else config.is_true(sudo),
            keep_tmp=config.is_true(_value(vm_, opts, "keep_tmp", False)),
            wheelhouse=os.path.expanduser(str(wheelhouse)) if wheelhouse else None,
            index_url=_value(vm_, opts, "index_url"),
            agent_timeout=_number(vm_, opts, "wait_for_agent_timeout", 300),
            method=method, enrollment_ttl=_number(vm_, opts, "enrollment_ttl", 1800),
            keep_on_failure=config.is_true(_value(vm_, opts, "keep_on_failure", False)))

    def logins(self) -> list[ssh.Login]:
        """Return one login per user name to try, in order."""
        return [ssh.Login(str(self.host), self.port, user, self.private_key, self.password,
                          self.login_timeout, self.known_hosts_file, self.gateway)
                for user in self.usernames]

    def public(self) -> dict[str, Any]:
        """Return the deploy arguments a user may see (events, show_instance): no secrets."""
        shown = asdict(self)
        shown["gateway"] = self.gateway.describe() if self.gateway else None
        del shown["private_key"], shown["password"]
        shown["login"] = " and ".join(kind for kind, given in (
            ("key file", self.private_key), ("password", self.password)) if given) or "agent"
        return utils.scrub(shown)

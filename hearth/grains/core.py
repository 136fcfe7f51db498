"""Core grains: facts about this host, gathered fast and without network waits.

Each grain group is one small collector in :data:`COLLECTORS`.  Nothing here
asks DNS: ``fqdn`` comes from the host name and ``/etc/hosts`` only, and IP
addresses are read from the kernel (``/proc`` and an ioctl), never resolved.
"""

from __future__ import annotations

import fcntl
import os
import platform
import socket
import struct
import sys
from collections.abc import Callable
from typing import Any

from hearth import __version__

SIOCGIFADDR = 0x8915


def _os_release(path: str = "/etc/os-release") -> dict[str, str]:
    values: dict[str, str] = {}
    try:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                key, sep, value = line.strip().partition("=")
                if sep:
                    values[key] = value.strip().strip('"')
    except OSError:
        pass
    return values


#: Salt's os_family for the ID / ID_LIKE values of /etc/os-release.
OS_FAMILIES = {"debian": "Debian", "ubuntu": "Debian", "rhel": "RedHat", "fedora": "RedHat",
               "centos": "RedHat", "suse": "Suse", "arch": "Arch", "alpine": "Alpine",
               "gentoo": "Gentoo"}


def collect_os() -> dict[str, Any]:
    """Return kernel, os, os_family, osrelease and friends."""
    release = _os_release()
    os_id = release.get("ID", platform.system().lower())
    family = OS_FAMILIES.get(os_id)
    for like in release.get("ID_LIKE", "").split():
        family = family or OS_FAMILIES.get(like)
    uname = platform.uname()
    return {
        "kernel": uname.system,
        "kernelrelease": uname.release,
        "os": release.get("NAME", uname.system).split()[0],
        "os_family": family or uname.system,
        "osrelease": release.get("VERSION_ID", uname.release),
        "oscodename": release.get("VERSION_CODENAME", ""),
        "osarch": uname.machine,
        "cpuarch": uname.machine,
    }


def _fqdn_from_hosts(hostname: str, path: str = "/etc/hosts") -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                names = line.split("#", 1)[0].split()[1:]
                if hostname in names:
                    dotted = [name for name in names if "." in name and
                              name.split(".", 1)[0] == hostname]
                    if dotted:
                        return dotted[0]
    except OSError:
        pass
    return hostname


def collect_host() -> dict[str, Any]:
    """Return host, localhost, fqdn, domain and nodename (no DNS lookups)."""
    nodename = socket.gethostname()
    host = nodename.split(".", 1)[0]
    fqdn = nodename if "." in nodename else _fqdn_from_hosts(host)
    return {"host": host, "localhost": nodename, "nodename": nodename, "fqdn": fqdn,
            "domain": fqdn.partition(".")[2]}


def collect_hardware() -> dict[str, Any]:
    """Return num_cpus and mem_total (MiB)."""
    memory = 0
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemTotal:"):
                    memory = int(line.split()[1]) // 1024
                    break
    except OSError:
        pass
    return {"num_cpus": os.cpu_count() or 1, "mem_total": memory}


def _ipv4_of(interface: str) -> str | None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            answer = fcntl.ioctl(probe.fileno(), SIOCGIFADDR,
                                 struct.pack("256s", interface[:15].encode()))
        except OSError:
            return None
    return socket.inet_ntoa(answer[20:24])


def _ipv6_addresses(path: str = "/proc/net/if_inet6") -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    try:
        with open(path, encoding="ascii") as handle:
            for line in handle:
                fields = line.split()
                packed = bytes.fromhex(fields[0])
                found.setdefault(fields[5], []).append(socket.inet_ntop(socket.AF_INET6, packed))
    except (OSError, IndexError, ValueError):
        pass
    return found


def collect_network() -> dict[str, Any]:
    """Return ip4_interfaces, ip6_interfaces, ipv4 and ipv6 (read from the kernel)."""
    names = [name for _, name in socket.if_nameindex()]
    ip4 = {name: [address] if (address := _ipv4_of(name)) else [] for name in names}
    ip6 = {name: [] for name in names}
    ip6.update(_ipv6_addresses())
    return {
        "ip4_interfaces": ip4, "ip6_interfaces": ip6,
        "ipv4": sorted({a for addresses in ip4.values() for a in addresses}),
        "ipv6": sorted({a for addresses in ip6.values() for a in addresses}),
    }


def collect_python() -> dict[str, Any]:
    """Return pythonversion, pythonexecutable, hearth version, pid and user ids."""
    return {
        "pythonversion": list(platform.python_version_tuple()),
        "pythonexecutable": sys.executable,
        "saltversion": __version__,
        "hearthversion": __version__,
        "pid": os.getpid(),
        "uid": os.getuid(),
        "gid": os.getgid(),
    }


#: Every collector of core grains, run in order.
COLLECTORS: tuple[Callable[[], dict[str, Any]], ...] = (
    collect_os, collect_host, collect_hardware, collect_network, collect_python)


def core_grains(minion_id: str | None = None) -> dict[str, Any]:
    """Return every core grain; ``id`` is ``minion_id`` or the host name."""
    grains: dict[str, Any] = {}
    for collector in COLLECTORS:
        grains.update(collector())
    grains["id"] = minion_id or grains["localhost"]
    return grains

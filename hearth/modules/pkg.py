"""Manage Debian packages with dpkg and apt-get (only where dpkg exists)."""

from __future__ import annotations

import shutil
from typing import Any

from hearth.common.exception import CommandExecutionError


def __virtual__() -> Any:
    if shutil.which("dpkg-query") and shutil.which("apt-get"):
        return True
    return (False, "The pkg module needs dpkg-query and apt-get (Debian family hosts).")


def list_pkgs(versions_as_list: bool = False) -> dict[str, Any]:
    """Return ``{name: version}`` of the installed packages."""
    output = __salt__["cmd.run_stdout"](  # noqa: F821 - injected by the loader
        ["dpkg-query", "-W", "-f=${Package} ${db:Status-Status} ${Version}\\n"],
        ignore_retcode=True)
    packages: dict[str, Any] = {}
    for line in output.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] == "installed":
            packages[fields[0]] = [fields[2]] if versions_as_list else fields[2]
    return packages


def version(*names: str) -> str | dict[str, str]:
    """Return the installed version of a package ("" when absent); a dict for several."""
    installed = list_pkgs()
    versions = {name: installed.get(name, "") for name in names}
    return versions[names[0]] if len(names) == 1 else versions


def _apt(action: str, names: list[str]) -> dict[str, dict[str, str]]:
    before = list_pkgs()
    result = __salt__["cmd.run_all"](  # noqa: F821
        ["apt-get", "-q", "-y", action, *names], env={"DEBIAN_FRONTEND": "noninteractive"})
    after = list_pkgs()
    changes = {name: {"old": before.get(name, ""), "new": after.get(name, "")}
               for name in sorted(set(before) | set(after)) if before.get(name) != after.get(name)}
    if result["retcode"]:
        raise CommandExecutionError(f"apt-get {action} failed: {result['stderr']}",
                                    info={"changes": changes})
    return changes


def install(name: str | None = None, pkgs: list[str] | None = None, refresh: bool = False,
            **kwargs: Any) -> dict[str, dict[str, str]]:
    """Install packages; return ``{pkg: {"old", "new"}}`` for those that changed."""
    if refresh:
        __salt__["cmd.run_all"](["apt-get", "-q", "update"])  # noqa: F821
    return _apt("install", list(pkgs or []) + ([name] if name else []))


def remove(name: str | None = None, pkgs: list[str] | None = None,
           **kwargs: Any) -> dict[str, dict[str, str]]:
    """Remove packages; return ``{pkg: {"old", "new": ""}}`` for those removed."""
    return _apt("remove", list(pkgs or []) + ([name] if name else []))
